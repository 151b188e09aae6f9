// The PostgreSQL store reads only the rows an operation can concern and lets the core decide
// on them; the files store gives the core the whole state. Random runs of every operation
// (claims on paths and globs that meet at every depth, forced claims, releases, instances
// dying by heartbeat age or by process, cleanups) go to both, with the same clock and
// randomness: every answer, the final status and the log lines must be identical.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { isoSeconds } from "../../plugin/conductor/store.js";
import { confined } from "../../plugin/conductor/pg-rows.js";
import { freshStore, stopTestServer, testServer } from "./conductor/stores.mjs";

after(stopTestServer);

const T = Date.parse("2026-11-23T10:00:00Z");
const TTL = 600;
const POOL = ["/w/src/a.ts", "/w/src/b.ts", "/w/src/**", "/w/src/*.ts", "/w/src/api/users.ts", "/w/src/api/**", "/w/src/api/v1/**/*.rs",
  "/w/lib/{x,y}.js", "/w/lib/x.js", "/w/lib/", "/w/**", "/**/*.md", "/w/docs/readme.md", "/w/docs/*.md", "/w/test/[ab].js", "/w/test/a.js",
  "/w", "/w/srcx/c.ts", "/x/y.ts", "/w/src/a.ts/**", "/w/src/api/v1/z.rs", "/*", "/w/src/api/v1/deep/er/q.rs", "/w/src/../etc", "relative.ts"];

/** A small deterministic generator (mulberry32), so a failing run can be replayed by its seed. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

async function run(seed, steps) {
  const random = rng(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const stores = { files: (await freshStore("files")).store, postgres: (await freshStore("postgres")).store };
  const live = [];
  let now = 0;
  let n = 0;
  const both = async (op, { host = "host-a", letters } = {}) => {
    const params = { op, now: isoSeconds(new Date(T + now * 1000)), random: letters ?? "zzzzzz", host, ttlSeconds: TTL };
    const [a, b] = [await stores.files.run(params), await stores.postgres.run(params)];
    assert.deepEqual({ result: b.result, error: b.error }, { result: a.result, error: a.error }, `seed ${seed}, step ${n}: ${JSON.stringify(op)}`);
    return a;
  };
  for (; n < steps; n++) {
    now += Math.floor(random() * 90);
    const r = random();
    const id = live.length ? pick(live) : null;
    if (!id || r < 0.08) {
      const letters = (seed.toString(36) + n.toString(36)).padStart(6, "0").slice(-6);
      // Some instances on this host with a pid that is gone: dead at once, by process.
      const dead = random() < 0.15;
      const answer = await both({ operation: "start", task: `t${n}`, priority: "P1", working_directory: "/w", project_root: "/w", source: "web",
        host: dead ? "host-a" : pick(["host-a", "host-b"]), pid: dead ? 2 ** 22 + 17 : null, automatic: true }, { letters });
      live.push(answer.result.instance_id);
    } else if (r < 0.55) {
      const files = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(POOL));
      const force = random() < 0.1 ? { force: "needed", by: "lead" } : {};
      await both({ operation: "claim", instance_id: id, files, ...force });
    } else if (r < 0.7) {
      await both(random() < 0.5 ? { operation: "release", instance_id: id, all: true } : { operation: "release", instance_id: id, files: [pick(POOL), pick(POOL)] });
    } else if (r < 0.78) {
      await both({ operation: "heartbeat", instance_id: id });
    } else if (r < 0.83) {
      await both({ operation: "notices", instance_id: id });
    } else if (r < 0.88) {
      await both({ operation: "done", instance_id: id, outcome: "success", files_modified: [] });
      live.splice(live.indexOf(id), 1);
    } else if (r < 0.9) {
      await both({ operation: "cleanup" });
    } else if (r < 0.93) {
      now += TTL; // a long pause: every instance that does not act now is an orphan
      await both({ operation: "status" });
    } else {
      await both({ operation: "status" });
    }
  }
  await both({ operation: "status" });
  for (const name of ["history", "conflicts"]) {
    assert.deepEqual(await stores.postgres.readLog(name), await stores.files.readLog(name), `seed ${seed}: ${name}`);
  }
}

test("on random runs of every operation, the store that reads only the rows concerned answers as the whole state does", async () => {
  await testServer();
  for (const seed of [1, 2, 3, 4, 5, 6]) await run(seed, 150);
});

test("a claim reads the claims it could meet, not every claim held", async () => {
  const server = await testServer();
  const { store, settings } = await freshStore("postgres");
  const op = async (operation) => (await store.run({ op: operation, host: "h", ttlSeconds: TTL })).result;
  const start = () => op({ operation: "start", task: "t", priority: "P1", working_directory: "/w", project_root: "/w", source: "web", automatic: true });
  const a = (await start()).instance_id;
  const b = (await start()).instance_id;
  const files = Array.from({ length: 400 }, (_, i) => `/w/area${i % 100}/f${i}.ts`);
  assert.equal((await op({ operation: "claim", instance_id: a, files })).status, "ok");
  // What the read of a claim on /w/area7/x.ts returns: the claims under /w/area7 only.
  const rows = await server.query(`SELECT coalesce(json_array_length(claims), 0) AS n FROM nso_conductor_read($1, 'none', '{}', '{}', false, $2, $3, $4, $5, '{}', 'h', NULL, 600, '0')`,
    [settings.namespace, ["", "/w", "/w/area7", "/w/area7/x.ts"], ["/w/area7/x.ts/"], ["/w/area7/x.ts0"], [b]]);
  assert.equal(rows[0].n, 0, "no claim has a head above or under /w/area7/x.ts");
  const under = await server.query(`SELECT coalesce(json_array_length(claims), 0) AS n FROM nso_conductor_read($1, 'none', '{}', '{}', false, $2, $3, $4, $5, '{}', 'h', NULL, 600, '0')`,
    [settings.namespace, ["", "/w"], ["/w/area7/"], ["/w/area70"], [b]]);
  assert.equal(under[0].n, 4, "the 4 claims under /w/area7, none of /w/area70 to /w/area79");
  const conflict = await op({ operation: "claim", instance_id: b, files: ["/w/area7/**"] });
  assert.equal(conflict.status, "conflict");
  assert.deepEqual(conflict.conflicts.map((c) => c.pattern), ["/w/area7/f7.ts", "/w/area7/f107.ts", "/w/area7/f207.ts", "/w/area7/f307.ts"]);
  const heads = await server.query("SELECT pattern, head FROM nso_conductor_claims WHERE namespace = $1 AND instance = $2 ORDER BY seq LIMIT 2", [settings.namespace, a]);
  assert.deepEqual(heads, [{ pattern: "/w/area0/f0.ts", head: "/w/area0/f0.ts" }, { pattern: "/w/area1/f1.ts", head: "/w/area1/f1.ts" }]);
});

test("a decision is confined to its locks only when it writes nothing else: other instances, other heads, the namespace's state", () => {
  const locks = { instances: ["me"], heads: ["/w/a.ts"], above: ["", "/w"] };
  const meta = JSON.stringify({ updated_at: "2026-11-28T08:00:00Z", drift_warnings: [] });
  const later = JSON.stringify({ drift_warnings: [], updated_at: "2026-11-28T08:00:05Z" });
  const row = (id) => ({ id, doc: "{}", host: null, pid: null, beat: null });
  const diff = (fields) => ({ meta: later, gone: [], added: [], set: [], drop: [], add: [], ...fields });
  const mine = diff({ set: [row("me")], add: [["me", "/w/a.ts", "/w/a.ts"]], drop: [["me", "/w/b/**"]] });
  assert.equal(confined(mine, locks, meta), true, "its own instance, a claim at its head, its own claims dropped, only updated_at");
  assert.equal(confined(null, locks, meta), true, "nothing written");
  assert.equal(confined(diff({ gone: ["me"] }), locks, meta), true, "done: itself removed");
  for (const [what, d, m] of [
    ["a dead instance removed", diff({ gone: ["other"] }), meta],
    ["another instance's heartbeat corrected", diff({ set: [row("other")] }), meta],
    ["a claim forced from another instance", diff({ drop: [["other", "/w/a.ts"]] }), meta],
    ["a claim at a head not locked", diff({ add: [["me", "/w/c.ts", "/w/c.ts"]] }), meta],
    ["an instance that is not the one locked", diff({ added: [row("opc-other")] }), meta],
    ["a drift warning", diff({ meta: JSON.stringify({ updated_at: "x", drift_warnings: [{ instance_id: "me" }] }) }), meta],
    ["a namespace state that is not an object", diff({}), "[]"],
    ["a namespace state that is not JSON", diff({}), "{"],
  ]) assert.equal(confined(d, locks, m), false, what);
});
