// The PostgreSQL store's locks, tested inside the overlap: while one operation holds its
// locks (between its read and its write, or its writes made and not yet committed), claims
// that cannot meet it go through, claims that can meet it wait (and then see it), and an operation that needs the whole namespace (a
// dead instance to remove) waits for it. The limit on claims in all holds for claims made
// side by side.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { loadCore } from "../../plugin/core-loader.js";
import { createPgStore } from "../../plugin/conductor/pg-store.js";
import { lockNames, selection } from "../../plugin/conductor/pg-rows.js";
import { OVER_LIMIT } from "../../plugin/conductor/pg-schema.js";
import { stopTestServer, testServer } from "./conductor/stores.mjs";

let server;
let env;
let n = 0;
const ns = () => `locks${++n}`;
const TTL = 600;
const startOp = { operation: "start", task: "t", priority: "P1", working_directory: "/w", project_root: "/w", source: "web" };

before(async () => {
  server = await testServer();
  env = { ...process.env, ...server.env };
});
after(stopTestServer);

/** A store of its own (its own connections), as another machine's window would have. */
const storeOf = (namespace) => createPgStore(server.store({ namespace, timeoutMs: 8_000 }), { env });

/** `promise` settled within `ms`: "done", or "waiting". */
const within = (promise, ms) => Promise.race([promise.then(() => "done", () => "done"), new Promise((r) => setTimeout(() => r("waiting"), ms))]);

/**
 * Runs `op` on `store` and stops inside its transaction (its writes made, its locks held);
 * resolves `held` then, and commits when `open()` is called.
 */
function holdInside(store, op, host) {
  let open;
  const gate = new Promise((r) => (open = r));
  let inside;
  const held = new Promise((r) => (inside = r));
  const done = store.run({ op, host, ttlSeconds: TTL, insideLock: async () => {
    inside();
    await gate;
  } });
  return { held, done, open: () => open() };
}

async function started(store, host) {
  return (await store.run({ op: startOp, host, ttlSeconds: TTL })).result.instance_id;
}

/**
 * A client in the middle of a claim: its first round trip made (its locks taken, its rows
 * read), its second not yet. `finish()` releases the locks, writing nothing.
 */
async function midClaim(namespace, instance, files) {
  const client = await server.connect();
  const sel = selection(loadCore(), { operation: "claim", instance_id: instance, files }, "aaaaaa");
  const names = lockNames(sel.locks);
  await client.query("SELECT * FROM nso_conductor_read($1, 'fine', $2, $3, false, $4, $5, $6, $7, '{}', 'h', NULL, 600, '30s')",
    [namespace, names.exclusive, names.shared, sel.exact, sel.from, sel.to, sel.ids]);
  return { finish: async () => (await client.query("CALL nso_conductor_unlock($1)", [namespace]), await client.end()) };
}

test("while a claim is being decided, a claim elsewhere goes through; claims that can meet it wait for it", async () => {
  const namespace = ns();
  const [b, c, d] = [storeOf(namespace), storeOf(namespace), storeOf(namespace)];
  const ids = [await started(b, "ha"), await started(b, "hb"), await started(c, "hc"), await started(d, "hd")];
  const claim = (store, k, files) => store.run({ op: { operation: "claim", instance_id: ids[k], files }, host: `h${"abcd"[k]}`, ttlSeconds: TTL });

  const a = await midClaim(namespace, ids[0], ["/w/x/a.ts"]);
  // Inside the overlap: a holds its locks between its read and its write.
  const elsewhere = claim(b, 1, ["/w/y/b.ts", "/w/z/**", "/w/xy/c.ts"]);
  assert.equal(await within(elsewhere, 4_000), "done", "a claim that cannot meet a's goes through while a decides");
  assert.equal((await elsewhere).result.status, "ok");
  const above = claim(c, 2, ["/w/x/**"]); // a folder above a's claim: can meet it
  const same = claim(d, 3, ["/w/x/a.ts"]); // the same file
  const status = b.run({ op: { operation: "status" }, host: "hb", ttlSeconds: TTL });
  assert.equal(await within(status, 4_000), "done", "status reads without locks");
  assert.equal(await within(Promise.race([above, same]), 800), "waiting", "claims that can meet a's wait for it");

  await a.finish();
  // The two waiting claims meet each other too: one after the other, one wins.
  const answers = [(await above).result, (await same).result];
  assert.deepEqual(answers.map((r) => r.status).sort(), ["conflict", "ok"]);
  const all = (await b.run({ op: { operation: "status" }, host: "hb", ttlSeconds: TTL })).result;
  assert.deepEqual(all.instances[1].claims, ["/w/y/b.ts", "/w/z/**", "/w/xy/c.ts"]);
  assert.equal(all.conflicts.length, 0);
  await Promise.all([b, c, d].map((s) => s.close()));
});

test("a claim under a folder glob being decided waits for it: the folders above a claim are locked too", async () => {
  const namespace = ns();
  const b = storeOf(namespace);
  const c = storeOf(namespace);
  const [ia, ib, ic] = [await started(b, "ha"), await started(b, "hb"), await started(c, "hc")];
  const a = await midClaim(namespace, ia, ["/w/src/**"]);
  const below = b.run({ op: { operation: "claim", instance_id: ib, files: ["/w/src/api/deep/x.ts"] }, host: "hb", ttlSeconds: TTL });
  const beside = c.run({ op: { operation: "claim", instance_id: ic, files: ["/w/srcx/a.ts"] }, host: "hc", ttlSeconds: TTL });
  assert.equal(await within(beside, 4_000), "done", "a folder that only begins alike is not above it");
  assert.equal(await within(below, 800), "waiting");
  await a.finish();
  assert.equal((await below).result.status, "ok", "a wrote nothing: free once it is done");
  await Promise.all([b.close(), c.close()]);
});

test("an operation that must remove a dead instance waits for every operation in flight, then removes it once", async () => {
  const namespace = ns();
  const [a, b, other] = [storeOf(namespace), storeOf(namespace), storeOf(namespace)];
  const gone = await started(other, "hz");
  assert.equal((await other.run({ op: { operation: "claim", instance_id: gone, files: ["/w/q/**"] }, host: "hz", ttlSeconds: TTL })).result.status, "ok");
  const [ia, ib] = [await started(a, "ha"), await started(b, "hb")];
  // That machine goes silent: its last heartbeat is now past the TTL.
  const old = new Date(Date.now() - 2 * TTL * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  await server.query(`UPDATE nso_conductor_instances SET last_heartbeat = $2::timestamptz,
    doc = jsonb_set(doc::jsonb, '{last_heartbeat}', to_jsonb($4::text))::text WHERE namespace = $1 AND id = $3`, [namespace, old, gone, old]);
  const alive = async () => (await server.query("SELECT id FROM nso_conductor_instances WHERE namespace = $1 AND id = $2", [namespace, gone])).length;

  const held = await midClaim(namespace, ia, ["/w/x/a.ts"]);
  const reaping = b.run({ op: { operation: "claim", instance_id: ib, files: ["/w/q/file.ts"] }, host: "hb", ttlSeconds: TTL });
  assert.equal(await within(reaping, 800), "waiting", "removing an instance needs the namespace to itself");
  assert.equal(await alive(), 1, "nothing removed while another operation is in flight");
  await held.finish();
  assert.equal((await reaping).result.status, "ok", "the dead instance's claim no longer blocks");
  assert.equal(await alive(), 0);
  const status = (await b.run({ op: { operation: "status" }, host: "hb", ttlSeconds: TTL })).result;
  assert.deepEqual(status.instances.map((i) => i.id), [ia, ib]);
  const removed = (await b.readLog("history")).filter((line) => line.includes(gone));
  assert.equal(removed.length, 1, `one history line for the removed instance: ${removed.join("\n")}`);
  assert.match(removed[0], /"outcome":"orphaned"/);
  await Promise.all([a.close(), b.close(), other.close()]);
});

test("the limit on claims in all holds for claims made side by side: the write past it is refused and nothing is written", async () => {
  const namespace = ns();
  const store = storeOf(namespace);
  const id = await started(store, "ha");
  const count = async () => Number((await server.query("SELECT claim_count FROM nso_conductor_state WHERE namespace = $1", [namespace]))[0].claim_count);
  const before = await count();
  const meta = (await server.query("SELECT meta FROM nso_conductor_state WHERE namespace = $1", [namespace]))[0].meta;
  const call = (fine, max) => server.query(`CALL nso_conductor_write($1, true, $2, '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}',
    '{}', '{}', $3, $4, $5, '{}', '{}', true, $6, $7, NULL)`, [namespace, meta, [id], ["/w/over.ts"], ["/w/over.ts"], fine, max]);
  await assert.rejects(call(true, before), (error) => error.code === OVER_LIMIT, "one claim past the limit");
  assert.equal(await count(), before, "nothing written");
  assert.deepEqual(await server.query("SELECT pattern FROM nso_conductor_claims WHERE namespace = $1", [namespace]), []);
  await call(true, before + 1); // at the limit: written
  assert.equal(await count(), before + 1);

  // Through the store: two claims side by side, each under the limit as it read it, together
  // past it. The second write is refused and the claim decided again on the whole namespace,
  // where the core counts the claims and refuses it as it would have one after the other.
  const filler = await started(store, "hf");
  await server.query(`INSERT INTO nso_conductor_claims (namespace, instance, pattern, head)
    SELECT $1, $2, '/w/fill/f' || g || '.ts', '/w/fill/f' || g || '.ts' FROM generate_series(1, $3::int) g`, [namespace, filler, 199_998]);
  await server.query("UPDATE nso_conductor_state SET claim_count = (SELECT count(*) FROM nso_conductor_claims WHERE namespace = $1) WHERE namespace = $1", [namespace]);
  assert.equal(await count(), 199_999);
  const other = storeOf(namespace);
  const id2 = await started(other, "hb");
  const hold = holdInside(store, { operation: "claim", instance_id: id, files: ["/w/one.ts"] }, "ha");
  await hold.held;
  const second = other.run({ op: { operation: "claim", instance_id: id2, files: ["/w/two.ts"] }, host: "hb", ttlSeconds: TTL });
  assert.equal(await within(second, 800), "waiting", "the second write waits for the first's count");
  hold.open();
  assert.equal((await hold.done).result.status, "ok", "the first claim reaches the limit");
  const answer = await second;
  assert.equal(answer.error?.code, "bad_request", JSON.stringify(answer.error));
  assert.match(answer.error.message, /holds 200000 claims; more would pass the limit of 200000/);
  assert.equal(await count(), 200_000);
  const rows = await server.query("SELECT count(*)::int AS n FROM nso_conductor_claims WHERE namespace = $1", [namespace]);
  assert.equal(rows[0].n, 200_000, "never past the limit");
  await Promise.all([store.close(), other.close()]);
});
