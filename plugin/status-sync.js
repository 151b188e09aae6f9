// Atomic status sync: a task's status moves in TODO.md, state.json and the project's own
// state.json together, or not at all. The wasm core plans (every new text, or a refusal that
// names file and line); this module does the I/O: a lock, temp files, a journal as the commit
// point, renames, verification, and recovery after a crash.
// The durable steps (lock, temps, journal, renames, recovery) are in sync-journal.js.
import fs from "node:fs";
import path from "node:path";
import { loadWorkflowCore, reloadCore } from "./core-loader.js";
import { isoNow } from "./nso-tools.js";
import {
  ARCHIVE_STATE_FILE, SPECS_DIR, STATE_FILE, TODO_FILE, commit, exists, locate, locateEntry, lock, realRoot,
  recoverLocked, stepper, syncError,
} from "./sync-journal.js";

export { recoverStatusSync } from "./sync-journal.js";

const CONFIG_FILE = ".opencode/nso.json";

const MISSING_FIX = {
  [TODO_FILE]: "create it (a `# TODO` heading is enough) or run in the project that has it.",
  [STATE_FILE]: 'create it (`{"next_project_number": 1, "active_projects": []}`) or run in the project that has it.',
};

const missingFile = (root, rel) => syncError("sync_missing_file", rel, `not found in ${root}; ${MISSING_FIX[rel] ?? "create it."}`);

function readInput(root, rel, required) {
  const file = locate(root, rel);
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT" && !required) return undefined;
    if (error.code === "ENOENT") throw missingFile(root, rel);
    throw syncError("sync_io", rel, `cannot be read (${error.code ?? error.message}); make it readable.`);
  }
}

// --- planning --------------------------------------------------------------------------

/** The state.json of task n's project folder (`.opencode/specs/NNN_name/`), if there is one. */
function projectState(root, n) {
  let entries = [];
  try {
    entries = fs.readdirSync(locate(root, SPECS_DIR), { withFileTypes: true });
  } catch {
    return {};
  }
  const found = entries
    .filter((d) => (d.isDirectory() || d.isSymbolicLink()) && Number(d.name.match(/^(\d+)_/)?.[1]) === n)
    .map((d) => `${SPECS_DIR}/${d.name}/state.json`)
    .filter((rel) => exists(locate(root, rel)));
  if (found.length > 1) {
    throw syncError("sync_ambiguous_project", SPECS_DIR, `task ${n} has ${found.length} project folders with a state.json ` +
      `(${found.join(", ")}); keep one.`);
  }
  return found.length ? { projectStatePath: found[0], projectStateJson: readInput(root, found[0], true) } : {};
}

/** Asks the core; a trap re-creates the instance (a trapped instance must not be reused). */
function askCore(fn, inputs, configText) {
  try {
    return JSON.parse(loadWorkflowCore()[fn](JSON.stringify(inputs), CONFIG_FILE, configText));
  } catch (error) {
    if (error instanceof WebAssembly.RuntimeError) {
      reloadCore();
      throw syncError("sync_internal", "(core)", `the NSO core trapped (${error.message}); nothing was written. This is a bug in NSO.`);
    }
    error.code ??= "sync_internal";
    throw error;
  }
}

function plan(root, op, args, agent, now, like) {
  const configText = readInput(root, CONFIG_FILE, false);
  const files = { todoPath: TODO_FILE, todoMd: readInput(root, TODO_FILE, true), statePath: STATE_FILE, stateJson: readInput(root, STATE_FILE, true) };
  if (op === "set") {
    const taskNumber = Number(args.taskNumber);
    if (!Number.isSafeInteger(taskNumber) || taskNumber < 0) throw syncError("sync_bad_input", "(input)", `task number ${JSON.stringify(args.taskNumber)} is not a non-negative integer.`);
    return askCore("planStatusSync", {
      ...files, ...projectState(root, taskNumber), taskNumber, newStatus: String(args.newStatus ?? ""), agent, like, nowIso: now, artifacts: args.artifacts ?? [],
    }, configText);
  }
  if (op === "new") {
    const { title, description = "", priority, language, effort, dependencies = [], taskType } = args;
    return askCore("planNewTask", { ...files, title: title ?? "", description, priority, language, effort, dependencies, taskType, agent, nowIso: now }, configText);
  }
  if (op === "archive") {
    const archiveStateJson = readInput(root, ARCHIVE_STATE_FILE, false) ?? null;
    return askCore("planArchive", { ...files, archiveStatePath: ARCHIVE_STATE_FILE, archiveStateJson, nowIso: now }, configText);
  }
  throw syncError("sync_bad_input", "(input)", `unknown operation ${JSON.stringify(op)}; use set, new or archive.`);
}

/**
 * The moves of a plan that are to happen: the source exists and sits directly in the specs
 * folder (a project folder), the destination is free. A move elsewhere is left out with a note.
 */
function plannedMoves(root, moves, notes) {
  const chosen = [];
  for (const m of moves) {
    const from = locateEntry(root, m.from);
    if (!exists(from)) continue;
    if (path.posix.dirname(m.from) !== SPECS_DIR || !/^\d+_/.test(path.posix.basename(m.from))) {
      notes.push(`${m.from} not moved: only project folders directly in ${SPECS_DIR}/ are archived.`);
      continue;
    }
    if (exists(locateEntry(root, m.to))) {
      throw syncError("sync_move_conflict", m.to, `already exists, so ${m.from} cannot be archived there; merge or rename one of them first.`);
    }
    chosen.push({ from: m.from, to: m.to });
  }
  return chosen;
}

/** Re-reads every written file and checks every move; names the first file that differs. */
function verify(root, writes, moves) {
  for (const w of writes) {
    let text;
    try {
      text = fs.readFileSync(w.abs, "utf8");
    } catch {
      text = undefined;
    }
    if (text !== w.text) {
      throw syncError("sync_verify_failed", w.rel, "does not read back as written; something else changed it during the sync. " +
        "Run `nso status check` and repeat the status change.");
    }
  }
  for (const m of moves) {
    if (exists(locateEntry(root, m.from)) || !exists(locateEntry(root, m.to))) {
      throw syncError("sync_verify_failed", m.to, `${m.from} was not moved here; move it by hand.`);
    }
  }
}

/**
 * Runs one status operation as a transaction: `op` is `set` (`args`: taskNumber, newStatus,
 * artifacts), `new` (title, description, priority, language, effort, dependencies, taskType)
 * or `archive`, by `agent` (who may also make the moves of the agents in `like`: those it is
 * `like` in the policy). Under the lock it recovers an interrupted sync, reads TODO.md, state.json
 * (and the project's or the archive's state.json), asks the core for the plan, lets
 * `authorize(files)` veto it (it throws to refuse; `files` are `{key, path, text, created}`),
 * commits it and verifies it by re-reading. Returns `{summary, files, moves, notes,
 * taskNumber, steps, recovered}`; throws an Error with `code` and `file` (nothing changed,
 * unless the code is `sync_incomplete` or `sync_verify_failed`).
 */
export async function runStatusSync({ worktree, op, args = {}, agent = "", like = [], now = isoNow(), authorize, crashAt } = {}) {
  const root = realRoot(worktree);
  loadWorkflowCore(); // load the wasm before taking the lock: keep the lock short
  for (const rel of [TODO_FILE, STATE_FILE]) if (!exists(locate(root, rel))) throw missingFile(root, rel);
  const handle = await lock(root);
  try {
    const recovered = recoverLocked(root);
    const p = plan(root, op, args, agent, now, like);
    const notes = [...p.notes];
    const writes = p.files.map((f) => ({ rel: f.path, abs: locate(root, f.path), text: f.text }));
    const moves = plannedMoves(root, p.moves, notes);
    if (authorize && p.files.length) await authorize(p.files);
    const step = stepper(crashAt);
    if (writes.length || moves.length) {
      commit(root, writes, moves, step, handle);
        verify(root, writes, moves);
    }
    return {
      summary: p.summary, files: writes.map((w) => w.rel), moves, notes,
      taskNumber: p.task_number ?? undefined, steps: step.count(), recovered,
    };
  } finally {
    await handle.release();
  }
}
