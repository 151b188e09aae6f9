// Claims as rows, seen by a core that decides on a state text. For one operation the store
// reads only the rows it can concern (`selection`), builds from them a state the core reads
// like a whole one (`partialState`), and writes back only what the core changed (`changes`).
//
// Why the core's answer on that part equals its answer on the whole state:
// - a claim meets another only if one literal head is the other or a folder above it; the
//   rows read are exactly those heads (the core names them: conductorLookups), so every
//   claim the core would compare is there, in the same order (rows keep their order);
// - the operations that list or release an instance's claims (release, done) read all of
//   them; status and cleanup read everything;
// - the core removes dead instances and touches heartbeats from the future before it decides:
//   every instance it could remove or touch is read (heartbeat at or past the TTL, in the
//   future or unreadable, or on this host with a pid), with the caller and the holders;
// - the limit on claims in all is checked on the whole state (pg-store.js reads everything
//   when a claim could pass it).
// Instances read for a reason other than their claims carry only the claims read: an absent
// claim is one the core neither compared nor changed, and it is left as it is.
import { apply, buildRequest } from "./store.js";

/** Keys the core's status adds to each instance (the rest is the instance as stored). */
const STATUS_KEYS = ["alive", "age_minutes", "heartbeat_age_seconds", "claims"];
/** State keys kept in rows, not in the namespace's `meta`. */
const ROW_KEYS = new Set(["version", "instances", "global_claims"]);

/** `{max_claims, patterns: [{pattern, head, all, exact, from, to} | null]}` for claim patterns. */
export const lookups = (core, patterns) => JSON.parse(core.conductorLookups(JSON.stringify(patterns)));

/** The heartbeat as a time the database compares, or null when it is not one (then always read). */
const beatOf = (text) => {
  const ms = typeof text === "string" ? Date.parse(text) : NaN;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
};

/** An instance's row fields: the document (without its claims) and what the read selects by. */
function instanceRow(instance) {
  const { files_claimed: claims, ...doc } = instance;
  return {
    id: instance.id, doc: JSON.stringify(doc), claims: Array.isArray(claims) ? claims : [],
    host: typeof doc.host === "string" ? doc.host : null, pid: Number.isSafeInteger(doc.pid) ? doc.pid : null, beat: beatOf(doc.last_heartbeat),
  };
}

/** The state's other keys (drift warnings, updated_at, unknown fields) as the namespace's `meta` text. */
const metaOf = (state) => JSON.stringify(Object.fromEntries(Object.entries(state).filter(([k]) => !ROW_KEYS.has(k))));

/**
 * What an operation reads: `{all}` or the caller's ids, the instances whose claims are all
 * read (`own`), and the head look-ups of the claimed patterns (`random`: a start's). Anything the core will refuse
 * whatever the state (a malformed request) reads the least. `locks`: what the operation may
 * change when it runs beside others (see `confined`), or null when it needs the whole
 * namespace to itself.
 */
export function selection(core, op, random) {
  // PostgreSQL text cannot hold a NUL character: no row is named by one (the core refuses
  // such a pattern, and no instance id can hold one).
  const id = typeof op?.instance_id === "string" && !op.instance_id.includes("\0") ? op.instance_id : null;
  const mine = id ? [id] : [];
  const none = { all: false, exact: [], from: [], to: [], ids: mine, own: [], patterns: 0, locks: { instances: mine, heads: [], above: [] } };
  switch (op?.operation) {
    case "start": {
      // The id the start will take, if free (buildRequest draws again when it is taken).
      const ids = [`${op.source ?? "opc"}-${random}`].filter((i) => !i.includes("\0"));
      return { ...none, ids, locks: { ...none.locks, instances: ids } };
    }
    case "heartbeat":
    case "attach":
    case "notices":
      return none;
    case "release":
    case "done":
      return { ...none, own: mine };
    case "claim": {
      const files = op.files;
      if (!id || !Array.isArray(files) || files.some((f) => typeof f !== "string" || f.includes("\0"))) return none;
      const found = lookups(core, files);
      const sel = { ...none, patterns: files.length, maxClaims: found.max_claims };
      const heads = new Set();
      for (const l of found.patterns) {
        if (l === null) return none; // not absolute: refused before anything is compared
        if (l.all) return { ...sel, all: true, locks: null };
        sel.exact.push(...l.exact);
        sel.from.push(l.from);
        sel.to.push(l.to);
        heads.add(l.head);
      }
      sel.exact = [...new Set(sel.exact)];
      sel.locks = { instances: mine, heads: [...heads], above: sel.exact.filter((h) => !heads.has(h)) };
      return sel;
    }
    default: // status, cleanup, and operations the core will name as unknown
      return { ...none, all: true, locks: null };
  }
}

/**
 * The advisory lock names of `locks` (from `selection`), as nso_conductor_read takes them:
 * its instances and heads exclusive, the folders above the heads shared.
 */
export function lockNames(locks) {
  return {
    exclusive: [...locks.instances.map((id) => `instance ${id}`), ...locks.heads.map((h) => `head ${h}`)],
    shared: locks.above.map((h) => `head ${h}`),
  };
}

/** A JSON value's text with object keys sorted: two readings of one value compare equal. */
const canonical = (value) => JSON.stringify(value, (_, v) => (v && typeof v === "object" && !Array.isArray(v)
  ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));

/** The namespace's `meta` text without its `updated_at`, comparable (null when not a JSON object). */
function metaBody(text) {
  let value;
  try {
    value = JSON.parse(text ?? "{}");
  } catch {
    return null;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const body = { ...value };
  delete body.updated_at;
  return canonical(body);
}

/**
 * Whether the writes `diff` (from `changes`) stay inside `locks` (from `selection`), so the
 * operation may commit beside others that hold other locks: every instance written is one
 * it locked, every claim added has a head it locked, and the namespace's state changed only
 * in its `updated_at`. Anything else (a dead instance removed, a claim forced from another
 * instance, a drift warning) is decided again with the namespace to itself.
 */
export function confined(diff, locks, readMeta) {
  if (diff === null) return true;
  const ids = new Set(locks.instances);
  const heads = new Set(locks.heads);
  const mine = (id) => ids.has(id);
  const body = metaBody(readMeta);
  return body !== null && body === metaBody(diff.meta)
    && diff.gone.every(mine) && diff.added.every((r) => mine(r.id)) && diff.set.every((r) => mine(r.id))
    && diff.drop.every(([id]) => mine(id)) && diff.add.every(([id, , head]) => mine(id) && heads.has(head));
}

/**
 * The state text of the rows read (`row.instances`: [[id, doc]], `row.claims`: [[instance,
 * pattern]], both in order; `row.meta`), and what was read, for `changes`. `bad` lists the
 * instances whose document is not JSON at all.
 */
export function partialState(row) {
  const claims = new Map();
  for (const [instance, pattern] of row.claims ?? []) {
    if (!claims.has(instance)) claims.set(instance, []);
    claims.get(instance).push(pattern);
  }
  const before = new Map();
  const instances = [];
  const bad = [];
  for (const [id, doc] of row.instances ?? []) {
    let parsed;
    try {
      parsed = JSON.parse(doc);
    } catch {
      bad.push(id);
      continue;
    }
    const held = claims.get(id) ?? [];
    before.set(id, { doc, claims: held });
    instances.push({ ...parsed, files_claimed: held });
  }
  let meta = {};
  try {
    meta = row.meta ? JSON.parse(row.meta) : {};
  } catch {
    bad.push(null); // the namespace's own state
  }
  const state = { ...meta, version: "2.0", instances };
  return { text: JSON.stringify(state), before, meta: row.meta ?? null, bad };
}

/**
 * The writes that take the rows read (`read`, from partialState) to the core's new state text:
 * instances gone, new and changed, claims dropped and added (with their heads), and the
 * namespace's `meta`. Instances and claims that were not read are not touched.
 */
export function changes(core, read, newText) {
  const after = JSON.parse(newText);
  const out = { meta: metaOf(after), gone: [], added: [], set: [], drop: [], add: [] };
  const seen = new Set();
  for (const instance of after.instances ?? []) {
    const row = instanceRow(instance);
    seen.add(row.id);
    const old = read.before.get(row.id);
    if (!old) out.added.push(row);
    else if (old.doc !== row.doc) out.set.push(row);
    const had = new Set(old?.claims ?? []);
    const has = new Set(row.claims);
    for (const pattern of had) if (!has.has(pattern)) out.drop.push([row.id, pattern]);
    for (const pattern of row.claims) if (!had.has(pattern)) out.add.push([row.id, pattern]);
  }
  for (const id of read.before.keys()) if (!seen.has(id)) out.gone.push(id);
  const heads = out.add.length ? lookups(core, out.add.map(([, p]) => p)).patterns : [];
  out.add = out.add.map(([id, pattern], k) => [id, pattern, heads[k]?.head ?? ""]);
  return out;
}

/**
 * A version-1 state text as rows: `{meta, instances: [{id, doc, host, pid, beat, claims:
 * [{pattern, head}]}]}` as the core reads the text (claims made absolute, `global_claims`
 * merged in), or null when the core cannot read it.
 */
export function stateRows(core, text) {
  const response = apply(core, buildRequest({ state: text, sprint: null, now: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    random: "aaaaaa", host: "", ttlSeconds: 0, op: { operation: "status" } }));
  if (response.error) return null;
  const instances = response.result.instances.map((entry) => {
    const instance = Object.fromEntries(Object.entries(entry).filter(([k]) => !STATUS_KEYS.includes(k)));
    const row = instanceRow(instance);
    const heads = row.claims.length ? lookups(core, row.claims).patterns : [];
    return { ...row, claims: row.claims.map((pattern, k) => ({ pattern, head: heads[k]?.head ?? "" })) };
  });
  const raw = JSON.parse(text);
  const meta = metaOf({ ...raw, drift_warnings: response.result.drift_warnings });
  return { meta, instances };
}
