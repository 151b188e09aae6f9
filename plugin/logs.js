// NSO's log files: one line per event, appended under the project's log folder. Lines wait in
// memory and are appended by a timer, so a decision never waits for the disk; they are
// written before the process ends (exit, SIGINT, SIGTERM, SIGHUP) and when the host disposes
// the plugin. A log that cannot be written is reported on stderr and never stops a decision.
import fs from "node:fs";
import path from "node:path";
import { makeStateDir } from "./state-dirs.js";

/** Where the init marker and the alive log live: fixed, because tools look for them there. */
export const INIT_DIR = ".opencode/logs";
/** How long a line may wait in memory before the timer appends it. */
export const FLUSH_MS = 100;
const EXIT_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];

/** The current time as logs write it. */
export const stamp = () => new Date().toISOString();

const unflushed = new Set(); // the logs of this process with lines in memory
let exitHooked = false;

/** Appends every line waiting in memory, in every project's logs of this process. */
export function flushAllLogs() {
  for (const logs of unflushed) logs.flush();
}

/**
 * A signal ends the process without an `exit` event: the lines are written first, then, when
 * nobody else handles the signal, it is raised again so the process ends as it would have
 * (`once`: this listener is gone by then).
 */
function onSignal(signal) {
  flushAllLogs();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  else process.once(signal, onSignal); // the process lives on: the next signal flushes too
}

function hookExit() {
  if (exitHooked || typeof process?.once !== "function") return;
  exitHooked = true;
  process.once("exit", flushAllLogs);
  for (const signal of EXIT_SIGNALS) process.once(signal, onSignal);
}

/**
 * The logs of one project. `logDir()` gives the configured folder (relative to `root`) at the
 * time of each line, so a config reload moves later lines; `plugin_alive.log` stays in
 * {@link INIT_DIR}.
 */
export function createLogs(root, logDir = () => undefined, { flushMs = FLUSH_MS } = {}) {
  const pending = new Map(); // folder -> name -> text waiting
  let timer = null;

  /**
   * Appends `line` (a newline is added when missing) to the log `name`, by the next flush.
   * `line` may be a function that gives the text at the flush, so formatting waits too
   * (what it reads must not change afterwards).
   */
  function append(name, line) {
    const dir = name === "plugin_alive.log" ? INIT_DIR : logDir() ?? INIT_DIR;
    let files = pending.get(dir);
    if (!files) pending.set(dir, (files = new Map()));
    const lines = files.get(name);
    if (lines) lines.push(line);
    else files.set(name, [line]);
    if (!timer) {
      unflushed.add(self);
      hookExit();
      timer = setTimeout(flush, flushMs);
      timer.unref?.();
    }
  }

  /** The text of waiting lines (a line that cannot be formatted is reported in its place). */
  function textOf(lines) {
    let text = "";
    for (const item of lines) {
      let line = item;
      if (typeof item === "function") {
        try {
          line = String(item());
        } catch (error) {
          line = `${stamp()} NSO could not format a log line: ${error.message}`;
        }
      }
      text += line.endsWith("\n") ? line : `${line}\n`;
    }
    return text;
  }

  /** Writes every line waiting in memory (each log in the order its lines came). */
  function flush() {
    if (timer) clearTimeout(timer);
    timer = null;
    unflushed.delete(self);
    const batch = [...pending];
    pending.clear();
    for (const [dir, files] of batch) {
      for (const [name, lines] of files) {
        try {
          const folder = path.join(root, dir);
          makeStateDir(folder, { root });
          fs.appendFileSync(path.join(folder, name), textOf(lines));
        } catch (error) {
          console.error(`[nso] cannot write ${name}: ${error.message}`);
        }
      }
    }
  }

  const self = {
    append,
    flush,
    /** A line in `nso.log`, NSO's decisions (or a function giving it, see `append`). */
    decision: (line) => append("nso.log", line),
    /**
     * A JSON line in `audit.jsonl`: a call audit mode let through that would have been refused
     * (`nso audit` reports them).
     */
    audit: (record) => append("audit.jsonl", JSON.stringify(record)),
    /** A time-stamped line in `nso-errors.log`, what went wrong inside NSO. */
    error: (text) => append("nso-errors.log", `${stamp()} ${text}`),
  };
  return self;
}
