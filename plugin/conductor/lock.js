// The Conductor's lock on $CONDUCTOR_HOME: `status.lock`, taken through NSO's one lock module
// (../lock.js), with the Conductor's own error codes and fixes.
import path from "node:path";
import { nsoError } from "../errors.js";
import { acquireLock as acquireLockDir, STALE_MS } from "../lock.js";

export const LOCK_NAME = "status.lock";

/** An Error with a stable `code` and a `fix`: NSO's one error shape, under the Conductor's codes. */
export const conductorError = nsoError;

/**
 * Takes the conductor lock of the home folder `home` (which exists); see `acquireLock` in
 * ../lock.js for the waiting, the stale takeover and the returned `{assertHeld, release}`.
 */
export function acquireLock(home, { staleMs = STALE_MS, waitMs } = {}) {
  const dir = path.join(home, LOCK_NAME);
  return acquireLockDir(dir, {
    staleMs,
    waitMs,
    errors: {
      locked: (holder, waitedMs) => conductorError("conductor_locked", `the conductor lock ${dir} is held by ${holder}; waited ${waitedMs / 1000} s.`,
        `Try again. A lock whose holder is gone is broken after ${staleMs / 1000} s; if it is not, remove ${dir}.`),
      lost: () => conductorError("conductor_lock_lost", `the conductor lock ${dir} was taken over while this operation held it ` +
        `(it stalled for more than ${staleMs / 1000} s); nothing was written.`, "Run the command again."),
      io: (error) => homeError(home, error),
    },
  });
}

/** A clear error for a conductor home that cannot be used (read-only, not a folder, ...). */
export function homeError(home, error) {
  const why = error.code === "EEXIST" || error.code === "ENOTDIR" ? "is not a folder" : `cannot be written (${error.code ?? error.message})`;
  return conductorError("conductor_home", `the conductor home ${home} ${why}; the conductor cannot record claims there.`,
    `Make ${home} a folder you can write (mode 700), or set CONDUCTOR_HOME to one.`);
}
