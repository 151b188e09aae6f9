// Benchmark of the conductor's inter-process lock (plugin/conductor/lock.js over
// proper-lockfile): the cost of one uncontended lock + unlock, and, when the core has the
// conductor, of one whole operation (lock, read, decide, atomic write, unlock).
// `node bench/conductor-lock.bench.mjs [runs]`; in Bun: `BUN_BE_BUN=1 tests/host/node_modules/.bin/opencode bench/conductor-lock.bench.mjs`.
// Not a test: it reports figures, it asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { acquireLock } from "../plugin/conductor/lock.js";
import { runConductor } from "../plugin/conductor/store.js";
import { loadCore } from "../plugin/core-loader.js";

const runs = Number(process.argv[2]) || 500;
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;
const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-conductor-bench-")));

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const report = (label, times) => {
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(`${label}: p50 ${percentile(sorted, 50).toFixed(3)} ms, p99 ${percentile(sorted, 99).toFixed(3)} ms, mean ${mean.toFixed(3)} ms (${times.length} runs)`);
};

async function time(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

console.log(`conductor lock benchmark, ${runtime}, ${os.cpus().length} cpu(s), home ${home}`);
for (let i = 0; i < 20; i++) await (await acquireLock(home)).release(); // warm-up
const lockTimes = [];
for (let i = 0; i < runs; i++) lockTimes.push(await time(async () => (await acquireLock(home)).release()));
report("lock + unlock (conductor lock)", lockTimes);
// For comparison: proper-lockfile alone (no owner file, no guarded takeover).
const { default: lockfile } = await import("proper-lockfile");
const plainTarget = path.join(home, "plain");
const plainTimes = [];
for (let i = 0; i < runs; i++) plainTimes.push(await time(async () => (await lockfile.lock(plainTarget, { realpath: false, stale: 5000, update: 1000 }))()));
report("lock + unlock (plain proper-lockfile)", plainTimes);

if (typeof loadCore().conductorApply === "function") {
  const started = await runConductor({ home, op: { operation: "start", task: "bench", project: "bench", priority: "P1", working_directory: home, source: "web" } });
  const id = started.result.instance_id;
  // A heartbeat one second later each time: the state changes, so every run writes (temp
  // file, fsync, rename, folder fsync); a status only reads.
  const t0 = Date.now();
  const at = (i) => new Date(t0 + (i + 1) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  for (const operation of ["heartbeat", "status"]) {
    const times = [];
    for (let i = 0; i < runs; i++) times.push(await time(() => runConductor({ home, now: at(i), op: { operation, instance_id: id } })));
    report(`whole operation (${operation}${operation === "heartbeat" ? ", writes" : ", reads"})`, times);
  }
} else {
  console.log("whole operation: skipped, pkg/nso.js has no conductorApply yet (npm run build)");
}
fs.rmSync(home, { recursive: true, force: true });
