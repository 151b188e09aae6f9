// The model of Mission Control (docs/mission-control.md, part 2): what every agent on this
// machine is doing, from the Conductor's registry and the activity feeds. The pure parts
// (the snapshot and its deltas) are in agents.js, the file reading in feeds.js, one agent's
// details in inspector.js; this module adds the one reader, `readSnapshot`, and is the API
// the server (`nso mc`) and the terminal (`nso status`) import.
import os from "node:os";
import path from "node:path";
import { CONFLICTS_FILE, HISTORY_FILE, MAX_STATE_BYTES, readBounded, resolveHome, STATUS_FILE } from "../../plugin/conductor/home.js";
import { isProcessAlive } from "../../plugin/conductor/liveness.js";
import { DEFAULT_TTL_SECONDS } from "../../plugin/conductor/store.js";
import { buildSnapshot, LOG_TAIL } from "./agents.js";
import { readFeeds, readLastLines } from "./feeds.js";
import { inspectRow } from "./inspector.js";

export { buildSnapshot, compareRows, diffSnapshots, FORGET_DEAD_MS, MAX_SESSIONS, STATES, WORKING_WINDOW_MS } from "./agents.js";
export { ACTIVITY_DIR, DEFAULT_TAIL_BYTES, parseFeedText, readFeed, readFeeds, readLastLines, readTail } from "./feeds.js";
export { attachCommand, contractStatus, MAX_CALLS, TRANSCRIPT_LINES } from "./inspector.js";

/**
 * The Conductor's state in `home`: `{ state, problems }`, `state` the parsed status.json or
 * null when it is missing, too large, unreadable or not a JSON object (each of which is one
 * line in `problems`, for the person to see). Never throws.
 */
export function readState(home) {
  let text;
  try {
    text = readBounded(home, STATUS_FILE, MAX_STATE_BYTES);
  } catch (error) {
    return { state: null, problems: [`${STATUS_FILE}: ${error.message}`] };
  }
  if (text === null) return { state: null, problems: [`${STATUS_FILE}: missing (no instance registered with the Conductor yet): no claims shown`] };
  if (typeof text !== "string") return { state: null, problems: [`${STATUS_FILE}: ${text.oversized} bytes, over the limit of ${MAX_STATE_BYTES}: not read`] };
  try {
    const state = JSON.parse(text);
    if (state && typeof state === "object" && !Array.isArray(state)) return { state, problems: [] };
    return { state: null, problems: [`${STATUS_FILE}: not a JSON object: no claims shown (the next Conductor operation recovers it)`] };
  } catch (error) {
    return { state: null, problems: [`${STATUS_FILE}: not valid JSON (${error.message}): no claims shown (the next Conductor operation recovers it)`] };
  }
}

/**
 * Whether the process `pid` of `host` runs, as the Conductor judges its own instances: on
 * this host, the pid exists and is not a zombie; on another host it cannot be told (null), and
 * the snapshot falls back to the feed's age against the Conductor's heartbeat TTL.
 */
export function processAlive(pid, host, thisHost = os.hostname()) {
  if (host !== null && host !== undefined && host !== thisHost) return null;
  return isProcessAlive(pid, null);
}

/**
 * Reads everything and builds the snapshot: status.json (tolerant), the feeds (their last
 * `tailBytes`, or the `feeds` given), the last {@link LOG_TAIL} lines of conflicts.log and
 * history.jsonl, the liveness of each instance. `home` defaults to the Conductor's home
 * ($CONDUCTOR_HOME, else ~/.conductor). Never throws on bad data.
 */
export function readSnapshot({ home, now = Date.now(), tailBytes, feeds, alive = processAlive, ttlMs = DEFAULT_TTL_SECONDS * 1000 } = {}) {
  const dir = resolveHome(home);
  const { state, problems } = readState(dir);
  return buildSnapshot({
    state, now, alive, ttlMs, problems,
    feeds: feeds ?? readFeeds(dir, tailBytes === undefined ? {} : { tailBytes }),
    conflicts: readLastLines(path.join(dir, CONFLICTS_FILE), LOG_TAIL),
    history: readLastLines(path.join(dir, HISTORY_FILE), LOG_TAIL),
  });
}

/**
 * The inspector of the agent row `key` (see the contract): `{ row, calls, lastError, contract,
 * tree, claims, transcript, handoff, attach }`, or null when no row has that key. `feeds`
 * default to the feeds of `home`; pass the `snapshot` they were shown from to describe the
 * same moment (else one is read). `lastError` is the newest call NSO objected to (block, soft
 * or warn).
 */
export function inspect({ feeds, key, home, now = Date.now(), snapshot, alive = processAlive } = {}) {
  const dir = resolveHome(home);
  const used = feeds ?? readFeeds(dir);
  return inspectRow({ feeds: used, key, snapshot: snapshot ?? readSnapshot({ home: dir, now, feeds: used, alive }) });
}
