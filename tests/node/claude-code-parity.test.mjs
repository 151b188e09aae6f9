// One policy, two hosts (issue 13, part 3): a table of calls, each written by hand in both
// hosts' shapes (Claude Code's `tool_name`/`tool_input`, OpenCode's `tool`/`args`) with the
// verdict expected under the kord preset, decided through OpenCode's plugin hooks and through
// `nso hook claude-code` as Claude Code runs it (a process per call, JSON on stdin). Both must
// give the expected verdict, the same rule and the same message. The native hook (built by
// `npm test`, or target/release/nso-hook) is held to the same table.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import plugin from "../../plugin/nso-plugin.js";
import { before, chatParams, makeProject, sessionCreated } from "./helpers.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
// `npm test` builds the native hook and names it here: then it must be held to the table too.
const NATIVE = process.env.NSO_NATIVE_HOOK ?? new URL("../../target/release/nso-hook", import.meta.url).pathname;
const OUTSIDE = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-outside-")));

const FILES = {
  "src/a.ts": "export const a = 1;\n",
  "notebooks/n.ipynb": "{}\n",
  "docs/kord/plans/p1/plan.md": "# Plan\n",
};

// [name, NSO agent (null: Claude Code's main agent without claudeCode.mainAgent), subagent?,
//  Claude Code call, OpenCode call, expected rule (null: allowed)]
const CASES = [
  ["simple bash", "dev", false, ["Bash", { command: "ls -la src" }], ["bash", { command: "ls -la src" }], null],
  ["push by @dev", "dev", false, ["Bash", { command: "git push origin main" }], ["bash", { command: "git push origin main" }], "kord.git.push"],
  ["push by @devops", "devops", false, ["Bash", { command: "git push origin main" }], ["bash", { command: "git push origin main" }], null],
  ["push hidden behind -C", "dev", false, ["Bash", { command: "git -C . push origin main" }], ["bash", { command: "git -C . push origin main" }], "kord.git.push"],
  ["push inside a quoted echo", "dev", false, ["Bash", { command: "echo 'git push' > notes.txt" }], ["bash", { command: "echo 'git push' > notes.txt" }], null],
  ["delete through bash", "dev", false, ["Bash", { command: "rm src/a.ts" }], ["bash", { command: "rm src/a.ts" }], "kord.delete"],
  ["write source as @dev", "dev", false, ["Write", { file_path: "src/b.ts", content: "x" }], ["write", { filePath: "src/b.ts", content: "x" }], null],
  ["write code as @plan", "plan", false, ["Write", { file_path: "src/b.ts", content: "x" }], ["write", { filePath: "src/b.ts", content: "x" }], "kord.plan.md_only"],
  ["edit a plan as @plan", "plan", false,
    ["Edit", { file_path: "docs/kord/plans/p1/plan.md", old_string: "# Plan", new_string: "# Plan v2" }],
    ["edit", { filePath: "docs/kord/plans/p1/plan.md", oldString: "# Plan", newString: "# Plan v2" }], null],
  ["edit code as @qa", "qa", false,
    ["Edit", { file_path: "src/a.ts", old_string: "1", new_string: "2" }], ["edit", { filePath: "src/a.ts", oldString: "1", newString: "2" }], "kord.default.write"],
  ["edit NSO's policy", "dev", false,
    ["Edit", { file_path: ".opencode/nso.json", old_string: "kord", new_string: "nso" }],
    ["edit", { filePath: ".opencode/nso.json", oldString: "kord", newString: "nso" }], "kord.governance.protect"],
  ["multiedit as @dev", "dev", false,
    ["MultiEdit", { file_path: "src/a.ts", edits: [{ old_string: "a", new_string: "b" }, { old_string: "1", new_string: "2", replace_all: true }] }],
    ["multiedit", { filePath: "src/a.ts", edits: [{ filePath: "src/a.ts", oldString: "a", newString: "b" }, { filePath: "src/a.ts", oldString: "1", newString: "2", replaceAll: true }] }], null],
  ["read as the Explore subagent", "explore", true, ["Read", { file_path: "src/a.ts" }], ["read", { filePath: "src/a.ts" }], null],
  ["grep as the Explore subagent", "explore", true, ["Grep", { pattern: "a", path: "src", glob: "*.ts" }], ["grep", { pattern: "a", path: "src", include: "*.ts" }], null],
  ["create as the Explore subagent", "explore", true, ["Write", { file_path: "src/c.ts", content: "x" }], ["write", { filePath: "src/c.ts", content: "x" }], "kord.default.create"],
  ["notebook as @plan", "plan", false, ["NotebookEdit", { notebook_path: "notebooks/n.ipynb", new_source: "x" }], ["write", { filePath: "notebooks/n.ipynb" }], "kord.plan.md_only"],
  ["web fetch as @qa", "qa", false, ["WebFetch", { url: "https://example.com", prompt: "p" }], ["webfetch", { url: "https://example.com", prompt: "p" }], null],
  ["write outside the project", "dev", false, ["Write", { file_path: `${OUTSIDE}/x.ts`, content: "x" }], ["write", { filePath: `${OUTSIDE}/x.ts`, content: "x" }], "kord.outside_project"],
  ["write through a symlink out", "dev", false, ["Write", { file_path: "out/x.ts", content: "x" }], ["write", { filePath: "out/x.ts", content: "x" }], "kord.outside_project"],
  ["no identity for the main agent", null, false, ["Write", { file_path: "src/b.ts", content: "x" }], ["write", { filePath: "src/b.ts", content: "x" }], "kord.unknown_agent"],
  ["unknown subagent type", "reviewer-bot", true, ["Edit", { file_path: "src/a.ts", old_string: "1", new_string: "2" }], ["edit", { filePath: "src/a.ts", oldString: "1", newString: "2" }], "kord.unknown_agent"],
];

// Every kord agent is one of the project's OpenCode agents, so OpenCode names the same agents in
// its refusals as Claude Code (which cannot list the agents a session may call on).
const KORD_AGENTS = Object.keys(JSON.parse(fs.readFileSync(new URL("../../crate/presets/kord.json", import.meta.url), "utf8")).agents);
const OPENCODE_AGENTS = JSON.stringify({ agent: Object.fromEntries(KORD_AGENTS.map((a) => [a, {}])) });

/** A kord project where Claude Code's main agent is `mainAgent` (or none). */
function project(mainAgent) {
  const config = { authority: { preset: "kord" }, conductor: { mode: "off" }, ...(mainAgent ? { claudeCode: { mainAgent } } : {}) };
  const dir = makeProject({ ...FILES, ".opencode/nso.json": JSON.stringify(config), "opencode.json": OPENCODE_AGENTS });
  fs.symlinkSync(OUTSIDE, path.join(dir, "out"));
  return dir;
}

/**
 * OpenCode: the plugin's `tool.execute.before` for a session whose agent is `agent`; a
 * subagent's session is a child of the main agent @dev's, as in Claude Code.
 */
async function viaOpenCode(dir, agent, subagent, [tool, args]) {
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.event(sessionCreated("ses_main"));
  await hooks["chat.params"](...chatParams("ses_main", "dev"));
  await hooks.event(sessionCreated("ses_1", subagent ? { parentID: "ses_main" } : {}));
  if (agent) await hooks["chat.params"](...chatParams("ses_1", agent));
  return before(hooks, "ses_1", tool, structuredClone(args));
}

/** The hook input Claude Code sends for the call (paths relative to the project made absolute, as Claude Code does). */
function hookInput(dir, agent, subagent, [name, input]) {
  const absolute = Object.fromEntries(Object.entries(input).map(([k, v]) =>
    [k, ["file_path", "notebook_path"].includes(k) && !v.startsWith("/") ? path.join(dir, v) : v]));
  return {
    session_id: "ses_1", transcript_path: path.join(dir, "t.jsonl"), cwd: dir, permission_mode: "default",
    hook_event_name: "PreToolUse", tool_name: name, tool_input: absolute, tool_use_id: "toolu_01",
    ...(subagent ? { agent_id: "agent-7", agent_type: agent === "explore" ? "Explore" : agent } : {}),
  };
}

/** Claude Code: a hook process (`command`) with the input on stdin; the deny reason, or null. */
function viaHook(command, dir, input) {
  const r = spawnSync(command[0], command.slice(1), { input: JSON.stringify(input), encoding: "utf8", cwd: dir, env: { ...process.env, CLAUDE_PROJECT_DIR: dir } });
  assert.equal(r.status, 0, `hook exit status (stderr: ${r.stderr})`);
  if (!r.stdout.trim()) return null;
  const out = JSON.parse(r.stdout).hookSpecificOutput;
  assert.equal(out.hookEventName, "PreToolUse");
  assert.equal(out.permissionDecision, "deny", "NSO never answers allow: that would skip Claude Code's own permission checks");
  return out.permissionDecisionReason;
}

const ruleOf = (message) => (message === null ? null : /Rule (\S+) /.exec(message)?.[1] ?? message);

const HOOKS = [["node", [process.execPath, CLI, "hook", "claude-code"]]];
if (process.env.NSO_NATIVE_HOOK || fs.existsSync(NATIVE)) HOOKS.push(["native", [NATIVE, "claude-code", "--fallback", CLI]]);

for (const [name, agent, subagent, claude, opencode, expected] of CASES) {
  test(`one verdict in both hosts: ${name}`, async () => {
    const dir = project(subagent ? "dev" : agent);
    const viaPlugin = await viaOpenCode(dir, agent, subagent, opencode);
    assert.equal(ruleOf(viaPlugin), expected, `OpenCode plugin: ${viaPlugin}`);
    for (const [label, command] of HOOKS) {
      const reason = viaHook(command, dir, hookInput(dir, agent, subagent, claude));
      assert.equal(ruleOf(reason), expected, `Claude Code hook (${label}): ${reason}`);
      if (expected !== null) assert.equal(reason, viaPlugin, `${label}: the same message as in OpenCode`);
    }
  });
}
