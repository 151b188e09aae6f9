// Runs a command for NSO without a shell: its input on stdin, its output collected, killed at a
// timeout or once its stdout passes a budget. Project hook scripts and Mind's provider run this
// way; each words its own outcome. Never rejects.
import { spawn } from "node:child_process";

/**
 * Runs `program` with `args` in `cwd`, writing `input` to its stdin. With `group`, the command
 * runs as a process-group leader and a kill takes whatever it started too. Resolves to
 * `{code, signal, stdout, stderr, output}` when it ended (`output`: stdout and stderr in the
 * order they came), or `{failed: "start" | "timeout" | "budget", error?, output}`.
 */
export function runCommand(program, args, input, { cwd, timeoutMs, maxOutputBytes = Infinity, group = false }) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(program, args, { cwd, stdio: ["pipe", "pipe", "pipe"], detached: group, windowsHide: true });
    } catch (error) {
      resolve({ failed: "start", error: error.message, output: "" });
      return;
    }
    const stdout = [];
    let stdoutBytes = 0;
    let stderr = "";
    let output = "";
    let settled = false;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const kill = () => {
      try {
        if (group) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        child.kill("SIGKILL"); // the group is gone already; the child may not be
      }
    };
    const timer = setTimeout(() => {
      kill();
      finish({ failed: "timeout", output });
    }, timeoutMs);
    child.stdout.on("data", (chunk) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxOutputBytes) {
        kill();
        finish({ failed: "budget", output });
        return;
      }
      stdout.push(chunk);
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      output += chunk;
    });
    child.on("error", (error) => finish({ failed: "start", error: error.message, output }));
    child.on("close", (code, signal) => finish({ code, signal, stdout: Buffer.concat(stdout).toString("utf8"), stderr, output }));
    // A command that does not read its input closes the pipe early: that is its business.
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}
