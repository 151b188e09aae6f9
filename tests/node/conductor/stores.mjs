// The two claim stores as the shared tests use them: a fresh files store (a new
// CONDUCTOR_HOME) or a fresh PostgreSQL store (a new namespace on one test server).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { openStore } from "../../../plugin/conductor/stores.js";
import { startPostgres } from "./pg-server.mjs";

export const STORE_KINDS = ["files", "postgres"];

let server = null;
let count = 0;

/** The test server of this process, started on first use. */
export async function testServer() {
  server ??= await startPostgres();
  return server;
}

/** Stops the test server (after the file's tests). */
export function stopTestServer() {
  server?.destroy();
  server = null;
}

/**
 * A new, empty store of `kind`. `settings` adds to the PostgreSQL store's settings
 * (`root` is passed to openStore). Returns `{store, settings, env}`.
 */
export async function freshStore(kind, { root, settings = {} } = {}) {
  if (kind === "files") {
    const home = path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-conductor-conf-"))), "home");
    return { store: openStore({}, { home }), settings: {}, env: process.env };
  }
  const pg = await testServer();
  const env = { ...process.env, ...pg.env };
  const store = pg.store({ namespace: `t${process.pid}-${++count}`, ...settings });
  return { store: openStore({ store }, { root, env }), settings: store, env };
}

const PG_WORKER = new URL("./pg-worker.mjs", import.meta.url).pathname;

/**
 * Spawns pg-worker.mjs (`mode`, the store `settings`, simulated `host`, project `root`, `arg`)
 * with the test server's environment. `line(prefix, {fresh})` resolves to the first line
 * starting with `prefix` (with `fresh`: printed after the call), null if the worker exits first.
 */
export function spawnPgWorker(mode, settings, host, root, arg = "", env = process.env) {
  const child = spawn(process.execPath, [PG_WORKER, mode, JSON.stringify(settings), host, root, String(arg)], { stdio: ["ignore", "pipe", "pipe"], env });
  let out = "";
  let err = "";
  const waiters = [];
  const lines = () => out.split("\n").slice(0, -1);
  const serve = () => {
    for (const w of [...waiters]) {
      const found = lines().slice(w.from).find((l) => l.startsWith(w.prefix));
      if (found !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(found);
      }
    }
  };
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => {
    for (const w of waiters.splice(0)) w.resolve(null);
    resolve({ code, signal });
  }));
  child.stdout.on("data", (d) => {
    out += d;
    serve();
  });
  child.stderr.on("data", (d) => (err += d));
  return {
    child, exited,
    output: () => out + err,
    line: (prefix, { fresh = false } = {}) => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(null);
      waiters.push({ prefix, from: fresh ? lines().length : 0, resolve });
      serve();
    }),
  };
}

/**
 * The state of `namespace` as the PostgreSQL store holds it, read from its rows directly (not
 * through the store), as status.json text: instances in order, each with its claims in order,
 * and global_claims derived.
 */
export async function storedState(server, namespace, schema = "public") {
  const t = (name) => `"${schema}"."nso_conductor_${name}"`;
  const instances = await server.query(`SELECT id, doc FROM ${t("instances")} WHERE namespace = $1 ORDER BY seq`, [namespace]);
  const claims = await server.query(`SELECT instance, pattern FROM ${t("claims")} WHERE namespace = $1 ORDER BY seq`, [namespace]);
  const global = {};
  const list = instances.map(({ id, doc }) => {
    const files = claims.filter((c) => c.instance === id).map((c) => c.pattern);
    for (const p of files) global[p] ??= id;
    return { ...JSON.parse(doc), files_claimed: files };
  });
  const orphans = claims.filter((c) => !instances.some((i) => i.id === c.instance));
  if (orphans.length) throw new Error(`claims without an instance: ${JSON.stringify(orphans)}`);
  return JSON.stringify({ version: "2.0", instances: list, global_claims: global });
}
