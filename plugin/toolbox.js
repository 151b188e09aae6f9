// Which of NSO's tools OpenCode registers, and which each agent sees. The core decides
// (crate/decision/src/toolbox.rs: the one table of the tools, their descriptions, what each needs);
// this file only reads the facts it asks for, picks the tool bodies and tells OpenCode.
import fs from "node:fs";
import path from "node:path";
import { claimTools } from "./claim-tools.js";
import { continuityTools } from "./continuity-tools.js";
import { loadCore } from "./core-loader.js";
import { nsoTools } from "./nso-tools.js";
import { projectAgentModes } from "./decision/project-agents.js";

/** What the core needs to know of the project's files to choose the tools. */
export function projectFacts(root, config) {
  const hasMarkdown = (folder) => {
    try {
      return fs.readdirSync(path.join(root, folder)).some((n) => n.endsWith(".md"));
    } catch {
      return false;
    }
  };
  return {
    statusFiles: fs.existsSync(path.join(root, ".opencode/specs/TODO.md")),
    commandFiles: hasMarkdown(".opencode/command") || hasMarkdown(".opencode/commands"),
    mindFiles: fs.existsSync(path.join(root, config?.continuity?.dir ?? ".opencode/nso", "mind/observations.jsonl")),
  };
}

/**
 * The core's choice for the project of `nso` (`{tools, hidden: {agent: [tool]}}`), for the
 * agents OpenCode has there (`[{name, mode}]`); none while NSO is not enforcing (every write
 * is refused then).
 */
export function chooseTools(nso, agents = projectAgentModes(nso.root)) {
  if (!nso.state.engine) return { tools: [], hidden: {} };
  return nso.state.engine.toolbox(projectFacts(nso.root, nso.state.config), agents);
}

/** The tool definitions OpenCode registers: the chosen tools, with the core's descriptions. */
export function toolDefinitions(nso, choice) {
  if (!choice.tools.length) return {}; // none chosen (NSO not enforcing: maybe no core to ask)
  const bodies = { ...nsoTools(nso), ...claimTools(nso), ...continuityTools(nso) };
  const table = new Map(loadCore().toolTable().map((t) => [t.name, t]));
  return Object.fromEntries(choice.tools.map((name) => [name, { ...bodies[name], description: table.get(name).description }]));
}

/**
 * OpenCode's `config` hook: each agent's hidden tools denied in its `permission` (OpenCode then
 * leaves them out of the agent's requests). The person's own settings for a tool win. The
 * agents and their modes are taken from OpenCode's config as it stands, beside those of
 * the choice made at load.
 */
export function hideTools(config, nso, choice) {
  if (nso.state.engine && config?.agent && typeof config.agent === "object") {
    const known = new Map(projectAgentModes(nso.root).map((a) => [a.name, a.mode]));
    for (const [name, spec] of Object.entries(config.agent)) known.set(name, typeof spec?.mode === "string" ? spec.mode : known.get(name));
    choice = chooseTools(nso, [...known].map(([name, mode]) => ({ name, mode })));
  }
  for (const [agent, tools] of Object.entries(choice.hidden)) {
    config.agent ??= {};
    const entry = (config.agent[agent] ??= {});
    const permission = (entry.permission ??= {});
    for (const tool of tools) permission[tool] ??= "deny";
  }
}
