// `nso replay`: recorded sessions (real OpenCode 1.18.33 exports, hand-written OpenCode and
// Claude Code recordings) decided again through the plugin's engine, with the files as the real
// run had them. Expected verdicts are NSO's known ones (`nso explain` of the same cell), written
// out by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { claudeSubagentType, claudeToolCall } from "../../plugin/hosts/claude-tools.js";
import { callEffects } from "../../bin/replay/effects.js";
import { createOverlay } from "../../bin/replay/overlay.js";
import { addedContent, applyHunks, applyUpdate, hunksOfStructuredPatch, parseApplyPatch, parseUnifiedDiff } from "../../bin/replay/patches.js";
import { readRecordingFile, readRecordings } from "../../bin/replay/recording.js";
import { replayCalls } from "../../bin/replay/replay.js";
import { replayMain } from "../../bin/replay-cli.js";
import { generatedExport } from "../../bench/replay.bench.mjs";
import { makeProject } from "./helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(here, "../../bin/nso.js");
const REAL = path.join(here, "../fixtures/continuity/opencode");
const FIX = path.join(here, "../fixtures/replay");
const CLAUDE = path.join(FIX, "claude-code/7c1e2f4a-3b5d-4e6f-8a9b-0c1d2e3f4a5b.jsonl");
const KORD = fs.readFileSync(path.join(FIX, "kord.json"), "utf8");
const RECORDED_ROOT = "/tmp/nso-continuity/project"; // where the real fixtures ran

/** Replays `files` under `policy` (text, or undefined for the defaults) over the project `dir`. */
function replay(files, policy, dir, opts = {}) {
  const recording = readRecordings(files, { mainAgent: opts.agent ?? "build" });
  const overlay = createOverlay(dir);
  const result = replayCalls(recording.calls, policy, { diskRoot: dir, overlay });
  const rows = recording.calls.map((c, i) => ({ index: c.index, label: c.label, agent: c.agent, tool: c.tool, ...result.records[i] }));
  return { recording, result, rows, overlay };
}

/** `[index, agent, tool, verdict, rule]` of every row. */
const verdicts = (rows) => rows.map((r) => [r.index, r.agent, r.tool, r.verdict, r.rule]);

/** Runs the CLI; `{status, stdout, stderr}`. */
function cli(args, cwd) {
  return spawnSync(process.execPath, [CLI, "replay", ...args], { cwd, encoding: "utf8", maxBuffer: 1 << 26 });
}

// --- Claude Code tools onto NSO's -------------------------------------------------------------

test("claude tools: each Claude Code tool becomes the call NSO's engine already classifies", () => {
  assert.deepEqual(claudeToolCall("Bash", { command: "npm test", description: "Run", timeout: 5000 }), { tool: "bash", args: { command: "npm test", description: "Run" } });
  assert.deepEqual(claudeToolCall("Edit", { file_path: "/p/a.ts", old_string: "x", new_string: "y", replace_all: true }),
    { tool: "edit", args: { filePath: "/p/a.ts", oldString: "x", newString: "y", replaceAll: true } });
  assert.deepEqual(claudeToolCall("Edit", { file_path: "/p/a.ts", old_string: "x", new_string: "y" }), { tool: "edit", args: { filePath: "/p/a.ts", oldString: "x", newString: "y" } });
  assert.deepEqual(claudeToolCall("MultiEdit", { file_path: "/p/a.ts", edits: [{ old_string: "a", new_string: "b" }, { old_string: "c", new_string: "d", replace_all: true }] }), {
    tool: "multiedit",
    args: { filePath: "/p/a.ts", edits: [{ filePath: "/p/a.ts", oldString: "a", newString: "b" }, { filePath: "/p/a.ts", oldString: "c", newString: "d", replaceAll: true }] },
  });
  assert.deepEqual(claudeToolCall("Write", { file_path: "/p/b.ts", content: "hi" }), { tool: "write", args: { filePath: "/p/b.ts", content: "hi" } });
  assert.deepEqual(claudeToolCall("NotebookEdit", { notebook_path: "/p/n.ipynb", new_source: "x=1", cell_id: "c1" }), { tool: "write", args: { filePath: "/p/n.ipynb" } });
  assert.deepEqual(claudeToolCall("Read", { file_path: "/p/a.ts", offset: 10, limit: 5 }), { tool: "read", args: { filePath: "/p/a.ts", offset: 10, limit: 5 } });
  assert.deepEqual(claudeToolCall("Glob", { pattern: "**/*.ts", path: "/p/src" }), { tool: "glob", args: { pattern: "**/*.ts", path: "/p/src" } });
  assert.deepEqual(claudeToolCall("Grep", { pattern: "todo", path: "/p", glob: "*.md", "-i": true }), { tool: "grep", args: { pattern: "todo", path: "/p", "-i": true, include: "*.md" } });
  assert.deepEqual(claudeToolCall("LS", { path: "/p" }), { tool: "list", args: { path: "/p" } });
  assert.deepEqual(claudeToolCall("Task", { subagent_type: "Explore", prompt: "find it", description: "Find" }), { tool: "task", args: { subagent_type: "Explore", prompt: "find it", description: "Find" } });
  assert.deepEqual(claudeToolCall("Agent", { prompt: "do it" }), { tool: "task", args: { subagent_type: "general-purpose", prompt: "do it" } });
  assert.deepEqual(claudeToolCall("WebFetch", { url: "https://x.dev", prompt: "rules?" }), { tool: "webfetch", args: { url: "https://x.dev", prompt: "rules?" } });
  assert.deepEqual(claudeToolCall("WebSearch", { query: "q" }), { tool: "websearch", args: { query: "q" } });
  assert.deepEqual(claudeToolCall("TodoWrite", { todos: [] }), { tool: "todowrite", args: { todos: [] } });
  // MCP and other tools keep their name and input: the engine decides unknown tools by their path-like arguments.
  assert.deepEqual(claudeToolCall("mcp__fs__write_file", { path: "/p/x", content: "c" }), { tool: "mcp__fs__write_file", args: { path: "/p/x", content: "c" } });
  assert.deepEqual(claudeToolCall("ExitPlanMode", { plan: "p" }), { tool: "ExitPlanMode", args: { plan: "p" } });
  // Malformed input never throws.
  assert.deepEqual(claudeToolCall("Bash", null), { tool: "bash", args: { command: "" } });
  assert.deepEqual(claudeToolCall("Edit", "x"), { tool: "edit", args: {} });
  assert.deepEqual(claudeToolCall(undefined, undefined), { tool: "", args: {} });
  assert.equal(claudeSubagentType("Task", { subagent_type: "Explore" }), "Explore");
  assert.equal(claudeSubagentType("Agent", {}), "general-purpose");
  assert.equal(claudeSubagentType("Bash", {}), undefined);
});

// --- patches and effects ------------------------------------------------------------------------

test("patches: apply_patch texts and unified diffs apply as the tools applied them", () => {
  const patch = parseApplyPatch("*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** Update File: b.txt\n*** Move to: c.txt\n@@ fn x\n-old\n+new\n*** Delete File: d.txt\n*** End Patch\n");
  assert.equal(patch.wellFormed, true);
  assert.deepEqual(patch.files.map((f) => [f.action, f.path, f.moveTo ?? null]), [["add", "a.txt", null], ["update", "b.txt", "c.txt"], ["delete", "d.txt", null]]);
  assert.equal(addedContent(patch.files[0]), "one\ntwo\n");
  assert.equal(applyUpdate("fn x\nold\nrest\n", patch.files[1].hunks), "fn x\nnew\nrest\n");
  assert.equal(applyUpdate("fn y\nold\n", patch.files[1].hunks), undefined, "the context line is not there");
  assert.equal(parseApplyPatch("*** Update File: b.txt\n-x\n+y\n").wellFormed, false, "no Begin/End Patch");
  // OpenCode's recorded edit diff (export-main.json, call_4_0).
  const diff = "Index: /p/notes.txt\n===================================================================\n--- /p/notes.txt\n+++ /p/notes.txt\n@@ -1,2 +1,2 @@\n-hello\n+hello world\n second line\n";
  assert.equal(applyHunks("hello\nsecond line\n", parseUnifiedDiff(diff)), "hello world\nsecond line\n");
  // A hunk found away from its line number, and "\ No newline at end of file".
  assert.equal(applyHunks("zero\nhello\nsecond line\n", parseUnifiedDiff(diff)), "zero\nhello world\nsecond line\n");
  assert.equal(applyHunks("a\nb", parseUnifiedDiff("@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n")), "a\nc\n");
  assert.equal(applyHunks("a\nb\n", parseUnifiedDiff("@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n")), "a\nc");
  assert.equal(applyHunks("a\n", parseUnifiedDiff("@@ -1,0 +2,1 @@\n+b\n")), "a\nb\n", "an insertion after line 1");
  assert.equal(applyHunks("x\n", parseUnifiedDiff(diff)), undefined);
  // Claude Code's structuredPatch.
  const structured = [{ oldStart: 2, oldLines: 1, newStart: 2, newLines: 2, lines: ["-b", "+b2", "+b3"] }];
  assert.equal(applyHunks("a\nb\nc\n", hunksOfStructuredPatch(structured)), "a\nb2\nb3\nc\n");
});

test("effects: edits compute the new text as the core does, and fall back on the recorded diff", () => {
  const files = { "/p/a.txt": "one two one\n" };
  const read = (abs) => files[abs];
  const edit = (args, recorded) => callEffects({ tool: "edit", args, directory: "/p", recorded }, read);
  assert.deepEqual(edit({ filePath: "a.txt", oldString: "one", newString: "1" }), { changes: [{ abs: "/p/a.txt", text: "1 two one\n" }] });
  assert.deepEqual(edit({ filePath: "a.txt", oldString: "one", newString: "$&$&", replaceAll: true }), { changes: [{ abs: "/p/a.txt", text: "$&$& two $&$&\n" }] });
  assert.deepEqual(edit({ filePath: "new.txt", oldString: "", newString: "fresh" }), { changes: [{ abs: "/p/new.txt", text: "fresh" }] });
  // OpenCode matched with normalised whitespace; the recorded diff says what it did.
  assert.deepEqual(edit({ filePath: "a.txt", oldString: "one  two", newString: "x" }, { diff: "@@ -1,1 +1,1 @@\n-one two one\n+x one\n" }), { changes: [{ abs: "/p/a.txt", text: "x one\n" }] });
  assert.match(edit({ filePath: "a.txt", oldString: "absent", newString: "x" }).problem, /does not apply/);
  const multi = callEffects({ tool: "multiedit", directory: "/p", args: { filePath: "/p/a.txt", edits: [{ oldString: "two", newString: "2" }, { oldString: "2 one", newString: "2 three" }] } }, read);
  assert.deepEqual(multi, { changes: [{ abs: "/p/a.txt", text: "one 2 three\n" }] });
  const moved = callEffects({ tool: "apply_patch", directory: "/p", args: { patchText: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b/c.txt\n@@\n-one two one\n+moved\n*** End Patch" } }, read);
  assert.deepEqual(moved, { changes: [{ abs: "/p/a.txt", text: null }, { abs: "/p/b/c.txt", text: "moved\n" }] });
  assert.equal(callEffects({ tool: "bash", args: { command: "echo x > a.txt" }, directory: "/p" }, read), undefined, "bash: the replay cannot know the new content");
  assert.match(callEffects({ tool: "write", args: { filePath: "n.ipynb" }, directory: "/p" }, read).problem, /does not hold the new content/);
});

// --- real OpenCode exports ----------------------------------------------------------------------

const REAL_FILES = ["export-main.json", "export-parent.json", "export-child.json", "export-compaction.json"].map((f) => path.join(REAL, f));

test("real OpenCode exports under the default nso preset: every call allowed for build and general, in run order", () => {
  const dir = makeProject();
  const { recording, rows, result, overlay } = replay(REAL_FILES, undefined, dir);
  assert.deepEqual(recording.warnings, []);
  assert.deepEqual(verdicts(rows), [
    [1, "build", "write", "allow", null], [2, "build", "bash", "allow", null], [3, "build", "read", "allow", null],
    [4, "build", "edit", "allow", null], [5, "build", "bash", "allow", null],
    [6, "build", "task", "allow", null], [7, "general", "write", "allow", null], // the subagent's call right after its task
    [8, "build", "write", "allow", null], [9, "build", "bash", "allow", null],
  ]);
  assert.deepEqual(recording.sessions.map((s) => [s.label, s.id, s.agent, s.parent]), [
    ["S1", "ses_df78deea6fferqdojeSzmQzsaz", "build", null],
    ["S2", "ses_df78dd762ffe6WbgM9oG8yPg4M", "build", null],
    ["S3", "ses_df78dd10affePBtEVyfzhJhd36", "general", "ses_df78dd762ffe6WbgM9oG8yPg4M"],
    ["S4", "ses_df78dc11fffeoOradIxdhiqU5t", "build", null],
  ]);
  // The edit found the file the session's write created: the recorded root maps onto the project.
  const files = overlay.lookupsFor(RECORDED_ROOT);
  assert.equal(files.read(`${RECORDED_ROOT}/notes.txt`), "hello world\nsecond line\n");
  assert.equal(files.read(`${RECORDED_ROOT}/child.txt`), "from child\n");
  assert.equal(files.read(`${RECORDED_ROOT}/a.txt`), "alpha\n");
  assert.equal(fs.readdirSync(dir).length, 0, "nothing is written to the project");
  assert.equal(result.changes, 4);
  // The bash calls wrote nothing the engine sees (echo to stderr, seq to stdout).
  assert.deepEqual(result.notFollowed, []);
});

test("real OpenCode exports under kord: build never writes code, general is read-only", () => {
  const { rows } = replay(REAL_FILES.slice(0, 3), KORD, makeProject());
  assert.deepEqual(verdicts(rows), [
    [1, "build", "write", "block", "kord.default.create"], [2, "build", "bash", "allow", null], [3, "build", "read", "allow", null],
    [4, "build", "edit", "block", "kord.default.write"], [5, "build", "bash", "allow", null],
    [6, "build", "task", "allow", null], [7, "general", "write", "block", "kord.default.create"],
  ]);
  assert.match(rows[0].message, /^NSO blocked write for @build: creating notes\.txt\. Rule kord\.default\.create/);
});

test("OpenCode sessions under kord: @dev's push is refused by kord.git.push, @devops's runs; subagents decided as themselves", () => {
  const dir = makeProject({ "README.md": "acme\n" });
  const { rows, recording, overlay } = replay([path.join(FIX, "kord-sessions.json")], KORD, dir);
  assert.deepEqual(verdicts(rows), [
    [1, "build", "task", "allow", null],
    [2, "dev", "write", "allow", null], [3, "dev", "edit", "allow", null], [4, "dev", "bash", "allow", null],
    [5, "dev", "bash", "block", "kord.git.push"],
    [6, "build", "task", "allow", null], [7, "devops", "bash", "allow", null],
    [8, "build", "write", "allow", null],
  ]);
  assert.equal(rows[4].message, 'NSO blocked bash for @dev: "git push origin main" is a push. Rule kord.git.push (preset kord): only @devops may push. ' +
    "Who may: @devops. Instead: finish your task and leave the push to @devops. If the work needs this, report it to your caller (@build).");
  assert.deepEqual(recording.sessions.map((s) => `${s.label} @${s.agent}${s.parent ? ` < ${s.parent}` : ""}`),
    ["S1 @build", "S2 @dev < ses_1a2b3c4d5e6fParentKord0001", "S3 @devops < ses_1a2b3c4d5e6fParentKord0001"]);
  // The edit of the file @dev created: recorded at /home/dev/acme, held for the project.
  assert.equal(overlay.lookupsFor("/home/dev/acme").read("/home/dev/acme/src/auth/login.ts"),
    'export function login(user: string, password: string) {\n  if (!user) throw new Error("user required");\n  return check(user, password);\n}\n');
});

test("NSO's raw lane of a session replays like its export (a later record of a part wins)", () => {
  const doc = JSON.parse(fs.readFileSync(path.join(REAL, "export-main.json"), "utf8"));
  const lines = [{ v: 1, seq: 1, t: 1, kind: "session", info: doc.info }];
  for (const m of doc.messages) {
    const { info } = m;
    lines.push({ v: 1, seq: lines.length + 1, t: 1, kind: "message", info });
    for (const part of m.parts) {
      // OpenCode sends a tool part first pending, then completed: the lane keeps both lines.
      if (part.type === "tool") lines.push({ v: 1, seq: lines.length + 1, t: 1, kind: "part", part: { ...part, state: { status: "pending", input: {}, raw: "" } } });
      lines.push({ v: 1, seq: lines.length + 1, t: 1, kind: "part", part });
    }
  }
  const dir = makeProject();
  const lane = path.join(dir, "ses.raw.jsonl");
  fs.writeFileSync(lane, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n{"v": 2, "kind": "part"}\n`);
  const fromLane = replay([lane], undefined, dir);
  const fromExport = replay([path.join(REAL, "export-main.json")], undefined, dir);
  assert.deepEqual(verdicts(fromLane.rows), verdicts(fromExport.rows));
  assert.deepEqual(fromLane.recording.calls.map((c) => [c.tool, c.status, c.args]), fromExport.recording.calls.map((c) => [c.tool, c.status, c.args]));
  assert.equal(fromLane.overlay.lookupsFor(RECORDED_ROOT).read(`${RECORDED_ROOT}/notes.txt`), "hello world\nsecond line\n");
  assert.deepEqual(fromLane.recording.warnings, [`${lane}:${lines.length + 1}: not a transcript record — skipped`]);
});

test("older Claude Code transcripts: a subagent's records inside the main file, its agentId on some records only", () => {
  const base = { userType: "external", cwd: "/w/app", sessionId: "s-1", version: "2.0.46" };
  const use = (uuid, parentUuid, sidechain, id, name, input, extra = {}) => ({ ...base, ...extra, parentUuid, isSidechain: sidechain, uuid, type: "assistant", timestamp: `2025-11-19T22:5${uuid.length % 10}:00.000Z`,
    message: { role: "assistant", content: [{ type: "tool_use", id, name, input }] } });
  const result = (uuid, parentUuid, sidechain, id, extra = {}) => ({ ...base, ...extra, parentUuid, isSidechain: sidechain, uuid, type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] } });
  const records = [
    use("m1", null, false, "t1", "Task", { subagent_type: "docs-writer", prompt: "write the docs" }),
    result("m2", "m1", false, "t1", { agentId: "e1c84ba5" }), // the legacy place of the agent's id
    use("s1", null, true, "t2", "Grep", { pattern: "x" }),
    result("s2", "s1", true, "t2", { agentId: "e1c84ba5" }),
    use("s3", "s2", true, "t3", "Write", { file_path: "/w/app/docs/x.md", content: "x" }),
    result("s4", "s3", true, "t3"),
    use("m3", "m2", false, "t4", "Bash", { command: "ls" }),
  ];
  const dir = makeProject();
  const file = path.join(dir, "s-1.jsonl");
  fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join("\n"));
  const { recording, rows } = replay([file], undefined, dir);
  assert.deepEqual(recording.warnings, []);
  assert.deepEqual(rows.map((r) => [r.index, r.label, r.agent, r.tool]), [[1, "S1", "build", "task"], [2, "S2", "docs-writer", "grep"], [3, "S2", "docs-writer", "write"], [4, "S1", "build", "bash"]]);
  assert.equal(recording.sessions[1].key, "s-1/e1c84ba5");
});

// --- append-only state --------------------------------------------------------------------------

test("append-only: the rewrite after two appends is refused only because the replay holds the appends", () => {
  const NOTE = "docs/kord/notepads/auth/learnings.md";
  const dir = makeProject({ [NOTE]: "# Learnings\n" });
  const file = path.join(FIX, "notepad-rewrite.json");
  const { rows } = replay([file], KORD, dir);
  assert.deepEqual(verdicts(rows), [[1, "dev", "edit", "allow", null], [2, "dev", "write", "allow", null], [3, "dev", "write", "block", "kord.notepads.append_only"]]);
  assert.match(rows[2].message, /append-only .*line 2 differs/);
  // The same rewrite alone, against the notepad on disk: it keeps "# Learnings\n" as a prefix.
  const doc = JSON.parse(fs.readFileSync(file, "utf8"));
  const alone = path.join(dir, "rewrite-alone.json");
  fs.writeFileSync(alone, JSON.stringify({ ...doc, messages: [doc.messages[0], doc.messages[3]] }));
  assert.deepEqual(verdicts(replay([alone], KORD, dir).rows), [[1, "dev", "write", "allow", null]]);
  assert.equal(fs.readFileSync(path.join(dir, NOTE), "utf8"), "# Learnings\n", "the project's file is untouched");
});

// --- Claude Code transcripts ----------------------------------------------------------------------

test("Claude Code transcript: main chain as --agent, the sidechain as its subagent type, tools mapped, a cut line skipped", () => {
  const dir = makeProject({ "src/app.ts": 'import { render } from "./render";\nexport const title = "Home";\n' });
  const { recording, rows, overlay, result } = replay([CLAUDE], undefined, dir);
  assert.deepEqual(recording.files.map((f) => path.basename(f.file)), ["7c1e2f4a-3b5d-4e6f-8a9b-0c1d2e3f4a5b.jsonl", "agent-a4f9c21e7b3d.jsonl"], "its subagents/ file is read too");
  assert.deepEqual(recording.warnings, [`${CLAUDE}:10: not JSON (truncated?) — skipped`]);
  assert.deepEqual(verdicts(rows), [
    [1, "build", "read", "allow", null],
    [2, "build", "write", "allow", null],
    [3, "build", "edit", "allow", null],
    [4, "build", "multiedit", "allow", null],
    [5, "build", "bash", "allow", null],
    [6, "build", "bash", "block", "nso.git.user_only"],
    [7, "build", "task", "allow", null],
    [8, "general-purpose", "grep", "allow", null], // the subagent's calls right after its Task
    [9, "general-purpose", "write", "block", "nso.unknown_agent"], // an agent the policy does not know may only read
    [10, "general-purpose", "bash", "block", "nso.unknown_agent"],
    [11, "build", "mcp__github__create_issue", "allow", "nso.unclassified"], // no path-like argument
    [12, "build", "mcp__filesystem__write_file", "allow", null], // its `path` is a write of NOTES.md
    [13, "build", "webfetch", "allow", null],
  ]);
  assert.deepEqual(recording.calls.map((c) => c.hostTool), ["Read", "Write", "Edit", "MultiEdit", "Bash", "Bash", "Task", "Grep", "Write", "Bash",
    "mcp__github__create_issue", "mcp__filesystem__write_file", "WebFetch"]);
  assert.equal(recording.calls[5].status, "error", "the person refused the push");
  const files = overlay.lookupsFor("/home/dev/acme");
  assert.equal(files.read("/home/dev/acme/src/util.ts"), 'export function slug(s: string): string {\n  return s.toLowerCase().replace(/\\s+/g, "-");\n}\n');
  assert.equal(files.read("/home/dev/acme/src/app.ts"), 'import { render } from "./render";\nimport { slug } from "./util";\nexport const title = slug("Home Page");\n');
  assert.equal(files.read("/home/dev/acme/docs/report.md"), undefined, "the refused write never ran");
  assert.deepEqual(result.notFollowed, [{ index: 12, path: "NOTES.md", why: "mcp__filesystem__write_file changed it; the replay does not know its new content" }]);

  // A policy that knows Claude Code's subagent: its write and delete are decided as @general's.
  const known = replay([CLAUDE], fs.readFileSync(path.join(FIX, "claude-agents.json"), "utf8"), dir);
  assert.deepEqual(verdicts(known.rows).slice(7, 10), [[8, "general-purpose", "grep", "allow", null], [9, "general-purpose", "write", "allow", null], [10, "general-purpose", "bash", "allow", null]]);
  // --agent names the main chain.
  assert.deepEqual(verdicts(replay([CLAUDE], undefined, dir, { agent: "plan" }).rows)[1], [2, "plan", "write", "block", "nso.default.create"]);

  // Without --agent, the CLI decides Claude Code's callers as the hook does: claudeCode.mainAgent,
  // and claudeCode.agents for subagent types.
  const policy = path.join(dir, "claude-identity.json");
  fs.writeFileSync(policy, JSON.stringify({ claudeCode: { mainAgent: "plan", agents: { "general-purpose": "general" } } }));
  const r = cli([CLAUDE, "--config", policy, "--json", "--dir", dir], dir);
  assert.equal(r.status, 0, r.stderr);
  const calls = JSON.parse(r.stdout).calls.map((c) => [c.index, c.agent, c.verdict, c.rule ?? null]);
  assert.deepEqual(calls[1], [2, "plan", "block", "nso.default.create"]);
  assert.deepEqual(calls.slice(7, 10), [[8, "general", "allow", null], [9, "general", "allow", null], [10, "general", "allow", null]], "as @general, as with the policy above");
});

test("bad records are reported with file and line (or JSON path) and skipped; unreadable input is an error", () => {
  const dir = makeProject();
  const lines = fs.readFileSync(CLAUDE, "utf8").split("\n");
  const broken = path.join(dir, "broken.jsonl");
  fs.writeFileSync(broken, [lines[0], "{not json", '"a string"', '{"type": "assistant", "message": {"content": "text"}, "sessionId": "s"}', ...lines.slice(1)].join("\n"));
  const r = readRecordingFile(broken, "broken.jsonl");
  assert.equal(r.kind, "claude");
  assert.deepEqual(r.warnings, ["broken.jsonl:2: not JSON (truncated?) — skipped", "broken.jsonl:3: not a transcript record — skipped", "broken.jsonl:13: not JSON (truncated?) — skipped"]);
  const rec = readRecordings([broken], { labelOf: (f) => path.basename(f) });
  assert.ok(rec.warnings.includes("broken.jsonl:4: assistant record without message.content — skipped"));
  assert.equal(rec.calls.length, 10, "the main chain's 10 calls (the subagent file sits next to the original only)");

  const doc = JSON.parse(fs.readFileSync(path.join(REAL, "export-main.json"), "utf8"));
  doc.messages.splice(2, 0, "garbage");
  doc.messages[1].parts.push({ type: "tool", tool: "write" });
  const exported = path.join(dir, "export.json");
  fs.writeFileSync(exported, JSON.stringify(doc));
  const e = readRecordings([exported], { labelOf: () => "export.json" });
  assert.deepEqual(e.warnings, ["export.json: messages[2]: not a message ({info, parts}) — skipped", "export.json: messages[1].parts[4]: tool part without tool or state — skipped"]);
  assert.equal(e.calls.length, 5);

  const cut = path.join(dir, "cut.json");
  fs.writeFileSync(cut, fs.readFileSync(path.join(REAL, "export-main.json"), "utf8").slice(0, 5000));
  const res = cli([cut, "--dir", dir]);
  assert.equal(res.status, 2);
  assert.match(res.stderr, /cut\.json: not valid JSON \(.*\) and no JSON lines of a transcript/);
  assert.equal(cli([path.join(dir, "missing.json"), "--dir", dir]).status, 2);
  assert.match(cli([path.join(dir, "missing.json"), "--dir", dir]).stderr, /missing\.json: cannot read it \(ENOENT\)/);
  const badPolicy = path.join(dir, "bad.json");
  fs.writeFileSync(badPolicy, '{"authority": {"preset": "kords"}}');
  const bp = cli([exported, "--config", badPolicy, "--dir", dir]);
  assert.equal(bp.status, 2);
  assert.match(bp.stderr, /bad\.json: authority\.preset: there is no preset `kords`\nFix: did you mean `kord`\?/);
  assert.equal(cli(["--dir", dir]).status, 2, "no FILE");
  assert.equal(cli([exported, "--frobnicate"]).status, 2);
});

// --- the CLI: text, JSON, --diff, determinism ---------------------------------------------------

test("--diff lists exactly the calls two policies decide differently and exits 1; the same policy twice exits 0", () => {
  const dir = makeProject();
  const kordFile = path.join(FIX, "kord.json");
  const reviewed = path.join(FIX, "kord-reviewed.json");
  const file = path.join(FIX, "kord-sessions.json");
  const res = cli([file, "--config", kordFile, "--diff", reviewed, "--dir", dir, "--json"]);
  assert.equal(res.status, 1, res.stderr);
  const out = JSON.parse(res.stdout);
  assert.deepEqual(out.differences.map((d) => [d.index, d.sessionLabel, d.agent, d.tool, d.target, `${d.a.verdict} ${d.a.rule}`, `${d.b.verdict} ${d.b.rule}`]), [
    [2, "S2", "dev", "write", "src/auth/login.ts", "allow null", "block acme.auth.plan_first"],
    [3, "S2", "dev", "edit", "src/auth/login.ts", "allow null", "block acme.auth.plan_first"],
    [5, "S2", "dev", "bash", "git push origin main", "block kord.git.push", "allow null"],
  ]);
  assert.deepEqual(out.summary.b.rules, [{ rule: "acme.auth.plan_first", verdict: "block", count: 2 }]);
  const text = cli([file, "--config", kordFile, "--diff", reviewed, "--dir", dir]);
  assert.equal(text.status, 1);
  assert.match(text.stdout, /3 calls of 8 decided differently:/);
  assert.ok(text.stdout.split("\n").includes("  5  S2       dev    bash   block kord.git.push  allow                       git push origin main"), text.stdout);
  const same = cli([file, "--config", kordFile, "--diff", kordFile, "--dir", dir]);
  assert.equal(same.status, 0);
  assert.match(same.stdout, /Every call is decided the same under A and B \(8 calls\)\./);
});

test("the text report: sessions, each call with verdict and rule, a summary per verdict and rule; exit 0 with refusals", () => {
  const dir = makeProject({ ".opencode/nso.json": KORD });
  const res = cli([path.join(FIX, "kord-sessions.json")], dir);
  assert.equal(res.status, 0, res.stderr);
  const lines = res.stdout.split("\n");
  assert.equal(lines[0], "nso replay: 8 calls in 3 sessions from 1 file, policy .opencode/nso.json, preset kord");
  assert.ok(lines.includes("  #  session  agent   tool   recorded   verdict  rule           target"), res.stdout);
  assert.ok(lines.includes("  5  S2       dev     bash   error      block    kord.git.push  git push origin main"));
  assert.ok(lines.includes("  7  S3       devops  bash   completed  allow    -              git push origin main"));
  assert.ok(lines.includes("summary: 8 calls: 7 allow, 1 block"));
  assert.ok(lines.includes("       1  block  kord.git.push"));
  assert.ok(lines.includes("files: 3 changes laid over the project; 0 changes not followed"));
});

test("determinism: two runs give byte-identical output, text and JSON", () => {
  const dir = makeProject({ "src/app.ts": 'import { render } from "./render";\nexport const title = "Home";\n' });
  const files = [...REAL_FILES, CLAUDE, path.join(FIX, "kord-sessions.json")];
  for (const extra of [[], ["--json"], ["--diff", path.join(FIX, "kord.json")]]) {
    const a = cli([...files, "--dir", dir, ...extra]);
    const b = cli([...files, "--dir", dir, ...extra]);
    assert.ok(a.status === 0 || a.status === 1, a.stderr);
    assert.equal(a.stdout, b.stdout);
    assert.equal(a.stderr, b.stderr);
    assert.ok(a.stdout.length > 500);
  }
});

test("replayMain is callable in process and `nso --help` / `nso replay --help` describe it", async () => {
  const out = [];
  const code = await replayMain([path.join(REAL, "export-main.json"), "--json", "--dir", makeProject()], { out: (t) => out.push(t), err: () => {} });
  assert.equal(code, 0);
  const json = JSON.parse(out.join(""));
  assert.equal(json.calls.length, 5);
  assert.deepEqual(json.summary, { calls: 5, verdicts: { allow: 5 }, rules: [] });
  assert.equal(json.calls[0].where.endsWith("export-main.json: messages[1].parts[1]"), true);
  const help = spawnSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
  assert.match(help.stdout, /^ {2}replay +decides every tool call/m);
  assert.match(spawnSync(process.execPath, [CLI, "replay", "--help"], { encoding: "utf8" }).stdout, /nso replay FILE\.\.\. \[--config POLICY\.json\] \[--diff OTHER\.json\]/);
  const own = cli(["--help"]);
  assert.equal(own.status, 0);
  assert.match(own.stdout, /^usage:\n {2}nso replay FILE/);
});

test("a generated 10,000-call session is replayed in full (verdicts checked on a sample)", () => {
  const dir = makeProject();
  const file = path.join(dir, "export.json");
  fs.writeFileSync(file, JSON.stringify(generatedExport(10_000)));
  const { rows } = replay([file], KORD, dir);
  assert.equal(rows.length, 10_000);
  const count = (pred) => rows.filter(pred).length;
  // Every read-class call (read, grep, glob: i % 10 in {2, 5, 8}) is allowed.
  assert.equal(count((r, i) => [2, 5, 8].includes(i % 10) && r.verdict === "allow"), 3000);
  // Every push is @dev's (i % 30 == 3) and refused; `rm` is refused to every agent; /tmp is outside the project.
  assert.equal(count((r) => r.rule === "kord.git.push"), 334);
  assert.ok(rows.every((r, i) => (i % 30 === 3) === (r.rule === "kord.git.push")));
  assert.equal(count((r, i) => i % 10 === 9 && r.rule === "kord.delete"), 1000);
  assert.equal(count((r, i) => i % 10 === 7 && r.rule === "kord.outside_project"), 1000);
  // @dev writes source; @build never writes code; @dev's edit of the file it wrote at i-1 applies.
  assert.deepEqual(verdicts([rows[0], rows[1], rows[10], rows[30], rows[31]]), [
    [1, "dev", "write", "allow", null], [2, "build", "edit", "block", "kord.default.write"],
    [11, "build", "write", "block", "kord.default.create"], [31, "dev", "write", "allow", null], [32, "build", "edit", "block", "kord.default.write"],
  ]);
});
