// The file system as NSO's decisions see it: the project root, real locations behind
// symlinks, bounded reads. The core asks these as facts for every call (see DISK_FACTS); no
// answer is kept between calls, because other calls, other windows and other processes may
// change the tree at any time.
import fs from "node:fs";
import path from "node:path";

/**
 * The project root for `.opencode/`: OpenCode's worktree (git root), else its directory,
 * else the process's working directory. OpenCode reports worktree "/" outside git.
 */
export function projectRoot({ directory, worktree } = {}) {
  if (worktree && worktree !== "/" && fs.existsSync(worktree)) return path.resolve(worktree);
  if (directory) return path.resolve(directory);
  return process.cwd();
}

/** A file's text, or undefined when it (or a folder on its way) does not exist. */
export function readText(file) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw error;
  }
}

// Paths here are absolute and normalised (path.resolve ran first), so plain slicing at the
// last "/" stands for path.dirname/basename/join.
const parentOf = (p) => (p.lastIndexOf("/") <= 0 ? "/" : p.slice(0, p.lastIndexOf("/")));
const nameOf = (p) => p.slice(p.lastIndexOf("/") + 1);
const joinTo = (dir, name) => (dir === "/" ? `/${name}` : `${dir}/${name}`);

/**
 * The real location of the absolute, normalised folder `dir`: in one native call when it
 * exists, else walked part by part (see {@link resolveLink}), so that parts that do not exist
 * yet are kept as written.
 */
function realDir(dir) {
  if (dir === "/") return dir;
  try {
    return fs.realpathSync.native(dir);
  } catch {
    const parent = realDir(parentOf(dir));
    return resolveLink(parent, joinTo(parent, nameOf(dir)))[0];
  }
}

/**
 * `[real path, exists]` of `candidate` (inside the real folder `dir`), following a symlink in
 * its last part; one lstat when it is not a link.
 */
function resolveLink(dir, candidate, depth = 0) {
  let stat;
  try {
    stat = fs.lstatSync(candidate, { throwIfNoEntry: false });
  } catch {
    // Not reachable (a file on the way, no permission, a loop, too long): nothing there that a
    // call could use or write either.
    return [candidate, false];
  }
  if (!stat) return [candidate, false];
  if (!stat.isSymbolicLink() || depth > 40) return [candidate, true];
  let target;
  try {
    target = fs.readlinkSync(candidate);
  } catch {
    return [candidate, true];
  }
  const next = path.resolve(dir, target);
  const nextDir = realDir(parentOf(next));
  return resolveLink(nextDir, joinTo(nextDir, nameOf(next)), depth + 1);
}

/**
 * `[real path, exists]` of the absolute path `abs`: symlinks in every folder on the way and
 * in the last part are followed (a dangling link: where a write would land, not existing);
 * parts that do not exist yet are kept as written. Looked up afresh on every call. Never throws.
 */
export function realPathInfo(abs) {
  const clean = path.resolve(abs);
  if (clean === "/") return ["/", true];
  const dir = realDir(parentOf(clean));
  return resolveLink(dir, joinTo(dir, nameOf(clean)));
}

/** The real location of the absolute path `abs` (see {@link realPathInfo}). */
export function realPath(abs) {
  return realPathInfo(abs)[0];
}

/**
 * A file's current text for a decision, its size (a number) when it is larger than
 * `maxBytes`, or undefined when it does not exist. Any other failure throws (the core then
 * refuses the call, naming the file and the reason).
 */
export function readForDecision(file, maxBytes = Infinity) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (stat.isFile() && stat.size > maxBytes) return stat.size;
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** The disk as the core's facts (`Nso.decideCall`): real paths, and bounded reads. */
export const DISK_FACTS = Object.freeze({ realPath: realPathInfo, read: readForDecision });

/** Whether each path (relative to `root`, or absolute) exists, and its size. */
export function fileFacts(root, paths) {
  const facts = {};
  for (const p of paths) {
    const stat = fs.statSync(path.resolve(root, p), { throwIfNoEntry: false });
    facts[p] = { exists: Boolean(stat), size: stat?.isFile() ? stat.size : 0 };
  }
  return facts;
}
