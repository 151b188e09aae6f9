// One decision path, three hosts: every command of the shell analyser's corpus (as several
// agents) and every cell of the Kord matrix (agent x area x read/write/create/delete, and the
// git operations) decided through OpenCode's plugin hooks, through the Node Claude Code hook
// (`runClaudeHook`, the code `nso hook claude-code` runs) and through the native hook
// (`nso-hook`, a process per batch of calls when it is built). The three must give the same
// verdict, rule and message for every call.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import plugin from "../../plugin/nso-plugin.js";
import { runClaudeHook } from "../../plugin/hosts/claude-code.js";
import { before, chatParams, makeProject, sessionCreated } from "./helpers.mjs";

const NATIVE = process.env.NSO_NATIVE_HOOK ?? new URL("../../target/release/nso-hook", import.meta.url).pathname;
const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const CORPUS = new URL("../../crate/tests/shell_corpus.tsv", import.meta.url);

/** The corpus's commands (↵ and ⇥ stand for a newline and a TAB). */
const commands = fs.readFileSync(CORPUS, "utf8").split("\n")
  .filter((line) => line && !line.startsWith("#"))
  .map((line) => line.split("\t")[0].replaceAll("↵", "\n").replaceAll("⇥", "\t"));

const KORD_AGENTS = ["kord", "dev", "dev-junior", "build", "plan", "qa", "architect", "analyst", "sm", "pm", "po", "devops",
  "data-engineer", "ux-design-expert", "librarian", "explore", "general"];
const AREAS = ["src/app.ts", ".github/workflows/ci.yml", "Dockerfile", "db/migrations/001.sql", "web/styles/site.css",
  "web/components/Button.tsx", "docs/kord/plans/p1.md", "docs/kord/plans/p1/plan.md", "docs/kord/plans/p1/drafts/d.md",
  "docs/kord/plans/p1/stories/s1.md", "docs/kord/plans/p1/research/r.md", "docs/kord/plans/p1/reviews/v.md",
  "docs/kord/adrs/001.md", "docs/kord/notepads/p1/learn.md", "docs/kord/runs/p1/log.md", "docs/kord/architecture/a.md",
  ".opencode/nso.json", "../outside.txt"];
const EXISTING = ["src/app.ts", "docs/kord/plans/p1/plan.md", "docs/kord/notepads/p1/learn.md", "docs/kord/runs/p1/log.md"];

/** Every call of the table: `[agent, OpenCode tool, OpenCode args, Claude Code tool, Claude Code input]`. */
function table(dir) {
  const calls = [];
  for (const command of commands) {
    for (const agent of ["dev", "qa", "devops"]) calls.push([agent, "bash", { command }, "Bash", { command }]);
  }
  for (const agent of KORD_AGENTS) {
    for (const area of AREAS) {
      const abs = path.resolve(dir, area);
      calls.push([agent, "read", { filePath: area }, "Read", { file_path: abs }]);
      calls.push([agent, "write", { filePath: area, content: "x\n" }, "Write", { file_path: abs, content: "x\n" }]);
      calls.push([agent, "edit", { filePath: area, oldString: "# P", newString: "# Q" }, "Edit", { file_path: abs, old_string: "# P", new_string: "# Q" }]);
      calls.push([agent, "bash", { command: `rm ${area}` }, "Bash", { command: `rm ${area}` }]);
    }
    for (const git of ["add .", "commit -m x", "push origin main", "checkout -b feat", "merge main", "rebase main", "tag v1", "push --force"]) {
      calls.push([agent, "bash", { command: `git ${git}` }, "Bash", { command: `git ${git}` }]);
    }
  }
  return calls;
}

/**
 * A kord project with the matrix's files, claims off (each host claims alike elsewhere), and
 * every kord agent one of its OpenCode agents (Claude Code cannot list the agents a session may
 * call on, so it names the policy's: the same, here).
 */
function kordProject() {
  const preset = JSON.parse(fs.readFileSync(new URL("../../crate/presets/kord.json", import.meta.url), "utf8"));
  const files = {
    ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" }, conductor: { mode: "off" } }),
    "opencode.json": JSON.stringify({ agent: Object.fromEntries(Object.keys(preset.agents).map((a) => [a, {}])) }),
  };
  for (const rel of EXISTING) files[rel] = "# P\n";
  return makeProject(files);
}

/** Claude Code's hook input for a call by the main agent of a project whose main agent is the caller. */
const hookInput = (dir, name, input) => ({
  session_id: "ses_cc", transcript_path: path.join(dir, "t.jsonl"), cwd: dir, permission_mode: "default",
  hook_event_name: "PreToolUse", tool_name: name, tool_input: input, tool_use_id: "toolu_01",
});

/** The deny reason in a hook's stdout, or null. */
function reasonOf(stdout) {
  if (!stdout.trim()) return null;
  return JSON.parse(stdout).hookSpecificOutput?.permissionDecisionReason ?? null;
}

/** Each agent's project copy: Claude Code's main agent is named in the config. */
function projectFor(base, agent) {
  const dir = `${base}-${agent}`;
  if (!fs.existsSync(dir)) {
    fs.cpSync(base, dir, { recursive: true });
    fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({ authority: { preset: "kord" }, conductor: { mode: "off" }, claudeCode: { mainAgent: agent } }));
  }
  return dir;
}

test("the corpus and the kord matrix get one verdict, rule and message from OpenCode, the Node hook and the native hook", async () => {
  const base = kordProject();
  const calls = table(base);
  // Each refusal counts per session: a fresh session per call keeps every message a first one.
  const viaPlugin = [];
  const hooksFor = new Map();
  for (const [i, [agent, tool, args]] of calls.entries()) {
    const dir = projectFor(base, agent);
    if (!hooksFor.has(dir)) hooksFor.set(dir, await plugin.server({ directory: dir, worktree: dir }));
    const hooks = hooksFor.get(dir);
    const session = `ses_${i}`;
    await hooks.event(sessionCreated(session));
    await hooks["chat.params"](...chatParams(session, agent));
    viaPlugin.push(await before(hooks, session, tool, structuredClone(args)));
  }
  const viaNode = [];
  for (const [i, [agent, , , name, input]] of calls.entries()) {
    const dir = projectFor(base, agent);
    const absolute = { ...input, ...(input.file_path ? { file_path: path.resolve(dir, path.relative(base, input.file_path)) } : {}) };
    const answer = await runClaudeHook(JSON.stringify({ ...hookInput(dir, name, absolute), session_id: `ses_${i}` }));
    assert.equal(answer.code, 0, answer.stderr);
    viaNode.push(reasonOf(answer.stdout));
  }
  let compared = 0;
  for (const [i, [agent, tool, args]] of calls.entries()) {
    assert.equal(viaNode[i], viaPlugin[i], `@${agent} ${tool} ${JSON.stringify(args).slice(0, 200)}: Node hook vs OpenCode`);
    compared++;
  }
  if (fs.existsSync(NATIVE)) {
    for (const [i, [agent, tool, args, name, input]] of calls.entries()) {
      const dir = projectFor(base, agent);
      const absolute = { ...input, ...(input.file_path ? { file_path: path.resolve(dir, path.relative(base, input.file_path)) } : {}) };
      const r = spawnSync(NATIVE, ["claude-code", "--fallback", CLI], {
        input: JSON.stringify({ ...hookInput(dir, name, absolute), session_id: `ses_n${i}` }), encoding: "utf8", cwd: dir,
        env: { ...process.env, CLAUDE_PROJECT_DIR: dir },
      });
      assert.equal(r.status, 0, r.stderr);
      const reason = reasonOf(r.stdout)?.replaceAll(`ses_n${i}`, `ses_${i}`) ?? null;
      assert.equal(reason, viaPlugin[i], `@${agent} ${tool} ${JSON.stringify(args).slice(0, 200)}: native hook vs OpenCode`);
    }
  }
  assert.ok(compared > 3000, `${compared} calls compared`);
});
