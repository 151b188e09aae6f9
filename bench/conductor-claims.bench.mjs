// Benchmark of conductor claims through the file store (plugin/conductor/store.js):
// 1. one new claim end to end (lock, read status.json, the core decides, write with fsync,
//    rename, unlock) with 100, 1,000 and 10,000 claims already in status.json, p50/p99, and
//    how the cost grows with the number of claims;
// 2. 16 processes claiming at once (each its own instance, claim + release rounds on its own
//    paths plus shared ones that conflict): total operations per second, p50/p99 latency.
// The PostgreSQL store is compared with this one in bench/conductor-store.bench.mjs.
//
// `node bench/conductor-claims.bench.mjs [--sizes=100,1000,10000] [--runs=200] [--workers=16] [--rounds=40]`;
// in Bun: `BUN_BE_BUN=1 tests/host/node_modules/.bin/opencode bench/conductor-claims.bench.mjs` (workers
// are this script run by process.execPath with `--worker`). `bash bench/run.sh` runs both.
// Not a test: it reports figures, it asserts nothing (it stops if an answer is not the one
// it meant to measure).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isoSeconds, random6, runConductor } from "../plugin/conductor/store.js";
import { processStartToken } from "../plugin/conductor/liveness.js";
import { loadCore } from "../plugin/core-loader.js";

const SCRIPT = fileURLToPath(import.meta.url);
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;
/** Instances holding the claims already in status.json (scenario 1). */
const HOLDERS = 10;
/** Paths every worker of scenario 2 also claims now and then: they conflict. */
const SHARED = 4;

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sortedOf = (times) => Float64Array.from(times).sort();
const ms = (n) => `${n.toFixed(2).padStart(7)} ms`;
const stats = (times) => {
  const sorted = sortedOf(times);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1], n: sorted.length };
};

/** `--name=value` options; the rest positional. */
function options(argv) {
  const named = {};
  const rest = [];
  for (const arg of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (m) named[m[1]] = m[2] ?? true;
    else rest.push(arg);
  }
  return { named, rest };
}

/** Runs one operation; an error answer stops the benchmark (it would measure something else). */
async function run(home, op) {
  const answer = await runConductor({ home, op });
  if (answer.error) throw new Error(`${op.operation}: ${answer.error.code}: ${answer.error.message}`);
  return answer;
}

// --- scenario 1: one claim against a status.json of N claims ---------------------------------

/**
 * status.json text with `count` claims (`/bench/p<k>/src/f<i>.ts`) spread over HOLDERS live
 * instances (this process's pid), made by the core itself (start, then claims in batches of
 * at most 1000, the core's limit per call), plus `me`: the instance that makes the measured
 * claims (on paths of its own project, `/bench/p<HOLDERS>/`).
 */
function buildState(core, count) {
  const now = isoSeconds();
  const host = os.hostname();
  const started = processStartToken(process.pid);
  let state = null;
  const apply = (op) => {
    const answer = JSON.parse(core.conductorApply(JSON.stringify({ state, sprint: null, now, random: random6(), host, alive: {}, ttlSeconds: 3600, op })));
    if (answer.error) throw new Error(`building the state: ${answer.error.code}: ${answer.error.message}`);
    if (typeof answer.state === "string") state = answer.state;
    return answer.result;
  };
  const register = (k) => apply({
    operation: "start", task: `bench holder ${k}`, priority: "P1", working_directory: `/bench/p${k}`, project_root: `/bench/p${k}`,
    source: "web", pid: process.pid, process_started: started, agent: "build", session: null,
  }).instance_id;
  const holders = Array.from({ length: HOLDERS }, (_, k) => register(k));
  for (let k = 0; k < HOLDERS; k++) {
    const mine = Array.from({ length: Math.floor(count / HOLDERS) + (k < count % HOLDERS ? 1 : 0) }, (_, i) => `/bench/p${k}/src/f${i}.ts`);
    for (let from = 0; from < mine.length; from += 1000) apply({ operation: "claim", instance_id: holders[k], files: mine.slice(from, from + 1000) });
  }
  const me = register(HOLDERS);
  return { state, me };
}

async function claimScaling(root, sizes, runs) {
  const core = loadCore();
  const rows = [];
  for (const size of sizes) {
    const home = path.join(root, `claims-${size}`);
    fs.mkdirSync(home, { mode: 0o700 });
    const t0 = performance.now();
    const { state, me } = buildState(core, size);
    const buildMs = performance.now() - t0;
    fs.writeFileSync(path.join(home, "status.json"), state, { mode: 0o600 });
    // Each measured claim is a path not held yet (so the state changes and is written); it
    // is released afterwards, untimed, so every claim meets exactly `size` claims.
    let next = 0;
    const claimOnce = async () => {
      const file = `/bench/p${HOLDERS}/src/f${next++}.ts`;
      const t = performance.now();
      const answer = await run(home, { operation: "claim", instance_id: me, files: [file] });
      const took = performance.now() - t;
      if (answer.result?.status !== "ok" || !answer.changed) throw new Error(`claim ${file}: ${JSON.stringify(answer.result)}`);
      await run(home, { operation: "release", instance_id: me, files: [file] });
      return took;
    };
    for (let i = 0; i < 10; i++) await claimOnce(); // warm-up
    const times = [];
    for (let i = 0; i < runs; i++) times.push(await claimOnce());
    // The core's part alone: the same decision without lock, files or fsync.
    const text = fs.readFileSync(path.join(home, "status.json"), "utf8");
    const coreTimes = [];
    for (let i = 0; i < Math.min(runs, 50); i++) {
      const request = JSON.stringify({
        state: text, sprint: null, now: isoSeconds(), random: random6(), host: os.hostname(), alive: {}, ttlSeconds: 3600,
        op: { operation: "claim", instance_id: me, files: [`/bench/p${HOLDERS}/src/core${i}.ts`] },
      });
      const t = performance.now();
      core.conductorApply(request);
      coreTimes.push(performance.now() - t);
    }
    const row = { size, bytes: Buffer.byteLength(text), buildMs, ...stats(times), core: stats(coreTimes) };
    rows.push(row);
    console.log(`${String(size).padStart(6)} claims (status.json ${(row.bytes / 1024).toFixed(0).padStart(4)} KiB): ` +
      `p50 ${ms(row.p50)}  p99 ${ms(row.p99)}  max ${ms(row.max)}  (${row.n} claims; core alone p50 ${ms(row.core.p50)}; ` +
      `state built by the core in ${(buildMs / 1000).toFixed(1)} s)`);
    fs.rmSync(home, { recursive: true, force: true });
  }
  // Growth per 10x more claims (x10 = linear). End to end, a fixed cost (lock, fsync) hides
  // the growth at small sizes; the core alone shows how the decision itself scales.
  const per10x = (a, b, key) => (key(b) / key(a)) ** (1 / Math.log10(b.size / a.size));
  // n log n from 1,000 to 10,000 claims would be x13.3.
  const reading = (r) => (r > 15 ? "superlinear" : r > 12 ? "about n log n" : r < 7 ? "below linear here (fixed costs still count)" : "about linear");
  let top = null;
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    const whole = per10x(a, b, (r) => r.p50);
    const core = per10x(a, b, (r) => r.core.p50);
    const slope = ((b.p50 - a.p50) / (b.size - a.size)) * 1000;
    console.log(`  ${a.size} -> ${b.size} claims: end to end p50 x${whole.toFixed(2)} per 10x (${slope >= 0 ? "+" : ""}${slope.toFixed(2)} µs ` +
      `per extra claim); core alone p50 x${core.toFixed(2)} per 10x; outside the core (lock, files, fsync) ` +
      `~${ms(a.p50 - a.core.p50).trim()} -> ~${ms(b.p50 - b.core.p50).trim()}`);
    top = { whole, core };
  }
  if (top) {
    console.log(`  growth at the largest step: end to end x${top.whole.toFixed(2)} per 10x: ${reading(top.whole)}; ` +
      `core alone x${top.core.toFixed(2)} per 10x: ${reading(top.core)} (x10 = linear)`);
  }
}

// --- scenario 2: many processes at once ----------------------------------------------------

/**
 * A worker process: registers (start, P1, its pid), says "ready", waits for "go" on stdin,
 * then `rounds` times claims its own new path (every 4th round with one of SHARED shared
 * paths too: all or nothing, so a conflict claims nothing and it claims its own path alone
 * next) and releases all. Prints one JSON line: the time of each operation by kind.
 */
async function worker(home, index, rounds) {
  const root = `/bench/w${index}`;
  const started = await run(home, {
    operation: "start", task: `bench worker ${index}`, project: "bench", priority: "P1", working_directory: root, project_root: root,
    source: "web", pid: process.pid, process_started: processStartToken(process.pid), agent: "build", session: null,
  });
  const id = started.result.instance_id;
  process.stdout.write("ready\n");
  await new Promise((resolve) => {
    process.stdin.once("data", resolve);
    process.stdin.once("end", resolve);
  });
  const times = { claim: [], conflict: [], release: [] };
  let failed = 0;
  const timed = async (kind, op) => {
    const t = performance.now();
    try {
      const answer = await run(home, op);
      const took = performance.now() - t;
      const as = kind === "claim" && answer.result?.status === "conflict" ? "conflict" : kind;
      times[as].push(took);
      return answer.result;
    } catch (error) {
      failed++;
      process.stderr.write(`worker ${index}: ${error.message}\n`);
      return null;
    }
  };
  const begin = Date.now();
  for (let i = 0; i < rounds; i++) {
    const own = `${root}/src/f${i}.ts`;
    const files = i % 4 === index % 4 ? [own, `/bench/shared/s${(index + i) % SHARED}.ts`] : [own];
    const claim = await timed("claim", { operation: "claim", instance_id: id, files });
    if (claim?.status === "conflict") await timed("claim", { operation: "claim", instance_id: id, files: [own] });
    await timed("release", { operation: "release", instance_id: id, all: true });
  }
  const end = Date.now();
  await run(home, { operation: "done", instance_id: id, outcome: "success" });
  process.stdout.write(`${JSON.stringify({ index, begin, end, failed, times })}\n`, () => process.exit(0));
}

/** Spawns `count` workers, starts them together, and collects what each printed. */
async function concurrent(root, count, rounds) {
  const home = path.join(root, "concurrent");
  fs.mkdirSync(home, { mode: 0o700 });
  const children = Array.from({ length: count }, (_, index) => {
    const child = spawn(process.execPath, [SCRIPT, "--worker", home, String(index), String(rounds)], {
      stdio: ["pipe", "pipe", "pipe"], env: process.env,
    });
    let out = "";
    let err = "";
    let onReady;
    const ready = new Promise((resolve) => (onReady = resolve));
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("ready\n")) onReady(true);
    });
    child.stderr.on("data", (d) => (err += d));
    const exited = new Promise((resolve) => child.on("close", (code) => {
      onReady(false);
      resolve(code);
    }));
    return { child, ready, exited, output: () => out, errors: () => err };
  });
  try {
    const readies = await Promise.all(children.map((c) => c.ready));
    const notReady = readies.indexOf(false);
    if (notReady >= 0) throw new Error(`worker ${notReady} failed before it was ready: ${children[notReady].errors() || children[notReady].output()}`);
    for (const c of children) c.child.stdin.end("go\n");
    const codes = await Promise.all(children.map((c) => c.exited));
    const results = children.map((c, i) => {
      const line = c.output().split("\n").find((l) => l.startsWith("{"));
      if (codes[i] !== 0 || !line) throw new Error(`worker ${i} exited with ${codes[i]}: ${c.errors()}`);
      return JSON.parse(line);
    });
    return results;
  } finally {
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
    fs.rmSync(home, { recursive: true, force: true });
  }
}

function reportConcurrent(results, count, rounds) {
  const all = { claim: [], conflict: [], release: [] };
  for (const r of results) for (const kind of Object.keys(all)) all[kind].push(...r.times[kind]);
  const every = [...all.claim, ...all.conflict, ...all.release];
  const begin = Math.min(...results.map((r) => r.begin));
  const end = Math.max(...results.map((r) => r.end));
  const seconds = (end - begin) / 1000;
  const failed = results.reduce((n, r) => n + r.failed, 0);
  const total = stats(every);
  console.log(`${count} processes x ${rounds} rounds: ${every.length} operations in ${seconds.toFixed(2)} s = ` +
    `${Math.round(every.length / seconds)} operations/s (${failed} failed)`);
  console.log(`  every operation: p50 ${ms(total.p50)}  p99 ${ms(total.p99)}  max ${ms(total.max)}`);
  for (const [kind, label] of [["claim", "claim (granted)"], ["conflict", "claim (conflict, nothing claimed)"], ["release", "release all"]]) {
    if (!all[kind].length) continue;
    const s = stats(all[kind]);
    console.log(`  ${label.padEnd(34)} p50 ${ms(s.p50)}  p99 ${ms(s.p99)}  max ${ms(s.max)}  (${s.n})`);
  }
  const spans = results.map((r) => (r.end - r.begin) / 1000).sort((a, b) => a - b);
  console.log(`  per process: fastest done in ${spans[0].toFixed(2)} s, slowest in ${spans[spans.length - 1].toFixed(2)} s`);
}

// --- main ----------------------------------------------------------------------------------

async function main() {
  const { named } = options(process.argv.slice(2));
  const sizes = String(named.sizes ?? "100,1000,10000").split(",").map(Number).filter((n) => n > 0);
  const runs = Number(named.runs) || 200;
  const workers = Number(named.workers) || 16;
  const rounds = Number(named.rounds) || 40;
  if (typeof loadCore().conductorApply !== "function") {
    console.log("conductor claims benchmark: skipped, pkg/nso.js has no conductorApply (npm run build)");
    return;
  }
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-claims-bench-")));
  try {
    console.log(`conductor claims benchmark, file store (${runtime}, ${os.cpus().length} cpu(s), state in ${os.tmpdir()})`);
    console.log("new claim end to end (lock, read, core decides, write + fsync, rename, unlock):");
    await claimScaling(root, sizes, runs);
    console.log("concurrent claims (each process: start P1, then claim its own new path, every 4th round with a shared one, release all):");
    const results = await concurrent(root, workers, rounds);
    reportConcurrent(results, workers, rounds);
    console.log("PostgreSQL store: none yet; these are the file store's figures only.");
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const argv = process.argv.slice(2);
if (argv[0] === "--worker") await worker(argv[1], Number(argv[2]), Number(argv[3]));
else await main();
