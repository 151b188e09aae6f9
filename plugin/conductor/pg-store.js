// The Conductor's claims in PostgreSQL, for agents on several machines. Instances and claims
// are rows (pg-schema.js); an operation reads the rows it can concern, the same core as for
// files (conductorApply) decides on them (pg-rows.js says why its answer is the one it gives
// on the whole state), and only what changed is written back, all or nothing.
//
// Two round trips per operation, with its locks held between them:
//   1. one statement takes the locks and reads (nso_conductor_read);
//   2. one CALL writes, COMMITs and releases the locks, in that order (nso_conductor_write).
// The locks are session advisory locks: they outlive the first statement's transaction, so no
// BEGIN is needed (a BEGIN in the same message as the read would need the values escaped into
// the SQL text; every value here is a parameter). Operations that could meet wait for each
// other; the rest run side by side:
//   - an operation locks its instance, and a claim the literal heads of its patterns
//     (exclusive) and the folders above them (shared). Two claims can only meet when one's
//     head is the other's or a folder above it (pg-rows.js), and then their locks collide:
//     two intersecting claims from two machines never both win;
//   - those locks are taken under the namespace's lock held shared, in one order, so two
//     operations never wait for each other in a cycle;
//   - a decision that reaches past its locks (a dead instance removed, a claim forced from
//     another, the limit on claims in all, a drift warning) is dropped unwritten and made
//     again with the namespace's lock exclusive, as is cleanup (status reads a snapshot
//     without locks).
// An optimistic read with a conditional write would retry under contention, and a claim's
// cost would then grow with the clients racing for it. A client killed in the middle loses
// its session: the server rolls back what it had not committed and frees its locks.
//
// The clock is the database's (clock_timestamp()), so heartbeats of machines with skewed
// clocks are compared on one clock. Claims inside the project are stored relative to a
// shared name of the repository (`/@repo/<name>/...`): each machine's checkout sits at its
// own path, and the same file must be the same claim on all of them.
import os from "node:os";
import { loadCore } from "../core-loader.js";
import { apply, buildRequest, DEFAULT_TTL_SECONDS, isoSeconds, random6 } from "./store.js";
import { createPool, describeTarget, storeError } from "./pg-connection.js";
import { migrate, OVER_LIMIT, tables } from "./pg-schema.js";
import { changes, confined, lockNames, partialState, selection } from "./pg-rows.js";
import { escapeGlob } from "./paths.js";

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
  // A client that vanished holding the namespace's lock loses its session after this long.
  const idleLimit = `${Math.max(2 * (settings.timeoutMs ?? 5_000), 10_000)}ms`;
  let pool = null;
  let migrated = null;
  let known = { revision: null, checkedAt: 0, polling: null };

  const getPool = () => (pool ??= createPool(settings, env));

  /**
   * A pooled client on a migrated database; a failed migration is tried again next time.
   * (Its connection's errors are never thrown: see createPool.)
   */
  async function connect(core) {
    const client = await getPool().connect();
    try {
      migrated ??= migrate(client, { schema: settings.schema ?? "public", namespace, core }).catch((error) => {
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

  /**
   * Runs `fn(client)` on a connection; a connection that failed is not reused (closing it
   * also frees a lock it held).
   */
  async function withClient(fn, core = loadCore()) {
    let client;
    try {
      client = await connect(core);
    } catch (error) {
      throw storeError(error, target);
    }
    let broken = false;
    try {
      return await fn(client);
    } catch (error) {
      broken = true;
      throw error.code === "conductor_core" ? error : storeError(error, target);
    } finally {
      client.release(broken);
    }
  }

  /**
   * Round trip 1: the rows `sel` names (see nso_conductor_read), after the locks of `lock`:
   * "none", "namespace" (the namespace alone) or "fine" (the namespace shared, then each
   * instance and head of `sel.locks`: exclusive, and the folders above the heads: shared).
   */
  async function read(client, sel, { lock, host, now, ttlSeconds }) {
    const names = lockNames(lock === "fine" ? sel.locks : { instances: [], heads: [], above: [] });
    const { rows } = await client.query(`SELECT * FROM ${t.read}(${Array.from({ length: 14 }, (_, i) => `$${i + 1}`).join(", ")})`,
      [namespace, lock, names.exclusive, names.shared, sel.all, sel.exact, sel.from, sel.to, sel.ids, sel.own, host, now ?? null, ttlSeconds, idleLimit]);
    return rows[0];
  }

  /**
   * Round trip 2: the changes and log lines (see nso_conductor_write); with `commit`, the
   * COMMIT and the locks' release too. `fine`: the operation ran under finer locks (`max`, the
   * limit on claims in all, is then checked after the write: OVER_LIMIT is raised past it).
   * Returns the revision the lines were written under.
   */
  async function write(client, { diff, revision, history, conflicts, commit, fine = false, max = null }) {
    const d = diff ?? { meta: null, gone: [], added: [], set: [], drop: [], add: [] };
    const cols = (list) => [list.map((r) => r.id), list.map((r) => r.doc), list.map((r) => r.host), list.map((r) => r.pid), list.map((r) => r.beat)];
    const { rows } = await client.query(`CALL ${t.write}(${Array.from({ length: 25 }, (_, i) => `$${i + 1}`).join(", ")})`, [
      namespace, diff !== null, d.meta, d.gone, ...cols(d.added), ...cols(d.set),
      d.drop.map((c) => c[0]), d.drop.map((c) => c[1]), d.add.map((c) => c[0]), d.add.map((c) => c[1]), d.add.map((c) => c[2]),
      history, conflicts, commit, fine, max, revision,
    ]);
    return Number(rows[0].p_revision);
  }

  /**
   * Instance rows (or the namespace's own state) the core cannot read: each is kept in the
   * corrupt table and removed with its claims, so no unreadable row blocks the namespace.
   * Returns the rows to go on with and the notice.
   */
  async function recover(client, core, row, readRows, request, problem) {
    const alone = (state) => apply(core, buildRequest({ ...request, state: JSON.stringify({ version: "2.0", instances: [], ...state }), op: { operation: "status" } }));
    const claims = (id) => (row.claims ?? []).filter(([instance]) => instance === id).map(([, p]) => p);
    const bad = (row.instances ?? []).filter(([id, doc]) => readRows.bad.includes(id) || alone({ instances: [{ ...JSON.parse(doc), files_claimed: claims(id) }] }).error?.code === "state_corrupt");
    let metaBad = readRows.bad.includes(null);
    if (!metaBad && row.meta) metaBad = alone(JSON.parse(row.meta)).error?.code === "state_corrupt";
    const kept = [...bad.map(([id, doc]) => JSON.stringify({ instance: id, doc, claims: claims(id) })), ...(metaBad ? [row.meta] : [])];
    const ids = [];
    for (const text of kept) {
      const { rows } = await client.query(`INSERT INTO ${t.corrupt} (namespace, state, problem) VALUES ($1, $2, $3) RETURNING id`, [namespace, text, problem]);
      ids.push(rows[0].id);
    }
    const gone = bad.map(([id]) => id);
    const rest = partialState({ ...row, instances: (row.instances ?? []).filter(([id]) => !gone.includes(id)), meta: metaBad ? null : row.meta });
    const corrupt = `${t.corrupt} id ${ids.join(", ")}`;
    const what = [gone.length ? `instance(s) ${gone.join(", ")} (removed with their claims)` : null, metaBad ? "the drift warnings (cleared)" : null].filter(Boolean).join(" and ");
    const message = `the conductor state in ${target} could not be read (${problem}): ${what || "nothing could be singled out"}; kept in ${corrupt}. ` +
      "Every instance should check `nso conductor status` and claim again what it needs.";
    return { rows: rest, gone, notice: { code: "state_recovered", corrupt, restored_from: null, problem, message } };
  }

  /**
   * One operation (see store.js's runConductor for the parameters and the answer). `now`
   * defaults to the database's clock. `insideLock(answer, client)` runs inside the
   * transaction after the writes, before COMMIT (tests record events atomically with it);
   * it costs a BEGIN and a COMMIT of its own.
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
      const stage = { committing: false };
      try {
        return await withClient(async (client) => {
          connected = true;
          const answer = await decide(client, { localOp: op, sharedOp, now, random, host, ttlSeconds, errorLog, core, insideLock, stage });
          known = { ...known, revision: answer.version, checkedAt: Date.now() };
          return answer;
        }, core);
      } catch (error) {
        if (!connected || stage.committing || attempt >= 1 || error.kind !== "unreachable") throw error;
      }
    }
  }

  /**
   * The two round trips: the locked read, the core's decision, the write that commits and
   * unlocks. First with the locks of what the operation may change (beside other operations);
   * when its decision reaches past them, again with the namespace to itself.
   */
  async function decide(client, args) {
    const sel = selection(args.core, args.sharedOp, args.random);
    if (sel.locks) {
      const answer = await attempt(client, sel, "fine", args);
      if (answer) return answer;
    }
    return attempt(client, sel, "namespace", args);
  }

  /**
   * One try of an operation under `lock` ("fine": the locks `sel.locks` names, the namespace
   * shared; "namespace": the namespace alone). A fine try whose decision is not confined to its
   * locks writes nothing, unlocks and returns null.
   */
  async function attempt(client, sel, lock, { localOp, sharedOp, now, random, host, ttlSeconds, errorLog, core, insideLock, stage }) {
    const fine = lock === "fine";
    const how = { host, now, ttlSeconds };
    const unlock = () => client.query(`CALL ${t.unlock}($1)`, [namespace]);
    /** This try ends unwritten: its locks go, and the caller decides again exclusive. */
    const giveUp = async () => {
      await unlock();
      return null;
    };
    let row = await read(client, sel, { ...how, lock });
    // Near the limit on claims in all, the whole state decides (the core counts them).
    if (sel.maxClaims && Number(row.claim_count) + sel.patterns > sel.maxClaims) {
      if (fine) return giveUp();
      row = await read(client, { ...sel, all: true }, { ...how, lock: "none" });
    }
    let rows = partialState(row);
    const request = { now: now ?? isoSeconds(row.now), random, host, ttlSeconds, op: sharedOp, sprint: row.sprint ?? null };
    let response = rows.bad.length
      ? { error: { code: "state_corrupt", message: "a stored instance or the namespace's state is not JSON" } }
      : apply(core, buildRequest({ ...request, state: rows.text }));
    if (fine && response.error?.code === "state_corrupt") return giveUp();
    if (response.error?.code === "bad_request" && localOp !== sharedOp) {
      // The core quotes (and clips) the pattern it refused: asked again with the user's own
      // text, on no state, it names the user's path (a pattern error depends on nothing else).
      const local = apply(core, buildRequest({ ...request, op: localOp, state: null, sprint: null }));
      if (local.error?.code === "bad_request") response = { ...response, error: local.error, result: local.result };
    }
    let recovered = null;
    let gone = [];
    if (response.error?.code === "state_corrupt") {
      const found = await recover(client, core, row, rows, request, response.error.message);
      ({ rows, gone, notice: recovered } = found);
      errorLog?.(recovered);
      response = apply(core, buildRequest({ ...request, state: rows.text }));
    }
    const changed = !response.error && typeof response.state === "string";
    // After a recovery the unreadable rows go whatever the operation did.
    let diff = changed ? changes(core, rows, response.state) : null;
    if (fine && !confined(diff, sel.locks, rows.meta)) return giveUp();
    if (recovered) {
      diff ??= { meta: rows.meta ?? "{}", gone: [], added: [], set: [], drop: [], add: [] };
      diff.gone.push(...gone);
    }
    const history = response.error ? [] : response.history ?? [];
    const conflicts = response.error ? [] : response.conflicts ?? [];
    const result = paths.toLocal(recovered ? { ...response.result, recovered } : response.result ?? null);
    const answer = { result, error: response.error ?? null, recovered, changed: diff !== null, version: Number(row.revision) };
    const writing = diff !== null || history.length > 0 || conflicts.length > 0;
    const written = { diff, revision: answer.version, history, conflicts, fine, max: sel.maxClaims ?? null };
    try {
      if (insideLock) {
        await client.query("BEGIN");
        if (writing) answer.version = await write(client, { ...written, commit: false });
        await insideLock(answer, client);
        stage.committing = true; // from here the operation may have been applied: never retried
        await client.query("COMMIT");
        await unlock();
      } else if (writing) {
        stage.committing = true;
        answer.version = await write(client, { ...written, commit: true });
      } else {
        await unlock();
      }
    } catch (error) {
      if (error.code !== OVER_LIMIT) throw error;
      // Claims made beside this one took the namespace to its limit: nothing was written.
      stage.committing = false;
      if (insideLock) await client.query("ROLLBACK");
      return giveUp();
    }
    return answer;
  }

  /** `status` without the lock: one statement reads a consistent snapshot. Null: use the locked path. */
  async function readOnly({ op, now, random, host, ttlSeconds, core }) {
    return withClient(async (client) => {
      const row = await read(client, selection(core, op, random), { lock: "none", host, now, ttlSeconds });
      const rows = partialState(row);
      if (rows.bad.length) return null;
      const response = apply(core, buildRequest({ state: rows.text, sprint: row.sprint, now: now ?? isoSeconds(row.now), random, host, ttlSeconds, op }));
      if (response.error?.code === "state_corrupt") return null;
      known = { ...known, revision: Number(row.revision), checkedAt: Date.now() };
      return { result: paths.toLocal(response.result), error: response.error ?? null, recovered: null, changed: false, version: Number(row.revision) };
    }, core);
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
