// End-to-end (issue 9, item 2): seed 002's plan-md-only rule inside real OpenCode. Under
// `kord`, OpenCode's plan agent (the seed's @plan) writes Markdown in docs/kord/plans/; a
// non-Markdown file there, by the write tool or by a shell redirection, is refused by
// `kord.plan.md_only` and the model reads why.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, sequence, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
// OpenCode's own plan agent may only edit .opencode/plans/*.md; Kord lets it write its plans,
// so OpenCode's permission is opened and NSO's policy decides.
const PLAN_AGENT = { agent: { plan: { permission: { edit: "allow", bash: "allow" } } } };

test("@plan writes Markdown in docs/kord/plans/; code there is refused by kord.plan.md_only", async () => {
  const projectDir = makeProject({ git: true, files: { ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" } }) } });
  const code = "docs/kord/plans/auth/drafts/login.ts";
  const script = "docs/kord/plans/auth/run.sh";
  const plan = "docs/kord/plans/auth/plan.md";
  const mock = await startMockModel(sequence([
    { toolCalls: [{ name: "write", args: { filePath: code, content: "export const login = () => {};\n" } }] },
    { toolCalls: [{ name: "bash", args: { command: `printf 'npm test\\n' > ${script}`, description: "write a script" } }] },
    { toolCalls: [{ name: "write", args: { filePath: plan, content: "# Plan: auth\n\n- [ ] login form (executor: dev-junior)\n" } }] },
    { text: "The plan is written." },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "plan the auth feature", mock, plugins: [PLUGIN], agent: "plan", config: PLAN_AGENT, timeoutMs: 60_000 });
    assert.equal(run.code, 0, run.stderr);
    const results = toolResults(mock.requests.filter((r) => !r.isTitle).at(-1).body);
    const [writeRefusal, bashRefusal, planWrite] = results;
    assert.match(writeRefusal, /^NSO blocked write for @plan: creating docs\/kord\/plans\/auth\/drafts\/login\.ts\. Rule kord\.plan\.md_only \(preset kord\): the planner never writes code: every file @plan writes or creates, with any tool or shell command, is a Markdown file \(\*\.md\)/);
    assert.match(writeRefusal, /Instead: write the plan or draft as a \.md file under docs\/kord\/plans\//);
    assert.match(bashRefusal, /^NSO blocked bash for @plan: .*docs\/kord\/plans\/auth\/run\.sh\. Rule kord\.plan\.md_only/);
    assert.doesNotMatch(planWrite, /NSO blocked/);
    assert.equal(fs.existsSync(path.join(projectDir, code)), false);
    assert.equal(fs.existsSync(path.join(projectDir, script)), false);
    assert.match(fs.readFileSync(path.join(projectDir, plan), "utf8"), /- \[ \] login form/);
  } finally {
    await mock.close();
  }
});
