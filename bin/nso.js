#!/usr/bin/env node
// `nso`: the command line over the same wasm core the plugin uses.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { loadCore, loadWorkflowCore } from "../plugin/core-loader.js";
import { DISK_FACTS } from "../plugin/files.js";
import { createNso } from "../plugin/nso.js";
import { projectAgents } from "../plugin/project-agents.js";
import { delegationVerdict, kordEditContext, readState, taskText } from "../plugin/kord.js";
import { isoNow, languageRoute } from "../plugin/nso-tools.js";
import { recoverStatusSync } from "../plugin/status-sync.js";
import { AUDIT_HELP, AUDIT_USAGE, auditMain } from "./audit-cli.js";
import { REPLAY_HELP, REPLAY_USAGE, replayMain } from "./replay-cli.js";
import { GUARD_HELP, GUARD_USAGE, guardMain } from "./init/guard.js";
import { INIT_HELP, INIT_USAGE, initMain } from "./init/cli.js";
import { HOOK_HELP, HOOK_USAGE, hookMain } from "./hook-cli.js";
import { CONDUCTOR_HELP, CONDUCTOR_USAGE, conductorMain } from "./conductor-cli.js";
import { CONTINUITY_COMMANDS, CONTINUITY_HELP, CONTINUITY_USAGE, continuityMain } from "./continuity-cli.js";
import { STATUS_HELP, STATUS_USAGE, statusMain } from "./mc/status-cli.js";
import { MC_HELP, MC_USAGE, mcMain } from "./mc/launch.js";

const USAGE = `usage:
  nso explain --agent NAME --command "BASH COMMAND"      [--dir DIR] [--json]
  nso explain --agent NAME --tool TOOL [--path P] [--args JSON] [--dir DIR] [--json]
              (--as-user instead of --agent NAME: the person at the keyboard, see WHO)
  nso explain --command /CMD --task N                     [--dir DIR] [--json]   (as nso route)
  nso route --command /CMD --task N [--state FILE] [--todo FILE] [--dir DIR] [--json]
  nso status check [--todo FILE] [--state FILE] [--dir DIR] [--json]
  nso status set N STATUS (--agent NAME | --as-user) [--artifact PATH]... [--dir DIR] [--json]
  nso status new --title T [--description D] [--priority P] [--language L] (--agent NAME | --as-user) [--dir DIR] [--json]
  nso status archive (--agent NAME | --as-user) [--dir DIR] [--json]
  nso status recover [--dir DIR]
${STATUS_USAGE}
${MC_USAGE}
  nso check [--dir DIR]
${CONDUCTOR_USAGE}
${CONTINUITY_USAGE}
${AUDIT_USAGE}
${REPLAY_USAGE}
${INIT_USAGE}
${GUARD_USAGE}
${HOOK_USAGE}

explain  how NSO decides one tool call: the verdict, the rule and where it is defined, who
         may, and why. --command implies --tool bash; --path sets filePath (default tool:
         write). --args gives the tool's arguments as JSON (merged over the others).
         Exit status: 0 allowed (also soft/warn), 1 blocked, 2 usage or config error.
route    which agent a language-routed command goes to for a task: the routing table from
         the frontmatter of .opencode/command/*.md (routing: language_based, per-language
         keys, default), the language from the task's state.json (the project folder
         .opencode/specs/NNN_*/state.json, else .opencode/specs/state.json; or --state),
         else its TODO.md entry's **Language** (.opencode/specs/TODO.md; or --todo), else
         general. Exit 0 routed, 1 no table or no agent, 2 usage error.
status check
         every disagreement between TODO.md and state.json (status, artifacts, numbers,
         tasks on one side only) with file and line; defaults .opencode/specs/TODO.md and
         .opencode/specs/state.json. Exit 0 consistent, 1 not, 2 missing files.
status set
         moves task N to STATUS in TODO.md, state.json and the task's project state.json
         (.opencode/specs/NNN_*/state.json) together, or changes nothing: the move must be
         legal for the caller (the status machine's transitions and role gates) and every
         file it writes must be allowed to the caller by the authority policy, exactly as
         for nso_status_set in OpenCode; dates are stamped and each --artifact is linked.
status new
         adds a task numbered next_project_number (which is incremented) to both files.
status archive
         moves completed and abandoned tasks to .opencode/specs/archive/state.json and
         their project folders to .opencode/specs/archive/.
status recover
         finishes a sync that was interrupted (a crash after its commit point) or removes
         its temp files (before it); every status command does this first.
         Exit status of set/new/archive/recover: 0 done, 1 refused (the message names the
         file and line, and what is legal), 2 usage error or missing files.
${STATUS_HELP}
${MC_HELP}
check    validates DIR/.opencode/nso.json and lists every problem. Exit 0 valid, 1 not.
${CONDUCTOR_HELP}
${CONTINUITY_HELP}
${AUDIT_HELP}
${REPLAY_HELP}
${INIT_HELP}
${GUARD_HELP}
${HOOK_HELP}
DIR      the project folder (default: the current one); the project root is its git root.
WHO      --agent NAME decides as OpenCode's agent NAME would be decided in this project:
         the same engine, policy and messages (an agent the policy does not know is refused
         as in OpenCode). --as-user acts for the person at the keyboard with the rights the
         project gives the person: the agent \`user\` of \`authority.agents\` in
         .opencode/nso.json (e.g. "user": {"like": "planner"}); without one, refused.`;

function fail(message, code = 2) {
  console.error(message);
  process.exit(code);
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
      if (i + 1 >= rest.length) fail(`nso: ${arg} needs a value\n\n${USAGE}`);
      if (arg === "--artifact") opts.artifact.push(rest[++i]);
      else opts[arg.slice(2)] = rest[++i];
    } else if (arg === "-h" || arg === "--help") opts.command = "help";
    else if (sub === "status set" && !arg.startsWith("-")) opts.positional.push(arg);
    else fail(`nso: unknown argument ${JSON.stringify(arg)}\n\n${USAGE}`);
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
  if (!tool) fail(`nso explain: give --command, --path or --tool\n\n${USAGE}`);
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
  if (opts.asUser && opts.agent) fail(`nso ${what}: give --agent NAME or --as-user, not both\n\n${USAGE}`);
  if (opts.asUser) {
    return {
      agent: "user", asUser: true,
      note: "nso: acting for the person at the keyboard, with the rights of agent `user` (authority.agents.user in .opencode/nso.json)",
    };
  }
  if (!opts.agent) fail(`nso ${what}: --agent NAME or --as-user is required (the same rules decide as in OpenCode)\n\n${USAGE}`);
  return { agent: opts.agent, asUser: false };
}

function readIf(file) {
  return file && fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

function route(opts) {
  if (!opts.command || !opts.task) fail(`nso route: --command and --task are required\n\n${USAGE}`);
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
    if (opts.positional.length !== 2 || !/^\d+$/.test(n)) fail(`nso status set: give the task number and the new status\n\n${USAGE}`);
    args = { taskNumber: Number(n), newStatus: status, artifacts: opts.artifact };
  } else if (op === "new") {
    if (!opts.title) fail(`nso status new: --title is required\n\n${USAGE}`);
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
  if (!fs.existsSync(file)) {
    console.log(`${file}: not present; NSO uses its defaults (preset nso).`);
    return;
  }
  const text = fs.readFileSync(file, "utf8");
  const problems = JSON.parse(loadCore().checkConfig(".opencode/nso.json", text));
  if (!problems.length) {
    try {
      problems.push(...JSON.parse(new (loadWorkflowCore().Workflow)(".opencode/nso.json", text).statusProblems()));
    } catch (error) {
      // what only the workflow package checks (the T0 policy) fails its constructor
      problems.push({ path: error.path ?? "(document)", problem: (error.problem ?? error.message).replace(/^.*?: .*?: /, ""), code: error.code ?? "config", fix: error.fix ?? "correct the file." });
    }
  }
  for (const p of problems) console.log(`.opencode/nso.json: ${p.path}: ${p.problem} [${p.code}]\n  Fix: ${p.fix}`);
  if (problems.length) process.exit(1);
  console.log(`${file}: valid.`);
}

// The conductor has its own flags (bin/conductor-cli.js).
if (process.argv[2] === "hook") process.exit(await hookMain(process.argv.slice(3)));
if (process.argv[2] === "conductor") process.exit(await conductorMain(process.argv.slice(3)));
if (process.argv[2] === "mc") process.exit(await mcMain(process.argv.slice(3)));
// `nso status` alone or with flags is the Agents table (bin/mc/status-cli.js); `nso status check|set|...` below.
if (process.argv[2] === "status" && !/^[^-]/.test(process.argv[3] ?? "")) process.exit(await statusMain(process.argv.slice(3)));
if (CONTINUITY_COMMANDS.includes(process.argv[2])) process.exit(await continuityMain(process.argv[2], process.argv.slice(3), { project }));
if (process.argv[2] === "replay") process.exit(await replayMain(process.argv.slice(3)));
if (process.argv[2] === "init") process.exit(initMain(process.argv.slice(3)));
if (process.argv[2] === "guard") process.exit(await guardMain(process.argv.slice(3)));
if (process.argv[2] === "audit") process.exit(auditMain(withoutDir(process.argv.slice(3)), { logDir: logDirOf(dirOption(process.argv.slice(3))) }));
const opts = parseArgs(process.argv.slice(2));
if (opts.sub === "explain") explain(opts);
else if (opts.sub === "check") check(opts);
else if (opts.sub === "route") route(opts);
else if (opts.sub === "status check") await statusCheck(opts);
else if (["status set", "status new", "status archive"].includes(opts.sub)) await statusSync(opts);
else if (opts.sub === "status recover") await statusRecover(opts);
else if (["help", "--help", "-h", undefined].includes(opts.sub)) console.log(USAGE);
else fail(`nso: unknown command ${JSON.stringify(opts.sub)}\n\n${USAGE}`);
