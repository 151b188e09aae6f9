// A store written by the previous NSO (schema version 1: each namespace's whole state as one
// JSON text) is upgraded in place at the first operation: every claim becomes a row and
// keeps working, an unreadable state is kept aside, and an upgrade that fails leaves the
// database as it was.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPgStore } from "../../plugin/conductor/pg-store.js";
import { SCHEMA_VERSION } from "../../plugin/conductor/pg-schema.js";
import { storeError } from "../../plugin/conductor/pg-connection.js";
import { openStore } from "../../plugin/conductor/stores.js";
import { stopTestServer, testServer } from "./conductor/stores.mjs";

let server;
let env;
before(async () => {
  server = await testServer();
  env = { ...process.env, ...server.env };
});
after(stopTestServer);

/** The tables version 1 wrote (its statements as released), in `schema`, at version 1. */
async function versionOneSchema(schema) {
  const t = (name) => `"${schema}"."nso_conductor_${name}"`;
  for (const sql of [
    `CREATE SCHEMA "${schema}"`,
    `CREATE TABLE ${t("schema_version")} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE ${t("state")} (namespace text PRIMARY KEY, state text, last_good text,
       revision bigint NOT NULL DEFAULT 0, updated_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE ${t("history")} (id bigserial PRIMARY KEY, namespace text NOT NULL, line text NOT NULL,
       revision bigint NOT NULL, at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX ON ${t("history")} (namespace, id)`,
    `CREATE TABLE ${t("conflicts")} (id bigserial PRIMARY KEY, namespace text NOT NULL, line text NOT NULL,
       revision bigint NOT NULL, at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX ON ${t("conflicts")} (namespace, id)`,
    `CREATE TABLE ${t("sprint")} (namespace text PRIMARY KEY, sprint text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE ${t("corrupt")} (id bigserial PRIMARY KEY, namespace text NOT NULL, state text, problem text NOT NULL,
       at timestamptz NOT NULL DEFAULT now())`,
    `INSERT INTO ${t("schema_version")} (version) VALUES (1)`,
  ]) await server.query(sql);
  return t;
}

const NOW = "2026-11-23T10:00:00Z";
const beat = "2026-11-23T09:58:00Z";

/**
 * A state as the previous release stored it, with what a hand edit or a protocol 1.0 writer
 * leaves: 4 instances, 240 claims (paths and globs), a claim listed only in global_claims, a
 * relative claim, a forced-claim notice, a drift warning, unknown fields.
 */
function oldState() {
  const instances = [0, 1, 2, 3].map((k) => ({
    id: `web-inst0${k}`, source: "web", project: "shop", task: `task ${k}`, priority: "P1",
    files_claimed: Array.from({ length: 60 }, (_, i) => (i % 10 === 0 ? `/w/p${k}/m${i}/**` : `/w/p${k}/src/f${i}.ts`)),
    started_at: "2026-11-23T09:00:00Z", last_heartbeat: beat, working_directory: "/w", project_root: "/w",
    pid: null, host: "other-host", process_started: null, agent: k === 0 ? "dev" : null, sessions: [`s${k}`], forced: [],
  }));
  instances[1].forced = [{ pattern: "/w/p0/x.ts", by: "lead", claimant: "web-inst00", justification: "hotfix", at: beat }];
  instances[2].files_claimed.push("docs/readme.md"); // relative: made absolute against /w
  instances[3].team_colour = "blue";
  return JSON.stringify({
    version: "2.0", updated_at: beat, instances,
    global_claims: { "/w/only-global.ts": "web-inst03", "/w/p0/src/f1.ts": "web-inst00" },
    drift_warnings: [{ instance_id: "web-inst02", reason: "not in the sprint", acknowledged: false, at: beat }],
    board: { lane: 3 },
  }, null, 2);
}

const opts = { now: NOW, host: "this-host", ttlSeconds: 3600, random: "qqqqqq" };

test("a version 1 store is upgraded in place: every claim survives as a row and works as before", async () => {
  const t = await versionOneSchema("v1up");
  const text = oldState();
  await server.query(`INSERT INTO ${t("state")} (namespace, state, last_good, revision) VALUES ('team', $1, NULL, 41), ('broken', $2, $1, 7)`,
    [text, '{"version": "2.0", "instances": [ {"id": ']);
  await server.query(`INSERT INTO ${t("history")} (namespace, line, revision) VALUES ('team', '{"id":"web-gone00"}', 40)`);
  // The same state in a files store: what the whole state answers.
  const home = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "nso-migrate-")), "home");
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(home, "status.json"), text);
  const files = openStore({}, { home });
  const store = createPgStore(server.store({ schema: "v1up", namespace: "team" }), { env });

  const status = await store.run({ op: { operation: "status" }, ...opts });
  const expected = await files.run({ op: { operation: "status" }, ...opts });
  assert.equal(status.error, null);
  assert.deepEqual(status.result, expected.result, "status reads as it did from the old state text");
  assert.equal(status.result.summary.total_files_claimed, 242, "240 claims, the relative one and the global_claims-only one");
  assert.ok(status.result.instances[3].files_claimed.includes("/w/only-global.ts"));
  assert.ok(status.result.instances[2].files_claimed.includes("/w/docs/readme.md"));
  assert.equal(status.result.instances[3].team_colour, "blue");
  assert.equal(status.version, 41, "the revision goes on from where it was");

  const version = await server.query(`SELECT max(version)::int AS v FROM ${t("schema_version")}`);
  assert.equal(version[0].v, SCHEMA_VERSION);
  const count = await server.query(`SELECT count(*)::int AS n FROM ${t("claims")} WHERE namespace = 'team'`);
  assert.equal(count[0].n, 242);
  const columns = (await server.query("SELECT column_name FROM information_schema.columns WHERE table_schema = 'v1up' AND table_name = 'nso_conductor_state' ORDER BY 1"))
    .map((r) => r.column_name);
  assert.deepEqual(columns, ["claim_count", "meta", "namespace", "revision", "updated_at"]);

  // The claims work: the same operations answer as on the whole state.
  const start = { operation: "start", task: "new", priority: "P1", working_directory: "/w", project_root: "/w", source: "web", automatic: true };
  for (const s of [store, files]) assert.equal((await s.run({ op: start, ...opts })).result.instance_id, "web-qqqqqq");
  const steps = [
    { operation: "claim", instance_id: "web-qqqqqq", files: ["/w/p2/src/**"] },
    { operation: "claim", instance_id: "web-qqqqqq", files: ["/w/docs/**", "/w/only-global.ts"] },
    { operation: "release", instance_id: "web-inst03", files: ["/w/only-global.ts"] },
    { operation: "claim", instance_id: "web-qqqqqq", files: ["/w/only-global.ts", "/w/p0/m10/deep/a.ts"] },
    { operation: "claim", instance_id: "web-qqqqqq", files: ["/w/p0/m10/deep/a.ts"], force: "the holder is away", by: "lead" },
    { operation: "notices", instance_id: "web-inst00" },
    { operation: "done", instance_id: "web-inst01", outcome: "success", files_modified: [] },
    { operation: "status" },
  ];
  for (const op of steps) {
    const [a, b] = [await store.run({ op, ...opts }), await files.run({ op, ...opts })];
    assert.deepEqual({ result: a.result, error: a.error }, { result: b.result, error: b.error }, JSON.stringify(op));
  }
  const last = (await store.run({ op: { operation: "status" }, ...opts })).result;
  assert.equal(last.conflicts.length, 0);
  assert.deepEqual(last.instances.map((i) => i.id), ["web-inst00", "web-inst02", "web-inst03", "web-qqqqqq"]);
  assert.deepEqual(await store.readLog("conflicts"), await files.readLog("conflicts"));

  // The unreadable state of another namespace: kept aside, its last good state upgraded.
  const broken = createPgStore(server.store({ schema: "v1up", namespace: "broken" }), { env });
  const fromLastGood = (await broken.run({ op: { operation: "status" }, ...opts })).result;
  assert.equal(fromLastGood.summary.total_files_claimed, 242);
  const kept = await server.query(`SELECT state FROM ${t("corrupt")} WHERE namespace = 'broken'`);
  assert.deepEqual(kept, [{ state: '{"version": "2.0", "instances": [ {"id": ' }]);
  await Promise.all([store.close(), broken.close()]);
});

test("an upgrade that fails leaves the version 1 store as it was (one transaction)", async () => {
  const t = await versionOneSchema("v1fail");
  const text = oldState();
  await server.query(`INSERT INTO ${t("state")} (namespace, state) VALUES ('team', $1)`, [text]);
  // Something in the way of the new tables: the upgrade fails half-way.
  await server.query(`CREATE TABLE ${t("claims")} (x int)`);
  const store = createPgStore(server.store({ schema: "v1fail", namespace: "team" }), { env });
  await assert.rejects(store.run({ op: { operation: "status" }, ...opts }), (error) => error.code === "conductor_store");
  await store.close();
  const version = await server.query(`SELECT max(version)::int AS v FROM ${t("schema_version")}`);
  assert.equal(version[0].v, 1);
  assert.deepEqual(await server.query(`SELECT state FROM ${t("state")} WHERE namespace = 'team'`), [{ state: text }]);
  const made = await server.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'v1fail' AND tablename = 'nso_conductor_instances'");
  assert.equal(made[0].n, 0, "nothing of the new layout is left");
  // Out of the way, the next operation upgrades.
  await server.query(`DROP TABLE ${t("claims")}`);
  const again = createPgStore(server.store({ schema: "v1fail", namespace: "team" }), { env });
  assert.equal((await again.run({ op: { operation: "status" }, ...opts })).result.summary.total_files_claimed, 242);
  await again.close();
});

test("a version 2 store (the release before this one) is upgraded in place: its claims hold under the new locks", async () => {
  await server.query(fs.readFileSync(new URL("./conductor/pg-schema-v2.sql", import.meta.url), "utf8"));
  const store = createPgStore(server.store({ schema: "v2up", namespace: "team" }), { env });
  const at = { ...opts, now: "2026-11-23T10:00:30Z", host: "other-host" };
  const run = async (op) => (await store.run({ op, ...at })).result;
  const status = await run({ operation: "status" });
  assert.deepEqual(status.instances.map((i) => [i.id, i.claims.length]), [["web-aaaaaa", 20], ["web-bbbbbb", 20], ["web-cccccc", 19]]);
  const version = await server.query("SELECT max(version)::int AS v FROM v2up.nso_conductor_schema_version");
  assert.equal(version[0].v, SCHEMA_VERSION);
  const args = await server.query("SELECT pg_get_function_identity_arguments('v2up.nso_conductor_read'::regproc) AS a");
  assert.match(args[0].a, /p_lock text, p_exclusive text\[\], p_shared text\[\]/, "the functions are the new ones");

  const held = await run({ operation: "claim", instance_id: "web-bbbbbb", files: ["/w/p0/m5/deep/x.ts"] });
  assert.equal(held.status, "conflict", "a claim of version 2 still blocks");
  assert.deepEqual(held.conflicts.map((c) => c.pattern), ["/w/p0/m5/**"]);
  assert.equal((await run({ operation: "claim", instance_id: "web-bbbbbb", files: ["/w/p2/src/f1.ts"] })).status, "ok", "a claim released under version 2 stays free");
  assert.equal((await run({ operation: "done", instance_id: "web-aaaaaa", outcome: "success", files_modified: [] })).status, "ok");
  assert.equal((await run({ operation: "claim", instance_id: "web-cccccc", files: ["/w/p0/m5/**"] })).status, "ok", "done freed its claims");
  const after = await run({ operation: "status" });
  assert.deepEqual(after.instances.map((i) => [i.id, i.claims.length]), [["web-bbbbbb", 21], ["web-cccccc", 20]]);
  assert.equal((await server.query("SELECT claim_count::int AS n FROM v2up.nso_conductor_state WHERE namespace = 'team'"))[0].n, 41, "the count of claims goes on");
  const lines = await store.readLog("conflicts");
  assert.equal(lines.length, 2, "the conflict line of version 2 and the new one");
  await store.close();
});

test("a machine still running the NSO before the upgrade is told to update, not to check the database", async () => {
  // What that NSO sends: the read with the version 2 arguments, on the upgraded store.
  const error = await server.query("SELECT * FROM v2up.nso_conductor_read('team', true, false, '{}', '{}', '{}', '{}', '{}', 'h', NULL, 600, '10s')")
    .then(() => null, (e) => e);
  assert.equal(error?.code, "42883", String(error));
  const store = storeError(error, "nso@db:5432/postgres (namespace team)");
  assert.equal(store.code, "conductor_store");
  assert.match(store.fix, /another machine's NSO has upgraded the store's tables: update NSO on this machine/);
});
