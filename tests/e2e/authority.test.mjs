// End-to-end (issue 3): the authority engine inside real OpenCode, kord preset.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { startMockModel, sequence, toolNames, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode, tempDir } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const core = createRequire(import.meta.url)("../../pkg/nso.js");
const KORD = { ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" } }) };
// Custom primary agents, so `--agent dev` / `--agent devops` select them.
const AGENTS = { agent: { dev: { mode: "primary", prompt: "You implement." }, devops: { mode: "primary", prompt: "You ship." } } };

/** A fake `git` first on PATH: records every call, fakes `push`, runs the real git otherwise. */
function fakeGit() {
  const dir = tempDir("fakegit");
  const log = path.join(dir, "calls.log");
  const realGit = ["/usr/bin/git", "/usr/local/bin/git"].find((g) => fs.existsSync(g));
  fs.writeFileSync(path.join(dir, "git"), `#!/bin/sh
printf '%s\\n' "$*" >> "${log}"
for a in "$@"; do [ "$a" = push ] && { echo "fake push ok"; exit 0; }; done
exec ${realGit} "$@"
`, { mode: 0o755 });
  return { env: { PATH: `${dir}:${process.env.PATH}` }, pushes: () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "").split("\n").filter((l) => /(^| )push( |$)/.test(l)) };
}

async function runWith(steps, opts) {
  const mock = await startMockModel(sequence(steps));
  try {
    const run = await runOpencode({ prompt: "go", mock, plugins: [PLUGIN], timeoutMs: 60_000, ...opts });
    assert.equal(run.code, 0, run.stderr);
    const calls = mock.requests.filter((r) => !r.isTitle);
    return { run, calls, results: toolResults(calls.at(-1).body) };
  } finally {
    await mock.close();
  }
}

test("@plan writing src/ is refused and the model reads why", async () => {
  const projectDir = makeProject({ files: KORD, git: true });
  const { results } = await runWith(
    [{ toolCalls: [{ name: "write", args: { filePath: "src/feature.ts", content: "export {}\n" } }] }],
    { projectDir, agent: "plan" },
  );
  assert.equal(fs.existsSync(path.join(projectDir, "src/feature.ts")), false);
  const refusal = results.find((r) => r.startsWith("NSO blocked write for @plan"));
  assert.ok(refusal, JSON.stringify(results));
  // The plan-md-only rule: the planner never writes code, and the message says so. The project
  // has only OpenCode's own agents, none of which writes code under kord: nobody is suggested.
  assert.match(refusal, /creating src\/feature\.ts\. Rule kord\.plan\.md_only \(preset kord\): the planner never writes code/);
  assert.match(refusal, /Who may: no agent of this project\./);
  assert.match(refusal, /Instead: /);
});

test("@dev's `cd sub && git push` is refused; @devops's push runs", async () => {
  const git = fakeGit();
  const projectDir = makeProject({ files: { ...KORD, "sub/README.md": "x\n" }, git: true });
  const push = [{ toolCalls: [{ name: "bash", args: { command: "cd sub && git push origin main", description: "push" } }] }];

  const dev = await runWith(push, { projectDir, agent: "dev", config: AGENTS, env: git.env });
  const refusal = dev.results.find((r) => r.startsWith("NSO blocked bash for @dev"));
  assert.ok(refusal, JSON.stringify(dev.results));
  assert.match(refusal, /"git push origin main" is a push\. Rule kord\.git\.push \(preset kord\): only @devops may push\. Who may: @devops\./);
  assert.deepEqual(git.pushes(), [], "the refused push must not reach git");

  const devops = await runWith(push, { projectDir, agent: "devops", config: AGENTS, env: git.env });
  assert.ok(devops.results.some((r) => r.includes("fake push ok")), JSON.stringify(devops.results));
  assert.deepEqual(git.pushes(), ["push origin main"]);
});

test("apply_patch from a gpt- model is checked path by path", async () => {
  const projectDir = makeProject({ files: { ...KORD, "docs/kord/plans/p1.md": "# Plan\n- [ ] one\n" }, git: true });
  const patch = [
    "*** Begin Patch",
    "*** Update File: docs/kord/plans/p1.md",
    "@@",
    " # Plan",
    "-- [ ] one",
    "+- [x] one",
    "*** Add File: src/sneaky.ts",
    "+export const x = 1;",
    "*** End Patch",
  ].join("\n");
  const { calls, results } = await runWith(
    [{ toolCalls: [{ name: "apply_patch", args: { patchText: patch } }] }],
    { projectDir, agent: "plan", model: "gpt-5-mock" },
  );
  assert.ok(toolNames(calls[0]).includes("apply_patch"), toolNames(calls[0]).join(","));
  const refusal = results.find((r) => r.startsWith("NSO blocked apply_patch for @plan"));
  assert.ok(refusal, JSON.stringify(results));
  assert.match(refusal, /src\/sneaky\.ts/);
  assert.equal(fs.existsSync(path.join(projectDir, "src/sneaky.ts")), false);
  assert.equal(fs.readFileSync(path.join(projectDir, "docs/kord/plans/p1.md"), "utf8"), "# Plan\n- [ ] one\n");
});

test("every tool real OpenCode offers is classified by the engine", async () => {
  const offered = new Set();
  for (const [model, agent] of [["mock-model", "build"], ["gpt-5-mock", "build"], ["mock-model", "plan"]]) {
    const projectDir = makeProject({ git: true });
    const { calls } = await runWith([{ text: "nothing to do" }], { projectDir, model, agent });
    for (const name of toolNames(calls[0])) offered.add(name);
  }
  assert.ok(offered.has("bash") && offered.has("apply_patch") && offered.has("write"), [...offered].join(","));
  const unclassified = [...offered].filter((tool) => JSON.parse(core.classify(tool, "{}")).unclassified);
  assert.deepEqual(unclassified, [], `tools reaching the engine unclassified: ${unclassified.join(", ")}`);
});

test("an agent NSO does not know fails closed, and the message says how to declare it", async () => {
  const projectDir = makeProject({ files: KORD, git: true });
  const { results } = await runWith(
    [{ toolCalls: [{ name: "write", args: { filePath: "src/a.ts", content: "x" } }] }],
    { projectDir, agent: "stranger", config: { agent: { stranger: { mode: "primary", prompt: "?" } } } },
  );
  const refusal = results.find((r) => r.startsWith("NSO blocked write"));
  assert.ok(refusal, JSON.stringify(results));
  assert.match(refusal, /kord\.unknown_agent/);
  assert.match(refusal, /\.opencode\/nso\.json/);
  assert.equal(fs.existsSync(path.join(projectDir, "src/a.ts")), false);
});

test("a kord notepad takes appends (even through bash) but no rewrite", async () => {
  const notepad = "docs/kord/notepads/p1/learnings.md";
  const projectDir = makeProject({ files: { ...KORD, [notepad]: "# Learnings\n- first\n" }, git: true });
  const { results } = await runWith([
    { toolCalls: [{ name: "edit", args: { filePath: notepad, oldString: "- first", newString: "- rewritten" } }] },
    { toolCalls: [{ name: "bash", args: { command: `echo "- second" >> ${notepad}`, description: "append" } }] },
  ], { projectDir, agent: "dev", config: AGENTS });
  assert.ok(results.some((r) => /^NSO blocked edit for @dev: .*append-only/s.test(r)), JSON.stringify(results));
  assert.equal(fs.readFileSync(path.join(projectDir, notepad), "utf8"), "# Learnings\n- first\n- second\n");
});

test("a folder a bash call swaps for a link out is seen by the next write (paths cached before it are looked up again)", async () => {
  // proofchecker's implementer may move and delete the project's files (kord's agents may not).
  const outside = tempDir("target");
  const config = { ".opencode/nso.json": JSON.stringify({ authority: { preset: "proofchecker" } }), "src/app.ts": "a = 1\n" };
  const projectDir = makeProject({ files: config, git: true });
  const agents = { agent: { implementer: { mode: "primary", prompt: "You implement." } } };
  const { results } = await runWith([
    { toolCalls: [{ name: "read", args: { filePath: "src/app.ts" } }] },
    { toolCalls: [{ name: "write", args: { filePath: "src/app.ts", content: "a = 2\n" } }] },
    { toolCalls: [{ name: "bash", args: { command: `mv src src-old && ln -s ${outside} src`, description: "swap" } }] },
    { toolCalls: [{ name: "write", args: { filePath: "src/app.ts", content: "leak\n" } }] },
  ], { projectDir, agent: "implementer", config: agents });
  assert.equal(fs.readFileSync(path.join(projectDir, "src-old/app.ts"), "utf8"), "a = 2\n", JSON.stringify(results));
  assert.ok(fs.lstatSync(path.join(projectDir, "src")).isSymbolicLink(), JSON.stringify(results));
  assert.match(results.at(-1), /^NSO blocked write for @implementer: .*outside the project/s);
  assert.equal(fs.existsSync(path.join(outside, "app.ts")), false);
});

test("two calls of one step in flight: the subagent's short call ends, the parent's script swaps src/, the subagent's write is refused", async () => {
  // The default preset: build may move folders and make links; its general subagent writes.
  const outside = tempDir("target");
  const projectDir = makeProject({ files: { "src/app.ts": "a = 1\n" }, git: true });
  const { calls } = await runWith([
    // build writes the file (its real path is known), then runs a script beside a task.
    { toolCalls: [{ name: "write", args: { filePath: "src/app.ts", content: "a = 2\n" } }] },
    { toolCalls: [
      { name: "bash", args: { command: `sleep 1 && mv src src-old && ln -s ${outside} src && sleep 4`, description: "swap" } },
      { name: "task", args: { description: "edit", subagent_type: "general", prompt: "Change src/app.ts." } },
    ] },
    // the subagent: a short call that ends while the script runs, then (the model thinks for
    // a while, and the script swaps src/ meanwhile) a write
    { toolCalls: [{ name: "bash", args: { command: "true", description: "short" } }] },
    async () => {
      await new Promise((resolve) => setTimeout(resolve, 2500));
      return { toolCalls: [{ name: "write", args: { filePath: "src/app.ts", content: "leak\n" } }] };
    },
    { text: "done" },
    { text: "done" },
  ], { projectDir });
  assert.ok(fs.lstatSync(path.join(projectDir, "src")).isSymbolicLink(), "the script swapped src/");
  assert.equal(fs.existsSync(path.join(outside, "app.ts")), false, "nothing landed outside the project");
  const refused = calls.flatMap((c) => toolResults(c.body)).find((r) => /NSO blocked write/.test(r));
  assert.match(refused ?? "", /outside the project/, JSON.stringify(calls.map((c) => toolResults(c.body))));
});

test("a symlink inside the project that points out is outside", async () => {
  const outside = tempDir("target");
  const projectDir = makeProject({ files: KORD, git: true });
  fs.symlinkSync(outside, path.join(projectDir, "shared"));
  const { results } = await runWith(
    [{ toolCalls: [{ name: "write", args: { filePath: "shared/leak.txt", content: "x" } }] }],
    { projectDir, agent: "dev", config: AGENTS },
  );
  assert.ok(results.some((r) => /^NSO blocked write for @dev: .*outside the project/s.test(r)), JSON.stringify(results));
  assert.equal(fs.existsSync(path.join(outside, "leak.txt")), false);
});
