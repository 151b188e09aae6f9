// What the `nso init` commands share: where NSO and the project are, how settings files are
// replaced, and the policy a config text compiles to (errors name the file and the fix).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadCore } from "../../plugin/core-loader.js";
import { InitError } from "./json-file.js";
import { PACKAGE_NAME } from "./opencode.js";
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

/**
 * NSO's folder as `fromDir` reaches it: through a `node_modules/nso-opencode` of `fromDir` or a
 * folder above it when that is this NSO (a package installed there, or the link `npm install
 * <folder>` makes), else `packageRoot` itself. A path written through `node_modules` stays right
 * for everyone who installs the project's dependencies.
 */
export function reachableRoot(packageRoot, fromDir) {
  const real = realpathOf(packageRoot);
  for (let dir = path.resolve(fromDir); real !== undefined; dir = path.dirname(dir)) {
    const installed = path.join(dir, "node_modules", PACKAGE_NAME);
    if (realpathOf(installed) === real) return installed;
    if (path.dirname(dir) === dir) break;
  }
  return packageRoot;
}

function realpathOf(file) {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}

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
