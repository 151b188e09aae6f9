#!/usr/bin/env node
// `nso`: the command line over the same wasm core the plugin uses.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { loadCore, loadWorkflowCore, gatherLookups } from "../plugin/nso-plugin.js";

const USAGE = `usage:
  nso explain --agent NAME --command "BASH COMMAND"      [--dir DIR] [--json]
  nso explain --agent NAME --tool TOOL [--path P] [--args JSON] [--dir DIR] [--json]
  nso route --command /CMD --task N [--state FILE] [--todo FILE] [--dir DIR] [--json]
  nso status check [--todo FILE] [--state FILE] [--dir DIR] [--json]
  nso check [--dir DIR]

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
check    validates DIR/.opencode/nso.json and lists every problem. Exit 0 valid, 1 not.
DIR      the project folder (default: the current one); the project root is its git root.`;

function fail(message, code = 2) {
  console.error(message);
  process.exit(code);
}

function parseArgs(argv) {
  let [sub, ...rest] = argv;
  if (sub === "status" && rest[0] === "check") {
    sub = "status check";
    rest = rest.slice(1);
  }
  const opts = { sub };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === "--json") opts.json = true;
    else if (["--agent", "--command", "--tool", "--path", "--args", "--dir", "--session", "--task", "--state", "--todo"].includes(arg)) {
      if (i + 1 >= rest.length) fail(`nso: ${arg} needs a value\n\n${USAGE}`);
      opts[arg.slice(2)] = rest[++i];
    } else if (arg === "-h" || arg === "--help") opts.command = "help";
    else fail(`nso: unknown argument ${JSON.stringify(arg)}\n\n${USAGE}`);
  }
  return opts;
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
    return new (loadCore().Nso)(".opencode/nso.json", text);
  } catch (error) {
    fail(`nso: ${error.problem ?? error.message}\nFix: ${error.fix ?? "correct the file."}`);
  }
}

function explain(opts) {
  if (!opts.agent) fail(`nso explain: --agent is required\n\n${USAGE}`);
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
  const request = { sessionId: opts.session ?? "cli", agent: opts.agent, tool, args, directory, worktree };
  for (let round = 0; round < 3; round++) {
    const need = JSON.parse(nso.lookups(JSON.stringify(request)));
    if (!need.resolve.length && !need.content.length && !need.exists.length) break;
    gatherLookups(request, need);
  }
  const json = JSON.stringify(request);
  const decision = JSON.parse(nso.evaluate(json));
  console.log(opts.json ? JSON.stringify(decision, null, 2) : nso.explain(json));
  process.exit(decision.verdict === "block" ? 1 : 0);
}

function readIf(file) {
  return file && fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

/** The project folder of task N (`.opencode/specs/NNN_name/`), if there is one. */
function projectFolder(specs, task) {
  const n = String(task).match(/\d+/)?.[0];
  if (!n || !fs.existsSync(specs)) return undefined;
  const entry = fs.readdirSync(specs, { withFileTypes: true })
    .find((d) => d.isDirectory() && d.name.match(/^(\d+)_/)?.[1] && Number(d.name.match(/^(\d+)_/)[1]) === Number(n));
  return entry ? path.join(specs, entry.name) : undefined;
}

function route(opts) {
  if (!opts.command || !opts.task) fail(`nso route: --command and --task are required\n\n${USAGE}`);
  const { worktree } = project(opts.dir);
  const wf = loadWorkflowCore();
  const tables = [];
  for (const folder of [".opencode/command", ".opencode/commands"]) {
    const dir = path.join(worktree, folder);
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".md")).sort()) {
      try {
        const table = wf.commandRouting(name, fs.readFileSync(path.join(dir, name), "utf8"));
        if (table) tables.push(JSON.parse(table));
      } catch (error) {
        fail(`nso route: ${folder}/${name}: ${error.message}`);
      }
    }
  }
  const specs = path.join(worktree, ".opencode/specs");
  const projectState = projectFolder(specs, opts.task);
  const stateFile = opts.state ?? [projectState && path.join(projectState, "state.json"), path.join(specs, "state.json")]
    .find((f) => f && fs.existsSync(f));
  const todoFile = opts.todo ?? path.join(specs, "TODO.md");
  const language = JSON.parse(wf.detectLanguage(readIf(stateFile), readIf(todoFile), String(opts.task)));
  const routed = JSON.parse(wf.routeLanguage(JSON.stringify(tables), opts.command, language.language));
  if (opts.json) console.log(JSON.stringify({ command: opts.command, task: opts.task, language, route: routed }, null, 2));
  else {
    console.log(`command ${opts.command}, task ${opts.task}: language ${language.language} (from ${language.source})`);
    for (const note of language.notes ?? []) console.log(`  note: ${note}`);
    console.log(routed.agent ? `agent: @${routed.agent} (${routed.reason})` : `no agent: ${routed.reason}`);
  }
  process.exit(routed.agent ? 0 : 1);
}

function statusCheck(opts) {
  const { worktree } = project(opts.dir);
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

function check(opts) {
  const { worktree } = project(opts.dir);
  const file = path.join(worktree, ".opencode/nso.json");
  if (!fs.existsSync(file)) {
    console.log(`${file}: not present; NSO uses its defaults (preset nso).`);
    return;
  }
  const problems = JSON.parse(loadCore().checkConfig(".opencode/nso.json", fs.readFileSync(file, "utf8")));
  for (const p of problems) console.log(`.opencode/nso.json: ${p.path}: ${p.problem} [${p.code}]\n  Fix: ${p.fix}`);
  if (problems.length) process.exit(1);
  console.log(`${file}: valid.`);
}

const opts = parseArgs(process.argv.slice(2));
if (opts.sub === "explain") explain(opts);
else if (opts.sub === "check") check(opts);
else if (opts.sub === "route") route(opts);
else if (opts.sub === "status check") statusCheck(opts);
else if (opts.sub === "help" || opts.sub === undefined) console.log(USAGE);
else fail(`nso: unknown command ${JSON.stringify(opts.sub)}\n\n${USAGE}`);
