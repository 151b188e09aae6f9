// `nso init git | claude-code | opencode`: installs NSO into a project's git hooks, Claude Code
// settings and OpenCode config. The decisions are pure (git-hook.js, claude-code.js,
// opencode.js: text in, new text or an error out); this file finds the files, validates what
// needs the core, and writes. Nothing of the user's is overwritten: an existing hook is never
// replaced, settings are merged, and a file that cannot be merged safely is left untouched.
import fs from "node:fs";
import path from "node:path";
import { replaceFile } from "../../plugin/atomic-file.js";
import { hookCommand, mainAgentOf, mergeClaudeSettings, setMainAgent } from "./claude-code.js";
import { chainLine, planHook } from "./git-hook.js";
import { InitError, readIfExists } from "./json-file.js";
import { didYouMean } from "../conventions.js";
import { presetNames } from "./rights.js";
import { OPENCODE_AGENTS } from "../../plugin/decision/project-agents.js";
import { CONFIG_FILE, NSO_JS, PACKAGE_ROOT, SETTINGS_FILE, policyOf, projectRoot } from "./project.js";
import { enforce, initOpencode } from "./setup-opencode.js";
import { git, workTreeOf } from "./staged.js";

export const INIT_USAGE = `  nso init opencode [--preset NAME] [--enforce] [--absolute] [--dry-run] [--dir DIR]
  nso init claude-code [--main-agent NAME] [--native PATH | --node] [--dry-run] [--dir DIR]
  nso init git [--dry-run] [--dir DIR]`;
export const ENFORCE_USAGE = "  nso enforce [--audit] [--dry-run] [--dir DIR]";

class UsageError extends Error {}

const FLAGS = {
  git: ["--dir"], opencode: ["--dir", "--preset"], "claude-code": ["--dir", "--main-agent", "--native"],
};
const SWITCHES = { git: ["--dry-run"], opencode: ["--dry-run", "--enforce", "--absolute"], "claude-code": ["--dry-run", "--node"] };
const camel = (flag) => flag.slice(2).replace(/-(\w)/g, (_, c) => c.toUpperCase());

function parseArgs(argv) {
  const [sub, ...rest] = argv;
  if (sub === undefined) throw new UsageError("nso init: say what to install NSO into: opencode, claude-code or git");
  if (!(sub in FLAGS)) throw new UsageError(`nso init: unknown target ${JSON.stringify(sub)}${didYouMean(sub, Object.keys(FLAGS))}`);
  const opts = { sub };
  for (let i = 0; i < rest.length; i++) {
    if (SWITCHES[sub].includes(rest[i])) opts[camel(rest[i])] = true;
    else if (FLAGS[sub].includes(rest[i])) {
      if (i + 1 >= rest.length) throw new UsageError(`nso init ${sub}: ${rest[i]} needs a value`);
      opts[camel(rest[i])] = rest[++i];
    } else throw new UsageError(`nso init ${sub}: unknown argument ${JSON.stringify(rest[i])}${didYouMean(rest[i], [...FLAGS[sub], ...SWITCHES[sub]])}`);
  }
  if (opts.node && opts.native !== undefined) throw new UsageError("nso init claude-code: give --native PATH or --node, not both");
  if (opts.preset !== undefined && !presetNames().includes(opts.preset)) {
    throw new UsageError(`nso init opencode: --preset ${opts.preset}: no such preset${didYouMean(opts.preset, presetNames())} (presets: ${presetNames().join(", ")})`);
  }
  return opts;
}

// --- git ------------------------------------------------------------------------------------

function initGit(opts, say, warn) {
  const dir = path.resolve(opts.dir ?? process.cwd());
  const root = workTreeOf(dir);
  if (!root) throw new InitError(`${dir} is not inside a git work tree.`, "run `git init` first, or give the repository with --dir.");
  const hooksDir = path.resolve(root, git(root, ["rev-parse", "--git-path", "hooks"]).trim());
  const file = path.join(hooksDir, "pre-commit");
  const plan = planHook(readIfExists(file), NSO_JS);
  if (plan.action === "create") {
    fs.mkdirSync(hooksDir, { recursive: true });
    try {
      fs.writeFileSync(file, plan.text, { flag: "wx", mode: 0o755 }); // never over a hook that appeared meanwhile
    } catch (error) {
      if (error.code === "EEXIST") throw new InitError(`${file} appeared while NSO was installing its hook; it was left as it is.`, "run `nso init git` again.");
      throw error;
    }
    fs.chmodSync(file, 0o755);
    say(`installed NSO's pre-commit guard: ${file}\n  every commit's staged changes are checked against NSO's policy and the Conductor's claims.`);
    return 0;
  }
  if (plan.action === "update") {
    replaceFile(file, plan.text, { ...SETTINGS_FILE, mode: 0o755 });
    fs.chmodSync(file, 0o755);
    say(`updated NSO's pre-commit guard to this NSO (${NSO_JS}): ${file}`);
    return 0;
  }
  if (plan.action === "current") {
    if ((fs.statSync(file).mode & 0o111) === 0) fs.chmodSync(file, 0o755);
    say(`NSO's pre-commit guard is already installed: ${file}`);
    return 0;
  }
  if (plan.action === "chained") {
    say(`${file} is your own hook and already runs NSO's guard (\`guard pre-commit\`); nothing changed.`);
    return 0;
  }
  warn(`${file} already exists and is not NSO's: it was left as it is.\n` +
    "To run NSO's guard from it, add this line to it (in a shell script, before anything that ends it, such as `exec`):\n" +
    `  ${chainLine(NSO_JS)}\n` +
    "(From a hook in another language: run that command and stop the commit when it exits non-zero.)");
  return 1;
}

// --- claude-code ----------------------------------------------------------------------------

/** The native hook binary to use: `--native PATH` (must be an executable file), else the checkout's build, if any. */
function nativeHook(given) {
  const executable = (file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (given !== undefined) {
    const abs = path.resolve(given);
    if (!executable(abs)) throw new InitError(`--native ${given}: ${abs} is not an executable file.`, "give the path of the built nso-hook binary (cargo build --release), or leave --native out.");
    return abs;
  }
  const built = path.join(PACKAGE_ROOT, "target/release/nso-hook");
  return executable(built) ? built : undefined;
}

/** The policy's agents NSO can name: preset and configured agents, and OpenCode's own, that the policy knows. */
function knownAgents(engine, text) {
  const candidates = [...OPENCODE_AGENTS];
  let config = {};
  try {
    config = JSON.parse(text ?? "{}") ?? {};
  } catch {
    // the engine has already accepted the text
  }
  const preset = typeof config.authority?.preset === "string" ? config.authority.preset : "nso";
  try {
    candidates.push(...Object.keys(JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "crate/presets", `${preset}.json`), "utf8")).agents ?? {}));
  } catch {
    // an installed package has no preset sources: the configured agents and OpenCode's are named
  }
  candidates.push(...Object.keys(config.authority?.agents ?? {}));
  const names = new Set();
  for (const c of candidates) {
    const canonical = engine.movesAs(c)[0];
    if (canonical) names.add(canonical);
  }
  return [...names].sort();
}

function initClaudeCode(opts, say, warn) {
  const root = projectRoot(opts.dir);
  const settingsFile = path.join(root, ".claude/settings.json");
  const command = hookCommand({ nsoJs: NSO_JS, nativeHook: opts.node ? undefined : nativeHook(opts.native) });
  const merged = mergeClaudeSettings(readIfExists(settingsFile), command, settingsFile);

  // The main agent: checked against the policy before anything is written.
  const configFile = path.join(root, CONFIG_FILE);
  const configText = readIfExists(configFile);
  let agentChange;
  if (opts.mainAgent !== undefined) {
    const engine = policyOf(configText, configFile);
    if (!engine.movesAs(opts.mainAgent).length) {
      const known = knownAgents(engine, configText);
      throw new InitError(`--main-agent ${opts.mainAgent}: the policy of ${configFile} has no agent of that name (nothing was written).`,
        `name one of its agents${known.length ? `: ${known.join(", ")}` : ""}; or define it under authority.agents in ${CONFIG_FILE}, e.g. {"authority": {"agents": {"${opts.mainAgent}": {"like": "${known[0] ?? "build"}"}}}}.`);
    }
    // Stored as the policy names the agent (a case variant or an alias was given).
    agentChange = setMainAgent(configText, engine.movesAs(opts.mainAgent)[0], configFile);
    policyOf(agentChange.text, configFile); // the new config must load as NSO reads it
  }

  if (merged.changed) replaceFile(settingsFile, merged.text, SETTINGS_FILE);
  const summary = Object.entries(merged.events).map(([e, what]) => `${e} ${what}`).join(", ");
  say(merged.changed ? `merged NSO's hooks into ${settingsFile}: ${summary}\n  command: ${command}` : `NSO's hooks are already in ${settingsFile}; nothing changed.\n  command: ${command}`);
  // Claude Code also reads settings.local.json: NSO's hooks there too would run twice.
  const local = path.join(root, ".claude/settings.local.json");
  const localHooks = readIfExists(local);
  if (localHooks !== undefined && /hook["']?\s+claude-code/.test(localHooks)) {
    warn(`warning: ${local} also runs NSO's hook, so Claude Code would run it twice; remove NSO's entries from that file.`);
  }
  if (agentChange) {
    if (agentChange.changed) replaceFile(configFile, agentChange.text, SETTINGS_FILE);
    const name = agentChange.name;
    say(agentChange.changed
      ? `set claudeCode.mainAgent to "${name}" in ${configFile}${agentChange.previous ? ` (was "${agentChange.previous}")` : ""}`
      : `claudeCode.mainAgent is already "${name}" in ${configFile}`);
  } else if (!mainAgentOf(configText)) {
    warn(`warning: Claude Code's main agent has no NSO identity (claudeCode.mainAgent is not set in ${configFile}), so NSO refuses its ` +
      "write-class calls (fail closed) until it is set: nso init claude-code --main-agent NAME");
  }
  return 0;
}

/** How a command reports: `out` and `err` take whole texts. */
const STDIO = { out: (t) => process.stdout.write(`${t}\n`), err: (t) => process.stderr.write(`${t}\n`) };

/** Runs `nso init` with `argv` (after `init`); resolves to the exit status. */
export async function initMain(argv, { out, err } = STDIO) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`${error.message}\n\nusage:\n${INIT_USAGE}`);
    return 2;
  }
  try {
    if (opts.sub === "git") return dryRunOr(opts, out, () => initGit(opts, out, err), "the git pre-commit hook");
    if (opts.sub === "claude-code") return dryRunOr(opts, out, () => initClaudeCode(opts, out, err), ".claude/settings.json");
    return await initOpencode(opts, out, err);
  } catch (error) {
    if (!(error instanceof InitError)) throw error;
    err(`nso init ${opts.sub}: ${error.message}\nFix: ${error.fix}`);
    return 1;
  }
}

/**
 * Runs `install` unless `--dry-run`: then only says what it would change. (`nso init opencode`
 * shows its dry run file by file.)
 */
function dryRunOr(opts, out, install, what) {
  if (!opts.dryRun) return install();
  out(`dry run: \`nso init ${opts.sub}\` would install NSO into ${what} of ${projectRoot(opts.dir)}; nothing was changed.`);
  return 0;
}

/** Runs `nso enforce` with `argv`; resolves to the exit status. */
export async function enforceMain(argv, { out, err } = STDIO) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--dir") opts.dir = argv[++i];
    else if (argv[i] === "--audit" || argv[i] === "--dry-run") opts[camel(argv[i])] = true;
    else {
      err(`nso enforce: unknown argument ${JSON.stringify(argv[i])}\n\nusage:\n${ENFORCE_USAGE}`);
      return 2;
    }
  }
  try {
    return enforce(opts, out);
  } catch (error) {
    if (!(error instanceof InitError)) throw error;
    err(`nso enforce: ${error.message}\nFix: ${error.fix}`);
    return 1;
  }
}
