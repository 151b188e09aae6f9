// What a completed tool call changed, for the replay's virtual files: the new content of every
// file a `write`, `edit`, `multiedit` or `apply_patch` call touched, computed as the core computes
// it (crate/decision/src/authority/content.rs: an empty `oldString` gives the whole new text, else the
// first or every occurrence is replaced), with the recording's own diff as the fallback when the
// exact text does not occur (OpenCode and Claude Code also match with normalised whitespace).
import path from "node:path";
import { addedContent, applyHunks, applyUpdate, hunksOfStructuredPatch, parseApplyPatch, parseUnifiedDiff } from "./patches.js";

/** Tools whose changes the replay computes; other write-class calls are not followed. */
export const CONTENT_TOOLS = new Set(["write", "edit", "multiedit", "apply_patch"]);

/** The absolute form of `p` (relative to `directory`); undefined for `~` paths and non-strings. */
export function absolutePath(p, directory) {
  if (typeof p !== "string" || !p || p.startsWith("~")) return undefined;
  return path.posix.resolve(directory || "/", p);
}

/** One edit `{oldString, newString, replaceAll}` on `text`, or undefined when it does not apply. */
function applyEdit(text, e) {
  if (typeof e?.oldString !== "string" || typeof e.newString !== "string") return undefined;
  if (e.oldString === "") return e.newString;
  if (!text.includes(e.oldString)) return undefined;
  return e.replaceAll === true ? text.split(e.oldString).join(e.newString) : text.replace(e.oldString, () => e.newString);
}

/** `old` changed as the recording's diff says (OpenCode's edit diff, Claude Code's structuredPatch). */
function fromRecordedDiff(old, recorded) {
  if (recorded?.diff) return applyHunks(old, parseUnifiedDiff(recorded.diff));
  if (recorded?.structuredPatch) return applyHunks(old, hunksOfStructuredPatch(recorded.structuredPatch));
  return undefined;
}

/**
 * The changes of a completed call `{tool, args, directory, recorded}`: `{changes: [{abs, text}],
 * problem?}` (`text` null = deleted), where `read(abs)` gives a file's current text (undefined
 * when missing). `problem` says why a change could not be computed (the files keep their
 * content). Undefined for tools that change no file the replay can follow.
 */
export function callEffects(call, read) {
  const { tool, args = {}, directory, recorded } = call;
  if (!CONTENT_TOOLS.has(tool) && !(tool === "patch" && /\*\*\* (Begin Patch|Add File:|Update File:|Delete File:)/.test(args.patchText ?? args.patch ?? ""))) return undefined;
  if (tool === "apply_patch" || tool === "patch") return patchEffects(args.patchText ?? args.patch ?? "", directory, read);
  const abs = absolutePath(args.filePath, directory);
  if (!abs) return { changes: [], problem: "it names no file inside reach (filePath)" };
  if (tool === "write") {
    return typeof args.content === "string"
      ? { changes: [{ abs, text: args.content }] }
      : { changes: [], problem: `the recording does not hold the new content of ${args.filePath}` };
  }
  const old = read(abs) ?? "";
  const edits = tool === "edit" ? [args] : Array.isArray(args.edits) ? args.edits : [];
  let text = old;
  for (const e of edits) {
    text = applyEdit(text, e);
    if (text === undefined) break;
  }
  text ??= fromRecordedDiff(old, recorded);
  return text === undefined
    ? { changes: [], problem: `its change of ${args.filePath} does not apply to the content the replay holds` }
    : { changes: [{ abs, text }] };
}

function patchEffects(patchText, directory, read) {
  const patch = parseApplyPatch(patchText);
  if (!patch.wellFormed) return { changes: [], problem: "the patch is malformed" };
  const changes = [];
  const current = new Map(); // abs -> text within this patch
  const readNow = (abs) => (current.has(abs) ? current.get(abs) ?? undefined : read(abs));
  for (const f of patch.files) {
    const abs = absolutePath(f.path, directory);
    if (!abs) return { changes: [], problem: `the patch names ${f.path}` };
    let text;
    if (f.action === "add") text = addedContent(f);
    else if (f.action === "delete") text = null;
    else {
      text = applyUpdate(readNow(abs) ?? "", f.hunks);
      if (text === undefined) return { changes: [], problem: `a hunk of the patch does not match ${f.path}` };
    }
    const dest = f.moveTo ? absolutePath(f.moveTo, directory) : abs;
    if (!dest) return { changes: [], problem: `the patch moves to ${f.moveTo}` };
    if (dest !== abs) {
      changes.push({ abs, text: null });
      current.set(abs, null);
    }
    changes.push({ abs: dest, text });
    current.set(dest, text);
  }
  return { changes };
}
