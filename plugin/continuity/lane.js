// The raw lane: each session's events as OpenCode gives them (session info, message infos,
// parts), appended as JSON lines to `<dir>/transcripts/<session>.raw.jsonl`. The raw lane is
// the history the T0 transcript is derived from (crate/workflow/src/continuity/events.rs reads it).
//
// Recording must never slow a tool call: an event only replaces the pending record of the
// same message or part in memory (OpenCode sends a part many times while it grows; the
// latest wins), and a timer appends the batch with one write per session. `flush` writes
// what is pending before the process exits.
import fs from "node:fs";
import path from "node:path";
import { makeStateDir, stateFolderTest } from "../state-dirs.js";
import { replaceFile } from "../atomic-file.js";

/** Version of the lane's records (`v`). */
export const LANE_VERSION = 1;
/** Largest string kept in a tool's metadata (bash repeats its whole output there). */
const METADATA_STRING_BYTES = 1024;

/** The lane file of `session` under the continuity folder `dir` (absolute). */
export const laneFile = (dir, session) => path.join(dir, "transcripts", `${safeName(session)}.raw.jsonl`);
/** What the lane of `session` left out past its cap (`{records, bytes}`), beside the lane. */
export const omittedFile = (dir, session) => path.join(dir, "transcripts", `${safeName(session)}.omitted.json`);

/** A session id as a file name: anything but letters, digits, `_` and `-` becomes `_`. */
export const safeName = (id) => String(id).replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 200) || "_";

/** `text` cut to at most `bytes` UTF-8 bytes (never inside a character). */
export function cutUtf8(text, bytes) {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= bytes) return text;
  let end = bytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--; // back off a continuation byte
  return buf.subarray(0, end).toString("utf8");
}

/**
 * A part as the lane keeps it: a tool's output cut to `outputBytes` (its full size recorded
 * as `state.nsoOutputBytes`), big strings of its input cut the same way, and its metadata
 * reduced to small values. Other parts are kept whole. Never mutates `part`.
 */
export function lanePart(part, outputBytes) {
  if (part?.type !== "tool" || !part.state || typeof part.state !== "object") return part;
  const state = { ...part.state };
  if (typeof state.output === "string" && state.output.length > outputBytes / 4) {
    const size = Buffer.byteLength(state.output, "utf8");
    if (size > outputBytes) {
      state.output = cutUtf8(state.output, outputBytes);
      state.nsoOutputBytes = size;
    }
  }
  if (state.input && typeof state.input === "object") {
    state.input = mapValues(state.input, (v) => (typeof v === "string" && v.length > outputBytes / 4 ? cutUtf8(v, outputBytes) : v));
  }
  if (state.metadata && typeof state.metadata === "object") {
    const small = {};
    for (const [key, value] of Object.entries(state.metadata)) {
      if (value === null || typeof value === "number" || typeof value === "boolean") small[key] = value;
      else if (typeof value === "string" && value.length <= METADATA_STRING_BYTES) small[key] = value;
    }
    state.metadata = small;
  }
  return { ...part, state };
}

/**
 * A file change as the lane keeps it: its facts (file, status, lines added and deleted), never
 * its text. OpenCode's change summaries carry each changed file's whole text before and after:
 * kept, they made the lane grow with every step (its own file among the changes).
 */
const diffFacts = (d) => ({ file: d.file ?? d.path, status: d.status, additions: d.additions, deletions: d.deletions });

/**
 * A session or message info as the lane keeps it: the change summary reduced to its facts,
 * changes of NSO's own state files (`isState(file)`) left out. Never mutates `info`.
 */
export function laneInfo(info, isState) {
  const diffs = info?.summary?.diffs;
  if (!Array.isArray(diffs)) return info;
  const kept = diffs.filter((d) => d && typeof d === "object" && !isState(d.file ?? d.path)).map(diffFacts);
  return { ...info, summary: { ...info.summary, diffs: kept } };
}

/** A `patch` part without NSO's own state files among its files; other parts as they are. */
export function lanePatch(part, isState) {
  if (part?.type !== "patch" || !Array.isArray(part.files)) return part;
  return { ...part, files: part.files.filter((f) => !isState(f)) };
}

const mapValues = (obj, fn) => Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, fn(v)]));

/** The number after `"seq":` on the last complete line of `text`, else 0. */
export function lastSeq(text) {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^\{"v":\d+,"seq":(\d+),/.exec(lines[i]);
    if (m && lines[i].endsWith("}")) return Number(m[1]);
  }
  return 0;
}

/**
 * The lanes of one project. `settings()` gives the continuity settings at the time of each
 * call (`dir` absolute, `root` the project, `rawOutputBytes`, `laneMaxBytes`, `flushMs`);
 * `errorLog(text)` records failures (a lane that cannot be written never stops the session).
 */
export function createLanes({ settings, errorLog }) {
  const lanes = new Map(); // session -> {pending: Map(key -> record), seq, file, opened, bytes, omitted}
  let timer = null;

  function laneOf(session) {
    let lane = lanes.get(session);
    if (!lane) {
      lane = { pending: new Map(), seq: null, file: laneFile(settings().dir, session), opened: false, bytes: 0,
        omitted: null, omittedFile: omittedFile(settings().dir, session) };
      lanes.set(session, lane);
    }
    return lane;
  }

  /**
   * Records an event of `session`: `kind` is `session`, `message` or `part`, `key` the id
   * the latest version replaces (the message or part id), `body` the OpenCode object.
   */
  function record(session, kind, key, body) {
    if (!session || !body) return;
    const lane = laneOf(session);
    lane.pending.delete(`${kind}:${key}`); // re-insert: the batch keeps the order of latest updates
    lane.pending.set(`${kind}:${key}`, { kind, body, t: Date.now() });
    if (!timer) {
      timer = setTimeout(() => {
        timer = null;
        flush();
      }, settings().flushMs);
      timer.unref?.();
    }
  }

  /** Opens a lane in this process: its last seq, and a newline after a cut-off last line. */
  function open(lane) {
    if (lane.opened) return "";
    lane.opened = true;
    let prefix = "";
    try {
      makeStateDir(path.dirname(lane.file));
      const size = fs.statSync(lane.file, { throwIfNoEntry: false })?.size ?? 0;
      lane.bytes = size;
      lane.omitted = readOmitted(lane.omittedFile);
      if (size > 0) {
        const fd = fs.openSync(lane.file, "r");
        try {
          const tail = Buffer.alloc(Math.min(size, 64 * 1024));
          fs.readSync(fd, tail, 0, tail.length, size - tail.length);
          const text = tail.toString("utf8");
          lane.seq = lastSeq(text);
          if (!text.endsWith("\n")) prefix = "\n"; // a crash cut the last record: it stays alone on its line
        } finally {
          fs.closeSync(fd);
        }
      }
    } catch (error) {
      errorLog(`transcript lane ${lane.file}: ${error.message}`);
    }
    lane.seq ??= 0;
    return prefix;
  }

  /**
   * The pending records of `lane` as JSON lines, numbered; empties the batch. A record that
   * would take the lane past `laneMaxBytes` is left out and counted (`lane.omitted`).
   */
  function drain(lane) {
    if (!lane.pending.size) return "";
    const { rawOutputBytes: outputBytes, laneMaxBytes = Infinity, root } = settings();
    const isState = root ? stateFolderTest(root) : () => false;
    let text = open(lane);
    let bytes = lane.bytes + Buffer.byteLength(text);
    let left = 0;
    for (const { kind, body, t } of lane.pending.values()) {
      const payload = kind === "part" ? { part: lanePatch(lanePart(body, outputBytes), isState) } : { info: laneInfo(body, isState) };
      let line;
      try {
        line = JSON.stringify({ v: LANE_VERSION, seq: lane.seq + 1, t, kind, ...payload }) + "\n";
      } catch (error) {
        errorLog(`transcript record of ${kind} skipped: ${error.message}`);
        continue;
      }
      const size = Buffer.byteLength(line);
      if (bytes + size > laneMaxBytes) {
        lane.omitted = { records: (lane.omitted?.records ?? 0) + 1, bytes: (lane.omitted?.bytes ?? 0) + size };
        left++;
        continue;
      }
      lane.seq += 1;
      bytes += size;
      text += line;
    }
    lane.pending.clear();
    if (left) keepOmitted(lane);
    return text;
  }

  /** Records what the lane left out beside it (the T0 metadata counts it). */
  function keepOmitted(lane) {
    try {
      replaceFile(lane.omittedFile, JSON.stringify({ ...lane.omitted, maxBytes: settings().laneMaxBytes }) + "\n");
    } catch (error) {
      errorLog(`transcript lane ${lane.file}: cannot count what it left out: ${error.message}`);
    }
  }

  /** Appends `lane`'s pending batch with one write. */
  function write(lane) {
    const text = drain(lane);
    if (!text) return;
    try {
      fs.appendFileSync(lane.file, text);
      lane.bytes += Buffer.byteLength(text);
    } catch (error) {
      errorLog(`transcript lane ${lane.file} not written: ${error.message}`);
    }
  }

  /**
   * Appends every pending batch, one write per session. Synchronous on purpose: it runs from
   * a timer between hook calls (never inside one), keeps each lane's records in order, and
   * loses nothing when the process exits right after.
   */
  function flush() {
    if (timer) clearTimeout(timer);
    timer = null;
    for (const lane of lanes.values()) write(lane);
  }

  /** Appends `session`'s pending batch now; returns its lane file. */
  function settle(session) {
    const lane = laneOf(session);
    write(lane);
    return lane.file;
  }

  /** Forgets a session's lane (its file stays). */
  function forget(session) {
    lanes.delete(session);
  }

  return { record, flush, settle, forget, fileOf: (session) => laneFile(settings().dir, session) };
}

/** What a lane left out (`{records, bytes, maxBytes}`, from its `.omitted.json`), or null. */
export function readOmitted(file) {
  try {
    const o = JSON.parse(fs.readFileSync(file, "utf8"));
    return Number.isInteger(o?.records) && Number.isInteger(o?.bytes) ? o : null;
  } catch {
    return null;
  }
}
