// `nso conductor ...`: the Conductor protocol (seed 003) from a shell. Every command is one
// operation of the store the project's .opencode/nso.json names (conductor.store: the files of
// $CONDUCTOR_HOME, or PostgreSQL), the same the OpenCode plugin uses, so a person, a script
// and an agent share one set of claims.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { closeStores, openStore } from "../plugin/conductor/stores.js";
import { loadCore } from "../plugin/core-loader.js";
import { canonicalClaim, escapeGlob } from "../plugin/conductor/paths.js";
import { realPath } from "../plugin/decision/files.js";
import { pidExists, processStartToken } from "../plugin/conductor/liveness.js";
import { clip } from "../plugin/text.js";

export const CONDUCTOR_USAGE = `  nso conductor start --task T --priority P1..P4 [--project NAME] [--agent NAME] [--override "WHY"] [--pid N]
  nso conductor claim PATH... [--file P]... [--files P...] [--force "WHY"]  (--instance ID)
  nso conductor release (PATH... | --all) [--reason R]                     (--instance ID)
  nso conductor done [--outcome success|failed|abandoned] [--files P...]   (--instance ID)
  nso conductor heartbeat                                                  (--instance ID)
  nso conductor status | cleanup [--max-age-minutes N]
  nso conductor sprint (--set FILE | --clear)   (the priority gate's sprint.json; FILE - is stdin)
  nso conductor [OP] --json-in        (one operation as JSON on stdin)
  all conductor commands: [--json] [--dir DIR] [--home DIR]  (--home: the files store in DIR)`;

export const CONDUCTOR_HELP = `conductor
         coordinates several agents (OpenCode, Cursor, a shell...) working on one machine:
         each registers a task (start), claims the files it will edit (claim) before
         editing, and releases them (release, done). A claim that intersects another
         instance's claim is refused with who holds it; --force "WHY" takes it over and is
         logged as FORCE. State: conductor.store of the project's .opencode/nso.json:
         "files" (default): $CONDUCTOR_HOME (default ~/.conductor): status.json,
         history.jsonl, conflicts.log, sprint.json (the priority gate's sprint focus);
         or a PostgreSQL database shared by several machines.
         --instance defaults to $CONDUCTOR_INSTANCE. PATHs are made absolute and canonical
         (real folders; a folder claims everything under it); globs (*, **, ?, [..], {a,b})
         are kept. start records --pid N (else $OPENCODE_PID, set by OpenCode for its
         commands) so the claim ends when that process ends; without one, an instance
         lives by heartbeat (cleanup after --max-age-minutes, default 60).
         --json prints the core's answer. Exit 0 ok, 1 conflict or blocked, 2 usage or
         store error.`;

const OPS = ["start", "claim", "status", "done", "release", "heartbeat", "cleanup"];
const COMMANDS = [...OPS, "sprint"];
const VALUE_FLAGS = ["--task", "--project", "--priority", "--instance", "--agent", "--reason", "--outcome", "--override",
  "--force", "--max-age-minutes", "--dir", "--home", "--pid", "--file", "--set"];

/** A usage error: exit 2 with the message and the usage lines. */
class UsageError extends Error {}

/**
 * Where this shell runs, as the seed detects it (`cur`, `vsc`, `itm`, `cow`, else `web`), with
 * `opc` for OpenCode first: OpenCode sets OPENCODE=1 (and OPENCODE_PID) for the commands its
 * agents run, also when OpenCode itself runs inside a VS Code or iTerm terminal.
 */
export function detectSource(env = process.env) {
  if (env.OPENCODE || env.OPENCODE_PID) return "opc";
  if (env.CURSOR_SESSION) return "cur";
  if (env.VSCODE_GIT_IPC_HANDLE) return "vsc";
  if (env.TERM_PROGRAM === "iTerm.app") return "itm";
  if (env.CLAUDE_COWORK_SESSION) return "cow";
  return "web";
}

/** Parses `argv` (after `conductor`) into `{op, flags, paths}`. */
export function parseConductorArgs(argv) {
  const opts = { op: undefined, paths: [], files: [] };
  let i = 0;
  if (argv[0] && !argv[0].startsWith("-")) {
    if (!COMMANDS.includes(argv[0])) throw new UsageError(`unknown conductor command ${JSON.stringify(argv[0])}`);
    opts.op = argv[i++];
  }
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--json") opts.json = true;
    else if (arg === "--json-in") opts.jsonIn = true;
    else if (arg === "--all") opts.all = true;
    else if (arg === "--clear") opts.clear = true;
    else if (arg === "--files") {
      while (i + 1 < argv.length && !argv[i + 1].startsWith("--")) opts.files.push(argv[++i]);
    } else if (VALUE_FLAGS.includes(arg)) {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
      if (arg === "--file") opts.files.push(argv[++i]);
      else opts[arg.slice(2).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = argv[++i];
    } else if (!arg.startsWith("-")) opts.paths.push(arg);
    else throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (!opts.op && !opts.jsonIn) throw new UsageError("give a conductor command");
  return opts;
}

/** The git root of `dir` (real path), else `dir` itself: the project an instance works in. */
function projectRoot(dir) {
  try {
    return fs.realpathSync(execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  } catch {
    // not a git repository, or (a seed JSON from elsewhere) not even a folder here
    return realPath(path.resolve(dir));
  }
}

/**
 * The project's `conductor` settings (.opencode/nso.json, checked by the core as the plugin
 * checks it; the core's defaults, a TTL of 600 s among them, when the file is missing), so the
 * CLI decides with the same TTL and store as the windows. Throws a config error (exit 2).
 */
function conductorSettings(root) {
  let text = "{}";
  try {
    text = fs.readFileSync(path.join(root, ".opencode/nso.json"), "utf8");
  } catch {
    // no project config: the defaults
  }
  try {
    const engine = new (loadCore().Nso)(".opencode/nso.json", text);
    const settings = engine.config().conductor ?? {};
    engine.free?.();
    return settings;
  } catch (error) {
    throw Object.assign(new Error(`${error.file ?? ".opencode/nso.json"}: ${error.path ?? ""}: ${error.problem ?? error.message}`),
      { code: error.code ?? "config", fix: error.fix ?? "correct .opencode/nso.json." });
  }
}

/** The store the settings name; --home names a files store instead. */
function storeFor(opts, settings, root, env) {
  if (opts.home) return openStore({}, { home: path.resolve(opts.home), env });
  return openStore(settings, { root, env });
}

/** The process whose life the instance shares: --pid, else OpenCode's (OPENCODE_PID), else none. */
function ownerProcess(opts, env) {
  const given = opts.pid ?? env.OPENCODE_PID;
  if (given === undefined) return { pid: null, process_started: null };
  const pid = Number(given);
  if (!Number.isInteger(pid) || pid <= 0 || !pidExists(pid)) {
    if (opts.pid !== undefined) throw new UsageError(`--pid ${opts.pid} is not a running process`);
    return { pid: null, process_started: null };
  }
  return { pid, process_started: processStartToken(pid) };
}

const intOf = (text, flag) => {
  if (!/^\d+$/.test(String(text))) throw new UsageError(`${flag} needs a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
};

/**
 * The core operation for the parsed command line, or for the seed JSON `input` (stdin with
 * --json-in; flags fill what it leaves out). Paths become canonical absolute claim patterns.
 */
export function buildOperation(opts, { env = process.env, cwd = process.cwd(), input } = {}) {
  const base = path.resolve(cwd, opts.dir ?? input?.working_directory ?? ".");
  const operation = input?.operation ?? opts.op;
  if (!OPS.includes(operation)) throw new UsageError(`unknown operation ${JSON.stringify(operation)}`);
  if (opts.op && input?.operation && opts.op !== input.operation) {
    throw new UsageError(`the command says ${opts.op} but the JSON on stdin says ${input.operation}`);
  }
  const op = { ...input, operation };
  const listed = [...opts.paths, ...opts.files];
  const canonical = (list, field = "files") => {
    if (!Array.isArray(list) || list.some((p) => typeof p !== "string")) throw new UsageError(`${field} must be a list of paths`);
    return list.map((p) => canonicalClaim(p, base));
  };
  const instance = () => {
    op.instance_id ??= opts.instance ?? env.CONDUCTOR_INSTANCE;
    if (!op.instance_id) throw new UsageError(`${operation} needs --instance ID (or $CONDUCTOR_INSTANCE)`);
  };
  if (operation === "start") {
    op.task ??= opts.task;
    op.priority ??= opts.priority;
    if (!op.task || !op.priority) throw new UsageError("start needs --task and --priority");
    const root = op.project_root ?? projectRoot(base);
    op.working_directory ??= base;
    op.project_root = root;
    op.project ??= opts.project ?? path.basename(root);
    op.source ??= detectSource(env);
    op.host ??= os.hostname();
    if (op.pid === undefined) Object.assign(op, ownerProcess(opts, env));
    op.agent ??= opts.agent ?? null;
    op.session ??= null;
    if (opts.override !== undefined) op.override = opts.override;
  } else if (operation === "claim") {
    instance();
    op.files = canonical(op.files ?? listed);
    if (!op.files.length) throw new UsageError("claim needs the paths to claim");
    if (opts.force !== undefined) op.force = opts.force;
    if (op.force !== undefined) op.by ??= opts.agent ?? os.userInfo().username;
  } else if (operation === "release") {
    instance();
    if (opts.all || op.all) op.all = true;
    else op.files = canonical(op.files ?? listed);
    if (!op.all && !op.files.length) throw new UsageError("release needs the paths to release, or --all");
    if (opts.reason !== undefined) op.reason = opts.reason;
  } else if (operation === "done") {
    instance();
    op.outcome ??= opts.outcome ?? "success";
    op.files_modified = canonical(op.files_modified ?? listed, "files_modified");
  } else if (operation === "heartbeat") {
    instance();
  } else if (operation === "cleanup") {
    op.max_age_minutes ??= opts.maxAgeMinutes === undefined ? 60 : intOf(opts.maxAgeMinutes, "--max-age-minutes");
  }
  return op;
}

/** `sprint --set FILE` (the text, checked to be a JSON object) or `sprint --clear`. */
function sprintOperation(opts, readStdin, cwd) {
  if (!!opts.clear === (opts.set !== undefined)) throw new UsageError("sprint needs --set FILE or --clear");
  if (opts.clear) return { operation: "sprint", clear: true };
  let text;
  try {
    text = opts.set === "-" ? readStdin() : fs.readFileSync(path.resolve(cwd, opts.set), "utf8");
  } catch (error) {
    throw new UsageError(`sprint --set: cannot read ${opts.set}: ${error.message}`);
  }
  try {
    const sprint = JSON.parse(text);
    if (!sprint || typeof sprint !== "object" || Array.isArray(sprint)) throw new Error("not an object");
  } catch (error) {
    throw new UsageError(`sprint --set: ${opts.set} is not a JSON object (${error.message})`);
  }
  return { operation: "sprint", text };
}

const minutes = (m) => (m == null ? "?" : m >= 120 ? `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}` : `${m}m`);
const seconds = (s) => (s == null ? "?" : s < 120 ? `${s}s` : minutes(Math.floor(s / 60)));

/** A claim as shown in the table: relative to the instance's project when inside it. */
function shortClaim(pattern, root) {
  const prefix = root ? `${escapeGlob(root)}/` : null;
  return prefix && pattern.startsWith(prefix) ? pattern.slice(prefix.length) : pattern;
}

/** The readable table of a `status` result: one row per instance, then drift warnings. */
export function statusTable(result) {
  const instances = result.instances ?? [];
  if (!instances.length) return "no instances registered";
  const rows = [["INSTANCE", "PROJECT", "TASK", "PRI", "AGENT", "AGE", "HEARTBEAT", "ALIVE", "CLAIMS"]];
  for (const i of instances) {
    const claims = (i.files_claimed ?? []).map((c) => shortClaim(c, i.project_root));
    rows.push([i.id, i.project ?? "", clip(i.task ?? "", 40), i.priority ?? "", i.agent ?? "-", minutes(i.age_minutes),
      `${seconds(i.heartbeat_age_seconds)} ago`, i.alive === false ? "dead" : "alive", claims.length ? claims.join(", ") : "-"]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const lines = rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]))).join("  "));
  for (const c of result.conflicts ?? []) lines.push(`CONFLICT: ${c.instances?.join(" and ")} hold intersecting claims ${c.patterns?.join(" and ")}`);
  for (const w of result.drift_warnings ?? []) lines.push(`drift: ${w.instance_id}: ${w.reason}${w.acknowledged ? " (acknowledged)" : ""}`);
  const s = result.summary;
  if (s) lines.push(`${s.active_count} instance(s), ${s.total_files_claimed} claim(s), oldest ${minutes(s.oldest_instance_age_minutes)}`);
  return lines.join("\n");
}


/** The readable text of any other result. */
function describe(op, result) {
  const lines = [];
  if (op === "start" && result.status === "ok") {
    lines.push(`registered ${result.instance_id}`, `  export CONDUCTOR_INSTANCE=${result.instance_id}`);
  }
  if (op === "heartbeat" && result.status === "ok") lines.push(`heartbeat of ${result.instance_id} at ${result.last_heartbeat}`);
  if (result.message) lines.push(result.message);
  if (result.removed?.length) lines.push(`removed: ${result.removed.join(", ")}`);
  if (result.claimed?.length) lines.push(`claimed: ${result.claimed.join(", ")}`);
  if (result.released?.length) lines.push(`released: ${result.released.join(", ")}`);
  for (const c of result.conflicts ?? []) {
    const held = c.pattern && c.pattern !== c.file ? `${c.pattern}, held` : "held";
    lines.push(`  ${c.file}: intersects ${held} by ${c.held_by}${c.holder_agent ? ` (@${c.holder_agent})` : ""}: ` +
      `"${c.holder_task ?? "?"}"${c.holder_age_minutes != null ? `, for ${minutes(c.holder_age_minutes)}` : ""}`);
  }
  for (const f of result.forced ?? []) lines.push(`  took ${f.pattern} from ${f.held_by}`);
  if (result.drift_warning) lines.push(`drift warning: ${typeof result.drift_warning === "string" ? result.drift_warning : JSON.stringify(result.drift_warning)}`);
  for (const o of result.options ?? []) lines.push(`  option: ${o}`);
  return lines.length ? lines.join("\n") : JSON.stringify(result, null, 2);
}

/** The exit status of a result: 0 ok, 1 conflict or blocked (or anything not ok). */
export const exitFor = (result) => (result?.status === "ok" ? 0 : 1);

/**
 * Runs `nso conductor ...` with `argv` (the words after `conductor`); resolves to the exit
 * status. Output goes to `out`/`err` (console by default).
 */
export async function conductorMain(argv, { env = process.env, cwd = process.cwd(), readStdin = () => fs.readFileSync(0, "utf8"),
  out = console.log, err = console.error } = {}) {
  let opts;
  let op;
  try {
    opts = parseConductorArgs(argv);
    let input;
    if (opts.jsonIn) {
      try {
        input = JSON.parse(readStdin());
      } catch (error) {
        throw new UsageError(`--json-in: stdin is not JSON: ${error.message}`);
      }
      if (!input || typeof input !== "object" || Array.isArray(input)) throw new UsageError("--json-in: stdin must be one JSON object");
    }
    op = opts.op === "sprint" ? sprintOperation(opts, readStdin, cwd) : buildOperation(opts, { env, cwd, input });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`nso conductor: ${error.message}\n\nusage:\n${CONDUCTOR_USAGE}`);
    return 2;
  }
  let answer;
  try {
    const root = projectRoot(path.resolve(cwd, opts.dir ?? op.working_directory ?? "."));
    const settings = conductorSettings(root);
    const store = storeFor(opts, settings, root, env);
    if (op.operation === "sprint") {
      await store.writeSprint(op.clear ? null : op.text);
      out(op.clear ? `sprint cleared (${store.describe})` : `sprint set (${store.describe})`);
      return 0;
    }
    answer = await store.run({ op, ttlSeconds: settings.ttlSeconds, errorLog: (n) => err(`nso conductor: RECOVERED: ${n.message}`) });
  } catch (error) {
    return failed(opts, { code: error.code ?? "conductor_error", message: error.message, fix: error.fix }, out, err);
  } finally {
    await closeStores();
  }
  if (answer.error) return failed(opts, answer.error, out, err);
  const { result } = answer;
  if (opts.json) out(JSON.stringify(result, null, 2));
  else out(op.operation === "status" ? statusTable(result) : describe(op.operation, result));
  return exitFor(result);
}

function failed(opts, error, out, err) {
  if (opts.json) out(JSON.stringify({ status: "error", error }, null, 2));
  err(`nso conductor: ${error.message}${error.fix ? `\nFix: ${error.fix}` : ""} [${error.code}]`);
  return 2;
}
