// The two claim stores side by side, in the same run on the same machine: the files of
// $CONDUCTOR_HOME (lock, read, core, fsync, rename) and PostgreSQL (the namespace locked, the
// rows concerned read, core, the changed rows written, COMMIT), through the interface the
// plugin uses (plugin/conductor/stores.js):
// 1. one client: a new claim end to end, p50/p99 (each followed by a release, not measured);
// 2. 16 processes at once, each its own instance, claim + release rounds on its own paths and
//    now and then a shared one (conflicts): p50/p99 of a claim and operations per second.
// PostgreSQL is a real server started here (Debian's package, fsync on, 127.0.0.1), as the
// tests start it (tests/node/conductor/pg-server.mjs), and stopped at the end.
//
// `node bench/conductor-store.bench.mjs [--runs=300] [--workers=16] [--rounds=40]`.
// Not a test: it reports figures, it asserts nothing (it stops on an answer it did not mean to
// measure).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openStore, closeStores } from "../plugin/conductor/stores.js";
import { processStartToken } from "../plugin/conductor/liveness.js";

const SCRIPT = fileURLToPath(import.meta.url);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const stats = (times) => {
  const sorted = Float64Array.from(times).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
};
const ms = (n) => `${n.toFixed(2)} ms`;
const named = Object.fromEntries(process.argv.slice(2).map((a) => /^--([a-z-]+)=(.*)$/.exec(a)).filter(Boolean).map((m) => [m[1], m[2]]));

/** The store of a spec: `{kind: "files", home}` or `{kind: "postgres", store}`. */
const storeOf = (spec) => (spec.kind === "files" ? openStore({}, { home: spec.home }) : openStore({ store: spec.store }, { env: process.env }));

async function run(store, op) {
  const answer = await store.run({ op });
  if (answer.error) throw new Error(`${op.operation}: ${answer.error.code}: ${answer.error.message}`);
  return answer.result;
}

async function register(store, tag) {
  return (await run(store, {
    operation: "start", task: `bench ${tag}`, priority: "P1", working_directory: `/bench/${tag}`, project_root: `/bench/${tag}`, source: "web",
    pid: process.pid, process_started: processStartToken(process.pid), agent: "build", session: null,
  })).instance_id;
}

/** Scenario 1: `runs` new claims by one client. */
async function single(spec, runs) {
  const store = storeOf(spec);
  const id = await register(store, "single");
  const times = [];
  for (let i = 0; i < runs + 20; i++) {
    const t0 = performance.now();
    const result = await run(store, { operation: "claim", instance_id: id, files: [`/bench/single/src/f${i}.ts`] });
    const took = performance.now() - t0;
    if (result.status !== "ok") throw new Error(`claim ${i}: ${result.status}`);
    if (i >= 20) times.push(took); // the first ones warm up the core and the connection
    await run(store, { operation: "release", instance_id: id, all: true });
  }
  await run(store, { operation: "done", instance_id: id, outcome: "success" });
  return stats(times);
}

/**
 * A worker of scenario 2: registers, prints "ready", waits for "go" on stdin (all start
 * together, process start-up is not measured), then prints one JSON line
 * `{claims: [ms...], ops, start, end}` (times: ms since the epoch).
 */
async function worker(spec, rounds, n) {
  const store = storeOf(spec);
  const id = await register(store, `w${n}`);
  console.log("ready");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  const start = performance.timeOrigin + performance.now();
  const claims = [];
  let ops = 0;
  for (let i = 0; i < rounds; i++) {
    const files = [`/bench/w${n}/src/f${i}.ts`];
    if (i % 5 === 0) files.push(`/bench/shared/s${i % 4}.ts`);
    const t0 = performance.now();
    const result = await run(store, { operation: "claim", instance_id: id, files });
    claims.push(performance.now() - t0);
    ops++;
    if (result.status === "ok") {
      await run(store, { operation: "release", instance_id: id, all: true });
      ops++;
    }
  }
  const end = performance.timeOrigin + performance.now();
  await run(store, { operation: "done", instance_id: id, outcome: "success" });
  await closeStores();
  console.log(JSON.stringify({ claims, ops, start, end }));
  process.stdin.destroy();
}

/** Scenario 2: `count` processes at once; latency of a claim and operations per second. */
async function crowd(spec, count, rounds) {
  const children = Array.from({ length: count }, (_, n) => {
    const child = spawn(process.execPath, [SCRIPT, "--worker", JSON.stringify(spec), String(rounds), String(n)], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    const ready = new Promise((resolve) => child.stdout.on("data", (d) => {
      out += d;
      if (out.startsWith("ready\n")) resolve();
    }));
    const done = new Promise((resolve, reject) => child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.split("\n")[1])) : reject(new Error(`worker ${n} exited ${code}`)))));
    return { child, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.child.stdin.write("go\n");
  const outputs = await Promise.all(children.map((c) => c.done));
  const seconds = (Math.max(...outputs.map((o) => o.end)) - Math.min(...outputs.map((o) => o.start))) / 1000;
  const ops = outputs.reduce((sum, o) => sum + o.ops, 0);
  return { ...stats(outputs.flatMap((o) => o.claims)), ops, seconds, perSecond: ops / seconds };
}

if (process.argv[2] === "--worker") {
  await worker(JSON.parse(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]));
} else {
  const { startPostgres } = await import("../tests/node/conductor/pg-server.mjs");
  const runs = Number(named.runs ?? 300);
  const workers = Number(named.workers ?? 16);
  const rounds = Number(named.rounds ?? 40);
  const server = await startPostgres({ fsync: true });
  Object.assign(process.env, server.env);
  const home = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "nso-bench-store-")), "home");
  const specs = {
    files: (tag) => ({ kind: "files", home: `${home}-${tag}` }),
    postgres: (tag) => ({ kind: "postgres", store: server.store({ namespace: `bench-${tag}`, timeoutMs: 30_000 }) }),
  };
  try {
    console.log(`conductor stores, node ${process.versions.node}, ${os.cpus().length} cores; PostgreSQL ${(await server.query("SHOW server_version"))[0].server_version} on 127.0.0.1, fsync on`);
    for (const kind of Object.keys(specs)) {
      const one = await single(specs[kind]("single"), runs);
      await closeStores();
      const many = await crowd(specs[kind]("crowd"), workers, rounds);
      console.log(`${kind.padEnd(8)} one client, a new claim: p50 ${ms(one.p50)}, p99 ${ms(one.p99)} (${one.n} claims)`);
      console.log(`${kind.padEnd(8)} ${workers} processes: a claim p50 ${ms(many.p50)}, p99 ${ms(many.p99)}; ${many.ops} operations in ${many.seconds.toFixed(2)} s = ${many.perSecond.toFixed(0)} operations/s`);
    }
  } finally {
    await closeStores();
    server.destroy();
  }
}
