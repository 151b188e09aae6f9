// Reading the activity feeds (docs/mission-control.md, part 1) and the Conductor's logs for
// Mission Control: only the tail of each file, whatever its size or contents. A feed is data
// written by other processes, maybe half-written, maybe hostile: a bad line is skipped and
// counted, never thrown; a file that is not a regular file (a FIFO, a symlink) is not opened.
import fs from "node:fs";
import path from "node:path";

/** The folder of the feeds under the Conductor's home. */
export const ACTIVITY_DIR = "activity";
/** How much of the end of each feed is read by default. */
export const DEFAULT_TAIL_BYTES = 256 * 1024;
/** How much of the start of a feed is read to find its `instance` line. */
const HEAD_BYTES = 64 * 1024;
/** At most this many feeds are read (the most recently written ones). */
export const MAX_FEEDS = 200;
/** A feed's file name: `<host>-<pid>-<rand6>.jsonl`, or the rotated `.jsonl.1`. */
const FEED_NAME = /^([A-Za-z0-9._-]+)\.jsonl(\.1)?$/;

/**
 * The records of the JSON-lines `text` (pure). When `partialStart`, the text begins inside a
 * line (a tail read from the middle of a file) and its first line is dropped. A line that is
 * not a JSON object with a string `kind` is skipped and counted in `skipped`.
 */
export function parseFeedText(text, { partialStart = false } = {}) {
  const lines = String(text ?? "").split("\n");
  if (partialStart) lines.shift();
  const records = [];
  let skipped = 0;
  for (const line of lines) {
    if (!line.trim()) continue;
    const record = parseRecord(line);
    if (record) records.push(record);
    else skipped++;
  }
  return { records, skipped };
}

/** One feed line as a record, or null (not JSON, not an object, no string `kind`). */
export function parseRecord(line) {
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  return value && typeof value === "object" && !Array.isArray(value) && typeof value.kind === "string" ? value : null;
}

/**
 * Opens `file` for reading only if it is a regular file (no symlink followed, a FIFO never
 * blocks); returns `{fd, size, mtimeMs}` or null.
 */
function openRegular(file) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isFile()) return { fd, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    // unreadable: as if absent
  }
  fs.closeSync(fd);
  return null;
}

/** `length` bytes of `fd` from `position`, as UTF-8 text. */
function readRange(fd, position, length) {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return buffer.subarray(0, done).toString("utf8");
}

/**
 * The last `bytes` of `file`: `{text, partialStart, size, mtimeMs}`, or null when it is
 * missing or not a regular file. `partialStart` says the text starts inside a line.
 */
export function readTail(file, bytes) {
  const opened = openRegular(file);
  if (!opened) return null;
  try {
    const start = Math.max(0, opened.size - Math.max(0, bytes));
    const text = readRange(opened.fd, start, opened.size - start);
    return { text, partialStart: start > 0, size: opened.size, mtimeMs: opened.mtimeMs };
  } catch {
    return null;
  } finally {
    fs.closeSync(opened.fd);
  }
}

/** Bytes searched backwards for a line's start (a line longer than the tail is skipped). */
const SCAN_BYTES = 8 << 20;
const CHUNK_BYTES = 64 * 1024;

/** The position of the last "\n" before `end` in `fd`, looking back at most `budget` bytes; -1 if none. */
function lastNewline(fd, end, budget) {
  const chunk = Buffer.alloc(CHUNK_BYTES);
  for (let to = end; to > 0 && end - to < budget;) {
    const from = Math.max(0, to - CHUNK_BYTES, end - budget);
    const n = fs.readSync(fd, chunk, 0, to - from, from);
    const at = chunk.subarray(0, n).lastIndexOf(10);
    if (at >= 0) return from + at;
    to = from;
  }
  return -1;
}

/**
 * The last whole lines of `file` within `bytes`: `{text, partialStart, size, mtimeMs,
 * skipped}`, or null when it is missing or not a regular file. The text ends at a line end:
 * an unterminated last line (one being written) is left for the next read. A line longer
 * than `bytes` at the end is skipped (counted in `skipped`) and the lines before it read
 * instead, looking back at most 8 MiB: one huge line cannot hide a feed's records.
 * `partialStart` says the text starts inside a line (drop its first line).
 */
export function readLinesTail(file, bytes) {
  const opened = openRegular(file);
  if (!opened) return null;
  const { fd, size, mtimeMs } = opened;
  const answer = (text, partialStart, skipped) => ({ text, partialStart, size, mtimeMs, skipped });
  try {
    let budget = SCAN_BYTES;
    let skipped = 0;
    let nl = lastNewline(fd, size, budget);
    if (nl < 0) return answer("", false, size > bytes ? 1 : 0);
    if (size - (nl + 1) > bytes) skipped++;
    budget -= size - nl;
    for (;;) {
      const end = nl + 1;
      const start = Math.max(0, end - Math.max(0, bytes));
      // One byte before the window too: when it is a line end, the window's first line is whole.
      const text = readRange(fd, Math.max(0, start - 1), end - Math.max(0, start - 1));
      const first = text.indexOf("\n");
      if (start === 0 || (first >= 0 && first < text.length - 1)) return answer(text, start > 0, skipped);
      // The window is one line longer than `bytes`: skip it, read what comes before it.
      skipped++;
      nl = budget > 0 ? lastNewline(fd, start, budget) : -1;
      if (nl < 0) return answer("", false, skipped);
      budget -= end - nl;
    }
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The first `bytes` of `file` as text (a character cut at the end shows as U+FFFD), or null
 * when it is missing or not a regular file.
 */
export function readHead(file, bytes) {
  const opened = openRegular(file);
  if (!opened) return null;
  try {
    return readRange(opened.fd, 0, Math.min(opened.size, Math.max(0, bytes)));
  } catch {
    return null;
  } finally {
    fs.closeSync(opened.fd);
  }
}

/** The first line of `file` as a record (read from its first 64 KiB), or null. */
export function readFirstRecord(file) {
  const text = readHead(file, HEAD_BYTES);
  const end = text?.indexOf("\n") ?? -1;
  return end < 0 ? null : parseRecord(text.slice(0, end));
}

/**
 * The last `count` non-empty lines of `file` (read from its last `bytes`); [] when missing.
 * For the Conductor's conflicts.log and history.jsonl.
 */
export function readLastLines(file, count, bytes = 256 * 1024) {
  const tail = readLinesTail(file, bytes);
  if (!tail) return [];
  const lines = tail.text.split("\n");
  if (tail.partialStart) lines.shift();
  return lines.filter((l) => l.trim()).slice(-count);
}

/**
 * The feeds in `<home>/activity/`, each `{ key, file, instance, records, size, mtimeMs,
 * skipped }`: `key` is the file name without `.jsonl`; `records` the parsed records of its
 * last `tailBytes` (the rotated `.1` file's tail too, before them, when the current file is
 * shorter than that); `instance` the newest `instance` record (from the tail, else the first
 * line of the current or rotated file), or null; `skipped` the number of bad lines. Only the
 * `maxFeeds` most recently written feeds are read. Never throws: a missing folder is [].
 */
export function readFeeds(home, { tailBytes = DEFAULT_TAIL_BYTES, maxFeeds = MAX_FEEDS } = {}) {
  const dir = path.join(home, ACTIVITY_DIR);
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  // key -> when its current or rotated file was last written
  const keys = new Map();
  for (const name of names) {
    const key = FEED_NAME.exec(name)?.[1];
    const mtimeMs = key ? modifiedMs(path.join(dir, name)) : null;
    if (mtimeMs !== null) keys.set(key, Math.max(keys.get(key) ?? 0, mtimeMs));
  }
  const newest = [...keys].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, Math.max(0, maxFeeds));
  const feeds = [];
  for (const [key] of newest) {
    const feed = readFeed(path.join(dir, `${key}.jsonl`), key, tailBytes);
    if (feed) feeds.push(feed);
  }
  return feeds.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** When the regular file `file` was last written (ms); null for anything else (a FIFO, a symlink). */
function modifiedMs(file) {
  try {
    const stat = fs.lstatSync(file);
    return stat.isFile() ? stat.mtimeMs : null;
  } catch {
    return null;
  }
}

/** One feed (see {@link readFeeds}); null when neither the file nor its `.1` can be read. */
export function readFeed(file, key, tailBytes) {
  const rotatedFile = `${file}.1`;
  const current = readLinesTail(file, tailBytes);
  const size = current?.size ?? 0;
  const older = size < tailBytes ? readLinesTail(rotatedFile, tailBytes - size) : null;
  if (!current && !older) return null;
  const parse = (tail) => {
    if (!tail) return { records: [], skipped: 0 };
    const parsed = parseFeedText(tail.text, { partialStart: tail.partialStart });
    return { records: parsed.records, skipped: parsed.skipped + tail.skipped };
  };
  const parsedOlder = parse(older);
  const parsedCurrent = parse(current);
  const records = [...parsedOlder.records, ...parsedCurrent.records];
  let instance = null;
  for (let i = records.length - 1; i >= 0 && !instance; i--) if (records[i].kind === "instance") instance = records[i];
  instance ??= headInstance(current ? file : null) ?? headInstance(rotatedFile);
  return {
    key, file, instance, records, size,
    mtimeMs: current?.mtimeMs ?? older?.mtimeMs ?? 0,
    skipped: parsedOlder.skipped + parsedCurrent.skipped,
  };
}

function headInstance(file) {
  if (!file) return null;
  const first = readFirstRecord(file);
  return first?.kind === "instance" ? first : null;
}
