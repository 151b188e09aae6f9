#!/usr/bin/env node
// `nso`: the command line over the same wasm core the plugin uses.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { loadCore, loadWorkflowCore } from "../plugin/core-loader.js";
import { DISK_FACTS } from "../plugin/decision/files.js";
import { createNso } from "../plugin/nso.js";
import { projectAgents } from "../plugin/decision/project-agents.js";
import { delegationVerdict, kordEditContext, readState, taskText } from "../plugin/kord.js";
import { isoNow, languageRoute } from "../plugin/nso-tools.js";
import { recoverStatusSync } from "../plugin/status-sync.js";
import { auditMain } from "./audit-cli.js";
import { replayMain } from "./replay-cli.js";
import { guardMain } from "./init/guard.js";
import { enforceMain, initMain } from "./init/cli.js";
import { hookMain } from "./hook-cli.js";
import { conductorMain } from "./conductor-cli.js";
import { continuityMain } from "./continuity-cli.js";
import { mindMain } from "./mind-cli.js";
import { statusMain } from "./mc/status-cli.js";
import { mcMain } from "./mc/launch.js";
import { doctorMain } from "./doctor.js";
import { HELP } from "./commands.js";
import { configProblems } from "./config-check.js";
import { UsageError, checkDir, checkFlags, didYouMean, overview, reportError, shortHelp, wantsHelp, withJsonErrors } from "./conventions.js";

/** Whether the command was asked for JSON: its errors are JSON too (bin/conventions.js). */
let jsonOut = false;

function fail(message, code = 2) {
  const [text, fix] = message.split("\nFix: ");
  process.exit(reportError(Object.assign(new Error(text), { exit: code, fix, code: code === 2 ? "usage" : "error" }), { json: jsonOut }));
}

function parseArgs(argv) {
  let [sub, ...rest] = argv;
  if (sub === "status" && ["check", "set", "new", "archive", "recover"].includes(rest[0])) {
    sub = `status ${rest[0]}`;
    rest = rest.slice(1);
  }
  const opts = { sub, positional: [], artifact: [] };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === "--json") opts.json = true;
    else if (arg === "--as-user") opts.asUser = true;
    else if (["--agent", "--command", "--tool", "--path", "--args", "--dir", "--session", "--task", "--state", "--todo",
      "--title", "--description", "--priority", "--language", "--artifact"].includes(arg)) {
      if (i + 1 >= rest.length) fail(`nso ${sub}: ${arg} needs a value`);
      if (arg === "--artifact") opts.artifact.push(rest[++i]);
      else opts[arg.slice(2)] = rest[++i];
    } else if (sub === "status set" && !arg.startsWith("-")) opts.positional.push(arg);
    else fail(`nso ${sub}: unknown argument ${JSON.stringify(arg)}`);
  }
  return opts;
}

/** The value of `--dir` in `argv`, if any. */
function dirOption(argv) {
  const i = argv.indexOf("--dir");
  return i >= 0 ? argv[i + 1] : undefined;
}

/** `argv` without `--dir DIR`. */
function withoutDir(argv) {
  const i = argv.indexOf("--dir");
  return i >= 0 ? [...argv.slice(0, i), ...argv.slice(i + 2)] : argv;
}

/** The project's log folder (absolute): `logDir` of its config, else the default. */
function logDirOf(dir) {
  const { worktree } = project(dir);
  const file = path.join(worktree, ".opencode/nso.json");
  let logDir = ".opencode/logs";
  try {
    logDir = new (loadCore().Nso)(".opencode/nso.json", fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined).config().logDir;
  } catch {
    // a broken config: the default folder (nso check names the problem)
  }
  return path.join(worktree, logDir);
}

function project(dir) {
  const directory = path.resolve(dir ?? process.cwd());
  let worktree = directory;
  try {
    worktree = execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: directory, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    // not a git repository: the folder itself is the project
  }
  return { directory, worktree };
}

function loadNso(worktree) {
  const file = path.join(worktree, ".opencode/nso.json");
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
  try {
    const nso = new (loadCore().Nso)(".opencode/nso.json", text);
    nso.setProjectAgents(projectAgents(worktree));
    let workflow;
    nso.setStatusChecker((query) => (workflow ??= new (loadWorkflowCore().Workflow)(".opencode/nso.json", text))
      .checkStatusEdit(query, kordEditContext(worktree, loadWorkflowCore(), query)));
    return nso;
  } catch (error) {
    fail(`nso: ${error.problem ?? error.message}\nFix: ${error.fix ?? "correct the file."}`);
  }
}

function explain(opts) {
  // `--command /research --task 258`: how a language-routed command is routed.
  if (opts.task !== undefined && String(opts.command ?? "").startsWith("/")) return route(opts);
  const who = caller(opts, "explain");
  let tool = opts.tool ?? (opts.command !== undefined ? "bash" : undefined);
  let args = {};
  if (opts.command !== undefined) args.command = opts.command;
  if (opts.path !== undefined) {
    args.filePath = opts.path;
    tool ??= "write";
  }
  if (opts.args !== undefined) {
    try {
      args = { ...args, ...JSON.parse(opts.args) };
    } catch (error) {
      fail(`nso explain: --args is not valid JSON: ${error.message}`);
    }
  }
  if (!tool) fail(`nso explain: give --command, --path or --tool`);
  const { directory, worktree } = project(opts.dir);
  const nso = loadNso(worktree);
  if (who.asUser && !opts.json) console.log(who.note);
  // The plugin's own decision loop (the core bounds the arguments and asks the disk the same).
  const { decision, text } = nso.explainCall(opts.session ?? "cli", who.agent, tool, args, DISK_FACTS, { directory, worktree });
  const plan = tool === "task" && decision.verdict !== "block" ? explainDelegation(worktree, who.agent, args, opts.session) : undefined;
  console.log(opts.json ? JSON.stringify(plan ? { ...decision, plan } : decision, null, 2) : text + (plan ? `\n${plan.text}` : ""));
  process.exit(decision.verdict === "block" || plan?.allowed === false ? 1 : 0);
}

/** The plan's delegation rules on a `task` call (the state is read, never written). */
function explainDelegation(worktree, agent, args, session) {
  const delegation = { agent: agent ?? "", target: String(args.subagent_type ?? ""), session: session ?? "cli",
    prompt: taskText(args), now: new Date().toISOString() };
  const v = delegationVerdict(worktree, loadWorkflowCore(), readState(worktree), delegation);
  if (!v?.rule) return undefined;
  const text = v.allowed ? `Plan: allowed by ${v.rule}: ${v.message}.` : `Plan: refused by ${v.rule}: ${v.message}.`;
  return { allowed: v.allowed, rule: v.rule, message: v.message, text };
}

/**
 * Who the command acts as: `--agent NAME` (decided as OpenCode's agent NAME), or `--as-user`
 * (the person at the keyboard, with the rights of the policy's agent `user`). One is required.
 */
function caller(opts, what) {
  if (opts.asUser && opts.agent) fail(`nso ${what}: give --agent NAME or --as-user, not both`);
  if (opts.asUser) {
    return {
      agent: "user", asUser: true,
      note: "nso: acting for the person at the keyboard, with the rights of agent `user` (authority.agents.user in .opencode/nso.json)",
    };
  }
  if (!opts.agent) fail(`nso ${what}: --agent NAME or --as-user is required (the same rules decide as in OpenCode)`);
  return { agent: opts.agent, asUser: false };
}

function readIf(file) {
  return file && fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

function route(opts) {
  if (!opts.command || !opts.task) fail(`nso route: --command and --task are required`);
  const { worktree } = project(opts.dir);
  let language, routed;
  try {
    ({ language, route: routed } = languageRoute(loadWorkflowCore(), worktree, opts.command, opts.task, { state: opts.state, todo: opts.todo }));
  } catch (error) {
    fail(`nso route: ${error.message}`);
  }
  if (opts.json) console.log(JSON.stringify({ command: opts.command, task: opts.task, language, route: routed }, null, 2));
  else {
    console.log(`command ${opts.command}, task ${opts.task}: language ${language.language} (from ${language.source})`);
    for (const note of language.notes ?? []) console.log(`  note: ${note}`);
    console.log(routed.agent ? `agent: @${routed.agent} (${routed.reason})` : `no agent: ${routed.reason}`);
  }
  process.exit(routed.agent ? 0 : 1);
}

/** One line on what recovery did, or undefined when it did nothing. */
function describeRecovery(r) {
  const parts = [];
  if (r.finished) parts.push(`finished an interrupted sync (${[...r.renamed, ...r.moved].join(", ") || "nothing left to rename"})`);
  if (r.removed.length) parts.push(`removed ${r.removed.length} temp file(s) of a sync that did not commit: ${r.removed.join(", ")}`);
  if (r.lockBroken) parts.push("removed the lock of a sync that is no longer running");
  return parts.length ? `nso: recovered: ${parts.join("; ")}` : undefined;
}

/** Recovers first (every status command does); a failure is reported, not fatal, for check. */
async function recoverFirst(worktree, what) {
  try {
    const line = describeRecovery(await recoverStatusSync(worktree));
    if (line) console.error(line);
  } catch (error) {
    console.error(`nso ${what}: recovery failed: ${error.message}`);
  }
}

async function statusCheck(opts) {
  const { worktree } = project(opts.dir);
  await recoverFirst(worktree, "status check");
  const todoFile = opts.todo ?? path.join(worktree, ".opencode/specs/TODO.md");
  const stateFile = opts.state ?? path.join(worktree, ".opencode/specs/state.json");
  const todo = readIf(todoFile);
  const state = readIf(stateFile);
  if (todo === undefined || state === undefined) {
    fail(`nso status check: ${todo === undefined ? todoFile : stateFile} not found (use --todo / --state)`);
  }
  const found = JSON.parse(loadWorkflowCore().statusCheck(todo, state, undefined));
  if (opts.json) console.log(JSON.stringify(found, null, 2));
  else {
    for (const d of found) console.log(`${d.file}:${d.line}: ${d.message} [${d.code}]`);
    console.log(found.length ? `${found.length} disagreement(s)` : `consistent: ${path.relative(worktree, todoFile)} and ${path.relative(worktree, stateFile)}`);
  }
  process.exit(found.length ? 1 : 0);
}

async function statusSync(opts) {
  const op = opts.sub.slice("status ".length);
  const { directory, worktree } = project(opts.dir);
  let args = {};
  if (op === "set") {
    const [n, status] = opts.positional;
    if (opts.positional.length !== 2 || !/^\d+$/.test(n)) fail(`nso status set: give the task number and the new status`);
    args = { taskNumber: Number(n), newStatus: status, artifacts: opts.artifact };
  } else if (op === "new") {
    if (!opts.title) fail(`nso status new: --title is required`);
    args = { title: opts.title, description: opts.description, priority: opts.priority, language: opts.language };
  }
  const who = caller(opts, `status ${op}`);
  if (who.asUser) console.error(who.note);
  // The same instance the plugin creates: authority and status machines decide every
  // planned write, so the CLI and OpenCode give one verdict for one caller.
  const nso = createNso({ directory, worktree, projectAgentsOf: projectAgents });
  if (nso.state.failure) fail(`nso status ${op}: ${nso.state.failure.message}\nFix: ${nso.state.failure.fix}`);
  let result;
  try {
    // NSO_SYNC_NOW is test-only: a fixed clock, so that two runs plan the same texts.
    result = await nso.statusSync({ agent: who.agent, sessionID: "cli" }, { op, ...args, now: process.env.NSO_SYNC_NOW ?? isoNow() });
  } catch (error) {
    // Missing files and a broken nso.json are setup problems (2); everything else is a refusal.
    fail(`nso status ${op}: ${error.message}`, error.code === "sync_missing_file" || error.fix !== undefined ? 2 : 1);
  }
  const line = describeRecovery(result.recovered);
  if (line) console.error(line);
  if (opts.json) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(result.summary);
    for (const m of result.moves) console.log(`  moved: ${m.from} -> ${m.to}`);
    for (const note of result.notes) console.log(`  note: ${note}`);
  }
}

async function statusRecover(opts) {
  const { worktree } = project(opts.dir);
  try {
    console.log(describeRecovery(await recoverStatusSync(worktree)) ?? "nso: nothing to recover");
  } catch (error) {
    fail(`nso status recover: ${error.message}`, 1);
  }
}

function check(opts) {
  const { worktree } = project(opts.dir);
  const file = path.join(worktree, ".opencode/nso.json");
  const text = readIf(file);
  const { problems, empty } = text === undefined ? { problems: [], empty: true } : configProblems(text);
  const note = text === undefined ? "not present: NSO uses its defaults (preset nso)." : empty ? "empty: NSO uses its defaults (preset nso)." : "valid.";
  if (opts.json) console.log(JSON.stringify({ file, valid: !problems.length, defaults: empty, problems }, null, 2));
  else {
    for (const p of problems) console.log(`.opencode/nso.json: ${p.path}: ${p.problem} [${p.code}]\n  Fix: ${p.fix}`);
    console.log(problems.length ? `${problems.length} problem(s) in ${file}.` : `${file}: ${note}`);
  }
  process.exit(problems.length ? 1 : 0);
}

/** `nso explain|check|route|status SUB ...`: the commands this file parses. */
async function ownMain(argv) {
  const opts = parseArgs(argv);
  if (opts.sub === "explain") explain(opts);
  else if (opts.sub === "check") check(opts);
  else if (opts.sub === "route") route(opts);
  else if (opts.sub === "status check") await statusCheck(opts);
  else if (["status set", "status new", "status archive"].includes(opts.sub)) await statusSync(opts);
  else if (opts.sub === "status recover") await statusRecover(opts);
  return 0;
}

// `nso status` alone or with flags is the Agents table (bin/mc/status-cli.js); `nso status check|set|...` is ownMain.
const status = (argv) => (/^[^-]/.test(argv[0] ?? "") ? ownMain(["status", ...argv]) : statusMain(argv));
const continuity = (name) => (argv) => continuityMain(name, argv, { project });

/** Every command: its name, what runs it (argv after the name; returns the exit status), its help. */
const COMMANDS = [
  { name: "init", run: initMain },
  { name: "enforce", run: enforceMain },
  { name: "doctor", run: doctorMain },
  { name: "explain", run: (argv) => ownMain(["explain", ...argv]) },
  { name: "check", run: (argv) => ownMain(["check", ...argv]) },
  { name: "audit", run: (argv) => auditMain(withoutDir(argv), { logDir: logDirOf(dirOption(argv)) }) },
  { name: "replay", run: replayMain },
  { name: "route", run: (argv) => ownMain(["route", ...argv]) },
  { name: "status", run: status },
  { name: "mc", run: mcMain },
  { name: "conductor", run: conductorMain },
  { name: "decide", run: continuity("decide") },
  { name: "decisions", run: continuity("decisions") },
  { name: "transcript", run: continuity("transcript") },
  { name: "handoff", run: continuity("handoff") },
  { name: "mind", run: (argv) => mindMain("mind", argv, { project }) },
  { name: "insight", run: (argv) => mindMain("insight", argv, { project }) },
  { name: "tools", run: (argv) => import("./tools-cli.js").then((m) => m.toolsMain(argv)) },
  { name: "guard", run: guardMain },
  { name: "hook", run: hookMain },
].map((c) => ({ ...HELP[c.name], ...c }));

const VERSION = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
const [name, ...argv] = process.argv.slice(2);
jsonOut = argv.includes("--json");
if (name === "--version" || name === "-V" || name === "version") {
  console.log(`nso ${VERSION}`);
  process.exit(0);
}
if (name === undefined || name === "--help" || name === "-h" || name === "help") {
  const asked = name === "help" ? COMMANDS.find((c) => c.name === argv[0]) : undefined;
  console.log(asked ? shortHelp(asked) : overview(COMMANDS, VERSION));
  process.exit(name === "help" && argv[0] !== undefined && !asked ? 2 : 0);
}
const command = COMMANDS.find((c) => c.name === name);
try {
  if (!command) {
    throw new UsageError(`nso: unknown command ${JSON.stringify(name)}.${didYouMean(name, COMMANDS.map((c) => c.name))}`,
      { code: "unknown_command", fix: "run `nso --help` for the list of commands." });
  }
  if (wantsHelp(argv, command.usage)) {
    console.log(shortHelp(command));
    process.exit(0);
  }
  checkFlags(name, argv, command.usage);
  checkDir(name, argv);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.exit(reportError(error, { json: jsonOut }));
}
process.exit(jsonOut ? await withJsonErrors(() => command.run(argv)) : await command.run(argv));
