// The live snapshot behind `nso mc`: the model (bin/mc/model.js) fed by what changes on disk.
// fs.watch on the Conductor's home and its activity folder marks what to read again (the
// feeds, status.json, the logs); a change is read after a few milliseconds (changes that come
// together are read once), the snapshot rebuilt and, when it differs, the delta handed on. A
// tick each second rebuilds from what is in memory with the time and the processes' liveness
// (a session turns idle, a killed OpenCode turns dead), and compares each file's size and
// time with what was read, which catches a change the watcher missed (a full inotify queue,
// a file system without notifications). Nothing is polled but that tick.
import fs from "node:fs";
import path from "node:path";
import { CONFLICTS_FILE, HISTORY_FILE, STATUS_FILE } from "../../plugin/conductor/home.js";
import { DEFAULT_TTL_SECONDS } from "../../plugin/conductor/store.js";
import * as model from "./model.js";
import { readLastLines } from "./feeds.js";

const { ACTIVITY_DIR, buildSnapshot, diffSnapshots, processAlive, readFeeds, readState } = model;
/** A feed file (current or rotated) and the key it belongs to. */
const FEED_FILE = /^(.+)\.jsonl(\.1)?$/;
/** Above this many feeds each change reads them all (readFeeds keeps the newest 200). */
const MAX_CACHED_FEEDS = 200;

/** Lines of conflicts.log and history.jsonl read (the snapshot keeps the last 50). */
const LOG_LINES = 200;

/** `size:mtime` of `file` (a change shows as a different string), or null when it is missing. */
function stamp(file) {
  try {
    const s = fs.statSync(file);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}

/**
 * The live model of the Conductor home `home` (absolute, existing). `onDelta(delta,
 * snapshot)` hears of every change. `now`, `alive(pid, host)`, `tickMs`, `debounceMs`,
 * `minGapMs` and `tailBytes` are for tests and the benchmark. `readFeed(file, key,
 * tailBytes)` reads one feed (the model's, when it exports one): then a change to one feed
 * reads that feed only. Call `start()`, then `stop()`.
 */
export function createLive({ home, onDelta = () => {}, now = Date.now, alive = processAlive, tickMs = 1000, debounceMs = 5, minGapMs = 25,
  tailBytes, ttlMs = DEFAULT_TTL_SECONDS * 1000, errorLog = () => {}, readFeed = model.readFeed }) {
  const activityDir = path.join(home, ACTIVITY_DIR);
  const files = { state: path.join(home, STATUS_FILE), conflicts: path.join(home, CONFLICTS_FILE), history: path.join(home, HISTORY_FILE) };
  const dirty = { feeds: new Set(["*"]), state: true, logs: true };
  const seen = { state: null, conflicts: null, history: null, activity: new Map() };
  const input = { feeds: [], state: null, problems: [], conflicts: [], history: [] };
  const cache = new Map(); // feed key -> feed (when reading one feed at a time)
  const watchers = [];
  let snapshot = null;
  let timer = null;
  let ticker = null;
  let lastRefresh = 0;
  const stats = { refreshes: 0, feedReads: 0, lastMs: 0, maxMs: 0 };

  /**
   * Marks `what` (`state`, `logs`, or `feed:<key>`, `feed:*`) to be read again and schedules a
   * refresh: after `debounceMs` (changes that come together are read once), and not sooner
   * than `minGapMs` after the last one (a busy machine's feeds cost a bounded share of a core).
   */
  function touch(what) {
    for (const w of what) {
      if (w.startsWith("feed:")) dirty.feeds.add(w.slice(5));
      else dirty[w] = true;
    }
    if (!timer) {
      const wait = Math.max(debounceMs, lastRefresh + minGapMs - performance.now());
      timer = setTimeout(() => {
        timer = null;
        refresh();
      }, wait);
    }
  }

  /** Reads the feeds that changed (all of them without a one-feed reader, or when unsure). */
  function readChangedFeeds() {
    const changed = dirty.feeds;
    dirty.feeds = new Set();
    const current = activityStamps();
    const keys = new Set([...current.keys()].map((name) => FEED_FILE.exec(name)[1]));
    if (typeof readFeed !== "function" || changed.has("*") || keys.size > MAX_CACHED_FEEDS) {
      seen.activity = current;
      input.feeds = readFeeds(home, tailBytes === undefined ? {} : { tailBytes });
      stats.feedReads += input.feeds.length;
      cache.clear();
      for (const f of input.feeds) cache.set(f.key, f);
      return;
    }
    for (const key of cache.keys()) if (!keys.has(key)) cache.delete(key);
    for (const key of changed) {
      // Only what is read now is marked seen: another feed's change stays for its own event or the tick.
      for (const name of [`${key}.jsonl`, `${key}.jsonl.1`]) {
        if (current.has(name)) seen.activity.set(name, current.get(name));
        else seen.activity.delete(name);
      }
      if (!keys.has(key)) continue;
      const feed = readFeed(path.join(activityDir, `${key}.jsonl`), key, tailBytes ?? model.DEFAULT_TAIL_BYTES);
      stats.feedReads++;
      if (feed) cache.set(key, feed);
      else cache.delete(key);
    }
    input.feeds = [...cache.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Reads what is dirty, rebuilds the snapshot, hands on the delta; returns the delta or null. */
  function refresh() {
    const t0 = performance.now();
    if (dirty.feeds.size) readChangedFeeds();
    if (dirty.state) {
      dirty.state = false;
      seen.state = stamp(files.state);
      // No status.json is the normal state of a home where nobody registered with the Conductor yet.
      ({ state: input.state, problems: input.problems } = seen.state === null ? { state: null, problems: [] } : readState(home));
    }
    if (dirty.logs) {
      dirty.logs = false;
      seen.conflicts = stamp(files.conflicts);
      seen.history = stamp(files.history);
      input.conflicts = readLastLines(files.conflicts, LOG_LINES);
      input.history = readLastLines(files.history, LOG_LINES);
    }
    let next;
    try {
      next = buildSnapshot({ ...input, now: now(), alive, ttlMs });
    } catch (error) {
      errorLog(`the snapshot could not be built: ${error.message}`);
      return null;
    }
    const delta = diffSnapshots(snapshot, next);
    snapshot = next;
    lastRefresh = performance.now();
    const ms = lastRefresh - t0;
    stats.refreshes++;
    stats.lastMs = ms;
    stats.maxMs = Math.max(stats.maxMs, ms);
    if (delta) onDelta(delta, snapshot);
    return delta;
  }

  /** `Map(file name -> size:mtime)` of the feed files. */
  function activityStamps() {
    const stamps = new Map();
    let names = [];
    try {
      names = fs.readdirSync(activityDir);
    } catch {
      // no activity folder (yet): no feeds
    }
    for (const name of names) if (FEED_FILE.test(name)) stamps.set(name, stamp(path.join(activityDir, name)));
    return stamps;
  }

  function watch(dir, onName) {
    try {
      const w = fs.watch(dir, { persistent: false }, (_event, name) => onName(name ? String(name) : null));
      w.on("error", (error) => errorLog(`watching ${dir} stopped: ${error.message} (the 1 s check goes on)`));
      watchers.push(w);
      return true;
    } catch (error) {
      errorLog(`cannot watch ${dir}: ${error.message} (changes show within a second instead)`);
      return false;
    }
  }

  let watchingActivity = false;
  function watchActivity() {
    if (watchingActivity || !fs.existsSync(activityDir)) return;
    watchingActivity = watch(activityDir, (name) => {
      if (name === null) touch(["feed:*"]);
      else if (FEED_FILE.test(name)) touch([`feed:${FEED_FILE.exec(name)[1]}`]);
    });
  }

  /** The one-second tick: the watcher's safety net, then a rebuild with the time and liveness. */
  function tick() {
    watchActivity();
    if (stamp(files.state) !== seen.state) dirty.state = true;
    if (stamp(files.conflicts) !== seen.conflicts || stamp(files.history) !== seen.history) dirty.logs = true;
    const stamps = activityStamps();
    for (const name of new Set([...stamps.keys(), ...seen.activity.keys()])) {
      if (stamps.get(name) !== seen.activity.get(name)) dirty.feeds.add(FEED_FILE.exec(name)[1]);
    }
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    refresh();
  }

  return {
    /** Reads everything, builds the first snapshot and starts watching. */
    start() {
      watch(home, (name) => {
        if (name === null) touch(["state", "logs", "feed:*"]);
        else if (name === STATUS_FILE || name.startsWith(".status.json")) touch(["state"]);
        else if (name === CONFLICTS_FILE || name === HISTORY_FILE) touch(["logs"]);
        else if (name === ACTIVITY_DIR) {
          watchActivity();
          touch(["feed:*"]);
        }
      });
      watchActivity();
      refresh();
      ticker = setInterval(tick, tickMs);
      ticker.unref?.();
    },
    stop() {
      clearInterval(ticker);
      clearTimeout(timer);
      timer = null;
      for (const w of watchers.splice(0)) w.close();
    },
    /** The current snapshot. */
    snapshot: () => snapshot,
    /** The feeds as last read (for the inspector). */
    feeds: () => input.feeds,
    /** The Conductor's state as last read (parsed status.json, or null). */
    state: () => input.state,
    refresh,
    stats: () => ({ ...stats }),
  };
}
