// The PostgreSQL store under concurrency and faults, with real processes, a real server and
// real signals: 16 processes on 2 simulated hosts racing on overlapping globs; the server
// stopped and restarted in the middle of a run; clients SIGKILLed inside their transactions.
// Each worker records its operations in nso_test_events inside the same transaction as the
// state change, so the events are exactly what the database committed, in revision order.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { loadCore } from "../../plugin/core-loader.js";
import { openStore } from "../../plugin/conductor/stores.js";
import { checkState } from "./conductor/spawn.mjs";
import { spawnPgWorker, stopTestServer, storedState, testServer } from "./conductor/stores.mjs";

const { conductorIntersects } = loadCore();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ROOT = "/race/project";
let server;
let env;

before(async () => {
  server = await testServer();
  env = { ...process.env, ...server.env };
  // The store's tables exist before the events table that the workers write next to them.
  const store = openStore({ store: server.store({ namespace: "setup" }) }, { env });
  await store.run({ op: { operation: "status" } });
  await server.query(`CREATE TABLE nso_test_events (namespace text NOT NULL, revision bigint NOT NULL, pid integer NOT NULL, id text NOT NULL,
    ev text NOT NULL, patterns text[] NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`);
});
after(stopTestServer);

const events = (namespace) => server.query("SELECT revision, pid, id, ev, patterns FROM nso_test_events WHERE namespace = $1 ORDER BY revision", [namespace])
  .then((rows) => rows.map((r) => ({ ...r, revision: Number(r.revision) })));
const stateOf = (namespace) => storedState(server, namespace);
const historyOf = async (namespace) => (await server.query("SELECT line FROM nso_conductor_history WHERE namespace = $1 ORDER BY id", [namespace])).map((r) => JSON.parse(r.line));

/** History lines with the revision that wrote them: instances removed (orphaned or done). */
const removals = async (namespace) => (await server.query("SELECT line, revision FROM nso_conductor_history WHERE namespace = $1 ORDER BY id", [namespace]))
  .map((r) => ({ revision: Number(r.revision), ev: "removed", id: JSON.parse(r.line).id, patterns: [] }));

/**
 * Replays committed events in revision order: never two instances holding intersecting
 * claims, one transaction per revision. `removed` (history lines) are applied first within
 * their revision: an operation removes the dead before it decides. Returns what each
 * instance holds at the end.
 */
function replay(list, removed = []) {
  assert.deepEqual(list.map((e) => e.revision), [...new Set(list.map((e) => e.revision))], "one committed change per revision: no two holders of the row");
  const held = new Map();
  let acquired = 0;
  const all = [...removed, ...list].sort((x, y) => x.revision - y.revision || (x.ev === "removed" ? -1 : 0) - (y.ev === "removed" ? -1 : 0));
  for (const e of all) {
    if (e.ev === "removed") held.delete(e.id);
    else if (e.ev === "start") held.set(e.id, []);
    else if (e.ev === "acquire") {
      for (const [other, patterns] of held) {
        if (other === e.id) continue;
        for (const p of e.patterns) for (const q of patterns) assert.ok(!conductorIntersects(p, q), `revision ${e.revision}: ${e.id} acquired ${p} while ${other} held ${q}`);
      }
      held.set(e.id, [...(held.get(e.id) ?? []), ...e.patterns]);
      acquired++;
    } else if (e.ev === "release") held.set(e.id, (held.get(e.id) ?? []).filter((p) => !e.patterns.includes(p)));
    else if (e.ev === "done") held.delete(e.id);
  }
  return { held, acquired };
}

test("16 processes on 2 hosts x 12 rounds on overlapping globs: the database serialises them, never two holders", async (t) => {
  const settings = server.store({ namespace: "race" });
  const t0 = Date.now();
  const workers = Array.from({ length: 16 }, (_, i) => spawnPgWorker("loop", settings, i % 2 ? "host-b" : "host-a", ROOT, 12, env));
  const exits = await Promise.all(workers.map((w) => w.exited));
  for (const [i, e] of exits.entries()) assert.deepEqual(e, { code: 0, signal: null }, `worker ${i}: ${workers[i].output()}`);
  const list = await events("race");
  const { acquired } = replay(list);
  assert.equal(list.filter((e) => e.ev === "start").length, 16);
  assert.equal(list.filter((e) => e.ev === "done").length, 16);
  assert.ok(acquired >= 16, `only ${acquired} claims succeeded`);
  const state = checkState(await stateOf("race"), conductorIntersects, assert);
  assert.deepEqual(state.instances, []);
  assert.deepEqual(new Set(state.instances.map((i) => i.host)), new Set());
  const hosts = new Set(list.filter((e) => e.ev === "start").map((e) => e.id));
  assert.equal(hosts.size, 16);
  assert.equal((await historyOf("race")).filter((h) => h.outcome === "success").length, 16);
  const conflicts = await server.query("SELECT count(*)::int AS n FROM nso_conductor_conflicts WHERE namespace = 'race'");
  t.diagnostic(`${list.length} committed changes, ${acquired} claims granted, ${conflicts[0].n} conflicts, ${Date.now() - t0} ms`);
});

test("16 processes on the store's own path (write, COMMIT and unlock in one call): the claim rows, audited in commit order, never have two holders", async (t) => {
  await server.query(`CREATE TABLE nso_test_audit (seq bigserial PRIMARY KEY, namespace text, op text, instance text, pattern text)`);
  await server.query(`CREATE FUNCTION nso_test_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF TG_OP = 'INSERT' THEN INSERT INTO nso_test_audit (namespace, op, instance, pattern) VALUES (NEW.namespace, 'add', NEW.instance, NEW.pattern);
      ELSE INSERT INTO nso_test_audit (namespace, op, instance, pattern) VALUES (OLD.namespace, 'drop', OLD.instance, OLD.pattern); END IF;
      RETURN NULL; END $$`);
  await server.query("CREATE TRIGGER nso_test_audit AFTER INSERT OR DELETE ON nso_conductor_claims FOR EACH ROW EXECUTE FUNCTION nso_test_audit()");
  const settings = server.store({ namespace: "plain" });
  const workers = Array.from({ length: 16 }, (_, i) => spawnPgWorker("plain", settings, i % 2 ? "host-b" : "host-a", ROOT, 12, env));
  const exits = await Promise.all(workers.map((w) => w.exited));
  for (const [i, e] of exits.entries()) assert.deepEqual(e, { code: 0, signal: null }, `worker ${i}: ${workers[i].output()}`);
  // The sequence is drawn while the namespace is locked: its order is the order of the commits.
  const audit = await server.query("SELECT op, instance, pattern FROM nso_test_audit WHERE namespace = 'plain' ORDER BY seq");
  const held = new Map();
  let granted = 0;
  for (const [k, a] of audit.entries()) {
    if (a.op === "drop") {
      held.set(a.instance, (held.get(a.instance) ?? []).filter((p) => p !== a.pattern));
      continue;
    }
    for (const [other, patterns] of held) {
      if (other === a.instance) continue;
      for (const q of patterns) assert.ok(!conductorIntersects(a.pattern, q), `row ${k}: ${a.instance} got ${a.pattern} while ${other} held ${q}`);
    }
    held.set(a.instance, [...(held.get(a.instance) ?? []), a.pattern]);
    granted++;
  }
  assert.ok(granted >= 16, `only ${granted} claims granted`);
  assert.deepEqual([...held.values()].flat(), [], "every claim released at the end");
  const state = checkState(await stateOf("plain"), conductorIntersects, assert);
  assert.deepEqual(state.instances, []);
  assert.equal((await historyOf("plain")).filter((h) => h.outcome === "success").length, 16);
  const count = await server.query("SELECT claim_count::int AS n FROM nso_conductor_state WHERE namespace = 'plain'");
  assert.equal(count[0].n, 0, "the claim counter agrees with the rows");
  t.diagnostic(`${audit.length} claim rows added or dropped, ${granted} claims granted`);
});

test("the server stopped and restarted in the middle of a run: clients reconnect by themselves, nothing lost or doubled", async (t) => {
  const settings = server.store({ namespace: "restart", connectTimeoutMs: 1000 });
  const workers = Array.from({ length: 8 }, (_, i) => spawnPgWorker("loop", settings, i % 2 ? "host-b" : "host-a", ROOT, 40, env));
  // Wait until the run is well under way, then stop the server (fast: connections cut,
  // open transactions rolled back) and start it again a second later.
  for (let i = 0; i < 200 && (await events("restart")).length < 60; i++) await sleep(25);
  const before = (await events("restart")).length;
  server.stop();
  await sleep(1000);
  server.start();
  const exits = await Promise.all(workers.map((w) => w.exited));
  for (const [i, e] of exits.entries()) assert.deepEqual(e, { code: 0, signal: null }, `worker ${i}: ${workers[i].output()}`);
  const errors = workers.map((w) => Number(/done (\d+)/.exec(w.output())?.[1]));
  assert.ok(errors.some((n) => n > 0), "the workers saw the outage");
  const list = await events("restart");
  assert.ok(before > 0 && list.length > before, `work went on after the restart (${before} then ${list.length})`);
  replay(list);
  const state = checkState(await stateOf("restart"), conductorIntersects, assert);
  assert.deepEqual(state.instances, [], "every worker finished: no instance left behind by a retried start or done");
  assert.equal(list.filter((e) => e.ev === "start").length, 8, "one start per worker, none doubled by a retry");
  assert.equal((await historyOf("restart")).filter((h) => h.outcome === "success").length, 8);
  t.diagnostic(`${before} changes before the stop, ${list.length} in all; store errors seen by the workers: ${errors.join(", ")}`);
});

test("clients SIGKILLed inside their transactions: nothing half-done, no lock left, their claims freed", async (t) => {
  const settings = server.store({ namespace: "kill" });
  const KILLS = 80;
  const IN_TX = 30;
  let kills = 0;
  const inTx = []; // [pid, revision] of transactions killed after their writes, before COMMIT
  async function slot(n) {
    while (kills < KILLS) {
      const w = spawnPgWorker("storm", settings, n % 2 ? "host-b" : "host-a", ROOT, "", env);
      assert.ok(await w.line("ready"), w.output());
      if (inTx.length < IN_TX) {
        const line = await w.line("in-tx ", { fresh: true });
        w.child.kill("SIGKILL");
        if (line) inTx.push([w.child.pid, Number(line.split(" ")[1])]);
      } else {
        await sleep(Math.random() * 40);
        w.child.kill("SIGKILL");
      }
      assert.equal((await w.exited).signal, "SIGKILL", w.output());
      kills++;
    }
  }
  await Promise.all(Array.from({ length: 6 }, (_, n) => slot(n)));
  assert.ok(inTx.length >= IN_TX, `${inTx.length} kills inside a transaction`);

  // Nothing of a killed transaction is visible: its event row (written in it) is not there.
  for (const [pid, revision] of inTx) {
    const rows = await server.query("SELECT count(*)::int AS n FROM nso_test_events WHERE namespace = 'kill' AND pid = $1 AND revision = $2", [pid, revision]);
    assert.equal(rows[0].n, 0, `pid ${pid} was killed before committing revision ${revision}, yet it is there`);
  }
  // The state agrees with the committed events: each instance holds exactly what they say.
  const list = await events("kill");
  const { held } = replay(list, await removals("kill"));
  const state = checkState(await stateOf("kill"), conductorIntersects, assert);
  const history = await historyOf("kill");
  for (const i of state.instances) assert.deepEqual([...i.files_claimed].sort(), [...(held.get(i.id) ?? ["(no start event)"])].sort(), i.id);
  for (const e of list.filter((x) => x.ev === "start")) {
    assert.ok(state.instances.some((i) => i.id === e.id) || history.some((h) => h.id === e.id), `${e.id} vanished without a history line`);
  }
  for (const i of state.instances) assert.ok(list.some((e) => e.ev === "start" && e.id === i.id), `${i.id} is registered but its start was never committed`);

  // No session of a killed client is left holding anything, and the next operation is prompt.
  for (let i = 0; i < 40; i++) {
    const open = await server.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'nso-conductor' AND state <> 'idle'");
    if (open[0].n === 0) break;
    await sleep(50);
  }
  const left = await server.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'nso-conductor' AND state LIKE 'idle in transaction%'");
  assert.equal(left[0].n, 0, "a dead client's transaction is still open");
  const store = openStore({ store: settings }, { env });
  const t0 = Date.now();
  const cleanup = await store.run({ op: { operation: "cleanup" }, host: "host-a" });
  const took = Date.now() - t0;
  assert.ok(took < 2000, `the first operation after the kills took ${took} ms`);
  const dead = state.instances.filter((i) => i.host === "host-a").map((i) => i.id).sort();
  assert.deepEqual([...cleanup.result.removed].sort(), dead, "host-a's dead workers are found by pid at once");
  t.diagnostic(`${kills} kills, ${inTx.length} inside a transaction after its writes; ${list.length} committed changes; first operation after: ${took} ms`);
});
