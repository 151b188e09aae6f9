// What the `nso init` commands share: where NSO and the project are, how settings files are
// replaced, and the policy a config text compiles to (errors name the file and the fix).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadCore } from "../../plugin/core-loader.js";
import { InitError } from "./json-file.js";
import { workTreeOf } from "./staged.js";

export const CONFIG_FILE = ".opencode/nso.json";
/**
 * How `nso init` replaces a file (plugin/atomic-file.js): whole and durably, an existing file's
 * mode kept (0o644 for a new one), and a symlink (a dotfiles manager's) written through: its
 * target changes, the link stays.
 */
export const SETTINGS_FILE = { mode: 0o644, keepMode: true, followLink: true };
/** NSO's own command line and package folder (absolute), for the commands it installs. */
export const NSO_JS = fileURLToPath(new URL("../nso.js", import.meta.url));
export const PACKAGE_ROOT = path.resolve(path.dirname(NSO_JS), "..");

/** The project root: the git work tree holding `dir`, else `dir` itself. */
export function projectRoot(dir) {
  const abs = path.resolve(dir ?? process.cwd());
  if (!fs.existsSync(abs)) throw new InitError(`${abs}: no such folder.`, "give an existing project folder with --dir.");
  return workTreeOf(abs) ?? abs;
}

/** The compiled policy of a config text; throws InitError naming the file and the fix. */
export function policyOf(text, file) {
  try {
    return new (loadCore().Nso)(CONFIG_FILE, text);
  } catch (error) {
    throw new InitError(`${file}: ${String(error.problem ?? error.message).replace(/^\.opencode\/nso\.json: /, "")}`, error.fix ?? "correct the file.");
  }
}
