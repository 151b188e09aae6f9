// Claim patterns as the conductor stores them: absolute, canonical paths or globs, so that two
// repositories with a `src/a.ts` never conflict and a symlinked checkout claims the real files.
import fs from "node:fs";
import path from "node:path";
import { realPathInfo } from "../files.js";

const GLOB_CHARS = /[*?[{]/;

/**
 * The claim pattern for `arg` (a path or glob, relative to `base` or absolute): `..` and `.`
 * removed, the literal part before the first glob segment replaced by its real location
 * (symlinks followed as far as it exists; missing parts kept as written), the glob part kept.
 * A folder (existing, or written with a trailing `/`) becomes `<folder>/**`.
 */
export function canonicalClaim(arg, base) {
  const abs = path.resolve(base, arg);
  const segments = abs.split("/");
  const firstGlob = segments.findIndex((s) => GLOB_CHARS.test(s));
  if (firstGlob === -1) {
    const [real, exists] = realPathInfo(abs);
    const folder = arg.endsWith("/") || (exists && fs.statSync(real, { throwIfNoEntry: false })?.isDirectory());
    return folder ? joinPattern(real, "**") : real;
  }
  const literal = segments.slice(0, firstGlob).join("/") || "/";
  return joinPattern(realPathInfo(literal)[0], segments.slice(firstGlob).join("/"));
}

const joinPattern = (dir, rest) => (dir === "/" ? `/${rest}` : `${dir}/${rest}`);
