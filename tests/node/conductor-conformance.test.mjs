// One suite, both claim stores: every scenario runs against the files store and against
// PostgreSQL (a real server started for this file), asserts the protocol's behaviour (seed
// 003 and docs/conductor-contract.md), and records what each operation answered; the last
// test requires the two stores' answers to be identical, operation by operation.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import { spawn } from "node:child_process";
import { isoSeconds } from "../../plugin/conductor/store.js";
import { processStartToken } from "../../plugin/conductor/liveness.js";
import { freshStore, STORE_KINDS, stopTestServer } from "./conductor/stores.mjs";

after(stopTestServer);

const T = Date.parse("2026-11-23T10:00:00Z");
const at = (seconds) => isoSeconds(new Date(T + seconds * 1000));
const HOST = "host-a";
const transcripts = Object.fromEntries(STORE_KINDS.map((k) => [k, []]));

/** A store of `kind` whose every answer is recorded; `op(fields, {now, random, host})`. */
async function session(kind, name, { root } = {}) {
  const { store } = await freshStore(kind, { root, settings: root ? { repository: "shop" } : {} });
  const log = [];
  transcripts[kind].push([name, log]);
  const op = async (operation, { now = 0, random = "zzzzzz", host = HOST, ttlSeconds = 600 } = {}) => {
    const answer = await store.run({ op: operation, now: at(now), random, host, ttlSeconds });
    log.push({ op: operation.operation, result: answer.result, error: answer.error });
    return answer;
  };
  return { store, op, log };
}

const start = (random, fields = {}, options = {}) => [{ operation: "start", task: `task ${random}`, priority: "P1", working_directory: "/w",
  project_root: "/w", source: "web", pid: null, host: HOST, agent: null, session: null, ...fields }, { random, ...options }];

for (const kind of STORE_KINDS) {
  test(`${kind}: claims on paths and globs intersect; a claim is all or nothing; own claims never conflict`, async () => {
    const { store, op } = await session(kind, "intersection");
    assert.equal((await op(...start("aaaaaa"))).result.instance_id, "web-aaaaaa");
    assert.equal((await op(...start("bbbbbb"))).result.instance_id, "web-bbbbbb");
    const a = "web-aaaaaa";
    const b = "web-bbbbbb";
    assert.deepEqual((await op({ operation: "claim", instance_id: a, files: ["/w/src/api/**"] }, { now: 60 })).result.claimed, ["/w/src/api/**"]);
    const glob = (await op({ operation: "claim", instance_id: b, files: ["/w/src/**/*.ts"] }, { now: 120 })).result;
    assert.equal(glob.status, "conflict");
    assert.deepEqual(glob.conflicts.map((c) => [c.file, c.held_by, c.pattern, c.holder_task]), [["/w/src/**/*.ts", a, "/w/src/api/**", "task aaaaaa"]]);
    assert.match(glob.conflicts[0].example, /^\/w\/src\/api\/.*\.ts$/);
    const mixed = (await op({ operation: "claim", instance_id: b, files: ["/w/docs/a.md", "/w/src/api/users.ts"] }, { now: 130 })).result;
    assert.equal(mixed.status, "conflict");
    assert.deepEqual(mixed.claimed, []);
    assert.deepEqual((await op({ operation: "claim", instance_id: b, files: ["/w/src/*.ts", "/w/docs/a.md"] }, { now: 140 })).result.claimed,
      ["/w/src/*.ts", "/w/docs/a.md"], "src/*.ts does not reach into src/api/");
    assert.equal((await op({ operation: "claim", instance_id: a, files: ["/w/src/api/users.ts"] }, { now: 150 })).result.status, "ok", "covered by its own folder claim");
    const status = (await op({ operation: "status" }, { now: 180 })).result;
    assert.deepEqual(status.instances.map((i) => [i.id, i.files_claimed]), [[a, ["/w/src/api/**"]], [b, ["/w/src/*.ts", "/w/docs/a.md"]]]);
    assert.deepEqual(status.summary, { active_count: 2, instance_count: 2, total_files_claimed: 3, oldest_instance_age_minutes: 3 });
    assert.deepEqual(await store.readLog("conflicts"), [
      "2026-11-23T10:02:00Z | CONFLICT | web-bbbbbb tried to claim /w/src/**/*.ts already held by web-aaaaaa (as /w/src/api/**)",
      "2026-11-23T10:02:10Z | CONFLICT | web-bbbbbb tried to claim /w/src/api/users.ts already held by web-aaaaaa (as /w/src/api/**)",
    ]);
  });

  test(`${kind}: release and done free claims; done writes the history line; errors name the problem`, async () => {
    const { store, op } = await session(kind, "release-done");
    await op(...start("aaaaaa"));
    await op(...start("bbbbbb"));
    await op({ operation: "claim", instance_id: "web-aaaaaa", files: ["/w/lib/**", "/w/x.ts"] }, { now: 10 });
    const released = (await op({ operation: "release", instance_id: "web-aaaaaa", files: ["/w/lib/**", "/w/y.ts"] }, { now: 20 })).result;
    assert.deepEqual([released.released, released.not_held], [["/w/lib/**"], ["/w/y.ts"]]);
    assert.equal((await op({ operation: "claim", instance_id: "web-bbbbbb", files: ["/w/lib/a.js"] }, { now: 30 })).result.status, "ok");
    const done = (await op({ operation: "done", instance_id: "web-aaaaaa", outcome: "success", files_modified: ["/w/x.ts"] }, { now: 120 })).result;
    assert.deepEqual(done.released, ["/w/x.ts"]);
    assert.deepEqual((await store.readLog("history")).map((l) => JSON.parse(l)), [{
      id: "web-aaaaaa", project: "w", task: "task aaaaaa", priority: "P1", started_at: at(0), completed_at: at(120), files_modified: ["/w/x.ts"], outcome: "success",
    }]);
    assert.equal((await op({ operation: "heartbeat", instance_id: "web-aaaaaa" }, { now: 130 })).error.code, "unknown_instance");
    assert.equal((await op({ operation: "claim", instance_id: "web-bbbbbb", files: ["src/relative.ts"] }, { now: 130 })).error.code, "bad_request");
    assert.equal((await op({ operation: "release", instance_id: "web-bbbbbb", all: true }, { now: 140 })).result.released.length, 1);
  });

  test(`${kind}: liveness: another host's instance lives by heartbeat for ttlSeconds; a dead process of this host is gone at once`, async () => {
    const { store, op } = await session(kind, "liveness");
    await op(...start("remote", { host: "host-b" }, { host: "host-b" }));
    await op({ operation: "claim", instance_id: "web-remote", files: ["/w/src/**"] }, { host: "host-b" });
    await op(...start("locala"));
    const ttl = { ttlSeconds: 600 };
    assert.equal((await op({ operation: "claim", instance_id: "web-locala", files: ["/w/src/a.ts"] }, { now: 599, ...ttl })).result.status, "conflict");
    assert.equal((await op({ operation: "heartbeat", instance_id: "web-remote" }, { now: 500, host: "host-b", ...ttl })).result.last_heartbeat, at(500));
    assert.equal((await op({ operation: "claim", instance_id: "web-locala", files: ["/w/src/a.ts"] }, { now: 1099, ...ttl })).result.status, "conflict");
    assert.equal((await op({ operation: "claim", instance_id: "web-locala", files: ["/w/src/a.ts"] }, { now: 1101, ...ttl })).result.status, "ok");
    const [orphan] = (await store.readLog("history")).map((l) => JSON.parse(l));
    assert.deepEqual([orphan.id, orphan.outcome, orphan.completed_at], ["web-remote", "orphaned", at(1101)]);
    assert.match(orphan.reason, /no heartbeat for 10 minutes/);

    // A process of this host that has ended: its instance is removed at the next operation.
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    await new Promise((r) => child.once("spawn", r));
    const token = processStartToken(child.pid);
    const host = os.hostname();
    await op(...start("deadpd", { host, pid: child.pid, process_started: token }, { now: 1110, host }));
    await op({ operation: "claim", instance_id: "web-deadpd", files: ["/w/lib/**"] }, { now: 1110, host });
    await op(...start("mine00", { host }, { now: 1111, host }));
    assert.equal((await op({ operation: "claim", instance_id: "web-mine00", files: ["/w/lib/x.js"] }, { now: 1112, host })).result.status, "conflict");
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    assert.equal((await op({ operation: "claim", instance_id: "web-mine00", files: ["/w/lib/x.js"] }, { now: 1113, host })).result.status, "ok");
    const dead = (await store.readLog("history")).map((l) => JSON.parse(l)).find((h) => h.id === "web-deadpd");
    assert.equal(dead.reason, `its process ${child.pid} is gone on ${host}`);
  });

  test(`${kind}: force takes a claim over, logs FORCE, and the former holder is told once`, async () => {
    const { store, op } = await session(kind, "force");
    await op(...start("aaaaaa"));
    await op(...start("bbbbbb"));
    await op({ operation: "claim", instance_id: "web-aaaaaa", files: ["/w/src/api/**"] }, { now: 10 });
    const forced = (await op({ operation: "claim", instance_id: "web-bbbbbb", files: ["/w/src/api/users.ts"], force: "hotfix for the outage", by: "alice" }, { now: 20 })).result;
    assert.equal(forced.status, "ok");
    assert.deepEqual(forced.forced, [{ pattern: "/w/src/api/**", held_by: "web-aaaaaa" }]);
    assert.deepEqual(await store.readLog("conflicts"), [
      "2026-11-23T10:00:20Z | FORCE | alice (web-bbbbbb) took /w/src/api/** from web-aaaaaa to claim /w/src/api/users.ts: hotfix for the outage",
    ]);
    const notices = (await op({ operation: "notices", instance_id: "web-aaaaaa" }, { now: 30 })).result.notices;
    assert.deepEqual(notices.map((n) => [n.pattern, n.by, n.claimant, n.justification]), [["/w/src/api/**", "alice", "web-bbbbbb", "hotfix for the outage"]]);
    assert.deepEqual((await op({ operation: "notices", instance_id: "web-aaaaaa" }, { now: 40 })).result.notices, []);
    assert.equal((await op({ operation: "claim", instance_id: "web-bbbbbb", files: ["/w/src/api/**"], force: true }, { now: 50 })).error.code, "bad_request");
  });

  test(`${kind}: the priority gate reads the store's sprint; override and automatic starts record drift`, async () => {
    const { store, op } = await session(kind, "gate");
    await store.writeSprint(JSON.stringify({ sprint_name: "s1", focus: "P1", priorities: [], explicitly_deferred: ["billing"] }));
    const blocked = (await op(...start("aaaaaa", { priority: "P3" }))).result;
    assert.deepEqual([blocked.status, blocked.reason], ["blocked", "priority_gate"]);
    assert.equal((await op(...start("bbbbbb", { task: "Billing export", priority: "P1" }))).result.status, "ok", "P1 always passes");
    assert.equal((await op(...start("cccccc", { priority: "P3", override: "customer escalation" }, { now: 10 }))).result.status, "ok");
    const auto = (await op(...start("dddddd", { priority: "P2", automatic: true }, { now: 20 }))).result;
    assert.equal(auto.status, "ok");
    assert.equal(typeof auto.drift_warning, "string");
    const lines = await store.readLog("conflicts");
    assert.deepEqual(lines.map((l) => l.split(" | ").slice(0, 2)), [[at(10), "OVERRIDE"], [at(20), "DRIFT"]]);
    const status = (await op({ operation: "status" }, { now: 30 })).result;
    assert.deepEqual(status.drift_warnings.map((w) => w.instance_id), ["web-cccccc", "web-dddddd"]);
    await store.writeSprint(null);
    assert.equal((await op(...start("eeeeee", { priority: "P4" }, { now: 40 }))).result.status, "ok", "no sprint: the gate passes");
  });

  test(`${kind}: cleanup removes instances older than max_age_minutes; attach shares an instance`, async () => {
    const { store, op } = await session(kind, "cleanup");
    await op(...start("oldone", { host: "host-b" }, { host: "host-b" }));
    const day = { ttlSeconds: 86_400 }; // a TTL that removes nobody by itself: cleanup's own age decides
    await op(...start("newone", {}, { now: 3000, ...day }));
    const attach = (await op({ operation: "attach", instance_id: "web-newone", session: "ses_child" }, { now: 3000, ...day })).result;
    assert.deepEqual(attach.sessions, ["ses_child"]);
    const cleanup = (await op({ operation: "cleanup", max_age_minutes: 30 }, { now: 3001, ...day })).result;
    assert.deepEqual(cleanup.removed, ["web-oldone"]);
    assert.deepEqual((await store.readLog("history")).map((l) => JSON.parse(l).id), ["web-oldone"]);
  });

  test(`${kind}: a refused pattern is named in the user's path, also when the store keeps it under the repository's name`, async () => {
    const { op } = await session(kind, "pattern-errors", { root: "/w" });
    await op(...start("aaaaaa"));
    const nul = (await op({ operation: "claim", instance_id: "web-aaaaaa", files: ["/w/src/a\0b.ts"] }, { now: 10 })).error;
    assert.equal(nul.code, "bad_request");
    assert.match(nul.message, /^claim pattern "\/w\/src\/a\\0b\.ts": contains a NUL character$/);
    const long = `/w/src/${"d/".repeat(2100)}x.ts`;
    const tooLong = (await op({ operation: "claim", instance_id: "web-aaaaaa", files: [long] }, { now: 20 })).error;
    assert.match(tooLong.message, /^claim pattern "\/w\/src\/d\/d\/.*…": longer than 4096 bytes$/);
    assert.equal((await op({ operation: "claim", instance_id: "web-aaaaaa", files: ["/w/src/ok.ts"] }, { now: 30 })).result.claimed[0], "/w/src/ok.ts");
  });
}

test("both stores answered every operation identically", () => {
  const [files, pg] = STORE_KINDS.map((k) => transcripts[k]);
  assert.equal(files.length, 7);
  assert.deepEqual(pg.map(([name]) => name), files.map(([name]) => name));
  for (const [i, [name, log]] of files.entries()) {
    assert.ok(log.length >= 4, name);
    assert.deepEqual(pg[i][1], log, `scenario ${name}`);
  }
});
