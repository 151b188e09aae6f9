// Claims of Claude Code sessions (plugin/hosts/claude-code.js + plugin/claims.js `host`): each
// hook call is a new process, yet a session is one Conductor instance, alive while its Claude
// Code process runs. Real processes throughout: a "Claude Code" here is a long-lived node
// process that runs each hook call as Claude Code does (a shell running `node bin/nso.js hook
// claude-code` with the event on stdin), so its pid is what the instance records.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { makeProject } from "./helpers.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;

// A fake Claude Code: reads hook inputs, one JSON per line, on stdin; runs each through a shell
// as a hook command; writes each answer (exit status and stdout) as a JSON line; stays alive.
const FAKE_CLAUDE = `
const { spawnSync } = require("node:child_process");
const readline = require("node:readline");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const r = spawnSync("sh", ["-c", 'exec "$0" "$1" hook claude-code', process.execPath, ${JSON.stringify(CLI)}], { input: line, encoding: "utf8" });
  process.stdout.write(JSON.stringify({ code: r.status, stdout: r.stdout, stderr: r.stderr }) + "\\n");
});
setInterval(() => {}, 1 << 30);
`;

/** Starts a fake Claude Code for project `dir`; `call(input)` resolves to the hook's answer. */
function startClaude(dir, home) {
  const child = spawn(process.execPath, ["-e", FAKE_CLAUDE], {
    env: { ...process.env, CLAUDE_PROJECT_DIR: dir, CONDUCTOR_HOME: home }, stdio: ["pipe", "pipe", "inherit"],
  });
  let buffer = "";
  const waiting = [];
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      waiting.shift()(JSON.parse(line));
    }
  });
  const call = (input) => new Promise((resolve) => {
    waiting.push(resolve);
    child.stdin.write(JSON.stringify({ cwd: dir, transcript_path: "/dev/null", permission_mode: "default", ...input }) + "\n");
  });
  return { child, call };
}

const write = (session, dir, rel, extra = {}) => ({
  session_id: session, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: path.join(dir, rel), content: "x" }, tool_use_id: `toolu_${rel}`, ...extra,
});
const denied = (answer) => (answer.stdout ? JSON.parse(answer.stdout).hookSpecificOutput.permissionDecisionReason : null);

/** The Conductor's instances, as `nso conductor status --json` reports them. */
function instances(home) {
  const r = spawnSync(process.execPath, [CLI, "conductor", "status", "--json", "--home", home], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).instances;
}

test("a Claude Code session is one Conductor instance across hook processes; another session's claim refuses; its end or its death frees them", async () => {
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" }, claudeCode: { mainAgent: "dev" } }) });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-cc-claims-"));
  const a = startClaude(dir, home);
  const b = startClaude(dir, home);
  try {
    // Session A: the person's prompt starts its instance; its writes claim files.
    assert.equal((await a.call({ session_id: "ses_A", hook_event_name: "UserPromptSubmit", prompt: "implement the cache" })).code, 0);
    assert.equal(denied(await a.call(write("ses_A", dir, "src/cache.ts"))), null);
    assert.equal(denied(await a.call(write("ses_A", dir, "src/cache.ts"))), null, "the second write of a held file");
    let listed = instances(home);
    assert.equal(listed.length, 1, "one instance for the session, not one per hook process");
    assert.equal(listed[0].pid, a.child.pid, "the instance is the Claude Code process, not a hook process");
    assert.equal(listed[0].source, "cc");
    assert.equal(listed[0].task, "implement the cache");
    assert.deepEqual(listed[0].claims, [path.join(dir, "src/cache.ts")]);

    // A subagent of A shares its instance (its own agent_id, its parent's session_id).
    assert.equal(denied(await a.call(write("ses_A", dir, "src/cache.ts", { agent_id: "ag_1", agent_type: "dev" }))), null);
    assert.equal(instances(home).length, 1);

    // Session B, in another Claude Code process: A's claim refuses its write, with the holder named.
    const refused = denied(await b.call(write("ses_B", dir, "src/cache.ts")));
    assert.match(refused, /src\/cache\.ts/);
    assert.match(refused, new RegExp(`claimed by instance ${listed[0].id} .*A Claude Code session holds it`));
    assert.equal(denied(await b.call(write("ses_B", dir, "src/other.ts"))), null, "what A does not hold is B's to claim");

    // A ends: its instance is done and its claims are released; B may now write A's file.
    assert.equal((await a.call({ session_id: "ses_A", hook_event_name: "SessionEnd", reason: "prompt_input_exit" })).code, 0);
    assert.equal(denied(await b.call(write("ses_B", dir, "src/cache.ts"))), null);

    // B's Claude Code is killed: its claims are freed at once (same host: the pid is checked).
    b.child.kill("SIGKILL");
    await new Promise((resolve) => b.child.once("exit", resolve));
    assert.equal(denied(await a.call(write("ses_C", dir, "src/other.ts"))), null, "a new session takes what the dead one held");
    listed = instances(home).filter((i) => i.alive);
    assert.deepEqual(listed.map((i) => i.pid), [a.child.pid]);
  } finally {
    a.child.kill("SIGKILL");
    b.child.kill("SIGKILL");
  }
});
