// Atomic status sync: a task's status moves in TODO.md, state.json and the project's own
// state.json together, or not at all. The wasm core plans (every new text, or a refusal that
// names file and line); this module does the I/O: a lock, temp files, a journal as the commit
// point, renames, verification, and recovery after a crash.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadWorkflowCore, reloadCore } from "./core-loader.js";
import { realPathInfo, forgetRealPaths } from "./files.js";
import { isoNow } from "./nso-tools.js";

// Web Crypto and plain timers instead of node:crypto and node:timers/promises: importing
// those costs several milliseconds in Bun, and the plugin's start pays for its imports.
const randomHex = (bytes) => Array.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const CONFIG_FILE = ".opencode/nso.json";
const SPECS_DIR = ".opencode/specs";
const TODO_FILE = `${SPECS_DIR}/TODO.md`;
const STATE_FILE = `${SPECS_DIR}/state.json`;
const ARCHIVE_STATE_FILE = `${SPECS_DIR}/archive/state.json`;
const JOURNAL_FILE = ".opencode/logs/status-sync.journal.json";
const LOCK_FILE = ".opencode/logs/status-sync.lock";
/** A lock older than this is a leftover: a sync takes milliseconds. */
const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 2_000;
/** Temp files: `.<name>.nso-tmp-<pid>-<hex>`, next to their target (same file system). */
const TEMP_NAME = /^\..+\.nso-tmp-\d+-[0-9a-f]+$/;

const MISSING_FIX = {
  [TODO_FILE]: "create it (a `# TODO` heading is enough) or run in the project that has it.",
  [STATE_FILE]: 'create it (`{"next_project_number": 1, "active_projects": []}`) or run in the project that has it.',
};

/** An Error with a stable `code` and the `file` (project-relative) it is about. */
function syncError(code, file, message, line) {
  const where = line ? `${file}:${line}` : file;
  return Object.assign(new Error(`${where}: ${message}`), { code, file, line });
}

const within = (root, p) => p === root || p.startsWith(root + path.sep);

/**
 * The real location of the project-relative `rel` (symlinks followed, also dangling ones).
 * Anything that lands outside the project is refused: NSO never writes through a link out.
 */
function locate(root, rel) {
  const abs = path.resolve(root, rel);
  const [real] = realPathInfo(abs);
  if (!within(root, abs) || !within(root, real)) {
    throw syncError("sync_path_escape", rel, `resolves to ${real}, outside the project ${root}; NSO writes ` +
      "status files only inside the project. Replace the symlink with a real folder, or run in the project that owns the files.");
  }
  return real;
}

/** Like {@link locate}, for an entry that is moved as it is (a symlink moves as a link). */
function locateEntry(root, rel) {
  return path.join(locate(root, path.dirname(rel)), path.basename(rel));
}

const exists = (abs) => fs.lstatSync(abs, { throwIfNoEntry: false }) !== undefined;
const relTo = (root, abs) => path.relative(root, abs).split(path.sep).join("/");

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

// --- lock ------------------------------------------------------------------------------

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/** The lock's holder `{pid, host, time, token}`, `{}` while it is being written, null if gone. */
function lockHolder(file) {
  try {
    const text = fs.readFileSync(file, "utf8");
    try {
      return { ...JSON.parse(text), text };
    } catch {
      return { text };
    }
  } catch {
    return null;
  }
}

/**
 * Breaks the lock if its holder is gone (same host, pid dead) or it is older than 30 s. The
 * lock is renamed away first, so of two breakers only one wins; one that took a fresh lock
 * by mistake (its content changed since it was judged) puts it back.
 */
function breakIfStale(file, holder) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat || !holder) return false;
  const dead = holder.host === os.hostname() && Number.isInteger(holder.pid) && !pidAlive(holder.pid);
  if (!dead && Date.now() - stat.mtimeMs < LOCK_STALE_MS) return false;
  const aside = `${file}.stale-${process.pid}-${randomHex(4)}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return false; // someone else broke it first
  }
  const broken = fs.readFileSync(aside, "utf8") === holder.text;
  if (!broken) {
    try {
      fs.linkSync(aside, file);
    } catch {
      // a third process holds the lock now; the one we took keeps its ownership check
    }
  }
  fs.rmSync(aside, { force: true });
  return broken;
}

/** Takes the exclusive sync lock (waits up to ~2 s); returns the handle for {@link unlock}. */
async function lock(root) {
  const file = locate(root, LOCK_FILE);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch (error) {
    throw syncError("sync_io", path.dirname(LOCK_FILE), `cannot be created (${error.code}); make .opencode writable.`);
  }
  const token = `${process.pid}-${randomHex(6)}`;
  const body = JSON.stringify({ pid: process.pid, host: os.hostname(), time: new Date().toISOString(), token });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.writeFileSync(file, body, { flag: "wx" });
      return { file, token };
    } catch (error) {
      if (error.code !== "EEXIST") throw syncError("sync_io", LOCK_FILE, `cannot be created (${error.code}); make .opencode/logs writable.`);
    }
    const holder = lockHolder(file);
    breakIfStale(file, holder);
    if (Date.now() >= deadline) {
      throw syncError("sync_locked", LOCK_FILE, `another status sync (pid ${holder?.pid ?? "?"}, since ${holder?.time ?? "?"}) ` +
        `holds the lock; try again in a moment. If no sync is running, delete ${LOCK_FILE}.`);
    }
    await sleep(15 + Math.random() * 35);
  }
}

/** Fails unless `handle` still owns the lock (it may have been broken as stale). */
function assertLocked(handle) {
  if (lockHolder(handle.file)?.token !== handle.token) {
    throw syncError("sync_locked", LOCK_FILE, "this sync lost its lock (it took longer than 30 s and was taken over); nothing was written, run it again.");
  }
}

function unlock(handle) {
  if (lockHolder(handle.file)?.token === handle.token) fs.rmSync(handle.file, { force: true });
}

// --- durable writes ----------------------------------------------------------------------

/**
 * Test-only crash injection: with `NSO_SYNC_CRASH_AT=<n>` (or the `crashAt` option) the
 * process kills itself with SIGKILL right before write step n. Steps are counted across one
 * transaction: each temp write, the journal's temp write, the journal rename (the commit
 * point), each rename onto a target, each directory move, the journal delete.
 */
function stepper(crashAt) {
  const at = Number(crashAt ?? process.env.NSO_SYNC_CRASH_AT) || 0;
  let count = 0;
  const step = () => {
    count++;
    if (count === at) process.kill(process.pid, "SIGKILL");
  };
  step.count = () => count;
  return step;
}

/** fsyncs a folder so renames in it survive a power loss (not every platform allows it). */
function syncDir(dir) {
  try {
    const fd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // best effort
  }
}

/** Writes `text` to the new file `file` and fsyncs it; `mode`, when given, is kept exactly. */
function writeDurable(file, text, mode) {
  const fd = fs.openSync(file, "wx", mode ?? 0o666);
  try {
    fs.writeFileSync(fd, text);
    if (mode !== undefined) fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

const tempBeside = (abs) => path.join(path.dirname(abs), `.${path.basename(abs)}.nso-tmp-${process.pid}-${randomHex(4)}`);

/** Creates `dir` and its missing parents; returns the folders created, deepest first. */
function makeDirs(dir) {
  const made = [];
  for (let d = dir; !exists(d); d = path.dirname(d)) made.push(d);
  if (made.length) fs.mkdirSync(dir, { recursive: true });
  return made;
}

/**
 * Commits `writes` ({rel, abs, text}) and `moves` ({from, to} project-relative) as one
 * transaction. Before the journal is in place nothing visible has changed, and a failure
 * removes the temps; after it, the transaction is only ever rolled forward.
 */
function commit(root, writes, moves, step, handle) {
  const temps = [];
  const made = [];
  const journalAbs = locate(root, JOURNAL_FILE);
  const journal = { nso: "status-sync journal", version: 1, pid: process.pid, files: [], moves };
  let current = JOURNAL_FILE;
  try {
    for (const w of writes) {
      current = w.rel;
      made.push(...makeDirs(path.dirname(w.abs)));
      const temp = tempBeside(w.abs);
      const mode = fs.statSync(w.abs, { throwIfNoEntry: false })?.mode;
      step();
      temps.push(temp);
      writeDurable(temp, w.text, mode === undefined ? undefined : mode & 0o7777);
      journal.files.push({ target: relTo(root, w.abs), temp: relTo(root, temp) });
    }
    current = JOURNAL_FILE;
    made.push(...makeDirs(path.dirname(journalAbs)));
    const temp = tempBeside(journalAbs);
    step();
    temps.push(temp);
    writeDurable(temp, `${JSON.stringify(journal, null, 2)}\n`);
    assertLocked(handle);
    step();
    fs.renameSync(temp, journalAbs);
  } catch (error) {
    for (const t of temps) fs.rmSync(t, { force: true });
    for (const d of made) {
      try {
        fs.rmdirSync(d);
      } catch {
        // not empty: something else uses it now
      }
    }
    throw error.file ? error : syncError("sync_io", current, `cannot be written (${error.code ?? error.message}); nothing was changed.`);
  }
  syncDir(path.dirname(journalAbs));
  try {
    return finish(root, journal, step);
  } catch (error) {
    throw syncError("sync_incomplete", JOURNAL_FILE, `the sync was committed but could not be finished (${error.message}); ` +
      "`nso status recover` (or the next sync) finishes it once the cause is fixed.");
  }
}

/** Rolls a committed journal forward: renames the temps still there, does the moves left. */
function finish(root, journal, step) {
  const done = { renamed: [], moved: [] };
  for (const f of journal.files) {
    const temp = locate(root, f.temp);
    const target = locate(root, f.target);
    if (!TEMP_NAME.test(path.basename(temp)) || path.dirname(temp) !== path.dirname(target)) {
      throw syncError("sync_journal", JOURNAL_FILE, `lists ${f.temp}, which is not a temp file next to ${f.target}; delete the journal.`);
    }
    if (!exists(temp)) continue;
    step();
    fs.renameSync(temp, target);
    syncDir(path.dirname(target));
    done.renamed.push(f.target);
  }
  for (const m of journal.moves) {
    const from = locateEntry(root, m.from);
    const to = locateEntry(root, m.to);
    if (!exists(from) || exists(to)) continue;
    fs.mkdirSync(path.dirname(to), { recursive: true });
    step();
    fs.renameSync(from, to);
    syncDir(path.dirname(from));
    syncDir(path.dirname(to));
    done.moved.push(`${m.from} -> ${m.to}`);
  }
  step();
  const journalAbs = locate(root, JOURNAL_FILE);
  fs.rmSync(journalAbs, { force: true });
  syncDir(path.dirname(journalAbs));
  return done;
}

// --- recovery -----------------------------------------------------------------------------

/**
 * Temp files a sync may have left: in the specs folder, its subfolders (project folders,
 * archive), the logs folder, and the real folders of TODO.md and state.json. Folders outside
 * the project are never looked at.
 */
function strayTemps(root) {
  const dirs = new Set();
  const add = (rel, parentOf = false) => {
    try {
      const abs = locate(root, rel);
      dirs.add(parentOf ? path.dirname(abs) : abs);
    } catch {
      // outside the project: never touched
    }
  };
  for (const rel of [SPECS_DIR, path.dirname(JOURNAL_FILE)]) add(rel);
  for (const rel of [TODO_FILE, STATE_FILE, ARCHIVE_STATE_FILE]) add(rel, true);
  try {
    for (const d of fs.readdirSync(locate(root, SPECS_DIR), { withFileTypes: true })) {
      if (d.isDirectory()) add(`${SPECS_DIR}/${d.name}`);
    }
  } catch {
    // no specs folder
  }
  const found = [];
  for (const dir of dirs) {
    let names = [];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) if (TEMP_NAME.test(name)) found.push(path.join(dir, name));
  }
  return found;
}

function journalPath(root) {
  try {
    const abs = locate(root, JOURNAL_FILE);
    return exists(abs) ? abs : null;
  } catch {
    return null;
  }
}

/** Finishes a committed journal and deletes stray temps; the caller holds the lock. */
function recoverLocked(root) {
  const report = { finished: false, renamed: [], moved: [], removed: [] };
  const journalAbs = journalPath(root);
  if (journalAbs) {
    let journal;
    try {
      journal = JSON.parse(fs.readFileSync(journalAbs, "utf8"));
    } catch (error) {
      throw syncError("sync_journal", JOURNAL_FILE, `cannot be read (${error.message}); inspect and delete it, then run \`nso status check\`.`);
    }
    if (!Array.isArray(journal?.files) || !Array.isArray(journal?.moves)) {
      throw syncError("sync_journal", JOURNAL_FILE, "is not a status-sync journal; inspect and delete it.");
    }
    const done = finish(root, journal, () => {});
    Object.assign(report, { finished: true, ...done });
  }
  for (const temp of strayTemps(root)) {
    fs.rmSync(temp, { force: true });
    report.removed.push(relTo(root, temp));
  }
  return report;
}

const realRoot = (worktree) => {
  try {
    return fs.realpathSync(worktree);
  } catch (error) {
    throw syncError(error.code === "ENOENT" ? "sync_missing_file" : "sync_io", worktree, `is not a readable project folder (${error.code}).`);
  }
};

/**
 * Finishes an interrupted sync: a committed journal is rolled forward (temps renamed onto
 * their targets, remaining folder moves done, journal deleted); temps of an uncommitted sync
 * are deleted; the lock of a dead sync is removed. Returns `{finished, renamed, moved,
 * removed, lockBroken}` (project-relative paths); takes no lock when there is nothing to do.
 */
export async function recoverStatusSync(worktree) {
  forgetRealPaths();
  const root = realRoot(worktree);
  let lockBroken = false;
  try {
    const file = locate(root, LOCK_FILE);
    lockBroken = breakIfStale(file, lockHolder(file));
  } catch {
    // the logs folder is outside the project: a sync there is refused anyway
  }
  if (!journalPath(root) && !strayTemps(root).length) return { finished: false, renamed: [], moved: [], removed: [], lockBroken };
  const handle = await lock(root);
  try {
    return { ...recoverLocked(root), lockBroken };
  } finally {
    unlock(handle);
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

function plan(root, op, args, agent, now) {
  const configText = readInput(root, CONFIG_FILE, false);
  const files = { todoPath: TODO_FILE, todoMd: readInput(root, TODO_FILE, true), statePath: STATE_FILE, stateJson: readInput(root, STATE_FILE, true) };
  if (op === "set") {
    const taskNumber = Number(args.taskNumber);
    if (!Number.isSafeInteger(taskNumber) || taskNumber < 0) throw syncError("sync_bad_input", "(input)", `task number ${JSON.stringify(args.taskNumber)} is not a non-negative integer.`);
    return askCore("planStatusSync", {
      ...files, ...projectState(root, taskNumber), taskNumber, newStatus: String(args.newStatus ?? ""), agent, nowIso: now, artifacts: args.artifacts ?? [],
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
 * or `archive`. Under the lock it recovers an interrupted sync, reads TODO.md, state.json
 * (and the project's or the archive's state.json), asks the core for the plan, lets
 * `authorize(files)` veto it (it throws to refuse; `files` are `{key, path, text, created}`),
 * commits it and verifies it by re-reading. Returns `{summary, files, moves, notes,
 * taskNumber, steps, recovered}`; throws an Error with `code` and `file` (nothing changed,
 * unless the code is `sync_incomplete` or `sync_verify_failed`).
 */
export async function runStatusSync({ worktree, op, args = {}, agent = "", now = isoNow(), authorize, crashAt } = {}) {
  forgetRealPaths();
  const root = realRoot(worktree);
  loadWorkflowCore(); // load the wasm before taking the lock: keep the lock short
  for (const rel of [TODO_FILE, STATE_FILE]) if (!exists(locate(root, rel))) throw missingFile(root, rel);
  const handle = await lock(root);
  try {
    const recovered = recoverLocked(root);
    forgetRealPaths();
    const p = plan(root, op, args, agent, now);
    const notes = [...p.notes];
    const writes = p.files.map((f) => ({ rel: f.path, abs: locate(root, f.path), text: f.text }));
    const moves = plannedMoves(root, p.moves, notes);
    if (authorize && p.files.length) authorize(p.files);
    const step = stepper(crashAt);
    if (writes.length || moves.length) {
      commit(root, writes, moves, step, handle);
      forgetRealPaths();
      verify(root, writes, moves);
    }
    return {
      summary: p.summary, files: writes.map((w) => w.rel), moves, notes,
      taskNumber: p.task_number ?? undefined, steps: step.count(), recovered,
    };
  } finally {
    unlock(handle);
  }
}
