// The durable half of the atomic status sync: where the specs files really are (never
// through a link out of the project), an inter-process lock, temp files written with fsync,
// a journal renamed into place as the commit point, the renames, and recovery after a crash.
// status-sync.js plans and verifies; this module only moves bytes safely.
import fs from "node:fs";
import path from "node:path";
import { syncDir, tempBeside, writeDurable } from "./atomic-file.js";
import { realPathInfo } from "./decision/files.js";
import { nsoError } from "./errors.js";
import { acquireLock, breakIfOwnerDead } from "./lock.js";
import { makeStateDir } from "./state-dirs.js";

export const SPECS_DIR = ".opencode/specs";
export const TODO_FILE = `${SPECS_DIR}/TODO.md`;
export const STATE_FILE = `${SPECS_DIR}/state.json`;
export const ARCHIVE_STATE_FILE = `${SPECS_DIR}/archive/state.json`;
const JOURNAL_FILE = ".opencode/logs/status-sync.journal.json";
/** The sync lock, a folder (see ./lock.js); the file `status-sync.lock` of older versions is not read. */
const LOCK_DIR = ".opencode/logs/status-sync.lock.d";
/** A lock not refreshed for this long is a leftover (its holder stopped). */
const LOCK_STALE_MS = 30_000;
/** How long a sync waits for another to finish (syncs take milliseconds; a loaded machine, more). */
const LOCK_WAIT_MS = 5_000;
/** Temp files: `.<name>.nso-tmp-<pid>-<hex>`, next to their target (same file system). */
const TEMP_NAME = /^\..+\.nso-tmp-\d+-[0-9a-f]+$/;

/** An Error with a stable `code` and the `file` (project-relative) it is about. */
export function syncError(code, file, message, line) {
  const where = line ? `${file}:${line}` : file;
  return nsoError(code, `${where}: ${message}`, undefined, { file, line });
}

const within = (root, p) => p === root || p.startsWith(root + path.sep);

/**
 * The real location of the project-relative `rel` (symlinks followed, also dangling ones).
 * Anything that lands outside the project is refused: NSO never writes through a link out.
 */
export function locate(root, rel) {
  const abs = path.resolve(root, rel);
  const [real] = realPathInfo(abs);
  if (!within(root, abs) || !within(root, real)) {
    throw syncError("sync_path_escape", rel, `resolves to ${real}, outside the project ${root}; NSO writes ` +
      "status files only inside the project. Replace the symlink with a real folder, or run in the project that owns the files.");
  }
  return real;
}

/** Like {@link locate}, for an entry that is moved as it is (a symlink moves as a link). */
export function locateEntry(root, rel) {
  return path.join(locate(root, path.dirname(rel)), path.basename(rel));
}

export const exists = (abs) => fs.lstatSync(abs, { throwIfNoEntry: false }) !== undefined;
export const relTo = (root, abs) => path.relative(root, abs).split(path.sep).join("/");

// --- lock ------------------------------------------------------------------------------

/** Takes the exclusive sync lock (waits up to 5 s); returns its handle (`release()` frees it). */
export async function lock(root) {
  const dir = locate(root, LOCK_DIR);
  try {
    makeStateDir(path.dirname(dir), { root });
  } catch (error) {
    throw syncError("sync_io", path.dirname(LOCK_DIR), `cannot be created (${error.code}); make .opencode writable.`);
  }
  return acquireLock(dir, {
    staleMs: LOCK_STALE_MS,
    waitMs: LOCK_WAIT_MS,
    errors: {
      locked: (holder) => syncError("sync_locked", LOCK_DIR, `another status sync (${holder}) holds the lock; try again in a moment. ` +
        `If no sync is running, delete ${LOCK_DIR}.`),
      lost: () => syncError("sync_locked", LOCK_DIR, "this sync lost its lock (it stalled and was taken over); nothing was written, run it again."),
      io: (error) => syncError("sync_io", LOCK_DIR, `cannot be created (${error.code}); make .opencode/logs writable.`),
    },
  });
}

// --- durable writes ----------------------------------------------------------------------

/**
 * Test-only crash injection: with `NSO_SYNC_CRASH_AT=<n>` (or the `crashAt` option) the
 * process kills itself with SIGKILL right before write step n. Steps are counted across one
 * transaction: each temp write, the journal's temp write, the journal rename (the commit
 * point), each rename onto a target, each directory move, the journal delete.
 */
export function stepper(crashAt) {
  const at = Number(crashAt ?? process.env.NSO_SYNC_CRASH_AT) || 0;
  let count = 0;
  const step = () => {
    count++;
    if (count === at) process.kill(process.pid, "SIGKILL");
  };
  step.count = () => count;
  return step;
}

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
export function commit(root, writes, moves, step, handle) {
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
    handle.assertHeld();
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
export function recoverLocked(root) {
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

export const realRoot = (worktree) => {
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
  const root = realRoot(worktree);
  let lockBroken = false;
  try {
    lockBroken = breakIfOwnerDead(locate(root, LOCK_DIR));
  } catch {
    // the logs folder is outside the project: a sync there is refused anyway
  }
  if (!journalPath(root) && !strayTemps(root).length) return { finished: false, renamed: [], moved: [], removed: [], lockBroken };
  const handle = await lock(root);
  try {
    return { ...recoverLocked(root), lockBroken };
  } finally {
    await handle.release();
  }
}
