// The agents that exist for an OpenCode project, as OpenCode finds them: its built-in agents,
// the `agent` section of the project's and the user's opencode.json(c), and the Markdown
// agent files of `.opencode/agent(s)/` and `~/.config/opencode/agent(s)/`. Refusals name only
// these (an agent a preset defines but the project does not have is never suggested).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** OpenCode's own agents, there unless a config disables them. */
export const OPENCODE_AGENTS = ["build", "plan", "general", "explore"];

/** The text of a JSON-with-comments file without its comments and trailing commas. */
function jsonc(text) {
  let out = "";
  for (let i = 0, inString = false; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      i = text.indexOf("*/", i + 2);
      if (i < 0) break;
      i++;
    } else out += c;
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, "$1"));
}

/** The `agent` section of a config file (`{}` when it is missing or not readable as JSON). */
function agentSection(file) {
  try {
    const config = jsonc(fs.readFileSync(file, "utf8"));
    return config?.agent && typeof config.agent === "object" ? config.agent : {};
  } catch {
    return {};
  }
}

/** OpenCode's modes of its own agents. */
const OPENCODE_MODES = { build: "primary", plan: "primary", general: "subagent", explore: "subagent" };

/** The `mode:` of a Markdown agent file's frontmatter, if it has one. */
function markdownMode(file) {
  try {
    const text = fs.readFileSync(file, "utf8");
    const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? "";
    return /^mode:\s*["']?(\w+)/m.exec(front)?.[1];
  } catch {
    return undefined;
  }
}

/** The Markdown agent files under `dir`: `[name, mode]` (`sub/name` for `sub/name.md`, as OpenCode names them). */
function markdownAgents(dir) {
  try {
    return fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".md"))
      .map((f) => [f.slice(0, -3).split(path.sep).join("/"), markdownMode(path.join(dir, f))]);
  } catch {
    return [];
  }
}

/**
 * The agents OpenCode has for the project at `root` (`home`: the user's home, for the global
 * config), sorted by name: `[{name, mode}]`, `mode` OpenCode's (`primary`, `subagent`, `all`;
 * undefined when not set: `all`).
 */
export function projectAgentModes(root, home = os.homedir()) {
  const global = path.join(process.env.XDG_CONFIG_HOME || path.join(home, ".config"), "opencode");
  const agents = new Map(OPENCODE_AGENTS.map((name) => [name, OPENCODE_MODES[name]]));
  const configs = [path.join(global, "opencode.json"), path.join(global, "opencode.jsonc"), path.join(root, "opencode.json"),
    path.join(root, "opencode.jsonc"), path.join(root, ".opencode/opencode.json"), path.join(root, ".opencode/opencode.jsonc")];
  for (const folder of [global, path.join(root, ".opencode")]) {
    for (const sub of ["agent", "agents"]) for (const [name, mode] of markdownAgents(path.join(folder, sub))) agents.set(name, mode ?? agents.get(name));
  }
  for (const file of configs) {
    for (const [name, spec] of Object.entries(agentSection(file))) {
      if (spec?.disable === true) agents.delete(name);
      else agents.set(name, typeof spec?.mode === "string" ? spec.mode : agents.get(name));
    }
  }
  return [...agents].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, mode]) => ({ name, mode }));
}

/**
 * The names of the agents OpenCode has for the project at `root` (`home`: the user's home,
 * for the global config), sorted.
 */
export function projectAgents(root, home = os.homedir()) {
  return projectAgentModes(root, home).map((a) => a.name);
}
