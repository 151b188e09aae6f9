// T0 transcripts: the deterministic compact view of a session, made by the core from the raw
// lane (or from `opencode export` JSON) and written next to it with its hash:
// `<dir>/transcripts/<session>.t0.md` and `<session>.t0.json` (hash, policy, sizes, digest,
// warnings, and `laneBytes`: the checkpoint; an unchanged lane is not compacted again).
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { replaceFile } from "../atomic-file.js";
import { omittedFile, readOmitted, safeName } from "./lane.js";
import { makeStateDir } from "../state-dirs.js";

/** The SHA-256 of `text` (UTF-8), hex. */
export const sha256 = (text) => crypto.createHash("sha256").update(text, "utf8").digest("hex");

/** Where the T0 files of `session` are kept. */
export function t0Files(dir, session) {
  const base = path.join(dir, "transcripts", safeName(session));
  return { text: `${base}.t0.md`, meta: `${base}.t0.json` };
}

/** The metadata (`.t0.json`) of `session`, or null when there is none or it is unreadable. */
export function readT0Meta(dir, session) {
  try {
    return JSON.parse(fs.readFileSync(t0Files(dir, session).meta, "utf8"));
  } catch {
    return null;
  }
}

/**
 * One transcript result from the core (`{session, text, digest, stats}`) with the warnings of
 * its input, as written to disk: the text, and the metadata with its hash.
 */
export function t0Record(result, { policy, warnings = [], source, rawBytes, laneBytes, omitted = null }) {
  return {
    session: result.session,
    policy,
    sha256: sha256(result.text),
    rawBytes,
    t0Bytes: Buffer.byteLength(result.text, "utf8"),
    laneBytes,
    // What the raw lane left out past its cap (continuity.laneMaxBytes): records and bytes.
    omitted: omitted ? { records: omitted.records, bytes: omitted.bytes } : { records: 0, bytes: 0 },
    source,
    stats: result.stats,
    warnings: warnings.slice(0, 50),
    digest: result.digest,
  };
}

/**
 * Compacts the lane of `session` (file `laneFile`) into its T0 files, unless the lane has not
 * grown since the last time (the checkpoint). `wf` is the workflow package instance. Returns
 * the metadata (also when unchanged), or null when there is no lane.
 */
export function compactLane({ wf, dir, root, session, laneFile }) {
  const size = fs.statSync(laneFile, { throwIfNoEntry: false })?.size;
  if (size === undefined) return null;
  const omitted = readOmitted(omittedFile(dir, session));
  const before = readT0Meta(dir, session);
  if (before && before.laneBytes === size && (before.omitted?.records ?? 0) === (omitted?.records ?? 0) &&
    fs.existsSync(t0Files(dir, session).text)) return before;
  const raw = fs.readFileSync(laneFile, "utf8");
  const out = JSON.parse(wf.t0FromLane(raw, root));
  const result = out.sessions.find((s) => s.session === session) ?? out.sessions[0];
  if (!result) return null;
  const meta = t0Record(result, { policy: out.policy, warnings: out.warnings, source: path.basename(laneFile), rawBytes: size, laneBytes: size, omitted });
  const files = t0Files(dir, session);
  makeStateDir(path.dirname(files.text));
  replaceFile(files.text, result.text);
  replaceFile(files.meta, JSON.stringify(meta, null, 2) + "\n");
  return meta;
}

/**
 * The digests of the sessions compacted most recently (newest first, by the time of their
 * last message), leaving out `except` and subagent sessions; at most `limit`.
 */
export function recentDigests(dir, { except, limit }) {
  const folder = path.join(dir, "transcripts");
  let names;
  try {
    names = fs.readdirSync(folder).filter((n) => n.endsWith(".t0.json"));
  } catch {
    return [];
  }
  const digests = [];
  for (const name of names) {
    try {
      const meta = JSON.parse(fs.readFileSync(path.join(folder, name), "utf8"));
      const d = meta?.digest;
      if (d && d.session !== except && !d.parent) digests.push(d);
    } catch {
      // an unreadable metadata file is skipped: it is derived, the lane is the history
    }
  }
  digests.sort((a, b) => (b.ended ?? 0) - (a.ended ?? 0) || String(a.session).localeCompare(String(b.session)));
  return digests.slice(0, limit);
}
