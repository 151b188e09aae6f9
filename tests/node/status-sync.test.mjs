// Atomic status sync (plugin/status-sync.js, `nso status set|new|archive|recover`) over the
// real wasm core: both files move together or neither does, also when the process is killed
// at any write step.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { makeProject, readIf } from "./helpers.mjs";
import { runStatusSync } from "../../plugin/status-sync.js";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const fixture = (name) => fs.readFileSync(new URL(`../../crate/tests/fixtures/status/${name}`, import.meta.url), "utf8");
const TODO = ".opencode/specs/TODO.md";
const STATE = ".opencode/specs/state.json";
const ARCHIVE = ".opencode/specs/archive/state.json";
const P258 = ".opencode/specs/258_resolve_truth_lean_sorries";
const NOW = "2026-01-04T09:15:00Z";

function nso(args, env = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

/**
 * A ProofChecker project (its preset, so that its roles are known agents, as in OpenCode)
 * with the fixture TODO.md and state.json (and `extra` files).
 */
const PRESET = JSON.stringify({ authority: { preset: "proofchecker" } });
const specsProject = (extra = {}) => makeProject({ ".opencode/nso.json": PRESET, [TODO]: fixture("TODO.md"), [STATE]: fixture("state.json"), ...extra });

/**
 * Every file under .opencode/ but NSO's log files (a refusal is logged, as in OpenCode)
 * (relative path -> text): "byte-identical" compares these.
 */
function snapshot(dir) {
  const out = {};
  const walk = (rel) => {
    for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = `${rel}/${d.name}`;
      if (d.isDirectory()) walk(r);
      else if (/^\.opencode\/logs\/([^/]+\.(log|jsonl)|\.gitignore)$/.test(r)) continue;
      else out[r] = fs.readFileSync(path.join(dir, r), "utf8");
    }
  };
  walk(".opencode");
  return out;
}

/** Temp files, journal and lock left anywhere under .opencode/. */
const leftovers = (dir) => Object.keys(snapshot(dir)).filter((f) => /\.nso-tmp-|status-sync\.(journal\.json|lock)/.test(f));

const stateTask = (dir, n, file = STATE) => {
  const v = JSON.parse(readIf(dir, file));
  return [...(v.active_projects ?? []), ...(v.completed_projects ?? [])].find((t) => t.project_number === n);
};

test("set moves TODO.md, state.json and the project state.json together, stamps dates and links artifacts", () => {
  const dir = specsProject({ [`${P258}/state.json`]: fixture("project_state.json") });
  fs.chmodSync(path.join(dir, STATE), 0o640);
  const r = nso(["status", "set", "258", "PLANNING", "--agent", "planner", "--dir", dir, "--json"]);
  assert.equal(r.code, 0, r.err);
  const result = JSON.parse(r.out);
  assert.deepEqual(result.files, [TODO, STATE, `${P258}/state.json`]);
  assert.equal(result.taskNumber, 258);
  assert.equal(result.steps, 9, "3 temps, journal temp, journal rename, 3 renames, journal delete");
  assert.match(readIf(dir, TODO), /### 258\. Resolve Truth\.lean Sorries\n- \*\*Effort\*\*: 10-20 hours\n- \*\*Status\*\*: \[PLANNING\]\n/);
  const t = stateTask(dir, 258);
  assert.deepEqual([t.status, t.phase], ["planning", "planning"]);
  assert.match(t.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(JSON.parse(readIf(dir, `${P258}/state.json`)).status, "planning");
  assert.equal(fs.statSync(path.join(dir, STATE)).mode & 0o777, 0o640, "the file mode is kept");

  const plan = `${P258}/plans/implementation-001.md`;
  const r2 = nso(["status", "set", "258", "[PLANNED]", "--agent", "planner", "--artifact", plan, "--dir", dir]);
  assert.equal(r2.code, 0, r2.err);
  assert.match(r2.out, /^task 258: \[PLANNING\] → \[PLANNED\] by @planner, 1 artifact\(s\) linked/);
  assert.ok(readIf(dir, TODO).includes(`- **Plan Artifacts**:\n  - ${plan}\n`), readIf(dir, TODO));
  assert.ok(stateTask(dir, 258).artifacts.includes(plan));
  assert.ok(JSON.parse(readIf(dir, `${P258}/state.json`)).artifacts.includes(plan));

  // A completion stamps **Completed** in TODO.md and completed_at in state.json, the same day.
  const r3 = nso(["status", "set", "260", "COMPLETED", "--agent", "implementer", "--artifact", ".opencode/specs/260_prove_soundness_k/summaries/s.md", "--dir", dir]);
  assert.equal(r3.code, 0, r3.err);
  const done = stateTask(dir, 260);
  assert.equal(done.status, "completed");
  assert.match(readIf(dir, TODO), new RegExp(`- \\*\\*Status\\*\\*: \\[COMPLETED\\]\\n- \\*\\*Started\\*\\*: 2026-01-01\\n- \\*\\*Completed\\*\\*: ${done.completed_at.slice(0, 10)}\\n`));

  const check = nso(["status", "check", "--dir", dir]);
  assert.equal(check.code, 0, check.out);
  assert.match(check.out, /^consistent: /m);
  assert.deepEqual(leftovers(dir), []);
});

test("an illegal move or the wrong agent is refused with the legal next states; no file changes", () => {
  const dir = specsProject({ [`${P258}/state.json`]: fixture("project_state.json") });
  const before = snapshot(dir);
  const illegal = nso(["status", "set", "258", "COMPLETED", "--agent", "planner", "--dir", dir]);
  assert.equal(illegal.code, 1);
  assert.match(illegal.err, /\.opencode\/specs\/TODO\.md:28: NSO refused status sync for @planner/);
  assert.match(illegal.err, /from \[RESEARCHED\] to \[COMPLETED\], which is not a legal transition/);
  assert.match(illegal.err, /From \[RESEARCHED\] the legal next state is \[PLANNING\] \(by @planner or @lean-planner\)/);
  const agent = nso(["status", "set", "258", "PLANNING", "--agent", "researcher", "--dir", dir]);
  assert.equal(agent.code, 1);
  assert.match(agent.err, /which only @planner or @lean-planner may do/);
  const unknown = nso(["status", "set", "258", "SHIPPED", "--agent", "planner", "--dir", dir]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /`SHIPPED` is not a state of proofchecker; use one of: /);
  assert.deepEqual(snapshot(dir), before);
});

test("the API throws coded errors naming file and line", async () => {
  const dir = specsProject();
  await assert.rejects(runStatusSync({ worktree: dir, op: "set", args: { taskNumber: 258, newStatus: "PLANNING" }, agent: "researcher", now: NOW }),
    (e) => e.code === "sync_transition" && e.file === TODO && e.line === 28);
  await assert.rejects(runStatusSync({ worktree: dir, op: "set", args: { taskNumber: 999, newStatus: "PLANNING" }, agent: "planner", now: NOW }),
    (e) => e.code === "sync_task_not_found" && e.file === TODO);
  await assert.rejects(runStatusSync({ worktree: makeProject(), op: "archive" }),
    (e) => e.code === "sync_missing_file" && e.file === TODO && /not found in .*create it/.test(e.message));
  const before = snapshot(dir);
  const veto = (files) => {
    assert.deepEqual(files.map((f) => f.path), [TODO, STATE]);
    throw Object.assign(new Error("no writes today"), { code: "authority" });
  };
  await assert.rejects(runStatusSync({ worktree: dir, op: "set", args: { taskNumber: 258, newStatus: "PLANNING" }, agent: "planner", now: NOW, authorize: veto }),
    (e) => e.code === "authority");
  assert.deepEqual(snapshot(dir), before);
  const ok = await runStatusSync({ worktree: dir, op: "set", args: { taskNumber: 258, newStatus: "PLANNING" }, agent: "planner", now: NOW });
  assert.deepEqual([ok.taskNumber, ok.files, ok.steps], [258, [TODO, STATE], 7]);
  assert.equal(stateTask(dir, 258).updated_at, NOW);
  const same = await runStatusSync({ worktree: dir, op: "set", args: { taskNumber: 258, newStatus: "PLANNING" }, agent: "planner", now: NOW });
  assert.deepEqual([same.files, same.steps], [[], 0]);
  assert.match(same.summary, /stays \[PLANNING\] by @planner; nothing to write/);
});

test("malformed state.json or a missing file is refused with the file named; nothing changes", () => {
  const dir = specsProject({ [STATE]: fixture("state.json").replace('"type": "research",', '"type": "research"') });
  const before = snapshot(dir);
  const r = nso(["status", "set", "258", "PLANNING", "--agent", "planner", "--dir", dir]);
  assert.equal(r.code, 1);
  assert.match(r.err, /\.opencode\/specs\/state\.json:15: not valid JSON \(column \d+: .*\); fix the syntax first\./);
  assert.deepEqual(snapshot(dir), before);
  const noState = makeProject({ [TODO]: fixture("TODO.md") });
  const missing = nso(["status", "new", "--title", "X", "--agent", "planner", "--dir", noState]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /\.opencode\/specs\/state\.json: not found in .*; create it/);
  assert.deepEqual(Object.keys(snapshot(noState)), [TODO]);
  assert.equal(nso(["status", "set", "258", "--agent", "planner", "--dir", dir]).code, 2);
  assert.equal(nso(["status", "set", "258", "PLANNING", "--dir", dir]).code, 2);
  assert.equal(nso(["status", "new", "--agent", "planner", "--dir", dir]).code, 2);
});

test("new allocates next_project_number and increments it in both files", () => {
  const dir = specsProject();
  const first = nso(["status", "new", "--title", "Add sync tests", "--description", "Crash them.", "--priority", "high", "--language", "python", "--agent", "meta", "--dir", dir, "--json"]);
  assert.equal(first.code, 0, first.err);
  assert.equal(JSON.parse(first.out).taskNumber, 262);
  const second = nso(["status", "new", "--title", "Second", "--agent", "meta", "--dir", dir]);
  assert.equal(second.code, 0, second.err);
  assert.match(second.out, /^task 263 "Second" created in \[NOT STARTED\] by @meta; next_project_number 263 → 264/);
  assert.equal(JSON.parse(readIf(dir, STATE)).next_project_number, 264);
  assert.match(readIf(dir, TODO), /^next_project_number: 264$/m);
  assert.match(readIf(dir, TODO), /### 262\. Add sync tests\n[^#]*- \*\*Status\*\*: \[NOT STARTED\]\n- \*\*Priority\*\*: High\n- \*\*Language\*\*: python\n/);
  assert.deepEqual([stateTask(dir, 262).status, stateTask(dir, 263).status], ["not_started", "not_started"]);
  assert.equal(nso(["status", "check", "--dir", dir]).code, 0);
});

const archiveProject = () => specsProject({
  ".opencode/specs/256_consolidate_context_directories/summaries/implementation-summary-20260103.md": "summary\n",
  ".opencode/specs/257_improve_meta_argument_parsing/notes.md": "notes\n",
});

test("archive moves completed and abandoned tasks and their project folders", () => {
  const dir = archiveProject();
  const r = nso(["status", "archive", "--agent", "todo-manager", "--dir", dir, "--json"]);
  assert.equal(r.code, 0, r.err);
  const result = JSON.parse(r.out);
  assert.deepEqual(result.files, [ARCHIVE, STATE, TODO]);
  assert.equal(result.steps, 11, "3 temps, journal temp and rename, 3 renames, 2 moves, journal delete");
  const archived = JSON.parse(readIf(dir, ARCHIVE)).archived_projects.map((p) => p.project_number);
  assert.deepEqual(archived, [256, 257]);
  assert.ok(!/### 25[67]\./.test(readIf(dir, TODO)));
  assert.equal(stateTask(dir, 256), undefined);
  assert.equal(readIf(dir, ".opencode/specs/archive/257_improve_meta_argument_parsing/notes.md"), "notes\n");
  assert.ok(!fs.existsSync(path.join(dir, ".opencode/specs/256_consolidate_context_directories")));
  assert.equal(nso(["status", "check", "--dir", dir]).code, 0);
  assert.match(nso(["status", "archive", "--agent", "todo-manager", "--dir", dir]).out, /no completed or abandoned tasks to archive/);
});

/** Old and new texts of a sync's targets: the new ones from an uninterrupted run with NOW. */
function reference(makeDir, args) {
  const dir = makeDir();
  const old = snapshot(dir);
  const r = nso([...args, "--dir", dir, "--json"], { NSO_SYNC_NOW: NOW });
  assert.equal(r.code, 0, r.err);
  return { old, neu: snapshot(dir), steps: JSON.parse(r.out).steps };
}

/**
 * Kills the sync before each write step in turn; every file must be old or new before
 * recovery, and after it all old or all new; nothing of the sync is left behind.
 */
function crashAtEveryStep(makeDir, args, commitStep, invariant = () => {}) {
  const { old, neu, steps } = reference(makeDir, args);
  assert.notDeepEqual(old, neu);
  const files = [...new Set([...Object.keys(old), ...Object.keys(neu)])];
  for (let n = 1; n <= steps + 1; n++) {
    const dir = makeDir();
    const r = nso([...args, "--dir", dir], { NSO_SYNC_NOW: NOW, NSO_SYNC_CRASH_AT: String(n) });
    if (n <= steps) assert.equal(r.signal, "SIGKILL", `step ${n}: ${r.code} ${r.err}`);
    else assert.equal(r.code, 0, r.err);
    const mid = snapshot(dir);
    for (const f of files) assert.ok(mid[f] === old[f] || mid[f] === neu[f], `step ${n}: ${f} is neither old nor new`);
    invariant(mid, n);
    // Recovery by the recover command, or by the next status command.
    const rec = n % 2 ? nso(["status", "recover", "--dir", dir]) : nso(["status", "check", "--dir", dir]);
    assert.ok(rec.code === 0 || rec.code === 1, rec.err);
    const after = Object.fromEntries(Object.entries(snapshot(dir)).filter(([f]) => !f.startsWith(".opencode/logs/")));
    assert.deepEqual(after, n <= commitStep ? old : neu, `step ${n}: not all ${n <= commitStep ? "old" : "new"}`);
    assert.deepEqual(leftovers(dir), [], `step ${n}`);
  }
  return steps;
}

test("crash injection: set killed at every write step leaves all-old or all-new files", () => {
  const make = () => specsProject({ [`${P258}/state.json`]: fixture("project_state.json") });
  // 3 temps, journal temp, journal rename = the commit point (step 5): crashes up to it leave the old texts.
  const steps = crashAtEveryStep(make, ["status", "set", "258", "PLANNING", "--agent", "planner"], 5);
  assert.equal(steps, 9);
});

test("crash injection: archive killed at every write step leaves all-old or all-new files and folders", () => {
  // A project folder is in exactly one place at every moment.
  const once = (mid, n) => {
    for (const name of ["256_consolidate_context_directories/summaries/implementation-summary-20260103.md", "257_improve_meta_argument_parsing/notes.md"]) {
      const places = [`.opencode/specs/${name}`, `.opencode/specs/archive/${name}`].filter((f) => mid[f] !== undefined);
      assert.equal(places.length, 1, `step ${n}: ${name} in ${places.length} places`);
    }
  };
  const steps = crashAtEveryStep(archiveProject, ["status", "archive", "--agent", "todo-manager"], 5, once);
  assert.equal(steps, 11);
});

function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => resolve({ code, err }));
  });
}

test("concurrent syncs on different tasks all land (the lock serialises them)", async () => {
  const dir = specsProject();
  const moves = [["258", "PLANNING", "planner"], ["259", "RESEARCHING", "researcher"], ["260", "PARTIAL", "implementer"], ["261", "ABANDONED", "orchestrator"]];
  const results = await Promise.all(moves.map(([n, s, a]) => run(["status", "set", n, s, "--agent", a, "--dir", dir])));
  for (const r of results) assert.equal(r.code, 0, r.err);
  assert.deepEqual([258, 259, 260, 261].map((n) => stateTask(dir, n).status), ["planning", "researching", "partial", "abandoned"]);
  for (const s of ["PLANNING", "RESEARCHING", "PARTIAL", "ABANDONED"]) assert.match(readIf(dir, TODO), new RegExp(`\\*\\*Status\\*\\*: \\[${s}\\]`));
  assert.equal(nso(["status", "check", "--dir", dir]).code, 0);
  assert.deepEqual(leftovers(dir), []);
});

test("a sync held by another process makes a sync wait and then fail; a killed holder's lock is broken at once", async () => {
  const dir = specsProject();
  const journal = new URL("../../plugin/sync-journal.js", import.meta.url).pathname;
  const holder = spawn(process.execPath, ["--input-type=module", "-e", `
    import { lock } from ${JSON.stringify(journal)};
    await lock(${JSON.stringify(dir)});
    console.log("locked");
    setInterval(() => {}, 1000);`], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve) => holder.stdout.on("data", (d) => String(d).includes("locked") && resolve()));
  try {
    const before = snapshot(dir);
    const started = Date.now();
    const r = nso(["status", "set", "258", "PLANNING", "--agent", "planner", "--dir", dir]);
    assert.equal(r.code, 1);
    assert.ok(Date.now() - started >= 2000, "it waited");
    assert.match(r.err, new RegExp(`status-sync\\.lock\\.d: another status sync \\(pid ${holder.pid} on .*\\) holds the lock; try again`));
    assert.deepEqual(snapshot(dir), before);
  } finally {
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.on("exit", resolve));
  }
  const started = Date.now();
  const ok = nso(["status", "set", "258", "PLANNING", "--agent", "planner", "--dir", dir]);
  assert.equal(ok.code, 0, ok.err);
  assert.ok(Date.now() - started < 15_000, "the dead holder's lock was broken without waiting for it to go stale (30 s)");
  assert.deepEqual(leftovers(dir), []);
});

test("paths that escape the worktree through a symlink are refused; nothing outside changes", () => {
  const outside = makeProject({ "TODO.md": fixture("TODO.md"), "state.json": fixture("state.json") });
  const dir = makeProject({ ".opencode/nso.json": "{}" });
  fs.symlinkSync(outside, path.join(dir, ".opencode/specs"));
  const r = nso(["status", "set", "258", "PLANNING", "--agent", "planner", "--dir", dir]);
  assert.equal(r.code, 1);
  assert.match(r.err, /\.opencode\/specs\/TODO\.md: resolves to .*, outside the project .*; NSO writes status files only inside the project/);
  assert.equal(readIf(outside, "TODO.md"), fixture("TODO.md"));
  // A single file linked out (state.json), and a project folder linked out.
  const one = specsProject();
  fs.rmSync(path.join(one, STATE));
  fs.symlinkSync(path.join(outside, "state.json"), path.join(one, STATE));
  const r2 = nso(["status", "set", "258", "PLANNING", "--agent", "planner", "--dir", one]);
  assert.equal(r2.code, 1);
  assert.match(r2.err, /\.opencode\/specs\/state\.json: resolves to .*outside the project/);
  const proj = specsProject();
  fs.symlinkSync(outside, path.join(proj, P258));
  const r3 = nso(["status", "set", "258", "PLANNING", "--agent", "planner", "--dir", proj]);
  assert.equal(r3.code, 1);
  assert.match(r3.err, /outside the project/);
  assert.equal(readIf(outside, "state.json"), fixture("state.json"));
  assert.equal(readIf(proj, TODO), fixture("TODO.md"));
});
