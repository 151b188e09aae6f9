// The PostgreSQL claim store as a team uses it, against a real server: the schema created and
// migrated by NSO (also by many processes at once), the password from the environment or a
// pgpass file only, clear errors for an unreachable server, one repository checked out at
// different paths on two machines, the plugin (enforce and advisory) while the database is
// down and after it is back, and the CLI on the project's configured store.
import { after, before as beforeAll, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import plugin from "../../plugin/nso-plugin.js";
import { createNso } from "../../plugin/nso.js";
import { createPgStore, pathMapping } from "../../plugin/conductor/pg-store.js";
import { SCHEMA_VERSION } from "../../plugin/conductor/pg-schema.js";
import { before, chatParams, makeProject, sessionCreated } from "./helpers.mjs";
import { stopTestServer, storedState, testServer } from "./conductor/stores.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
let server;
let env;
let n = 0;
const ns = () => `pg${++n}`;
const startOp = (fields = {}) => ({ operation: "start", task: "t", priority: "P1", working_directory: "/w", project_root: "/w", source: "web", ...fields });

beforeAll(async () => {
  server = await testServer();
  env = { ...process.env, ...server.env };
  process.env.PGPASSFILE = server.env.PGPASSFILE; // the plugin reads the process's environment
});
after(stopTestServer);

test("the schema is created by NSO, versioned, once even when 12 pools' first connections race", async () => {
  const settings = server.store({ schema: "nso_race", namespace: "a" });
  const stores = Array.from({ length: 12 }, (_, i) => createPgStore({ ...settings, namespace: `n${i}` }, { env }));
  const answers = await Promise.all(stores.map((s) => s.run({ op: startOp() })));
  assert.deepEqual(answers.map((a) => a.result.status), Array(12).fill("ok"));
  assert.deepEqual(await server.query("SELECT version FROM nso_race.nso_conductor_schema_version ORDER BY version"),
    Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })), "each version applied once");
  const tables = (await server.query("SELECT tablename FROM pg_tables WHERE schemaname = 'nso_race' ORDER BY 1")).map((r) => r.tablename);
  assert.deepEqual(tables, ["nso_conductor_claims", "nso_conductor_conflicts", "nso_conductor_corrupt", "nso_conductor_history",
    "nso_conductor_instances", "nso_conductor_schema_version", "nso_conductor_sprint", "nso_conductor_state"]);
  assert.equal((await server.query("SELECT count(*)::int AS n FROM nso_race.nso_conductor_state"))[0].n, 12, "one state row per namespace");
  await Promise.all(stores.map((s) => s.close()));
  // Tables written by a newer NSO are refused, with what to do.
  await server.query("INSERT INTO nso_race.nso_conductor_schema_version (version) VALUES (99)");
  const newer = createPgStore(settings, { env });
  await assert.rejects(newer.run({ op: { operation: "status" } }), (error) => {
    assert.equal(error.code, "conductor_store");
    assert.match(error.message, /schema version 99, written by a newer NSO/);
    assert.match(error.fix, /update NSO on this machine/);
    return true;
  });
  await newer.close();
});

test("the password comes from passwordEnv, PGPASSWORD or the pgpass file; without one, a clear error", async () => {
  const settings = server.store({ namespace: ns() });
  const noFile = { ...process.env, PGPASSFILE: "/nonexistent/pgpass" };
  delete noFile.PGPASSWORD;
  const none = createPgStore(settings, { env: noFile });
  await assert.rejects(none.run({ op: startOp() }), (error) => {
    assert.equal(error.code, "conductor_store");
    assert.equal(error.kind, "auth");
    assert.match(error.message, new RegExp(`the PostgreSQL claim store nso@127\\.0\\.0\\.1:${server.port}/postgres \\(namespace pg\\d+\\) cannot be used`));
    assert.match(error.fix, /PGPASSWORD.*passwordEnv.*pgpass file/);
    return true;
  });
  const wrong = createPgStore(settings, { env: { ...noFile, PGPASSWORD: "wrong" } });
  await assert.rejects(wrong.run({ op: startOp() }), (error) => error.kind === "auth" && /28P01/.test(error.message));
  const named = createPgStore({ ...settings, passwordEnv: "TEAM_DB_SECRET" }, { env: { ...noFile, TEAM_DB_SECRET: server.password } });
  assert.equal((await named.run({ op: startOp() })).result.status, "ok");
  const viaEnv = createPgStore(settings, { env: { ...noFile, PGPASSWORD: server.password } });
  assert.equal((await viaEnv.run({ op: startOp() })).result.status, "ok");
  const viaFile = createPgStore(settings, { env });
  assert.equal((await viaFile.run({ op: startOp() })).result.status, "ok");
  await Promise.all([none, wrong, named, viaEnv, viaFile].map((s) => s.close()));
});

test("an unreachable server fails fast with the store named and the fix", async () => {
  const closed = createPgStore(server.store({ port: 1, namespace: "x" }), { env });
  const t0 = Date.now();
  await assert.rejects(closed.run({ op: startOp() }), (error) => {
    assert.equal(error.code, "conductor_store");
    assert.equal(error.kind, "unreachable");
    assert.match(error.message, /^the PostgreSQL claim store nso@127\.0\.0\.1:1\/postgres \(namespace x\) cannot be used \(ECONNREFUSED/);
    assert.match(error.fix, /check that the database server runs.*set conductor\.store to "files".*conductor\.mode to "advisory"/);
    return true;
  });
  assert.ok(Date.now() - t0 < 2000);
  await closed.close();
});

test("one repository at two paths on two machines: the same file is the same claim, shown at each machine's path", async () => {
  const namespace = ns();
  const alice = createPgStore(server.store({ namespace, repository: "shop" }), { root: "/home/alice/src/shop", env });
  const bob = createPgStore(server.store({ namespace, repository: "shop" }), { root: "/srv/ci/work/shop", env });
  const a = (await alice.run({ op: startOp({ working_directory: "/home/alice/src/shop", project_root: "/home/alice/src/shop" }), host: "laptop" })).result.instance_id;
  const b = (await bob.run({ op: startOp({ working_directory: "/srv/ci/work/shop", project_root: "/srv/ci/work/shop" }), host: "ci" })).result.instance_id;
  assert.equal((await alice.run({ op: { operation: "claim", instance_id: a, files: ["/home/alice/src/shop/src/api/**"] }, host: "laptop" })).result.status, "ok");
  const refused = (await bob.run({ op: { operation: "claim", instance_id: b, files: ["/srv/ci/work/shop/src/api/users.ts", "/tmp/x"] }, host: "ci" })).result;
  assert.equal(refused.status, "conflict");
  assert.deepEqual(refused.conflicts.map((c) => [c.file, c.pattern, c.example]),
    [["/srv/ci/work/shop/src/api/users.ts", "/srv/ci/work/shop/src/api/**", "/srv/ci/work/shop/src/api/users.ts"]]);
  const status = (await bob.run({ op: { operation: "status" }, host: "ci" })).result;
  assert.deepEqual(status.instances.map((i) => [i.id, i.project_root, i.files_claimed]),
    [[a, "/srv/ci/work/shop", ["/srv/ci/work/shop/src/api/**"]], [b, "/srv/ci/work/shop", []]]);
  const stored = JSON.parse(await storedState(server, namespace));
  assert.deepEqual(stored.instances[0].files_claimed, ["/@repo/shop/src/api/**"], "stored relative to the repository");
  await Promise.all([alice.close(), bob.close()]);
  // A root with glob characters is escaped in patterns, not in paths.
  const m = pathMapping("/w/[x]", "r");
  assert.deepEqual(m.toShared({ files: ["/w/\\[x\\]/a.ts", "/w/[x]/b.ts"], project_root: "/w/[x]" }), { files: ["/@repo/r/a.ts", "/w/[x]/b.ts"], project_root: "/@repo/r" });
  assert.deepEqual(m.toLocal({ claimed: ["/@repo/r/a.ts"], example: "/@repo/r/a.ts", message: "held: /@repo/r/a.ts and /@repo/r/**" }),
    { claimed: ["/w/\\[x\\]/a.ts"], example: "/w/[x]/a.ts", message: "held: /w/\\[x\\]/a.ts and /w/\\[x\\]/**" });
});

test("a stored instance the core cannot read is kept aside with its claims, the others go on, and it is reported", async () => {
  const namespace = ns();
  const store = createPgStore(server.store({ namespace }), { env });
  const a = (await store.run({ op: startOp(), now: "2026-11-23T10:00:00Z", random: "aaaaaa" })).result.instance_id;
  const b = (await store.run({ op: startOp(), now: "2026-11-23T10:00:00Z", random: "bbbbbb" })).result.instance_id;
  await store.run({ op: { operation: "claim", instance_id: a, files: ["/w/a.ts"] }, now: "2026-11-23T10:00:01Z" });
  await store.run({ op: { operation: "claim", instance_id: b, files: ["/w/b.ts"] }, now: "2026-11-23T10:00:01Z" });
  const garbage = '{"id": "web-aaaaaa", "last_heartbeat": "yesterday"}';
  await server.query("UPDATE nso_conductor_instances SET doc = $3 WHERE namespace = $1 AND id = $2", [namespace, a, garbage]);
  const logged = [];
  const answer = await store.run({ op: { operation: "status" }, now: "2026-11-23T10:00:03Z", errorLog: (notice) => logged.push(notice) });
  assert.deepEqual(answer.result.instances.map((i) => [i.id, i.files_claimed]), [[b, ["/w/b.ts"]]], "the readable instance and its claim are there");
  assert.equal(answer.recovered.code, "state_recovered");
  assert.match(answer.recovered.problem, /last_heartbeat: "yesterday" is not an ISO 8601 time/);
  assert.match(answer.recovered.message, /web-aaaaaa \(removed with their claims\)/);
  assert.match(answer.recovered.corrupt, /^"public"\."nso_conductor_corrupt" id \d+$/);
  assert.deepEqual(logged, [answer.recovered]);
  const kept = await server.query("SELECT state FROM nso_conductor_corrupt WHERE namespace = $1", [namespace]);
  assert.deepEqual(kept.map((r) => JSON.parse(r.state)), [{ instance: a, doc: garbage, claims: ["/w/a.ts"] }], "the unreadable row is kept as it was, with its claims");
  const next = await store.run({ op: { operation: "claim", instance_id: b, files: ["/w/a.ts"] }, now: "2026-11-23T10:00:04Z" });
  assert.equal(next.recovered, null, "the rows are whole again");
  assert.equal(next.result.status, "ok", "the claim of the removed instance is free");
  await store.close();
});

test("a client that takes the namespace's lock and then goes silent (a vanished machine) loses its session: the lock is free again", async () => {
  const namespace = ns();
  const store = createPgStore(server.store({ namespace, timeoutMs: 2000 }), { env });
  const id = (await store.run({ op: startOp() })).result.instance_id;
  // A client that did the first round trip of an operation (the lock, the read) and never the second.
  const silent = await server.connect();
  const ended = new Promise((resolve) => silent.on("error", resolve));
  await silent.query("SELECT * FROM nso_conductor_read($1, 'namespace', '{}', '{}', false, '{}', '{}', '{}', '{}', '{}', 'h', NULL, 600, '10s')", [namespace]);
  await assert.rejects(store.run({ op: { operation: "claim", instance_id: id, files: ["/w/a.ts"] } }), (error) => error.kind === "timeout",
    "while the lock is held, an operation waits its timeoutMs and fails");
  const t0 = Date.now();
  const error = await ended;
  assert.match(String(error.message), /idle-session timeout|terminat/i, "the server ended the silent session");
  assert.ok(Date.now() - t0 < 12_000);
  assert.equal((await store.run({ op: { operation: "claim", instance_id: id, files: ["/w/a.ts"] } })).result.status, "ok", "the lock is free");
  await store.close();
});

/** A plugin window (one OpenCode process) on a project whose conductor uses the test server. */
async function windowOn(dir, sid) {
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.event(sessionCreated(sid));
  await hooks["chat.params"](...chatParams(sid, "build"));
  await hooks["chat.message"]({ sessionID: sid }, { message: { agent: "build" }, parts: [{ type: "text", text: "work on the api" }] });
  return hooks;
}

const write = (file) => ({ filePath: file, content: "x" });

test("the plugin on PostgreSQL: conflicts across checkouts; database down: held claims go on, new ones refused (enforce) or warned (advisory); back: reconnects", async () => {
  const namespace = ns();
  const store = server.store({ namespace, connectTimeoutMs: 1000 });
  const project = (name, conductor) => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `nso-pg-${name}-`)));
    const dir = path.join(base, "shop");
    fs.mkdirSync(dir);
    for (const [rel, text] of Object.entries({ ".opencode/nso.json": JSON.stringify({ conductor }), "src/a.ts": "a", "src/b.ts": "b" })) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    return dir;
  };
  const a = await windowOn(project("a", { store }), "ses_a");
  const b = await windowOn(project("b", { store }), "ses_b");
  const c = await windowOn(project("c", { store, mode: "advisory" }), "ses_c");
  assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null);
  assert.match(await before(b, "ses_b", "write", write("src/a.ts")), /shop\/src\/a\.ts is claimed by instance opc-\w{6} \(project shop, task "work on the api", agent @build/);
  assert.equal(await before(c, "ses_c", "write", write("src/c.ts")), null, "c registers while the database is up");

  server.stop();
  try {
    assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null, "a held claim works from the cache");
    const refused = await before(a, "ses_a", "write", write("src/b.ts"));
    assert.match(refused, /NSO cannot use the conductor's claim store \(the PostgreSQL claim store nso@127\.0\.0\.1:\d+\/postgres \(namespace pg\d+\) cannot be used/);
    assert.match(refused, /fail closed\)\. Fix: check that the database server runs/);
    assert.equal(await before(c, "ses_c", "write", write("src/d.ts")), null, "advisory: the call passes");
    const out = { output: "written" };
    await c["tool.execute.after"]({ tool: "write", sessionID: "ses_c", callID: "call_1", args: write("src/d.ts") }, out);
    assert.match(out.output, /NSO cannot use the conductor's claim store .*the call went ahead without a claim \(advisory mode\)/);
  } finally {
    server.start();
  }
  assert.equal(await before(a, "ses_a", "write", write("src/b.ts")), null, "the plugin reconnected by itself");
  assert.match(await before(b, "ses_b", "write", write("src/b.ts")), /is claimed by instance/);
});

test("held claims are trusted for one TTL only while the database cannot confirm them", async () => {
  const store = server.store({ namespace: ns(), connectTimeoutMs: 1000 });
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ conductor: { store, ttlSeconds: 1 } }), "src/a.ts": "a" });
  const a = await windowOn(dir, "ses_a");
  assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null);
  server.stop();
  try {
    assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null, "within the TTL");
    await new Promise((r) => setTimeout(r, 1100));
    assert.match(await before(a, "ses_a", "write", write("src/a.ts")) ?? "", /cannot use the conductor's claim store/, "past it, other machines may have taken it");
  } finally {
    server.start();
  }
  assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null);
});

test("across machines a live window keeps its claims by heartbeats alone; a window that stops sending them loses them after the TTL", async () => {
  const settings = server.store({ namespace: ns() });
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ conductor: { store: settings, ttlSeconds: 2 } }), "src/a.ts": "a" });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_1", "build");
  await nso.beforeTool({ tool: "write", sessionID: "ses_1", callID: "c1" }, { args: write("src/a.ts") });
  // Another machine (its own host name: it judges this window by heartbeat age only).
  const other = createPgStore(settings, { root: dir, env });
  const op = (o) => other.run({ op: o, host: "elsewhere", ttlSeconds: 2 });
  // Each check registers afresh: the window's own operations remove an instance of another
  // machine that sent no heartbeat for the TTL, as they should.
  const claimFromElsewhere = async () => {
    const id = (await op({ ...startOp({ working_directory: dir, project_root: dir }), host: "elsewhere" })).result.instance_id;
    return (await op({ operation: "claim", instance_id: id, files: [`${dir}/src/a.ts`] })).result;
  };
  await new Promise((r) => setTimeout(r, 2600)); // longer than the TTL, without a tool call
  assert.equal((await claimFromElsewhere()).status, "conflict", "the idle window's background heartbeats kept its claim");
  nso.claims.dispose(); // as if its machine were gone: no more heartbeats
  await new Promise((r) => setTimeout(r, 3600)); // the TTL, plus a second: times are stored in whole seconds
  const taken = await claimFromElsewhere();
  assert.equal(taken.status, "ok", JSON.stringify(taken));
  const orphans = (await other.readLog("history")).map((l) => JSON.parse(l)).filter((h) => h.outcome === "orphaned");
  assert.ok(orphans.some((h) => h.task === "(OpenCode session)" && /no heartbeat for/.test(h.reason)), JSON.stringify(orphans));
  await other.close();
});

test("the CLI uses the project's configured store: start, claim, conflict, sprint, status; a config error is clear", () => {
  const namespace = ns();
  const store = server.store({ namespace, repository: "shop" });
  const checkout = (name) => {
    const dir = path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `nso-pg-cli-${name}-`))), "shop");
    fs.mkdirSync(path.join(dir, ".opencode"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({ conductor: { store } }));
    return dir;
  };
  const filesHome = path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-pg-cli-home-"))), "home");
  const nso = (cwd, args, input) => {
    const r = spawnSync(process.execPath, [CLI, "conductor", ...args], { cwd, env: { ...env, CONDUCTOR_HOME: filesHome }, input, encoding: "utf8" });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const one = checkout("one");
  const two = checkout("two");
  const a = JSON.parse(nso(one, ["start", "--task", "api", "--priority", "P1", "--json"]).out).instance_id;
  const b = JSON.parse(nso(two, ["start", "--task", "docs", "--priority", "P1", "--json"]).out).instance_id;
  assert.equal(nso(one, ["claim", "src/api/", "--instance", a]).code, 0);
  const conflict = nso(two, ["claim", "src/api/users.ts", "--instance", b, "--json"]);
  assert.equal(conflict.code, 1);
  assert.deepEqual(JSON.parse(conflict.out).conflicts.map((c) => [c.held_by, c.pattern]), [[a, `${two}/src/api/**`]]);
  fs.writeFileSync(path.join(two, "sprint.json"), JSON.stringify({ focus: "P1" }));
  assert.equal(nso(two, ["sprint", "--set", "sprint.json"]).code, 0);
  assert.equal(nso(one, ["start", "--task", "later", "--priority", "P3"]).code, 1, "the sprint is shared through the database");
  assert.equal(nso(two, ["sprint", "--clear"]).code, 0);
  const table = nso(one, ["status"]);
  assert.match(table.out, new RegExp(`${a} +shop +api .* src/api/\\*\\*`));
  fs.writeFileSync(path.join(one, ".opencode/nso.json"), JSON.stringify({ conductor: { store: { ...store, password: "x" } } }));
  const bad = nso(one, ["status"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /conductor\.store\.password: a password does not belong in the config file/);
  assert.equal(fs.existsSync(filesHome), false, "the files store was never touched");
});
