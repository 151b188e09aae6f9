// End-to-end: Kord squads through real OpenCode with a scripted model. A marketing squad
// (tasks, no stories, no quality gates, auto checkpoints) works through its plan without a
// story gate or a checkpoint; the dev squad in the same project is still held to both.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, sequence, systemText, toolResults } from "./lib/mock-model.mjs";
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

const S1 = "S1 of docs/kord/plans/login/plan.md";
const IN_PROGRESS = "---\ntitle: Login\nstatus: IN_PROGRESS\nexecutor: dev-junior\nquality_gate: qa\n---\n# Login\n";

test("three failures block the story with a report; the fourth attempt is refused naming the rule", async () => {
  const projectDir = project();
  fs.mkdirSync(path.join(projectDir, "docs/kord/plans/login/stories"), { recursive: true });
  fs.writeFileSync(path.join(projectDir, "docs/kord/plans/login/stories/s1.md"), IN_PROGRESS);
  const m = await startMockModel(sequence([
    taskCall("dev-junior", S1), { text: "FAILURE: tests fail (1)" },
    taskCall("dev-junior", S1), { text: "FAILURE: tests fail (2)" },
    taskCall("dev-junior", S1), { text: "FAILURE: tests fail (3)" },
    taskCall("dev-junior", S1),
    { text: "moving on" },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "run the login plan", mock: m, plugins: [PLUGIN], config: CONFIG, timeoutMs: 120_000 });
    assert.equal(run.code, 0, run.stderr);
    const results = allResults(m).join("\n");
    assert.match(results, /work item S1 failed \(attempt 1 of at most 3\)/);
    assert.match(results, /S1 failed 3 times and is BLOCKED: the rule allows at most 3 attempts per item/);
    const report = fs.readFileSync(path.join(projectDir, "docs/kord/runs/login/S1-failure.md"), "utf8");
    assert.match(report, /Failures: 3/);
    assert.match(fs.readFileSync(path.join(projectDir, "docs/kord/plans/login/stories/s1.md"), "utf8"), /status: BLOCKED/);
  } finally {
    await m.close();
  }
});

test("a plan whose quality gate is its executor is refused when @plan writes it", async () => {
  const projectDir = project();
  const bad = LOGIN.replace("quality_gate: qa", "quality_gate: dev-junior");
  const m = await startMockModel(sequence([
    { toolCalls: [{ name: "write", args: { filePath: "docs/kord/plans/auth/plan.md", content: bad } }] },
    { text: "done" },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "plan the auth work", mock: m, agent: "plan", plugins: [PLUGIN], config: CONFIG });
    assert.equal(run.code, 0, run.stderr);
    assert.match(allResults(m).join("\n"), /S1 has @dev-junior as both executor and quality gate; the quality gate never equals the executor/);
    assert.ok(!fs.existsSync(path.join(projectDir, "docs/kord/plans/auth/plan.md")));
  } finally {
    await m.close();
  }
});

test("a session killed mid-wave: the next session is told the plan, wave and item, and resumes it", async () => {
  const projectDir = project();
  let child;
  let killed;
  const gone = new Promise((resolve) => (killed = resolve));
  const first = await startMockModel(sequence([
    taskCall("dev-junior", S1),
    // The subagent's first model call: the window dies here (its whole process group).
    () => {
      process.kill(-child.pid, "SIGKILL");
      killed();
      return new Promise(() => {});
    },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "run the login plan", mock: first, plugins: [PLUGIN], config: CONFIG, onSpawn: (c) => (child = c) });
    await gone;
    assert.equal(run.signal, "SIGKILL");
  } finally {
    await first.close();
  }
  const state = JSON.parse(fs.readFileSync(path.join(projectDir, ".opencode/nso/kord-state.json"), "utf8"));
  assert.ok(JSON.stringify(state).includes("S1"), "the item in flight was recorded before the kill");

  const second = await startMockModel(sequence([
    taskCall("dev", "T2 of docs/kord/plans/login/plan.md"),
    taskCall("dev-junior", S1),
    { text: "SUCCESS: endpoint done" },
    { text: "resumed" },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "continue the login plan", mock: second, plugins: [PLUGIN], config: CONFIG });
    assert.equal(run.code, 0, run.stderr);
    const firstRequest = second.requests.find((r) => !r.isTitle);
    assert.match(systemText(firstRequest.body), /Kord plan in progress: login .*wave 1, work item S1 delegated to @dev-junior .*Resume it/);
    const results = allResults(second).join("\n");
    assert.match(results, /S1 .*resume it first/);
    assert.match(results, /work item S1 reported SUCCESS/);
  } finally {
    await second.close();
  }
});
