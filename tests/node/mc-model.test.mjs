// Mission Control's model (bin/mc/model.js): the snapshot of every agent from the Conductor's
// state and hand-written activity feeds (tests/fixtures/mc/README.md), its deltas, the
// inspector, and its tolerance of bad, huge and hostile input.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import {
  attachCommand, buildSnapshot, diffSnapshots, inspect, MAX_SESSIONS, parseFeedText, readFeeds, readSnapshot, WORKING_WINDOW_MS,
} from "../../bin/mc/model.js";

const FIXTURES = new URL("../fixtures/mc/", import.meta.url).pathname;
const HOME = path.join(FIXTURES, "home");
const PROJECT = path.join(FIXTURES, "project");
const NOW = 1767226200000;
/** On hostA only pid 4242 runs; hostB cannot be checked from here. */
const aliveA = (pid, host) => (host === "hostA" ? pid === 4242 : null);
const MAIN = "hostA-4242-abc123";

const snapshotAt = (now = NOW, options = {}) => readSnapshot({ home: HOME, now, alive: aliveA, ...options });
const rowOf = (snapshot, key) => snapshot.agents.find((r) => r.key === key);

/** A copy of the fixture home in a temp folder (for tests that change it). */
function copyHome() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-mc-")));
  fs.cpSync(HOME, path.join(dir, "home"), { recursive: true });
  return path.join(dir, "home");
}

const line = (record) => `${JSON.stringify({ v: 1, ...record })}\n`;
const append = (home, key, ...records) => fs.appendFileSync(path.join(home, "activity", `${key}.jsonl`), records.map(line).join(""));

test("readFeeds: one feed per instance, the rotated file read before the current one, bad lines skipped and counted", () => {
  const feeds = readFeeds(HOME);
  assert.deepEqual(feeds.map((f) => f.key), [MAIN, "hostA-5151-def456", "hostB-777-ghi789"], "notes.txt is no feed");
  const main = feeds[0];
  assert.equal(main.skipped, 5);
  assert.equal(main.instance.pid, 4242);
  assert.ok(main.records.some((r) => r.kind === "telepathy"), "an unknown kind is kept as a record (the model ignores it)");
  const rotated = feeds[1];
  assert.equal(rotated.file, path.join(HOME, "activity", "hostA-5151-def456.jsonl"));
  assert.deepEqual(rotated.records.map((r) => r.kind), ["instance", "session", "task", "call", "instance", "call", "idle"]);
  assert.equal(rotated.instance.t, 1767225900000, "the newest instance line (after the rotation)");
  assert.equal(rotated.size, fs.statSync(rotated.file).size);
});

test("readFeeds reads only the tail; the instance line comes from the head when the tail misses it", () => {
  const feeds = readFeeds(HOME, { tailBytes: 400 });
  const main = feeds.find((f) => f.key === MAIN);
  assert.ok(main.records.length < 5 && main.records.length > 0);
  assert.equal(main.records.at(-1).callID, "c4");
  assert.equal(main.skipped, 0, "the line cut by the tail's start is dropped, not counted as bad");
  assert.equal(main.instance.project, "pitchello");
  const rotated = feeds.find((f) => f.key === "hostA-5151-def456");
  assert.ok(!rotated.records.some((r) => r.kind === "session"), "a full tail from the current file: .1 is not read");
  assert.equal(rotated.instance.pid, 5151);
});

test("readFeeds opens no FIFO and follows no symlink named like a feed, and reads only the newest maxFeeds", () => {
  const home = copyHome();
  const activity = path.join(home, "activity");
  assert.equal(spawnSync("mkfifo", [path.join(activity, "hostA-1-fifo00.jsonl")]).status, 0);
  fs.symlinkSync(path.join(activity, "hostA-4242-abc123.jsonl"), path.join(activity, "hostA-2-link00.jsonl"));
  assert.deepEqual(readFeeds(home).map((f) => f.key), [MAIN, "hostA-5151-def456", "hostB-777-ghi789"]);
  const old = new Date(NOW - 3600_000);
  for (const name of fs.readdirSync(activity)) if (!name.includes("fifo") && !name.includes("link")) fs.utimesSync(path.join(activity, name), old, old);
  fs.utimesSync(path.join(activity, "hostB-777-ghi789.jsonl"), new Date(), new Date());
  assert.deepEqual(readFeeds(home, { maxFeeds: 1 }).map((f) => f.key), ["hostB-777-ghi789"]);
});

test("states: working (a call running, or a recent record), blocked, idle, dead; deleted sessions have no row", () => {
  const s = snapshotAt();
  const states = Object.fromEntries(s.agents.map((r) => [r.key, r.state]));
  assert.deepEqual(states, {
    [`${MAIN}/ses_main`]: "working", [`${MAIN}/ses_recent`]: "working", [`${MAIN}/ses_child`]: "blocked", [`${MAIN}/ses_idle`]: "idle",
    "hostA-5151-def456/ses_rot": "dead", "hostB-777-ghi789/ses_far": "idle",
  });
  const main = rowOf(s, `${MAIN}/ses_main`);
  assert.deepEqual(main.inProgress, { tool: "bash", target: "npm test", since: 1767226190000 });
  assert.equal(main.lastRefusal, null);
  assert.deepEqual([main.agent, main.task, main.title, main.parent], ["build", "Fix the login bug on the sign-in page", "Fix login", null]);
  assert.equal(main.age, NOW - 1767225601000);
  assert.equal(main.lastSeen, 1767226190000);
  const child = rowOf(s, `${MAIN}/ses_child`);
  assert.deepEqual(child.lastRefusal, {
    tool: "edit", rule: "authority.write", target: "/fixture/pitchello/src/secret.ts", t: 1767225611000,
    message: "NSO: @explore may not edit src/secret.ts: it is a read-only agent. Ask @build.",
  });
  assert.equal(child.parent, "ses_main");
  assert.equal(child.inProgress, null, "a refused call never runs");
  const rot = rowOf(s, "hostA-5151-def456/ses_rot");
  assert.deepEqual([rot.task, rot.agent, rot.inProgress], ["Reconcile the ledger", "build", null], "joined across the rotation");
  assert.deepEqual(s.instances.map((i) => [i.key, i.alive]), [[MAIN, true], ["hostA-5151-def456", false], ["hostB-777-ghi789", true]]);
  assert.deepEqual(s.agents.map((r) => r.project), ["ledger", "pitchello", "pitchello", "pitchello", "pitchello", "remote"], "sorted by project");
  assert.deepEqual(s.agents.filter((r) => r.project === "pitchello").map((r) => r.state), ["working", "working", "blocked", "idle"], "then by state");
});

test("time alone: a recent record stops counting after 30 s; another host's instance dies with its TTL, and is forgotten after a day", () => {
  const later = snapshotAt(NOW + WORKING_WINDOW_MS);
  assert.equal(rowOf(later, `${MAIN}/ses_recent`).state, "idle");
  assert.equal(rowOf(later, `${MAIN}/ses_main`).state, "working", "its call is still running");
  const afterTtl = snapshotAt(NOW + 3600_000);
  assert.equal(rowOf(afterTtl, "hostB-777-ghi789/ses_far").state, "dead");
  assert.equal(rowOf(snapshotAt(NOW, { ttlMs: 60_000 }), "hostB-777-ghi789/ses_far").state, "dead", "the TTL is a parameter");
  const nextDay = snapshotAt(NOW + 25 * 3600_000);
  assert.deepEqual(nextDay.instances.map((i) => i.key), [MAIN], "dead instances last seen over a day ago are left out");
});

test("claims and priority come from the Conductor instance holding the session, its parent's, or the pid's; shell instances are listed", () => {
  const s = snapshotAt();
  const pitchello = ["/fixture/pitchello/src/login.ts", "/fixture/pitchello/src/auth/**"];
  for (const session of ["ses_main", "ses_child", "ses_idle"]) {
    const row = rowOf(s, `${MAIN}/${session}`);
    assert.deepEqual([row.claims, row.priority, row.conductorId], [pitchello, "P1", "opc-k3m9x2"], session);
  }
  const rot = rowOf(s, "hostA-5151-def456/ses_rot");
  assert.deepEqual([rot.claims, rot.priority, rot.conductorId], [["/fixture/ledger/src/books.ts"], "P2", "opc-ledger"]);
  const far = rowOf(s, "hostB-777-ghi789/ses_far");
  assert.deepEqual([far.claims, far.priority, far.conductorId], [[], null, null]);
  const shell = s.registry.find((r) => r.id === "web-sh0001");
  assert.deepEqual([shell.feeds, shell.claims, shell.priority], [[], ["/fixture/scripts/migrate.sql"], "P3"]);
  assert.deepEqual(s.registry.find((r) => r.id === "opc-k3m9x2").feeds, [MAIN]);
  assert.deepEqual(s.problems, []);
});

test("a dead instance's claims are marked stale: it holds nothing; a live instance's are held", () => {
  const s = snapshotAt();
  const rot = rowOf(s, "hostA-5151-def456/ses_rot");
  assert.equal(rot.state, "dead");
  assert.deepEqual([rot.claims, rot.claimsStale], [["/fixture/ledger/src/books.ts"], true]);
  for (const session of ["ses_main", "ses_child", "ses_idle"]) assert.equal(rowOf(s, `${MAIN}/${session}`).claimsStale, false, session);
  assert.equal(rowOf(s, "hostB-777-ghi789/ses_far").claimsStale, false, "no claims: nothing stale");
  // The same instance once its process is gone: the claims it had turn stale.
  const gone = readSnapshot({ home: HOME, now: NOW, alive: () => false });
  assert.equal(rowOf(gone, `${MAIN}/ses_main`).claimsStale, true);
});

test("status.json missing, corrupt or not an object: no claims, one problem each, the agents still shown", () => {
  const home = copyHome();
  const cases = [["{broken", /not valid JSON/], ["[1, 2]", /not a JSON object/], [null, /missing/]];
  for (const [text, problem] of cases) {
    if (text === null) fs.rmSync(path.join(home, "status.json"));
    else fs.writeFileSync(path.join(home, "status.json"), text);
    const s = readSnapshot({ home, now: NOW, alive: aliveA });
    assert.equal(s.agents.length, 6);
    assert.ok(s.agents.every((r) => r.claims.length === 0 && r.priority === null));
    assert.deepEqual(s.registry, []);
    assert.equal(s.problems.length, 1);
    assert.match(s.problems[0], problem);
  }
});

test("conflicts.log and history.jsonl: parsed tails of at most 50 entries, bad history lines left out", () => {
  const s = snapshotAt();
  assert.deepEqual(s.conflicts.map((c) => c.kind), ["CONFLICT", "FORCE", null]);
  assert.equal(s.conflicts[0].t, Date.parse("2026-01-01T00:05:00Z"));
  assert.equal(s.conflicts[2].text, "a line in no known form");
  assert.deepEqual(s.history.map((h) => [h.id, h.outcome]), [["opc-old001", "success"], ["opc-old002", "orphaned"]]);
  const home = copyHome();
  fs.writeFileSync(path.join(home, "conflicts.log"), Array.from({ length: 120 }, (_, i) => `2026-01-01T00:00:00Z | CONFLICT | entry ${i}\n`).join(""));
  const many = readSnapshot({ home, now: NOW, alive: aliveA });
  assert.equal(many.conflicts.length, 50);
  assert.equal(many.conflicts.at(-1).text, "entry 119");
});

test("ANSI escapes and control characters in agent strings are kept as data, not stripped", () => {
  const row = rowOf(snapshotAt(), `${MAIN}/ses_idle`);
  assert.equal(row.task, "\u001b[2J\u001b[31mrepaint\u001b[0m the screen\u0007\r\u009b1;1H");
});

test("a 1 MB line: cut by the tail it is dropped and what follows is read; read whole, its strings are clipped to the contract's bounds", () => {
  const home = copyHome();
  const key = "hostA-4242-big000";
  const huge = "x".repeat(1 << 20);
  fs.writeFileSync(path.join(home, "activity", `${key}.jsonl`), [
    line({ t: NOW - 5000, kind: "instance", pid: 4242, host: "hostA", project: "big", root: "/fixture/big" }),
    line({ t: NOW - 4000, kind: "call", session: "s1", tool: "edit", callID: "b", phase: "start", verdict: "block", rule: "r", target: huge, message: huge }),
    line({ t: NOW - 3000, kind: "task", session: "s1", task: "after the big line" }),
    // a half-written last line of 1 MB (a writer killed mid-append)
    `{"v":1,"t":${NOW},"kind":"task","session":"s1","task":"${huge}`,
  ].join(""));
  const cut = readSnapshot({ home, now: NOW, alive: aliveA });
  const row = rowOf(cut, `${key}/s1`);
  assert.equal(row.task, "after the big line");
  assert.equal(row.lastRefusal, null, "the 1 MB line lay across the tail's start");
  assert.equal(cut.instances.find((i) => i.key === key).project, "big", "the instance line from the file's head");
  assert.equal(cut.instances.find((i) => i.key === key).skipped, 1, "the unterminated 1 MB line");

  const whole = readSnapshot({ home, now: NOW, alive: aliveA, tailBytes: 4 << 20 });
  const refusal = rowOf(whole, `${key}/s1`).lastRefusal;
  assert.equal(refusal.message.length, 2000);
  assert.equal(refusal.target.length, 500);
  assert.ok(refusal.message.endsWith("…"), "a cut is marked");
  assert.equal(rowOf(whole, `${key}/s1`).task, "after the big line", "an unterminated last line waits for its end");

  // A whole 1 MB line last: the records before it are read, it is counted as skipped.
  const last = "hostA-4242-last00";
  fs.writeFileSync(path.join(home, "activity", `${last}.jsonl`),
    line({ t: NOW - 5000, kind: "instance", pid: 4242, host: "hostA", project: "last", root: "/fixture/last" }) +
    line({ t: NOW - 4000, kind: "task", session: "s2", task: "before the big line" }) + `${huge}\n`);
  const lastSnapshot = readSnapshot({ home, now: NOW, alive: aliveA });
  assert.equal(rowOf(lastSnapshot, `${last}/s2`).task, "before the big line");
  assert.equal(lastSnapshot.instances.find((i) => i.key === last).skipped, 1);
});

test("garbage of every shape never throws: wrong types are ignored field by field", () => {
  const feeds = [
    null, 42, { key: 5 }, { key: "nohost", records: "nope", instance: "x" },
    { key: "h-1-abcdef", records: [null, 1, "s", { kind: "call", session: {} }, { kind: "session", session: "s", parent: 5, agent: ["x"], title: {}, t: "soon" },
      { kind: "call", session: "s", phase: "start", verdict: "allow", tool: 7, target: null, callID: { a: 1 }, t: NaN },
      { kind: "idle", session: "" }, { kind: "task", session: "s", task: 12 }] },
  ];
  const s = buildSnapshot({ state: "not an object", feeds, now: NOW, alive: () => { throw new Error("boom"); }, conflicts: [null, 5], history: [{}, "[]", 3] });
  assert.deepEqual(s.instances.map((i) => [i.key, i.pid, i.host]), [["nohost", null, null], ["h-1-abcdef", 1, "h"]]);
  const row = rowOf(s, "h-1-abcdef/s");
  assert.deepEqual([row.parent, row.agent, row.title, row.task, row.state], [null, null, null, null, "dead"]);
  assert.deepEqual(row.inProgress, { tool: null, target: null, since: null });
  assert.deepEqual(s.registry, []);
  assert.equal(s.conflicts.length, 2);
  assert.deepEqual(s.history, [{}]);
  assert.deepEqual(parseFeedText("\n\n{\"kind\":1}\n{}\n"), { records: [], skipped: 2 });
  assert.equal(diffSnapshots(null, null), null);
});

test("rows per instance are capped: the newest sessions are kept", () => {
  const records = [{ kind: "instance", pid: 1, host: "h", t: 0 }];
  for (let i = 0; i < 300; i++) records.push({ kind: "task", session: `s${i}`, task: `task ${i}`, t: NOW - 300_000 + i * 1000 });
  const s = buildSnapshot({ feeds: [{ key: "h-1-abcdef", records }], now: NOW, alive: () => true });
  assert.equal(s.agents.length, MAX_SESSIONS);
  assert.ok(s.agents.every((r) => Number(r.session.slice(1)) >= 100));
});

test("deltas: nothing, a new record (only its row), a new feed (its rows), a dead pid (its rows dead), a deleted session", () => {
  const home = copyHome();
  const before = readSnapshot({ home, now: NOW, alive: aliveA });
  assert.equal(diffSnapshots(before, readSnapshot({ home, now: NOW + 1000, alive: aliveA })), null, "the clock alone (age) changes nothing");
  const all = diffSnapshots(null, before);
  assert.equal(all.upsert.length, before.agents.length);

  append(home, MAIN, { t: NOW + 500, kind: "call", session: "ses_idle", agent: "plan", tool: "read", callID: "n1", phase: "start", verdict: "allow", rule: null, target: "README.md", message: null });
  const after = readSnapshot({ home, now: NOW + 1000, alive: aliveA });
  const d = diffSnapshots(before, after);
  assert.deepEqual(d.upsert.map((r) => [r.key, r.state]), [[`${MAIN}/ses_idle`, "working"]]);
  assert.deepEqual(d.remove, []);
  assert.ok(d.instances, "the instance's lastSeen moved");
  assert.deepEqual([d.conflicts, d.history, d.registry, d.problems], [null, null, null, null]);
  assert.equal(d.generated, NOW + 1000);

  fs.writeFileSync(path.join(home, "activity", "hostA-4242-new000.jsonl"),
    line({ t: NOW, kind: "instance", pid: 4242, host: "hostA", project: "fresh", root: "/fixture/fresh" }) +
    line({ t: NOW, kind: "session", session: "s_new", parent: null, agent: "build", title: null }) +
    line({ t: NOW, kind: "task", session: "s_new", task: "new work" }));
  const third = readSnapshot({ home, now: NOW + 1000, alive: aliveA });
  const added = diffSnapshots(after, third);
  assert.deepEqual(added.upsert.map((r) => [r.key, r.task]), [["hostA-4242-new000/s_new", "new work"]]);
  assert.equal(added.instances.length, 4);

  const dead = readSnapshot({ home, now: NOW + 1000, alive: (pid, host) => (host === "hostA" ? false : null) });
  const died = diffSnapshots(third, dead);
  assert.deepEqual(died.upsert.map((r) => r.state), Array(died.upsert.length).fill("dead"));
  assert.deepEqual(died.upsert.map((r) => r.key).sort(), [`${MAIN}/ses_child`, `${MAIN}/ses_idle`, `${MAIN}/ses_main`, `${MAIN}/ses_recent`, "hostA-4242-new000/s_new"]);
  assert.deepEqual(died.instances.filter((i) => i.host === "hostA").map((i) => i.alive), [false, false, false]);

  append(home, MAIN, { t: NOW + 2000, kind: "deleted", session: "ses_recent" });
  const gone = diffSnapshots(third, readSnapshot({ home, now: NOW + 2000, alive: aliveA }));
  assert.deepEqual(gone.remove, [`${MAIN}/ses_recent`]);
});

/** The fixture's feeds with their project root pointed at the fixture project folder. */
function feedsAtProject(root = PROJECT) {
  return readFeeds(HOME).map((f) => ({ ...f, instance: f.instance && { ...f.instance, root } }));
}

test("inspect: calls with verdicts, the contract's status, the tree, claims, transcript, handoff and the attach command", () => {
  const feeds = feedsAtProject();
  const main = inspect({ feeds, key: `${MAIN}/ses_main`, home: HOME, now: NOW, alive: aliveA });
  assert.equal(main.row.state, "working");
  assert.deepEqual(main.calls.map((c) => [c.callID, c.phase, c.verdict]),
    [["c1", "start", "allow"], ["c1", "end", null], ["c3", "start", "allow"], ["c3", "end", null], [null, "end", null], ["c4", "start", "allow"]]);
  assert.deepEqual(main.contract, { taskId: "042_login", status: "IN_PROGRESS", path: path.join(PROJECT, ".opencode/context/active_tasks/042_login/status.md") });
  assert.deepEqual(main.tree, { parent: null, children: [{ key: `${MAIN}/ses_child`, session: "ses_child", agent: "explore", state: "blocked", task: null }] });
  assert.deepEqual(main.claims, ["/fixture/pitchello/src/login.ts", "/fixture/pitchello/src/auth/**"]);
  assert.equal(main.conductor.id, "opc-k3m9x2");
  assert.equal(main.transcript.path, path.join(PROJECT, ".opencode/nso/transcripts/ses_main.t0.md"));
  assert.match(main.transcript.text, /^# Session ses_main/);
  assert.match(main.handoff, /the login bug is in src\/login.ts/);
  assert.equal(main.attach, "opencode attach http://127.0.0.1:4096 --session ses_main");
  assert.equal(main.lastError, null);

  const child = inspect({ feeds, key: `${MAIN}/ses_child`, home: HOME, now: NOW, alive: aliveA });
  assert.deepEqual(child.tree.parent, { key: `${MAIN}/ses_main`, session: "ses_main", agent: "build", state: "working", task: "Fix the login bug on the sign-in page" });
  assert.deepEqual([child.lastError.verdict, child.lastError.rule], ["block", "authority.write"]);
  assert.deepEqual([child.contract, child.transcript, child.handoff], [null, null, null]);

  const idle = inspect({ feeds, key: `${MAIN}/ses_idle`, home: HOME, now: NOW, alive: aliveA });
  assert.deepEqual([idle.lastError.verdict, idle.lastError.message], ["warn", "NSO: warning: @plan reads many files"]);
  assert.match(idle.handoff, /^Latest handoff \(ses_idle\)/, "the project's latest handoff names this session");

  const rot = inspect({ feeds, key: "hostA-5151-def456/ses_rot", home: HOME, now: NOW, alive: aliveA });
  assert.equal(rot.attach, null, "no OpenCode server");
  assert.equal(inspect({ feeds, key: "nobody/here", home: HOME, now: NOW, alive: aliveA }), null);
});

test("inspect reads the continuity folder nso.json names, shows 200 lines of a transcript, and follows no task id out of its folder", () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-mc-project-")));
  fs.mkdirSync(path.join(root, ".opencode"), { recursive: true });
  fs.writeFileSync(path.join(root, ".opencode/nso.json"), JSON.stringify({ continuity: { enabled: true, dir: "memory" } }));
  fs.mkdirSync(path.join(root, "memory/transcripts"), { recursive: true });
  fs.writeFileSync(path.join(root, "memory/transcripts/s_1.t0.md"), Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join("\n"));
  const records = [
    { t: NOW - 2000, kind: "instance", pid: 4242, host: "hostA", project: "p", root, serverUrl: "http://127.0.0.1:1/x y" },
    { t: NOW - 1000, kind: "call", session: "s/1", tool: "read", callID: "a", phase: "start", verdict: "allow", target: `${root}/.opencode/context/active_tasks/../../../etc/passwd` },
  ];
  const feeds = [{ key: "hostA-4242-xyz000", records, instance: records[0] }];
  const found = inspect({ feeds, key: "hostA-4242-xyz000/s/1", home: HOME, now: NOW, alive: aliveA });
  assert.equal(found.transcript.text.split("\n").length, 200);
  assert.equal(found.transcript.path, path.join(root, "memory/transcripts/s_1.t0.md"));
  assert.equal(found.contract, null, "`..` is no task id");
  assert.equal(found.attach, null, "not a plain http(s) URL");
  assert.equal(attachCommand("http://127.0.0.1:4096", "ses;rm -rf ~"), "opencode attach http://127.0.0.1:4096 --session 'ses;rm -rf ~'");
});

test("a real process: its feed is alive while it runs and dead after kill -9", async () => {
  const home = path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-mc-kill-"))), "home");
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 600000)"], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  try {
    fs.mkdirSync(path.join(home, "activity"), { recursive: true });
    const key = `${os.hostname().replace(/[^A-Za-z0-9.-]/g, "_")}-${child.pid}-kill00`;
    const now = Date.now();
    fs.writeFileSync(path.join(home, "activity", `${key}.jsonl`),
      line({ t: now, kind: "instance", pid: child.pid, host: os.hostname(), started: now, project: "p", root: "/fixture/p", serverUrl: null, nso: "0.1.0" }) +
      line({ t: now, kind: "call", session: "s1", agent: "build", tool: "bash", callID: "k", phase: "start", verdict: "allow", rule: null, target: "sleep", message: null }));
    const running = readSnapshot({ home });
    assert.deepEqual([running.instances[0].alive, running.agents[0].state], [true, "working"]);
    child.kill("SIGKILL");
    await exited;
    const after = readSnapshot({ home });
    assert.deepEqual([after.instances[0].alive, after.agents[0].state], [false, "dead"]);
    assert.deepEqual(after.agents[0].inProgress?.tool, "bash", "what it was doing when it died stays visible");
    assert.deepEqual(diffSnapshots(running, after).upsert.map((r) => r.state), ["dead"]);
  } finally {
    child.kill("SIGKILL");
  }
});
