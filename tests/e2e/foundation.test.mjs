// End-to-end (issue 2): the real OpenCode binary loads NSO, which writes the init marker, puts
// the memory summary into the model's system prompt and refuses a write outside the project.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, sequence, systemText, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode, tempDir } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const MEMORY = ".opencode/context/01_memory/active_context.md";

function read(dir, rel) {
  const file = path.join(dir, rel);
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

test("NSO inside OpenCode: marker, summary in the system prompt, outside write refused", async () => {
  const outside = path.join(tempDir("outside"), "escape.txt");
  const mock = await startMockModel(sequence([
    { toolCalls: [{ name: "write", args: { filePath: "notes/inside.txt", content: "fine\n" } }] },
    { toolCalls: [{ name: "write", args: { filePath: outside, content: "leak\n" } }] },
  ]));
  try {
    const projectDir = makeProject({ files: { [MEMORY]: "Sprint goal: ship the login page (e2e marker 7731)." }, git: true });
    const run = await runOpencode({ projectDir, prompt: "do it", mock, plugins: [PLUGIN], timeoutMs: 60_000 });
    assert.equal(run.code, 0, run.stderr);

    const marker = read(projectDir, ".opencode/logs/session_init_marker.txt");
    assert.match(marker ?? "", /^initialized: \d{4}-\d\d-\d\dT[\d:.]+Z\nsession: ses_\w+\n/);
    assert.match(read(projectDir, ".opencode/logs/plugin_alive.log") ?? "", /session\.created ses_/);

    const modelCalls = mock.requests.filter((r) => !r.isTitle);
    assert.ok(modelCalls.length >= 3, `expected 3+ model calls, got ${modelCalls.length}`);
    assert.match(systemText(modelCalls[0].body), /<nso-session-context>[\s\S]*e2e marker 7731[\s\S]*<\/nso-session-context>/);

    assert.equal(read(projectDir, "notes/inside.txt"), "fine\n");
    assert.equal(fs.existsSync(outside), false, "the outside write must not happen");
    const results = toolResults(modelCalls.at(-1).body);
    const refusal = results.find((r) => r.startsWith("NSO blocked write"));
    assert.ok(refusal, `no NSO message among tool results: ${JSON.stringify(results)}`);
    assert.match(refusal, /outside the project/);
    assert.match(read(projectDir, ".opencode/logs/nso.log") ?? "", /block write/);
  } finally {
    await mock.close();
  }
});

test("NSO loads as a project plugin file in .opencode/plugins/ and works from a subfolder", async () => {
  const mock = await startMockModel(sequence([
    { toolCalls: [{ name: "write", args: { filePath: "/etc/nso-e2e-should-not-exist", content: "x" } }] },
  ]));
  try {
    const projectDir = makeProject({
      files: { ".opencode/plugins/nso.js": `export { default } from ${JSON.stringify(PLUGIN)};\n`, "sub/readme.md": "x" },
      git: true,
    });
    const run = await runOpencode({ projectDir, cwd: path.join(projectDir, "sub"), prompt: "go", mock, timeoutMs: 60_000 });
    assert.equal(run.code, 0, run.stderr);
    // paths come from OpenCode's worktree (the git root), not the subfolder
    assert.match(read(projectDir, ".opencode/logs/session_init_marker.txt") ?? "", /^initialized: /);
    assert.equal(fs.existsSync(path.join(projectDir, "sub/.opencode")), false);
    const last = mock.requests.filter((r) => !r.isTitle).at(-1);
    assert.ok(toolResults(last.body).some((r) => /^NSO blocked write/.test(r)));
    assert.equal(fs.existsSync("/etc/nso-e2e-should-not-exist"), false);
  } finally {
    await mock.close();
  }
});

test("an invalid nso.json fails closed inside OpenCode, with the fix in the message", async () => {
  const mock = await startMockModel(sequence([
    { toolCalls: [{ name: "write", args: { filePath: "a.txt", content: "x" } }] },
  ]));
  try {
    const projectDir = makeProject({ files: { ".opencode/nso.json": '{"memory": {"maxBytes": "big"}}' }, git: true });
    const run = await runOpencode({ projectDir, prompt: "go", mock, plugins: [PLUGIN], timeoutMs: 60_000 });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(read(projectDir, "a.txt"), undefined);
    const last = mock.requests.filter((r) => !r.isTitle).at(-1);
    const refusal = toolResults(last.body).find((r) => r.startsWith("NSO blocked write"));
    assert.match(refusal ?? "", /memory\.maxBytes: expected a whole number/);
    assert.match(refusal ?? "", /Fix: /);
    assert.match(systemText(last.body), /NSO is not enforcing its rules/);
  } finally {
    await mock.close();
  }
});
