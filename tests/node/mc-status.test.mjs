// `nso status [--watch] [--json] [--home DIR]` (bin/mc/status-cli.js through bin/nso.js): the
// Agents table in a terminal, the snapshot as JSON, the redraws of --watch in a real child
// process, and that no agent-written string can drive the person's terminal.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { readSnapshot } from "../../bin/mc/model.js";
import { agentsTable, COLUMNS, duration, jsonSafe, terminalSafe } from "../../bin/mc/status-cli.js";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const FIXTURE_HOME = new URL("../fixtures/mc/home", import.meta.url).pathname;
const NOW = 1767226200000;
/** What a terminal obeys: C0 controls but the line feed, DEL and C1 controls. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const TERMINAL_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const HOSTILE = "\u001b]0;pwned\u0007\u001b[2J\u001b[31mred\u001b[0m\rback\u009b2J\u202eevil";

/** A temp Conductor home; `feed(key, records)` writes a feed of this process (alive) in it. */
function scratch() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-mc-status-")));
  const home = path.join(dir, "home");
  const keyOf = (suffix) => `${os.hostname().replace(/[^A-Za-z0-9.-]/g, "_")}-${process.pid}-${suffix}`;
  const feed = (suffix, records, { append = false } = {}) => {
    fs.mkdirSync(path.join(home, "activity"), { recursive: true });
    const text = records.map((r) => `${JSON.stringify({ v: 1, t: Date.now(), ...r })}\n`).join("");
    (append ? fs.appendFileSync : fs.writeFileSync)(path.join(home, "activity", `${keyOf(suffix)}.jsonl`), text);
    return keyOf(suffix);
  };
  const instance = (project) => ({ kind: "instance", pid: process.pid, host: os.hostname(), started: Date.now(), project, root: `/work/${project}`, serverUrl: null, nso: "0.1.0" });
  return { dir, home, feed, instance };
}

function nso(args, env = {}) {
  // Run outside any project: the home comes from the flags and the environment alone.
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: os.tmpdir(), env: { ...process.env, ...env }, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test("terminalSafe shows every control character instead of obeying it, and drops nothing", () => {
  const safe = terminalSafe(HOSTILE);
  assert.doesNotMatch(safe, TERMINAL_CONTROLS);
  assert.doesNotMatch(safe, /\u202e/);
  assert.equal(safe, "␛]0;pwned␇␛[2J␛[31mred␛[0m back<U+009B>2J<U+202E>evil");
  assert.equal(terminalSafe("plain text, ünïcödé ✓"), "plain text, ünïcödé ✓");
  assert.equal(terminalSafe("a\tb\nc\u007f\u0000"), "a b c␡␀");
  assert.deepEqual(JSON.parse(jsonSafe(JSON.stringify({ s: HOSTILE }))), { s: HOSTILE }, "the JSON stays the same data");
  assert.doesNotMatch(jsonSafe(JSON.stringify({ s: HOSTILE })), TERMINAL_CONTROLS);
  assert.deepEqual([duration(5000), duration(150_000), duration(3 * 3600_000 + 5 * 60_000), duration(50 * 3600_000), duration(undefined)],
    ["5s", "2m", "3h05", "2d02h", "?"]);
});

test("the Agents table: its columns, sorted by project then state, claims relative to the project, strings clipped and made safe", () => {
  const snapshot = readSnapshot({ home: FIXTURE_HOME, now: NOW, alive: (pid, host) => (host === "hostA" ? pid === 4242 : null) });
  const text = agentsTable(snapshot);
  assert.doesNotMatch(text, TERMINAL_CONTROLS);
  const lines = text.split("\n");
  const header = lines[0].split(/\s{2,}/);
  assert.deepEqual(header, COLUMNS);
  const column = (name) => lines[0].indexOf(name);
  const rows = lines.slice(1, 7);
  const cellAt = (row, name) => row.slice(column(name)).split(/\s{2,}/)[0];
  assert.deepEqual(rows.map((r) => cellAt(r, "PROJECT")), ["ledger", "pitchello", "pitchello", "pitchello", "pitchello", "remote"]);
  assert.deepEqual(rows.map((r) => cellAt(r, "STATE")), ["dead", "working", "working", "blocked", "idle", "idle"]);
  const main = rows.find((r) => r.includes("ses_main"));
  assert.equal(cellAt(main, "IN PROGRESS"), "bash npm test (10s)");
  assert.equal(cellAt(main, "CLAIMS"), "2: src/login.ts, src/auth/**");
  assert.equal(cellAt(main, "LAST SEEN"), "10s ago");
  const child = rows.find((r) => r.includes("ses_child"));
  assert.match(cellAt(child, "SESSION"), /^↳/, "a subagent's session");
  assert.match(cellAt(child, "LAST REFUSAL"), /^authority\.write: NSO: @explore may not …$/);
  const idle = rows.find((r) => r.includes("ses_idle"));
  assert.match(idle, /␛\[2J␛\[31mrepaint␛\[0m the screen␇/);
  assert.match(lines[7], /^registered without a feed: web-sh0001 scripts "Manual migration" P3 claims: \/fixture\/scripts\/migrate\.sql$/);
});

test("nso status --json prints the snapshot of $CONDUCTOR_HOME; --home wins; a live process's feed is working", () => {
  const { home, feed, instance } = scratch();
  const key = feed("aaaaaa", [
    instance("pitchello"),
    { kind: "session", session: "ses_1", parent: null, agent: "build", title: "Fix login" },
    { kind: "task", session: "ses_1", task: HOSTILE },
    { kind: "call", session: "ses_1", agent: "build", tool: "bash", callID: "c1", phase: "start", verdict: "allow", rule: null, target: "npm test", message: null },
  ]);
  const r = nso(["status", "--json"], { CONDUCTOR_HOME: home });
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.out, TERMINAL_CONTROLS, "C1 controls escaped too");
  const snapshot = JSON.parse(r.out);
  assert.deepEqual(snapshot.agents.map((a) => [a.key, a.state, a.agent, a.inProgress?.target]), [[`${key}/ses_1`, "working", "build", "npm test"]]);
  assert.equal(snapshot.agents[0].task, HOSTILE, "the data itself is unchanged");
  assert.match(snapshot.problems[0], /status\.json: missing/);

  const other = scratch();
  const elsewhere = nso(["status", "--json", "--home", other.home], { CONDUCTOR_HOME: home });
  assert.deepEqual(JSON.parse(elsewhere.out).agents, []);

  // In a project whose nso.json names a conductor.home, that home (as the plugin there uses it).
  const project = path.join(other.dir, "project");
  fs.mkdirSync(path.join(project, ".opencode"), { recursive: true });
  fs.writeFileSync(path.join(project, ".opencode/nso.json"), JSON.stringify({ conductor: { home: path.relative(project, home) } }));
  const r2 = spawnSync(process.execPath, [CLI, "status", "--json"], { cwd: project, env: { ...process.env, CONDUCTOR_HOME: other.home }, encoding: "utf8" });
  assert.deepEqual(JSON.parse(r2.stdout).agents.map((a) => a.key), [`${key}/ses_1`]);
});

test("nso status: the table in a pipe has no control characters, whatever the agents wrote", () => {
  const { home, feed, instance } = scratch();
  feed("bbbbbb", [
    { ...instance("p\u001b[2Jroject"), root: "/work/p" },
    { kind: "session", session: "ses_\u001b[1Ax", parent: null, agent: "evil\u0007agent", title: null },
    { kind: "task", session: "ses_\u001b[1Ax", task: HOSTILE },
    { kind: "call", session: "ses_\u001b[1Ax", agent: "evil\u0007agent", tool: "edit", callID: "c", phase: "start", verdict: "block", rule: "r\u009b", target: "/etc/\u001b[8mhidden", message: `NSO: no ${HOSTILE}` },
  ]);
  const r = nso(["status", "--home", home]);
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.out, TERMINAL_CONTROLS);
  assert.match(r.out, /p␛\[2Jroject/);
  assert.match(r.out, /evil␇agent/);
  assert.match(r.out, /blocked/);
  assert.match(r.out, /^PROJECT +AGENT +SESSION +STATE +TASK +IN PROGRESS +LAST REFUSAL +CLAIMS +AGE +LAST SEEN$/m);
});

test("nso status: usage errors exit 2, --help explains, and the status subcommands are still theirs", () => {
  const bad = nso(["status", "--bogus"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /unknown argument "--bogus"/);
  assert.equal(nso(["status", "--home"]).code, 2);
  const help = nso(["status", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /nso status \[--watch\] \[--json\] \[--home DIR\]/);
  assert.match(nso(["--help"]).out, /^ {2}status +the Agents table/m);
  const check = nso(["status", "check", "--todo", "/nonexistent/TODO.md"]);
  assert.equal(check.code, 2);
  assert.match(check.err, /^nso status check: /);
});

/** Spawns `nso status --watch ...`; `until(predicate)` resolves when its stdout satisfies it. */
function watchChild(args, env) {
  const child = spawn(process.execPath, [CLI, "status", "--watch", ...args], { cwd: os.tmpdir(), env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiters = new Set();
  child.stdout.on("data", (d) => {
    out += d;
    for (const w of waiters) if (w.predicate(out)) (waiters.delete(w), w.resolve());
  });
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const until = (predicate, what) => new Promise((resolve, reject) => {
    if (predicate(out)) return resolve();
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stdout:\n${out}\nstderr:\n${err}`)), 10_000);
    waiters.add({ predicate, resolve: () => (clearTimeout(timer), resolve()) });
  });
  return { child, exited, until, output: () => out };
}

const frames = (out) => out.split("NSO agents in ").length - 1;

test("nso status --watch: a frame, a new frame when a feed appears or changes, none while nothing does, exit on SIGINT", async () => {
  const { home, feed, instance } = scratch();
  const w = watchChild(["--home", home], {});
  try {
    await w.until((out) => frames(out) === 1 && /no agents seen/.test(out), "the first frame");
    const key = feed("cccccc", [instance("watched"), { kind: "task", session: "ses_w", task: "watch me" }]);
    await w.until((out) => frames(out) === 2 && out.includes("watch me"), "a frame with the new feed");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(frames(w.output()), 2, "into a pipe, a frame only when the model changed");
    feed("cccccc", [{ kind: "call", session: "ses_w", agent: "build", tool: "bash", callID: "w1", phase: "start", verdict: "allow", rule: null, target: "make all", message: null }], { append: true });
    await w.until((out) => frames(out) === 3 && out.split("NSO agents in ").at(-1).includes("bash make all"), "a frame after the feed changed");
    assert.ok(w.output().includes(key.slice(-6)) || w.output().includes("ses_w"));
    assert.ok(!w.output().includes("\u001b"), "no screen clearing into a pipe");
    w.child.kill("SIGINT");
    assert.deepEqual(await w.exited, { code: 0, signal: null });
  } finally {
    w.child.kill("SIGKILL");
  }
});

test("nso status --watch --json: one snapshot per line", async () => {
  const { home, feed, instance } = scratch();
  feed("dddddd", [instance("json"), { kind: "task", session: "ses_j", task: "as JSON" }]);
  const w = watchChild(["--json"], { CONDUCTOR_HOME: home });
  try {
    await w.until((out) => out.includes("\n"), "the first line");
    const first = JSON.parse(w.output().split("\n")[0]);
    assert.equal(first.agents[0].task, "as JSON");
    w.child.kill("SIGINT");
    assert.equal((await w.exited).code, 0);
  } finally {
    w.child.kill("SIGKILL");
  }
});
