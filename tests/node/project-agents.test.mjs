// The agents an OpenCode project has, and refusals that name only these, by the names the
// project uses, telling a primary agent to ask the person and a subagent its caller.
import { test } from "node:test";
import assert from "node:assert/strict";
import plugin from "../../plugin/nso-plugin.js";
import { projectAgentModes, projectAgents } from "../../plugin/decision/project-agents.js";
import { before, chatParams, makeProject, sessionCreated } from "./helpers.mjs";

test("projectAgentModes: OpenCode's modes of its agents, a config's mode, an agent file's frontmatter", () => {
  const home = makeProject({});
  const dir = makeProject({
    "opencode.json": JSON.stringify({ agent: { reviewer: { mode: "subagent" }, plan: { mode: "all" } } }),
    ".opencode/agent/orchestrator.md": "---\nmode: primary\n---\nYou orchestrate.\n",
    ".opencode/agent/tester.md": "You test.\n",
  });
  assert.deepEqual(projectAgentModes(dir, home), [
    { name: "build", mode: "primary" }, { name: "explore", mode: "subagent" }, { name: "general", mode: "subagent" },
    { name: "orchestrator", mode: "primary" }, { name: "plan", mode: "all" }, { name: "reviewer", mode: "subagent" },
    { name: "tester", mode: undefined },
  ]);
});

test("projectAgents: OpenCode's built-ins, opencode.json(c) agents, agent files; a disabled agent is gone", () => {
  const home = makeProject({ ".config/opencode/agent/globalhelper.md": "---\ndescription: x\n---\n" });
  const dir = makeProject({
    "opencode.jsonc": '{\n  // the project\'s agents\n  "agent": { "reviewer": { "mode": "subagent" }, "explore": { "disable": true }, },\n}',
    ".opencode/agent/orchestrator.md": "---\nmode: primary\n---\nYou orchestrate.\n",
    ".opencode/agents/tester.md": "You test.\n",
  });
  const saved = process.env.XDG_CONFIG_HOME;
  delete process.env.XDG_CONFIG_HOME;
  try {
    assert.deepEqual(projectAgents(dir, home), ["build", "general", "globalhelper", "orchestrator", "plan", "reviewer", "tester"]);
  } finally {
    if (saved !== undefined) process.env.XDG_CONFIG_HOME = saved;
  }
  // An unreadable config names no agents of its own; the built-ins stay.
  const broken = makeProject({ "opencode.json": "{ not json" });
  assert.deepEqual(projectAgents(broken, home), ["build", "explore", "general", "globalhelper", "plan"]);
});

test("through the plugin: who may is the project's agents, named its way; a subagent reports to its caller", async () => {
  const dir = makeProject({
    ".opencode/agent/orchestrator.md": "---\nmode: primary\n---\nYou orchestrate.\n",
    ".opencode/nso.json": JSON.stringify({ conductor: { mode: "off" } }),
  });
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.event(sessionCreated("ses_plan"));
  await hooks["chat.params"](...chatParams("ses_plan", "plan"));
  const refused = await before(hooks, "ses_plan", "write", { filePath: "src/app.ts", content: "x" });
  assert.match(refused, /Who may: @build, @general\./);
  assert.doesNotMatch(refused, /@builder|@oracle|@janitor/);
  assert.match(refused, /Instead: you may create `\.opencode\/plans\/\*\*\/\*\.md`/);
  assert.match(refused, /If the work needs this, ask the person\.$/);
  // The project's own `orchestrator` is @oracle by alias, and is called by its own name.
  await hooks.event(sessionCreated("ses_orch"));
  await hooks["chat.params"](...chatParams("ses_orch", "orchestrator"));
  const own = await before(hooks, "ses_orch", "write", { filePath: "src/app.ts", content: "x" });
  assert.match(own, /^NSO blocked write for @orchestrator: /);
  // A subagent started by build: its refusal says to report to @build.
  await hooks.event(sessionCreated("ses_build"));
  await hooks["chat.params"](...chatParams("ses_build", "build"));
  await hooks.event(sessionCreated("ses_child", { parentID: "ses_build", agent: "explore" }));
  await hooks["chat.params"](...chatParams("ses_child", "explore"));
  const child = await before(hooks, "ses_child", "write", { filePath: "src/app.ts", content: "x" });
  assert.match(child, /If the work needs this, report it to your caller \(@build\)\.$/);
  // OpenCode's plan agent writes its plans.
  assert.equal(await before(hooks, "ses_plan", "write", { filePath: ".opencode/plans/loyalty.md", content: "# Plan\n" }), null);
});
