// NSO leaves nothing of its own in the user's `git status`: its runtime state folders (logs,
// the init marker, raw lanes and T0 transcripts, handoffs, the status sync's lock) ignore
// themselves, projects from before are migrated at load, state git already tracks is named
// with the fix; what people share on purpose (the decision ledger) stays visible. The raw lane
// keeps change facts, never NSO's own files, and stops at its cap (counted in the T0).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import plugin from "../../plugin/nso-plugin.js";
import { createLanes } from "../../plugin/continuity/lane.js";
import { compactLane } from "../../plugin/continuity/transcripts.js";
import { loadWorkflowCore } from "../../plugin/core-loader.js";
import { startChecks } from "../../plugin/start-checks.js";
import { makeStateDir } from "../../plugin/state-dirs.js";
import { flushAllLogs } from "../../plugin/logs.js";
import { chatParams, makeProject, sessionCreated } from "./helpers.mjs";

const FIX = new URL("../fixtures/continuity/opencode/", import.meta.url).pathname;
const events = (name) => fs.readFileSync(path.join(FIX, name), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const MAIN = "ses_df78deea6fferqdojeSzmQzsaz";

const git = (dir, ...args) => execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const porcelain = (dir) => git(dir, "status", "--porcelain", "--untracked-files=all").split("\n").filter(Boolean);

/** A git repository with one commit of `files`. */
function repo(files = { "README.md": "# p\n" }) {
  const dir = makeProject(files);
  git(dir, "init", "-q", "-b", "main");
  git(dir, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A");
  git(dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init");
  return dir;
}

test("a session's runtime state (logs, marker, lane, T0, handoff) leaves git status clean; the ledger shows", async () => {
  const dir = repo();
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.event(sessionCreated("ses_a"));
  await hooks["chat.params"](...chatParams("ses_a", "build"));
  // A refused call writes the decision log.
  await assert.rejects(hooks["tool.execute.before"]({ tool: "write", sessionID: "ses_a", callID: "c1" },
    { args: { filePath: path.join(dir, ".opencode/nso.json"), content: "{}" } }));
  for (const event of events("events-main.jsonl")) await hooks.event({ event });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: MAIN } } });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_a" } } });
  await hooks.dispose();
  flushAllLogs();
  for (const made of [".opencode/logs/nso.log", ".opencode/logs/session_init_marker.txt", `.opencode/nso/transcripts/${MAIN}.raw.jsonl`,
    `.opencode/nso/transcripts/${MAIN}.t0.md`, ".opencode/nso/handoffs/latest.md"]) {
    assert.ok(fs.existsSync(path.join(dir, made)), `${made} was written`);
  }
  assert.deepEqual(porcelain(dir), [], "nothing of NSO's in git status");
  // `git add -A` stages none of it.
  git(dir, "add", "-A");
  assert.equal(git(dir, "diff", "--cached", "--name-only"), "");
  // The decision ledger is shared on purpose: it shows.
  await hooks.tool.nso_decide.execute({ decision: "Keep the cache in SQLite", why: "one file" }, { sessionID: "ses_a", agent: "build" });
  assert.deepEqual(porcelain(dir), ["?? .opencode/context/decisions.md"]);
});

test("a project from before is migrated at load: its existing state folders get their .gitignore", async () => {
  const dir = repo();
  for (const [rel, text] of [[".opencode/logs/nso.log", "old\n"], [".opencode/nso/transcripts/ses_old.raw.jsonl", "{}\n"],
    [".opencode/nso/handoffs/latest.md", "h\n"], [".opencode/nso/templates/contract.md", "# shared template\n"]]) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  assert.equal(porcelain(dir).length, 4, "before: all of it is untracked and shows");
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.dispose();
  assert.deepEqual(porcelain(dir), ["?? .opencode/nso/templates/contract.md"], "only what people share stays visible");
});

test("state git already tracks is named at load with the command that stops tracking it", async () => {
  const dir = repo({ "README.md": "x\n", ".opencode/logs/nso.log": "committed by mistake\n" });
  const warned = [];
  const text = await startChecks({ root: dir, config: null, warn: (t) => warned.push(t) });
  assert.equal(warned.length, 1);
  assert.match(text, /git tracks NSO's runtime state \(\.opencode\/logs\/nso\.log\)/);
  assert.match(text, /Fix: git rm -r --cached -- \.opencode\/logs /);
  // After the fix nothing is said.
  git(dir, "rm", "-rq", "--cached", "--", ".opencode/logs");
  assert.equal(await startChecks({ root: dir, config: null, warn: (t) => warned.push(t) }), null);
  assert.equal(warned.length, 1);
});

test("a state folder never ignores the project: not its root, not .opencode/", () => {
  const dir = repo();
  makeStateDir(dir, { root: dir });
  makeStateDir(path.join(dir, ".opencode"), { root: dir });
  assert.equal(fs.existsSync(path.join(dir, ".gitignore")), false);
  assert.equal(fs.existsSync(path.join(dir, ".opencode/.gitignore")), false);
});

/** A user message info whose change summary carries the whole text of each changed file. */
const summaryMessage = (id, diffs) => ({ id, sessionID: "ses_l", role: "user", time: { created: 1 }, agent: "build", summary: { diffs } });

test("the lane keeps change facts only and never NSO's own files, wherever their folder is", () => {
  const dir = repo();
  const lanesDir = path.join(dir, "state-elsewhere"); // a configured continuity.dir
  const lanes = createLanes({ settings: () => ({ dir: lanesDir, root: dir, rawOutputBytes: 65536, flushMs: 10_000 }), errorLog: assert.fail });
  const big = "x".repeat(100_000);
  lanes.record("ses_l", "part", "p0", { id: "p0", sessionID: "ses_l", messageID: "m0", type: "text", text: "hi" });
  lanes.settle("ses_l"); // the lane's folder exists (and ignores itself) from here on
  const laneRel = "state-elsewhere/transcripts/ses_l.raw.jsonl";
  lanes.record("ses_l", "message", "m1", summaryMessage("m1", [
    { file: "src/app.js", before: big, after: `${big}y`, additions: 1, deletions: 0, status: "modified" },
    { file: laneRel, before: big, after: big + big, additions: 1, deletions: 0 },
    { file: ".opencode/logs/nso.log", patch: big, additions: 3, deletions: 0 },
  ]));
  lanes.record("ses_l", "part", "p1", { id: "p1", sessionID: "ses_l", messageID: "m1", type: "patch", hash: "h", files: [path.join(dir, "src/app.js"), path.join(dir, laneRel)] });
  makeStateDir(path.join(dir, ".opencode/logs"), { root: dir });
  const file = lanes.settle("ses_l");
  const records = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const message = records.find((r) => r.kind === "message");
  assert.deepEqual(message.info.summary.diffs, [{ file: "src/app.js", status: "modified", additions: 1, deletions: 0 }]);
  assert.deepEqual(records.find((r) => r.kind === "part" && r.part.type === "patch").part.files, [path.join(dir, "src/app.js")]);
  assert.ok(fs.statSync(file).size < 2000, `the lane holds no file text (${fs.statSync(file).size} bytes)`);
});

test("a session's lane stops at its cap; what it left out is counted in the T0 metadata", () => {
  const dir = repo();
  const lanesDir = path.join(dir, ".opencode/nso");
  const cap = 20_000;
  const lanes = createLanes({ settings: () => ({ dir: lanesDir, root: dir, rawOutputBytes: 65536, laneMaxBytes: cap, flushMs: 10_000 }), errorLog: assert.fail });
  lanes.record("ses_c", "session", "ses_c", { id: "ses_c", title: "capped", time: { created: 1, updated: 2 } });
  for (let i = 0; i < 60; i++) {
    lanes.record("ses_c", "part", `prt_${String(i).padStart(3, "0")}`, { id: `prt_${String(i).padStart(3, "0")}`, sessionID: "ses_c", messageID: "msg_1", type: "text", text: "z".repeat(1000) });
    if (i % 10 === 9) lanes.settle("ses_c");
  }
  const file = lanes.settle("ses_c");
  const size = fs.statSync(file).size;
  assert.ok(size <= cap && size > cap - 2000, `lane ${size} bytes, cap ${cap}`);
  const kept = fs.readFileSync(file, "utf8").trim().split("\n").length;
  const meta = compactLane({ wf: new (loadWorkflowCore().Workflow)(".opencode/nso.json", undefined), dir: lanesDir, root: dir, session: "ses_c", laneFile: file });
  assert.equal(meta.omitted.records, 61 - kept);
  assert.ok(meta.omitted.bytes > 1000 * meta.omitted.records);
  assert.deepEqual(porcelain(dir), []);
});
