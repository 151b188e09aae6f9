// End-to-end (issues 4 and 5): NSO's own tools through real OpenCode. The orchestrator
// creates a contract, delegates with its id, the subagent reports through the tools, and
// NSO's check after the task reaches the orchestrator. Status machines refuse an illegal
// move made with the edit tool, and the atomic status tool moves TODO.md and state.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { startMockModel, sequence, toolNames, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const workflow = createRequire(import.meta.url)("../../pkg/nso_workflow.js");
const ORACLE = { agent: { oracle: { mode: "primary", prompt: "You orchestrate and delegate." } } };
const TASK_ID = /\b[a-z]+_\d{8}_[a-z0-9-]+_[a-z0-9]{6}\b/;

const lastResult = (req) => toolResults(req.body ?? req).at(-1) ?? "";

async function run(steps, opts) {
  const mock = await startMockModel(sequence(steps));
  try {
    const r = await runOpencode({ prompt: "go", mock, plugins: [PLUGIN], timeoutMs: 90_000, ...opts });
    assert.equal(r.code, 0, r.stderr);
    return { calls: mock.requests.filter((q) => !q.isTitle) };
  } finally {
    await mock.close();
  }
}

test("the delegation loop: nso_contract, task, nso_report_questions, the questions note", async () => {
  const projectDir = makeProject({ git: true });
  let taskId;
  const { calls } = await run([
    { toolCalls: [{ name: "nso_contract", args: { agent: "general", workflow: "build", title: "Login form",
      objective: "Add a login form to the web app.", success_criteria: ["the form renders", "bad passwords are refused"], context_files: [] } }] },
    (req) => {
      taskId = lastResult(req).match(TASK_ID)?.[0];
      return { toolCalls: [{ name: "task", args: { description: "login form", subagent_type: "general",
        prompt: `Task ${taskId}. Read .opencode/context/active_tasks/${taskId}/contract.md first.` } }] };
    },
    (req) => ({ toolCalls: [{ name: "nso_report_questions", args: { task_id: JSON.stringify(req.messages).match(TASK_ID)?.[0],
      questions: ["Which OAuth provider should the login use?"], understood: "A login form.", unclear: "The identity provider." } }] }),
    { text: "I asked my questions and stopped." },
    { text: "I will ask the user." },
  ], { projectDir, agent: "oracle", config: ORACLE });

  assert.ok(taskId, "nso_contract returned a task id");
  assert.ok(toolNames(calls[0]).includes("nso_contract"), toolNames(calls[0]).join(","));
  const dir = path.join(projectDir, ".opencode/context/active_tasks", taskId);
  const contract = JSON.parse(workflow.parseTaskFile("contract", fs.readFileSync(path.join(dir, "contract.md"), "utf8")));
  assert.equal(contract.task_id, taskId);
  assert.equal(contract.agent, "general");
  assert.deepEqual(contract.success_criteria.map((c) => c.text), ["the form renders", "bad passwords are refused"]);
  const status = JSON.parse(workflow.parseTaskFile("status", fs.readFileSync(path.join(dir, "status.md"), "utf8")));
  assert.equal(status.status, "PENDING");
  const questions = JSON.parse(workflow.parseTaskFile("questions", fs.readFileSync(path.join(dir, "questions.md"), "utf8")));
  assert.deepEqual(questions.questions, ["Which OAuth provider should the login use?"]);

  const parentResults = toolResults(calls.at(-1).body);
  const note = parentResults.find((r) => r.includes(`[NSO, task ${taskId}]`));
  assert.ok(note, JSON.stringify(parentResults));
  assert.match(note, /Which OAuth provider should the login use\?/);
});

test("nso_report_result refuses a phantom deliverable, then accepts the real one", async () => {
  const id = "build_20261122_login_ab12cd";
  const folder = `.opencode/context/active_tasks/${id}`;
  const projectDir = makeProject({ git: true, files: {
    [`${folder}/contract.md`]: `# Task Contract: ${id}\n\n- Agent: general\n- Workflow: build\n\n## Objective\nWrite src/login.ts.\n`,
    [`${folder}/status.md`]: `# Task Status: ${id}\n\n- Status: IN_PROGRESS\n`,
  } });
  const report = { name: "nso_report_result", args: { task_id: id, status: "COMPLETE", deliverables: ["src/login.ts"], notes: "Login handler written." } };
  // The report tools are a subagent's: @build delegates the task to @general, which reports.
  const { calls } = await run([
    { toolCalls: [{ name: "task", args: { description: "login", subagent_type: "general", prompt: `Task ${id}: write src/login.ts` } }] },
    { toolCalls: [report] },
    { toolCalls: [{ name: "write", args: { filePath: "src/login.ts", content: "export const login = () => true;\n" } }] },
    { toolCalls: [report] },
    { text: "done" },
    { text: "done" },
  ], { projectDir, agent: "build" });
  const results = toolResults(calls.at(-2).body);
  assert.match(results[0], /NSO nso_report_result refused for @general: the deliverables are not all there: src\/login\.ts does not exist/);
  assert.match(results[2], /Wrote .*result\.md: COMPLETE, 1 deliverable/);
  const result = JSON.parse(workflow.parseTaskFile("result", fs.readFileSync(path.join(projectDir, folder, "result.md"), "utf8")));
  assert.equal(result.status, "COMPLETE");
  assert.deepEqual(result.deliverables.map((d) => d.path), ["src/login.ts"]);
});

test("an illegal status move made with edit is refused, naming the legal next states", async () => {
  const id = "build_20261122_login_ab12cd";
  const file = `.opencode/context/active_tasks/${id}/status.md`;
  const before = `# Task Status: ${id}\n\n- Status: PENDING\n- Last Update: 2026-11-22T10:00:00Z\n`;
  const projectDir = makeProject({ git: true, files: { [file]: before } });
  const { calls } = await run([
    { toolCalls: [{ name: "read", args: { filePath: file } }] },
    { toolCalls: [{ name: "edit", args: { filePath: file, oldString: "- Status: PENDING", newString: "- Status: COMPLETE" } }] },
    { toolCalls: [{ name: "edit", args: { filePath: file, oldString: "- Status: PENDING", newString: "- Status: IN_PROGRESS" } }] },
    { text: "done" },
  ], { projectDir, agent: "build" });
  const results = toolResults(calls.at(-1).body);
  const refusal = results.find((r) => r.startsWith("NSO blocked edit for @build"));
  assert.ok(refusal, JSON.stringify(results));
  assert.match(refusal, /moves task from PENDING to COMPLETE, which is not a legal transition/);
  assert.match(refusal, /From PENDING the legal next states are IN_PROGRESS \(by @builder, @dev or @dev-junior\) and BLOCKED \(by @builder, @dev or @dev-junior\)/);
  assert.match(fs.readFileSync(path.join(projectDir, file), "utf8"), /- Status: IN_PROGRESS/, "the legal move went through");
});

test("nso_status_set moves TODO.md and state.json together, and refuses an illegal move", async () => {
  const fixture = (name) => fs.readFileSync(new URL(`../../crate/tests/fixtures/status/${name}`, import.meta.url), "utf8");
  const projectDir = makeProject({ git: true, files: {
    ".opencode/nso.json": JSON.stringify({ authority: { preset: "nso", agents: { planner: { like: "builder" } } } }),
    ".opencode/specs/TODO.md": fixture("TODO.md"),
    ".opencode/specs/state.json": fixture("state.json"),
  } });
  const before = ["TODO.md", "state.json"].map((f) => fs.readFileSync(path.join(projectDir, ".opencode/specs", f), "utf8"));
  const { calls } = await run([
    { toolCalls: [{ name: "nso_status_set", args: { task: 258, status: "COMPLETED", artifacts: [] } }] },
    { toolCalls: [{ name: "nso_status_set", args: { task: 258, status: "PLANNING", artifacts: [] } }] },
    { text: "done" },
  ], { projectDir, agent: "planner", config: { agent: { planner: { mode: "primary", prompt: "You plan." } } } });
  const results = toolResults(calls.at(-1).body);
  assert.match(results[0], /^NSO nso_status_set refused for @planner: .*\[RESEARCHED\].*\[COMPLETED\]/);
  assert.match(results[0], /legal next state/);
  assert.match(results[1], /258/);
  const after = ["TODO.md", "state.json"].map((f) => fs.readFileSync(path.join(projectDir, ".opencode/specs", f), "utf8"));
  assert.notEqual(after[0], before[0]);
  assert.notEqual(after[1], before[1]);
  assert.match(after[0], /### 258\.[^#]*\*\*Status\*\*: \[PLANNING\]/);
  const task = JSON.parse(after[1]).active_projects.find((p) => p.project_number === 258);
  assert.equal(task.status, "planning");
});
