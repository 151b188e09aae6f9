// Mind's files under the continuity folder: `mind/observations.jsonl` and
// `mind/reflections.jsonl` (append-only records; a later record of an id supersedes an
// earlier one), `mind/moves.jsonl` (hand moves), `mind/checkpoint.json` (how far each lane
// was read) and the lock. Only Mind's ingestion writes them, holding the lock.
import fs from "node:fs";
import { replaceFile } from "../atomic-file.js";

export const FILES = { observations: "observations.jsonl", reflections: "reflections.jsonl", moves: "moves.jsonl", checkpoint: "checkpoint.json" };

/**
 * Appends JSON records to `file`, one a line, in one write. A last line left without its end
 * by an interrupted append is cut off first: it is derived again, since the checkpoint was not
 * moved past it. Returns the bytes cut.
 */
export function appendRecords(file, records) {
  let cut = 0;
  try {
    const fd = fs.openSync(file, "r+");
    try {
      const size = fs.fstatSync(fd).size;
      if (size > 0) {
        const tail = Buffer.alloc(Math.min(size, 1 << 16));
        fs.readSync(fd, tail, 0, tail.length, size - tail.length);
        if (tail[tail.length - 1] !== 0x0a) {
          const nl = tail.lastIndexOf(0x0a);
          const keep = nl < 0 ? size - tail.length : size - tail.length + nl + 1;
          fs.ftruncateSync(fd, keep);
          cut = size - keep;
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if (error.code !== "ENOENT") throw error;
  }
  if (records.length) {
    const fd = fs.openSync(file, "a");
    try {
      fs.writeSync(fd, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
  return cut;
}

/**
 * What is kept of each id in a JSONL text (`{id: {rev, basis}}`): its latest revision and,
 * when a provider reworded it, the deterministic revision it was made from.
 */
export function kept(text) {
  const out = {};
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line);
      if (typeof r?.id === "string") out[r.id] = { rev: String(r.rev ?? ""), basis: typeof r.basis === "string" ? r.basis : null };
    } catch {
      // counted by the core when it reads the file
    }
  }
  return out;
}

/** The checkpoint (`{lanes: {name: {bytes, mtimeMs, sessions}}, at}`), empty when missing or unreadable. */
export function readCheckpoint(file) {
  try {
    const c = JSON.parse(fs.readFileSync(file, "utf8"));
    if (c && typeof c.lanes === "object") return c;
  } catch {
    // a missing or damaged checkpoint means: read every lane again (nothing is duplicated)
  }
  return { lanes: {} };
}

export const writeCheckpoint = (file, checkpoint) => replaceFile(file, JSON.stringify(checkpoint, null, 2) + "\n");
