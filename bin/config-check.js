// Every problem of a `.opencode/nso.json` text, as `nso check` and `nso doctor` report them:
// the core's check of every section (authority rules included) and the status machines'.
import { loadCore, loadWorkflowCore } from "../plugin/core-loader.js";

const FILE = ".opencode/nso.json";

/**
 * `{problems: [{code, path, problem, fix}], empty}` for config `text`: `empty` when it sets
 * nothing (blank or `{}`), so NSO uses its defaults.
 */
export function configProblems(text) {
  const problems = JSON.parse(loadCore().checkConfig(FILE, text));
  let empty = text.trim() === "";
  if (!problems.length) {
    try {
      const value = JSON.parse(text || "{}");
      empty ||= Object.keys(value).filter((k) => k !== "$schema").length === 0;
    } catch {
      // the core has reported it
    }
  }
  // The status machines are checked by the workflow package; a section it cannot read is
  // already among the problems above.
  if (!problems.some((p) => p.path === "(document)" || p.code === "config_json")) {
    try {
      for (const p of JSON.parse(new (loadWorkflowCore().Workflow)(FILE, text).statusProblems())) {
        if (!problems.some((q) => q.path === p.path)) problems.push(p);
      }
    } catch (error) {
      const p = { path: error.path ?? "(document)", problem: String(error.problem ?? error.message).replace(/^.*?: .*?: /, ""), code: error.code ?? "config", fix: error.fix ?? "correct the file." };
      if (!problems.some((q) => q.path === p.path || q.problem === p.problem)) problems.push(p);
    }
  }
  return { problems, empty };
}
