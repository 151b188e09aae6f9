// What each of a project's agents may write and run under a policy, as `nso init opencode`
// prints it: the core decides a few typical calls per agent (the same decision loop as the
// plugin, enforcing), so the table is the policy's own answer, never a copy of it in JS.
import fs from "node:fs";
import { loadCore } from "../../plugin/core-loader.js";
import { DISK_FACTS } from "../../plugin/decision/files.js";
import { projectAgents } from "../../plugin/decision/project-agents.js";

/** Typical writes and commands, decided for each agent. */
export const WRITES = ["src/app.ts", "tests/app.test.ts", "docs/guide.md", ".opencode/plans/plan.md", ".opencode/nso.json"];
export const RUNS = ["npm test", "git commit -m wip", "git push", "git merge main", "rm -rf dist"];

/** The preset names the schema that ships with NSO knows. */
export function presetNames() {
  const schema = JSON.parse(fs.readFileSync(new URL("../../schema/policy.schema.json", import.meta.url), "utf8"));
  const found = [];
  (function walk(node) {
    if (!node || typeof node !== "object") return;
    if (node.preset?.enum && !found.length) found.push(...node.preset.enum);
    for (const v of Object.values(node)) walk(v);
  })(schema);
  return found;
}

/**
 * The rights of every agent of the project at `root` under config `text` (enforcing, whatever
 * its mode says): `[{agent, known, writes: {path: bool}, runs: {command: bool}}]`. An agent
 * the policy does not know is `known: false` (NSO refuses its writes until it is configured).
 */
export function agentRights(root, text) {
  const config = text && text.trim() ? JSON.parse(text) : {};
  const enforcing = { ...config, authority: { ...(config.authority ?? {}), mode: "enforce" } };
  const nso = new (loadCore().Nso)(".opencode/nso.json", JSON.stringify(enforcing));
  const agents = projectAgents(root);
  nso.setProjectAgents(agents);
  const where = { directory: root, worktree: root };
  const allowed = (agent, tool, args) => nso.explainCall("nso-init", agent, tool, args, DISK_FACTS, where).decision.verdict !== "block";
  return agents.map((agent) => ({
    agent,
    known: nso.movesAs(agent).length > 0,
    writes: Object.fromEntries(WRITES.map((p) => [p, allowed(agent, "write", { filePath: p, content: "" })])),
    runs: Object.fromEntries(RUNS.map((c) => [c, allowed(agent, "bash", { command: c })])),
  }));
}

/** The known agent allowed the most sample calls. */
function broadest(rights) {
  const score = (r) => Object.values(r.writes).filter(Boolean).length + Object.values(r.runs).filter(Boolean).length;
  return rights.filter((r) => r.known).sort((a, b) => score(b) - score(a))[0]?.agent ?? "build";
}

/** The rights as lines for a person: one agent a line, then the JSON for unknown agents. */
export function rightsText(rights) {
  const lines = [];
  const list = (o, want) => Object.keys(o).filter((k) => o[k] === want);
  for (const r of rights) {
    if (!r.known) continue;
    const w = list(r.writes, true);
    const c = list(r.runs, true);
    lines.push(`  @${r.agent}: writes ${w.length ? w.join(", ") : "nothing (read-only)"}; runs ${c.length ? c.join(", ") : "no command of these"}` +
      `${list(r.runs, false).length ? `; not ${list(r.runs, false).join(", ")}` : ""}`);
  }
  const unknown = rights.filter((r) => !r.known).map((r) => r.agent);
  if (unknown.length) {
    lines.push("", `Agents the policy does not know (NSO lets them read only): ${unknown.map((a) => `@${a}`).join(", ")}.`,
      "Give each the rights of a known agent in .opencode/nso.json, e.g.:",
      `  ${JSON.stringify({ authority: { agents: Object.fromEntries(unknown.map((a) => [a, { like: broadest(rights) }])) } })}`,
      "(`like` copies a known agent's rights; pick the one that fits each agent, see docs/authority.md)");
  }
  return lines.join("\n");
}
