// What a host pays per decision: the calls of bench/hook-calls.json (everyday agent calls
// under the kord preset) through the real `tool.execute.before`, in rotation as an agent's
// calls come, p50 and p99 per call; each refusal beside the same call by an agent allowed to
// make it; the same with claims on (conductor enforce, targets already held); cold start;
// and the native baseline (crate/examples/hook_speed.rs) from the same run when given
// (`--native file.json`). `bash bench/run.sh` runs it in Bun with the native baseline.
// Not a test: it reports figures, it asserts only that every verdict is the expected one.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const pluginUrl = pathToFileURL(path.join(here, "../plugin/nso-plugin.js")).href;
const { forgetChangedBy } = await import(pathToFileURL(path.join(here, "../plugin/files.js")).href);
const READ_ONLY = new Set(["read", "glob", "grep", "list"]);
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;
const spec = JSON.parse(fs.readFileSync(path.join(here, "hook-calls.json"), "utf8"));
const ROUNDS = Number(process.env.NSO_BENCH_ROUNDS ?? 20000);

/** A project on the preset with the files the calls name; `conductor` is its conductor mode. */
function project(conductor) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-hook-speed-")));
  fs.mkdirSync(path.join(dir, ".opencode"), { recursive: true });
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(path.join(dir, "src/app.ts"), "a = 1\n");
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-hook-speed-conductor-"));
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({ authority: { preset: spec.preset }, conductor: { mode: conductor, home } }));
  return dir;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Each call, and each refusal again as the agent it is allowed for. */
const runs = spec.calls.flatMap((call) => [
  { ...call, refused: call.expect === "block" },
  ...(call.allowedFor ? [{ ...call, agent: call.allowedFor, expect: "allow", refused: false, counterpart: true }] : []),
]);

/** Hooks of a plugin instance on a fresh project, every run's agent noted for its session. */
async function start(plugin, conductor) {
  const dir = project(conductor);
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  for (const agent of new Set(runs.map((r) => r.agent))) {
    await hooks["chat.params"]({ sessionID: `ses_${agent}`, message: { agent } }, {});
  }
  return { dir, hooks };
}

/** One hook call of a run; rejects when the verdict is not the expected one. */
function caller(hooks, run) {
  const input = { tool: run.tool, sessionID: `ses_${run.agent}`, callID: "c" };
  const before = hooks["tool.execute.before"];
  return () => before(input, { args: run.args }).then(
    () => (run.expect === "block" ? Promise.reject(new Error(`${run.name} @${run.agent}: not refused`)) : null),
    (error) => (run.expect === "block" ? null : Promise.reject(error)),
  );
}

/**
 * Per-call times (µs) of every run, measured in rotation after a warm-up. As in a session,
 * untimed: after a call that ran and may change files, the host's after hook forgets the cached
 * real paths it may have made stale (all of them after bash; files cached as missing after
 * write or edit), so the next call resolves those again (a refused call never runs); and after
 * each round the event loop runs, so the logs and the activity feed are written by their
 * timers, off the calls.
 */
async function measure(hooks) {
  const calls = runs.map((run) => caller(hooks, run));
  const times = runs.map(() => new Float64Array(ROUNDS));
  for (let round = -Math.floor(ROUNDS / 4); round < ROUNDS; round++) {
    for (let i = 0; i < calls.length; i++) {
      const t0 = performance.now();
      await calls[i]();
      if (round >= 0) times[i][round] = (performance.now() - t0) * 1000;
      if (!runs[i].refused && !READ_ONLY.has(runs[i].tool)) forgetChangedBy(runs[i].tool);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  return times.map((t) => Array.from(t).sort((a, b) => a - b));
}

/** One cold start in this (fresh) process: import, instantiate, load config. */
async function coldChild(dir) {
  const t0 = performance.now();
  const plugin = (await import(pluginUrl)).default;
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  const t1 = performance.now();
  await hooks["chat.params"]({ sessionID: "ses_dev", message: { agent: "dev" } }, {});
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_dev", callID: "c" }, { args: { command: "npm test" } });
  process.stdout.write(`${t1 - t0} ${(performance.now() - t1) * 1000}\n`);
}

function coldStart(dir, count) {
  const starts = [];
  const firsts = [];
  for (let i = 0; i < count; i++) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--cold-child", dir], { encoding: "utf8", env: process.env });
    if (child.status !== 0) throw new Error(`cold start child failed: ${child.stderr}`);
    const [ms, firstUs] = child.stdout.trim().split(" ").map(Number);
    starts.push(ms);
    firsts.push(firstUs);
  }
  return [starts.sort((a, b) => a - b), firsts.sort((a, b) => a - b)];
}

async function main() {
  const nativeFile = process.argv[process.argv.indexOf("--native") + 1];
  const native = process.argv.includes("--native") ? JSON.parse(fs.readFileSync(nativeFile, "utf8")) : null;
  const plugin = (await import(pluginUrl)).default;
  const off = await start(plugin, "off");
  const on = await start(plugin, "enforce");
  const [cold, first] = coldStart(off.dir, 20);
  const [coldOn, firstOn] = coldStart(on.dir, 10);
  const plain = await measure(off.hooks);
  const claims = await measure(on.hooks);
  const f = (n) => (n === undefined ? "" : n < 10 ? n.toFixed(2) : n.toFixed(1));
  const cell = (t) => `${f(percentile(t, 50))} / ${f(percentile(t, 99))}`.padEnd(15);
  console.log(`NSO hook speed (${runtime}, ${os.cpus().length} cores), preset ${spec.preset}, ${ROUNDS} rounds in rotation, µs p50 / p99`);
  console.log(`cold start (import + instantiate + config): p50 ${f(percentile(cold, 50))} ms, p99 ${f(percentile(cold, 99))} ms; ` +
    `its first decision ${f(percentile(first, 50))} µs`);
  console.log(`cold start, claims on: p50 ${f(percentile(coldOn, 50))} ms, p99 ${f(percentile(coldOn, 99))} ms; ` +
    `its first decision ${f(percentile(firstOn, 50))} µs`);
  console.log(`${"call".padEnd(34)}${"agent".padEnd(8)}${"verdict".padEnd(8)}${"hook".padEnd(15)}${"claims on".padEnd(15)}` +
    `${native ? "native".padEnd(15) : ""}refusal / allow`);
  for (const [i, run] of runs.entries()) {
    const nat = native?.calls.find((c) => c.name === run.name && c.agent === run.agent);
    const allow = run.refused && runs.findIndex((r) => r.counterpart && r.name === run.name);
    const ratio = allow > 0 ? `${(percentile(plain[i], 50) / percentile(plain[allow], 50)).toFixed(1)}x` : "";
    console.log(`${run.name.padEnd(34)}${`@${run.agent}`.padEnd(8)}${run.expect.padEnd(8)}${cell(plain[i])}${cell(claims[i])}` +
      `${nat ? `${f(nat.p50)} / ${f(nat.p99)}`.padEnd(15) : ""}${ratio}`);
  }
}

if (process.argv[2] === "--cold-child") await coldChild(process.argv[3]);
else await main();
