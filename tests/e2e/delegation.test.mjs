// End-to-end (issue 4, in part): a delegation through real OpenCode. The parent's task prompt
// is not routed in the child (its source is the parent's agent), the child writes
// questions.md, and the parent's task result carries NSO's questions note.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, sequence, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));

test("a delegation: child prompt not routed, questions.md reaches the parent", async () => {
  const id = "build_20261122_login_ab12cd";
  const folder = `.opencode/context/active_tasks/${id}`;
  const mock = await startMockModel(sequence([
    // parent (build): delegate
    { toolCalls: [{ name: "task", args: { description: "login", subagent_type: "general",
      prompt: `Implement and build the login feature. Read your contract at ${folder}/contract.md first.` } }] },
    // child (general): it has questions
    { toolCalls: [{ name: "write", args: { filePath: `${folder}/questions.md`,
      content: "# Questions\n\n1. Which OAuth provider should login use?\n" } }] },
    { text: "I wrote my questions and stopped." },
    // parent again, after the task result
    { text: "I will ask the user." },
  ]));
  try {
    const projectDir = makeProject({ git: true, files: { [`${folder}/contract.md`]: "# Task Contract\n" } });
    const run = await runOpencode({ projectDir, prompt: "Please implement the login feature and build it", mock, plugins: [PLUGIN] });
    assert.equal(run.code, 0, run.stderr);
    const log = fs.readFileSync(path.join(projectDir, ".opencode/logs/router.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const user = log.find((e) => e.source === "user");
    assert.ok(user, JSON.stringify(log));
    assert.equal(user.workflow, "BUILD");
    const child = log.find((e) => e.source !== "user");
    assert.ok(child, JSON.stringify(log));
    assert.equal(child.source, "build");
    assert.deepEqual([child.should_route, child.handler, child.safety_check], [false, "pass_through", "AGENT_SOURCE"]);

    const parentLast = mock.requests.filter((r) => !r.isTitle).at(-1);
    const taskResult = toolResults(parentLast.body).find((r) => r.includes(`[NSO, task ${id}]`));
    assert.ok(taskResult, JSON.stringify(toolResults(parentLast.body)));
    assert.match(taskResult, /Which OAuth provider should login use\?/);
    const delegations = fs.readFileSync(path.join(projectDir, ".opencode/logs/delegations.jsonl"), "utf8");
    assert.match(delegations, /"target":"general"/);
  } finally {
    await mock.close();
  }
});
