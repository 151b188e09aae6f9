// Building the page from data agents control (tasks, paths, commands, NSO's messages): text
// only. Every string reaches the page through textContent or an attribute set as a string;
// nothing is ever parsed as HTML. Control characters (ANSI escapes, NULs) are shown escaped
// (`\x1b[31m`), so a hostile string shows literally and cannot hide what follows it.

/** The token of this page (the server writes it into the page's meta tag). */
export const token = document.querySelector('meta[name="nso-mc-token"]')?.content ?? "";

/**
 * `text` with control characters written as escapes: C0 (but newline and tab), DEL and C1 as
 * `\xNN` (an ANSI colour shows as `\x1b[31m`), the invisible bidirectional marks (which
 * could show a path backwards) as `\uNNNN`.
 */
export function visible(text) {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return String(text ?? "").replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** `text` shown (see {@link visible}) and cut to `max` characters, with an ellipsis. */
export function clipped(text, max) {
  const s = visible(text);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/**
 * A new element `tag`: `props.class` (a string of class names we choose), `props.text` (any
 * string: set as textContent), `props.title`, other `props` as attributes (strings), then the
 * `children` (elements or strings, appended as text).
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = visible(value);
    else if (key === "title") node.title = visible(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === "string" ? visible(child) : child);
  }
  return node;
}

/** Removes every child of `node`. */
export const clear = (node) => node.replaceChildren();

/** `ms` as a short duration: `42s`, `5m`, `2h05`, `3d`. */
export function duration(ms) {
  if (!Number.isFinite(ms)) return "–";
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, "0")}`;
  return `${Math.floor(h / 24)}d`;
}

/** A time (ms since the epoch) as local `HH:MM:SS`, or "–". */
export function clock(t) {
  if (!Number.isFinite(t)) return "–";
  return new Date(t).toLocaleTimeString([], { hour12: false });
}

/** The classes a state may have (a state outside this list shows as `unknown`). */
const STATES = ["working", "idle", "blocked", "dead"];
export const stateClass = (state) => `state state-${STATES.includes(state) ? state : "unknown"}`;

/** The classes a verdict may have. */
const VERDICTS = ["allow", "block", "soft", "warn", "audit"];
export const verdictClass = (verdict) => `verdict verdict-${VERDICTS.includes(verdict) ? verdict : "none"}`;

/** `fetch` of the API with the token; resolves to the parsed JSON, throws with the server's message. */
export async function api(pathname, { method = "GET", body } = {}) {
  const response = await fetch(pathname, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    cache: "no-store",
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error ?? `${response.status} ${response.statusText}`);
  return data;
}
