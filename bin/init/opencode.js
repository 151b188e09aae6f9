// `nso init opencode`, the pure part: NSO's entry added to the `plugin` list of OpenCode's
// `opencode.json` (or `opencode.jsonc`), once, every other key kept (`$schema` too).
import path from "node:path";
import { InitError, jsonText, parseObject } from "./json-file.js";

/** The name NSO is published under (docs/install.md). */
export const PACKAGE_NAME = "nso-opencode";
/** OpenCode's config schema, for a file NSO creates. */
export const OPENCODE_SCHEMA = "https://opencode.ai/config.json";

/**
 * Whether a `plugin` entry loads NSO: the package (`nso-opencode`, `nso-opencode@1.2.3`) or
 * its plugin file by path (`.../plugin/nso-plugin.js`, also `file://`).
 */
export function isNsoEntry(entry) {
  if (typeof entry !== "string") return false;
  return isPackageEntry(entry) || /(^|[/\\])plugin[/\\]nso-plugin\.js$/.test(entry);
}

/**
 * Whether `entry` names NSO by package. OpenCode installs such an entry from the npm registry
 * into its own cache (it never looks in the project's `node_modules`), and NSO is not published
 * there: only a path loads NSO.
 */
export function isPackageEntry(entry) {
  return entry === PACKAGE_NAME || entry.startsWith(`${PACKAGE_NAME}@`);
}

/**
 * NSO's entry for the checkout or installed package at `packageRoot`, as written into a config
 * file in `configDir`: the path of its plugin file relative to the config file (OpenCode
 * resolves it from there), so a shared config holds no path of one person's machine;
 * `absolute` asks for the absolute path.
 */
export function pluginEntry(packageRoot, configDir, { absolute = false } = {}) {
  const file = path.join(packageRoot, "plugin/nso-plugin.js");
  return absolute || configDir === undefined ? file : relativeEntry(configDir, file);
}

/** `file` relative to `dir`, as OpenCode and JSON Schema tools read a relative reference (`./x`, `../x`). */
export function relativeEntry(dir, file) {
  const rel = path.relative(dir, file).split(path.sep).join("/");
  return rel.startsWith("../") ? rel : `./${rel}`;
}

/**
 * The config `text` of `file` (undefined: none yet) with `entry` in its `plugin` list.
 * Returns `{text, changed, present, replaced}`: `present` is the NSO entry already there (then
 * nothing changes: another way of loading NSO is the user's choice, and two would load it
 * twice), except an entry naming NSO by package, which OpenCode cannot load ({@link
 * isPackageEntry}): it is `replaced` by `entry` where it stands.
 * Throws {@link InitError} for a file that is not JSON (comments too: they would be lost),
 * or whose `plugin` is not a list.
 */
export function mergeOpencodeConfig(text, entry, file = "opencode.json") {
  const config = parseObject(text, file, "OpenCode's config");
  if (config.plugin !== undefined && !Array.isArray(config.plugin)) {
    throw new InitError(`${file}: "plugin" is not a list; nothing was written.`, `make "plugin" a list of plugin names or paths, e.g. ["${entry}"].`);
  }
  const plugins = config.plugin ?? [];
  const present = plugins.find((e) => isNsoEntry(e) && !isPackageEntry(e));
  if (present !== undefined) return { text, changed: false, present, replaced: undefined };
  // Only package entries are left: the first becomes NSO's entry, the others go.
  const at = plugins.findIndex(isNsoEntry);
  const replaced = plugins[at];
  const next = at < 0 ? [...plugins, entry] : plugins.flatMap((e, i) => (i === at ? [entry] : isNsoEntry(e) ? [] : [e]));
  const out = text === undefined || text.trim() === ""
    ? jsonText({ $schema: OPENCODE_SCHEMA, plugin: [entry] })
    : jsonText({ ...config, plugin: next });
  return { text: out, changed: true, present: undefined, replaced };
}
