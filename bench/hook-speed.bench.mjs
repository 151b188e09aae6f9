// What a host pays per decision: the calls of bench/hook-calls.json (everyday agent calls
// under the kord preset) through the real `tool.execute.before`, in rotation as an agent's
// calls come, p50 and p99 per call; each refusal beside the same call by an agent allowed to
// make it; the same with claims on (conductor enforce, targets already held); each call made
// new every round ("first time": the same call with a text NSO has not seen, see `fresh`, so
// no memo answers it); cold start; the native baseline (crate/examples/hook_speed.rs), both
// ways, from the same run when given (`--native file.json`); and another checkout's plugin
// measured in the same process beside this one (`--baseline path/to/plugin/nso-plugin.js`, as
// `bash bench/compare.sh REF` sets up). `bash bench/run.sh` runs it in Bun with the native
// baseline.
// Not a test: it reports figures, it asserts only that every verdict is the expected one.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const pluginUrl = pathToFileURL(path.join(here, "../plugin/nso-plugin.js")).href;
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

/**
 * `args` made new for `round`, its verdict unchanged: a comment after a command, a line after
 * written content, a word after an edit's new text, an offset for a read. The same rule as
 * `fresh` in crate/examples/hook_speed.rs.
 */
function fresh(tool, args, round) {
  if (tool === "bash") return { ...args, command: `${args.command} # ${round}` };
  if (tool === "write") return { ...args, content: `${args.content}\n// ${round}\n` };
  if (tool === "edit") return { ...args, newString: `${args.newString} // ${round}` };
  return { ...args, offset: round + 1 };
}

/**
 * One hook call of a run (made new for each round when `makeFresh`); rejects when the
 * verdict is not the expected one.
 */
function caller(hooks, run, makeFresh) {
  const input = { tool: run.tool, sessionID: `ses_${run.agent}`, callID: "c" };
  const before = hooks["tool.execute.before"];
  return (round) => before(input, { args: makeFresh ? fresh(run.tool, run.args, round) : run.args }).then(
    () => (run.expect === "block" ? Promise.reject(new Error(`${run.name} @${run.agent}: not refused`)) : null),
    (error) => (run.expect === "block" ? null : Promise.reject(error)),
  );
}

/**
 * Per-call times (µs) of every run, measured in rotation after a warm-up, and of the host's
 * after hook of each call that ran (a refused call never runs). After each round the event
 * loop runs, so the logs and the activity feed are written by their timers, off the calls.
 */
async function measure(hooks, makeFresh = false) {
  const calls = runs.map((run) => caller(hooks, run, makeFresh));
  const after = hooks["tool.execute.after"];
  const times = runs.map(() => new Float64Array(ROUNDS));
  const afterTimes = runs.map(() => new Float64Array(ROUNDS));
  for (let round = -Math.floor(ROUNDS / 4); round < ROUNDS; round++) {
    for (let i = 0; i < calls.length; i++) {
      const t0 = performance.now();
      await calls[i](round);
      const t1 = performance.now();
      if (round >= 0) times[i][round] = (t1 - t0) * 1000;
      if (runs[i].refused) continue;
      await after({ tool: runs[i].tool, sessionID: `ses_${runs[i].agent}`, callID: "c", args: runs[i].args }, { title: "", output: "", metadata: {} });
      if (round >= 0) afterTimes[i][round] = (performance.now() - t1) * 1000;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const sorted = (list) => list.map((t) => Array.from(t).sort((a, b) => a - b));
  return Object.assign(sorted(times), { after: sorted(afterTimes) });
}

/** One cold start in this (fresh) process: import, instantiate, load config. */
async function coldChild(dir, url) {
  const t0 = performance.now();
  const plugin = (await import(url)).default;
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  const t1 = performance.now();
  await hooks["chat.params"]({ sessionID: "ses_dev", message: { agent: "dev" } }, {});
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_dev", callID: "c" }, { args: { command: "npm test" } });
  process.stdout.write(`${t1 - t0} ${(performance.now() - t1) * 1000}\n`);
}

function coldStart(dir, count, url = pluginUrl) {
  const starts = [];
  const firsts = [];
  for (let i = 0; i < count; i++) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--cold-child", dir, url], { encoding: "utf8", env: process.env });
    if (child.status !== 0) throw new Error(`cold start child failed: ${child.stderr}`);
    const [ms, firstUs] = child.stdout.trim().split(" ").map(Number);
    starts.push(ms);
    firsts.push(firstUs);
  }
  return [starts.sort((a, b) => a - b), firsts.sort((a, b) => a - b)];
}

/** Every figure of one plugin (its module URL): cold starts, and the calls three ways. */
async function figures(url) {
  const plugin = (await import(url)).default;
  const off = await start(plugin, "off");
  const on = await start(plugin, "enforce");
  const [cold, firstCall] = coldStart(off.dir, 20, url);
  const [coldOn, firstOn] = coldStart(on.dir, 10, url);
  return { cold, firstCall, coldOn, firstOn, plain: await measure(off.hooks), first: await measure(off.hooks, true), claims: await measure(on.hooks) };
}

async function main() {
  const arg = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const native = arg("--native") ? JSON.parse(fs.readFileSync(arg("--native"), "utf8")) : null;
  const baselineFile = arg("--baseline");
  const now = await figures(pluginUrl);
  const old = baselineFile ? await figures(pathToFileURL(path.resolve(baselineFile)).href) : null;
  const f = (n) => (n === undefined ? "" : n < 10 ? n.toFixed(2) : n.toFixed(1));
  const cell = (t) => `${f(percentile(t, 50))} / ${f(percentile(t, 99))}`.padEnd(15);
  const nat = (list, run) => list?.find((c) => c.name === run.name && c.agent === run.agent);
  const natCell = (c) => (c ? `${f(c.p50)} / ${f(c.p99)}` : "").padEnd(15);
  /** A refusal's p50 over that of the same call allowed for another agent. */
  const ratio = (times, i) => {
    const allow = runs[i].refused && runs.findIndex((r) => r.counterpart && r.name === runs[i].name);
    return allow > 0 ? `${(percentile(times[i], 50) / percentile(times[allow], 50)).toFixed(1)}x` : "";
  };
  /** This checkout's p50 over the baseline's. */
  const against = (mine, theirs) => `${(percentile(mine, 50) / percentile(theirs, 50)).toFixed(2)}x`.padEnd(8);
  console.log(`NSO hook speed (${runtime}, ${os.cpus().length} cores), preset ${spec.preset}, ${ROUNDS} rounds in rotation, µs p50 / p99`);
  for (const [label, r] of [["this checkout", now], ...(old ? [[`baseline ${baselineFile}`, old]] : [])]) {
    console.log(`${label}: cold start (import + instantiate + config): p50 ${f(percentile(r.cold, 50))} ms, p99 ${f(percentile(r.cold, 99))} ms; ` +
      `its first decision ${f(percentile(r.firstCall, 50))} µs; claims on: p50 ${f(percentile(r.coldOn, 50))} ms, first decision ${f(percentile(r.firstOn, 50))} µs`);
  }
  console.log("hook: the call again (as agents repeat calls); first time: made new every round; claims on: the call again" +
    (old ? "; vs base: this checkout's p50 over the baseline's (again, first time, claims on)" : ""));
  console.log(`${"call".padEnd(34)}${"agent".padEnd(8)}${"verdict".padEnd(8)}${"hook".padEnd(15)}${"first time".padEnd(15)}` +
    `${"claims on".padEnd(15)}${old ? `${"base hook".padEnd(15)}${"base first".padEnd(15)}${"base claims".padEnd(15)}${"vs base".padEnd(24)}` : ""}` +
    `${native ? `${"native".padEnd(15)}${"native first".padEnd(15)}` : ""}refusal / allow (again, first)`);
  for (const [i, run] of runs.entries()) {
    const ratios = [ratio(now.plain, i), ratio(now.first, i)].filter(Boolean).join(", ");
    const base = old ? `${cell(old.plain[i])}${cell(old.first[i])}${cell(old.claims[i])}` +
      `${against(now.plain[i], old.plain[i])}${against(now.first[i], old.first[i])}${against(now.claims[i], old.claims[i])}` : "";
    console.log(`${run.name.padEnd(34)}${`@${run.agent}`.padEnd(8)}${run.expect.padEnd(8)}${cell(now.plain[i])}${cell(now.first[i])}` +
      `${cell(now.claims[i])}${base}${native ? `${natCell(nat(native.calls, run))}${natCell(nat(native.fresh, run))}` : ""}${ratios}`);
  }
  console.log("the host's after hook of each call that ran (untimed above): again, first time, claims on");
  for (const [i, run] of runs.entries()) {
    if (run.refused) continue;
    const base = old ? `${cell(old.plain.after[i])}${cell(old.first.after[i])}${cell(old.claims.after[i])}` : "";
    console.log(`${run.name.padEnd(34)}${`@${run.agent}`.padEnd(8)}${"after".padEnd(8)}` +
      `${cell(now.plain.after[i])}${cell(now.first.after[i])}${cell(now.claims.after[i])}${base}`);
  }
}

if (process.argv[2] === "--cold-child") await coldChild(process.argv[3], process.argv[4]);
else await main();
