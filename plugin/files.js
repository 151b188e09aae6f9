// The file system as NSO's decisions see it: the project root, real locations behind
// symlinks (cached between calls), and the lookups the core asks for.
import fs from "node:fs";
import path from "node:path";
import { readBounded } from "./bounds.js";

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

/**
 * Real locations of folders, cached between tool calls: every call resolves its paths, and
 * libc realpath costs several syscalls. The cache is set aside while a call that may change
 * the file system runs, and cleared when it ends or the host reports a file event (see
 * {@link changeBegins}, {@link forgetChangedBy}).
 */
const realDirs = new Map();
/**
 * `[real path, exists]` of files asked about since the last change, under the same rule: the
 * same file is asked about again and again (reads, then edits of it) while nothing changes.
 * Folders walked part by part are kept here too, so a file in a folder found missing needs no
 * lstat, and a folder asked about both ways is looked up once.
 */
const realFiles = new Map();
const MAX_CACHED_FILES = 4096;

/**
 * Project roots NSO decides for, by real path: `{dev, ino}` of the folder. Their real location
 * is checked once after each change by one lstat (the same folder, by device and inode, still
 * at that path, not a link), and folders just below one (see {@link ANCHORED_DEPTH}) are
 * walked from it, an lstat a level: cheaper than libc realpath from "/" for the folders most
 * calls name (`src/`, the root itself). A root found moved or swapped is resolved as any
 * other folder. Why the folders above a root need no check: if the root's path still names
 * the same folder, a path below it is looked up inside that folder (the walk checks each level
 * below it for links), wherever the folder now is, so nothing below the root can have turned
 * into a place outside it. Tested in tests/node/files.test.mjs.
 */
const anchors = new Map();
const MAX_ANCHORS = 64;
/** How many levels below a root a folder is walked from it (beyond, realpath is cheaper). */
const ANCHORED_DEPTH = 2;

/**
 * Marks `dir`, a project root, as an anchor (see {@link anchors}); nothing when it does not
 * exist or is "/".
 */
export function anchorAt(dir) {
  const real = existingReal(dir);
  const stat = real && real !== "/" ? fs.lstatSync(real, { throwIfNoEntry: false }) : undefined;
  if (!stat?.isDirectory()) return;
  if (anchors.size >= MAX_ANCHORS && !anchors.has(real)) anchors.clear();
  anchors.set(real, { dev: stat.dev, ino: stat.ino });
}

/**
 * The real location of `dir` found from an anchor: `dir` itself when it is an anchor still in
 * place, a folder at most {@link ANCHORED_DEPTH} levels below one walked from it; else
 * undefined (resolve it as any folder).
 */
function anchoredReal(dir) {
  if (anchors.size === 0) return undefined;
  const known = anchors.get(dir);
  if (known) return sameFolder(dir, known) ? dir : undefined;
  let above = dir;
  for (let depth = 0; depth < ANCHORED_DEPTH && above !== "/"; depth++) {
    above = parentOf(above);
    if (anchors.has(above)) return walkDir(dir);
  }
  return undefined;
}

/** Whether `dir` is (not links to) the folder `{dev, ino}`. */
function sameFolder(dir, { dev, ino }) {
  let stat;
  try {
    // No options: Bun spends about a quarter of an lstat parsing an options object, and a
    // root is nearly always there, so the throw when it is not is rare.
    stat = fs.lstatSync(dir);
  } catch {
    return false;
  }
  return stat.isDirectory() && stat.dev === dev && stat.ino === ino;
}

/** Forgets cached locations (after anything that may have changed the tree). */
export function forgetRealPaths() {
  realDirs.clear();
  realFiles.clear();
}

/**
 * Whether a call that may change anything runs (see {@link changeBegins}): the cache is then
 * neither read nor filled, and what it holds is looked up again when the call ends.
 */
let changing = false;
/** How many of the files cached before a change are looked up again after it (the latest). */
export const MAX_RECHECKED = 64;

/**
 * Tools that only write a file's content, creating the file and its missing folders: OpenCode's
 * `write` and `edit` (no rename, no delete, no symlink). What they change cannot move an
 * existing path, so only the cached answers "does not exist" can turn stale.
 */
const CONTENT_WRITERS = new Set(["write", "edit"]);

/**
 * Tools that change nothing themselves: a `task` runs a subagent whose own calls go through
 * the hooks, each beginning and ending its change. (Its end still forgets everything.)
 */
const DELEGATING = new Set(["task"]);

/**
 * A call of `tool` is about to run (the host's before hook let it through). Unless it only
 * writes content (`write`, `edit`) or delegates (`task`), the cache is set aside until a
 * change ends (see {@link forgetChangedBy}): a call decided while it runs (a host may run
 * calls side by side) resolves its paths as they are then, and if its end is never reported
 * (a tool that throws, or that the host's own permissions refuse, has no after hook), nothing
 * cached before it is trusted until another change ends.
 */
export function changeBegins(tool) {
  if (!CONTENT_WRITERS.has(tool) && !DELEGATING.has(tool)) changing = true;
}

/**
 * Forgets what a finished call of `tool` may have made stale. After `write` or `edit`, the
 * files cached as missing (one of them may now exist, also behind a symlink or in a new
 * folder); a folder cached while missing keeps its location when `mkdir` creates it, and
 * existing paths keep theirs. After any other tool (bash, apply_patch, unknown ones may move,
 * delete or swap anything for a symlink), everything; then the files that were cached (at
 * most the latest {@link MAX_RECHECKED}) are looked up again at once, in the host's after
 * hook of the call that may have changed them, so that the next calls, which name the same
 * files again and again, find them already checked. That is the lookup the next call would
 * make, made earlier: in both cases what changes after it is seen when the next change ends
 * or the host reports a file event.
 */
export function forgetChangedBy(tool) {
  if (CONTENT_WRITERS.has(tool)) {
    for (const [abs, [, exists]] of realFiles) if (!exists) realFiles.delete(abs);
    return;
  }
  const names = [...realFiles.keys()].slice(-MAX_RECHECKED);
  changing = false;
  forgetRealPaths();
  for (const abs of names) cachedPathInfo(abs);
}

// Paths here are absolute and normalised (path.resolve ran first), so plain slicing at the
// last "/" replaces path.dirname/basename/join on this per-call path.
const parentOf = (p) => (p.lastIndexOf("/") <= 0 ? "/" : p.slice(0, p.lastIndexOf("/")));
const nameOf = (p) => p.slice(p.lastIndexOf("/") + 1);
const joinTo = (dir, name) => (dir === "/" ? `/${name}` : `${dir}/${name}`);

/**
 * The real location of the absolute, normalised folder `dir`: in one native call when it
 * exists (in Bun, `open` + `readlink` of its descriptor whatever its depth, where a walk takes
 * an lstat per part), else walked part by part (see {@link resolveLink}), so that parts that
 * do not exist yet are kept as written.
 */
function realDir(dir) {
  let real = changing ? undefined : realDirs.get(dir);
  if (real === undefined) {
    real = anchoredReal(dir) ?? existingReal(dir) ?? walkDir(dir);
    if (!changing) realDirs.set(dir, real);
  }
  return real;
}

/** `dir`'s real location, or undefined when it (or what a link in it names) does not exist. */
function existingReal(dir) {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return undefined;
  }
}

/** `dir` walked part by part: its `[real path, exists]` as a file's, so it is kept with theirs. */
function walkDir(dir) {
  return dir === "/" ? dir : cachedPathInfo(dir)[0];
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
 * parts that do not exist yet are kept as written. Never throws.
 */
export function realPathInfo(abs) {
  // Normalise only what may need it ("/." also catches "/./" and "/../").
  const plain = abs.startsWith("/") && !abs.includes("/.") && !abs.includes("//") && !abs.endsWith("/");
  const clean = plain ? abs : path.resolve(abs);
  if (clean === "/") return ["/", true];
  const parent = parentOf(clean);
  const dir = realDir(parent);
  // In a folder found missing (a walked folder is kept with the files), nothing exists: no lstat.
  if (!changing && realFiles.get(parent)?.[1] === false) return [joinTo(dir, nameOf(clean)), false];
  return resolveLink(dir, joinTo(dir, nameOf(clean)));
}

/**
 * {@link realPathInfo}, remembered until {@link forgetRealPaths}: what a tool call's decision
 * asks (the host clears it after every write-class call and every file event). The status
 * sync, which moves files itself, asks {@link realPathInfo}.
 */
export function cachedPathInfo(abs) {
  if (changing) return realPathInfo(abs);
  let info = realFiles.get(abs);
  if (info === undefined) {
    info = realPathInfo(abs);
    if (realFiles.size >= MAX_CACHED_FILES) realFiles.clear();
    realFiles.set(abs, info);
  }
  return info;
}

/** The real location of the absolute path `abs` (see {@link realPathInfo}). */
export function realPath(abs) {
  return realPathInfo(abs)[0];
}

/**
 * Answers the core's lookups `{resolve, content, exists}` into `request`'s maps. A file
 * larger than `contentBytes` is not read: it goes into `request.oversized` with its size,
 * and the checks that need it fail closed.
 */
export function gatherLookups(request, need, contentBytes = Infinity) {
  request.resolved ??= {};
  request.contents ??= {};
  request.exists ??= {};
  for (const p of need.resolve) request.resolved[p] = cachedPathInfo(p)[0];
  for (const p of need.content) {
    const text = readBounded(p, contentBytes);
    if (typeof text === "object") (request.oversized ??= {})[p] = text.oversized;
    else request.contents[p] = text ?? null;
  }
  // Whether the real location exists: what existsSync answers (links followed), cached.
  for (const p of need.exists) request.exists[p] = cachedPathInfo(p)[1];
}

/** Whether each path (relative to `root`, or absolute) exists, and its size. */
export function fileFacts(root, paths) {
  const facts = {};
  for (const p of paths) {
    const stat = fs.statSync(path.resolve(root, p), { throwIfNoEntry: false });
    facts[p] = { exists: Boolean(stat), size: stat?.isFile() ? stat.size : 0 };
  }
  return facts;
}
