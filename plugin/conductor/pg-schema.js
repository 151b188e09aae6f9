// The PostgreSQL claim store's schema, created and migrated by NSO itself: versioned, in one
// transaction under an advisory lock, so two processes starting at once do it once, and a
// failed upgrade leaves the database as it was.
//
// Version 2 keeps claims as rows: one row per instance, one per claim with its literal head
// (the part before the first glob character, cut at a `/`), indexed by (namespace, head) in
// byte order. A claim reads only the claims whose head is its own head, a folder above it,
// or under it (the only ones it can meet), so its cost grows with those, not with every
// claim held. Two database functions do an operation's two round trips (see pg-store.js);
// from version 3 they lock what an operation may change rather than the whole namespace.
import { conductorError } from "./lock.js";
import { stateRows } from "./pg-rows.js";

/** The schema version this NSO writes; a database at a later version is refused. */
export const SCHEMA_VERSION = 3;

/**
 * The SQLSTATE the write raises when claims made side by side would take the namespace past
 * its limit on claims in all: nothing is written, and the operation is decided again with
 * the namespace to itself.
 */
export const OVER_LIMIT = "NS001";

/** Table and function names of `schema` (quoted identifiers; the config allows `[a-z_][a-z0-9_]*` only). */
export function tables(schema = "public") {
  const q = (name) => `"${schema}"."nso_conductor_${name}"`;
  return {
    version: q("schema_version"), state: q("state"), history: q("history"), conflicts: q("conflicts"), sprint: q("sprint"),
    corrupt: q("corrupt"), instances: q("instances"), claims: q("claims"), read: q("read"), write: q("write"), unlock: q("unlock"),
  };
}

/**
 * The read of an operation, in one statement: its locks (session advisory locks, so they
 * outlive this statement's transaction; held until the write's COMMIT), then, in a fresh
 * snapshot taken after them (a VOLATILE function's statements each take one), the claims that
 * could meet the operation's patterns, the instances it needs (its own, the holders of those
 * claims, and every instance that may be dead or have a heartbeat in the future: the ones the
 * core may remove or touch), the namespace's other state and the clock. `p_lock`: 'none',
 * 'namespace' (the namespace's lock, exclusive) or 'fine' (the namespace's lock shared, then
 * the keys of `p_exclusive` and `p_shared`). A client that vanishes while holding locks loses
 * its session after `p_idle`.
 */
const readFunction = (t) => `CREATE FUNCTION ${t.read}(p_ns text, p_lock text, p_exclusive text[], p_shared text[], p_all boolean,
    p_exact text[], p_from text[], p_to text[], p_ids text[], p_own text[], p_host text, p_now timestamptz, p_ttl double precision, p_idle text)
  RETURNS TABLE (now timestamptz, revision bigint, claim_count bigint, meta text, sprint text, instances json, claims json)
  LANGUAGE plpgsql VOLATILE AS $fn$
#variable_conflict use_column
DECLARE v_now timestamptz; v_dead timestamptz; v_key bigint; v_exclusive boolean;
BEGIN
  -- Plans for the values at hand: a plan cached while the tables were small (a new store)
  -- would scan every claim once they are not. For this session, so the write's too.
  PERFORM set_config('plan_cache_mode', 'force_custom_plan', false);
  IF p_lock = 'namespace' THEN
    PERFORM pg_advisory_lock(hashtext('nso_conductor'), hashtext(p_ns));
  ELSIF p_lock = 'fine' THEN
    PERFORM pg_advisory_lock_shared(hashtext('nso_conductor'), hashtext(p_ns));
    -- In the order of the keys, each once (exclusive when asked both ways): two operations
    -- never hold one key each and wait for the other's.
    FOR v_key, v_exclusive IN
      SELECT k.key, bool_or(k.x) FROM (
        SELECT hashtextextended(p_ns || ' ' || e, 0), true FROM unnest(p_exclusive) e
        UNION ALL SELECT hashtextextended(p_ns || ' ' || s, 0), false FROM unnest(p_shared) s) k(key, x)
      GROUP BY k.key ORDER BY k.key
    LOOP
      IF v_exclusive THEN PERFORM pg_advisory_lock(v_key); ELSE PERFORM pg_advisory_lock_shared(v_key); END IF;
    END LOOP;
  ELSIF p_lock <> 'none' THEN
    RAISE EXCEPTION 'unknown lock %', p_lock;
  END IF;
  IF p_lock <> 'none' THEN
    PERFORM set_config('idle_session_timeout', p_idle, false);
  END IF;
  -- The core's clock is in whole seconds; an instance is read if it may be past the TTL or
  -- in the future by that clock (a second's margin for the TTL: reading more never hurts).
  v_now := date_trunc('second', coalesce(p_now, clock_timestamp()));
  v_dead := v_now - make_interval(secs => p_ttl) + interval '1 second';
  RETURN QUERY
  WITH c AS (
    SELECT x.instance, x.pattern, x.seq FROM ${t.claims} x WHERE p_all AND x.namespace = p_ns
    UNION
    SELECT x.instance, x.pattern, x.seq FROM ${t.claims} x WHERE x.namespace = p_ns AND x.head = ANY(p_exact)
    UNION
    SELECT x.instance, x.pattern, x.seq FROM unnest(p_from, p_to) r(lo, hi)
      JOIN ${t.claims} x ON x.namespace = p_ns AND x.head >= r.lo COLLATE "C" AND x.head < r.hi COLLATE "C"
    UNION
    SELECT x.instance, x.pattern, x.seq FROM ${t.claims} x WHERE x.namespace = p_ns AND x.instance = ANY(p_own)
  ), i AS (
    SELECT y.id, y.doc, y.seq FROM ${t.instances} y WHERE y.namespace = p_ns AND (p_all OR y.id = ANY(p_ids)
      OR y.id IN (SELECT c.instance FROM c) OR y.last_heartbeat IS NULL OR y.last_heartbeat <= v_dead
      OR y.last_heartbeat > v_now OR (y.host = p_host AND y.pid IS NOT NULL))
  )
  SELECT v_now, coalesce(s.revision, 0), coalesce(s.claim_count, 0), s.meta, (SELECT p.sprint FROM ${t.sprint} p WHERE p.namespace = p_ns),
    (SELECT json_agg(json_build_array(i.id, i.doc) ORDER BY i.seq) FROM i),
    (SELECT json_agg(json_build_array(c.instance, c.pattern) ORDER BY c.seq) FROM c)
  FROM (SELECT 1) one LEFT JOIN ${t.state} s ON s.namespace = p_ns; -- one row, also when the namespace's row is gone
END $fn$`;

/**
 * The write of an operation, in one statement: instances removed (their claims with them),
 * claims released, instances added or changed, claims added (in order), the namespace's
 * revision, counter and other state, the log lines; then, with `p_commit`, COMMIT and the
 * locks released, in that order (another operation reads only after this one is durable).
 * Without `p_commit` (a caller that runs more inside the transaction) the caller commits
 * and unlocks. `p_fine`: the operation ran under finer locks; `p_max`, the limit on claims in
 * all, is then checked on the count after the write: past it, the write raises OVER_LIMIT and
 * nothing is written. Such an operation may change the
 * namespace's state only in its `updated_at` (pg-rows.js's `confined`): that is merged, the
 * later time kept, so two operations committing side by side lose nothing of each other.
 */
const writeProcedure = (t) => `CREATE PROCEDURE ${t.write}(p_ns text, p_changed boolean, p_meta text, p_gone text[],
    p_new_ids text[], p_new_docs text[], p_new_hosts text[], p_new_pids bigint[], p_new_beats timestamptz[],
    p_set_ids text[], p_set_docs text[], p_set_hosts text[], p_set_pids bigint[], p_set_beats timestamptz[],
    p_drop_ids text[], p_drop_patterns text[], p_add_ids text[], p_add_patterns text[], p_add_heads text[],
    p_history text[], p_conflicts text[], p_commit boolean, p_fine boolean, p_max bigint, INOUT p_revision bigint)
  LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE v_removed bigint := 0; v_n bigint := 0; v_count bigint;
BEGIN
  -- Each statement runs only when it has something to do (most operations change one or
  -- two rows).
  IF p_changed THEN
    IF cardinality(p_gone) > 0 THEN
      DELETE FROM ${t.claims} x WHERE x.namespace = p_ns AND x.instance = ANY(p_gone);
      GET DIAGNOSTICS v_removed = ROW_COUNT;
      DELETE FROM ${t.instances} y WHERE y.namespace = p_ns AND y.id = ANY(p_gone);
    END IF;
    IF cardinality(p_drop_ids) > 0 THEN
      DELETE FROM ${t.claims} x USING unnest(p_drop_ids, p_drop_patterns) d(id, pattern)
        WHERE x.namespace = p_ns AND x.instance = d.id AND x.pattern = d.pattern;
      GET DIAGNOSTICS v_n = ROW_COUNT;
      v_removed := v_removed + v_n;
    END IF;
    IF cardinality(p_new_ids) > 0 THEN
      INSERT INTO ${t.instances} (namespace, id, doc, host, pid, last_heartbeat)
        SELECT p_ns, u.id, u.doc, u.host, u.pid, u.beat FROM unnest(p_new_ids, p_new_docs, p_new_hosts, p_new_pids, p_new_beats)
          WITH ORDINALITY u(id, doc, host, pid, beat, k) ORDER BY u.k;
    END IF;
    IF cardinality(p_set_ids) > 0 THEN
      UPDATE ${t.instances} y SET doc = u.doc, host = u.host, pid = u.pid, last_heartbeat = u.beat
        FROM unnest(p_set_ids, p_set_docs, p_set_hosts, p_set_pids, p_set_beats) u(id, doc, host, pid, beat)
        WHERE y.namespace = p_ns AND y.id = u.id;
    END IF;
    v_n := 0;
    IF cardinality(p_add_ids) > 0 THEN
      INSERT INTO ${t.claims} (namespace, instance, pattern, head)
        SELECT p_ns, a.id, a.pattern, a.head FROM unnest(p_add_ids, p_add_patterns, p_add_heads) WITH ORDINALITY a(id, pattern, head, k)
          ORDER BY a.k;
      GET DIAGNOSTICS v_n = ROW_COUNT;
    END IF;
    -- The namespace's row, made again if someone deleted it.
    INSERT INTO ${t.state} AS s (namespace, revision, meta, claim_count) VALUES (p_ns, coalesce(p_revision, 0) + 1, p_meta, v_n - v_removed)
      ON CONFLICT (namespace) DO UPDATE SET revision = s.revision + 1, claim_count = s.claim_count + v_n - v_removed, updated_at = now(),
        meta = CASE WHEN NOT p_fine OR s.meta IS NULL THEN p_meta ELSE (s.meta::jsonb || jsonb_build_object('updated_at',
          greatest(s.meta::jsonb ->> 'updated_at', p_meta::jsonb ->> 'updated_at')))::text END
      RETURNING s.revision, s.claim_count INTO p_revision, v_count;
    IF p_fine AND v_n > 0 AND v_count > p_max THEN
      RAISE EXCEPTION 'claims past the limit of %', p_max USING ERRCODE = '${OVER_LIMIT}';
    END IF;
  END IF;
  IF cardinality(p_history) > 0 THEN
    INSERT INTO ${t.history} (namespace, line, revision) SELECT p_ns, unnest(p_history), p_revision;
  END IF;
  IF cardinality(p_conflicts) > 0 THEN
    INSERT INTO ${t.conflicts} (namespace, line, revision) SELECT p_ns, unnest(p_conflicts), p_revision;
  END IF;
  IF p_commit THEN
    COMMIT;
    CALL ${t.unlock}(p_ns);
  END IF;
END $fn$`;

/** Releases the operation's locks (after COMMIT) and the idle limit that went with them. */
const unlockProcedure = (t) => `CREATE PROCEDURE ${t.unlock}(p_ns text) LANGUAGE plpgsql AS $fn$
BEGIN
  -- The session holds no advisory lock but an operation's (the schema's lock is a transaction's).
  PERFORM pg_advisory_unlock_all();
  PERFORM set_config('idle_session_timeout', '0', false);
END $fn$`;

/**
 * The database functions of the current version. They are not steps: each upgrade drops the
 * ones there are and creates these (a change to them comes with a new version, so databases
 * of every earlier version get it).
 */
const functions = (t) => [
  `DROP FUNCTION IF EXISTS ${t.read}`, `DROP PROCEDURE IF EXISTS ${t.write}`, `DROP PROCEDURE IF EXISTS ${t.unlock}`,
  readFunction(t), unlockProcedure(t), writeProcedure(t),
];

/**
 * The steps of each schema version's tables and data, in order. Version n's step runs when
 * the database is at n-1: a list of statements, or a function of the client that migrates
 * data. Never edit a released step: add the next version.
 */
const MIGRATIONS = [
  (t) => [
    // One row per namespace: the whole state (the core's status.json text) and the state
    // before the last change. The row lock serialises every operation of a namespace.
    `CREATE TABLE ${t.state} (namespace text PRIMARY KEY, state text, last_good text,
       revision bigint NOT NULL DEFAULT 0, updated_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE ${t.history} (id bigserial PRIMARY KEY, namespace text NOT NULL, line text NOT NULL,
       revision bigint NOT NULL, at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX ON ${t.history} (namespace, id)`,
    `CREATE TABLE ${t.conflicts} (id bigserial PRIMARY KEY, namespace text NOT NULL, line text NOT NULL,
       revision bigint NOT NULL, at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX ON ${t.conflicts} (namespace, id)`,
    `CREATE TABLE ${t.sprint} (namespace text PRIMARY KEY, sprint text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE ${t.corrupt} (id bigserial PRIMARY KEY, namespace text NOT NULL, state text, problem text NOT NULL,
       at timestamptz NOT NULL DEFAULT now())`,
  ],
  (t) => [
    // The state row keeps the namespace's revision, its claim count and the rest of its
    // state (drift warnings, unknown fields) as JSON (`meta`); instances and claims are rows.
    `ALTER TABLE ${t.state} ADD COLUMN meta text, ADD COLUMN claim_count bigint NOT NULL DEFAULT 0`,
    `CREATE TABLE ${t.instances} (namespace text NOT NULL, id text NOT NULL, seq bigserial NOT NULL, doc text NOT NULL,
       host text, pid bigint, last_heartbeat timestamptz, PRIMARY KEY (namespace, id))`,
    `CREATE INDEX ON ${t.instances} (namespace, last_heartbeat)`,
    `CREATE TABLE ${t.claims} (namespace text NOT NULL, instance text NOT NULL, pattern text NOT NULL,
       head text COLLATE "C" NOT NULL, seq bigserial NOT NULL, PRIMARY KEY (namespace, instance, pattern),
       FOREIGN KEY (namespace, instance) REFERENCES ${t.instances} (namespace, id) ON DELETE CASCADE)`,
    `CREATE INDEX ON ${t.claims} (namespace, head)`,
    // Each namespace's state text becomes rows; the text columns go.
    async (client, core) => {
      const { rows } = await client.query(`SELECT namespace, state, last_good FROM ${t.state} ORDER BY namespace`);
      for (const row of rows) await convertState(client, t, core, row);
    },
    `ALTER TABLE ${t.state} DROP COLUMN state, DROP COLUMN last_good`,
  ],
  // Version 3 changes only the functions: an operation locks what it may change, not the
  // whole namespace.
  () => [],
];

/**
 * One namespace's version-1 state text as rows. A text the core cannot read is kept in the
 * corrupt table and the state before it (last_good) used, as an operation would have.
 */
async function convertState(client, t, core, { namespace, state, last_good: lastGood }) {
  let converted = null;
  for (const text of [state, lastGood]) {
    if (typeof text !== "string") continue;
    converted = stateRows(core, text);
    if (converted) break;
    await client.query(`INSERT INTO ${t.corrupt} (namespace, state, problem) VALUES ($1, $2, $3)`,
      [namespace, text, "not readable when the claims were moved to rows (schema version 2)"]);
  }
  if (!converted) return;
  const { meta, instances } = converted;
  const beats = instances.map((i) => i.beat);
  await client.query(`INSERT INTO ${t.instances} (namespace, id, doc, host, pid, last_heartbeat)
    SELECT $1, u.id, u.doc, u.host, u.pid, u.beat FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::timestamptz[])
      WITH ORDINALITY u(id, doc, host, pid, beat, k) ORDER BY u.k`,
  [namespace, instances.map((i) => i.id), instances.map((i) => i.doc), instances.map((i) => i.host), instances.map((i) => i.pid), beats]);
  const claims = instances.flatMap((i) => i.claims.map((c) => [i.id, c.pattern, c.head]));
  await client.query(`INSERT INTO ${t.claims} (namespace, instance, pattern, head)
    SELECT $1, a.id, a.pattern, a.head FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY a(id, pattern, head, k) ORDER BY a.k`,
  [namespace, claims.map((c) => c[0]), claims.map((c) => c[1]), claims.map((c) => c[2])]);
  await client.query(`UPDATE ${t.state} SET meta = $2, claim_count = $3 WHERE namespace = $1`, [namespace, meta, claims.length]);
}

/**
 * Creates or migrates NSO's tables to SCHEMA_VERSION and makes sure `namespace` has its state
 * row. One transaction under an advisory lock: concurrent first connections wait for each
 * other and run the steps once. A database at a later version is refused. `core`: the wasm
 * core (a data step reads old states with it).
 */
export async function migrate(client, { schema = "public", namespace, core }) {
  const t = tables(schema);
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`nso_conductor_schema:${schema}`]);
    if (schema !== "public") await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${t.version} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query(`SELECT coalesce(max(version), 0) AS v FROM ${t.version}`);
    const current = Number(rows[0].v);
    if (current > SCHEMA_VERSION) {
      throw conductorError("conductor_store", `the PostgreSQL claim store's tables are at schema version ${current}, written by a newer NSO (this one knows ${SCHEMA_VERSION}).`,
        "update NSO on this machine (every machine sharing the store must run an NSO that knows its schema).");
    }
    for (let v = current + 1; v <= SCHEMA_VERSION; v++) {
      for (const step of MIGRATIONS[v - 1](t)) {
        if (typeof step === "function") await step(client, core);
        else await client.query(step);
      }
      await client.query(`INSERT INTO ${t.version} (version) VALUES ($1)`, [v]);
    }
    if (current < SCHEMA_VERSION) for (const statement of functions(t)) await client.query(statement);
    await client.query(`INSERT INTO ${t.state} (namespace) VALUES ($1) ON CONFLICT DO NOTHING`, [namespace]);
    await client.query("COMMIT");
    return { from: current, to: SCHEMA_VERSION };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
