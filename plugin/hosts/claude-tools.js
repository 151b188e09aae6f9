// Claude Code's tools as NSO's engine knows them: a Claude Code call (`tool_name` and
// `tool_input` of a PreToolUse hook, or `name` and `input` of a transcript's `tool_use` block)
// becomes the OpenCode-shaped call the engine already classifies (write, edit, bash, read, ...).
// The mapping is the core's (crate/decision/src/hosts/claude_code.rs, with its table), so the Claude Code
// hook, `nso replay` and the native hook give one verdict for one call.
import { loadCore } from "../core-loader.js";

/** `{tool, args, subagentType}` of a Claude Code call; never throws on odd input. */
function mapped(name, input) {
  let json;
  try {
    json = JSON.stringify(input ?? null);
  } catch {
    json = "null"; // a cyclic or otherwise unserialisable input is no input
  }
  return JSON.parse(loadCore().claudeToolCall(typeof name === "string" ? name : "", json ?? "null"));
}

/** The engine's form `{tool, args}` of a Claude Code call `name` with `input`. */
export function claudeToolCall(name, input) {
  const { tool, args } = mapped(name, input);
  return { tool, args };
}

/** The subagent type a Claude Code `Task`/`Agent` call starts, or undefined for other tools. */
export function claudeSubagentType(name, input) {
  return mapped(name, input).subagentType ?? undefined;
}
