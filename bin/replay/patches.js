// Applying the patches a recorded session made, for the replay's virtual files: OpenCode's
// `apply_patch` text (the same reading as the core's crate/decision/src/authority/patch.rs, so the
// replay's files hold what the engine computes) and unified diffs (OpenCode's recorded edit
// diff, Claude Code's `structuredPatch`), used when an edit's `oldString` does not occur exactly.

const ADD = "*** Add File:";
const UPDATE = "*** Update File:";
const DELETE = "*** Delete File:";
const MOVE = "*** Move to:";

/**
 * Parses an `apply_patch` text: `{files: [{action, path, moveTo, addLines, hunks}], wellFormed}`
 * with `action` `add` | `update` | `delete` and hunks `{context, lines: [[" "|"-"|"+", text]],
 * endOfFile}`. Never throws.
 */
export function parseApplyPatch(text) {
  const files = [];
  let ok = true;
  let begun = false;
  let ended = false;
  const file = (action, p) => ({ action, path: p.trim(), moveTo: undefined, addLines: [], hunks: [] });
  for (const raw of String(text).split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const t = line.trim();
    if (t.startsWith(ADD)) {
      files.push(file("add", t.slice(ADD.length)));
      ok &&= begun && !ended;
    } else if (t.startsWith(UPDATE)) {
      files.push(file("update", t.slice(UPDATE.length)));
      ok &&= begun && !ended;
    } else if (t.startsWith(DELETE)) {
      files.push(file("delete", t.slice(DELETE.length)));
      ok &&= begun && !ended;
    } else if (t.startsWith(MOVE)) {
      const last = files.at(-1);
      if (last?.action === "update" && last.moveTo === undefined && !last.hunks.length) last.moveTo = t.slice(MOVE.length).trim();
      else {
        files.push(file("add", t.slice(MOVE.length)));
        ok = false;
      }
    } else if (t === "*** Begin Patch") {
      ok &&= !begun;
      begun = true;
    } else if (t === "*** End Patch") {
      ok &&= begun && !ended;
      ended = true;
    } else if (t === "*** End of File") {
      const hunk = files.at(-1)?.hunks.at(-1);
      if (hunk) hunk.endOfFile = true;
      else ok = false;
    } else if (ended || !begun || !files.length) {
      ok &&= t === "";
    } else {
      const f = files.at(-1);
      if (f.action === "add") {
        if (line.startsWith("+")) f.addLines.push(line.slice(1));
        else ok = false;
      } else if (f.action === "delete") {
        ok &&= t === "";
      } else if (line.startsWith("@@")) {
        const ctx = line.slice(2).trim();
        f.hunks.push({ context: ctx || undefined, lines: [], endOfFile: false });
      } else {
        if (!f.hunks.length) f.hunks.push({ context: undefined, lines: [], endOfFile: false });
        const kind = line === "" ? " " : line[0];
        if (kind === " " || kind === "-" || kind === "+") f.hunks.at(-1).lines.push([kind, line.slice(1)]);
        else ok = false;
      }
    }
  }
  return { files, wellFormed: Boolean(ok && begun && ended) };
}

/** The content of an added file. */
export const addedContent = (f) => f.addLines.map((l) => `${l}\n`).join("");

/** Index of `seq` in `lines` from `start` (exact, then ignoring trailing, then all surrounding whitespace). */
function findSeq(lines, seq, start, atEnd) {
  if (seq.length > lines.length) return -1;
  const last = lines.length - seq.length;
  const tryWith = (eq) => {
    const at = (i) => seq.every((s, k) => eq(s, lines[i + k]));
    if (atEnd && last >= start && at(last)) return last;
    for (let i = start; i <= last; i++) if (at(i)) return i;
    return -1;
  };
  for (const eq of [(a, b) => a === b, (a, b) => a.trimEnd() === b.trimEnd(), (a, b) => a.trim() === b.trim()]) {
    const i = tryWith(eq);
    if (i >= 0) return i;
  }
  return -1;
}

/**
 * `old` with an `apply_patch` update's hunks applied, as apply_patch places them (each searched
 * from the previous one); undefined when a hunk does not match.
 */
export function applyUpdate(old, hunks) {
  const lines = old === "" ? [] : old.split("\n");
  if (old.endsWith("\n")) lines.pop();
  let cursor = 0;
  const edits = [];
  for (const h of hunks) {
    if (h.context !== undefined) {
      const idx = findSeq(lines, [h.context], cursor, false);
      if (idx < 0) return undefined;
      cursor = idx + 1;
    }
    const oldSeq = h.lines.filter(([k]) => k !== "+").map(([, l]) => l);
    const newSeq = h.lines.filter(([k]) => k !== "-").map(([, l]) => l);
    if (!oldSeq.length) {
      edits.push([lines.length, 0, newSeq]);
      continue;
    }
    let idx = findSeq(lines, oldSeq, cursor, h.endOfFile);
    if (idx < 0 && oldSeq.at(-1) === "") {
      // A trailing empty context line may stand for the final newline.
      idx = findSeq(lines, oldSeq.slice(0, -1), cursor, h.endOfFile);
      if (idx >= 0) {
        const ns = newSeq.at(-1) === "" ? newSeq.slice(0, -1) : newSeq;
        edits.push([idx, oldSeq.length - 1, ns]);
        cursor = idx + oldSeq.length - 1;
        continue;
      }
    }
    if (idx < 0) return undefined;
    edits.push([idx, oldSeq.length, newSeq]);
    cursor = idx + oldSeq.length;
  }
  edits.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < edits.length; i++) if (edits[i - 1][0] + edits[i - 1][1] > edits[i][0]) return undefined;
  for (const [start, len, seq] of edits.reverse()) lines.splice(start, len, ...seq);
  return `${lines.join("\n")}\n`;
}

/**
 * The hunks of a one-file unified diff (`@@ -a,b +c,d @@` then ` `, `-`, `+` and `\ No newline`
 * lines): `[{oldStart, lines: [[kind, text]], oldNoEol, newNoEol}]`. Headers are skipped.
 */
export function parseUnifiedDiff(text) {
  const hunks = [];
  let h = null;
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of String(text).split("\n")) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (m) {
      h = { oldStart: Number(m[1]), lines: [], oldNoEol: false, newNoEol: false };
      oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      newLeft = m[4] === undefined ? 1 : Number(m[4]);
      hunks.push(h);
      continue;
    }
    if (!h) continue;
    if (line.startsWith("\\")) {
      const last = h.lines.at(-1);
      if (last?.[0] !== "+") h.oldNoEol = true;
      if (last?.[0] !== "-") h.newNoEol = true;
      continue;
    }
    if (oldLeft <= 0 && newLeft <= 0) continue;
    const kind = line === "" ? " " : line[0];
    if (kind === " ") {
      oldLeft--;
      newLeft--;
    } else if (kind === "-") oldLeft--;
    else if (kind === "+") newLeft--;
    else continue;
    h.lines.push([kind, line.slice(1)]);
  }
  return hunks;
}

/** Claude Code's `structuredPatch` (`[{oldStart, lines: [" a", "-b", "+c"]}]`) as hunks. */
export function hunksOfStructuredPatch(patch) {
  const hunks = [];
  for (const p of Array.isArray(patch) ? patch : []) {
    if (!p || !Array.isArray(p.lines)) return [];
    const h = { oldStart: Number(p.oldStart) || 1, lines: [], oldNoEol: false, newNoEol: false };
    for (const line of p.lines) {
      if (typeof line !== "string") return [];
      if (line.startsWith("\\")) {
        const last = h.lines.at(-1);
        if (last?.[0] !== "+") h.oldNoEol = true;
        if (last?.[0] !== "-") h.newNoEol = true;
      } else h.lines.push([line === "" ? " " : line[0], line.slice(1)]);
    }
    hunks.push(h);
  }
  return hunks;
}

/**
 * `old` with unified-diff hunks applied: each at its line number, else searched for after the
 * previous one. Undefined when a hunk does not match (or there are none).
 */
export function applyHunks(old, hunks) {
  if (!hunks.length) return undefined;
  const lines = old === "" ? [] : old.split("\n");
  let eol = old === "" || old.endsWith("\n");
  if (old.endsWith("\n")) lines.pop();
  let offset = 0;
  let cursor = 0;
  for (const h of hunks) {
    const oldSeq = h.lines.filter(([k]) => k !== "+").map(([, l]) => l);
    const newSeq = h.lines.filter(([k]) => k !== "-").map(([, l]) => l);
    // `-3,0` inserts after line 3; `-3,2` replaces lines 3 and 4.
    const expected = Math.max(0, (oldSeq.length ? h.oldStart - 1 : h.oldStart) + offset);
    const fits = expected + oldSeq.length <= lines.length && oldSeq.every((l, k) => lines[expected + k] === l);
    const at = fits ? expected : findSeq(lines, oldSeq, cursor, false);
    if (at < 0) return undefined;
    lines.splice(at, oldSeq.length, ...newSeq);
    offset += newSeq.length - oldSeq.length;
    cursor = at + newSeq.length;
    if (h.newNoEol) eol = false;
    else if (h.oldNoEol) eol = true;
  }
  const body = lines.join("\n");
  return eol && lines.length ? `${body}\n` : body;
}
