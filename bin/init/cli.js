// `nso init git | claude-code | opencode`: installs NSO into a project's git hooks, Claude Code
// settings and OpenCode config. The decisions are pure (git-hook.js, claude-code.js,
// opencode.js: text in, new text or an error out); this file finds the files, validates what
// needs the core, and writes. Nothing of the user's is overwritten: an existing hook is never
// replaced, settings are merged, and a file that cannot be merged safely is left untouched.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { replaceFile } from "../../plugin/atomic-file.js";
import { loadCore } from "../../plugin/core-loader.js";
import { hookCommand, mainAgentOf, mergeClaudeSettings, setMainAgent } from "./claude-code.js";
import { chainLine, planHook } from "./git-hook.js";
import { InitError, readIfExists } from "./json-file.js";
import { mergeOpencodeConfig, pluginEntry } from "./opencode.js";
import { git, workTreeOf } from "./staged.js";

export const INIT_USAGE = `  nso init git [--dir DIR]
  nso init claude-code [--main-agent NAME] [--native PATH | --node] [--dir DIR]
  nso init opencode [--dir DIR]`;
export const INIT_HELP = `init git
         installs the git pre-commit hook (in \`git rev-parse --git-path hooks\`, so
         core.hooksPath and worktrees are honoured) that runs \`nso guard pre-commit\`. An
         existing hook that is not NSO's is never changed: the line that chains NSO from it
         is printed (exit 1). Run again: says it is installed (exit 0).
init claude-code
         merges NSO's hooks (PreToolUse and PostToolUse for every tool, SessionStart,
         UserPromptSubmit, SubagentStart, SubagentStop, SessionEnd) into
         .claude/settings.json: other keys and hooks are kept, NSO's own entries (a command
         running \`hook claude-code\`) are updated, not added twice; a native hook binary
         (--native PATH, or the checkout's target/release/nso-hook) is used with the Node
         hook as its fallback; --node uses the Node hook alone.
         --main-agent NAME sets claudeCode.mainAgent in .opencode/nso.json (an agent of the
         policy): who Claude Code's main agent is decided as.
init opencode
         adds NSO to the \`plugin\` list of opencode.json (opencode.jsonc when it exists), once.
         A settings file that is not JSON (or has comments, which a rewrite would lose) is
         not written. Exit 0 done or already done, 1 not done (the reason and the fix are
         printed), 2 usage.`;

const CONFIG_FILE = ".opencode/nso.json";
/**
 * How `nso init` replaces a file (plugin/atomic-file.js): whole and durably, an existing file's
 * mode kept (0o644 for a new one), and a symlink (a dotfiles manager's) written through: its
 * target changes, the link stays.
 */
const SETTINGS_FILE = { mode: 0o644, keepMode: true, followLink: true };
/** NSO's own command line and package folder (absolute), for the commands it installs. */
const NSO_JS = fileURLToPath(new URL("../nso.js", import.meta.url));
const PACKAGE_ROOT = path.resolve(path.dirname(NSO_JS), "..");
/** Agents OpenCode itself has: candidates when naming the known agents. */
const OPENCODE_AGENTS = ["build", "plan", "general", "explore"];

class UsageError extends Error {}

function parseArgs(argv) {
  const [sub, ...rest] = argv;
  if (sub === "-h" || sub === "--help" || sub === undefined) return { help: true };
  if (!["git", "claude-code", "opencode"].includes(sub)) throw new UsageError(`nso init: unknown target ${JSON.stringify(sub)}`);
  const opts = { sub };
  const flags = { git: ["--dir"], opencode: ["--dir"], "claude-code": ["--dir", "--main-agent", "--native"] }[sub];
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "-h" || rest[i] === "--help") opts.help = true;
    else if (rest[i] === "--node" && sub === "claude-code") opts.node = true;
    else if (flags.includes(rest[i])) {
      if (i + 1 >= rest.length) throw new UsageError(`nso init ${sub}: ${rest[i]} needs a value`);
      opts[rest[i].slice(2).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = rest[++i];
    } else throw new UsageError(`nso init ${sub}: unknown argument ${JSON.stringify(rest[i])}`);
  }
  if (opts.node && opts.native !== undefined) throw new UsageError("nso init claude-code: give --native PATH or --node, not both");
  return opts;
}

/** The project root: the git work tree holding `dir`, else `dir` itself. */
function projectRoot(dir) {
  const abs = path.resolve(dir ?? process.cwd());
  if (!fs.existsSync(abs)) throw new InitError(`${abs}: no such folder.`, "give an existing project folder with --dir.");
  return workTreeOf(abs) ?? abs;
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

/** The compiled policy of a config text; throws InitError naming the file and the fix. */
function policyOf(text, file) {
  try {
    return new (loadCore().Nso)(CONFIG_FILE, text);
  } catch (error) {
    throw new InitError(`${file}: ${String(error.problem ?? error.message).replace(/^\.opencode\/nso\.json: /, "")}`, error.fix ?? "correct the file.");
  }
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

// --- opencode -------------------------------------------------------------------------------

/** A project plugin file (`.opencode/plugin(s)/*.js`) that already loads NSO, if any. */
function pluginFileLoadingNso(root) {
  for (const folder of [".opencode/plugins", ".opencode/plugin"]) {
    let names = [];
    try {
      names = fs.readdirSync(path.join(root, folder));
    } catch {
      continue;
    }
    for (const name of names.filter((n) => /\.[cm]?[jt]s$/.test(n))) {
      const text = readIfExists(path.join(root, folder, name)) ?? "";
      if (/nso-plugin\.js|["']nso-opencode["']/.test(text)) return path.join(folder, name);
    }
  }
  return undefined;
}

function initOpencode(opts, say) {
  const root = projectRoot(opts.dir);
  const jsonc = path.join(root, "opencode.jsonc");
  const file = fs.existsSync(jsonc) ? jsonc : path.join(root, "opencode.json");
  const entry = pluginEntry(PACKAGE_ROOT);
  const viaFile = pluginFileLoadingNso(root);
  if (viaFile) {
    say(`OpenCode already loads NSO through the project plugin file ${viaFile}; ${path.basename(file)} was left as it is (two entries would load NSO twice).`);
    return 0;
  }
  let merged;
  try {
    merged = mergeOpencodeConfig(readIfExists(file), entry, file);
  } catch (error) {
    if (error instanceof InitError) error.fix = `${error.fix} NSO's entry: "plugin": [${JSON.stringify(entry)}]`;
    throw error;
  }
  if (merged.present !== undefined) {
    say(`${file} already loads NSO (${JSON.stringify(merged.present)}); nothing changed.`);
    return 0;
  }
  replaceFile(file, merged.text, SETTINGS_FILE);
  say(`added NSO to the plugin list of ${file}: ${JSON.stringify(entry)}`);
  return 0;
}

/**
 * Runs `nso init` with `argv` (after `init`); returns the exit status. `out` and `err` take
 * whole texts.
 */
export function initMain(argv, { out = (t) => process.stdout.write(`${t}\n`), err = (t) => process.stderr.write(`${t}\n`) } = {}) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`${error.message}\n\nusage:\n${INIT_USAGE}`);
    return 2;
  }
  if (opts.help) {
    out(`usage:\n${INIT_USAGE}\n\n${INIT_HELP}`);
    return 0;
  }
  try {
    if (opts.sub === "git") return initGit(opts, out, err);
    if (opts.sub === "claude-code") return initClaudeCode(opts, out, err);
    return initOpencode(opts, out);
  } catch (error) {
    if (!(error instanceof InitError)) throw error;
    err(`nso init ${opts.sub}: ${error.message}\nFix: ${error.fix}`);
    return 1;
  }
}
