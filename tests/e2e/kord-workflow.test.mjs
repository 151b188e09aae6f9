// End-to-end: Kord squads through real OpenCode with a scripted model. A marketing squad
// (tasks, no stories, no quality gates, auto checkpoints) works through its plan without a
// story gate or a checkpoint; the dev squad in the same project is still held to both.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, sequence, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const MARKETING = "name: marketing\nagents: [pm, analyst]\nplan_type: task\ncheckpoint_mode: auto\nquality_gates: false\nstory_driven: false\nverification:\n  type: file_exists\n";
const CAMPAIGN = "---\nsquad: marketing\n---\n# Plan: spring\n\n## Wave 1\n- [ ] T1: Research — executor: analyst\n\n## Wave 2\n- [ ] T2: Brief — executor: pm\n";
const LOGIN = "# Plan: login\n\n## Wave 1\n- [ ] S1: Login endpoint — executor: dev-junior, quality_gate: qa, story: docs/kord/plans/login/stories/s1.md\n\n## Wave 2\n- [ ] T2: Docs — executor: dev\n";
const STORY = "---\ntitle: Login\nstatus: DONE\nexecutor: dev-junior\n---\n# Login\n";
const sub = (description) => ({ mode: "subagent", description });
const CONFIG = {
  agent: {
    analyst: sub("research"), pm: sub("product"), dev: sub("implementer"), "dev-junior": sub("atomic implementer"),
    po: sub("product owner"), sm: { mode: "primary", description: "scrum master" },
  },
};

function project() {
  return makeProject({
    git: true,
    files: {
      ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" } }),
      ".opencode/squads/marketing/SQUAD.yaml": MARKETING,
      "docs/kord/plans/spring/plan.md": CAMPAIGN,
      "docs/kord/plans/login/plan.md": LOGIN,
    },
  });
}

const taskCall = (subagent, prompt) => ({ toolCalls: [{ name: "task", args: { description: "work item", subagent_type: subagent, prompt } }] });
const allResults = (mock) => mock.requests.filter((r) => !r.isTitle).flatMap((r) => toolResults(r.body));

test("the marketing squad works through both waves; the dev squad waits for @po between waves", async () => {
  const projectDir = project();
  const m = await startMockModel(sequence([
    taskCall("analyst", "T1 of docs/kord/plans/spring/plan.md"),
    { text: "SUCCESS: research written" },
    taskCall("pm", "T2 of docs/kord/plans/spring/plan.md"),
    { text: "SUCCESS: brief written" },
    { text: "campaign done" },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "run the spring campaign plan", mock: m, plugins: [PLUGIN], config: CONFIG });
    assert.equal(run.code, 0, run.stderr);
    const results = allResults(m).join("\n");
    assert.match(results, /\[NSO, plan\] work item T1 reported SUCCESS/);
    assert.match(results, /\[NSO, plan\] work item T2 reported SUCCESS/);
    assert.doesNotMatch(results, /checkpoint/);
  } finally {
    await m.close();
  }

  const d = await startMockModel(sequence([
    taskCall("dev-junior", "S1 of docs/kord/plans/login/plan.md"),
    { text: "SUCCESS: endpoint done" },
    taskCall("dev", "T2 of docs/kord/plans/login/plan.md"),
    { text: "I will ask @po." },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "run the login plan", mock: d, plugins: [PLUGIN], config: CONFIG });
    assert.equal(run.code, 0, run.stderr);
    const results = allResults(d).join("\n");
    assert.match(results, /work item S1 reported SUCCESS/);
    assert.match(results, /wave 1 ends with a checkpoint .*delegate to @po/);
    const state = JSON.parse(fs.readFileSync(path.join(projectDir, ".opencode/nso/kord-state.json"), "utf8"));
    assert.equal(state.plans.login.items.S1.outcome, "done");
    assert.equal(state.plans.login.items.T2, undefined);
  } finally {
    await d.close();
  }
});

test("story gates: dormant in the marketing plan, held in the dev plan", async () => {
  const projectDir = project();
  const mock = await startMockModel(sequence([
    { toolCalls: [{ name: "write", args: { filePath: "docs/kord/plans/spring/stories/s1.md", content: STORY } }] },
    { toolCalls: [{ name: "write", args: { filePath: "docs/kord/plans/login/stories/s1.md", content: STORY } }] },
    { text: "done" },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "write the stories", mock, agent: "sm", plugins: [PLUGIN], config: CONFIG });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(fs.existsSync(path.join(projectDir, "docs/kord/plans/spring/stories/s1.md")));
    assert.ok(!fs.existsSync(path.join(projectDir, "docs/kord/plans/login/stories/s1.md")));
    assert.match(allResults(mock).join("\n"), /NSO blocked write for @sm/);
  } finally {
    await mock.close();
  }
});
