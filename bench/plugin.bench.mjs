// Benchmark of the NSO plugin through its real shim: cold start (import + wasm instantiate +
// config load) and per-call latency of tool.execute.before decisions, p50 and p99.
// Runs in Node and in OpenCode's own Bun (`BUN_BE_BUN=1 opencode bench/plugin.bench.mjs`);
// `bash bench/run.sh` runs both. Not a test: it reports figures, it asserts nothing.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const pluginUrl = pathToFileURL(path.join(here, "../plugin/nso-plugin.js")).href;
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;

/** A project; `conductor` is its conductor mode (claims at the hooks, or `off`). */
function project(conductor = "off") {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-bench-")));
  fs.mkdirSync(path.join(dir, ".opencode/context/01_memory"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".opencode/context/01_memory/active_context.md"), "Focus: auth.\n");
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-bench-conductor-"));
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({ conductor: { mode: conductor, home } }));
  return dir;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** One cold start in this (fresh) process: import, instantiate, load config. */
async function coldChild(dir) {
  const t0 = performance.now();
  const plugin = (await import(pluginUrl)).default;
  await plugin.server({ directory: dir, worktree: dir });
  process.stdout.write(`${performance.now() - t0}\n`);
}

function coldStart(dir, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--cold-child", dir], {
      encoding: "utf8",
      env: process.env,
    });
    if (child.status !== 0) throw new Error(`cold start child failed: ${child.stderr}`);
    times.push(Number(child.stdout.trim()));
  }
  return times.sort((a, b) => a - b);
}

/** A call of `tool.execute.before` for a scenario, checking the expected verdict. */
function caller(hooks, scenario) {
  const sessionID = scenario.agent ? `ses_${scenario.agent}` : "ses_bench";
  const call = () => hooks["tool.execute.before"](
    { tool: scenario.tool, sessionID, callID: "c" },
    { args: scenario.args },
  ).then(
    () => (scenario.expectBlock ? Promise.reject(new Error(`${scenario.name}: not blocked`)) : null),
    (error) => (scenario.expectBlock ? null : Promise.reject(error)),
  );
  return call;
}

/** Per-call latency of one scenario, in microseconds (after every scenario was warmed). */
async function perCall(call, iterations) {
  const times = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await call();
    times[i] = (performance.now() - t0) * 1000;
  }
  return Array.from(times).sort((a, b) => a - b);
}

/** Scenarios measured; later issues add theirs here. */
export const scenarios = [
  { name: "write allow (200 B content)", tool: "write", args: { filePath: "src/app.ts", content: "x".repeat(200) } },
  { name: "edit allow", tool: "edit", args: { filePath: "src/app.ts", oldString: "a = 1", newString: "a = 2" } },
  { name: "read allow", tool: "read", args: { filePath: "src/app.ts" } },
  { name: "write block (outside the project)", tool: "write", args: { filePath: "/etc/nso-bench", content: "x" }, expectBlock: true },
  {
    name: "bash allow (compound, 100 chars)",
    tool: "bash",
    args: { command: 'cd src && git -C .. status --short | tee ../out.txt && VAR=1 bash -lc "git log -1" 2>/dev/null' },
  },
  { name: "bash block (git push behind cd)", tool: "bash", args: { command: "cd src && git push origin main" }, agent: "janitor", expectBlock: true },
];

/**
 * The original NSO design ran a Python hook per tool call: a process that reads the call
 * as JSON and answers. Measured with the same call, so the ratio is like for like.
 */
function pythonBaseline(runs) {
  const hook = "import json,sys; call=json.load(sys.stdin); sys.exit(0 if call['tool'] else 1)";
  const input = JSON.stringify({ tool: "write", args: scenarios[0].args });
  // The interpreter itself, not a version-manager shim in front of it (that costs ~5x more).
  const python = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout.trim();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(python, ["-c", hook], { input });
    if (r.status !== 0) throw new Error(`python baseline failed: ${r.stderr}`);
    times.push((performance.now() - t0) * 1000);
  }
  return times.sort((a, b) => a - b);
}

/** Hooks of a plugin instance on a fresh project, with every scenario's agent noted. */
async function start(plugin, conductor) {
  const dir = project(conductor);
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks["chat.params"]({ sessionID: "ses_bench", message: { agent: "build" } }, {});
  for (const { agent } of scenarios.filter((s) => s.agent)) {
    await hooks["chat.params"]({ sessionID: `ses_${agent}`, message: { agent } }, {});
  }
  return { dir, hooks };
}

async function main() {
  const plugin = (await import(pluginUrl)).default;
  const { dir, hooks } = await start(plugin, "off");
  const claiming = await start(plugin, "enforce");
  const cold = coldStart(dir, 30);
  const coldClaims = coldStart(claiming.dir, 15);
  const wasm = fs.readFileSync(path.join(here, "../pkg/nso_bg.wasm"));
  const fmt = (n) => n.toFixed(2).padStart(8);
  console.log(`NSO plugin benchmark (${runtime}, ${os.cpus().length} cores)`);
  console.log(`wasm: ${wasm.length} bytes raw, ${zlib.gzipSync(wasm, { level: 9 }).length} bytes gzipped`);
  console.log(`cold start (import + instantiate + config), ${cold.length} processes: ` +
    `p50 ${fmt(percentile(cold, 50))} ms  p99 ${fmt(percentile(cold, 99))} ms`);
  console.log(`cold start, conductor on (enforce), ${coldClaims.length} processes: ` +
    `p50 ${fmt(percentile(coldClaims, 50))} ms  p99 ${fmt(percentile(coldClaims, 99))} ms`);
  // Steady state: warm every scenario first, so the JIT and wasm tier-up (JSC keeps tiering
  // for a while) is not charged to whichever scenario happens to be measured first.
  // With the conductor on, the first call of a write scenario claims its target (lock,
  // write); the measured calls are those whose target the instance already holds.
  const calls = scenarios.map((scenario) => caller(hooks, scenario));
  const claimCalls = scenarios.map((scenario) => caller(claiming.hooks, scenario));
  for (let round = 0; round < 3; round++) {
    for (const call of [...calls, ...claimCalls]) for (let i = 0; i < 3000; i++) await call();
  }
  let writeP50;
  console.log(`${"".padEnd(40)} ${"conductor off".padEnd(34)} conductor on (target already held)`);
  for (const [index, scenario] of scenarios.entries()) {
    const t = await perCall(calls[index], 20000);
    const c = await perCall(claimCalls[index], 20000);
    writeP50 ??= percentile(t, 50);
    console.log(`${scenario.name.padEnd(40)} p50 ${fmt(percentile(t, 50))} µs  p99 ${fmt(percentile(t, 99))} µs` +
      `   p50 ${fmt(percentile(c, 50))} µs  p99 ${fmt(percentile(c, 99))} µs`);
  }
  // Routing a long message: only the router's scan window crosses into wasm (bounds.js).
  for (const size of [10_000, 10_000_000]) {
    const text = "please research the lemma and write a report ".repeat(Math.ceil(size / 46)).slice(0, size);
    const route = () => hooks["chat.message"]({ sessionID: "ses_route" }, { message: { agent: "build" }, parts: [{ type: "text", text }] });
    for (let i = 0; i < 300; i++) await route();
    const t = await perCall(route, 2000);
    const label = `route a ${size >= 1e6 ? `${size / 1e6} MB` : `${size / 1e3} KB`} message`;
    console.log(`${label.padEnd(40)} p50 ${fmt(percentile(t, 50))} µs  p99 ${fmt(percentile(t, 99))} µs`);
  }
  const py = pythonBaseline(40);
  console.log(`${"baseline: python3 process per call".padEnd(40)} p50 ${fmt(percentile(py, 50))} µs  p99 ${fmt(percentile(py, 99))} µs`);
  console.log(`ratio (python baseline / NSO write allow, p50): ${Math.round(percentile(py, 50) / writeP50)}x`);
}

if (process.argv[2] === "--cold-child") await coldChild(process.argv[3]);
else await main();
