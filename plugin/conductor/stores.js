// Which store holds the Conductor's claims: the files of $CONDUCTOR_HOME (one machine, the
// default) or a PostgreSQL database (several machines), chosen by `conductor.store` in
// .opencode/nso.json. Both give one interface, so the plugin (claims.js), the CLI and the
// tests run the same operations against either:
//   run({op, now?, random?, host?, ttlSeconds?, errorLog?, insideLock?}) -> {result, error, recovered, changed, version}
//   readLog("history" | "conflicts") -> lines, oldest first
//   writeSprint(text | null)            the priority gate's sprint (null: none)
//   version()                           changes whenever the state changes (cheap; may lag)
//   close()
import fs from "node:fs";
import path from "node:path";
import { runConductor } from "./store.js";
import { CONFLICTS_FILE, ensureHome, HISTORY_FILE, resolveHome, SPRINT_FILE, STATUS_FILE } from "./home.js";
import { replaceFile } from "../atomic-file.js";
import { loadDependency } from "../dependencies.js";

/** The files store of `home` (absolute; `$CONDUCTOR_HOME`, else ~/.conductor, when unset). */
export function createFileStore(home) {
  const dir = resolveHome(home);
  const statusFile = path.join(dir, STATUS_FILE); // stat at every write-class call: joined once
  const statusMtime = () => fs.statSync(statusFile, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return {
    kind: "files",
    describe: dir,
    shared: false,
    home: dir,
    async run(params) {
      const answer = await runConductor({ ...params, home: dir });
      return { ...answer, version: statusMtime() };
    },
    async readLog(name) {
      const file = path.join(dir, name === "history" ? HISTORY_FILE : CONFLICTS_FILE);
      if (!fs.existsSync(file)) return [];
      return fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
    },
    async writeSprint(text) {
      const target = path.join(ensureHome(dir), SPRINT_FILE);
      if (text == null) return fs.rmSync(target, { force: true });
      replaceFile(target, text, { mode: 0o600 });
    },
    version: statusMtime,
    async close() {},
  };
}

/** PostgreSQL stores by their settings: one pool per database and namespace per process. */
const pgStores = new Map();
/** Files stores by their folder. */
const fileStores = new Map();

/**
 * The store `settings` (`conductor` of the config: `store`, `home`) name, for the project at
 * `root` (a relative `home` is resolved against it; the shared paths use it). `home`
 * overrides the config's folder (the CLI's --home, tests). PostgreSQL stores are shared by
 * every caller with the same settings in this process (one pool).
 */
export function openStore(settings = {}, { root, home, env = process.env } = {}) {
  const store = settings?.store;
  if (!store || store === "files") {
    // Asked at every write-class call of the plugin: one object per folder, made once.
    const folder = resolveHome(home ?? (settings?.home ? path.resolve(root ?? ".", settings.home) : env.CONDUCTOR_HOME));
    let fileStore = fileStores.get(folder);
    if (!fileStore) fileStores.set(folder, (fileStore = createFileStore(folder)));
    return fileStore;
  }
  const key = JSON.stringify([store, root ?? null]);
  let pgStore = pgStores.get(key);
  if (!pgStore) {
    pgStore = lazyPgStore(store, { root, env });
    pgStores.set(key, pgStore);
  }
  return pgStore;
}

/**
 * The PostgreSQL store, its module (and node-postgres, ~50 ms to import) loaded at its first
 * operation: a project on the files store never pays for it at start-up.
 */
function lazyPgStore(settings, options) {
  let real = null;
  let loading = null;
  const load = () => (loading ??= loadDependency(() => import("./pg-store.js")).then(({ createPgStore }) => (real = createPgStore(settings, options))));
  const later = (name) => async (...args) => (await load())[name](...args);
  return {
    kind: "postgres",
    shared: true,
    get describe() {
      return real?.describe ?? `the PostgreSQL claim store (namespace ${settings.namespace ?? "default"})`;
    },
    run: later("run"),
    readLog: later("readLog"),
    writeSprint: later("writeSprint"),
    /** Null until the store is loaded (the first operation loads it). */
    version: () => real?.version() ?? null,
    close: async () => real?.close(),
  };
}

/** Closes every PostgreSQL pool this process opened (the CLI, before it exits). */
export async function closeStores() {
  const all = [...pgStores.values()];
  pgStores.clear();
  await Promise.all(all.map((s) => s.close()));
}
