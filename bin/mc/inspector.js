// The inspector of one agent row (docs/mission-control.md, part 2, `inspect`): its recent
// calls with NSO's verdicts, the delegated task it works on and that task's status, where it
// sits in the session tree, its claims, its T0 transcript and handoff (the project's
// continuity folder, plugin/continuity/) and the command that attaches a terminal to it.
// Files are read bounded and only from the row's project; a missing one is null.
import path from "node:path";
import { safeName } from "../../plugin/continuity/lane.js";
import { clip, field } from "./agents.js";
import { readHead } from "./feeds.js";

/** Calls listed by the inspector (the newest). */
export const MAX_CALLS = 100;
/** Lines of the transcript shown. */
export const TRANSCRIPT_LINES = 200;
const TRANSCRIPT_BYTES = 512 * 1024;
const TEXT_BYTES = 256 * 1024;
const CONFIG_BYTES = 1 << 20;
const TASKS_DIR = ".opencode/context/active_tasks";
const DEFAULT_CONTINUITY_DIR = ".opencode/nso";
/** A task folder named in a call's target: `.opencode/context/active_tasks/<id>/...`. */
const TASK_IN_TARGET = /(?:^|[/\s"'=])\.opencode\/context\/active_tasks\/([A-Za-z0-9][A-Za-z0-9._-]{0,127})(?=[/\s"']|$)/;

/**
 * The call records of `session` in `feed` (pure), oldest first, the newest `limit`: each
 * `{ t, phase, callID, tool, agent, verdict, rule, target, message }` (fields typed and
 * clipped; a record without a time has the time of the record before it).
 */
export function sessionCalls(feed, session, limit = MAX_CALLS) {
  const calls = [];
  let t = null;
  for (const r of Array.isArray(feed?.records) ? feed.records : []) {
    if (!r || typeof r !== "object") continue;
    t = typeof r.t === "number" && Number.isFinite(r.t) ? r.t : t;
    if (r.kind !== "call" || r.session !== session) continue;
    calls.push({
      t, phase: field(r.phase, "phase"), callID: field(r.callID, "callID"), tool: field(r.tool, "tool"), agent: field(r.agent, "agent"),
      verdict: field(r.verdict, "verdict"), rule: field(r.rule, "rule"), target: field(r.target, "target"), message: field(r.message, "message"),
    });
    if (calls.length > limit) calls.shift();
  }
  return calls;
}

/** The newest call NSO objected to (`block`, `soft` or `warn`), or null (pure). */
export function lastObjection(calls) {
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i];
    if (c.phase === "start" && ["block", "soft", "warn"].includes(c.verdict)) {
      return { tool: c.tool, verdict: c.verdict, rule: c.rule, message: c.message, target: c.target, t: c.t };
    }
  }
  return null;
}

/** The delegated task folder the newest call target names (`active_tasks/<id>/`), or null (pure). */
export function contractTaskId(calls) {
  for (let i = calls.length - 1; i >= 0; i--) {
    const id = TASK_IN_TARGET.exec(calls[i].target ?? "")?.[1];
    if (id) return id;
  }
  return null;
}

/** The status a contract's status.md gives (`**Status**: [IN_PROGRESS]`), or null (pure). */
export function contractStatus(text) {
  return /\*\*Status\*\*:\s*\[?([A-Z_]+)\]?/.exec(String(text ?? ""))?.[1] ?? null;
}

const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;
/** `text` as one shell word: itself when it is plain, else single-quoted. */
export const shellWord = (text) => (SHELL_SAFE.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`);

/** `opencode attach <serverUrl> --session <id>` for an http(s) server, else null (pure). */
export function attachCommand(serverUrl, session) {
  if (typeof serverUrl !== "string" || !/^https?:\/\/[^\s]+$/.test(serverUrl) || typeof session !== "string" || !session) return null;
  return `opencode attach ${shellWord(serverUrl)} --session ${shellWord(session)}`;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Whether OpenCode's server at `serverUrl` answers for `session` now, so that `opencode
 * attach` can reach it: `opencode run` names a URL where nothing listens. Only loopback
 * addresses are asked (a feed's URL is data, not a place to send requests).
 */
export async function serverAnswers(serverUrl, session, timeoutMs = 1500) {
  let url;
  try {
    url = new URL(`session/${encodeURIComponent(session)}`, String(serverUrl).replace(/\/?$/, "/"));
  } catch {
    return false;
  }
  if (!/^https?:$/.test(url.protocol) || !LOOPBACK.has(url.hostname)) return false;
  try {
    const reply = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
    await reply.body?.cancel();
    return reply.ok;
  } catch {
    return false;
  }
}

/** The continuity folder of the project at `root`: `continuity.dir` of its nso.json, else .opencode/nso. */
export function continuityDir(root) {
  let dir = DEFAULT_CONTINUITY_DIR;
  try {
    const configured = JSON.parse(readHead(path.join(root, ".opencode/nso.json"), CONFIG_BYTES) ?? "null")?.continuity?.dir;
    if (typeof configured === "string" && configured) dir = configured;
  } catch {
    // a broken nso.json: the default folder (nso check names the problem)
  }
  return path.resolve(root, dir);
}

/** The T0 transcript of `session` (its first {@link TRANSCRIPT_LINES} lines), or null. */
function transcriptOf(dir, session) {
  const file = path.join(dir, "transcripts", `${safeName(session)}.t0.md`);
  const text = readHead(file, TRANSCRIPT_BYTES);
  return text === null ? null : { path: file, text: text.split("\n").slice(0, TRANSCRIPT_LINES).join("\n") };
}

/** The handoff kept for `session`, else the project's latest when it is that session's, or null. */
function handoffOf(dir, session) {
  const folder = path.join(dir, "handoffs");
  const own = readHead(path.join(folder, `${session.replace(/[^A-Za-z0-9_-]/g, "_")}.md`), TEXT_BYTES);
  if (own !== null) return own;
  try {
    if (JSON.parse(readHead(path.join(folder, "latest.json"), TEXT_BYTES) ?? "null")?.session === session) {
      return readHead(path.join(folder, "latest.md"), TEXT_BYTES);
    }
  } catch {
    // no readable latest.json: no handoff
  }
  return null;
}

/** A row as the tree shows it. */
const treeNode = (row) => ({ key: row.key, session: row.session, agent: row.agent, state: row.state, task: row.task });

/**
 * The inspector of row `key` of `snapshot` (see the contract), from `feeds` (the same the
 * snapshot was built from); null when there is no such row. Reads the project's files.
 * Besides the contract's fields, `conductor` is the Conductor's instance the row's claims
 * belong to (an entry of the snapshot's `registry`), or null.
 */
export function inspectRow({ feeds, snapshot, key }) {
  const row = snapshot?.agents?.find((r) => r.key === key);
  if (!row) return null;
  const feed = (Array.isArray(feeds) ? feeds : []).find((f) => f?.key === row.instance);
  const instance = snapshot.instances?.find((i) => i.key === row.instance);
  const calls = sessionCalls(feed, row.session);
  const root = typeof row.root === "string" && path.isAbsolute(row.root) ? row.root : null;
  const taskId = contractTaskId(calls);
  let contract = null;
  if (taskId) {
    const file = root ? path.join(root, TASKS_DIR, taskId, "status.md") : null;
    contract = { taskId, status: file ? contractStatus(readHead(file, TEXT_BYTES)) : null, path: file };
  }
  const parent = row.parent ? snapshot.agents.find((r) => r.instance === row.instance && r.session === row.parent) : null;
  const dir = root ? continuityDir(root) : null;
  return {
    row,
    calls,
    lastError: lastObjection(calls),
    contract,
    tree: {
      parent: row.parent ? (parent ? treeNode(parent) : { key: null, session: clip(row.parent, 200), agent: null, state: null, task: null }) : null,
      children: snapshot.agents.filter((r) => r.instance === row.instance && r.parent === row.session).map(treeNode),
    },
    claims: row.claims,
    conductor: snapshot.registry?.find((r) => r.id === row.conductorId) ?? null,
    transcript: dir ? transcriptOf(dir, row.session) : null,
    handoff: dir ? handoffOf(dir, row.session) : null,
    attach: attachCommand(instance?.serverUrl, row.session),
  };
}
