// Benchmark of continuity (issue 11): the plugin's cost per OpenCode event (recording into the
// raw lane, through the real `event` hook), the T0 transcript of a 10,000-event session, the
// composition of a handoff, and the size of T0 against the raw input (a real OpenCode export
// and the synthetic session). Runs in Node and in OpenCode's Bun
// (`BUN_BE_BUN=1 opencode bench/continuity.bench.mjs`). Reports figures, asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;
const plugin = (await import(pathToFileURL(path.join(here, "../plugin/nso-plugin.js")).href)).default;
const { loadWorkflowCore } = await import(pathToFileURL(path.join(here, "../plugin/core-loader.js")).href);

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const summary = (times) => {
  const s = [...times].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99) };
};
const us = (ms) => `${(ms * 1000).toFixed(2)} µs`;
const msf = (ms) => `${ms.toFixed(2)} ms`;

function project() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-bench-cont-")));
  fs.mkdirSync(path.join(dir, ".opencode/context/01_memory"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".opencode/context/01_memory/active_context.md"), "Focus: the cache.\n".repeat(200));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-bench-cont-conductor-"));
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({ conductor: { mode: "off", home } }));
  return dir;
}

/** A realistic session of `n` events: user/assistant messages, text parts, tool parts. */
function syntheticSession(n, session = "ses_bench") {
  const events = [];
  let t = 1_700_000_000_000;
  for (let i = 0; events.length < n; i++) {
    const msg = `msg_${String(i).padStart(8, "0")}`;
    const role = i % 4 === 0 ? "user" : "assistant";
    const info = { id: msg, sessionID: session, role, time: { created: (t += 1000) }, agent: "build", ...(role === "assistant" ? { parentID: msg, modelID: "m", providerID: "p", mode: "build" } : {}) };
    events.push({ type: "message.updated", properties: { info } });
    const text = role === "user" ? `Please fix task ${i} in src/mod${i % 50}.ts; the token is ghp_${"a".repeat(36)}.` : `Working on src/mod${i % 50}.ts. ${"Some explanation of the change. ".repeat(8)}`;
    events.push({ type: "message.part.updated", properties: { part: { id: `prt_${i}_t`, sessionID: session, messageID: msg, type: "text", text } } });
    if (role === "assistant") {
      const tool = ["read", "edit", "bash", "write", "grep"][i % 5];
      const output = tool === "read" || tool === "bash" ? "line of output\n".repeat(200 + (i % 7) * 100) : "ok";
      const input = tool === "bash" ? { command: "npm test" } : { filePath: `src/mod${i % 50}.ts`, content: "x".repeat(300) };
      events.push({ type: "message.part.updated", properties: { part: { id: `prt_${i}_c`, sessionID: session, messageID: msg, type: "tool", callID: `call_${i}`, tool, state: { status: "running", input, time: { start: t } } } } });
      events.push({ type: "message.part.updated", properties: { part: { id: `prt_${i}_c`, sessionID: session, messageID: msg, type: "tool", callID: `call_${i}`, tool, state: { status: "completed", input, output, metadata: { exit: 0 }, title: tool, time: { start: t, end: t + 120 } } } } });
    }
  }
  return events.slice(0, n);
}

/** The lane text the plugin would write for `events` (each part's latest version). */
function laneOf(events) {
  const latest = new Map();
  for (const e of events) {
    const p = e.properties;
    if (e.type === "message.updated") latest.set(`m:${p.info.id}`, { kind: "message", info: p.info });
    else latest.set(`p:${p.part.id}`, { kind: "part", part: p.part });
  }
  let seq = 0;
  return [...latest.values()].map((r) => JSON.stringify({ v: 1, seq: ++seq, t: 0, ...r })).join("\n") + "\n";
}

console.log(`continuity benchmark — ${runtime}, ${os.cpus()[0]?.model ?? "cpu"}`);

// 1. Per event: the real plugin's `event` hook (recording into the lane; writes batched).
{
  const dir = project();
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_bench", title: "bench" } } } });
  const events = syntheticSession(20_000);
  for (const e of events.slice(0, 2000)) await hooks.event({ event: e }); // warm up
  const times = [];
  for (const e of events) {
    const t0 = performance.now();
    await hooks.event({ event: e });
    times.push(performance.now() - t0);
  }
  const s = summary(times);
  console.log(`per event (event hook → raw lane): p50 ${us(s.p50)}, p99 ${us(s.p99)} over ${events.length} events (target ≤ 50 µs p50)`);
}

// The batched write a timer makes every flushMs (250 ms): here 1,000 events' worth at once.
{
  const { createNso } = await import(pathToFileURL(path.join(here, "../plugin/nso.js")).href);
  const dir = project();
  const nso = createNso({ directory: dir, worktree: dir });
  const events = syntheticSession(40_000, "ses_flush");
  const times = [];
  for (let batch = 0; batch < 40; batch++) {
    for (const e of events.slice(batch * 1000, (batch + 1) * 1000)) nso.continuity.onEvent(e.type, e.properties);
    const t0 = performance.now();
    nso.continuity.flush();
    times.push(performance.now() - t0);
  }
  const s = summary(times);
  console.log(`batched write of 1,000 events (off the tool call, from a timer): p50 ${msf(s.p50)}, p99 ${msf(s.p99)} (${us(s.p50 / 1000)} per event)`);
}

// 2. T0 of a 10,000-event session, 3. handoff composition, 4. size ratio.
const wf = new (loadWorkflowCore().Workflow)(".opencode/nso.json", undefined);
{
  const lane = laneOf(syntheticSession(10_000));
  const times = [];
  let out;
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    out = JSON.parse(wf.t0FromLane(lane, "/project"));
    times.push(performance.now() - t0);
  }
  const s = summary(times);
  const t0Bytes = Buffer.byteLength(out.sessions[0].text);
  const rawBytes = Buffer.byteLength(lane);
  console.log(`T0 of a 10,000-event session: p50 ${msf(s.p50)} (target ≤ 200 ms); raw lane ${(rawBytes / 1024).toFixed(0)} KB → T0 ${(t0Bytes / 1024).toFixed(0)} KB (${(rawBytes / t0Bytes).toFixed(1)}×)`);

  const big = {
    ledger: Array.from({ length: 2000 }, (_, i) => `## D-${String(i + 1).padStart(4, "0")} · Decision number ${i}\n- **When**: 2026-11-23T12:00:00Z\n- **Agent**: @build\n- **Session**: -\n- **Why**: because ${i}\n`).join("\n"),
    session: out.sessions[0].digest, task: "Fix the cache", status: null, claims: ["src/**"],
    memory: [{ path: ".opencode/context/01_memory/active_context.md", content: "Focus: the cache.\n".repeat(5000) }],
    recent: Array.from({ length: 20 }, () => out.sessions[0].digest), budget: { lines: 40, width: 160 }, expand: false,
  };
  const json = JSON.stringify(big);
  const ht = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    wf.handoff(json);
    ht.push(performance.now() - t0);
  }
  const h = summary(ht);
  console.log(`handoff composition (2,000 decisions, 90 KB memory, 20 recent digests): p50 ${msf(h.p50)}, p99 ${msf(h.p99)} (target ≤ 50 ms)`);
}
{
  const file = path.join(here, "../tests/fixtures/continuity/opencode/export-main.json");
  const text = fs.readFileSync(file, "utf8");
  const out = JSON.parse(wf.t0FromExport(text, "/tmp/nso-continuity/project"));
  const t0Bytes = Buffer.byteLength(out.sessions[0].text);
  console.log(`real OpenCode session (tests/fixtures/continuity/opencode/export-main.json): export ${(text.length / 1024).toFixed(1)} KB → T0 ${(t0Bytes / 1024).toFixed(1)} KB (${(Buffer.byteLength(text) / t0Bytes).toFixed(1)}×)`);
}
