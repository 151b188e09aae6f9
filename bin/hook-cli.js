// `nso hook HOST`: NSO as another agent host's hook command (one process per hook call).
import { claudeHookMain } from "../plugin/hosts/claude-code.js";

export const HOOK_USAGE = "  nso hook claude-code                                   (Claude Code's hook command; JSON on stdin)";
export const HOOK_HELP = `hook     NSO as Claude Code's hook: reads the hook's JSON on stdin (PreToolUse, PostToolUse,
         SessionStart, UserPromptSubmit, SubagentStop) and answers on stdout with the same
         config, policy, messages and logs as the OpenCode plugin; a refused call gets
         Claude Code's deny answer with NSO's message as the reason the model reads.
         Installed by \`nso init claude-code\`. Exit 0 (answered), 2 unreadable input (a
         refusal), 1 an error outside a tool call.`;

/** Runs `nso hook ARGS`; returns the exit status. */
export async function hookMain(args) {
  if (args[0] === "claude-code" && args.length === 1) return claudeHookMain();
  process.stderr.write(`nso hook: unknown host ${JSON.stringify(args.join(" "))}; usage:\n${HOOK_USAGE}\n`);
  return 2;
}
