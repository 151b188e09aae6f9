// Benchmark of Mission Control (issue 12) at scale: 12 instances, 50 sessions, 100,000
// activity lines in the feeds, 12 Conductor instances with claims. `nso mc` runs as its own
// process; while every feed grows as a live plugin's would (a batch every 250 ms), this
// process appends a marked call line to a feed and times until an SSE client receives the
// delta that carries it. Reports the latency (p50, p95, max), the cost of one rebuild (read
// the feeds, build the snapshot, diff), and the server's RSS at start, under load and after
// the feeds grew by another 100,000 lines (the model reads each feed's tail only).
// Reports figures, asserts nothing. `node bench/mc.bench.mjs`
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { buildSnapshot, diffSnapshots, processAlive, readFeeds } = await import(pathToFileURL(path.join(here, "../bin/mc/model.js")).href);
const { runConductor } = await import(pathToFileURL(path.join(here, "../plugin/conductor/store.js")).href);

const INSTANCES = 12;
const SESSIONS = 50;
const LINES = 100_000;
const SAMPLES = 100;
const HOST = os.hostname();

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const ms = (x) => `${x.toFixed(1)} ms`;
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;

const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-bench-mc-"));
const roots = Array.from({ length: 3 }, (_, i) => {
  const dir = path.join(home, `project-${i}`);
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  return dir;
});
fs.mkdirSync(path.join(home, "activity"), { recursive: true });

// The feeds: instance i has sessions s with s % INSTANCES === i.
const feeds = Array.from({ length: INSTANCES }, (_, i) => ({
  key: `${HOST}-${process.pid}-bench${String.fromCharCode(97 + i)}`,
  root: roots[i % roots.length],
  sessions: Array.from({ length: SESSIONS }, (_, s) => s).filter((s) => s % INSTANCES === i).map((s) => `ses_bench_${s}`),
}));
const file = (f) => path.join(home, "activity", `${f.key}.jsonl`);

let seq = 0;
/** `n` realistic records of feed `f`: call starts and ends, some refusals, now and then idle. */
function records(f, n, t) {
  const out = [];
  while (out.length < n) {
    const session = f.sessions[seq % f.sessions.length];
    const callID = `call_${++seq}`;
    const target = `src/module_${seq % 97}/file_${seq % 13}.ts`;
    if (seq % 50 === 0) {
      out.push({ v: 1, t, kind: "call", session, agent: "build", tool: "write", callID, phase: "start", verdict: "block", rule: "conductor.claim", target,
        message: `NSO blocked write for @build: ${target} is claimed by instance opc-abcdef (project p, task "something", agent @build). ${"Options: wait. ".repeat(15)}` });
    } else {
      out.push({ v: 1, t, kind: "call", session, agent: "build", tool: seq % 3 ? "read" : "edit", callID, phase: "start", verdict: "allow", rule: null, target, message: null });
      out.push({ v: 1, t, kind: "call", session, agent: "build", tool: seq % 3 ? "read" : "edit", callID, phase: "end", verdict: null, rule: null, target, message: null });
    }
    if (seq % 40 === 0) out.push({ v: 1, t, kind: "idle", session });
  }
  return out.slice(0, n);
}
const lines = (list) => list.map((r) => JSON.stringify(r) + "\n").join("");

const t0 = Date.now() - 3600_000;
for (const f of feeds) {
  const head = [{ v: 1, t: t0, kind: "instance", pid: process.pid, host: HOST, started: t0, project: path.basename(f.root), root: f.root, serverUrl: null, nso: "bench" }];
  for (const s of f.sessions) {
    head.push({ v: 1, t: t0, kind: "session", session: s, parent: null, agent: "build", title: `title ${s}` });
    head.push({ v: 1, t: t0, kind: "task", session: s, task: `Task of ${s}: ${"implement the thing ".repeat(5)}` });
  }
  fs.writeFileSync(file(f), lines(head) + lines(records(f, Math.floor(LINES / INSTANCES) - head.length, t0)));
}
const feedBytes = feeds.reduce((sum, f) => sum + fs.statSync(file(f)).size, 0);

// The Conductor: one instance per feed's first session, each claiming a few files.
for (const f of feeds) {
  const { result } = await runConductor({ home, op: { operation: "start", task: `bench ${f.key}`, priority: "P2", project_root: f.root, working_directory: f.root,
    source: "opc", host: HOST, pid: process.pid, process_started: null, agent: "build", session: f.sessions[0] } });
  await runConductor({ home, op: { operation: "claim", instance_id: result.instance_id, files: [0, 1, 2].map((k) => path.join(f.root, `src/${f.key}-${k}.ts`)) } });
}

// The cost of one rebuild, in this process.
{
  const times = { read: [], build: [], diff: [] };
  let before = null;
  for (let i = 0; i < 10; i++) {
    let t = performance.now();
    const read = readFeeds(home);
    times.read.push(performance.now() - t);
    t = performance.now();
    const snap = buildSnapshot({ state: JSON.parse(fs.readFileSync(path.join(home, "status.json"), "utf8")), feeds: read, now: Date.now(), alive: processAlive });
    times.build.push(performance.now() - t);
    t = performance.now();
    diffSnapshots(before, snap);
    times.diff.push(performance.now() - t);
    before = snap;
  }
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(`mc: ${INSTANCES} instances, ${SESSIONS} sessions, ${LINES.toLocaleString("en")} lines (${(feedBytes / 1048576).toFixed(1)} MiB of feeds), ${before.agents.length} rows`);
  console.log(`  one rebuild (node ${process.versions.node}, median of 10): read the feeds ${ms(med(times.read))}, build ${ms(med(times.build))}, diff ${ms(med(times.diff))}; snapshot ${(JSON.stringify(before).length / 1024).toFixed(0)} KiB as JSON`);
}

// `nso mc` as its own process.
const started = performance.now();
const server = spawn(process.execPath, [path.join(here, "../bin/nso.js"), "mc", "--home", home, "--no-open"], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, CI: "1" } });
const url = await new Promise((resolve, reject) => {
  let out = "";
  server.stdout.setEncoding("utf8").on("data", (d) => {
    out += d;
    const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/.exec(out);
    if (m) resolve(new URL(m[1]));
  });
  server.on("exit", (code) => reject(new Error(`nso mc exited ${code}`)));
});
/** The server's CPU time so far (ms): user + system, from /proc/<pid>/stat (clock ticks of 10 ms). */
const cpu = () => {
  const f = fs.readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
const rss = () => {
  const status = fs.readFileSync(`/proc/${server.pid}/status`, "utf8");
  return { rss: Number(/VmRSS:\s+(\d+)/.exec(status)[1]), hwm: Number(/VmHWM:\s+(\d+)/.exec(status)[1]) };
};

/** The SSE client: resolves `waitFor(marker)` when a frame holding it arrives. */
const waiting = new Map();
let firstSnapshot;
const snapshotSeen = new Promise((resolve) => (firstSnapshot = resolve));
let frames = 0;
let bytes = 0;
http.get({ host: "127.0.0.1", port: url.port, path: `/events?token=${url.searchParams.get("token")}` }, (res) => {
  let buffer = "";
  res.setEncoding("utf8").on("data", (d) => {
    const at = performance.now();
    bytes += d.length;
    buffer += d;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      frames++;
      if (frame.includes("event: snapshot")) firstSnapshot(at);
      for (const [marker, done] of waiting) {
        if (frame.includes(marker)) {
          waiting.delete(marker);
          done(at);
        }
      }
    }
  });
});
const snapshotAt = await snapshotSeen;
console.log(`  nso mc: address printed and first snapshot received ${ms(snapshotAt - started)} after spawn; RSS ${mib(rss().rss)}`);

// Load: every feed gets a batch every 250 ms, as a live plugin's does.
const cpuBefore = cpu();
const loadStarted = performance.now();
const load = setInterval(() => {
  const t = Date.now();
  for (const f of feeds) fs.appendFileSync(file(f), lines(records(f, 4, t)));
}, 250);

const latencies = [];
for (let i = 0; i < SAMPLES; i++) {
  await new Promise((r) => setTimeout(r, 20 + (i % 7) * 11)); // not in step with the load
  const f = feeds[i % feeds.length];
  const marker = `bench-marker-${i}-${Math.random().toString(36).slice(2, 8)}`;
  const arrived = new Promise((resolve) => waiting.set(marker, resolve));
  const t = performance.now();
  fs.appendFileSync(file(f), JSON.stringify({ v: 1, t: Date.now(), kind: "call", session: f.sessions[0], agent: "build", tool: "bash", callID: marker, phase: "start",
    verdict: "allow", rule: null, target: marker, message: null }) + "\n");
  const timeout = new Promise((resolve) => setTimeout(() => resolve(null), 5000));
  const at = await Promise.race([arrived, timeout]);
  latencies.push(at === null ? Infinity : at - t);
}
const underLoad = rss();
const cpuShare = (cpu() - cpuBefore) / (performance.now() - loadStarted);
clearInterval(load);
const sorted = [...latencies].sort((a, b) => a - b);
console.log(`  append → delta at the SSE client (${SAMPLES} samples, all ${INSTANCES} feeds also written every 250 ms): ` +
  `p50 ${ms(percentile(sorted, 50))}, p95 ${ms(percentile(sorted, 95))}, max ${ms(sorted.at(-1))}` +
  `${sorted.includes(Infinity) ? ` (${sorted.filter((x) => x === Infinity).length} not seen within 5 s)` : ""}`);
console.log(`  SSE: ${frames} frames, ${(bytes / 1024).toFixed(0)} KiB received in all`);
console.log(`  server under load: CPU ${(cpuShare * 100).toFixed(0)}% of one core, RSS ${mib(underLoad.rss)} (peak ${mib(underLoad.hwm)})`);

// Growth: another 100,000 lines; the server reads tails, so its memory stays where it was.
for (const f of feeds) fs.appendFileSync(file(f), lines(records(f, Math.floor(LINES / INSTANCES), Date.now())));
await new Promise((r) => setTimeout(r, 2500));
const grown = rss();
const grownBytes = feeds.reduce((sum, f) => sum + fs.statSync(file(f)).size, 0);
console.log(`  after the feeds grew to ${(grownBytes / 1048576).toFixed(1)} MiB (${(2 * LINES).toLocaleString("en")} lines): server RSS ${mib(grown.rss)} (peak ${mib(grown.hwm)})`);

server.kill("SIGTERM");
await new Promise((r) => server.on("exit", r));
fs.rmSync(home, { recursive: true, force: true });
process.exit(0);
