// `nso tools`: which of NSO's tools each agent of the project gets, and what they cost the
// model on every request (the core chooses them: crate/decision/src/toolbox.rs).
import path from "node:path";
import { createNso } from "../plugin/nso.js";
import { projectAgentModes } from "../plugin/decision/project-agents.js";
import { chooseTools, toolDefinitions } from "../plugin/toolbox.js";

export const TOOLS_USAGE = "  nso tools [--agent NAME] [--json] [--dir DIR]";
export const TOOLS_HELP = `tools    which of NSO's tools each agent of the project gets, and the bytes of their
         definitions (name, description, arguments as JSON) that every model request
         carries. The project's groups follow what it has (docs/tools.md); set them
         with \`tools\` in .opencode/nso.json. Exit 0, 1 when NSO's config does not
         load, 2 usage.`;

/** The bytes one tool definition takes in a request, in the shape OpenCode 1.18 sends it (a function tool). */
export function definitionBytes(name, tool) {
  const properties = tool.args ?? {};
  const parameters = Object.keys(properties).length
    ? { type: "object", properties, required: Object.keys(properties) }
    : { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties };
  return Buffer.byteLength(JSON.stringify({ type: "function", function: { name, description: tool.description, parameters } }));
}

/** Rows `{agent, mode, tools, bytes}` for `agents` (`[{name, mode}]`) of the project of `nso`. */
export function toolRows(nso, agents) {
  const choice = chooseTools(nso, agents);
  const defs = toolDefinitions(nso, choice);
  return agents.map(({ name: agent, mode }) => {
    const hidden = new Set(choice.hidden[agent] ?? []);
    const tools = choice.tools.filter((t) => !hidden.has(t));
    return { agent, mode: mode ?? "all", tools, bytes: tools.reduce((sum, t) => sum + definitionBytes(t, defs[t]), 0) };
  });
}

/** Runs `nso tools` with `argv` (after the command); returns the exit code. */
export function toolsMain(argv, { out = console.log, err = console.error } = {}) {
  const opts = { json: false, agent: undefined, dir: process.cwd() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--help" || a === "-h") {
      out(`usage:\n${TOOLS_USAGE}\n\n${TOOLS_HELP}`);
      return 0;
    }
    if (a === "--json") opts.json = true;
    else if ((a === "--agent" || a === "--dir") && argv[i + 1] !== undefined) opts[a.slice(2)] = argv[++i];
    else {
      err(`nso tools: unknown argument ${JSON.stringify(a)}\nusage:\n${TOOLS_USAGE}`);
      return 2;
    }
  }
  const root = path.resolve(opts.dir);
  const nso = createNso({ directory: root, worktree: root });
  if (!nso.state.engine) {
    const f = nso.state.failure;
    err(`nso tools: NSO's config does not load (${f?.code}): ${f?.message} Fix: ${f?.fix}`);
    return 1;
  }
  const all = projectAgentModes(root);
  const wanted = opts.agent?.replace(/^@/, "");
  const agents = wanted ? [all.find((a) => a.name === wanted) ?? { name: wanted }] : all;
  const rows = toolRows(nso, agents);
  if (opts.json) out(JSON.stringify(rows, null, 2));
  else {
    for (const r of rows) out(`@${r.agent} (${r.mode}): ${r.tools.length} tools, ${r.bytes} bytes${r.tools.length ? `\n  ${r.tools.join(", ")}` : ""}`);
  }
  return 0;
}
