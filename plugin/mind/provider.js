// Mind's optional provider: a configured command that may reword a distillation pass. The core
// writes the pass's input (redacted, within maxInputBytes) and judges the answer; this module
// only runs the command: no shell, in the project folder, the input on its stdin, the answer
// read from its stdout up to maxOutputBytes, killed (with anything it started) at timeoutMs or
// as soon as its answer is over budget. Whatever goes wrong is returned as `{error}`: the
// caller keeps the deterministic records and logs it.
import { runCommand } from "../run-command.js";

/**
 * Runs `provider` (`{command, timeoutMs, maxOutputBytes}`, as the core read it) with `input`
 * on stdin. Resolves to `{answer}` (its stdout) or `{error}` (why no answer is used).
 */
export async function runProvider(provider, input, { cwd }) {
  const [program, ...args] = provider.command;
  const { timeoutMs, maxOutputBytes } = provider;
  const run = await runCommand(program, args, input, { cwd, timeoutMs, maxOutputBytes, group: true });
  if (run.failed === "start") return { error: `cannot run ${program}: ${run.error}` };
  if (run.failed === "timeout") return { error: `timed out after ${timeoutMs} ms (killed)` };
  if (run.failed === "budget") return { error: `its answer passed maxOutputBytes (${maxOutputBytes}) (killed)` };
  if (run.code === 0) return { answer: run.stdout };
  const last = run.stderr.slice(-300).trim().split("\n").pop();
  return { error: `exited with ${run.signal ?? run.code}${last ? `: ${last}` : ""}` };
}
