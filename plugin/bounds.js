// Bounds on what crosses into the wasm core with each call, so a pasted 10 MB message or a
// huge write costs no more than a small one. Each cut keeps the verdict the core would give
// on the whole input: the router reads only its scan window, the shell analyser refuses
// any command over its limit as opaque, and a text left out is replaced by a marker that
// makes every check needing it fail closed.
import fs from "node:fs";

/** The shell analyser's limit (crate/src/shell/mod.rs `MAX_INPUT`): longer is opaque. */
export const MAX_COMMAND_BYTES = 64 * 1024;
/** Default of `limits.contentBytes` (crate/src/config.rs `DEFAULT_CONTENT_BYTES`). */
export const DEFAULT_CONTENT_BYTES = 1024 * 1024;
/** The key of the marker that stands for a text argument left out for its size. */
export const OVERSIZED = "nsoOversized";

/** Arguments holding a change's text, per tool: left out past `limits.contentBytes`. */
export const TEXT_ARGS = { write: ["content"], edit: ["oldString", "newString"], apply_patch: ["patchText"] };

/**
 * A prefix of `text` whose UTF-8 form holds at least its first `bytes` + 1 bytes (or the
 * whole text), never ending inside a surrogate pair. Cheap: no encoding.
 */
export function crossingPrefix(text, bytes) {
  const n = bytes + 2; // one UTF-16 unit is at least one UTF-8 byte
  if (text.length <= n) return text;
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

/** UTF-8 length of `text`, without encoding it when it is clearly short. */
export function utf8Bytes(text, limit) {
  return text.length * 3 <= limit ? text.length : Buffer.byteLength(text, "utf8");
}

/**
 * The arguments of a `tool` call as they should cross into the core: `args` itself when
 * nothing is too large (the common case, no copy), else a copy with the bash command cut
 * past the analyser's limit and over-large texts replaced by `{nsoOversized: bytes}`. The
 * host's own arguments are never changed.
 */
export function boundArgs(tool, args, contentBytes = DEFAULT_CONTENT_BYTES) {
  let out = args;
  const copy = () => (out === args ? (out = { ...args }) : out);
  if (tool === "bash" && typeof args?.command === "string" && args.command.length > MAX_COMMAND_BYTES) {
    copy().command = crossingPrefix(args.command, MAX_COMMAND_BYTES);
  }
  for (const key of TEXT_ARGS[tool] ?? []) {
    const text = args?.[key];
    if (typeof text === "string" && text.length > contentBytes / 3) {
      const bytes = utf8Bytes(text, contentBytes);
      if (bytes > contentBytes) copy()[key] = { [OVERSIZED]: bytes };
    }
  }
  return out;
}

/**
 * A file's current content for a content check, or `{oversized: bytes}` when it is larger
 * than `contentBytes`, or undefined when it does not exist.
 */
export function readBounded(file, contentBytes = Infinity) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (stat.isFile() && stat.size > contentBytes) return { oversized: stat.size };
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw error;
  }
}
