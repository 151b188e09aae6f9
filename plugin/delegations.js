// Delegations (the `task` tool): depth and cycle limits before a subagent starts; after it
// returns, its duration, and verdicts on its JSON return and on its task folder.
import path from "node:path";
import { blockError } from "./decision/call.js";
import { fileFacts, readText } from "./decision/files.js";
import { stamp } from "./logs.js";

const TASK_ID = /\b[a-z]+_\d{8}_[a-z0-9-]+_[a-z0-9]{6}\b/i;
export const TASKS_DIR = ".opencode/context/active_tasks";

/** The task id a delegation prompt cites (the first one), if any. */
export function citedTaskId(prompt) {
  return String(prompt ?? "").match(TASK_ID)?.[0];
}

/**
 * The delegation bookkeeping of one NSO instance. `wf()` is the workflow package,
 * `maxDepth()` the configured limit.
 */
export function createDelegations({ root, sessions, logs, wf, maxDepth }) {
  const inFlight = new Map(); // callID -> { started, agent, target, taskId }
  const attempts = new Map(); // task id -> delegations so far

  /** Before `task`: refuses a chain too deep or a cycle; else starts the clock. */
  function before({ sessionID, callID }, args) {
    const target = String(args?.subagent_type ?? "");
    const chain = sessions.chainOf(sessionID);
    const refusal = wf().checkDelegationChain(JSON.stringify(chain), target, maxDepth());
    if (refusal) {
      const r = JSON.parse(refusal);
      logs.decision(`${stamp()} block task @${chain.at(-1)} ${r.code}`);
      throw blockError(`NSO blocked task for @${chain.at(-1)}: ${r.message}`);
    }
    const entry = sessions.entry(sessionID);
    entry.inFlight = (entry.inFlight ?? 0) + 1;
    const taskId = citedTaskId(args?.prompt);
    if (taskId) attempts.set(taskId, (attempts.get(taskId) ?? 0) + 1);
    inFlight.set(callID, { started: Date.now(), agent: chain.at(-1), target, taskId });
  }

  /**
   * After `task`: logs the delegation, then appends to the caller's result the verdicts on
   * the subagent's JSON return (if any) and on its task folder (if the prompt cited a task).
   */
  function after({ sessionID, callID }, output) {
    const d = inFlight.get(callID);
    if (!d) return;
    inFlight.delete(callID);
    const entry = sessions.peek(sessionID);
    if (entry?.inFlight) entry.inFlight--;
    logs.append("delegations.jsonl", JSON.stringify({
      time: stamp(), sessionID, callID, child: output?.metadata?.sessionId, agent: d.agent, target: d.target,
      taskId: d.taskId ?? null, ms: Date.now() - d.started,
    }));
    const workflow = wf();
    const text = String(output?.output ?? "");
    if (workflow.hasJsonReturn(text)) {
      const facts = fileFacts(root, workflow.jsonReturnPaths(text));
      const verdict = JSON.parse(workflow.validateJsonReturn(text, JSON.stringify(facts), output?.metadata?.sessionId));
      output.output = `${output.output ?? ""}\n\n[NSO, JSON return] ${verdict.note}`;
    }
    if (!d.taskId) return;
    output.output = `${output.output ?? ""}\n\n[NSO, task ${d.taskId}] ${taskFolderVerdict(root, workflow, d.taskId, attempts.get(d.taskId) ?? 1).note}`;
  }

  return { before, after };
}

/** The workflow package's verdict on a delegated task's folder (questions, result, files). */
function taskFolderVerdict(root, workflow, taskId, attempt) {
  const dir = path.join(root, TASKS_DIR, taskId);
  const questions = readText(path.join(dir, "questions.md"));
  const result = readText(path.join(dir, "result.md"));
  const listing = {
    has_questions: questions !== undefined, questions_text: questions ?? null,
    has_result: result !== undefined, result_text: result ?? null,
  };
  let paths = [];
  if (result !== undefined) {
    try {
      paths = workflow.resultPaths(result);
    } catch {
      // an unreadable result.md is judged by checkDelegation itself
    }
  }
  return JSON.parse(workflow.checkDelegation(JSON.stringify(listing), JSON.stringify(fileFacts(root, paths)), attempt));
}
