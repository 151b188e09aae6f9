// End-to-end (issue 9, item 3): the `proofchecker` preset through real OpenCode, on a copy of
// examples/proofchecker/. The orchestrator may not edit TODO.md and delegates /plan 258 to
// @lean-planner, which moves the task with nso_status_set (TODO.md and state.json together),
// writes its plan and links it; its own direct edit of TODO.md is refused; the orchestrator's
// attempt at a move that is not its role is refused by the status machine.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, sequence, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const EXAMPLE = fileURLToPath(new URL("../../examples/proofchecker/", import.meta.url));
const TODO = ".opencode/specs/TODO.md";
const STATE = ".opencode/specs/state.json";
const PLAN = ".opencode/specs/258_resolve_truth_lean_sorries/plans/implementation-001.md";

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

/** The result of the call the model made last, as the model read it in `req`. */
const lastResult = (req) => toolResults(req).at(-1) ?? "";

test("a ProofChecker agent moves its task with nso_status_set; direct edits and wrong roles are refused", async () => {
  const projectDir = makeProject({ git: true, files: exampleFiles() });
  const read = (rel) => fs.readFileSync(path.join(projectDir, rel), "utf8");
  const seen = {};
  const mock = await startMockModel(sequence([
    // @orchestrator tries the shortcut, then delegates /plan 258 (a Lean task).
    { toolCalls: [{ name: "edit", args: { filePath: TODO, oldString: "- **Status**: [RESEARCHED]", newString: "- **Status**: [PLANNING]" } }] },
    (req) => {
      seen.orchestratorEdit = lastResult(req);
      return { toolCalls: [{ name: "task", args: { description: "plan task 258", prompt: "Task: 258", subagent_type: "lean-planner" } }] };
    },
    // @lean-planner, in its own session.
    { toolCalls: [{ name: "nso_status_set", args: { task: 258, status: "PLANNING", artifacts: [] } }] },
    (req) => {
      seen.planning = lastResult(req);
      return { toolCalls: [{ name: "write", args: { filePath: PLAN, content: "# Implementation Plan: task 258\n\n## Research Inputs\n\n- reports/research-001.md\n\n## Phase 1: truth_at_neg\n\n`simp [truthAt]`\n" } }] };
    },
    (req) => {
      seen.planWrite = lastResult(req);
      return { toolCalls: [{ name: "nso_status_set", args: { task: 258, status: "PLANNED", artifacts: [PLAN] } }] };
    },
    (req) => {
      seen.planned = lastResult(req);
      return { toolCalls: [{ name: "edit", args: { filePath: TODO, oldString: "- **Effort**: 10-20 hours", newString: "- **Effort**: 4 hours" } }] };
    },
    (req, ctx) => {
      seen.plannerEdit = lastResult(req);
      seen.childSession = ctx.sessionId;
      return { text: JSON.stringify({ status: "completed", task_number: 258,
        artifacts: [{ type: "implementation_plan", path: PLAN, summary: "One phase per sorry." }],
        summary: "Plan created; task 258 is [PLANNED].", session_id: ctx.sessionId }) };
    },
    // @orchestrator again: implementing is not its move.
    (req) => {
      seen.taskResult = lastResult(req);
      return { toolCalls: [{ name: "nso_status_set", args: { task: 258, status: "IMPLEMENTING", artifacts: [] } }] };
    },
    (req) => {
      seen.orchestratorMove = lastResult(req);
      return { text: "Task 258 is planned; run /implement 258 next." };
    },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "Plan task two-five-eight (Truth.lean sorries)", mock, plugins: [PLUGIN], agent: "orchestrator", timeoutMs: 90_000 });
    assert.equal(run.code, 0, run.stderr);

    // The orchestrator's direct edit: refused by the sync-only rule, file untouched then.
    assert.match(seen.orchestratorEdit, /^NSO blocked edit for @orchestrator: writing \.opencode\/specs\/TODO\.md\. Rule proofchecker\.specs\.sync_only \(preset proofchecker\)/);
    assert.match(seen.orchestratorEdit, /Instead: move a task with the nso_status_set tool/);
    // The planner's moves: both through the sync, the second linking the plan.
    assert.match(seen.planning, /task 258: \[RESEARCHED\] → \[PLANNING\] by @lean-planner/);
    assert.doesNotMatch(seen.planWrite, /NSO blocked/);
    assert.match(seen.planned, /task 258: \[PLANNING\] → \[PLANNED\] by @lean-planner/);
    // The planner's own direct edit of TODO.md: refused like the orchestrator's.
    assert.match(seen.plannerEdit, /^NSO blocked edit for @lean-planner: writing \.opencode\/specs\/TODO\.md\. Rule proofchecker\.specs\.sync_only/);
    // The delegation's JSON return was checked: the plan exists.
    assert.match(seen.taskResult, /Plan created; task 258 is \[PLANNED\]/);
    assert.match(seen.taskResult, /\[NSO, JSON return\] Valid return: status completed, 1 artifact\(s\) verified/);
    assert.ok(seen.childSession, "the planner ran in its own session");
    // The orchestrator may not start the implementation: the machine names who may.
    assert.match(seen.orchestratorMove, /^NSO nso_status_set refused for @orchestrator: .*\[PLANNED\].*\[IMPLEMENTING\]/s);
    assert.match(seen.orchestratorMove, /@implementer or @lean-implementation-agent/);

    const todo = read(TODO);
    assert.match(todo, /### 258\.[^#]*\*\*Status\*\*: \[PLANNED\]/);
    assert.match(todo, /### 258\.[^#]*- \*\*Effort\*\*: 10-20 hours/, "the direct edit changed nothing");
    assert.ok(todo.includes(PLAN), todo);
    const task = JSON.parse(read(STATE)).active_projects.find((p) => p.project_number === 258);
    assert.equal(task.status, "planned");
    assert.ok(task.artifacts.includes(PLAN), JSON.stringify(task));
    assert.match(read(PLAN), /## Phase 1: truth_at_neg/);
    const log = read(".opencode/logs/nso.log");
    assert.match(log, /status sync @lean-planner: task 258: \[RESEARCHED\] → \[PLANNING\]/);
  } finally {
    await mock.close();
  }
});
