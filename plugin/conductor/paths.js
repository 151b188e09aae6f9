// Claim patterns as the conductor stores them: absolute, canonical paths or globs, so that two
// repositories with a `src/a.ts` never conflict and a symlinked checkout claims the real files.
import fs from "node:fs";
import path from "node:path";
import { realPathInfo } from "../decision/files.js";

const GLOB_CHARS = /[*?[{]/;

/** `p` with the glob characters escaped (`\[`): a real path, claimed as itself. */
export const escapeGlob = (p) => p.replace(/[*?[\]{}\\]/g, "\\$&");

const joinPattern = (dir, rest) => (dir === "/" ? `/${rest}` : `${dir}/${rest}`);

/**
 * The claim pattern of the literal path `abs` (a tool's target: never a glob): its real
 * location (symlinks followed as far as it exists), glob characters escaped; `<it>/**` when
 * `folder`.
 */
export function literalClaim(abs, { folder = false } = {}) {
  const real = escapeGlob(realPathInfo(path.resolve(abs))[0]);
  return folder ? joinPattern(real, "**") : real;
}

/**
 * The claim pattern for `arg` as a person writes it (a path or glob, relative to `base` or
 * absolute): `..` and `.` removed; the part that exists, and everything before the first glob
 * segment, replaced by its real location with its glob characters escaped, so an existing
 * `app/[id]/` is itself, not a class; the glob part kept. A folder (existing, or written with
 * a trailing `/`) becomes `<folder>/**`.
 */
export function canonicalClaim(arg, base) {
  const abs = path.resolve(base, arg);
  const [real, exists] = realPathInfo(abs);
  const folderHint = arg.endsWith("/");
  if (exists) return literalClaim(real, { folder: folderHint || fs.statSync(real, { throwIfNoEntry: false })?.isDirectory() });
  const segments = path.normalize(arg).replace(/(.)\/+$/, "$1").split("/");
  const root = path.isAbsolute(arg) ? "/" : base;
  // The first segment with glob characters that does not exist as written starts the pattern.
  let firstGlob = -1;
  for (let i = 0; i < segments.length && firstGlob === -1; i++) {
    if (GLOB_CHARS.test(segments[i]) && !realPathInfo(path.resolve(root, segments.slice(0, i + 1).join("/") || "."))[1]) firstGlob = i;
  }
  if (firstGlob === -1) return literalClaim(abs, { folder: folderHint });
  const literal = path.resolve(root, segments.slice(0, firstGlob).join("/") || ".");
  return joinPattern(literalClaim(literal), segments.slice(firstGlob).join("/"));
}
