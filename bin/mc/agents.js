// The Agents table of Mission Control (pure): from the activity feeds and the Conductor's
// state, one row per plugin instance and session, with what it is doing now; and the deltas
// between two such snapshots. No file, clock or process I/O here: the reader passes the feeds,
// the time and the liveness of the processes in (bin/mc/model.js).
//
// Everything in a feed may be missing, of the wrong type, enormous or hostile: each field is
// read by type and clipped to the bound the feed's contract gives it; nothing throws. Strings
// are kept as they are (ANSI escapes included): escaping is the job of whoever shows them.
import { DEFAULT_TTL_SECONDS } from "../../plugin/conductor/store.js";
import { clip } from "../../plugin/text.js";

/** A session with a record this recent (and no `idle` after it) is working. */
export const WORKING_WINDOW_MS = 30_000;
/** Rows kept per instance: the sessions with the newest records. */
export const MAX_SESSIONS = 200;
/** A dead instance last seen longer ago than this is left out of the snapshot. */
export const FORGET_DEAD_MS = 24 * 3600_000;
/** Entries kept of the Conductor's conflicts.log and history.jsonl. */
export const LOG_TAIL = 50;
/** The states of a row, in the order the table sorts them. */
export const STATES = ["working", "blocked", "idle", "dead"];
/** Unfinished calls remembered per session (a feed that never ends its calls stays bounded). */
const MAX_OPEN_CALLS = 50;
/** Longest value kept per field, as the feed's contract clips them (others: 200). */
const BOUNDS = { message: 2000, target: 500, task: 300, title: 300, root: 4096, serverUrl: 2048 };
const KINDS = new Set(["session", "agent", "task", "call", "idle", "compacted", "deleted", "conductor"]);

export { clip };

/** The string `value` of field `name` clipped to its bound, or null when it is not a string. */
export const field = (value, name) => (typeof value === "string" ? clip(value, BOUNDS[name] ?? 200) : null);

const time = (value) => (typeof value === "number" && Number.isFinite(value) ? value : null);

/** `{host, pid}` from a feed key `<host>-<pid>-<rand6>`, or null when it has not that form. */
export function parseFeedKey(key) {
  const m = /^(.+)-(\d+)-([A-Za-z0-9]{6})$/.exec(String(key));
  return m ? { host: m[1], pid: Number(m[2]) } : null;
}

/**
 * The instance entry of `feed`: `{ key, pid, host, project, root, serverUrl, started, nso,
 * lastSeen, alive, skipped }`. `alive(pid, host)` answers true or false for a process it can
 * check (this host); for one it cannot (null or undefined: another host) the instance is
 * alive while its feed was written within `ttlMs`.
 */
export function instanceOf(feed, { now, alive, ttlMs = DEFAULT_TTL_SECONDS * 1000 }) {
  const rec = feed.instance && typeof feed.instance === "object" ? feed.instance : {};
  const fromKey = parseFeedKey(feed.key) ?? {};
  const pid = Number.isInteger(rec.pid) && rec.pid > 0 ? rec.pid : fromKey.pid ?? null;
  const host = field(rec.host, "host") ?? fromKey.host ?? null;
  const root = field(rec.root, "root");
  // The newest record's time; the file's mtime only when no record tells a time.
  let lastSeen = null;
  for (const r of records(feed)) {
    const t = time(r.t);
    if (t !== null && (lastSeen === null || t > lastSeen)) lastSeen = t;
  }
  lastSeen ??= time(feed.mtimeMs) || null;
  let answer = null;
  try {
    answer = alive?.(pid, host);
  } catch {
    answer = null;
  }
  const isAlive = typeof answer === "boolean" ? answer : lastSeen !== null && now - lastSeen <= ttlMs;
  return {
    key: feed.key, pid, host,
    project: field(rec.project, "project") ?? (root ? root.split("/").filter(Boolean).pop() ?? null : null),
    root, serverUrl: field(rec.serverUrl, "serverUrl"), started: time(rec.started), nso: field(rec.nso, "nso"),
    lastSeen, alive: isAlive, skipped: Number.isInteger(feed.skipped) ? feed.skipped : 0,
  };
}

const records = (feed) => (Array.isArray(feed.records) ? feed.records.filter((r) => r && typeof r === "object") : []);

/**
 * What the feed says of each session (in feed order): `Map(session -> facts)`, sessions
 * deleted since left out. Facts: first and last record time, parent, agent, title, task,
 * unfinished calls, last refusal, and the positions of the last activity, idle and block.
 */
export function sessionFacts(feed) {
  const sessions = new Map();
  let t = null;
  let index = 0;
  for (const r of records(feed)) {
    index++;
    t = time(r.t) ?? t;
    const id = typeof r.session === "string" && r.session ? clip(r.session, 200) : null;
    if (!id || !KINDS.has(r.kind)) continue;
    if (r.kind === "deleted") {
      sessions.delete(id);
      continue;
    }
    let s = sessions.get(id);
    if (!s) {
      s = { id, first: t, last: t, lastActivityT: t, parent: null, agent: null, title: null, task: null, open: new Map(),
        lastRefusal: null, storeProblem: null, activityAt: 0, idleAt: 0, blockedAt: 0 };
      sessions.set(id, s);
    }
    s.first ??= t;
    if (t !== null && (s.last === null || t > s.last)) s.last = t;
    if (r.kind === "idle") {
      s.idleAt = index;
      s.open.clear();
      continue;
    }
    s.activityAt = index;
    s.lastActivityT = t;
    if (r.kind === "session") {
      if ("parent" in r) s.parent = field(r.parent, "parent");
      s.title = field(r.title, "title") ?? s.title;
    }
    if (r.kind === "task") s.task = field(r.task, "task") ?? s.task;
    // The window's registration with the claim store: a failure shows until one succeeds.
    if (r.kind === "conductor") s.storeProblem = r.state === "registration_failed" ? { message: field(r.message, "message"), t } : null;
    s.agent = field(r.agent, "agent") ?? s.agent;
    if (r.kind === "call") recordCall(s, r, t, index);
  }
  return sessions;
}

function recordCall(s, r, t, index) {
  const callID = field(r.callID, "callID");
  if (r.phase === "end") {
    if (callID !== null) s.open.delete(callID);
    return;
  }
  if (r.phase !== "start") return;
  const tool = field(r.tool, "tool");
  const target = field(r.target, "target");
  if (r.verdict === "block") {
    // A refused call never runs: there is no `end` to wait for.
    s.lastRefusal = { tool, rule: field(r.rule, "rule"), message: field(r.message, "message"), target, t };
    s.blockedAt = index;
    return;
  }
  s.open.delete(callID ?? `#${index}`);
  s.open.set(callID ?? `#${index}`, { tool, target, since: t });
  if (s.open.size > MAX_OPEN_CALLS) s.open.delete(s.open.keys().next().value);
}

/** The state of a session's facts `s` (see the contract) in an instance alive or not. */
export function sessionState(s, { alive, now }) {
  if (!alive) return "dead";
  if (s.open.size) return "working";
  if (s.blockedAt && s.blockedAt === s.activityAt) return "blocked";
  if (s.activityAt > s.idleAt && s.lastActivityT !== null && now - s.lastActivityT <= WORKING_WINDOW_MS) return "working";
  return "idle";
}

/**
 * The Conductor's instances of `state` (parsed status.json, or anything else: then none),
 * each `{ id, project, task, priority, agent, host, pid, claims, sessions, lastHeartbeat }`.
 */
export function registryOf(state) {
  const list = Array.isArray(state?.instances) ? state.instances : [];
  return list.filter((i) => i && typeof i === "object" && typeof i.id === "string").map((i) => ({
    id: clip(i.id, 200), project: field(i.project, "project"), task: field(i.task, "task"), priority: field(i.priority, "priority"),
    agent: field(i.agent, "agent"), host: field(i.host, "host"), pid: Number.isInteger(i.pid) ? i.pid : null,
    claims: strings(i.files_claimed, 4096), sessions: strings(i.sessions, 200),
    lastHeartbeat: field(i.last_heartbeat, "lastHeartbeat"),
  }));
}

const strings = (list, max) => (Array.isArray(list) ? list.filter((x) => typeof x === "string").map((x) => clip(x, max)) : []);

/**
 * The Conductor instance of session `s` of `instance`: the one whose `sessions` hold it (or
 * hold a parent of it: subagent sessions share their parent's instance), else the one whose
 * pid (and host) is the instance's.
 */
function conductorOf(s, facts, instance, registry) {
  const seen = new Set();
  for (let id = s.id; id && !seen.has(id) && seen.size < 20; id = facts.get(id)?.parent) {
    seen.add(id);
    const found = registry.find((r) => r.sessions.includes(id));
    if (found) return found;
  }
  if (instance.pid === null) return null;
  return registry.find((r) => r.pid === instance.pid && (!r.host || !instance.host || r.host === instance.host)) ?? null;
}

/** The rows of one feed (see the contract's `agents`), newest `MAX_SESSIONS` sessions. */
export function agentRows(feed, instance, { now, registry = [] }) {
  const facts = sessionFacts(feed);
  const newest = [...facts.values()].sort((a, b) => (b.last ?? 0) - (a.last ?? 0)).slice(0, MAX_SESSIONS);
  return newest.map((s) => {
    const held = conductorOf(s, facts, instance, registry);
    const open = [...s.open.values()];
    const state = sessionState(s, { alive: instance.alive, now });
    return {
      key: `${instance.key}/${s.id}`, instance: instance.key, project: instance.project, root: instance.root,
      session: s.id, parent: s.parent, agent: s.agent, title: s.title, task: s.task,
      priority: held?.priority ?? null, state,
      inProgress: open.length ? open[open.length - 1] : null, lastRefusal: s.lastRefusal, storeProblem: s.storeProblem,
      // A dead instance holds nothing: its claims are left over until the Conductor reaps them.
      claims: held ? [...held.claims] : [], claimsStale: state === "dead" && Boolean(held?.claims.length), conductorId: held?.id ?? null,
      age: s.first === null ? null : Math.max(0, now - s.first), started: s.first, lastSeen: s.last,
    };
  });
}

/** Orders rows by project, then state (working, blocked, idle, dead), newest first, key. */
export function compareRows(a, b) {
  return String(a.project ?? "").localeCompare(String(b.project ?? "")) ||
    STATES.indexOf(a.state) - STATES.indexOf(b.state) ||
    (b.lastSeen ?? 0) - (a.lastSeen ?? 0) ||
    (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/**
 * A conflicts.log line `ISO | KIND | text` as `{ at, t, kind, text }` (`t`: `at` in ms, or
 * null); a line of another form is `{ at: null, t: null, kind: null, text }`.
 */
export function parseConflictLine(line) {
  const text = clip(String(line), BOUNDS.message);
  const m = /^(\S+) \| ([A-Z_]+) \| (.*)$/s.exec(text);
  if (!m) return { at: null, t: null, kind: null, text };
  const t = Date.parse(m[1]);
  return { at: m[1], t: Number.isFinite(t) ? t : null, kind: m[2], text: m[3] };
}

/** A history.jsonl line as its object, or null when it is not a JSON object. */
export function parseHistoryLine(line) {
  if (line && typeof line === "object" && !Array.isArray(line)) return line;
  try {
    const value = JSON.parse(String(line));
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * The snapshot (see the contract): `{ generated, instances, agents, registry, conflicts,
 * history, problems }`. `state` is the parsed status.json (or null); `feeds` as readFeeds
 * gives them; `alive(pid, host)` as for {@link instanceOf}; `conflicts` and `history` the
 * lines of the Conductor's logs (their last {@link LOG_TAIL} are kept); `problems` what the
 * reader could not read, passed through. `registry` lists the Conductor's instances with the
 * feeds they belong to (`feeds`), so that instances registered from a shell show too.
 */
export function buildSnapshot({ state = null, feeds = [], now, alive, conflicts = [], history = [], problems = [], ttlMs, forgetDeadMs = FORGET_DEAD_MS }) {
  const registry = registryOf(state).map((r) => ({ ...r, feeds: [] }));
  const instances = [];
  const agents = [];
  for (const feed of Array.isArray(feeds) ? feeds : []) {
    if (!feed || typeof feed !== "object" || typeof feed.key !== "string") continue;
    const instance = instanceOf(feed, { now, alive, ttlMs });
    if (!instance.alive && instance.lastSeen !== null && now - instance.lastSeen > forgetDeadMs) continue;
    instances.push(instance);
    for (const row of agentRows(feed, instance, { now, registry })) {
      agents.push(row);
      const held = registry.find((r) => r.id === row.conductorId);
      if (held && !held.feeds.includes(instance.key)) held.feeds.push(instance.key);
    }
  }
  return {
    generated: now,
    instances,
    agents: agents.sort(compareRows),
    registry,
    conflicts: (Array.isArray(conflicts) ? conflicts : []).slice(-LOG_TAIL).map(parseConflictLine),
    history: (Array.isArray(history) ? history : []).slice(-LOG_TAIL).map(parseHistoryLine).filter(Boolean),
    problems: (Array.isArray(problems) ? problems : []).map(String),
  };
}

/** A row as compared between snapshots: without `age`, which changes with the clock alone. */
const comparable = (row) => JSON.stringify({ ...row, age: undefined });

/**
 * What changed from snapshot `before` (or null: nothing shown yet) to `after`: `{ generated,
 * upsert: [rows new or changed], remove: [keys gone], instances, registry, conflicts,
 * history, problems }`, each of the last five the whole new list when it changed, else null.
 * Null when nothing changed. `age` alone does not make a row change (the page adds the time
 * passed since `generated`; `started` is the session's first record).
 */
export function diffSnapshots(before, after) {
  if (!after) return null;
  const old = new Map((before?.agents ?? []).map((r) => [r.key, comparable(r)]));
  const keys = new Set((after.agents ?? []).map((r) => r.key));
  const upsert = (after.agents ?? []).filter((r) => old.get(r.key) !== comparable(r));
  const remove = [...old.keys()].filter((k) => !keys.has(k));
  const changed = (name) => (JSON.stringify(before?.[name] ?? null) === JSON.stringify(after[name] ?? null) ? null : after[name] ?? null);
  const delta = {
    generated: after.generated, upsert, remove,
    instances: changed("instances"), registry: changed("registry"), conflicts: changed("conflicts"),
    history: changed("history"), problems: changed("problems"),
  };
  const any = upsert.length || remove.length || ["instances", "registry", "conflicts", "history", "problems"].some((k) => delta[k] !== null);
  return any ? delta : null;
}
