// Benchmark: claims at team scale, both stores in one run. For 100, 1,000 and 10,000 claims
// already held (by one instance per 100 claims, one claim in ten a folder glob `<dir>/**`,
// every holder alive by heartbeat), 16 client processes each register an instance and make
// and release claims on their own paths as fast as they can. Reported per store and size:
// claims per second (all clients together), claim latency p50 / p99, operations that failed
// (store errors or refusals), and one client's claim alone (p50) to show how a claim's cost
// grows with the claims held. Claims per second are counted over the claim window (first claim
// to last), not the clients' start-up; the load average is printed beside each row.
//
// With `--apart`, each client has a store of its own (a namespace, or a home) and nothing is
// filled: no lock or row is shared, so the row shows what this machine can do at most with 16
// processes, whatever the store's design.
//
// `node bench/claims-scale.bench.mjs [--sizes=100,1000,10000] [--clients=16] [--rounds=25]
//  [--stores=files,postgres] [--apart]`. PostgreSQL is a real server started here (Debian's
// package, fsync on, 127.0.0.1). Not a test: it asserts nothing, it reports.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeStores, openStore } from "../plugin/conductor/stores.js";

const SCRIPT = fileURLToPath(import.meta.url);
/** Claims per seeded instance; one in GLOB_EVERY of them is a folder glob. */
const PER_INSTANCE = 100;
const GLOB_EVERY = 10;
/** A TTL that removes nobody during the run: every instance lives by heartbeat. */
const TTL = 86_400;

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

function options(argv) {
  const named = {};
  for (const arg of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (m) named[m[1]] = m[2] ?? true;
  }
  return named;
}

/** A store of `spec`'s kind for client `name` alone. */
const apartOf = (spec, name) => (spec.kind === "files" ? { ...spec, home: `${spec.home}-${name}` }
  : { ...spec, settings: { ...spec.settings, namespace: `${spec.settings.namespace}-${name}` } });

/** The store of `spec` ({kind, settings, home}) in this process. */
const storeOf = (spec) => (spec.kind === "files" ? openStore({}, { home: spec.home }) : openStore({ store: spec.settings }, { env: spec.env }));

async function op(store, operation, host) {
  const answer = await store.run({ op: operation, host, ttlSeconds: TTL });
  if (answer.error) throw new Error(`${operation.operation}: ${answer.error.code}: ${answer.error.message}`);
  return answer.result;
}

const startOp = (task, source = "web") => ({ operation: "start", task, priority: "P1", working_directory: "/bench", project_root: "/bench", source, automatic: true });

/** Fills the store with `count` claims under /bench/seed/. */
async function seed(store, count) {
  for (let k = 0; k * PER_INSTANCE < count; k++) {
    const id = (await op(store, startOp(`seed ${k}`), "seed-host")).instance_id;
    const files = [];
    for (let i = 0; i < Math.min(PER_INSTANCE, count - k * PER_INSTANCE); i++) {
      files.push(i % GLOB_EVERY === 0 ? `/bench/seed/p${k}/m${i}/**` : `/bench/seed/p${k}/src/f${i}.ts`);
    }
    const result = await op(store, { operation: "claim", instance_id: id, files }, "seed-host");
    if (result.status !== "ok") throw new Error(`seeding: ${JSON.stringify(result).slice(0, 300)}`);
  }
}

/** A client process: registers, then `rounds` of claim + release on its own path. */
async function worker(spec, name, rounds) {
  const store = storeOf(spec.apart ? apartOf(spec, name) : spec);
  const host = `client-${name}`;
  const times = [];
  let failures = 0;
  // The claim window on a clock all processes share: throughput is counted from the first
  // claim of any client to the last. Every client starts claiming at the parent's word, once
  // all are registered, so process start-up (loading the core, connecting) is not in it.
  const clock = () => performance.timeOrigin + performance.now();
  let first = null;
  let last = null;
  let id = null;
  while (!id) {
    try {
      id = (await op(store, startOp(`client ${name}`), host)).instance_id;
    } catch (error) {
      process.stderr.write(`${error.message}\n`);
      if (++failures > 5) break; // counted: this client made no claim
    }
  }
  if (!id) rounds = 0;
  process.stdout.write("ready\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  process.stdin.destroy();
  for (let r = 0; r < rounds; r++) {
    const file = `/bench/clients/${name}/r${r % 5}.ts`;
    const t0 = performance.now();
    first ??= clock();
    try {
      const result = await op(store, { operation: "claim", instance_id: id, files: [file] }, host);
      if (result.status !== "ok") failures++;
      times.push(performance.now() - t0);
      await op(store, { operation: "release", instance_id: id, files: [file] }, host);
      last = clock();
    } catch (error) {
      failures++;
      process.stderr.write(`${error.message}\n`);
    }
  }
  await closeStores();
  process.stdout.write(`${JSON.stringify({ times, failures, first, last })}\n`);
}

/** Starts a client process; `ready` resolves once it is registered, `go()` lets it claim, `done` is its result. */
function spawnWorker(spec, name, rounds) {
  const child = spawn(process.execPath, [SCRIPT, "--worker", JSON.stringify(spec), name, String(rounds)], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  let registered;
  const ready = new Promise((resolve) => (registered = resolve));
  child.stdout.on("data", (d) => {
    out += d;
    if (out.includes("ready\n")) registered();
  });
  const done = new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop())) : reject(new Error(`worker ${name} exited ${code}`))));
  });
  return { ready, done, go: () => child.stdin.end("go\n") };
}

/** Clients started together: each is registered before any claims. */
async function runClients(spec, names, rounds) {
  const workers = names.map((name) => spawnWorker(spec, name, rounds));
  await Promise.all(workers.map((w) => w.ready));
  for (const w of workers) w.go();
  return Promise.all(workers.map((w) => w.done));
}

/** One store at one size: seeded, then one client alone, then `clients` at once. */
async function measure(spec, size, { clients, rounds }) {
  if (!spec.apart) {
    await seed(storeOf(spec), size);
    await closeStores();
  }
  const [alone] = await runClients(spec, ["solo"], rounds);
  const results = await runClients(spec, Array.from({ length: clients }, (_, i) => `c${i}`), rounds);
  const seconds = (Math.max(...results.map((r) => r.last ?? 0)) - Math.min(...results.map((r) => r.first ?? Infinity))) / 1000;
  const times = Float64Array.from(results.flatMap((r) => r.times)).sort();
  const soloTimes = Float64Array.from(alone.times).sort();
  return {
    size, claimsPerSecond: times.length / seconds, p50: percentile(times, 50), p99: percentile(times, 99),
    failures: results.reduce((n, r) => n + r.failures, 0), soloP50: percentile(soloTimes, 50), claims: times.length, load: os.loadavg()[0],
  };
}

async function main() {
  const named = options(process.argv.slice(2));
  const sizes = String(named.sizes ?? "100,1000,10000").split(",").map(Number);
  const clients = Number(named.clients ?? 16);
  const rounds = Number(named.rounds ?? 25);
  const kinds = String(named.stores ?? "files,postgres").split(",");
  const apart = named.apart === true;
  let server = null;
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-claims-scale-")));
  const specs = [];
  if (kinds.includes("files")) specs.push((n) => ({ kind: "files", apart, home: path.join(base, `home-${n}`) }));
  if (kinds.includes("postgres")) {
    const { startPostgres } = await import("../tests/node/conductor/pg-server.mjs");
    server = await startPostgres({ fsync: true });
    specs.push((n) => ({ kind: "postgres", apart, settings: server.store({ namespace: `scale-${n}`, maxConnections: 2 }), env: { ...process.env, ...server.env } }));
  }
  console.log(`claims at scale: node ${process.versions.node}, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}; ` +
    `${clients} client processes x ${rounds} claims (+ releases) each; ` +
    (apart ? "apart: a store each, none filled (the column \"claims\" is then only the row's name)" : `holders: one instance per ${PER_INSTANCE} claims, 1 in ${GLOB_EVERY} a glob`));
  console.log("store      claims   claims/s    p50 ms    p99 ms  failures  one client p50 ms  load (1 min)");
  try {
    for (const make of specs) {
      for (const size of sizes) {
        const spec = make(size);
        const r = await measure(spec, size, { clients, rounds });
        console.log(`${spec.kind.padEnd(9)} ${String(size).padStart(7)} ${r.claimsPerSecond.toFixed(1).padStart(10)} ${r.p50.toFixed(1).padStart(9)} ` +
          `${r.p99.toFixed(1).padStart(9)} ${String(r.failures).padStart(9)} ${r.soloP50.toFixed(1).padStart(18)} ${r.load.toFixed(1).padStart(13)}`);
      }
    }
  } finally {
    server?.destroy();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--worker") {
  await worker(JSON.parse(process.argv[3]), process.argv[4], Number(process.argv[5]));
} else {
  await main();
}
