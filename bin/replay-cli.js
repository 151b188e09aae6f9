// `nso replay`: decides every tool call of a recorded session again, in order, as the agent that
// made it, under the project's policy (or another one), with the files as the real run had them;
// with `--diff`, under two policies, listing the calls they decide differently, so that a policy
// change can be reviewed like a code change. Recordings: `opencode export` JSON, NSO's raw lane,
// Claude Code transcripts (bin/replay/recording.js).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { UnreadableInput, readRecordings } from "./replay/recording.js";
import { replayCalls } from "./replay/replay.js";
import { callRecord, diffJson, diffText, differences, replayJson, replayText } from "./replay/report.js";

export const REPLAY_USAGE = "  nso replay FILE... [--config POLICY.json] [--diff OTHER.json] [--agent NAME] [--json] [--dir DIR]";
export const REPLAY_HELP = `replay   decides every tool call of recorded sessions again, in order, as the agent that
         made it, through the same engine as the plugin, with the project's files (DIR) as the
         real run had them: each call the policy allows and the recording shows completed
         (write, edit, multiedit, apply_patch) changes a virtual copy the later calls see;
         nothing is written. DIR should hold the files as the session found them (e.g. a git
         worktree at its starting commit); the folder the session ran in is read as DIR.
         FILE: \`opencode export <id>\` JSON (one session or a list; give a parent and its
         subagent sessions together), NSO's raw lane (.opencode/nso/transcripts/*.raw.jsonl),
         or a Claude Code transcript (~/.claude/projects/*/<id>.jsonl; its subagents/ files
         are read too). --config: the policy, a whole .opencode/nso.json (default: DIR's).
         --diff OTHER.json: decides every call under both and lists the calls decided
         differently (verdict or rule). --agent: who Claude Code's main chain is (default
         the policy's claudeCode.mainAgent, else build; subagents are their subagent type,
         or the agent claudeCode.agents maps it to). Bad records are reported and skipped.
         Exit 0 (also when calls are refused), 1 with --diff when a call is decided
         differently, 2 usage, unreadable input or an invalid policy.`;

class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { files: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--json") opts.json = true;
    else if (["--config", "--diff", "--agent", "--dir"].includes(arg)) {
      if (i + 1 >= argv.length) throw new UsageError(`nso replay: ${arg} needs a value`);
      opts[arg.slice(2)] = argv[++i];
    } else if (arg === "-h" || arg === "--help") opts.help = true;
    else if (arg.startsWith("-") && arg !== "-") throw new UsageError(`nso replay: unknown argument ${JSON.stringify(arg)}`);
    else opts.files.push(arg);
  }
  if (!opts.help && !opts.files.length) throw new UsageError("nso replay: give at least one recorded session FILE");
  return opts;
}

/** The project root of `dir` (its git root, else the folder), as a real path. */
function projectRoot(dir) {
  let root = path.resolve(dir);
  try {
    root = execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || root;
  } catch {
    // not a git repository: the folder itself is the project
  }
  try {
    return fs.realpathSync(root);
  } catch {
    throw new UnreadableInput(`nso replay: --dir ${dir}: no such folder`);
  }
}

/** `{label, text}` of a policy file (`text` undefined: NSO's defaults). */
function policyFile(file, root) {
  if (file === undefined) {
    const own = path.join(root, ".opencode/nso.json");
    if (!fs.existsSync(own)) return { label: "defaults (no .opencode/nso.json)", text: undefined };
    return { label: ".opencode/nso.json", text: fs.readFileSync(own, "utf8") };
  }
  try {
    return { label: file, text: fs.readFileSync(file, "utf8") };
  } catch (error) {
    throw new UnreadableInput(`nso replay: ${file}: cannot read the policy (${error.code ?? error.message})`);
  }
}

/**
 * Who Claude Code's callers are under a policy text, as the hook decides them: `claudeCode`'s
 * `mainAgent` and `agents` (an unreadable text names nobody; the engine reports it later).
 */
function claudeIdentity(policy) {
  try {
    const section = JSON.parse(policy.text ?? "{}")?.claudeCode ?? {};
    const mainAgent = typeof section.mainAgent === "string" && section.mainAgent ? section.mainAgent : undefined;
    const agents = section.agents && typeof section.agents === "object" ? section.agents : {};
    return { mainAgent, agents };
  } catch {
    return { mainAgent: undefined, agents: {} };
  }
}

/** Replays `calls` under one policy: its records and what the files could not follow. */
function run(recording, policy, root) {
  let result;
  try {
    result = replayCalls(recording.calls, policy.text, { diskRoot: root });
  } catch (error) {
    if (error.problem === undefined && error.fix === undefined) throw error;
    // The engine names the file as agents know it; here it is the file given.
    const problem = String(error.problem ?? error.message).replace(/^\.opencode\/nso\.json: /, "");
    throw new UnreadableInput(`nso replay: ${policy.label}: ${problem}\nFix: ${error.fix ?? "correct the file."}`);
  }
  const records = recording.calls.map((call, i) => callRecord(call, result.records[i]));
  return { result, records, policy: { ...policy, preset: result.preset } };
}

/**
 * Writes `text` and a newline to `stream`; resolves once it is handed to the OS (a pipe too). A
 * reader that went away (`nso replay ... | head`) ends the output, not the process with a trace.
 */
const writeAll = (stream) => (text) => new Promise((resolve) => {
  if (!stream.listeners("error").includes(ignoreClosedReader)) stream.on("error", ignoreClosedReader);
  stream.write(`${text}\n`, () => resolve());
});

function ignoreClosedReader(error) {
  if (error?.code !== "EPIPE") throw error;
}

/**
 * Runs `nso replay` with `argv` (after `replay`); resolves to the exit status once everything is
 * written (so that `process.exit` cuts no output off). `out` and `err` take whole texts.
 */
export async function replayMain(argv, { out = writeAll(process.stdout), err = writeAll(process.stderr) } = {}) {
  try {
    const opts = parseArgs(argv);
    if (opts.help) {
      await out(`usage:\n${REPLAY_USAGE}\n\n${REPLAY_HELP}`);
      return 0;
    }
    const root = projectRoot(opts.dir ?? process.cwd());
    const policyA = policyFile(opts.config, root);
    const policyB = opts.diff !== undefined ? policyFile(opts.diff, root) : undefined;
    const identity = claudeIdentity(policyA);
    const recording = readRecordings(opts.files, { mainAgent: opts.agent ?? identity.mainAgent ?? "build", agents: identity.agents });
    const a = run(recording, policyA, root);
    const warnings = recording.warnings;
    if (warnings.length) await err(warnings.map((w) => `nso replay: ${w}`).join("\n"));
    if (!policyB) {
      await out(opts.json ? JSON.stringify(replayJson(recording, a.policy, a.result, a.records, warnings), null, 2) : replayText(recording, a.policy, a.result, a.records));
      return 0;
    }
    const b = run(recording, policyB, root);
    await out(opts.json ? JSON.stringify(diffJson(recording, a.policy, b.policy, a.records, b.records, warnings), null, 2) : diffText(recording, a.policy, b.policy, a.records, b.records));
    return differences(a.records, b.records).length ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      await err(`${error.message}\n\nusage:\n${REPLAY_USAGE}`);
      return 2;
    }
    if (error instanceof UnreadableInput) {
      await err(error.message.startsWith("nso replay:") ? error.message : `nso replay: ${error.message}`);
      return 2;
    }
    throw error;
  }
}
