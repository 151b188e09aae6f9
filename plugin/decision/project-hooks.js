// Project hook scripts (`.opencode/hooks/pre_tool_use/*`, `post_tool_use/*`): executables
// that get the call as JSON on stdin; a non-zero exit of a pre hook refuses the call.
import fs from "node:fs";
import path from "node:path";
import { runCommand } from "../run-command.js";

export const HOOK_DIRS = { pre: ".opencode/hooks/pre_tool_use", post: ".opencode/hooks/post_tool_use" };
const LISTING_TTL_MS = 2000;

/** The executable files of `dir`, sorted by name (none when the folder is missing). */
export function listHookScripts(dir) {
  try {
    return fs.readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isFile() || d.isSymbolicLink())
      .map((d) => path.join(dir, d.name))
      .filter((file) => {
        try {
          fs.accessSync(file, fs.constants.X_OK);
          return fs.statSync(file).isFile();
        } catch {
          return false;
        }
      })
      .sort();
  } catch {
    return []; // no folder: nothing to run
  }
}

/**
 * Runs one hook script in `cwd` with `payload` as JSON on stdin; resolves to
 * `{code, output}` (stdout and stderr together). A script over `timeoutMs` is killed
 * (code -1). Never rejects.
 */
export async function runHookScript(file, payload, { cwd, timeoutMs = 5000 } = {}) {
  const run = await runCommand(file, [], JSON.stringify(payload), { cwd, timeoutMs });
  if (run.failed === "timeout") return { code: -1, output: `timed out after ${timeoutMs} ms` };
  if (run.failed) return { code: -1, output: run.error };
  return { code: run.code ?? -1, output: run.output };
}

/**
 * The hook scripts of one project; `settings()` gives the current `hooks` config
 * (`enabled`, `timeoutMs`). Listings are cached for two seconds.
 */
export function createProjectHooks(root, settings = () => undefined) {
  const cache = new Map();
  return {
    /** The scripts of `kind` (`pre` or `post`) to run now. */
    scripts(kind) {
      if (settings()?.enabled === false) return [];
      const cached = cache.get(kind);
      const now = Date.now();
      if (cached && now - cached.at < LISTING_TTL_MS) return cached.scripts;
      const scripts = listHookScripts(path.join(root, HOOK_DIRS[kind]));
      cache.set(kind, { at: now, scripts });
      return scripts;
    },
    /** Runs one script (see {@link runHookScript}) in the project root. */
    run(file, payload) {
      return runHookScript(file, payload, { cwd: root, timeoutMs: settings()?.timeoutMs ?? 5000 });
    },
  };
}
