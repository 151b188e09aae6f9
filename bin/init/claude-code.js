// `nso init claude-code`, the pure part: NSO's hooks merged into Claude Code's
// `.claude/settings.json` (every other key and every hook of the user's kept; NSO's own
// entries, recognised by their command, updated in place rather than added twice), and
// `claudeCode.mainAgent` set in `.opencode/nso.json`.
import { InitError, jsonText, parseObject } from "./json-file.js";

/** The Claude Code events NSO hooks, and the matcher each gets (tool events: every tool). */
export const CLAUDE_EVENTS = [
  ["PreToolUse", "*"], ["PostToolUse", "*"], ["SessionStart", null], ["UserPromptSubmit", null], ["SubagentStart", null],
  ["SubagentStop", null], ["SessionEnd", null],
];

/** A hook command is NSO's when it runs `... hook claude-code` (bin/nso.js) or `nso-hook claude-code`. */
export const isNsoCommand = (command) => typeof command === "string" && /hook["']?\s+claude-code(\s|$)/.test(command);

/** `p` quoted for the shell Claude Code runs hook commands in: double quotes when they are safe. */
export function quotePath(p) {
  return /["$`\\\n]/.test(p) ? `'${p.replace(/'/g, "'\\''")}'` : `"${p}"`;
}

/**
 * The command of NSO's hooks: `node "<nso.js>" hook claude-code`, or, with a native hook
 * binary, `"<nso-hook>" claude-code --fallback "<nso.js>"` (the binary answers the common
 * calls itself and hands the others to the Node hook).
 */
export function hookCommand({ nsoJs, nativeHook }) {
  return nativeHook
    ? `${quotePath(nativeHook)} claude-code --fallback ${quotePath(nsoJs)}`
    : `node ${quotePath(nsoJs)} hook claude-code`;
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Claude Code's settings `text` (undefined: no file yet) with NSO's hooks merged in, for the
 * file named `file` (in errors). Returns `{text, changed, events}`: `events` lists, per
 * event, `added` or `updated` or `kept`. Throws {@link InitError} when the file is not a
 * JSON object or its `hooks` are not shaped as Claude Code reads them; nothing is written then.
 */
export function mergeClaudeSettings(text, command, file = ".claude/settings.json") {
  const settings = parseObject(text, file, "the settings file");
  if (settings.hooks !== undefined && !isObject(settings.hooks)) {
    throw new InitError(`${file}: "hooks" is not an object; nothing was written.`, `make "hooks" an object of events ({"PreToolUse": [...]}) as Claude Code documents it.`);
  }
  const hooks = settings.hooks ?? {};
  const events = {};
  for (const [event, matcher] of CLAUDE_EVENTS) {
    if (hooks[event] !== undefined && !Array.isArray(hooks[event])) {
      throw new InitError(`${file}: hooks.${event} is not a list; nothing was written.`, `make hooks.${event} a list of {"matcher": ..., "hooks": [...]} entries.`);
    }
    const ours = { ...(matcher !== null ? { matcher } : {}), hooks: [{ type: "command", command }] };
    const groups = hooks[event] ?? [];
    let found = false;
    let placed = false;
    const next = [];
    for (const group of groups) {
      const list = isObject(group) && Array.isArray(group.hooks) ? group.hooks : undefined;
      if (!list || !list.some((h) => isObject(h) && isNsoCommand(h.command))) {
        next.push(group);
        continue;
      }
      found = true;
      const rest = list.filter((h) => !(isObject(h) && isNsoCommand(h.command)));
      if (rest.length) next.push({ ...group, hooks: rest }); // the user's hooks stay, under their matcher
      else if (!placed) {
        next.push(ours); // NSO's own entry, updated where it was
        placed = true;
      }
    }
    if (!placed) next.push(ours);
    events[event] = found ? "updated" : "added";
    if (JSON.stringify(next) === JSON.stringify(groups)) events[event] = "kept";
    hooks[event] = next;
  }
  settings.hooks = hooks;
  const out = jsonText(settings);
  return { text: out, changed: out !== text, events };
}

/**
 * `.opencode/nso.json` `text` (undefined: no file yet) with `claudeCode.mainAgent` set to
 * `name`, every other key kept. Returns `{text, changed, previous, name}`.
 */
export function setMainAgent(text, name, file = ".opencode/nso.json") {
  const config = parseObject(text, file, "NSO's configuration");
  if (config.claudeCode !== undefined && !isObject(config.claudeCode)) {
    throw new InitError(`${file}: "claudeCode" is not an object; nothing was written.`, `make "claudeCode" an object ({"mainAgent": "${name}"}).`);
  }
  const previous = config.claudeCode?.mainAgent;
  config.claudeCode = { ...(config.claudeCode ?? {}), mainAgent: name };
  const out = jsonText(config);
  return { text: out, changed: out !== text, previous, name };
}

/** The main agent `text` (nso.json) names, if any. */
export function mainAgentOf(text) {
  try {
    const name = JSON.parse(text ?? "{}")?.claudeCode?.mainAgent;
    return typeof name === "string" && name ? name : undefined;
  } catch {
    return undefined;
  }
}
