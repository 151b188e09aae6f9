// Deciding a recorded session's calls again, in order, as the agents that made them: through the
// plugin's own decision path (plugin/decision/call.js `decideCall`: the same bounds, facts and
// engine, so the same repeat counting per session), with the virtual files of overlay.js
// answering the facts, and each allowed, completed call's changes laid over them before the
// next call.
import { isTrap, loadCore, loadWorkflowCore, reloadCore, reloadWorkflowCore } from "../../plugin/core-loader.js";
import { decideCall, isReadTool } from "../../plugin/decision/call.js";
import { CONTENT_TOOLS, callEffects } from "./effects.js";
import { createOverlay } from "./overlay.js";

/** The name the engine gives the config in its messages: the one the agents read in OpenCode. */
const CONFIG_FILE = ".opencode/nso.json";

/**
 * A compiled policy from the text of an `.opencode/nso.json`-shaped file (undefined: the
 * defaults), checked as the plugin checks it at load (authority, status machines, T0 policy).
 * Throws `{problem, fix}` on a mistake.
 */
export function loadPolicy(text) {
  const core = loadCore();
  const engine = new core.Nso(CONFIG_FILE, text);
  const config = engine.config();
  let workflow;
  const wf = () => (workflow ??= new (loadWorkflowCore().Workflow)(CONFIG_FILE, text));
  engine.setStatusChecker((query) => wf().checkStatusEdit(query));
  if (config.continuity?.t0) wf();
  if (config.status) {
    const [problem] = JSON.parse(wf().statusProblems());
    if (problem) throw Object.assign(new Error(problem.problem), { problem: `${problem.path}: ${problem.problem}`, fix: problem.fix, code: problem.code });
  }
  return { engine, config, text, preset: presetOf(text) };
}

/** The preset a (valid) config text names; `nso` by default. */
function presetOf(text) {
  const preset = text === undefined ? undefined : JSON.parse(text)?.authority?.preset;
  return typeof preset === "string" ? preset : "nso";
}

/** What a verdict means for the files: refused calls never ran. */
const ran = (verdict) => verdict !== "block";

/**
 * Decides every call of `calls` (in order; see recording.js) under `policyText`, with the
 * project at `diskRoot` as the files' starting state. Returns `{records, notFollowed, changes, preset}`:
 * one record per call `{verdict, rule, message, notices?, unclassified?, applied}`, and the
 * changes the overlay could not follow (`{index, path, why}`: bash and unknown tools' writes,
 * edits that do not apply). `overlay` (default: a new one over `diskRoot`) lets a caller read
 * the files as the replay left them.
 */
export function replayCalls(calls, policyText, { diskRoot, overlay = createOverlay(diskRoot) }) {
  let policy = loadPolicy(policyText);
  const scopes = new Map(); // recorded root -> lookups
  const scope = (root) => {
    if (!scopes.has(root)) scopes.set(root, overlay.lookupsFor(root));
    return scopes.get(root);
  };
  const records = [];
  const notFollowed = [];
  calls.forEach((call, i) => {
    const lookups = scope(call.root);
    const request = {
      sessionId: call.session, agent: call.agent, delegatedBy: call.delegatedBy, tool: call.tool, args: call.args,
      directory: call.directory ?? call.root ?? diskRoot, worktree: call.root ?? diskRoot,
    };
    let decision;
    try {
      decision = decideCall(policy.engine, request, lookups);
    } catch (error) {
      if (!isTrap(error)) throw error;
      // As in the plugin: a trapped instance is re-created, and the call is refused.
      reloadCore();
      reloadWorkflowCore();
      policy = loadPolicy(policyText);
      decision = { verdict: "block", ruleId: "nso.trap", message: `NSO core trapped (${error.message}); it was restarted.` };
    }
    const verdict = decision?.verdict ?? "allow";
    const record = { verdict, rule: decision?.ruleId || null, message: decision?.message ?? null, applied: false };
    if (decision?.notices?.length) record.notices = decision.notices;
    if (decision?.unclassified) record.unclassified = true;
    if (ran(verdict) && call.completed && !isReadTool(call.tool)) {
      applyCall(call, request, i + 1, lookups, decision?.targets ?? [], record, notFollowed);
    }
    records.push(record);
  });
  return { records, notFollowed, changes: overlay.changeCount(), preset: policy.preset };
}

/** Lays the changes of an allowed, completed call over the files, or notes what it could not follow. */
function applyCall(call, request, index, lookups, targets, record, notFollowed) {
  const effects = callEffects({ ...call, directory: request.directory }, lookups.read);
  if (effects) {
    for (const { abs, text } of effects.changes) lookups.write(abs, text);
    record.applied = effects.changes.length > 0;
    if (effects.problem) notFollowed.push({ index, path: call.args?.filePath ?? null, why: effects.problem });
    return;
  }
  if (CONTENT_TOOLS.has(call.tool)) return;
  // bash and unknown tools: the engine names what they change; the replay cannot say how.
  for (const [rel, below] of targets) {
    notFollowed.push({ index, path: below ? `${rel || "."}/**` : rel, why: `${call.tool} changed it; the replay does not know its new content` });
  }
}
