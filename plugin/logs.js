// NSO's log files: one line per event, appended under the project's log folder. A log that
// cannot be written is reported on stderr and never stops a decision.
import fs from "node:fs";
import path from "node:path";

/** Where the init marker and the alive log live: fixed, because tools look for them there. */
export const INIT_DIR = ".opencode/logs";

/** The current time as logs write it. */
export const stamp = () => new Date().toISOString();

/**
 * The logs of one project. `logDir()` gives the configured folder (relative to `root`) at the
 * time of each write, so a config reload moves later lines; `plugin_alive.log` stays in
 * {@link INIT_DIR}.
 */
export function createLogs(root, logDir = () => undefined) {
  const dirOf = (name) => path.join(root, name === "plugin_alive.log" ? INIT_DIR : logDir() ?? INIT_DIR);
  /** Appends `line` (a newline is added when missing) to the log `name`. */
  function append(name, line) {
    try {
      const dir = dirOf(name);
      fs.mkdirSync(dir, { recursive: true });
      fs.appendFileSync(path.join(dir, name), line.endsWith("\n") ? line : line + "\n");
    } catch (error) {
      console.error(`[nso] cannot write ${name}: ${error.message}`);
    }
  }
  return {
    append,
    /** A line in `nso.log`, NSO's decisions. */
    decision: (line) => append("nso.log", line),
    /**
     * A JSON line in `audit.jsonl`: a call audit mode let through that would have been refused
     * (`nso audit` reports them).
     */
    audit: (record) => append("audit.jsonl", JSON.stringify(record)),
    /** A time-stamped line in `nso-errors.log`, what went wrong inside NSO. */
    error: (text) => append("nso-errors.log", `${stamp()} ${text}`),
  };
}
