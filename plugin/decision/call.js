// The decision path of one tool call, host-independent: the call handed to the core
// (`Nso.decideCall`, which bounds the arguments, asks the facts it needs, decides, counts
// repeats and names the files the call changes), the refusal thrown to the host, and the
// log lines. Nothing about a call is kept here between calls.
import { loadCore } from "../core-loader.js";
import { DISK_FACTS } from "./files.js";

/**
 * Whether `tool` only reads, as the core says; while the core cannot load, no tool counts as
 * a read (NSO cannot tell them apart without it: every call is refused, fail closed).
 */
export function isReadTool(tool) {
  try {
    return loadCore().isReadTool(tool);
  } catch {
    return false;
  }
}

/** What refusals are made of: an Error, named NSOBlock (see {@link blockError}). */
const BLOCK = Object.create(Error.prototype, { name: { value: "NSOBlock", writable: true, configurable: true } });

/**
 * The error a host adapter throws (or reports) to refuse a call; its message is NSO's. An
 * Error (`instanceof`, its name NSOBlock, `String()` "NSOBlock: message") built without the
 * Error constructor: a refusal is not a fault, and its stack would say nothing (hosts read the
 * message).
 */
export function blockError(message) {
  const error = Object.create(BLOCK);
  error.message = message;
  return error;
}

/**
 * What agents read while NSO cannot enforce (a config error: the core's text, as every host
 * shows it). When the core itself did not load, it cannot word this, and NSO refuses every
 * tool: without the core it cannot tell reads from writes.
 */
export function notEnforcingText(failure) {
  if (failure.code !== "wasm_load") {
    try {
      return loadCore().notEnforcingText(failure.message, failure.fix);
    } catch {
      // The core was there when the failure was recorded; fall through to the stricter text.
    }
  }
  return `NSO is not enforcing its rules: ${failure.message} Until this is fixed, NSO refuses every tool (without its core it cannot tell reads from writes). Fix: ${failure.fix}`;
}

/**
 * The core's answer to `request` (`{sessionId, agent, tool, args, via?, directory?,
 * worktree?, origin?, delegatedBy?}`) from `engine` (an `Nso`): undefined for a plain allow that changes no file,
 * else the brief `{verdict, ruleId, message?, notices?, log?, targets?, audit?}`. `facts`
 * answers what the decision needs to know of the file system (default: the disk; `nso replay`
 * and the git guard pass their own).
 */
export function decideCall(engine, request, facts = DISK_FACTS) {
  const { via, directory, worktree, origin, delegatedBy } = request;
  const options = via !== undefined || directory !== undefined || worktree !== undefined || origin !== undefined || delegatedBy !== undefined
    ? { via, directory, worktree, origin, delegatedBy }
    : undefined;
  return engine.decideCall(request.sessionId ?? "", request.agent ?? undefined, request.tool, request.args ?? {}, facts, options);
}

/**
 * Logs a decision's brief: its `nso.log` lines (the core's, after the time), and,
 * when audit mode let the call through, its `audit.jsonl` record. The lines are written off
 * the call's path (logs.js).
 */
export function logDecision(logs, brief) {
  if (!brief.log && !brief.audit) return;
  const at = new Date().toISOString();
  if (brief.log) logs.decision(() => brief.log.map((line) => `${at} ${line}`).join("\n"));
  if (brief.audit) logs.audit({ t: at, ...brief.audit });
}
