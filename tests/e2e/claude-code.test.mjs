// NSO as Claude Code's hook: the real Claude Code CLI (`claude -p`, devDependency
// @anthropic-ai/claude-code) against a scripted Anthropic Messages API on 127.0.0.1, with
// `.claude/settings.json` hooks running `node bin/nso.js hook claude-code`.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { blockText, claudeBin, runClaude, startAnthropicMock, writeClaudeSettings } from "./lib/anthropic-mock.mjs";
import { makeProject, tempDir } from "./lib/opencode.mjs";
import { INIT_DIR } from "../../plugin/logs.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const NSO_HOOK = `node ${JSON.stringify(path.join(REPO, "bin", "nso.js"))} hook claude-code`;

function claudeAvailable() {
  try {
    return fs.existsSync(claudeBin());
  } catch {
    return false;
  }
}
// A dev dependency that `npm test` installs: its absence fails these tests (never a skip counted as a pass).
const MISSING = claudeAvailable() ? null : "@anthropic-ai/claude-code is not installed (run npm install) and NSO_CLAUDE_BIN is not set";

const MEMORY_MARKER = "MEMORY-MARKER-7f3a: the project memory NSO injects at SessionStart";

/// A project with NSO's kord preset, the main Claude Code agent decided as `mainAgent` (omit it
/// to leave claudeCode unset), a custom Claude Code subagent type `dev` (decided as kord's
/// `dev`), and NSO as the hook of every event it answers.
function setupProject({ mainAgent = "build" } = {}) {
  const nsoConfig = { authority: { preset: "kord" }, ...(mainAgent ? { claudeCode: { mainAgent } } : {}) };
  const projectDir = makeProject({
    git: true,
    files: {
      "README.md": "claude code e2e\n",
      "src/existing.js": "export const v = 1;\n",
      ".opencode/nso.json": JSON.stringify(nsoConfig, null, 2),
      ".opencode/context/01_memory/active_context.md": `# Active context\n\n${MEMORY_MARKER}\n`,
      ".claude/agents/dev.md": "---\nname: dev\ndescription: Implementer: writes source code.\ntools: Bash, Read, Write, Edit\n---\nYou implement what you are asked.\n",
    },
  });
  const hook = (matcher) => [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: NSO_HOOK, timeout: 30 }] }];
  writeClaudeSettings(projectDir, {
    // Claude Code's own permission prompt would refuse writes in -p mode: allow them, so every
    // refusal in these tests is NSO's.
    permissions: { allow: ["Bash", "Write", "Edit", "Read"] },
    hooks: {
      PreToolUse: hook("*"),
      PostToolUse: hook("*"),
      SessionStart: hook(),
      UserPromptSubmit: hook(),
      SubagentStop: hook(),
    },
  });
  return projectDir;
}

const firstUserText = (body) => blockText(body.messages?.[0]?.content);
const turns = (body) => (body.messages ?? []).filter((m) => m.role === "assistant").length;

/// Script: the main agent's steps while the first user message holds `mainMarker`, a subagent's
/// while it holds its marker; each request's step is the number of assistant turns so far.
function scripted(main, subagents = {}) {
  return (body) => {
    const first = firstUserText(body);
    for (const [marker, steps] of Object.entries(subagents)) if (first.includes(marker)) return steps[turns(body)] ?? { text: "subagent done" };
    if (first.includes("E2E-MAIN")) return main[turns(body)] ?? { text: "done" };
    return { text: "unexpected request" };
  };
}

/// The tool_result the model got for the first tool call (of tool `name`, if given) whose input
/// mentions `needle`.
function resultFor(mock, needle, name) {
  let id;
  mock.messages.forEach((m, i) => (m.reply?.toolCalls ?? []).forEach((c, j) => {
    if (!id && (!name || c.name === name) && JSON.stringify(c.input).includes(needle)) id = c.id ?? `toolu_mock_${i}_${j}`;
  }));
  assert.ok(id, `no ${name ?? "tool"} call mentions ${needle}`);
  for (const m of mock.messages) {
    for (const msg of m.body.messages ?? []) {
      for (const block of Array.isArray(msg.content) ? msg.content : []) {
        if (block.type === "tool_result" && block.tool_use_id === id) return { text: blockText(block.content), isError: Boolean(block.is_error) };
      }
    }
  }
  assert.fail(`the model never got a result for the call on ${needle}`);
}

const write = (file_path, content) => ({ toolCalls: [{ name: "Write", input: { file_path, content } }] });

test("claude code: NSO decides the main agent as claudeCode.mainAgent and a subagent as its agent_type", { timeout: 90_000 }, async () => {
  assert.equal(MISSING, null);
  const projectDir = setupProject({ mainAgent: "build" });
  const abs = (rel) => path.join(projectDir, rel);
  const mock = await startAnthropicMock(
    scripted(
      [
        write(abs("src/main.js"), "// by build\n"), // build never writes code: refused
        write(abs("docs/kord/runs/build-run.md"), "# run\n"), // build's run logs: allowed
        { toolCalls: [{ name: "Read", input: { file_path: abs("src/existing.js") } }] }, // reads: allowed
        { toolCalls: [{ name: "Edit", input: { file_path: abs("src/existing.js"), old_string: "v = 1", new_string: "v = 2" } }] }, // refused
        { toolCalls: [{ name: "Bash", input: { command: "echo x > src/bash.js", description: "Write a file" } }] }, // refused
        { toolCalls: [{ name: "Agent", input: { description: "implement", prompt: "E2E-DEV implement it", subagent_type: "dev", run_in_background: false } }] },
      ],
      {
        "E2E-DEV": [
          write(abs("src/dev.js"), "// by dev\n"), // dev writes code: allowed
          write(abs("docs/kord/runs/dev-run.md"), "# run\n"), // run logs are build's: refused
          { text: "implemented" },
        ],
      },
    ),
  );
  try {
    const run = await runClaude({ projectDir, home: tempDir("claude-home"), prompt: "E2E-MAIN do the work", mock, timeoutMs: 60_000 });
    assert.equal(run.code, 0, `claude exited ${run.code}\n${run.stderr}\n${run.stdout.slice(-2000)}`);
    assert.equal(run.result?.subtype, "success", run.stdout.slice(-2000));

    // Main agent (build): the code write is refused, nothing written, the model reads NSO's reason.
    assert.ok(!fs.existsSync(abs("src/main.js")), "the refused write must not create src/main.js");
    const refused = resultFor(mock, "src/main.js", "Write");
    assert.ok(refused.isError, refused.text);
    assert.match(refused.text, /^PreToolUse:Write hook error: NSO blocked/, refused.text);
    assert.match(refused.text, /build/, refused.text);
    // ... and its allowed write goes through.
    assert.equal(fs.readFileSync(abs("docs/kord/runs/build-run.md"), "utf8"), "# run\n");
    assert.ok(!resultFor(mock, "build-run.md").isError);

    // Edit and a Bash redirection into code: refused too, the model told why.
    assert.equal(fs.readFileSync(abs("src/existing.js"), "utf8"), "export const v = 1;\n");
    assert.match(resultFor(mock, "v = 2").text, /^PreToolUse:Edit hook error: NSO blocked/);
    assert.ok(!resultFor(mock, "src/existing.js", "Read").isError, "build may read code");
    assert.ok(!fs.existsSync(abs("src/bash.js")));
    assert.match(resultFor(mock, "src/bash.js").text, /^PreToolUse:Bash hook error: NSO blocked/);

    // Subagent (agent_type dev): decided as dev, not as the main agent.
    assert.equal(fs.readFileSync(abs("src/dev.js"), "utf8"), "// by dev\n");
    assert.ok(!resultFor(mock, "src/dev.js").isError);
    assert.ok(!fs.existsSync(abs("docs/kord/runs/dev-run.md")), "dev may not write build's run logs");
    const devRefused = resultFor(mock, "dev-run.md");
    assert.match(devRefused.text, /^PreToolUse:Write hook error: NSO blocked/, devRefused.text);
    assert.match(devRefused.text, /dev/, devRefused.text);

    // SessionStart: the init marker names the session, and NSO's context (the project memory)
    // reached the model in the main agent's first request.
    const marker = path.join(projectDir, INIT_DIR, "session_init_marker.txt");
    assert.ok(fs.existsSync(marker), `no init marker at ${marker}`);
    assert.match(fs.readFileSync(marker, "utf8"), new RegExp(run.result.session_id));
    const first = mock.messages.find((m) => firstUserText(m.body).includes("E2E-MAIN"));
    const seen = JSON.stringify(first.body.messages) + JSON.stringify(first.body.system);
    assert.ok(seen.includes("SessionStart hook additional context: <nso-session-context>"), "NSO's SessionStart context is not in the first request");
    assert.ok(seen.includes(MEMORY_MARKER), "the project memory is not in the first request");

    // SubagentStop reached NSO, for the subagent by its type.
    assert.match(fs.readFileSync(path.join(projectDir, INIT_DIR, "nso.log"), "utf8"), /subagent stop @dev /);

    // The hook ran without internal errors.
    const errors = path.join(projectDir, INIT_DIR, "nso-errors.log");
    assert.ok(!fs.existsSync(errors) || !fs.readFileSync(errors, "utf8").trim(), fs.existsSync(errors) ? fs.readFileSync(errors, "utf8") : "");
    assert.ok(run.ms < 60_000, `the run took ${run.ms} ms`);
  } finally {
    await mock.close();
  }
});

test("claude code: without claudeCode.mainAgent the main agent's write is refused (fail closed)", { timeout: 90_000 }, async () => {
  assert.equal(MISSING, null);
  const projectDir = setupProject({ mainAgent: null });
  const target = path.join(projectDir, "notes.md");
  const mock = await startAnthropicMock(scripted([write(target, "x\n")]));
  try {
    const run = await runClaude({ projectDir, home: tempDir("claude-home"), prompt: "E2E-MAIN write notes", mock, timeoutMs: 60_000 });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!fs.existsSync(target));
    const refused = resultFor(mock, "notes.md");
    assert.match(refused.text, /^PreToolUse:Write hook error: NSO blocked/, refused.text);
    assert.match(refused.text, /unidentified/, refused.text);
  } finally {
    await mock.close();
  }
});
