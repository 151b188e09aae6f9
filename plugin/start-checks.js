// Checks made once when NSO starts in a project: NSO's state folders from before they ignored
// themselves get their `.gitignore` now, and state that git already tracks (committed before)
// is named with the command that stops tracking it. Neither ever stops NSO.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { INIT_DIR } from "./logs.js";
import { markStateDir } from "./state-dirs.js";

/**
 * The project-relative state folders of the project at `root` under `config` (the effective
 * config, or null): logs, the init marker's folder, raw lanes and T0 transcripts, handoffs.
 */
export function stateFolders(root, config) {
  const continuity = config?.continuity?.dir ?? ".opencode/nso";
  const rel = (p) => path.relative(root, path.resolve(root, p)).split(path.sep).join("/");
  const folders = [INIT_DIR, config?.logDir ?? INIT_DIR, path.join(continuity, "transcripts"), path.join(continuity, "handoffs")].map(rel);
  return [...new Set(folders)].filter((f) => f && !f.startsWith(".."));
}

/** Writes the `.gitignore` of each existing state folder that has none; the folders marked. */
export function migrateStateFolders(root, folders) {
  const marked = [];
  for (const rel of folders) {
    const dir = path.join(root, rel);
    try {
      if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() && markStateDir(dir, { root })) marked.push(rel);
    } catch {
      // a folder NSO cannot write into: its logs say so when they are written
    }
  }
  return marked;
}

/** The warning for state files git tracks (`tracked`, project-relative), or null. */
export function trackedStateText(tracked, folders) {
  if (!tracked.length) return null;
  const shown = tracked.slice(0, 5).join(", ") + (tracked.length > 5 ? ` and ${tracked.length - 5} more` : "");
  return `git tracks NSO's runtime state (${shown}): it would show in every commit. ` +
    `Fix: git rm -r --cached -- ${folders.join(" ")} && git commit -m "Stop tracking NSO's runtime state" ` +
    "(the files stay on disk; NSO's folders ignore themselves).";
}

/**
 * Runs the checks for the project at `root` (config as {@link stateFolders} takes it):
 * migrates at once, then asks git in the background and passes a warning to `warn(text)`.
 * Returns a promise of the warning (null when there is none or git cannot tell).
 */
export function startChecks({ root, config, warn }) {
  const folders = stateFolders(root, config);
  migrateStateFolders(root, folders);
  return new Promise((resolve) => {
    execFile("git", ["ls-files", "-z", "--", ...folders], { cwd: root, timeout: 10_000, maxBuffer: 1 << 20 }, (error, stdout) => {
      const tracked = error ? [] : String(stdout).split("\0").filter(Boolean);
      const text = trackedStateText(tracked, folders.filter((f) => tracked.some((t) => t === f || t.startsWith(`${f}/`))));
      if (text) warn(text);
      resolve(text);
    });
  });
}
