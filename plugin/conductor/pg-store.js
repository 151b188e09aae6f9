// The Conductor's claims in PostgreSQL, for agents on several machines. One operation is one
// transaction: the namespace's state row is locked (SELECT ... FOR UPDATE: the database, not
// the client, serialises operations, so two intersecting claims from two machines are decided
// one after the other), liveness facts are gathered (this host's instances by pid, others by
// heartbeat age), the same core as for files (conductorApply) decides, and the new state,
// history and conflict lines are written, all or nothing, at COMMIT. A client killed in the
// middle leaves nothing: the server rolls its transaction back and frees the row.
//
// The clock is the database's (clock_timestamp()), so heartbeats of machines with skewed
// clocks are compared on one clock. Claims inside the project are stored relative to a
// shared name of the repository (`/@repo/<name>/...`): each machine's checkout sits at its
// own path, and the same file must be the same claim on all of them.
import os from "node:os";
import { loadCore } from "../core-loader.js";
import { apply, buildRequest, DEFAULT_TTL_SECONDS, isoSeconds, random6 } from "./store.js";
import { createPool, describeTarget, escapeLiteral, migrate, storeError, tables } from "./pg-connection.js";
import { escapeGlob } from "./paths.js";
import { conductorError } from "./lock.js";

/** How long a cached state revision is trusted before a background check (see `version`). */
const VERSION_POLL_MS = 1_000;
/** Fields whose values are paths, not patterns (mapped back unescaped). */
const PATH_KEYS = new Set(["project_root", "working_directory", "example"]);

/**
 * The translation between this machine's project root and the repository's shared name:
 * `toShared` on the way into the store, `toLocal` on the way out. Identity without a root.
 */
export function pathMapping(root, repository) {
  if (!root || !repository) return { toShared: (v) => v, toLocal: (v) => v };
  const shared = `/@repo/${repository}`;
  const swap = (text, from, to) => (text === from ? to : text.startsWith(`${from}/`) ? to + text.slice(from.length) : text);
  const walk = (value, fn, key) => {
    if (typeof value === "string") return fn(value, key);
    if (Array.isArray(value)) return value.map((v) => walk(v, fn, key));
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [key === "global_claims" ? fn(k, k) : k, walk(v, fn, k)]));
    }
    return value;
  };
  const pattern = escapeGlob(root);
  return {
    toShared: (op) => walk(op, (text, key) => (PATH_KEYS.has(key) ? swap(text, root, shared) : swap(text, pattern, shared))),
    // Messages quote patterns mid-text: every occurrence is replaced there.
    toLocal: (result) => walk(result, (text, key) => (PATH_KEYS.has(key) ? swap(text, shared, root)
      : text.includes(shared) ? swap(text, shared, pattern).replaceAll(`${shared}/`, `${pattern}/`) : text)),
  };
}

const ROW_GONE = Symbol("row gone");

/**
 * A PostgreSQL store for `settings` (`conductor.store` of the config: url/host/..., schema,
 * namespace, repository, timeouts). `root`: this project's root (for the shared paths).
 * Returns the store interface of stores.js: `run`, `readLog`, `writeSprint`, `version`,
 * `close`. Connection and migration happen at the first operation, and again after a failure.
 */
export function createPgStore(settings, { root, env = process.env } = {}) {
  const namespace = settings.namespace ?? "default";
  const t = tables(settings.schema ?? "public");
  const target = `${describeTarget(settings, env)} (namespace ${namespace})`;
  const repository = settings.repository ?? (root ? root.split("/").filter(Boolean).pop() : undefined);
  const paths = pathMapping(root, repository);
  let pool = null;
  let migrated = null;
  let known = { revision: null, checkedAt: 0, polling: null };

  const getPool = () => (pool ??= createPool(settings, env));

  /**
   * A pooled client on a migrated database; a failed migration is tried again next time.
   * (Its connection's errors are never thrown: see createPool.)
   */
  async function connect() {
    const client = await getPool().connect();
    try {
      migrated ??= migrate(client, { schema: settings.schema ?? "public", namespace }).catch((error) => {
        migrated = null;
        throw error;
      });
      await migrated;
      return client;
    } catch (error) {
      client.release(true);
      throw error;
    }
  }

  /** Runs `fn(client)` on a connection; a connection that failed is not reused. */
  async function withClient(fn) {
    let client;
    try {
      client = await connect();
    } catch (error) {
      throw storeError(error, target);
    }
    let broken = false;
    try {
      return await fn(client);
    } catch (error) {
      broken = true;
      throw error.code === "conductor_core" || error === ROW_GONE ? error : storeError(error, target);
    } finally {
      client.release(broken);
    }
  }

  /**
   * BEGIN and the locked state row with the sprint and the database's time, in one round trip
   * (the simple protocol carries several statements; the namespace, a short configured name,
   * is the only literal). The state before the last change (last_good) is not read: only a
   * recovery needs it. The row is inserted again if someone deleted it. The time is read when
   * the row is: after a lock wait it may be up to that wait early, so an expiry can come that
   * much later, never earlier.
   */
  async function lockRow(client) {
    const ns = escapeLiteral(namespace);
    const select = `SELECT s.state, s.revision, (SELECT sprint FROM ${t.sprint} WHERE namespace = ${ns}) AS sprint,
      clock_timestamp() AS now FROM ${t.state} s WHERE s.namespace = ${ns} FOR UPDATE OF s`;
    let rows = (await client.query(`BEGIN; ${select}`))[1].rows;
    if (!rows.length) {
      await client.query(`INSERT INTO ${t.state} (namespace) VALUES ($1) ON CONFLICT DO NOTHING`, [namespace]);
      rows = (await client.query(select)).rows;
    }
    if (!rows.length) throw ROW_GONE;
    return rows[0];
  }

  /**
   * The new state (null: unchanged) and the log lines, in one statement whose values are
   * parameters (the state is sent as it is, never escaped into the SQL text). Returns the
   * revision the lines were written under. The caller commits.
   */
  async function write(client, { written, recovered, revision, history, conflicts }) {
    const { rows } = await client.query(`WITH u AS (
        UPDATE ${t.state} SET last_good = CASE WHEN $2::boolean THEN last_good ELSE state END, state = $3,
          revision = revision + 1, updated_at = now() WHERE namespace = $1 AND $4::boolean RETURNING revision),
      r AS (SELECT coalesce((SELECT revision FROM u), $5::bigint) AS revision),
      h AS (INSERT INTO ${t.history} (namespace, line, revision) SELECT $1, unnest($6::text[]), (SELECT revision FROM r)),
      c AS (INSERT INTO ${t.conflicts} (namespace, line, revision) SELECT $1, unnest($7::text[]), (SELECT revision FROM r))
      SELECT revision FROM r`, [namespace, recovered, written || null, written !== null, revision, history, conflicts]);
    return Number(rows[0].revision);
  }

  /** The corrupt state is kept (never deleted), last_good restored if the core accepts it. */
  async function recover(client, core, row, request, problem) {
    const { rows } = await client.query(`INSERT INTO ${t.corrupt} (namespace, state, problem) VALUES ($1, $2, $3) RETURNING id`,
      [namespace, row.state, problem]);
    let text = (await client.query(`SELECT last_good FROM ${t.state} WHERE namespace = $1`, [namespace])).rows[0]?.last_good ?? null;
    if (typeof text === "string" && apply(core, buildRequest({ ...request, state: text, op: { operation: "status" } })).error?.code === "state_corrupt") text = null;
    const corrupt = `${t.corrupt} id ${rows[0].id}`;
    const message = `the conductor state in ${target} could not be read (${problem}); it was kept in ${corrupt} and ` + (text
      ? "the last good state was restored: the last change before the damage may be missing. Every instance should check `nso conductor status` and claim again what it needs."
      : "the conductor starts from an empty state: every claim is released. Every instance should start and claim again.");
    return { text: typeof text === "string" ? text : null, notice: { code: "state_recovered", corrupt, restored_from: text ? "last_good" : null, problem, message } };
  }

  /**
   * One operation (see store.js's runConductor for the parameters and the answer). `now`
   * defaults to the database's clock. `insideLock(answer, client)` runs inside the
   * transaction after the writes, before COMMIT (tests record events atomically with it).
   */
  async function run({ op, now, random = random6(), host = os.hostname(), ttlSeconds = DEFAULT_TTL_SECONDS, errorLog, core = loadCore(), insideLock } = {}) {
    const sharedOp = paths.toShared(op);
    if (op?.operation === "status" && !insideLock) {
      const answer = await readOnly({ op: sharedOp, now, random, host, ttlSeconds, core });
      if (answer) return answer;
    }
    // A pooled connection that broke before COMMIT was sent (a server restart) changed
    // nothing: the operation is tried once more on a fresh one.
    for (let attempt = 0; ; attempt++) {
      let connected = false;
      let committing = false;
      try {
        return await withClient(async (client) => {
          connected = true;
          try {
            const answer = await decide(client, { localOp: op, sharedOp, now, random, host, ttlSeconds, errorLog, core });
            await insideLock?.(answer, client);
            committing = true; // from here the operation may have been applied: never retried
            await client.query("COMMIT");
            known = { ...known, revision: answer.version, checkedAt: Date.now() };
            return answer;
          } catch (error) {
            if (!committing) await client.query("ROLLBACK").catch(() => {});
            throw error;
          }
        });
      } catch (error) {
        if (error === ROW_GONE) throw conductorError("conductor_store", `${target}: the state row keeps disappearing.`, "Check that nothing deletes rows of nso_conductor_state.");
        if (!connected || committing || attempt >= 1 || error.kind !== "unreachable") throw error;
      }
    }
  }

  /**
   * Inside the transaction: the locked row, the core's decision, the writes (the caller
   * commits).
   */
  async function decide(client, { localOp, sharedOp, now, random, host, ttlSeconds, errorLog, core }) {
    const row = await lockRow(client);
    const request = { now: now ?? isoSeconds(row.now), random, host, ttlSeconds, op: sharedOp, sprint: row.sprint ?? null };
    let state = row.state;
    let response = apply(core, buildRequest({ ...request, state }));
    if (response.error?.code === "bad_request" && localOp !== sharedOp) {
      // The core quotes (and clips) the pattern it refused: asked again with the user's own
      // text, on no state, it names the user's path (a pattern error depends on nothing else).
      const local = apply(core, buildRequest({ ...request, op: localOp, state: null, sprint: null }));
      if (local.error?.code === "bad_request") response = { ...response, error: local.error, result: local.result };
    }
    let recovered = null;
    if (response.error?.code === "state_corrupt") {
      const found = await recover(client, core, row, request, response.error.message);
      recovered = found.notice;
      errorLog?.(recovered);
      state = found.text;
      response = apply(core, buildRequest({ ...request, state }));
    }
    // After a recovery the restored state is written whatever the operation did (also when
    // the core refused it): the corrupt text must not be read again.
    const written = !response.error && typeof response.state === "string" ? response.state : recovered ? (state ?? "") : null;
    const history = response.error ? [] : response.history ?? [];
    const conflicts = response.error ? [] : response.conflicts ?? [];
    let revision = Number(row.revision);
    if (written !== null || history.length || conflicts.length) {
      revision = await write(client, { written, recovered: recovered !== null, revision, history, conflicts });
    }
    const result = paths.toLocal(recovered ? { ...response.result, recovered } : response.result ?? null);
    return { result, error: response.error ?? null, recovered, changed: written !== null, version: revision };
  }

  /** `status` without the lock: a consistent snapshot is enough to report. Null: use the locked path. */
  async function readOnly({ op, now, random, host, ttlSeconds, core }) {
    return withClient(async (client) => {
      const { rows } = await client.query(`SELECT s.state, s.revision, (SELECT sprint FROM ${t.sprint} WHERE namespace = $1) AS sprint,
        clock_timestamp() AS now FROM ${t.state} s WHERE s.namespace = $1`, [namespace]);
      const row = rows[0] ?? { state: null, revision: 0, sprint: null, now: new Date() };
      const response = apply(core, buildRequest({ state: row.state, sprint: row.sprint, now: now ?? isoSeconds(row.now), random, host, ttlSeconds, op }));
      if (response.error?.code === "state_corrupt") return null;
      known = { ...known, revision: Number(row.revision), checkedAt: Date.now() };
      return { result: paths.toLocal(response.result), error: response.error ?? null, recovered: null, changed: false, version: Number(row.revision) };
    });
  }

  /** The history or conflict lines of the namespace, oldest first. */
  async function readLog(name) {
    const table = name === "history" ? t.history : t.conflicts;
    return withClient(async (client) => (await client.query(`SELECT line FROM ${table} WHERE namespace = $1 ORDER BY id`, [namespace])).rows.map((r) => r.line));
  }

  /** Sets (text) or removes (null) the sprint the priority gate reads. */
  async function writeSprint(text) {
    await withClient((client) => (text == null
      ? client.query(`DELETE FROM ${t.sprint} WHERE namespace = $1`, [namespace])
      : client.query(`INSERT INTO ${t.sprint} (namespace, sprint) VALUES ($1, $2) ON CONFLICT (namespace) DO UPDATE SET sprint = $2, updated_at = now()`, [namespace, text])));
  }

  /**
   * The state's revision as last seen, without waiting: a background check refreshes it at
   * most every second, so a tool call never waits for the database to learn of news (forced
   * claims); it learns of them a call or two later.
   */
  function version() {
    if (!known.polling && Date.now() - known.checkedAt >= VERSION_POLL_MS) {
      known.checkedAt = Date.now();
      known.polling = withClient(async (client) => {
        const { rows } = await client.query(`SELECT revision FROM ${t.state} WHERE namespace = $1`, [namespace]);
        known.revision = rows.length ? Number(rows[0].revision) : null;
      }).catch(() => {}).finally(() => {
        known.polling = null;
      });
    }
    return known.revision;
  }

  async function close() {
    const p = pool;
    pool = null;
    migrated = null;
    await p?.end().catch(() => {});
  }

  return { kind: "postgres", describe: target, shared: true, run, readLog, writeSprint, version, close };
}
