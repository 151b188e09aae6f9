// The activity feed of one plugin instance (docs/mission-control.md, part 1): what its agents
// do and what NSO decided, for Mission Control (`nso mc`, `nso status`). One JSON-lines file per
// instance under `<conductor home>/activity/`; records wait in memory and are appended by a timer
// (never inside a tool call) and at exit; the file is rotated past a size (one old file kept).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { processStartToken } from "./conductor/liveness.js";
import { makeStateDir } from "./state-dirs.js";
import { clip } from "./text.js";

/** Version of the feed's records (`v`). */
export const FEED_VERSION = 1;
/** A feed larger than this is renamed to `<name>.1` and a new one started. */
export const ROTATE_BYTES = 2 << 20;
/** Longest value kept, per field. */
const CLIP = { message: 2000, target: 500, task: 300, title: 300 };
const DEFAULT_CLIP = 200;

/** The fields of a record with every string clipped to its bound. */
export function boundFields(fields) {
  const out = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = typeof value === "string" ? clip(value, CLIP[key] ?? DEFAULT_CLIP) : value;
  }
  return out;
}

/** What a tool call is about, for the feed: its path, command or pattern argument. */
export function callTarget(args) {
  const a = args && typeof args === "object" ? args : {};
  for (const key of ["filePath", "path", "command", "pattern", "url", "subagent_type"]) {
    if (typeof a[key] === "string" && a[key]) return a[key];
  }
  if (typeof a.patchText === "string") return /\*\*\* (?:Add|Update|Delete) File: (.+)/.exec(a.patchText)?.[1] ?? null;
  return null;
}

const randomKey = () => Math.random().toString(36).slice(2, 8).padEnd(6, "0");

/**
 * The feed of one instance. `home()` is the Conductor's home at the time of a write; `header()`
 * the `instance` record's fields (`project`, `root`, `serverUrl`, `nso`); `errorLog(text)`
 * records a failure (a feed that cannot be written never stops the session). `feed` (optional)
 * names the file and the process it stands for.
 */
export function createActivity({ home, header, errorLog, flushMs = 250, rotateBytes = ROTATE_BYTES, feed }) {
  // A host that runs NSO in a short process per call (Claude Code's hooks) names one feed per
  // session and the long-lived process it belongs to (`feed: {name, pid}`).
  const pid = feed?.pid ?? process.pid;
  const name = feed?.name ?? `${os.hostname().replace(/[^A-Za-z0-9.-]/g, "_")}-${pid}-${randomKey()}.jsonl`;
  const started = Date.now();
  let pending = [];
  let timer = null;
  let file = null;
  let size = 0;

  /**
   * Records `kind` with `fields` (strings are clipped); written by the next flush. Inside a tool
   * call this only keeps the time and a reference: clipping and encoding wait for the flush
   * (`fields` must not be changed afterwards).
   */
  function record(kind, fields = {}) {
    pending.push([Date.now(), kind, fields]);
    if (!timer) {
      timer = setTimeout(flush, flushMs);
      timer.unref?.();
    }
  }

  function instanceLine() {
    const h = header();
    // `processStarted` tells a reused pid from this process (liveness checks can compare it).
    return JSON.stringify({ v: FEED_VERSION, t: Date.now(), kind: "instance", pid, host: os.hostname(), started,
      processStarted: processStartToken(pid), ...boundFields(h) }) + "\n";
  }

  /** Opens the feed (first write, or after a rotation or a home change): its `instance` line first. */
  function open() {
    const dir = path.join(home(), "activity");
    const target = path.join(dir, name);
    if (file === target && fs.existsSync(target)) return "";
    makeStateDir(dir, { mode: 0o700 });
    file = target;
    size = fs.statSync(target, { throwIfNoEntry: false })?.size ?? 0;
    return size ? "" : instanceLine();
  }

  /** Appends what is pending, rotating the file when it has grown past `rotateBytes`. */
  function flush() {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!pending.length) return;
    const batch = pending;
    pending = [];
    try {
      let text = open();
      for (const [t, kind, fields] of batch) text += JSON.stringify({ v: FEED_VERSION, t, kind, ...boundFields(fields) }) + "\n";
      if (size + text.length > rotateBytes && size > 0) {
        fs.renameSync(file, `${file}.1`);
        size = 0;
        text = instanceLine() + text;
      }
      fs.appendFileSync(file, text, { mode: 0o600 });
      size += Buffer.byteLength(text);
    } catch (error) {
      errorLog(`activity feed not written: ${error.message}`);
    }
  }

  return { record, flush, fileName: name, file: () => file };
}
