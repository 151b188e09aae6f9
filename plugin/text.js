// Text bounds shared by the plugin and the CLI: clipping values agents control, and making
// them one safe line for a terminal.

/** `text` (any value) as a string of at most `max` characters, the cut marked `…`; null stays null. */
export function clip(text, max) {
  if (text === undefined || text === null) return null;
  const s = typeof text === "string" ? text : String(text);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/**
 * One line of text an agent controlled, safe for a terminal: escape sequences removed, other
 * control characters turned into spaces, clipped to `max` characters.
 */
export function oneLine(text, max = 160) {
  // Control characters are exactly what must go (escape sequences first, then the rest).
  // eslint-disable-next-line no-control-regex
  const s = String(text ?? "").replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, "").replace(/[\x00-\x1f\x7f-\x9f]/g, " ");
  return clip(s, max);
}

/**
 * A prefix of `text` whose UTF-8 form holds at least its first `bytes` + 1 bytes (or the
 * whole text), never ending inside a surrogate pair: what must cross for a check that reads
 * only the first `bytes` (the router's scan window). Cheap: no encoding.
 */
export function crossingPrefix(text, bytes) {
  const n = bytes + 2; // one UTF-16 unit is at least one UTF-8 byte
  if (text.length <= n) return text;
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}
