// NSO's custom tools (plugin/nso-tools.js) through the real plugin: arguments checked,
// files rendered from (project) templates and parsed back, writes checked by the engine.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import plugin from "../../plugin/nso-plugin.js";
import { makeProject, readIf } from "./helpers.mjs";

const workflow = createRequire(import.meta.url)("../../pkg/nso_workflow.js");
const ID = "build_20261122_login_ab12cd";
const DIR = `.opencode/context/active_tasks/${ID}`;
const CONTRACT = `# Task Contract: ${ID}\n\n- Agent: general\n- Workflow: build\n\n## Objective\nWrite src/login.ts.\n`;

async function tools(files = {}) {
  const dir = makeProject(files);
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  const call = (name, args, agent = "oracle") => hooks.tool[name].execute(args, { sessionID: "ses_1", agent, directory: dir, worktree: dir });
  return { dir, hooks, call };
}

const contractArgs = { agent: "general", workflow: "build", title: "Login form", objective: "Add a login form.",
  success_criteria: ["the form renders"], context_files: ["src/app.ts"] };

test("every tool has the core's description and plain JSON Schema arguments", async () => {
  const { hooks } = await tools({
    ".opencode/specs/TODO.md": "# TODO\n", ".opencode/command/research.md": "# /research\n", ".opencode/nso/mind/observations.jsonl": "",
  });
  assert.deepEqual(Object.keys(hooks.tool).sort(), ["nso_claim", "nso_claims", "nso_contract", "nso_decide", "nso_decisions", "nso_handoff", "nso_insight",
    "nso_release", "nso_report_questions", "nso_report_result", "nso_report_status", "nso_route", "nso_status_set", "nso_task_archive",
    "nso_task_new"]);
  const table = new Map(createRequire(import.meta.url)("../../pkg/nso.js").toolTable().map((t) => [t.name, t.description]));
  for (const [name, t] of Object.entries(hooks.tool)) {
    assert.equal(t.description, table.get(name), name);
    assert.ok(t.description.length > 20 && t.description.length <= 100, name);
    for (const [arg, schema] of Object.entries(t.args)) {
      assert.ok(typeof schema.type === "string", `${name}.${arg}`);
      assert.equal(schema._zod, undefined);
    }
  }
});

test("a project gets only the groups it can use", async () => {
  const { hooks } = await tools();
  assert.deepEqual(Object.keys(hooks.tool).sort(), ["nso_claim", "nso_claims", "nso_contract", "nso_decide", "nso_decisions", "nso_handoff",
    "nso_release", "nso_report_questions", "nso_report_result", "nso_report_status"]);
  const quiet = await tools({ ".opencode/nso.json": JSON.stringify({ conductor: { mode: "off" }, continuity: { enabled: false } }) });
  assert.deepEqual(Object.keys(quiet.hooks.tool).sort(), ["nso_contract", "nso_report_questions", "nso_report_result", "nso_report_status"]);
});

test("OpenCode's config: a primary agent gets no reports, a subagent no contract, the person's settings win", async () => {
  const { hooks } = await tools({ "opencode.json": JSON.stringify({ agent: { janitor: { mode: "subagent" } } }) });
  const config = { agent: { build: { permission: { nso_report_status: "allow" } } } };
  await hooks.config(config);
  assert.equal(config.agent.build.permission.nso_report_status, "allow");
  assert.equal(config.agent.build.permission.nso_report_result, "deny");
  assert.equal(config.agent.build.permission.nso_contract, undefined);
  assert.equal(config.agent.plan.permission.nso_contract, "deny", "plan may not write contracts");
  assert.equal(config.agent.general.permission.nso_contract, "deny");
  assert.equal(config.agent.janitor.permission.nso_contract, "deny");
  assert.equal(config.agent.janitor.permission.nso_report_result, undefined, "every agent writes its reports");
});

test("nso_contract writes a contract and a PENDING status that parse back", async () => {
  const { dir, call } = await tools();
  const out = await call("nso_contract", contractArgs);
  const id = out.match(/Created task (\S+) for @general/)?.[1];
  assert.ok(id, out);
  assert.match(id, /^build_\d{8}_login-form_[a-z0-9]{6}$/);
  const c = JSON.parse(workflow.parseTaskFile("contract", readIf(dir, `.opencode/context/active_tasks/${id}/contract.md`)));
  assert.deepEqual([c.task_id, c.agent, c.workflow, c.delegated_by, c.objective], [id, "general", "build", "oracle", "Add a login form."]);
  assert.deepEqual(c.context_files, ["src/app.ts"]);
  const s = JSON.parse(workflow.parseTaskFile("status", readIf(dir, `.opencode/context/active_tasks/${id}/status.md`)));
  assert.equal(s.status, "PENDING");
  // Two contracts never share an id.
  const again = await call("nso_contract", contractArgs);
  assert.notEqual(again.match(/Created task (\S+)/)[1], id);
  // OpenCode's own build agent orchestrates too.
  assert.match(await call("nso_contract", contractArgs, "build"), /^Created task \S+ for @general/);
});

test("bad arguments and refused writes leave nothing behind", async () => {
  const { dir, call } = await tools();
  let out = await call("nso_contract", { ...contractArgs, success_criteria: [] });
  assert.match(out, /^NSO nso_contract refused for @oracle: give at least one success criterion/);
  out = await call("nso_contract", { ...contractArgs, title: 42 });
  assert.match(out, /argument `title` must be a string/);
  // @janitor is read-only in the nso preset: the engine refuses the contract files.
  out = await call("nso_contract", contractArgs, "janitor");
  assert.match(out, /^NSO nso_contract refused for @janitor: NSO blocked write for @janitor/);
  assert.match(out, /Nothing was written\.$/);
  assert.equal(fs.existsSync(path.join(dir, ".opencode/context/active_tasks")), false);
});

test("a project template is used; one that cannot be parsed back is refused, naming it", async () => {
  const custom = "# Task Contract: {{task_id}}\n\n> Team rule: small pull requests.\n\n| Field | Value |\n|---|---|\n| Agent | {{agent}} |\n| Workflow | {{workflow}} |\n| Created | {{timestamp}} |\n\n## Objective\n{{objective}}\n\n## Success Criteria\n{{criteria_list}}\n";
  const { dir, call } = await tools({ ".opencode/nso/templates/contract.md": custom });
  const out = await call("nso_contract", contractArgs);
  const id = out.match(/Created task (\S+)/)?.[1];
  assert.ok(id, out);
  assert.match(readIf(dir, `.opencode/context/active_tasks/${id}/contract.md`), /Team rule: small pull requests/);

  const broken = await tools({ ".opencode/nso/templates/status.md": "Status is {{state}}\n" });
  const refused = await broken.call("nso_contract", contractArgs);
  assert.match(refused, /\.opencode\/nso\/templates\/status\.md cannot be rendered: .*unknown variable `state`/);
  assert.equal(fs.existsSync(path.join(broken.dir, ".opencode/context/active_tasks")), false);
});

test("nso_report_status follows the nso-task machine", async () => {
  const { dir, call } = await tools({ [`${DIR}/contract.md`]: CONTRACT, [`${DIR}/status.md`]: `# Task Status: ${ID}\n\n- Status: PENDING\n` });
  let out = await call("nso_report_status", { task_id: ID, status: "COMPLETE", current_step: "done", completed: [], remaining: [], artifacts: [] }, "general");
  assert.match(out, /moves task from PENDING to COMPLETE, which is not a legal transition\. From PENDING the legal next states are IN_PROGRESS \(by @builder, @dev or @dev-junior\) and BLOCKED \(by @builder, @dev or @dev-junior\)/);
  assert.match(readIf(dir, `${DIR}/status.md`), /Status: PENDING/);
  out = await call("nso_report_status", { task_id: ID, status: "IN_PROGRESS", current_step: "writing tests", completed: ["read the contract"], remaining: ["write the handler"], artifacts: [] }, "general");
  assert.match(out, /Updated .*status\.md: IN_PROGRESS/);
  const s = JSON.parse(workflow.parseTaskFile("status", readIf(dir, `${DIR}/status.md`)));
  assert.deepEqual([s.status, s.current_step, s.remaining[0].text], ["IN_PROGRESS", "writing tests", "write the handler"]);
});

test("reports need a real task: a malformed id or a missing contract is refused", async () => {
  const { call } = await tools();
  let out = await call("nso_report_questions", { task_id: "../../etc", questions: ["q?"], understood: "", unclear: "" }, "general");
  assert.match(out, /`\.\.\/\.\.\/etc` is not a task id/);
  out = await call("nso_report_questions", { task_id: ID, questions: ["q?"], understood: "", unclear: "" }, "general");
  assert.match(out, /there is no contract for task/);
});

test("nso_report_questions and nso_report_result write files the delegation check reads", async () => {
  const { dir, call } = await tools({ [`${DIR}/contract.md`]: CONTRACT, "src/login.ts": "export {};\n" });
  const q = await call("nso_report_questions", { task_id: ID, questions: ["Which provider?", "Which port?"], understood: "A login.", unclear: "The provider." }, "general");
  assert.match(q, /2 question\(s\)/);
  const parsed = JSON.parse(workflow.parseTaskFile("questions", readIf(dir, `${DIR}/questions.md`)));
  assert.deepEqual(parsed.questions, ["Which provider?", "Which port?"]);
  const empty = makeProject({ "src/empty.ts": "" });
  assert.ok(empty);
  let r = await call("nso_report_result", { task_id: ID, status: "COMPLETE", deliverables: [], notes: "" }, "general");
  assert.match(r, /a COMPLETE result lists at least one deliverable/);
  r = await call("nso_report_result", { task_id: ID, status: "COMPLETE", deliverables: ["src/login.ts", "../outside.ts"], notes: "" }, "general");
  assert.match(r, /\.\.\/outside\.ts is outside the project/);
  r = await call("nso_report_result", { task_id: ID, status: "DONE", deliverables: ["src/login.ts"], notes: "" }, "general");
  assert.match(r, /status must be one of COMPLETE, FAILED/);
  r = await call("nso_report_result", { task_id: ID, status: "COMPLETE", deliverables: ["src/login.ts"], notes: "All good." }, "general");
  assert.match(r, /Wrote .*result\.md: COMPLETE, 1 deliverable/);
  const res = JSON.parse(workflow.parseTaskFile("result", readIf(dir, `${DIR}/result.md`)));
  assert.deepEqual([res.status, res.deliverables[0].path], ["COMPLETE", "src/login.ts"]);
});

test("nso_route names the agent for a command and a task", async () => {
  const cmd = "---\nname: research\nrouting:\n  language_based: true\n  lean: lean-research-agent\n  default: researcher\n---\n# /research\n";
  const { call } = await tools({
    ".opencode/command/research.md": cmd,
    ".opencode/specs/state.json": JSON.stringify({ active_projects: [{ project_number: 258, language: "lean", status: "researched" }] }),
  });
  assert.match(await call("nso_route", { command: "/research", task: "258" }), /@lean-research-agent — language lean \(from state_json\)/);
  assert.match(await call("nso_route", { command: "/research", task: "9" }), /@researcher — language general/);
});

test("`tools` in .opencode/nso.json adds, leaves out, narrows per agent, or offers none", async () => {
  const some = await tools({ ".opencode/nso.json": JSON.stringify({ tools: { include: ["status"], exclude: ["nso_task_archive", "claims"] } }) });
  assert.deepEqual(Object.keys(some.hooks.tool).sort(), ["nso_contract", "nso_decide", "nso_decisions", "nso_handoff", "nso_report_questions",
    "nso_report_result", "nso_report_status", "nso_status_set", "nso_task_new"]);
  const narrow = await tools({ ".opencode/nso.json": JSON.stringify({ tools: { perAgent: { build: ["continuity"] } } }) });
  const config = {};
  await narrow.hooks.config(config);
  assert.deepEqual(Object.keys(config.agent.build.permission).sort(), ["nso_claim", "nso_claims", "nso_contract", "nso_release",
    "nso_report_questions", "nso_report_result", "nso_report_status"]);
  const none = await tools({ ".opencode/nso.json": JSON.stringify({ tools: { enabled: false } }) });
  assert.deepEqual(none.hooks.tool, {});
  const wrong = await tools({ ".opencode/nso.json": JSON.stringify({ tools: { include: ["stauts"] } }) });
  assert.deepEqual(wrong.hooks.tool, {}, "a broken config offers no tool");
});
