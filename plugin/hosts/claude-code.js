// The Claude Code host adapter: `nso hook claude-code` runs once per hook call (Claude Code
// starts a process for each), reads the hook's JSON from stdin and answers on stdout, through
// the same host-independent NSO instance (../nso.js) as the OpenCode adapter (./opencode.js):
// same config file, presets, engine, messages and logs. Facts about the host it relies on:
// docs/claude-code-hooks.md.
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { createNso } from "../nso.js";
import { isReadTool } from "../decision/call.js";
import { claudeToolCall } from "./claude-tools.js";
import { procStat } from "../conductor/liveness.js";

/** The hook events NSO answers; others are acknowledged and ignored. */
export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "SubagentStart", "SubagentStop", "SessionEnd"];
/** The largest hook input read; a larger one is refused (fail closed). */
export const MAX_INPUT_BYTES = 16 << 20;
/** Processes between a hook and Claude Code itself (the shell that runs the hook's command). */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "fish", "env", "timeout", "nso-hook"]);

/** A hook input that cannot be used: the hook exits 2 (a refusal) with this text. */
export class HookInputError extends Error {}

/** The parsed hook input of `text`; throws {@link HookInputError} naming what is wrong. */
export function parseHookInput(text) {
  if (Buffer.byteLength(text) > MAX_INPUT_BYTES) throw new HookInputError(`the hook input is larger than ${MAX_INPUT_BYTES} bytes`);
  let input;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new HookInputError(`the hook input is not JSON (${error.message})`);
  }
  if (!input || typeof input !== "object" || Array.isArray(input)) throw new HookInputError("the hook input is not a JSON object");
  if (typeof input.hook_event_name !== "string") throw new HookInputError("the hook input has no hook_event_name");
  return input;
}

const text = (v) => (typeof v === "string" && v ? v : undefined);

/**
 * Who makes the call of hook `input` under the `claudeCode` config: inside a subagent Claude Code
 * sends `agent_id` and `agent_type` (a subagent shares its parent's `session_id`, so per-agent
 * state is keyed on `agent_id`); the main agent's input names nobody, and it is the configured
 * `mainAgent`. `agent` is undefined when nobody is named: the engine then decides an
 * unidentified caller (the policy's unknown-agent rule: fail closed).
 */
export function callerOf(input, config = {}) {
  const agentType = text(input.agent_type);
  const subagent = Boolean(agentType || text(input.agent_id));
  let agent = config.mainAgent ?? undefined;
  if (subagent) agent = agentType ? config.agents?.[agentType] ?? agentType : undefined;
  return { agent, subagent, agentType, sessionKey: text(input.agent_id) ?? text(input.session_id) ?? "claude-code" };
}

/** The documented refusal of a PreToolUse call: the model reads `reason`. */
export const denyOutput = (reason) => ({
  hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason },
});

/** Text added to the model's context by `event` (SessionStart, UserPromptSubmit, PostToolUse). */
export const contextOutput = (event, context) => ({ hookSpecificOutput: { hookEventName: event, additionalContext: context } });

/** The git root of `dir`, else `dir`. */
function gitRoot(dir) {
  try {
    return execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || dir;
  } catch {
    return dir;
  }
}

/** `[name, parent pid]` of process `pid` from /proc, or undefined. */
function procInfo(pid) {
  const stat = procStat(pid);
  return stat ? [stat.name, stat.parent] : undefined;
}

/**
 * The long-lived Claude Code process this hook runs for: the first ancestor that is not a shell
 * or a launcher. Its pid is what Mission Control checks for liveness; without /proc, the parent.
 */
export function hostPid(start = process.ppid, info = procInfo) {
  let pid = start;
  for (let i = 0; i < 8 && pid > 1; i++) {
    const found = info(pid);
    if (!found) return pid;
    if (!SHELLS.has(found[0])) return pid;
    pid = found[1];
  }
  return start;
}

/** The NSO instance for hook `input`: the project is $CLAUDE_PROJECT_DIR, else the git root of `cwd`. */
function nsoFor(input, env) {
  const cwd = text(input.cwd) && path.isAbsolute(input.cwd) ? input.cwd : process.cwd();
  const root = text(env.CLAUDE_PROJECT_DIR) ?? gitRoot(cwd);
  const session = String(input.session_id ?? "none").replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  const pid = hostPid();
  const feed = { name: `claude-code-${os.hostname().replace(/[^A-Za-z0-9.-]/g, "_")}-${session}.jsonl`, pid };
  return createNso({ directory: cwd, worktree: root, feed, host: { pid, source: "cc", label: "Claude Code session" } });
}

/** The text of a tool's response, for the project's post hooks and the activity feed. */
function responseText(response) {
  if (typeof response === "string") return response;
  try {
    return JSON.stringify(response ?? "");
  } catch {
    return "";
  }
}

async function preToolUse(nso, input, caller) {
  const { tool, args } = claudeToolCall(input.tool_name, input.tool_input);
  const callID = text(input.tool_use_id) ?? `claude-${Date.now()}`;
  try {
    await nso.beforeTool({ tool, sessionID: caller.sessionKey, callID, agent: caller.agent }, { args });
  } catch (error) {
    if (error.name !== "NSOBlock") {
      nso.logError(`claude-code PreToolUse ${input.tool_name}: ${error.stack ?? error.message}`);
      if (isReadTool(tool)) return undefined;
      return denyOutput(`NSO blocked ${input.tool_name}: NSO failed while deciding this call (${error.message}), so it ` +
        "refuses it (fail closed). Report this to the person running the session.");
    }
    return denyOutput(error.message);
  }
  const notices = nso.takeNotices(callID);
  return notices.length ? contextOutput("PreToolUse", notices.map((n) => `[${n}]`).join("\n")) : undefined;
}

async function postToolUse(nso, input, caller) {
  const { tool, args } = claudeToolCall(input.tool_name, input.tool_input);
  const before = responseText(input.tool_response);
  const output = { output: before };
  nso.noteAgent(caller.sessionKey, caller.agent);
  await nso.afterTool({ tool, sessionID: caller.sessionKey, callID: text(input.tool_use_id), args }, output);
  const added = output.output.slice(before.length).trim();
  return added ? contextOutput("PostToolUse", added) : undefined;
}

function sessionStart(nso, input, caller) {
  nso.sessionCreated({ id: input.session_id, agent: caller.agent });
  const context = nso.systemText(input.session_id).join("\n\n");
  return context ? contextOutput("SessionStart", context) : undefined;
}

async function userPromptSubmit(nso, input, caller) {
  nso.noteAgent(input.session_id, caller.agent);
  nso.route({ sessionID: input.session_id, agent: caller.agent, text: String(input.prompt ?? ""), typed: true });
  // The prompt registers the session's Conductor instance (its task): done before this process ends.
  await nso.claims.instanceOf(input.session_id)?.ready?.catch((error) => nso.logError(`conductor: ${error.message}`));
  const entry = nso.sessions.peek(input.session_id);
  const parts = [];
  if (nso.state.failure) parts.push(...nso.systemText(input.session_id).slice(0, 1));
  if (entry?.routeNote) parts.push(entry.routeNote);
  return parts.length ? contextOutput("UserPromptSubmit", parts.join("\n\n")) : undefined;
}

/**
 * A subagent starts: it joins its parent's session (as subagent sessions do in OpenCode). Only
 * this event's context reaches a subagent (SessionStart's reaches the main agent only), so a
 * subagent hears here when NSO is not enforcing.
 */
function subagentStart(nso, input, caller) {
  nso.sessionCreated({ id: caller.sessionKey, parentID: input.session_id, agent: caller.agent });
  const context = nso.systemText(caller.sessionKey).join("\n\n");
  return context ? contextOutput("SubagentStart", context) : undefined;
}

/** The session ends: its Conductor instance is done and its claims are released. */
async function sessionEnd(nso, input) {
  await nso.forgetSession(input.session_id);
  return undefined;
}

function subagentStop(nso, input, caller) {
  nso.activity.record("idle", { session: caller.sessionKey, agent: caller.agent ?? null });
  nso.log(`${new Date().toISOString()} subagent stop @${caller.agent ?? "?"} ${caller.sessionKey}`);
  return undefined;
}

const HANDLERS = {
  PreToolUse: preToolUse, PostToolUse: postToolUse, SessionStart: sessionStart, UserPromptSubmit: userPromptSubmit,
  SubagentStart: subagentStart, SubagentStop: subagentStop, SessionEnd: sessionEnd,
};

/**
 * Answers one hook call: `stdinText` is the hook input. Returns `{code, stdout, stderr}` for
 * the process. Never throws. An unreadable input is a refusal (exit 2, which blocks a
 * PreToolUse call and shows the reason); a failure inside NSO refuses a write-class call and
 * lets the rest go on, with the error in nso-errors.log.
 */
export async function runClaudeHook(stdinText, { env = process.env } = {}) {
  let input;
  try {
    input = parseHookInput(stdinText);
  } catch (error) {
    return { code: 2, stdout: "", stderr: `NSO blocked this call: ${error.message}, so NSO cannot decide it (fail closed). ` +
      "Check that the hook is `nso hook claude-code` on a Claude Code event.\n" };
  }
  const handler = HANDLERS[input.hook_event_name];
  if (!handler) return { code: 0, stdout: "", stderr: "" };
  let nso;
  try {
    nso = nsoFor(input, env);
    const caller = callerOf(input, nso.state.config?.claudeCode ?? {});
    if (caller.subagent && input.session_id) {
      // Each call is a new process: the subagent's link to its session (whose Conductor
      // instance it shares) is made again.
      nso.sessions.created({ id: caller.sessionKey, parentID: input.session_id, agent: caller.agent });
      // Its caller is the main agent: a refusal tells the subagent to report to it.
      nso.noteAgent(input.session_id, nso.state.config?.claudeCode?.mainAgent);
      nso.claims.sessionStarted({ id: caller.sessionKey, parentID: input.session_id });
    }
    const answer = await handler(nso, input, caller);
    return { code: 0, stdout: answer ? JSON.stringify(answer) + "\n" : "", stderr: "" };
  } catch (error) {
    nso?.logError(`claude-code ${input.hook_event_name}: ${error.stack ?? error.message}`);
    if (input.hook_event_name !== "PreToolUse") return { code: 1, stdout: "", stderr: `NSO: ${error.message}\n` };
    const { tool } = claudeToolCall(input.tool_name, input.tool_input);
    if (isReadTool(tool)) return { code: 0, stdout: "", stderr: "" };
    return { code: 0, stdout: JSON.stringify(denyOutput(`NSO blocked ${input.tool_name}: NSO failed (${error.message}), ` +
      "so it refuses calls that change files (fail closed).")) + "\n", stderr: "" };
  } finally {
    nso?.activity.flush();
    nso?.continuity?.flush?.();
    nso?.claims.dispose();
  }
}

/** `nso hook claude-code`: stdin in, the answer out, the exit code Claude Code reads. */
export async function claudeHookMain() {
  const chunks = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += chunk.length;
    if (size > MAX_INPUT_BYTES + 1) break; // enough to know it is too large
    chunks.push(chunk);
  }
  const { code, stdout, stderr } = await runClaudeHook(Buffer.concat(chunks).toString("utf8"));
  if (stdout) process.stdout.write(stdout);
  if (stderr) process.stderr.write(stderr);
  return code;
}
