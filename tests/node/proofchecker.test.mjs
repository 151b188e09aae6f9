// The `proofchecker` preset (seed 004) and the plan-md-only rule of `kord` (seed 002) through
// the built package, the real plugin and the CLI, on a copy of examples/proofchecker/.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import plugin from "../../plugin/nso-plugin.js";
import { makeProject, readIf, sessionCreated, chatParams, before } from "./helpers.mjs";

const core = createRequire(import.meta.url)("../../pkg/nso.js");
const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const EXAMPLE = new URL("../../examples/proofchecker/", import.meta.url).pathname;
const TODO = ".opencode/specs/TODO.md";
const STATE = ".opencode/specs/state.json";

function nso(...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Every file of examples/proofchecker, relative path → text. */
function exampleFiles(dir = EXAMPLE, prefix = "") {
  const out = {};
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + e.name;
    if (e.isDirectory()) Object.assign(out, exampleFiles(path.join(dir, e.name), `${rel}/`));
    else out[rel] = fs.readFileSync(path.join(dir, e.name), "utf8");
  }
  return out;
}

const exampleProject = () => makeProject(exampleFiles());

/** The plugin on a copy of the example; `as(agent)` gives that agent's session. */
async function start() {
  const dir = exampleProject();
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  let n = 0;
  const as = async (agent) => {
    const id = `ses_${++n}`;
    await hooks.event(sessionCreated(id));
    await hooks["chat.params"](...chatParams(id, agent));
    return {
      id,
      tool: (name, args) => hooks.tool[name].execute(args, { sessionID: id, agent, directory: dir, worktree: dir }),
      before: (tool, args) => before(hooks, id, tool, args),
    };
  };
  return { dir, hooks, as };
}

test("the package knows the preset and the schema lists it, with exceptTools", () => {
  const schema = JSON.parse(core.policySchema());
  assert.deepEqual(schema.properties.preset.enum, ["kord", "nso", "proofchecker", "none"]);
  assert.equal(schema.$defs.rule.properties.exceptTools.type, "array");
  const shipped = JSON.parse(fs.readFileSync(new URL("../../schema/policy.schema.json", import.meta.url), "utf8"));
  assert.deepEqual(shipped, schema);
});

test("the example project is valid, consistent and routes by language", () => {
  const dir = exampleProject();
  const check = nso("check", "--dir", dir);
  assert.equal(check.code, 0, check.out + check.err);
  const status = nso("status", "check", "--dir", dir);
  assert.equal(status.code, 0, status.out + status.err);
  const lean = nso("route", "--command", "/research", "--task", "258", "--dir", dir, "--json");
  assert.equal(JSON.parse(lean.out).route.agent, "lean-research-agent");
  const md = nso("route", "--command", "/plan", "--task", "259", "--dir", dir, "--json");
  assert.equal(JSON.parse(md.out).route.agent, "planner");
});

test("nso explain shows the sync-only rule and the orchestrator's rule", () => {
  const dir = exampleProject();
  let r = nso("explain", "--agent", "planner", "--tool", "edit", "--path", TODO,
    "--args", JSON.stringify({ oldString: "[RESEARCHED]", newString: "[PLANNING]" }), "--dir", dir);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, /NSO explain: policy `proofchecker` \(preset proofchecker\)/);
  assert.match(r.out, /rule proofchecker\.specs\.sync_only \(preset proofchecker\): matches, block/);
  assert.match(r.out, /message: NSO blocked edit for @planner: .*change only through NSO's atomic status sync.*Instead: move a task with the nso_status_set tool/);
  r = nso("explain", "--agent", "orchestrator", "--command", "echo 'theorem t : True := trivial' > Logos/T.lean", "--dir", dir);
  assert.equal(r.code, 1);
  assert.match(r.out, /decision: block by proofchecker\.orchestrator\.delegates/);
  r = nso("explain", "--agent", "lean-implementation-agent", "--path", "Logos/Semantics/Truth.lean", "--dir", dir);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /agent: "lean-implementation-agent" is @lean-implementation-agent/);
  assert.match(r.out, /decision: allow by proofchecker\.src\.write/);
  // OpenCode names an agent in .opencode/agent/subagents/ "subagents/<name>": an alias.
  r = nso("explain", "--agent", "subagents/lean-research-agent", "--path", ".opencode/specs/258_x/reports/r.md", "--dir", dir);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /is @lean-research-agent/);
});

test("nso explain shows kord's plan-md-only rule", () => {
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}' });
  let r = nso("explain", "--agent", "plan", "--path", "docs/kord/plans/auth/drafts/login.ts", "--dir", dir);
  assert.equal(r.code, 1);
  assert.match(r.out, /rule kord\.plan\.md_only \(preset kord\): matches, block/);
  assert.match(r.out, /message: NSO blocked write for @plan: (?:writing|creating) docs\/kord\/plans\/auth\/drafts\/login\.ts\. Rule kord\.plan\.md_only \(preset kord\): the planner never writes code/);
  r = nso("explain", "--agent", "plan", "--command", "echo x > docs/kord/plans/auth/run.sh", "--dir", dir);
  assert.equal(r.code, 1);
  assert.match(r.out, /decision: block by kord\.plan\.md_only/);
  r = nso("explain", "--agent", "plan", "--path", "docs/kord/plans/auth/drafts/login.md", "--dir", dir);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /rule kord\.plan\.md_only \(preset kord\): path matches but is excepted/);
});

test("a ProofChecker agent moves its task with nso_status_set; other roles and direct edits are refused", async () => {
  const { dir, as } = await start();
  const todoBefore = readIf(dir, TODO);
  const stateBefore = readIf(dir, STATE);

  // Direct edits of TODO.md and state.json: refused for every role, nothing written.
  const planner = await as("lean-planner");
  let refusal = await planner.before("edit", { filePath: TODO, oldString: "[RESEARCHED]", newString: "[PLANNING]" });
  assert.match(refusal ?? "", /^NSO blocked edit for @lean-planner: writing \.opencode\/specs\/TODO\.md\. Rule proofchecker\.specs\.sync_only/);
  refusal = await planner.before("bash", { command: "sed -i 's/researched/planning/' .opencode/specs/state.json" });
  assert.match(refusal ?? "", /Rule proofchecker\.specs\.sync_only/);

  // The wrong role through the tool: the machine's role gate names who may.
  const researcher = await as("researcher");
  let out = await researcher.tool("nso_status_set", { task: 258, status: "PLANNING", artifacts: [] });
  assert.match(out, /^NSO nso_status_set refused for @researcher: .*\[RESEARCHED\].*\[PLANNING\].*@planner or @lean-planner/s);
  assert.equal(readIf(dir, TODO), todoBefore);
  assert.equal(readIf(dir, STATE), stateBefore);

  // The right role: both files move together.
  out = await planner.tool("nso_status_set", { task: 258, status: "PLANNING", artifacts: [] });
  assert.doesNotMatch(out, /refused/, out);
  assert.match(readIf(dir, TODO), /### 258\.[^#]*\*\*Status\*\*: \[PLANNING\]/);
  const task = JSON.parse(readIf(dir, STATE)).active_projects.find((p) => p.project_number === 258);
  assert.equal(task.status, "planning");

  // The planner writes its plan, then links it on the way to [PLANNED].
  const plan = ".opencode/specs/258_resolve_truth_lean_sorries/plans/implementation-001.md";
  assert.equal(await planner.before("write", { filePath: plan, content: "# Plan\n" }), null);
  fs.mkdirSync(path.dirname(path.join(dir, plan)), { recursive: true });
  fs.writeFileSync(path.join(dir, plan), "# Plan\n\n## Phase 1\n");
  out = await planner.tool("nso_status_set", { task: 258, status: "PLANNED", artifacts: [plan] });
  assert.doesNotMatch(out, /refused/, out);
  assert.match(readIf(dir, TODO), /\*\*Status\*\*: \[PLANNED\]/);
  assert.ok(JSON.parse(readIf(dir, STATE)).active_projects.find((p) => p.project_number === 258).artifacts.includes(plan));
});

test("new tasks and archiving are for their owners; the orchestrator delegates and never writes", async () => {
  const { dir, as } = await start();
  const executor = await as("task-executor");
  let out = await executor.tool("nso_task_new", { title: "Prove completeness of K", description: "", priority: "Low", language: "lean", effort: "", dependencies: [] });
  assert.doesNotMatch(out, /refused/, out);
  assert.match(readIf(dir, TODO), /### 260\. Prove completeness of K/);
  const researcher = await as("researcher");
  out = await researcher.tool("nso_task_new", { title: "Another", description: "", priority: "Low", language: "lean", effort: "", dependencies: [] });
  assert.match(out, /refused for @researcher/);

  const orchestrator = await as("orchestrator");
  const refusal = await orchestrator.before("write", { filePath: "Logos/Semantics/Truth.lean", content: "-- proofs\n" });
  assert.match(refusal ?? "", /Rule proofchecker\.orchestrator\.delegates \(preset proofchecker\): the orchestrator delegates: it routes each command to a subagent and never writes files itself/);
  assert.equal(await orchestrator.before("task", { description: "research 259", prompt: "Task: 259", subagent_type: "researcher" }), null);
  assert.equal(await orchestrator.before("read", { filePath: TODO }), null);
});

test("agents in the seed's .opencode/agent/subagents/ folder (OpenCode: subagents/<name>) are the same roles", async () => {
  const { dir, as } = await start();
  const planner = await as("subagents/lean-planner");
  const out = await planner.tool("nso_status_set", { task: 258, status: "PLANNING", artifacts: [] });
  assert.doesNotMatch(out, /refused/, out);
  assert.match(readIf(dir, TODO), /### 258\.[^#]*\*\*Status\*\*: \[PLANNING\]/);
  const researcher = await as("subagents/researcher");
  assert.equal(await researcher.before("write", { filePath: ".opencode/specs/259_document_the_routing_table/reports/research-001.md", content: "# Report\n" }), null);
  const refusal = await researcher.before("write", { filePath: "Logos/Semantics/Truth.lean", content: "" });
  // Called by the name the project uses, as are the agents it may suggest.
  assert.match(refusal ?? "", /^NSO blocked write for @subagents\/researcher:/);
});
