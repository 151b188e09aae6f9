// `nso status [--watch] [--json] [--home DIR]`: Mission Control's Agents table in the terminal,
// from the same model as the page (bin/mc/model.js). Agents write the strings shown here (tasks,
// targets, NSO's messages quoting them): before they reach the terminal every control
// character is replaced by a visible stand-in, so that no agent can move the cursor, clear
// the screen or recolour it (an ANSI escape shows as `␛[2J`).
import fs from "node:fs";
import path from "node:path";
import { escapeGlob } from "../../plugin/conductor/paths.js";
import { homeFor } from "./launch.js";
import { ACTIVITY_DIR, diffSnapshots, readSnapshot } from "./model.js";

/** The usage line of `nso status` without a subcommand (for bin/nso.js's USAGE). */
export const STATUS_USAGE = "  nso status [--watch] [--json] [--home DIR]";

/** What `nso status` without a subcommand does (for bin/nso.js's help). */
export const STATUS_HELP = `status   (without a subcommand) every agent working on this machine, from the activity
         feeds the NSO plugin writes and the Conductor's claims: PROJECT, AGENT, SESSION,
         STATE (working, blocked: its last call was refused; idle; dead: its OpenCode is
         gone), TASK, IN PROGRESS (the tool call running), LAST REFUSAL, CLAIMS, AGE, LAST
         SEEN; sorted by project, then state. --json prints the snapshot (the model of
         \`nso mc\`); --watch redraws when something changes (Ctrl-C ends it; with --json, one
         snapshot per line). --home is the Conductor's home (default: conductor.home of the
         current project's .opencode/nso.json, else $CONDUCTOR_HOME, else ~/.conductor).
         Exit 0, or 2 for a usage error.`;

/** Redraws at least this often in --watch: a process may die without writing anything. */
export const TICK_MS = 1000;
/** fs.watch events closer together than this are one redraw. */
const SETTLE_MS = 100;
const CLEAR_SCREEN = "\x1b[H\x1b[2J";

/** Control characters, C1 controls and the invisible bidirectional marks. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` safe to print on a terminal: tabs and line breaks become spaces, other C0 controls
 * their visible symbol (ESC is `␛`, so an ANSI escape is shown, not obeyed), DEL `␡`, C1
 * controls and bidirectional marks `<U+XXXX>`. Nothing is dropped.
 */
export function terminalSafe(text) {
  return String(text ?? "").replace(UNSAFE, (c) => {
    const code = c.codePointAt(0);
    if (c === "\t" || c === "\n" || c === "\r") return " ";
    if (code < 0x20) return String.fromCodePoint(0x2400 + code);
    if (code === 0x7f) return "\u2421";
    return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
  });
}

/**
 * JSON text safe to print on a terminal: JSON already escapes C0 controls; DEL, C1 controls
 * and bidirectional marks are escaped too (`\u009b`), which keeps it the same JSON.
 */
export function jsonSafe(json) {
  return json.replace(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.codePointAt(0).toString(16).padStart(4, "0")}`);
}

const width = (text) => [...text].length;
/** `text` (already safe) cut to `max` characters, the cut marked with `…`. */
const cut = (text, max) => (width(text) > max ? `${[...text].slice(0, max - 1).join("")}…` : text);
const cell = (value, max, empty = "-") => cut(value === null || value === undefined || value === "" ? empty : terminalSafe(value), max);

/** A duration for the table: `42s`, `17m`, `3h05`, `2d04h`; `?` when unknown. */
export function duration(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "?";
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h${String(m % 60).padStart(2, "0")}` : `${Math.floor(h / 24)}d${String(h % 24).padStart(2, "0")}h`;
}

/** A claim as the table shows it: relative to the row's project when inside it. */
function shortClaim(pattern, root) {
  const prefix = root ? `${escapeGlob(root)}/` : null;
  return prefix && pattern.startsWith(prefix) ? pattern.slice(prefix.length) : pattern;
}

/** The short form of a session id: its last 8 characters (OpenCode's ids share their start). */
const shortSession = (id) => (id.length > 9 ? `…${id.slice(-8)}` : id);

/** The table's columns, in order. */
export const COLUMNS = ["PROJECT", "AGENT", "SESSION", "STATE", "TASK", "IN PROGRESS", "LAST REFUSAL", "CLAIMS", "AGE", "LAST SEEN"];

/** The cells of one row (strings safe for a terminal). */
function rowCells(row, now) {
  const p = row.inProgress;
  const r = row.lastRefusal;
  const claims = (row.claims ?? []).map((c) => shortClaim(c, row.root));
  return [
    cell(row.project, 20, "?"),
    cell(row.agent, 16, "?"),
    `${row.parent ? "↳" : ""}${cell(shortSession(row.session), 10)}`,
    row.state,
    cell(row.task ?? row.title, 40),
    p ? `${cut(terminalSafe([p.tool, p.target].filter(Boolean).join(" ") || "?"), 32)} (${duration(now - p.since)})` : "-",
    r ? cell([r.rule ?? r.tool, r.message].filter(Boolean).join(": ") || "refused", 40) : "-",
    row.storeProblem ? cut(`not registered: ${terminalSafe(row.storeProblem.message ?? "")}`, 32)
      : claims.length ? cut(`${claims.length}: ${terminalSafe(claims.join(", "))}`, 32) : "-",
    duration(row.age),
    typeof row.lastSeen === "number" ? `${duration(now - row.lastSeen)} ago` : "?",
  ];
}

/**
 * The Agents table of `snapshot` as text for a terminal (every agent-written string made
 * safe), then the Conductor instances without a feed and what could not be read. Rows in the
 * snapshot's order (project, then state). `now` defaults to the snapshot's time.
 */
export function agentsTable(snapshot, { now = snapshot.generated, home } = {}) {
  const lines = [];
  const agents = snapshot.agents ?? [];
  if (agents.length) {
    const rows = [COLUMNS, ...agents.map((row) => rowCells(row, now))];
    const widths = COLUMNS.map((_, c) => Math.max(...rows.map((r) => width(r[c]))));
    for (const r of rows) lines.push(r.map((text, c) => (c === r.length - 1 ? text : text + " ".repeat(widths[c] - width(text)))).join("  "));
  } else {
    lines.push(`no agents seen in the last day${home ? ` in ${terminalSafe(path.join(home, ACTIVITY_DIR))}` : ""} (each OpenCode instance with NSO writes its feed there)`);
  }
  for (const r of snapshot.registry ?? []) {
    if (r.feeds?.length) continue;
    const claims = r.claims.map((c) => shortClaim(c, null));
    lines.push(`registered without a feed: ${cell(r.id, 40)} ${cell(r.project, 20, "?")} "${cell(r.task, 40)}" ` +
      `${r.priority ? `${cell(r.priority, 4)} ` : ""}claims: ${claims.length ? cut(terminalSafe(claims.join(", ")), 80) : "-"}`);
  }
  for (const p of snapshot.problems ?? []) lines.push(`note: ${terminalSafe(p)}`);
  return lines.join("\n");
}

/** A usage error: exit 2 with the message and the usage line. */
class UsageError extends Error {}

/** Parses the words after `status` into `{ watch, json, home, help }`. */
export function parseStatusArgs(argv) {
  const opts = { watch: false, json: false, home: undefined, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--watch") opts.watch = true;
    else if (arg === "--json") opts.json = true;
    else if (arg === "-h" || arg === "--help") opts.help = true;
    else if (arg === "--home") {
      if (i + 1 >= argv.length) throw new UsageError("--home needs a value");
      opts.home = argv[++i];
    } else throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  return opts;
}

/**
 * Runs `nso status ...` with `argv` (the words after `status`); resolves to the exit status
 * (with --watch: when SIGINT or SIGTERM arrives). The home is --home, else the one the
 * project at `cwd` uses (bin/mc/launch.js). Output goes to `stdout` (a stream: its `isTTY`
 * decides whether the screen is cleared between frames) and `err`.
 */
export async function statusMain(argv, { env = process.env, cwd = process.cwd(), stdout = process.stdout, err = console.error } = {}) {
  let opts;
  try {
    opts = parseStatusArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`nso status: ${error.message}\n\nusage:\n${STATUS_USAGE}`);
    return 2;
  }
  if (opts.help) {
    stdout.write(`usage:\n${STATUS_USAGE}\n\n${STATUS_HELP}\n`);
    return 0;
  }
  // The home the plugin of this project writes its feed to, as `nso mc` finds it.
  const home = opts.home ? path.resolve(cwd, opts.home) : homeFor(cwd, env);
  if (!opts.watch) {
    const snapshot = readSnapshot({ home });
    stdout.write(`${opts.json ? jsonSafe(JSON.stringify(snapshot, null, 2)) : agentsTable(snapshot, { home })}\n`);
    return 0;
  }
  return watch({ home, json: opts.json, stdout, err });
}

/**
 * Draws a frame now and whenever the model changes: on fs.watch events of the home and the
 * activity folder, and every {@link TICK_MS} (liveness, and folders that appear later).
 * On a terminal the screen is cleared before each frame and the ages are kept current; into
 * a pipe a frame is printed only when the model changed. Resolves to 0 on SIGINT or SIGTERM.
 */
function watch({ home, json, stdout, err }) {
  const tty = Boolean(stdout.isTTY);
  const watchers = new Map();
  let shown = null;
  let body = null;
  let settle = null;

  const draw = () => {
    let snapshot;
    try {
      snapshot = readSnapshot({ home });
    } catch (error) {
      err(`nso status: ${error.message}`);
      return;
    }
    const changed = diffSnapshots(shown, snapshot) !== null;
    if (json) {
      if (changed) stdout.write(`${jsonSafe(JSON.stringify(snapshot))}\n`);
      if (changed) shown = snapshot;
      return;
    }
    const text = agentsTable(snapshot, { home });
    if (!changed && (!tty || text === body)) return;
    const header = `NSO agents in ${terminalSafe(home)} at ${new Date(snapshot.generated).toISOString().slice(11, 19)} (Ctrl-C to stop)`;
    stdout.write(`${tty ? CLEAR_SCREEN : shown ? "\n" : ""}${header}\n${text}\n`);
    shown = snapshot;
    body = text;
  };
  const follow = (dir) => {
    if (watchers.has(dir)) return;
    try {
      const watcher = fs.watch(dir, { persistent: false }, soon);
      watcher.on("error", () => {
        watcher.close();
        watchers.delete(dir);
      });
      watchers.set(dir, watcher);
    } catch {
      // not there (yet): the tick tries again
    }
  };
  function soon() {
    settle ??= setTimeout(() => {
      settle = null;
      draw();
    }, SETTLE_MS);
  }
  const tick = () => {
    follow(home);
    follow(path.join(home, ACTIVITY_DIR));
    draw();
  };

  return new Promise((resolve) => {
    const timer = setInterval(tick, TICK_MS);
    const stop = () => {
      clearInterval(timer);
      clearTimeout(settle);
      for (const w of watchers.values()) w.close();
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve(0);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    stdout.on?.("error", stop); // a closed pipe (`nso status --watch | head`)
    tick();
  });
}
