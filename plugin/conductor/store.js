// One conductor operation, end to end: the home folder, the lock, the state read, liveness
// of this host's instances, the core's decision (conductorApply), the durable writes, the
// lock released. The core decides everything; this module only moves bytes and facts.
//
// A status.json the core cannot read (state_corrupt) is moved aside (never deleted), the last
// good state is restored (or an empty one), the operation is retried once on it, and the
// event is reported loudly: `recovered` in the answer, and `errorLog`. No claim disappears
// without that report.
import os from "node:os";
import { loadCore } from "../core-loader.js";
import { acquireLock, conductorError } from "./lock.js";
import { aliveMap } from "./liveness.js";
import {
  appendLines, CONFLICTS_FILE, ensureHome, HISTORY_FILE, LAST_GOOD_FILE, MAX_STATE_BYTES, moveAside, readBounded,
  readSprint, readState, removeStrays, resolveHome, STATUS_FILE, writeState,
} from "./home.js";

/** Heartbeat TTL for instances of other hosts (and pid-less ones): the seed's one hour. */
export const DEFAULT_TTL_SECONDS = 3600;
const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** Six random characters of [a-z0-9], for a new instance id `{source}-{random6}`. */
export function random6() {
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(6)), (b) => ID_ALPHABET[b % 36]).join("");
}

/** The time as the state records it: ISO 8601, whole seconds, UTC (`2026-01-17T10:30:00Z`). */
export const isoSeconds = (date = new Date()) => date.toISOString().replace(/\.\d{3}Z$/, "Z");

/** The parsed state, or null when `text` is missing or not JSON (the core says why). */
function parseLoosely(text) {
  try {
    return typeof text === "string" ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/**
 * The request `conductorApply` takes (see docs/conductor-contract.md). A `random` that would
 * give a `start` an id already registered is replaced (the core refuses a taken id).
 */
export function buildRequest({ state, sprint, now, random, host, ttlSeconds, op }) {
  const parsed = parseLoosely(state);
  if (op?.operation === "start" && Array.isArray(parsed?.instances)) {
    const taken = new Set(parsed.instances.map((i) => i?.id));
    while (taken.has(`${op.source ?? "opc"}-${random}`)) random = random6();
  }
  return { state, sprint, now, random, host, alive: aliveMap(parsed, host), ttlSeconds, op };
}

/** Asks the core; a thrown error (a trap) becomes a store error, never a silent pass. */
export function apply(core, request) {
  try {
    return JSON.parse(core.conductorApply(JSON.stringify(request)));
  } catch (error) {
    throw conductorError("conductor_core", `the conductor core failed: ${error.message}`, "Report this with the operation that caused it.");
  }
}

/**
 * Moves the unreadable status.json aside and finds the state to go on with: last-good if the
 * core accepts it, else empty (a bad last-good is moved aside too). Returns the notice.
 */
function recover(core, home, request, problem) {
  const corrupt = moveAside(home, STATUS_FILE, request.now);
  let restored = LAST_GOOD_FILE;
  let text = readBounded(home, LAST_GOOD_FILE, MAX_STATE_BYTES);
  if (typeof text !== "string") {
    if (text) moveAside(home, LAST_GOOD_FILE, request.now);
    text = null;
    restored = null;
  } else {
    const check = apply(core, buildRequest({ ...request, state: text, op: { operation: "status" } }));
    if (check.error?.code === "state_corrupt") {
      moveAside(home, LAST_GOOD_FILE, request.now);
      text = null;
      restored = null;
    }
  }
  // status.json is whole again before anything else happens: an operation that fails now
  // must not leave the next one to start from "no status.json" (an empty state).
  if (text !== null) writeState(home, text, { keepPrevious: false });
  const message = `the conductor state ${home}/${STATUS_FILE} could not be read (${problem}); it was moved to ` +
    `${corrupt ?? "(gone already)"} and ` + (restored
    ? `the last good state (${restored}) was restored: the last change before the damage may be missing. ` +
      "Every instance should check `nso conductor status` and claim again what it needs."
    : "the conductor starts from an empty state: every claim is released. Every instance should start and claim again.");
  return { text, notice: { code: "state_recovered", corrupt, restored_from: restored, problem, message } };
}

/**
 * Runs one conductor operation `op` (seed 003 input, see the contract) under the lock of the
 * home folder. Returns `{result, error, recovered, changed}`: the core's seed-shaped result,
 * its error (`{code, message, fix}`) if it refused the request, the recovery notice when
 * status.json had to be moved aside, and whether status.json changed.
 * Throws (with `code` and `fix`) when the home folder or the lock cannot be used.
 *
 * `now`, `random` and `host` default to the clock, fresh randomness and os.hostname();
 * `errorLog(notice)` hears about recoveries; `core` defaults to the main wasm package;
 * `lock` passes `{staleMs, waitMs}` on; `insideLock(answer)` runs after the writes while the
 * lock is still held (tests use it to record what happened in lock order).
 */
export async function runConductor({
  home, op, now = isoSeconds(), random = random6(), host = os.hostname(), ttlSeconds = DEFAULT_TTL_SECONDS,
  errorLog, core = loadCore(), lock, insideLock,
} = {}) {
  const dir = ensureHome(resolveHome(home));
  // A lock lost to a stall is retried: nothing was written under it.
  for (let attempt = 0; ; attempt++) {
    const handle = await acquireLock(dir, lock);
    try {
      const answer = applyLocked({ core, dir, handle, errorLog, request: { now, random, host, ttlSeconds, op } });
      await insideLock?.(answer);
      return answer;
    } catch (error) {
      if (error.code !== "conductor_lock_lost" || attempt >= 2) throw error;
    } finally {
      await handle.release();
    }
  }
}

function applyLocked({ core, dir, handle, errorLog, request }) {
  removeStrays(dir);
  const read = readState(dir);
  const sprint = readSprint(dir);
  let state = typeof read === "string" ? read : null;
  let response = read?.oversized
    ? { error: { code: "state_corrupt", message: `status.json is ${read.oversized} bytes, over the limit of ${MAX_STATE_BYTES} bytes` } }
    : apply(core, buildRequest({ ...request, state, sprint }));
  let recovered = null;
  if (response.error?.code === "state_corrupt") {
    handle.assertHeld();
    const found = recover(core, dir, { ...request, sprint }, response.error.message);
    recovered = found.notice;
    errorLog?.(recovered);
    state = found.text;
    response = apply(core, buildRequest({ ...request, state, sprint }));
  }
  if (response.error) return { result: response.result ?? null, error: response.error, recovered, changed: false };
  const changed = typeof response.state === "string";
  if (changed || response.history?.length || response.conflicts?.length) {
    handle.assertHeld();
    // Log lines first: a crash before the state is replaced leaves a line twice at worst
    // (when the operation is repeated), never an instance removed without its history line.
    appendLines(dir, HISTORY_FILE, response.history);
    appendLines(dir, CONFLICTS_FILE, response.conflicts);
    if (changed) {
      handle.assertHeld();
      writeState(dir, response.state, { keepPrevious: state !== null });
    }
  }
  const result = recovered ? { ...response.result, recovered } : response.result;
  return { result, error: null, recovered, changed };
}
