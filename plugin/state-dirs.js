// NSO's runtime state folders (logs, raw lanes and T0 transcripts, handoffs, audit records,
// markers, the Conductor's home and feeds) ignore themselves in git: each holds a `.gitignore`
// of `*`, as Python tool caches do, so nothing of NSO's shows in `git status` or reaches a
// commit, whatever folder the config names. What people share on purpose (the decision
// ledger, task contracts, status files, templates) lives elsewhere and stays tracked.
import fs from "node:fs";
import path from "node:path";

/** The first line of the `.gitignore` NSO writes: how NSO knows a folder as its own. */
export const STATE_MARK = "# NSO runtime state: never committed (see docs/state.md)";
/** The whole `.gitignore` of a state folder: `*` ignores the folder's files and itself. */
export const IGNORE_TEXT = `${STATE_MARK}\n*\n`;

/**
 * Whether `dir` may be made a state folder of the project at `root`: never the root itself,
 * `.opencode/` or a folder above the root (their `*` would hide the user's own files).
 */
function mayIgnore(dir, root) {
  if (!root) return true;
  const r = path.resolve(root);
  const d = path.resolve(dir);
  return d !== r && d !== path.join(r, ".opencode") && !r.startsWith(d === "/" ? d : d + path.sep);
}

/**
 * Creates the state folder `dir` (and its parents) and makes it ignore itself: writes its
 * `.gitignore` when missing (a user's own `.gitignore` there is left alone). `root` (the
 * project) keeps the root and `.opencode/` from being ignored whole. Returns `dir`.
 */
export function makeStateDir(dir, { root, mode } = {}) {
  fs.mkdirSync(dir, { recursive: true, ...(mode ? { mode } : {}) });
  markStateDir(dir, { root });
  return dir;
}

/** Writes the `.gitignore` of an existing state folder `dir` when it has none; true when written. */
export function markStateDir(dir, { root } = {}) {
  if (!mayIgnore(dir, root)) return false;
  const file = path.join(dir, ".gitignore");
  if (fs.statSync(file, { throwIfNoEntry: false })) return false;
  try {
    fs.writeFileSync(file, IGNORE_TEXT, { flag: "wx" });
    return true;
  } catch (error) {
    if (error.code === "EEXIST") return false; // another process wrote it first
    throw error;
  }
}

/** Whether `dir` holds NSO's `.gitignore` (its first line is {@link STATE_MARK}). */
export function isStateDir(dir) {
  let fd;
  try {
    fd = fs.openSync(path.join(dir, ".gitignore"), "r");
    const head = Buffer.alloc(STATE_MARK.length);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return head.toString("utf8", 0, n) === STATE_MARK;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * A test of "is this file inside one of NSO's state folders" for the project at `root`
 * (`file` absolute or relative to it), looked up on disk and remembered by the returned
 * function only: make one per batch of records, since folders come and go between batches.
 */
export function stateFolderTest(root) {
  const known = new Map(); // folder -> bool
  const base = path.resolve(root);
  return (file) => {
    if (typeof file !== "string" || !file) return false;
    let dir = path.dirname(path.resolve(base, file));
    const seen = [];
    let answer = false;
    for (let i = 0; i < 64; i++) {
      if (known.has(dir)) {
        answer = known.get(dir);
        break;
      }
      seen.push(dir);
      if (isStateDir(dir)) {
        answer = true;
        break;
      }
      const up = path.dirname(dir);
      if (up === dir || dir === base) break;
      dir = up;
    }
    for (const d of seen) known.set(d, answer);
    return answer;
  };
}
