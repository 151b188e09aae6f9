// What a commit is about to record, read from git: the staged changes (index against HEAD), the
// HEAD version of every file (the "current" content a change is decided against), and blob
// texts bounded by `limits.contentBytes`. Parsing is pure (text in, records out); the readers
// run git, with the environment git gave the hook (GIT_INDEX_FILE of `git commit -a` too).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** git's empty tree: what HEAD is before the first commit. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
/** A gitlink (submodule) entry: a commit, not a blob. */
export const GITLINK_MODE = "160000";
const MAX_BUFFER = 1 << 30;

/**
 * The records of `git diff --cached --raw -z -M --no-abbrev` output: `{status, score, oldMode,
 * newMode, oldSha, newSha, path, from}` where `status` is one letter (A added, M modified,
 * D deleted, R renamed, C copied, T type changed, U unmerged) and `from` the source of a
 * rename or copy. Throws on output it does not understand (the guard then refuses).
 */
export function parseRawDiff(text) {
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop(); // every field ends with a NUL
  const records = [];
  let i = 0;
  while (i < parts.length) {
    const head = parts[i];
    const m = /^:(\d{6}) (\d{6}) ([0-9a-f]{40,64}) ([0-9a-f]{40,64}) ([ACDMRTUX])(\d*)$/.exec(head);
    if (!m) throw new Error(`unexpected output of git diff --raw: ${JSON.stringify(head.slice(0, 200))}`);
    const [, oldMode, newMode, oldSha, newSha, status, score] = m;
    const twoPaths = status === "R" || status === "C";
    const first = parts[i + 1];
    const second = twoPaths ? parts[i + 2] : undefined;
    if (first === undefined || (twoPaths && second === undefined)) throw new Error("git diff --raw output ends inside a record");
    records.push({
      status, score: score ? Number(score) : null, oldMode, newMode, oldSha, newSha,
      path: twoPaths ? second : first, from: twoPaths ? first : null,
    });
    i += twoPaths ? 3 : 2;
  }
  return records;
}

/** The entries of `git ls-tree -r -l -z --full-tree` output: path → `{mode, type, sha, size}`. */
export function parseLsTree(text) {
  const files = new Map();
  for (const entry of text.split("\0")) {
    if (!entry) continue;
    const tab = entry.indexOf("\t");
    const m = /^(\d{6}) (\w+) ([0-9a-f]{40,64}) +(\d+|-)$/.exec(entry.slice(0, tab));
    if (tab < 0 || !m) throw new Error(`unexpected output of git ls-tree: ${JSON.stringify(entry.slice(0, 200))}`);
    files.set(entry.slice(tab + 1), { mode: m[1], type: m[2], sha: m[3], size: m[4] === "-" ? 0 : Number(m[4]) });
  }
  return files;
}

/**
 * The objects of `git cat-file --batch` output (a Buffer) for the requested ids, in order:
 * `{sha, type, size, data: Buffer}`, or `{sha, missing: true}`.
 */
export function parseCatFileBatch(buffer) {
  const objects = [];
  let at = 0;
  while (at < buffer.length) {
    const nl = buffer.indexOf(10, at);
    if (nl < 0) throw new Error("git cat-file --batch output ends inside a header");
    const header = buffer.subarray(at, nl).toString("utf8");
    const missing = /^(\S+) missing$/.exec(header);
    if (missing) {
      objects.push({ sha: missing[1], missing: true });
      at = nl + 1;
      continue;
    }
    const m = /^([0-9a-f]{40,64}) (\w+) (\d+)$/.exec(header);
    if (!m) throw new Error(`unexpected output of git cat-file --batch: ${JSON.stringify(header.slice(0, 200))}`);
    const size = Number(m[3]);
    objects.push({ sha: m[1], type: m[2], size, data: buffer.subarray(nl + 1, nl + 1 + size) });
    at = nl + 1 + size + 1; // the data is followed by a newline
  }
  return objects;
}

/** Runs git in `cwd`; its stdout as text (or a Buffer with `{buffer: true}`). Throws with git's stderr. */
export function git(cwd, args, { input, buffer = false } = {}) {
  const r = spawnSync("git", args, { cwd, input, maxBuffer: MAX_BUFFER, ...(buffer ? {} : { encoding: "utf8" }) });
  if (r.error) throw new Error(`cannot run git: ${r.error.message}`);
  if (r.status !== 0) {
    const err = Buffer.isBuffer(r.stderr) ? r.stderr.toString("utf8") : r.stderr;
    throw Object.assign(new Error(`git ${args.join(" ")} failed: ${String(err).trim() || `exit ${r.status}`}`), { gitStatus: r.status });
  }
  return r.stdout;
}

/** The top folder of the work tree holding `dir`, or undefined outside one. */
export function workTreeOf(dir) {
  try {
    return execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The repository as the commit sees it, at the work tree `root`: `{changes, head, mergeTrees}`
 * where `changes` are the staged records ({@link parseRawDiff}), `head` maps every file of
 * HEAD to its entry (empty before the first commit), and `mergeTrees` the files of each
 * branch a merge being concluded brings (MERGE_HEAD; none otherwise).
 */
export function readStaged(root) {
  let hasHead = true;
  try {
    git(root, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
  } catch {
    hasHead = false;
  }
  const base = hasHead ? "HEAD" : EMPTY_TREE;
  const changes = parseRawDiff(git(root, ["diff", "--cached", "--raw", "-z", "-M", "--no-abbrev", "--no-ext-diff", "--no-textconv", base, "--"]));
  const head = hasHead ? parseLsTree(git(root, ["ls-tree", "-r", "-l", "-z", "--full-tree", "HEAD"])) : new Map();
  // A merge being concluded: the trees of the branches it merges (MERGE_HEAD, one per line).
  const mergeFile = path.resolve(root, git(root, ["rev-parse", "--git-path", "MERGE_HEAD"]).trim());
  const mergeHeads = fs.existsSync(mergeFile) ? fs.readFileSync(mergeFile, "utf8").split("\n").filter((l) => /^[0-9a-f]{40,64}$/.test(l)) : [];
  const mergeTrees = mergeHeads.map((sha) => parseLsTree(git(root, ["ls-tree", "-r", "-l", "-z", "--full-tree", sha])));
  return { changes, head, hasHead, mergeTrees };
}

/**
 * Texts of the blobs `shas` (UTF-8; a blob of another encoding is read as UTF-8 with
 * replacement characters), in one `git cat-file --batch`. A blob larger than `limit` bytes is
 * not read: `{oversized: bytes}`. Returns sha → text or `{oversized}`; a missing object is
 * absent from the map.
 */
export function blobTexts(root, shas, limit = Infinity) {
  const out = new Map();
  const wanted = [...new Set(shas)];
  if (!wanted.length) return out;
  const sizes = new Map();
  const check = git(root, ["cat-file", "--batch-check=%(objectname) %(objectsize)"], { input: wanted.join("\n") + "\n" });
  for (const line of check.split("\n")) {
    const m = /^([0-9a-f]{40,64}) (\d+)$/.exec(line);
    if (m) sizes.set(m[1], Number(m[2]));
  }
  const small = [];
  for (const sha of wanted) {
    if (!sizes.has(sha)) continue;
    if (sizes.get(sha) > limit) out.set(sha, { oversized: sizes.get(sha) });
    else small.push(sha);
  }
  if (small.length) {
    for (const o of parseCatFileBatch(git(root, ["cat-file", "--batch"], { input: small.join("\n") + "\n", buffer: true }))) {
      if (!o.missing) out.set(o.sha, o.data.toString("utf8"));
    }
  }
  return out;
}
