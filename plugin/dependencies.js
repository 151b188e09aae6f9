// NSO's npm dependencies (proper-lockfile, pg), loaded on first use. A checkout or install
// without them (no `npm install` run) fails closed like any broken part, and says which
// package is missing and the command that installs it, instead of a misleading cause.
import path from "node:path";
import { fileURLToPath } from "node:url";

/** NSO's package folder (where its package.json is): where `npm install` must run. */
export const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The npm package a failed import names as missing (`Cannot find package 'pg'`), or null. */
export function missingPackage(error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" && error?.code !== "MODULE_NOT_FOUND") return null;
  const m = /Cannot find (?:package|module) '([^']+)'/.exec(String(error.message));
  if (!m || m[1].startsWith(".") || path.isAbsolute(m[1])) return null;
  // `pg/lib/x` or `@scope/name/x`: the package is the first part (two for a scope).
  return m[1].split("/").slice(0, m[1].startsWith("@") ? 2 : 1).join("/");
}

/** The error for the missing npm package `name`: code `nso_dependency_missing`, with the fix. */
export function dependencyError(name) {
  return Object.assign(new Error(`the npm package ${name}, which NSO needs, is not installed`), {
    code: "nso_dependency_missing",
    fix: `run \`npm install\` in ${PACKAGE_DIR} (NSO's folder), then restart OpenCode`,
  });
}

/**
 * The module `load()` imports; an import that fails for a missing npm package throws
 * {@link dependencyError} naming it (other failures as they are).
 */
export async function loadDependency(load) {
  try {
    return await load();
  } catch (error) {
    const name = missingPackage(error);
    throw name ? dependencyError(name) : error;
  }
}
