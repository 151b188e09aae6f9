// A real PostgreSQL server for the tests (Debian's `postgresql` package): a fresh cluster in
// a temporary folder, password authentication (SCRAM) on 127.0.0.1 only, on a free port,
// stopped when the test process ends (also when a test fails). PostgreSQL refuses to run as
// root, so as root the server runs as the `postgres` user (runuser) in a folder it owns.
// No server, no pass: a machine without PostgreSQL FAILS these tests (CI installs it).
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawnSync } from "node:child_process";
import pg from "pg";

/** The newest Debian PostgreSQL bin folder (NSO_PG_BIN overrides); throws when there is none. */
export function postgresBin() {
  if (process.env.NSO_PG_BIN) return process.env.NSO_PG_BIN;
  const base = "/usr/lib/postgresql";
  const versions = fs.existsSync(base) ? fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, "bin", "postgres"))) : [];
  if (!versions.length) {
    throw new Error("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/postgres): run `bash scripts/setup.sh` (apt-get install postgresql), or set NSO_PG_BIN.");
  }
  return path.join(base, versions.sort((a, b) => Number(b) - Number(a))[0], "bin");
}

/** A TCP port free on 127.0.0.1 now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const running = new Set();
process.once("exit", () => {
  for (const server of running) server.stopNow();
});

/**
 * Starts a server. Returns `{host, port, user, database, password, env, store(fields),
 * start(), stop(), stopNow(), destroy(), connect(), query(sql, params)}`; `env` carries PGPASSFILE (the password reaches the
 * client through a pgpass file, as a user would set it up) and `store(fields)` the
 * `conductor.store` settings for it.
 */
export async function startPostgres({ fsync = false } = {}) {
  const bin = postgresBin();
  const asRoot = process.getuid?.() === 0;
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-pg-")));
  const data = path.join(dir, "data");
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(path.join(dir, "pwfile"), `${password}\n`);
  if (asRoot) execFileSync("chown", ["-R", "postgres:postgres", dir]);
  const run = (cmd, args, options = {}) => {
    const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", path.join(bin, cmd), ...args]] : [path.join(bin, cmd), args];
    const r = spawnSync(file, argv, { encoding: "utf8", ...options });
    if (r.status !== 0 && !options.allowFail) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`);
    return r;
  };
  run("initdb", ["-D", data, "-U", "nso", "--auth=scram-sha-256", `--pwfile=${path.join(dir, "pwfile")}`, "-E", "UTF8", "--no-sync", "--no-instructions"]);
  fs.rmSync(path.join(dir, "pwfile"));
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=${fsync ? "on" : "off"}`;
  const clientDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-pg-client-")));
  const pgpass = path.join(clientDir, "pgpass");
  fs.writeFileSync(pgpass, `127.0.0.1:${port}:*:nso:${password}\n`, { mode: 0o600 });

  const server = {
    host: "127.0.0.1", port, user: "nso", database: "postgres", password, dir, log: path.join(dir, "server.log"),
    env: { PGPASSFILE: pgpass },
    store: (fields = {}) => ({ type: "postgres", host: "127.0.0.1", port, user: "nso", database: "postgres", connectTimeoutMs: 2000, timeoutMs: 5000, ...fields }),
    start() {
      run("pg_ctl", ["-D", data, "-l", server.log, "-w", "-t", "30", "-o", options, "start"]);
      running.add(server);
    },
    /** A fast shutdown: clients are disconnected, in-flight transactions rolled back. */
    stop() {
      run("pg_ctl", ["-D", data, "-w", "-t", "30", "-m", "fast", "stop"]);
      running.delete(server);
    },
    stopNow() {
      run("pg_ctl", ["-D", data, "-w", "-t", "10", "-m", "immediate", "stop"], { allowFail: true });
      running.delete(server);
    },
    /** Stops the server and removes its files. */
    destroy() {
      server.stopNow();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(clientDir, { recursive: true, force: true });
    },
    /** A connection of its own as the test's superuser (the caller ends it). */
    async connect() {
      const client = new pg.Client({ host: "127.0.0.1", port, user: "nso", database: "postgres", password });
      await client.connect();
      return client;
    },
    /** One SQL statement as the test's superuser (a fresh connection); its rows. */
    async query(sql, params = []) {
      const client = await server.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
  };
  server.start();
  return server;
}
