// NSO's one inter-process lock: a folder made with proper-lockfile (mkdir is atomic everywhere,
// also on network file systems; the holder refreshes its mtime every second, so a lock
// untouched for `staleMs` is stale and is broken). The Conductor's home, the decision ledger
// and the status sync each take theirs through `acquireLock`.
//
// proper-lockfile breaks a stale lock with stat, then rmdir: two waiters that both judged the
// same lock stale can remove each other's fresh lock and both "hold" it (its issue #121). So
// the folder operations it makes go through `guardedFs`:
// - a lock folder is created complete: a temp folder with `owner.json` (pid, host, process
//   token, a random nonce) renamed into place. A rename never replaces a non-empty folder, so
//   an existing lock is never replaced;
// - a lock is removed by renaming it aside (of two breakers only one wins) and checking that
//   what was taken is the lock that was judged (same owner, still stale; for an unlock: ours).
//   A wrong one is put back.
// A lock whose owner is a dead process of this host is broken at once, without waiting.
// Before it writes, the holder checks that the lock is still its own (`assertHeld`).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomHex } from "./atomic-file.js";
import { loadDependency } from "./dependencies.js";
import { nsoError } from "./errors.js";
import { isProcessAlive, processStartToken } from "./conductor/liveness.js";

const OWNER_FILE = "owner.json";
/** A lock not refreshed for this long is stale (its holder is stuck or gone). */
export const STALE_MS = 5_000;
/** How often a holder refreshes its lock; proper-lockfile allows 1 s to stale/2. */
const UPDATE_MS = 1_000;
/** How long to wait for the lock before giving up; more than STALE_MS, so a stale lock is always broken first. */
export const WAIT_MS = 15_000;

/** Owner texts of the locks this process holds (or is taking) now. */
const held = new Set();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));


function readOwner(dir) {
  try {
    return fs.readFileSync(path.join(dir, OWNER_FILE), "utf8");
  } catch {
    return null;
  }
}

function parseOwner(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Removes the lock `dir` if it is the one whose owner file reads `expected` (null: a lock
 * without a readable owner file) and `judge(stat)` agrees: renamed aside (of two removers
 * only one wins), checked, then deleted; a wrong one is put back (that fails only if a new
 * lock is already in place, which means the one taken had been superseded). The owner is
 * read first so that a lock plainly not the one meant is not even moved (a lock moved aside
 * for a moment looks missing to its holder). Returns whether it removed the lock.
 */
function removeIf(dir, expected, judge = () => true) {
  if (readOwner(dir) !== expected) return false;
  const aside = `${dir}.gone-${process.pid}-${randomHex(4)}`;
  try {
    fs.renameSync(dir, aside);
  } catch (error) {
    if (error.code === "ENOENT") return false;
    throw error;
  }
  let meant = false;
  try {
    meant = readOwner(aside) === expected && judge(fs.statSync(aside));
  } catch {
    // unreadable: treat as not meant
  }
  if (!meant) {
    try {
      fs.renameSync(aside, dir);
      return false;
    } catch {
      // a newer lock is in place; the one taken is gone for good
    }
  }
  fs.rmSync(aside, { recursive: true, force: true });
  return meant;
}

/**
 * The fs proper-lockfile uses for a lock folder (see the header). `state` is this
 * acquisition's (`{mine, seen}`): the owner text once the lock is ours, and what was last
 * seen of the lock (`{owner, ino}`) while it was someone else's. Exported for tests.
 */
export function guardedFs(ownerText, state, staleMs) {
  return {
    stat(file, callback) {
      fs.stat(file, (error, stat) => {
        if (!error && state.mine === null) state.seen = { owner: readOwner(file), ino: stat.ino };
        callback(error, stat);
      });
    },
    utimes: (file, atime, mtime, callback) => fs.utimes(file, atime, mtime, callback),
    mkdir(file, callback) {
      const temp = `${file}.new-${process.pid}-${randomHex(4)}`;
      try {
        fs.mkdirSync(temp, { mode: 0o700 });
        fs.writeFileSync(path.join(temp, OWNER_FILE), ownerText);
        fs.renameSync(temp, file);
        state.mine = ownerText;
        held.add(ownerText);
        callback(null);
      } catch (error) {
        fs.rmSync(temp, { recursive: true, force: true });
        const exists = error.code === "ENOTEMPTY" || error.code === "EEXIST";
        callback(exists ? Object.assign(new Error(`${file} exists`), { code: "EEXIST" }) : error);
      }
    },
    rmdir(file, callback) {
      try {
        this.rmdirSync(file);
        callback(null);
      } catch (error) {
        callback(error);
      }
    },
    rmdirSync(file) {
      if (state.mine !== null) {
        removeIf(file, state.mine);
        return;
      }
      // Breaking a stale lock: only the one judged stale, and only if it still is.
      const seen = state.seen;
      if (seen) removeIf(file, seen.owner, (stat) => stat.ino === seen.ino && stat.mtimeMs < Date.now() - staleMs);
    },
  };
}

/**
 * Breaks the lock in `dir` if its owner is a process of this host that no longer runs, or
 * this process without holding it (an attempt that failed half-way left it).
 */
export function breakIfOwnerDead(dir) {
  const text = readOwner(dir);
  const owner = text && parseOwner(text);
  if (!owner || owner.host !== os.hostname()) return false;
  const abandoned = owner.pid === process.pid ? !held.has(text) : !isProcessAlive(owner.pid, owner.started ?? null);
  return abandoned && removeIf(dir, text);
}

/** Who holds the lock in `dir`, for messages: `pid 123 on host h since T`, or "unknown". */
function describeHolder(dir) {
  const owner = parseOwner(readOwner(dir) ?? "");
  return owner ? `pid ${owner.pid} on ${owner.host} since ${owner.at}` : "a holder that left no owner file";
}

let ownStartToken;
/** proper-lockfile, loaded on first use: the plugin's start does not pay for it. */
let lockfile;

/**
 * Takes the lock folder `dir` (its parent exists). Waits up to `waitMs`, breaking a stale lock
 * (not refreshed for `staleMs`) or one of a dead process of this host. `errors` words the
 * failures for the caller's domain: `locked(holder, waitedMs)` when the wait ran out,
 * `lost()` when the lock was taken over while held, `io(error)` when the folder cannot be
 * made. Returns `{assertHeld(), release()}`: `assertHeld` throws `errors.lost()` when the lock
 * was broken meanwhile (the holder stalled past `staleMs`); nothing may be written then.
 */
export async function acquireLock(dir, { staleMs = STALE_MS, waitMs = WAIT_MS, errors = plainErrors(dir) } = {}) {
  ownStartToken ??= processStartToken(process.pid);
  lockfile ??= (await loadDependency(() => import("proper-lockfile"))).default;
  const parent = path.dirname(dir);
  const deadline = Date.now() + waitMs;
  let pause = 4;
  for (;;) {
    // Each attempt has its own owner file: a failed one can never be mistaken for the next.
    const ownerText = JSON.stringify({
      pid: process.pid, host: os.hostname(), started: ownStartToken, at: new Date().toISOString(), nonce: randomHex(8),
    });
    const state = { mine: null, seen: null, compromised: null };
    const options = {
      lockfilePath: dir,
      realpath: false,
      stale: staleMs,
      update: UPDATE_MS,
      retries: 0,
      fs: guardedFs(ownerText, state, staleMs),
      // proper-lockfile's default throws from a timer (it would crash the host); the holder
      // checks this before writing instead.
      onCompromised: (error) => {
        state.compromised = error;
      },
    };
    try {
      const release = await lockfile.lock(dir, options);
      return lockHandle(dir, ownerText, state, errors, release);
    } catch (error) {
      held.delete(ownerText);
      // ENOENT with the parent in place: a breaker had our new lock aside for a moment.
      if (error.code !== "ELOCKED" && !(error.code === "ENOENT" && fs.existsSync(parent))) throw errors.io(error);
    }
    if (breakIfOwnerDead(dir)) continue;
    if (Date.now() >= deadline) throw errors.locked(describeHolder(dir), waitMs);
    await sleep(pause + Math.random() * pause);
    pause = Math.min(pause * 1.5, 50);
  }
}

/** Plain wording, for callers that need no other. */
function plainErrors(dir) {
  return {
    locked: (holder, waitedMs) => nsoError("lock_held", `the lock ${dir} is held by ${holder}; waited ${waitedMs / 1000} s.`,
      `Try again. If no NSO process is running, remove ${dir}.`),
    lost: () => nsoError("lock_lost", `the lock ${dir} was taken over while this operation held it; nothing was written.`, "Run it again."),
    io: (error) => nsoError("lock_io", `the lock ${dir} cannot be made (${error.code ?? error.message}).`,
      `Make ${path.dirname(dir)} a folder you can write.`),
  };
}

function lockHandle(dir, ownerText, state, errors, release) {
  return {
    assertHeld() {
      if (state.compromised || readOwner(dir) !== ownerText) throw errors.lost();
    },
    async release() {
      held.delete(ownerText);
      try {
        await release();
      } catch {
        // proper-lockfile gave it up (compromised): remove it if it is still ours after all
        removeIf(dir, ownerText);
      }
    },
  };
}
