// Kord's workflow contracts through the real plugin and the CLI: squads, plans checked when
// written, story gates dormant outside story-driven plans, the orchestrator's delegation rules,
// wave checkpoints and the state a new session resumes from.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import plugin from "../../plugin/nso-plugin.js";
import { makeProject, readIf, sessionCreated, chatParams, before } from "./helpers.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const CONFIG = JSON.stringify({ authority: { preset: "kord" } });
const MARKETING = "name: marketing\nagents: [pm, analyst]\nplan_type: task\ncheckpoint_mode: auto\nquality_gates: false\nstory_driven: false\nplan_template: |\n  # Campaign: {{title}}\nverification:\n  type: file_exists\n";
const DEV_PLAN = "# Plan: login\n\n## Wave 1\n- [ ] S1: Login endpoint — executor: dev-junior, quality_gate: qa, story: docs/kord/plans/login/stories/s1.md\n- [ ] T1: Schema — executor: data-engineer\n\n## Wave 2\n- [ ] T2: Docs — executor: dev\n";
const CAMPAIGN = "---\nsquad: marketing\n---\n# Plan: spring\n\n## Wave 1\n- [ ] T1: Research — executor: analyst\n\n## Wave 2\n- [ ] T2: Brief — executor: pm\n";
const STORY = "---\ntitle: Login\nstatus: DONE\nexecutor: dev-junior\n---\n# Login\n";

function explain(dir, agent, tool, args, rel) {
  const argv = [CLI, "explain", "--agent", agent, "--tool", tool, "--args", JSON.stringify(args), "--dir", dir];
  if (rel) argv.push("--path", rel);
  const r = spawnSync(process.execPath, argv, { encoding: "utf8" });
  return { code: r.status, out: r.stdout + r.stderr };
}

test("nso explain: a plan whose quality gate is its executor is refused when written", () => {
  const dir = makeProject({ ".opencode/nso.json": CONFIG });
  const bad = DEV_PLAN.replace("quality_gate: qa", "quality_gate: dev-junior");
  let r = explain(dir, "plan", "write", { content: bad }, "docs/kord/plans/login/plan.md");
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /S1 has @dev-junior as both executor and quality gate; the quality gate never equals the executor/);
  r = explain(dir, "plan", "write", { content: DEV_PLAN }, "docs/kord/plans/login/plan.md");
  assert.equal(r.code, 0, r.out);
});

test("nso explain: story gates are dormant in a marketing plan and hold in a dev plan", () => {
  const files = {
    ".opencode/nso.json": CONFIG, ".opencode/squads/marketing/SQUAD.yaml": MARKETING,
    "docs/kord/plans/spring/plan.md": CAMPAIGN, "docs/kord/plans/login/plan.md": DEV_PLAN,
  };
  const dir = makeProject(files);
  // A story created straight in DONE: the story machine refuses it in the dev plan only.
  let r = explain(dir, "sm", "write", { content: STORY }, "docs/kord/plans/login/stories/s1.md");
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /DRAFT/);
  r = explain(dir, "sm", "write", { content: STORY }, "docs/kord/plans/spring/stories/s1.md");
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /dormant/);
});

test("a project without squads or plans keeps the story gates as before", () => {
  const dir = makeProject({ ".opencode/nso.json": CONFIG });
  const r = explain(dir, "sm", "write", { content: STORY }, "docs/kord/plans/spring/stories/s1.md");
  assert.equal(r.code, 1, r.out);
});

test("nso explain: a delegation to another agent than the item's executor is refused", () => {
  const dir = makeProject({ ".opencode/nso.json": CONFIG, "docs/kord/plans/login/plan.md": DEV_PLAN });
  const r = explain(dir, "build", "task", { subagent_type: "dev", prompt: "Do T1 of docs/kord/plans/login/plan.md" });
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /kord\.executor_from_plan: work item T1 names its executor: @data-engineer; delegate it to @data-engineer/);
});

async function start(files) {
  const dir = makeProject({ ".opencode/nso.json": CONFIG, ...files });
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.event(sessionCreated("s0"));
  await hooks["chat.params"](...chatParams("s0", "build"));
  return { dir, hooks };
}

let call = 0;
async function delegate(hooks, target, prompt, output) {
  const args = { description: "work", prompt, subagent_type: target };
  const callID = `c${++call}`;
  try {
    await hooks["tool.execute.before"]({ tool: "task", sessionID: "s0", callID }, { args });
  } catch (error) {
    return { refused: String(error.message) };
  }
  const out = { output, metadata: { sessionId: `child${call}` } };
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s0", callID, args }, out);
  return { output: out.output };
}

test("plugin: one item in flight, three failures block the story with a report, a fourth attempt is refused", async () => {
  const story = "---\ntitle: Login\nstatus: IN_PROGRESS\nexecutor: dev-junior\nquality_gate: qa\n---\n# Login\n";
  const { dir, hooks } = await start({ "docs/kord/plans/login/plan.md": DEV_PLAN, "docs/kord/plans/login/stories/s1.md": story });
  const prompt = "S1 of docs/kord/plans/login/plan.md";
  // A second delegation while the first is in flight.
  const args = { description: "w", prompt, subagent_type: "dev-junior" };
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s0", callID: "open" }, { args });
  const second = await before(hooks, "s0", "task", { description: "w", prompt: "T1", subagent_type: "data-engineer" });
  assert.match(second, /one work item at a time: S1 \(@dev-junior\) is in flight/);
  const out = { output: "FAILURE: tests fail (1)" };
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s0", callID: "open", args }, out);
  assert.match(out.output, /\[NSO, plan\] work item S1 failed \(attempt 1 of at most 3\)/);
  for (const n of [2, 3]) {
    const r = await delegate(hooks, "dev-junior", prompt, `FAILURE: tests fail (${n})`);
    assert.ok(r.output, r.refused);
  }
  const report = readIf(dir, "docs/kord/runs/login/S1-failure.md");
  assert.match(report, /Failures: 3/);
  assert.match(report, /tests fail \(3\)/);
  assert.match(readIf(dir, "docs/kord/plans/login/stories/s1.md"), /status: BLOCKED[\s\S]*## Blockers/);
  const fourth = await delegate(hooks, "dev-junior", prompt, "SUCCESS");
  assert.match(fourth.refused, /kord|S1 failed 3 times and is BLOCKED: the rule allows at most 3 attempts per item/);
  assert.match(fourth.refused, /the next open work item is T1/);
});

test("plugin: interactive waves wait for @po; auto waves do not", async () => {
  const { hooks } = await start({ "docs/kord/plans/login/plan.md": DEV_PLAN });
  const p = "docs/kord/plans/login/plan.md";
  assert.ok((await delegate(hooks, "dev-junior", `S1 of ${p}`, "SUCCESS")).output);
  assert.ok((await delegate(hooks, "data-engineer", "T1", "SUCCESS")).output);
  const early = await delegate(hooks, "dev", "T2", "SUCCESS");
  assert.match(early.refused, /wave 1 ends with a checkpoint .*delegate to @po/);
  const po = await delegate(hooks, "po", "wave 1 report", "Decision: GO");
  assert.match(po.output, /checkpoint of wave 1 recorded: GO/);
  assert.ok((await delegate(hooks, "dev", "T2", "SUCCESS")).output);

  const m = await start({ ".opencode/squads/marketing/SQUAD.yaml": MARKETING, "docs/kord/plans/spring/plan.md": CAMPAIGN });
  assert.ok((await delegate(m.hooks, "analyst", "T1 of docs/kord/plans/spring/plan.md", "SUCCESS")).output);
  const next = await delegate(m.hooks, "pm", "T2", "SUCCESS");
  assert.ok(next.output, next.refused);
});

test("plugin: a new session is told the plan, wave and item in flight and may resume it", async () => {
  const { dir, hooks } = await start({ "docs/kord/plans/login/plan.md": DEV_PLAN });
  const args = { description: "w", prompt: "S1 of docs/kord/plans/login/plan.md", subagent_type: "dev-junior" };
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s0", callID: "lost" }, { args });
  // The process dies here; a new plugin instance starts from the files alone.
  const again = await plugin.server({ directory: dir, worktree: dir });
  await again.event(sessionCreated("s9"));
  const out = { system: [] };
  await again["experimental.chat.system.transform"]({ sessionID: "s9" }, out);
  assert.match(out.system.join("\n"), /Kord plan in progress: login .*wave 1, work item S1 delegated to @dev-junior .*Resume it: delegate S1 to @dev-junior again/);
  await again["chat.params"](...chatParams("s9", "build"));
  const other = await before(again, "s9", "task", { description: "w", prompt: "T1", subagent_type: "data-engineer" });
  assert.match(other, /S1 .*resume it first/);
  assert.equal(await before(again, "s9", "task", args), null);
});

test("plugin: a story path that leads out of the project is never read or written by NSO", async () => {
  const inside = "---\ntitle: Login\nstatus: IN_PROGRESS\nexecutor: dev-junior\nquality_gate: qa\n---\n# Login\n";
  const { dir, hooks } = await start({ "docs/kord/plans/login/stories/s1.md": inside });
  const outsideDir = fs.mkdtempSync(path.join(path.dirname(dir), "nso-outside-"));
  const outside = path.join(outsideDir, "s1.md");
  fs.writeFileSync(outside, inside);
  const rel = path.relative(dir, outside);
  for (const story of [rel, outside, "docs/kord/../../" + rel]) {
    const plan = DEV_PLAN.replace("story: docs/kord/plans/login/stories/s1.md", `story: ${story}`);
    fs.writeFileSync(path.join(dir, "docs/kord/plans/login/plan.md"), plan);
    fs.rmSync(path.join(dir, ".opencode/nso"), { recursive: true, force: true, maxRetries: 3 }); // a fresh plan run
    for (const n of [1, 2, 3]) await delegate(hooks, "dev-junior", "S1 of docs/kord/plans/login/plan.md", `FAILURE: tests fail (${n})`);
    assert.equal(fs.readFileSync(outside, "utf8"), inside, `the file out of the project is untouched (story: ${story})`);
  }
});
