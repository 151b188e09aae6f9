// The connection to a PostgreSQL claim store: the pool (node-postgres), the password (never
// from the config file: the environment or a pgpass file), bounded waits, errors turned into
// one `conductor_store` error that names the store and the fix. The schema is pg-schema.js's.
import fs from "node:fs";
import { createRequire } from "node:module";
import pg from "pg";
import { conductorError } from "./lock.js";

const requirePg = createRequire(createRequire(import.meta.url).resolve("pg"));
/** node-postgres's own connection-string parser (host, port, user, database, socket, ssl). */
const parseConnectionString = requirePg("pg-connection-string").parse;

/** `user@host:port/database` as far as it is known, for messages (never a password). */
export function describeTarget(settings, env = process.env) {
  let fromUrl = {};
  if (settings.url) {
    try {
      const { user, host, port, database } = parseConnectionString(settings.url);
      fromUrl = { user: user || undefined, host: host || undefined, port: port || undefined, database: database || undefined };
    } catch {
      fromUrl = {};
    }
  }
  const user = settings.user ?? fromUrl.user ?? env.PGUSER;
  const host = settings.host ?? fromUrl.host ?? env.PGHOST ?? "localhost";
  const port = settings.port ?? fromUrl.port ?? env.PGPORT ?? 5432;
  const database = settings.database ?? fromUrl.database ?? env.PGDATABASE ?? user;
  return `${user ? `${user}@` : ""}${host}:${port}/${database ?? ""}`;
}


/**
 * The password of the pgpass file for `params` (`$PGPASSFILE` of `env`, else ~/.pgpass; the
 * file is skipped, with a warning, unless only its owner can read it), or undefined. Uses
 * the parser node-postgres ships (its own lookup is deprecated and reads process.env only).
 */
function fromPgpass(params, env) {
  let helper;
  try {
    helper = requirePg("pgpass/lib/helper.js");
  } catch {
    return Promise.resolve(undefined);
  }
  const file = helper.getFileName(env);
  return new Promise((resolve) => {
    fs.stat(file, (error, stat) => {
      if (error || !helper.usePgPass(stat, file)) return resolve(undefined);
      helper.getPassword(params, fs.createReadStream(file), resolve);
    });
  });
}

/**
 * The pool settings: the config's connection fields (then libpq's PG* variables, which
 * node-postgres reads), bounded waits on both sides, and the password from the environment
 * variable the config names, else PGPASSWORD, else the pgpass file.
 */
export function poolConfig(settings, env = process.env) {
  const timeoutMs = settings.timeoutMs ?? 5_000;
  const connectTimeoutMs = settings.connectTimeoutMs ?? 3_000;
  const config = {
    max: settings.maxConnections ?? 4,
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true, // an idle pool never keeps OpenCode or the CLI running
    keepAlive: true,
    application_name: "nso-conductor",
    // Server side: a statement (a row-lock wait included) ends after timeoutMs, and a client
    // that vanished inside a transaction (host gone, no FIN) loses its locks soon after.
    statement_timeout: timeoutMs,
    lock_timeout: timeoutMs,
    idle_in_transaction_session_timeout: Math.max(2 * timeoutMs, 10_000),
    // Client side: a server that stops answering mid-query (a pulled cable) is given up on.
    query_timeout: timeoutMs + connectTimeoutMs,
  };
  // node-postgres lets a parsed connection string override every other setting, its empty
  // password included (which then beats the password function below): the URL's fields are
  // taken here instead, and its password never is (the config refuses one anyway).
  if (settings.url) {
    for (const [key, value] of Object.entries(parseConnectionString(settings.url))) {
      if (key !== "password" && value != null && value !== "") config[key] = value;
    }
  }
  for (const key of ["host", "port", "database", "user"]) if (settings[key] != null) config[key] = settings[key];
  if (settings.ssl) config.ssl = { rejectUnauthorized: true };
  config.password = async (params) => {
    const named = settings.passwordEnv ? env[settings.passwordEnv] : undefined;
    if (named !== undefined) return named;
    if (env.PGPASSWORD !== undefined) return env.PGPASSWORD;
    return fromPgpass(params, env);
  };
  return config;
}

/** SQLSTATEs and socket codes of a store that cannot be used now (retry later). */
const UNREACHABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE",
  "57P01", "57P02", "57P03", "53300", "08000", "08001", "08003", "08004", "08006"]);

/**
 * The `conductor_store` error for a driver error `error`: what happened, on which store, and
 * what to do. `kind` says why (`unreachable`, `timeout`, `auth`, `schema`, `database`).
 */
export function storeError(error, target) {
  if (error?.code === "conductor_store") return error;
  const where = `the PostgreSQL claim store ${target}`;
  const elsewhere = "to work without it, set conductor.store to \"files\" (this machine only) or conductor.mode to \"advisory\" in .opencode/nso.json";
  const text = String(error?.message ?? error);
  let kind = "database";
  let fix = `check the database's log; ${elsewhere}.`;
  if (UNREACHABLE.has(error?.code) || /timeout exceeded when trying to connect|Connection terminated|connection timeout|not queryable/i.test(text)) {
    kind = "unreachable";
    fix = `check that the database server runs and can be reached from this machine (host, port, firewall); ${elsewhere}.`;
  } else if (error?.code === "57014" || error?.code === "55P03" || /Query read timeout/i.test(text)) {
    kind = "timeout";
    fix = `the database is slow or a claim operation holds the lock too long; check its load, or raise conductor.store.timeoutMs; ${elsewhere}.`;
  } else if (["28P01", "28000"].includes(error?.code) || /password/i.test(text)) {
    kind = "auth";
    fix = "give the password in PGPASSWORD, in the variable named by conductor.store.passwordEnv, or in a pgpass file " +
      "(~/.pgpass or $PGPASSFILE, mode 600), and check the user; the config file never holds it.";
  } else if (["42883", "42P01"].includes(error?.code) && /nso_conductor_/.test(text)) {
    // NSO's functions or tables as another NSO wrote them: another machine upgraded the store.
    fix = "another machine's NSO has upgraded the store's tables: update NSO on this machine (every machine sharing the store runs the same version).";
  } else if (["3D000", "42501", "3F000"].includes(error?.code)) {
    fix = "create the database and give the user the right to create tables in the schema (NSO creates its tables itself).";
  }
  return Object.assign(conductorError("conductor_store", `${where} cannot be used (${error?.code ? `${error.code}: ` : ""}${text})`, fix), { kind, cause: error });
}

const ignore = () => {};

/**
 * A pool whose connections' errors (a server restart) are never thrown at the process. pg-pool
 * listens for them only while a connection is idle; a connection in use, or one being closed
 * after it broke, emits 'error' too (a server shutting down sends its reason as it goes, even
 * in the very packet that completed the connection), and without a listener that would end
 * the process. So each connection gets one for good, from the moment pg-pool hands it out
 * (its 'connect' event, synchronous); the query in flight fails with the same error, and a
 * broken connection is not reused.
 */
export function createPool(settings, env) {
  const pool = new pg.Pool(poolConfig(settings, env));
  pool.on("error", ignore); // the broken connection leaves the pool; the next checkout reconnects
  pool.on("connect", (client) => client.on("error", ignore));
  return pool;
}
