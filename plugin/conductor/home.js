// The files of the conductor home ($CONDUCTOR_HOME, default ~/.conductor): where it is, making
// it, reading status.json and sprint.json, replacing status.json atomically (keeping the
// previous good state as status.json.last-good), appending log lines durably, and moving a
// corrupt state aside. Every write here happens under the lock (lock.js).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { syncDir, tempBeside, writeDurable } from "../atomic-file.js";
import { conductorError, homeError, LOCK_NAME } from "./lock.js";
import { pidExists } from "./liveness.js";
import { markStateDir } from "../state-dirs.js";

export const STATUS_FILE = "status.json";
export const LAST_GOOD_FILE = "status.json.last-good";
export const SPRINT_FILE = "sprint.json";
export const HISTORY_FILE = "history.jsonl";
export const CONFLICTS_FILE = "conflicts.log";
/** The core refuses a larger status.json (state_corrupt); it is not even read. */
export const MAX_STATE_BYTES = 16 << 20;
/** sprint.json is a few lines written by a person. */
const MAX_SPRINT_BYTES = 1 << 20;

/** `$CONDUCTOR_HOME` (absolute), else `~/.conductor`. */
export function resolveHome(home = process.env.CONDUCTOR_HOME) {
  return path.resolve(home || path.join(os.homedir(), ".conductor"));
}

/**
 * Makes sure `home` is a folder, creating it (mode 700) if missing; returns its real path.
 * Throws `conductor_home` with a fix otherwise. Whether it can be written shows when the
 * lock is taken (lock.js), which fails with the same code.
 */
export function ensureHome(home) {
  try {
    makeFolders(home);
    // The home ignores itself in git when someone puts it inside a repository (never a
    // repository's own top folder: that would hide the project).
    if (!fs.existsSync(path.join(home, ".git"))) markStateDir(home);
    const real = fs.realpathSync(home);
    if (!fs.statSync(real).isDirectory()) throw Object.assign(new Error("not a folder"), { code: "ENOTDIR" });
    return real;
  } catch (error) {
    throw homeError(home, error);
  }
}

/**
 * `mkdir -p` one level at a time (mode 700): Node's recursive mkdir never returns for a path
 * under /proc/self, and a home path is whatever the environment says.
 */
function makeFolders(dir) {
  const missing = [];
  for (let d = dir; !fs.existsSync(d) && path.dirname(d) !== d; d = path.dirname(d)) missing.push(d);
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d, { mode: 0o700 });
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
  }
}

/**
 * Reads `name` in `home`: its text, null when missing, or `{oversized: bytes}` past `limit`
 * (such a file is not read at all).
 */
export function readBounded(home, name, limit) {
  const file = path.join(home, name);
  let fd;
  try {
    fd = fs.openSync(file, "r");
  } catch (error) {
    if (error.code === "ENOENT") return null;
    throw conductorError("conductor_home", `${file} cannot be read (${error.code}).`, `Make ${file} readable by you.`);
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size > limit) return { oversized: size };
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}

export const readState = (home) => readBounded(home, STATUS_FILE, MAX_STATE_BYTES);

/** sprint.json's text, or null (missing, or too large to be one: then the gate has no sprint). */
export function readSprint(home) {
  const text = readBounded(home, SPRINT_FILE, MAX_SPRINT_BYTES);
  return typeof text === "string" ? text : null;
}

/**
 * Replaces status.json with `text`: a temp file beside it, fsynced, renamed over it, the
 * folder fsynced. When `keepPrevious`, the current status.json (a state the core accepted)
 * becomes status.json.last-good first, by a hard link renamed into place: the same bytes,
 * nothing copied, and at every moment both names hold a whole, good state.
 */
export function writeState(home, text, { keepPrevious }) {
  const target = path.join(home, STATUS_FILE);
  const temp = tempBeside(target);
  try {
    writeDurable(temp, text, 0o600);
    if (keepPrevious) keepLastGood(home);
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw conductorError("conductor_write", `${target} cannot be written (${error.code ?? error.message}); nothing was changed.`,
      `Make ${home} writable and check the disk has space.`);
  }
  syncDir(home);
}

function keepLastGood(home) {
  const current = path.join(home, STATUS_FILE);
  const lastGood = path.join(home, LAST_GOOD_FILE);
  const now = fs.statSync(current, { throwIfNoEntry: false });
  // Already the same file (a writer died between the two renames): nothing to keep. A rename
  // between two links of one file would do nothing and leave the temp link behind.
  if (!now || now.ino === fs.statSync(lastGood, { throwIfNoEntry: false })?.ino) return;
  const link = tempBeside(lastGood);
  try {
    fs.linkSync(current, link);
  } catch {
    // A file system without hard links: a durable copy instead.
    writeDurable(link, fs.readFileSync(current, "utf8"), 0o600);
  }
  fs.renameSync(link, lastGood);
}

/** Appends `lines` to `name` in one write, then fsyncs (a crash leaves whole lines). */
export function appendLines(home, name, lines) {
  if (!lines?.length) return;
  const file = path.join(home, name);
  try {
    const fd = fs.openSync(file, "a", 0o600);
    try {
      fs.writeSync(fd, lines.map((line) => `${line.replace(/\n+$/, "")}\n`).join(""));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    throw conductorError("conductor_write", `${file} cannot be appended to (${error.code ?? error.message}); nothing was changed.`,
      `Make ${file} writable and check the disk has space.`);
  }
}

/** `2026-11-23T10:00:00Z` -> `20261123T100000Z` (no colons: safe in every file name). */
export const compactTime = (iso) => iso.replace(/[-:]/g, "").replace(/\.\d+/, "");

/**
 * Moves `name` aside to `<name>.corrupt-<time>` (never deleted; `-2`, `-3`... when that name
 * is taken). Returns the new name, or null when the file was not there.
 */
export function moveAside(home, name, now) {
  const base = `${name}.corrupt-${compactTime(now)}`;
  let aside = base;
  for (let n = 2; fs.existsSync(path.join(home, aside)); n++) aside = `${base}-${n}`;
  try {
    fs.renameSync(path.join(home, name), path.join(home, aside));
  } catch (error) {
    if (error.code === "ENOENT") return null;
    throw conductorError("conductor_write", `${path.join(home, name)} cannot be moved aside (${error.code}).`, `Make ${home} writable.`);
  }
  syncDir(home);
  return aside;
}

/**
 * Removes what a process killed in the middle of a write left in `home`: temp files of
 * status.json (all writes happen under the lock, so any temp seen under it is stray) and
 * half-made or half-removed lock folders of processes that no longer run.
 */
export function removeStrays(home) {
  let names;
  try {
    names = fs.readdirSync(home);
  } catch {
    return;
  }
  for (const name of names) {
    const temp = /^\.status\.json(\.last-good)?\.nso-tmp-\d+-[0-9a-f]+$/.test(name);
    const lockPart = name.startsWith(`${LOCK_NAME}.`) && /^status\.lock\.(new|gone)-(\d+)-[0-9a-f]+$/.exec(name);
    if (temp || (lockPart && !pidExists(Number(lockPart[2])))) fs.rmSync(path.join(home, name), { recursive: true, force: true });
  }
}
