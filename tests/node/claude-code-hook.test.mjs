// `nso hook claude-code` (plugin/hosts/claude-code.js): each Claude Code event as the host sends
// it (fields as captured from Claude Code 2.1.330 in tests/fixtures/claude-code/), answered in
// process and, where the process boundary matters, through a real `node bin/nso.js hook` process.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { callerOf, hostPid, parseHookInput, runClaudeHook } from "../../plugin/hosts/claude-code.js";
import { makeProject, readIf } from "./helpers.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const KORD = (extra = {}) => JSON.stringify({ authority: { preset: "kord" }, conductor: { mode: "off" }, claudeCode: { mainAgent: "dev" }, ...extra });

const event = (dir, name, fields = {}) => ({
  session_id: "ses_cc", transcript_path: path.join(dir, "t.jsonl"), cwd: dir, permission_mode: "default", hook_event_name: name, ...fields,
});
const run = (dir, input) => runClaudeHook(typeof input === "string" ? input : JSON.stringify(input), { env: { CLAUDE_PROJECT_DIR: dir } });
const answer = (r) => (r.stdout ? JSON.parse(r.stdout).hookSpecificOutput : undefined);

test("hook input: not JSON, not an object, or no event name is refused with the reason", () => {
  assert.throws(() => parseHookInput("{"), /not JSON/);
  assert.throws(() => parseHookInput("[1]"), /not a JSON object/);
  assert.throws(() => parseHookInput("{}"), /no hook_event_name/);
  assert.throws(() => parseHookInput(" ".repeat((16 << 20) + 1)), /larger than 16777216 bytes/);
});

test("identity: the main agent is claudeCode.mainAgent; a subagent its agent_type (mapped), keyed on agent_id", () => {
  const config = { mainAgent: "build", agents: { Explore: "explore" } };
  assert.deepEqual(callerOf({ session_id: "s" }, config), { agent: "build", subagent: false, agentType: undefined, sessionKey: "s" });
  assert.deepEqual(callerOf({ session_id: "s", agent_id: "a1", agent_type: "Explore" }, config), { agent: "explore", subagent: true, agentType: "Explore", sessionKey: "a1" });
  assert.deepEqual(callerOf({ session_id: "s", agent_id: "a2", agent_type: "dev" }, config).agent, "dev");
  // No mainAgent: nobody is named; an agent_id without a type is a subagent nobody names either (never the main agent).
  assert.equal(callerOf({ session_id: "s" }, {}).agent, undefined);
  assert.equal(callerOf({ session_id: "s", agent_id: "a3" }, config).agent, undefined);
});

test("the host process is the first ancestor that is not a shell", () => {
  const table = { 40: ["sh", 30], 30: ["bash", 20], 20: ["claude", 1] };
  assert.equal(hostPid(40, (pid) => table[pid]), 20);
  assert.equal(hostPid(20, (pid) => table[pid]), 20);
  assert.equal(hostPid(99, () => undefined), 99, "without /proc: the parent");
});

test("a process: unreadable input exits 2 with the reason on stderr; an unknown event is acknowledged", () => {
  const dir = makeProject({ ".opencode/nso.json": KORD() });
  const bad = spawnSync(process.execPath, [CLI, "hook", "claude-code"], { input: "not json", encoding: "utf8", cwd: dir });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^NSO blocked this call: the hook input is not JSON .*fail closed/);
  const other = spawnSync(process.execPath, [CLI, "hook", "claude-code"], { input: JSON.stringify(event(dir, "Notification")), encoding: "utf8", cwd: dir });
  assert.deepEqual([other.status, other.stdout], [0, ""]);
  const usage = spawnSync(process.execPath, [CLI, "hook", "cursor"], { encoding: "utf8" });
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /unknown host "cursor"/);
});

test("SessionStart writes the init marker and gives the memory summary as context", async () => {
  const dir = makeProject({ ".opencode/nso.json": KORD(), ".opencode/context/01_memory/active_context.md": "Always run the tests. MEMORY-7c1\n" });
  const r = await run(dir, event(dir, "SessionStart", { source: "startup" }));
  assert.equal(r.code, 0);
  const out = answer(r);
  assert.equal(out.hookEventName, "SessionStart");
  assert.match(out.additionalContext, /MEMORY-7c1/);
  assert.match(readIf(dir, ".opencode/logs/session_init_marker.txt"), /ses_cc/);
  assert.match(readIf(dir, ".opencode/logs/plugin_alive.log"), /ses_cc/);
});

test("PreToolUse: a refusal is the documented deny with NSO's message; an allow prints nothing; both are logged", async () => {
  const dir = makeProject({ ".opencode/nso.json": KORD(), "src/a.ts": "1\n" });
  const push = await run(dir, event(dir, "PreToolUse", { tool_name: "Bash", tool_input: { command: "git push" }, tool_use_id: "toolu_1" }));
  assert.equal(push.code, 0);
  assert.deepEqual(Object.keys(answer(push)).sort(), ["hookEventName", "permissionDecision", "permissionDecisionReason"]);
  assert.equal(answer(push).permissionDecision, "deny");
  assert.match(answer(push).permissionDecisionReason, /^NSO blocked bash for @dev: "git push" is a push\. Rule kord\.git\.push/);
  const write = await run(dir, event(dir, "PreToolUse", { tool_name: "Write", tool_input: { file_path: path.join(dir, "src/b.ts"), content: "x" }, tool_use_id: "toolu_2" }));
  assert.deepEqual(write, { code: 0, stdout: "", stderr: "" });
  const log = readIf(dir, ".opencode/logs/nso.log");
  assert.match(log, / block bash @dev kord\.git\.push/);
});

test("PreToolUse: a broken config refuses write-class tools with the not-enforcing text and lets reads through", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}, "claudeCode": {"mainAgnt": "dev"}}', "src/a.ts": "1\n" });
  const write = await run(dir, event(dir, "PreToolUse", { tool_name: "Edit", tool_input: { file_path: path.join(dir, "src/a.ts"), old_string: "1", new_string: "2" } }));
  assert.equal(answer(write).permissionDecision, "deny");
  assert.match(answer(write).permissionDecisionReason, /NSO is not enforcing its rules: .*claudeCode\.mainAgnt.*did you mean `mainAgent`/s);
  const read = await run(dir, event(dir, "PreToolUse", { tool_name: "Read", tool_input: { file_path: path.join(dir, "src/a.ts") } }));
  assert.deepEqual(read, { code: 0, stdout: "", stderr: "" });
});

test("PreToolUse under audit mode: allowed, not told, and recorded with the message it would have had", async () => {
  const dir = makeProject({ ".opencode/nso.json": KORD({ authority: { preset: "kord", mode: "audit" } }) });
  const r = await run(dir, event(dir, "PreToolUse", { tool_name: "Bash", tool_input: { command: "git push" }, tool_use_id: "toolu_9" }));
  assert.deepEqual(r, { code: 0, stdout: "", stderr: "" });
  const [record] = readIf(dir, ".opencode/logs/audit.jsonl").trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(record.rule, "kord.git.push");
  assert.equal(record.agent, "dev");
  assert.match(record.message, /^NSO blocked bash for @dev/);
});

test("PreToolUse: a soft reminder reaches the model as additional context, without a decision", async () => {
  const dir = makeProject({ ".opencode/nso.json": KORD() });
  const r = await run(dir, event(dir, "PreToolUse", { tool_name: "Bash", tool_input: { command: "eval \"$CMD\"" }, tool_use_id: "toolu_3" }));
  const out = answer(r);
  assert.equal(out.permissionDecision, undefined, "never an allow: that would skip Claude Code's permission checks");
  assert.match(out.additionalContext, /^\[.*NSO could not check this command step by step/);
});

test("UserPromptSubmit routes the person's prompt and gives the router's note as context", async () => {
  const dir = makeProject({ ".opencode/nso.json": KORD() });
  const r = await run(dir, event(dir, "UserPromptSubmit", { prompt: "please fix the failing test in src/a.ts" }));
  assert.equal(r.code, 0);
  assert.match(answer(r).additionalContext, /^NSO router: the user's latest message/);
  const [line] = readIf(dir, ".opencode/logs/router.jsonl").trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(line.source, "user");
  assert.equal(line.sessionID, "ses_cc");
});

test("SubagentStart and SubagentStop: the subagent joins its parent's session, its end is logged", async () => {
  const dir = makeProject({ ".opencode/nso.json": KORD() });
  const start = await run(dir, event(dir, "SubagentStart", { agent_id: "ag_1", agent_type: "qa" }));
  assert.deepEqual([start.code, start.stdout], [0, ""], "nothing to tell a subagent while NSO enforces");
  const stop = await run(dir, event(dir, "SubagentStop", { agent_id: "ag_1", agent_type: "qa", stop_hook_active: false }));
  assert.deepEqual(stop, { code: 0, stdout: "", stderr: "" });
  assert.match(readIf(dir, ".opencode/logs/nso.log"), / subagent stop @qa ag_1/);
});

test("PostToolUse after a call: the project's post hooks see it; nothing is added when there is nothing to say", async () => {
  const dir = makeProject({ ".opencode/nso.json": KORD() });
  const r = await run(dir, event(dir, "PostToolUse", {
    tool_name: "Write", tool_input: { file_path: path.join(dir, "src/b.ts"), content: "x" }, tool_response: { success: true }, tool_use_id: "toolu_4",
  }));
  assert.deepEqual(r, { code: 0, stdout: "", stderr: "" });
  assert.equal(fs.existsSync(path.join(dir, ".opencode/logs/nso-errors.log")), false);
});
