// Issue 4 wiring in the real shim: source tagging and routing on chat.message, delegation
// limits on task, and the contract check after each delegation.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import plugin from "../../plugin/nso-plugin.js";
import { makeProject, readIf, sessionCreated, chatParams, before } from "./helpers.mjs";

const text = (t, extra = {}) => ({ type: "text", text: t, ...extra });
const message = (hooks, sessionID, parts, agent = "build") =>
  hooks["chat.message"]({ sessionID, agent }, { message: { id: `msg_${Math.random()}`, agent, role: "user" }, parts });
const routerLog = (dir) => (readIf(dir, ".opencode/logs/router.jsonl") ?? "").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));

async function start(files = {}) {
  const dir = makeProject(files);
  return { dir, hooks: await plugin.server({ directory: dir, worktree: dir }) };
}

test("the person's message is routed and the agent is told the workflow", async () => {
  const { dir, hooks } = await start();
  await hooks.event(sessionCreated("ses_main"));
  await message(hooks, "ses_main", [text("Please implement the login feature and build the endpoint")]);
  const [entry] = routerLog(dir);
  assert.equal(entry.source, "user");
  assert.equal(entry.should_route, true);
  assert.equal(entry.workflow, "BUILD");
  const out = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_main" }, out);
  assert.match(out.system.join("\n"), /NSO router: the user's latest message matches workflow BUILD .*handler: build_workflow/);
});

test("a subagent's prompt comes from its parent's agent and is never routed", async () => {
  const { dir, hooks } = await start();
  await hooks.event(sessionCreated("ses_main"));
  await hooks["chat.params"](...chatParams("ses_main", "build"));
  await hooks.event(sessionCreated("ses_child", { parentID: "ses_main", agent: "general" }));
  await message(hooks, "ses_child", [text("Implement and build the login feature, then fix the bug")], "general");
  const entry = routerLog(dir).at(-1);
  assert.deepEqual(
    [entry.source, entry.should_route, entry.workflow, entry.confidence, entry.handler, entry.safety_check],
    ["build", false, null, 0, "pass_through", "AGENT_SOURCE"],
  );
  assert.match(entry.reason, /build/);
});

test("synthetic parts and command expansions are system, whatever their text says", async () => {
  const { dir, hooks } = await start();
  await hooks.event(sessionCreated("ses_main"));
  await message(hooks, "ses_main", [text("implement build feature scaffold", { synthetic: true })]);
  await hooks["command.execute.before"]({ command: "review", sessionID: "ses_main", arguments: "" }, { parts: [] });
  await message(hooks, "ses_main", [text("review and audit the whole code base please")]);
  assert.deepEqual(routerLog(dir).map((e) => [e.source, e.should_route]), [["system", false], ["system", false]]);
  await message(hooks, "ses_main", [text("ok thanks")]);
  assert.deepEqual(routerLog(dir).at(-1).safety_check, "TRIVIAL");
});

test("chat.message never throws, even when routing cannot run", async () => {
  const { hooks } = await start({ ".opencode/nso.json": "{broken" });
  await message(hooks, "ses_x", [text("implement the feature now please")]);
  await hooks["chat.message"]({}, { parts: null });
});

test("delegations deeper than the limit, or re-entering an agent, are refused", async () => {
  const { hooks } = await start({ ".opencode/nso.json": '{"delegation": {"maxDepth": 2}}' });
  await hooks.event(sessionCreated("s0"));
  await hooks["chat.params"](...chatParams("s0", "build"));
  await hooks.event(sessionCreated("s1", { parentID: "s0", agent: "general" }));
  await hooks.event(sessionCreated("s2", { parentID: "s1", agent: "explore" }));
  const task = (agentType) => ({ description: "d", prompt: "p", subagent_type: agentType });
  assert.equal(await before(hooks, "s0", "task", task("general")), null);
  const cycle = await before(hooks, "s1", "task", task("build"));
  assert.match(cycle, /^NSO blocked task for @general: .*cycle/);
  const deep = await before(hooks, "s2", "task", task("plan"));
  assert.match(deep, /^NSO blocked task for @explore: .*depth/);
});

test("after a delegation, questions.md reaches the orchestrator as a note", async () => {
  const id = "build_20261122_login_ab12cd";
  const folder = `.opencode/context/active_tasks/${id}`;
  const { dir, hooks } = await start({
    [`${folder}/questions.md`]: "# Questions\n\n1. Which OAuth provider should login use?\n2. Is email login required?\n",
  });
  await hooks["chat.params"](...chatParams("s0", "build"));
  const args = { description: "login", prompt: `Read your contract at ${folder}/contract.md`, subagent_type: "general" };
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s0", callID: "call_t" }, { args });
  const out = { output: "<task_result>I have questions.</task_result>", metadata: { sessionId: "s1" } };
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s0", callID: "call_t", args }, out);
  assert.match(out.output, new RegExp(`\\[NSO, task ${id}\\]`));
  assert.match(out.output, /Which OAuth provider should login use\?/);
  assert.match(out.output, /ask the user/i);
  const [d] = (readIf(dir, ".opencode/logs/delegations.jsonl") ?? "").trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(d.taskId, id);
  assert.equal(d.target, "general");
  assert.ok(d.ms >= 0);
});

test("after a delegation, a result.md claiming missing deliverables is called out", async () => {
  const id = "build_20261122_api_zz99yy";
  const folder = `.opencode/context/active_tasks/${id}`;
  const { hooks } = await start({
    [`${folder}/result.md`]: "# Task Result\n\n- Status: COMPLETE\n- Completed: 2026-11-22T10:00:00Z\n\n## Deliverables\n- src/api.ts\n- src/ghost.ts\n",
    "src/api.ts": "export {};\n",
  });
  await hooks["chat.params"](...chatParams("s0", "build"));
  const args = { description: "api", prompt: `Task ${id}`, subagent_type: "general" };
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s0", callID: "c1" }, { args });
  const out = { output: "done" };
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s0", callID: "c1", args }, out);
  assert.match(out.output, /src\/ghost\.ts/);
  assert.doesNotMatch(out.output, /src\/api\.ts[^\n]*missing/);
  fs.rmSync(path.join(process.cwd(), "nonexistent"), { force: true });
});

test("a ProofChecker-style JSON return is validated: phantom artifacts are named", async () => {
  const { hooks } = await start({ "specs/258/reports/research-001.md": "# Findings\nreal content\n" });
  await hooks["chat.params"](...chatParams("s0", "build"));
  const args = { description: "research", prompt: "Research task 258", subagent_type: "general" };
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s0", callID: "cj" }, { args });
  const ret = {
    status: "completed", summary: "Researched.", session_id: "ses_child",
    artifacts: [
      { type: "research", path: "specs/258/reports/research-001.md", summary: "report" },
      { type: "research", path: "specs/258/reports/research-002.md", summary: "claimed" },
    ],
  };
  const out = { output: `<task_result>\nDone.\n\`\`\`json\n${JSON.stringify(ret, null, 2)}\n\`\`\`\n</task_result>`, metadata: { sessionId: "ses_child" } };
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s0", callID: "cj", args }, out);
  assert.match(out.output, /\[NSO, JSON return\]/);
  assert.match(out.output, /research-002\.md/);
  const fine = { output: `\`\`\`json\n${JSON.stringify({ ...ret, artifacts: [ret.artifacts[0]] })}\n\`\`\``, metadata: { sessionId: "ses_child" } };
  await hooks["tool.execute.before"]({ tool: "task", sessionID: "s0", callID: "cj2" }, { args });
  await hooks["tool.execute.after"]({ tool: "task", sessionID: "s0", callID: "cj2", args }, fine);
  assert.match(fine.output, /\[NSO, JSON return\]/);
  assert.doesNotMatch(fine.output, /research-002/);
});
