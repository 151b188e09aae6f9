// Mind's optional provider: a configured command that may reword a distillation pass. The core
// writes the pass's input (redacted, within maxInputBytes) and judges the answer; this module
// only runs the command: no shell, in the project folder, the input on its stdin, the answer
// read from its stdout up to maxOutputBytes, killed (with anything it started) at timeoutMs or
// as soon as its answer is over budget. Whatever goes wrong is returned as `{error}`: the
// caller keeps the deterministic records and logs it.
import { spawn } from "node:child_process";

/** Kills the command's process group (it runs detached, as a group leader). */
function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * Runs `provider` (`{command, timeoutMs, maxOutputBytes}`, as the core read it) with `input`
 * on stdin. Resolves to `{answer}` (its stdout) or `{error}` (why no answer is used).
 */
export function runProvider(provider, input, { cwd }) {
  return new Promise((resolve) => {
    const [program, ...args] = provider.command;
    let child;
    try {
      child = spawn(program, args, { cwd, stdio: ["pipe", "pipe", "pipe"], detached: true, windowsHide: true });
    } catch (error) {
      resolve({ error: `cannot start ${program}: ${error.message}` });
      return;
    }
    const out = [];
    let outBytes = 0;
    let errTail = "";
    let settled = false;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      killGroup(child);
      finish({ error: `timed out after ${provider.timeoutMs} ms (killed)` });
    }, provider.timeoutMs);
    child.on("error", (error) => finish({ error: `cannot run ${program}: ${error.message}` }));
    child.stdout.on("data", (chunk) => {
      outBytes += chunk.length;
      if (outBytes > provider.maxOutputBytes) {
        killGroup(child);
        finish({ error: `its answer passed maxOutputBytes (${provider.maxOutputBytes}) (killed)` });
      } else out.push(chunk);
    });
    child.stderr.on("data", (chunk) => {
      errTail = (errTail + chunk.toString("utf8")).slice(-300);
    });
    child.on("close", (code, signal) => {
      if (code === 0) finish({ answer: Buffer.concat(out).toString("utf8") });
      else finish({ error: `exited with ${signal ?? code}${errTail.trim() ? `: ${errTail.trim().split("\n").pop()}` : ""}` });
    });
    // A command that does not read its input closes the pipe early: that is its business.
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}
