-- A store as the release with schema version 2 wrote it (pg_dump --inserts of a namespace
-- "team" with 3 instances, 60 claims, a conflict line and a release), for the upgrade test.

CREATE SCHEMA v2up;

CREATE FUNCTION v2up.nso_conductor_read(p_ns text, p_lock boolean, p_all boolean, p_exact text[], p_from text[], p_to text[], p_ids text[], p_own text[], p_host text, p_now timestamp with time zone, p_ttl double precision, p_idle text) RETURNS TABLE(now timestamp with time zone, revision bigint, claim_count bigint, meta text, sprint text, instances json, claims json)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE v_now timestamptz; v_dead timestamptz;
BEGIN
  -- Plans for the values at hand: a plan cached while the tables were small (a new store)
  -- would scan every claim once they are not. For this session, so the write's too.
  PERFORM set_config('plan_cache_mode', 'force_custom_plan', false);
  IF p_lock THEN
    PERFORM pg_advisory_lock(hashtext('nso_conductor'), hashtext(p_ns));
    PERFORM set_config('idle_session_timeout', p_idle, false);
  END IF;
  -- The core's clock is in whole seconds; an instance is read if it may be past the TTL or
  -- in the future by that clock (a second's margin for the TTL: reading more never hurts).
  v_now := date_trunc('second', coalesce(p_now, clock_timestamp()));
  v_dead := v_now - make_interval(secs => p_ttl) + interval '1 second';
  RETURN QUERY
  WITH c AS (
    SELECT x.instance, x.pattern, x.seq FROM "v2up"."nso_conductor_claims" x WHERE p_all AND x.namespace = p_ns
    UNION
    SELECT x.instance, x.pattern, x.seq FROM "v2up"."nso_conductor_claims" x WHERE x.namespace = p_ns AND x.head = ANY(p_exact)
    UNION
    SELECT x.instance, x.pattern, x.seq FROM unnest(p_from, p_to) r(lo, hi)
      JOIN "v2up"."nso_conductor_claims" x ON x.namespace = p_ns AND x.head >= r.lo COLLATE "C" AND x.head < r.hi COLLATE "C"
    UNION
    SELECT x.instance, x.pattern, x.seq FROM "v2up"."nso_conductor_claims" x WHERE x.namespace = p_ns AND x.instance = ANY(p_own)
  ), i AS (
    SELECT y.id, y.doc, y.seq FROM "v2up"."nso_conductor_instances" y WHERE y.namespace = p_ns AND (p_all OR y.id = ANY(p_ids)
      OR y.id IN (SELECT c.instance FROM c) OR y.last_heartbeat IS NULL OR y.last_heartbeat <= v_dead
      OR y.last_heartbeat > v_now OR (y.host = p_host AND y.pid IS NOT NULL))
  )
  SELECT v_now, coalesce(s.revision, 0), coalesce(s.claim_count, 0), s.meta, (SELECT p.sprint FROM "v2up"."nso_conductor_sprint" p WHERE p.namespace = p_ns),
    (SELECT json_agg(json_build_array(i.id, i.doc) ORDER BY i.seq) FROM i),
    (SELECT json_agg(json_build_array(c.instance, c.pattern) ORDER BY c.seq) FROM c)
  FROM (SELECT 1) one LEFT JOIN "v2up"."nso_conductor_state" s ON s.namespace = p_ns; -- one row, also when the namespace's row is gone
END $$;

CREATE PROCEDURE v2up.nso_conductor_unlock(IN p_ns text)
    LANGUAGE plpgsql
    AS $$
BEGIN
  PERFORM pg_advisory_unlock(hashtext('nso_conductor'), hashtext(p_ns));
  PERFORM set_config('idle_session_timeout', '0', false);
END $$;

CREATE PROCEDURE v2up.nso_conductor_write(IN p_ns text, IN p_changed boolean, IN p_meta text, IN p_gone text[], IN p_new_ids text[], IN p_new_docs text[], IN p_new_hosts text[], IN p_new_pids bigint[], IN p_new_beats timestamp with time zone[], IN p_set_ids text[], IN p_set_docs text[], IN p_set_hosts text[], IN p_set_pids bigint[], IN p_set_beats timestamp with time zone[], IN p_drop_ids text[], IN p_drop_patterns text[], IN p_add_ids text[], IN p_add_patterns text[], IN p_add_heads text[], IN p_history text[], IN p_conflicts text[], IN p_commit boolean, INOUT p_revision bigint)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE v_removed bigint := 0; v_n bigint := 0;
BEGIN
  -- Each statement runs only when it has something to do (most operations change one or
  -- two rows).
  IF p_changed THEN
    IF cardinality(p_gone) > 0 THEN
      DELETE FROM "v2up"."nso_conductor_claims" x WHERE x.namespace = p_ns AND x.instance = ANY(p_gone);
      GET DIAGNOSTICS v_removed = ROW_COUNT;
      DELETE FROM "v2up"."nso_conductor_instances" y WHERE y.namespace = p_ns AND y.id = ANY(p_gone);
    END IF;
    IF cardinality(p_drop_ids) > 0 THEN
      DELETE FROM "v2up"."nso_conductor_claims" x USING unnest(p_drop_ids, p_drop_patterns) d(id, pattern)
        WHERE x.namespace = p_ns AND x.instance = d.id AND x.pattern = d.pattern;
      GET DIAGNOSTICS v_n = ROW_COUNT;
      v_removed := v_removed + v_n;
    END IF;
    IF cardinality(p_new_ids) > 0 THEN
      INSERT INTO "v2up"."nso_conductor_instances" (namespace, id, doc, host, pid, last_heartbeat)
        SELECT p_ns, u.id, u.doc, u.host, u.pid, u.beat FROM unnest(p_new_ids, p_new_docs, p_new_hosts, p_new_pids, p_new_beats)
          WITH ORDINALITY u(id, doc, host, pid, beat, k) ORDER BY u.k;
    END IF;
    IF cardinality(p_set_ids) > 0 THEN
      UPDATE "v2up"."nso_conductor_instances" y SET doc = u.doc, host = u.host, pid = u.pid, last_heartbeat = u.beat
        FROM unnest(p_set_ids, p_set_docs, p_set_hosts, p_set_pids, p_set_beats) u(id, doc, host, pid, beat)
        WHERE y.namespace = p_ns AND y.id = u.id;
    END IF;
    v_n := 0;
    IF cardinality(p_add_ids) > 0 THEN
      INSERT INTO "v2up"."nso_conductor_claims" (namespace, instance, pattern, head)
        SELECT p_ns, a.id, a.pattern, a.head FROM unnest(p_add_ids, p_add_patterns, p_add_heads) WITH ORDINALITY a(id, pattern, head, k)
          ORDER BY a.k;
      GET DIAGNOSTICS v_n = ROW_COUNT;
    END IF;
    -- The namespace's row, made again if someone deleted it.
    INSERT INTO "v2up"."nso_conductor_state" AS s (namespace, revision, meta, claim_count) VALUES (p_ns, coalesce(p_revision, 0) + 1, p_meta, v_n - v_removed)
      ON CONFLICT (namespace) DO UPDATE SET revision = s.revision + 1, meta = p_meta, claim_count = s.claim_count + v_n - v_removed, updated_at = now()
      RETURNING s.revision INTO p_revision;
  END IF;
  IF cardinality(p_history) > 0 THEN
    INSERT INTO "v2up"."nso_conductor_history" (namespace, line, revision) SELECT p_ns, unnest(p_history), p_revision;
  END IF;
  IF cardinality(p_conflicts) > 0 THEN
    INSERT INTO "v2up"."nso_conductor_conflicts" (namespace, line, revision) SELECT p_ns, unnest(p_conflicts), p_revision;
  END IF;
  IF p_commit THEN
    COMMIT;
    CALL "v2up"."nso_conductor_unlock"(p_ns);
  END IF;
END $$;

CREATE TABLE v2up.nso_conductor_claims (
    namespace text NOT NULL,
    instance text NOT NULL,
    pattern text NOT NULL,
    head text NOT NULL COLLATE pg_catalog."C",
    seq bigint NOT NULL
);

CREATE SEQUENCE v2up.nso_conductor_claims_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE v2up.nso_conductor_claims_seq_seq OWNED BY v2up.nso_conductor_claims.seq;

CREATE TABLE v2up.nso_conductor_conflicts (
    id bigint NOT NULL,
    namespace text NOT NULL,
    line text NOT NULL,
    revision bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE v2up.nso_conductor_conflicts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE v2up.nso_conductor_conflicts_id_seq OWNED BY v2up.nso_conductor_conflicts.id;

CREATE TABLE v2up.nso_conductor_corrupt (
    id bigint NOT NULL,
    namespace text NOT NULL,
    state text,
    problem text NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE v2up.nso_conductor_corrupt_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE v2up.nso_conductor_corrupt_id_seq OWNED BY v2up.nso_conductor_corrupt.id;

CREATE TABLE v2up.nso_conductor_history (
    id bigint NOT NULL,
    namespace text NOT NULL,
    line text NOT NULL,
    revision bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE v2up.nso_conductor_history_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE v2up.nso_conductor_history_id_seq OWNED BY v2up.nso_conductor_history.id;

CREATE TABLE v2up.nso_conductor_instances (
    namespace text NOT NULL,
    id text NOT NULL,
    seq bigint NOT NULL,
    doc text NOT NULL,
    host text,
    pid bigint,
    last_heartbeat timestamp with time zone
);

CREATE SEQUENCE v2up.nso_conductor_instances_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE v2up.nso_conductor_instances_seq_seq OWNED BY v2up.nso_conductor_instances.seq;

CREATE TABLE v2up.nso_conductor_schema_version (
    version integer NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE v2up.nso_conductor_sprint (
    namespace text NOT NULL,
    sprint text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE v2up.nso_conductor_state (
    namespace text NOT NULL,
    revision bigint DEFAULT 0 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    meta text,
    claim_count bigint DEFAULT 0 NOT NULL
);

ALTER TABLE ONLY v2up.nso_conductor_claims ALTER COLUMN seq SET DEFAULT nextval('v2up.nso_conductor_claims_seq_seq'::regclass);

ALTER TABLE ONLY v2up.nso_conductor_conflicts ALTER COLUMN id SET DEFAULT nextval('v2up.nso_conductor_conflicts_id_seq'::regclass);

ALTER TABLE ONLY v2up.nso_conductor_corrupt ALTER COLUMN id SET DEFAULT nextval('v2up.nso_conductor_corrupt_id_seq'::regclass);

ALTER TABLE ONLY v2up.nso_conductor_history ALTER COLUMN id SET DEFAULT nextval('v2up.nso_conductor_history_id_seq'::regclass);

ALTER TABLE ONLY v2up.nso_conductor_instances ALTER COLUMN seq SET DEFAULT nextval('v2up.nso_conductor_instances_seq_seq'::regclass);

INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/m0/**', '/w/p0/m0', 1);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f1.ts', '/w/p0/src/f1.ts', 2);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f2.ts', '/w/p0/src/f2.ts', 3);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f3.ts', '/w/p0/src/f3.ts', 4);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f4.ts', '/w/p0/src/f4.ts', 5);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/m5/**', '/w/p0/m5', 6);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f6.ts', '/w/p0/src/f6.ts', 7);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f7.ts', '/w/p0/src/f7.ts', 8);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f8.ts', '/w/p0/src/f8.ts', 9);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f9.ts', '/w/p0/src/f9.ts', 10);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/m10/**', '/w/p0/m10', 11);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f11.ts', '/w/p0/src/f11.ts', 12);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f12.ts', '/w/p0/src/f12.ts', 13);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f13.ts', '/w/p0/src/f13.ts', 14);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f14.ts', '/w/p0/src/f14.ts', 15);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/m15/**', '/w/p0/m15', 16);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f16.ts', '/w/p0/src/f16.ts', 17);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f17.ts', '/w/p0/src/f17.ts', 18);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f18.ts', '/w/p0/src/f18.ts', 19);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-aaaaaa', '/w/p0/src/f19.ts', '/w/p0/src/f19.ts', 20);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/m0/**', '/w/p1/m0', 21);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f1.ts', '/w/p1/src/f1.ts', 22);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f2.ts', '/w/p1/src/f2.ts', 23);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f3.ts', '/w/p1/src/f3.ts', 24);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f4.ts', '/w/p1/src/f4.ts', 25);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/m5/**', '/w/p1/m5', 26);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f6.ts', '/w/p1/src/f6.ts', 27);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f7.ts', '/w/p1/src/f7.ts', 28);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f8.ts', '/w/p1/src/f8.ts', 29);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f9.ts', '/w/p1/src/f9.ts', 30);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/m10/**', '/w/p1/m10', 31);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f11.ts', '/w/p1/src/f11.ts', 32);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f12.ts', '/w/p1/src/f12.ts', 33);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f13.ts', '/w/p1/src/f13.ts', 34);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f14.ts', '/w/p1/src/f14.ts', 35);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/m15/**', '/w/p1/m15', 36);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f16.ts', '/w/p1/src/f16.ts', 37);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f17.ts', '/w/p1/src/f17.ts', 38);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f18.ts', '/w/p1/src/f18.ts', 39);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-bbbbbb', '/w/p1/src/f19.ts', '/w/p1/src/f19.ts', 40);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/m0/**', '/w/p2/m0', 41);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f2.ts', '/w/p2/src/f2.ts', 43);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f3.ts', '/w/p2/src/f3.ts', 44);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f4.ts', '/w/p2/src/f4.ts', 45);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/m5/**', '/w/p2/m5', 46);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f6.ts', '/w/p2/src/f6.ts', 47);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f7.ts', '/w/p2/src/f7.ts', 48);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f8.ts', '/w/p2/src/f8.ts', 49);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f9.ts', '/w/p2/src/f9.ts', 50);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/m10/**', '/w/p2/m10', 51);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f11.ts', '/w/p2/src/f11.ts', 52);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f12.ts', '/w/p2/src/f12.ts', 53);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f13.ts', '/w/p2/src/f13.ts', 54);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f14.ts', '/w/p2/src/f14.ts', 55);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/m15/**', '/w/p2/m15', 56);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f16.ts', '/w/p2/src/f16.ts', 57);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f17.ts', '/w/p2/src/f17.ts', 58);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f18.ts', '/w/p2/src/f18.ts', 59);
INSERT INTO v2up.nso_conductor_claims VALUES ('team', 'web-cccccc', '/w/p2/src/f19.ts', '/w/p2/src/f19.ts', 60);

INSERT INTO v2up.nso_conductor_conflicts VALUES (1, 'team', '2026-11-23T10:00:00Z | CONFLICT | web-bbbbbb tried to claim /w/p0/src/f1.ts already held by web-aaaaaa', 6, '2026-11-28 07:25:28.024871+00');

INSERT INTO v2up.nso_conductor_instances VALUES ('team', 'web-aaaaaa', 1, '{"id":"web-aaaaaa","source":"web","project":"w","task":"task 0","priority":"P1","started_at":"2026-11-23T10:00:00Z","last_heartbeat":"2026-11-23T10:00:00Z","working_directory":"/w","project_root":"/w","pid":null,"host":"other-host","process_started":null,"agent":null,"sessions":[],"forced":[]}', 'other-host', NULL, '2026-11-23 10:00:00+00');
INSERT INTO v2up.nso_conductor_instances VALUES ('team', 'web-bbbbbb', 2, '{"id":"web-bbbbbb","source":"web","project":"w","task":"task 1","priority":"P1","started_at":"2026-11-23T10:00:00Z","last_heartbeat":"2026-11-23T10:00:00Z","working_directory":"/w","project_root":"/w","pid":null,"host":"other-host","process_started":null,"agent":null,"sessions":[],"forced":[]}', 'other-host', NULL, '2026-11-23 10:00:00+00');
INSERT INTO v2up.nso_conductor_instances VALUES ('team', 'web-cccccc', 3, '{"id":"web-cccccc","source":"web","project":"w","task":"task 2","priority":"P1","started_at":"2026-11-23T10:00:00Z","last_heartbeat":"2026-11-23T10:00:00Z","working_directory":"/w","project_root":"/w","pid":null,"host":"other-host","process_started":null,"agent":null,"sessions":[],"forced":[]}', 'other-host', NULL, '2026-11-23 10:00:00+00');

INSERT INTO v2up.nso_conductor_schema_version VALUES (1, '2026-11-28 07:25:27.831754+00');
INSERT INTO v2up.nso_conductor_schema_version VALUES (2, '2026-11-28 07:25:27.831754+00');

INSERT INTO v2up.nso_conductor_state VALUES ('team', 7, '2026-11-28 07:25:28.036196+00', '{"updated_at":"2026-11-23T10:00:00Z","drift_warnings":[]}', 59);

SELECT pg_catalog.setval('v2up.nso_conductor_claims_seq_seq', 60, true);

SELECT pg_catalog.setval('v2up.nso_conductor_conflicts_id_seq', 1, true);

SELECT pg_catalog.setval('v2up.nso_conductor_corrupt_id_seq', 1, false);

SELECT pg_catalog.setval('v2up.nso_conductor_history_id_seq', 1, false);

SELECT pg_catalog.setval('v2up.nso_conductor_instances_seq_seq', 3, true);

ALTER TABLE ONLY v2up.nso_conductor_claims
    ADD CONSTRAINT nso_conductor_claims_pkey PRIMARY KEY (namespace, instance, pattern);

ALTER TABLE ONLY v2up.nso_conductor_conflicts
    ADD CONSTRAINT nso_conductor_conflicts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY v2up.nso_conductor_corrupt
    ADD CONSTRAINT nso_conductor_corrupt_pkey PRIMARY KEY (id);

ALTER TABLE ONLY v2up.nso_conductor_history
    ADD CONSTRAINT nso_conductor_history_pkey PRIMARY KEY (id);

ALTER TABLE ONLY v2up.nso_conductor_instances
    ADD CONSTRAINT nso_conductor_instances_pkey PRIMARY KEY (namespace, id);

ALTER TABLE ONLY v2up.nso_conductor_schema_version
    ADD CONSTRAINT nso_conductor_schema_version_pkey PRIMARY KEY (version);

ALTER TABLE ONLY v2up.nso_conductor_sprint
    ADD CONSTRAINT nso_conductor_sprint_pkey PRIMARY KEY (namespace);

ALTER TABLE ONLY v2up.nso_conductor_state
    ADD CONSTRAINT nso_conductor_state_pkey PRIMARY KEY (namespace);

CREATE INDEX nso_conductor_claims_namespace_head_idx ON v2up.nso_conductor_claims USING btree (namespace, head);

CREATE INDEX nso_conductor_conflicts_namespace_id_idx ON v2up.nso_conductor_conflicts USING btree (namespace, id);

CREATE INDEX nso_conductor_history_namespace_id_idx ON v2up.nso_conductor_history USING btree (namespace, id);

CREATE INDEX nso_conductor_instances_namespace_last_heartbeat_idx ON v2up.nso_conductor_instances USING btree (namespace, last_heartbeat);

ALTER TABLE ONLY v2up.nso_conductor_claims
    ADD CONSTRAINT nso_conductor_claims_namespace_instance_fkey FOREIGN KEY (namespace, instance) REFERENCES v2up.nso_conductor_instances(namespace, id) ON DELETE CASCADE;

