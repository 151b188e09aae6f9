// Kord's workflow contracts at the hooks: the shell half. It reads the squads
// (.opencode/squads/*/SQUAD.yaml), the plan and story a decision needs and the orchestrator's
// state, takes the lock, and writes what the core's verdict says (the state, a failure
// report, a story marked BLOCKED). Every decision is the workflow package's (crate/workflow/src/kord).
import fs from "node:fs";
import path from "node:path";
import { replaceFile } from "./atomic-file.js";
import { acquireLock } from "./lock.js";
import { makeStateDir } from "./state-dirs.js";
import { blockError } from "./decision/call.js";
import { readText } from "./decision/files.js";
import { stamp } from "./logs.js";

export const SQUADS_DIR = ".opencode/squads";
/** The orchestrator's state (active plan, wave, item, attempts, checkpoints). */
export const STATE_FILE = ".opencode/nso/kord-state.json";

/** `[path, text]` of every squad file of the project at `root` (fresh: squads change). */
export function readSquads(root) {
  let names;
  try {
    names = fs.readdirSync(path.join(root, SQUADS_DIR));
  } catch {
    return [];
  }
  const out = [];
  for (const name of names.sort()) {
    const rel = `${SQUADS_DIR}/${name}/SQUAD.yaml`;
    const text = readText(path.join(root, rel));
    if (text !== undefined) out.push([rel, text]);
  }
  return out;
}

/**
 * What `checkStatusEdit` needs beside the query (JSON text) for the project at `root`, or
 * undefined when the file is neither a plan nor a story of one and the project has no squads.
 * `core` is the workflow package's module.
 */
export function kordEditContext(root, core, queryJson) {
  const file = JSON.parse(queryJson).file;
  const squads = readSquads(root);
  const planFile = core.kordPlanOfStory(file);
  const plan = planFile ? readText(path.join(root, planFile)) ?? null : null;
  if (!squads.length && plan === null && !file.endsWith("/plan.md")) return undefined;
  return JSON.stringify({ squads, plan });
}

/**
 * The core's verdict on a delegation `{agent, target, session, prompt, now}` in the project
 * at `root` with the state text `stateText` (before it starts; after it returned when
 * `output` is given), or undefined when no plan is in progress.
 */
export function delegationVerdict(root, core, stateText, delegation, output) {
  const files = JSON.parse(core.kordFiles(stateText ?? undefined, delegation.prompt));
  if (!files.plan) return undefined;
  const planText = readText(path.join(root, `docs/kord/plans/${files.plan}/plan.md`));
  if (planText === undefined) return undefined;
  const story = output !== undefined && files.story ? readText(path.join(root, files.story)) ?? null : null;
  return JSON.parse(core.kordDelegation(JSON.stringify({
    state: stateText, plan: [files.plan, planText], squads: readSquads(root), delegation, output, story,
  })));
}

/** What a `task` call asks: its description and prompt. */
export const taskText = (args) => `${args?.description ?? ""}\n${args?.prompt ?? ""}`;

/** The state file's text in the project at `root` (null: none yet). */
export const readState = (root) => readText(path.join(root, STATE_FILE)) ?? null;

/**
 * The Kord half of one NSO instance. `wf(fn)` runs `fn` on the workflow package's module
 * (its exports); `logs` is the instance's.
 */
export function createKord({ root, wf, logs }) {
  const abs = (rel) => path.join(root, rel);

  /**
   * Runs `fn(stateText)` under the state lock; `fn` returns a verdict or undefined. The
   * verdict's new state and its other writes (a failure report, a story blocked) are made
   * before the lock is released: they were computed from files read under it.
   */
  async function withState(fn) {
    const home = path.dirname(abs(STATE_FILE));
    makeStateDir(home, { root });
    const lock = await acquireLock(abs(`${STATE_FILE}.lock`));
    try {
      const next = fn(readState(root));
      for (const [rel, body] of [...(next?.state ? [[STATE_FILE, next.state]] : []), ...(next?.writes ?? [])]) {
        lock.assertHeld();
        replaceFile(abs(rel), body);
      }
      return next;
    } finally {
      await lock.release();
    }
  }

  /** Whether anything of Kord's is in the project (else the hooks cost nothing). */
  const present = () => fs.existsSync(abs("docs/kord/plans"));

  /** The delegation a `task` call `{sessionID, args}` of `agent` makes. */
  const delegationOf = ({ sessionID }, agent, args) =>
    ({ agent: agent ?? "", target: String(args?.subagent_type ?? ""), session: sessionID, prompt: taskText(args), now: stamp() });

  /** Before `task`: refuses a delegation that breaks the rules, naming the next legal step. */
  async function before(input, agent, args) {
    if (!present()) return;
    const delegation = delegationOf(input, agent, args);
    const target = delegation.target;
    const v = await withState((text) => wf((w) => delegationVerdict(root, w, text, delegation)));
    if (!v?.rule) return;
    logs.decision(`${stamp()} ${v.allowed ? "allow" : "block"} task @${agent} -> @${target} ${v.rule}`);
    if (!v.allowed) throw Object.assign(blockError(`NSO blocked task for @${agent} (rule ${v.rule}): ${v.message}`), { rule: v.rule });
  }

  /** After `task`: records the outcome; writes a failure report (and blocks a story) when due. */
  async function after(input, agent, output) {
    if (!present()) return;
    const delegation = delegationOf(input, agent, input.args);
    const text = String(output?.output ?? "");
    const v = await withState((state) => wf((w) => delegationVerdict(root, w, state, delegation, text)));
    if (!v) return;
    if (v.message) output.output = `${output.output ?? ""}\n\n[NSO, plan] ${v.message}`;
  }

  /** What a new session is told about a plan in progress (undefined: nothing). */
  function resumeText() {
    try {
      const text = readText(abs(STATE_FILE));
      return text ? wf((w) => w.kordResumeText(text)) || undefined : undefined;
    } catch (error) {
      logs.error(`cannot read the plan in progress: ${error.message}`);
      return undefined;
    }
  }

  return { statusContext: (query) => wf((w) => kordEditContext(root, w, query)), before, after, resumeText };
}
