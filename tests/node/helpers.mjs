// Shared helpers for the Node tests: temporary projects and OpenCode-shaped hook inputs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { flushAllLogs } from "../../plugin/logs.js";

// Every test process gets its own Conductor state folder: NSO claims the files an agent
// writes in a machine-wide store (~/.conductor by default), which tests must not share.
process.env.CONDUCTOR_HOME ??= fs.mkdtempSync(path.join(os.tmpdir(), "nso-conductor-"));

/** Creates a temporary project with `files` ({relative path: text}); returns its real path. */
export function makeProject(files = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-test-")));
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  return dir;
}

/**
 * Reads a project file, or undefined when it does not exist. NSO's log lines wait in memory
 * until a timer, the host's `dispose` or the process's end writes them: they are written first.
 */
export function readIf(dir, rel) {
  flushAllLogs();
  try {
    return fs.readFileSync(path.join(dir, rel), "utf8");
  } catch {
    return undefined;
  }
}

/** `session.created` as OpenCode 1.18 sends it (main session: no parentID, no agent). */
export function sessionCreated(id, extra = {}) {
  return { event: { type: "session.created", properties: { info: { id, title: "t", ...extra } } } };
}

/** `chat.params` input as OpenCode sends it: the caller is `message.agent`. */
export function chatParams(sessionID, agent, pseudo = agent) {
  return [{ sessionID, agent: pseudo, model: {}, provider: {}, message: { agent, role: "user" } }, {}];
}

/** Calls `tool.execute.before`; resolves to null when allowed, else the thrown message. */
export async function before(hooks, sessionID, tool, args) {
  try {
    await hooks["tool.execute.before"]({ tool, sessionID, callID: "call_1" }, { args });
    return null;
  } catch (error) {
    return String(error?.message ?? error);
  }
}
