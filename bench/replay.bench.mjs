// Benchmark of `nso replay`: a generated `opencode export` of 10,000 tool calls (writes, edits
// of files written earlier, appends to an append-only notepad, reads, bash commands with git,
// apply_patch, task) replayed under the kord preset, in process (read, decide, report) and as
// the CLI. Runs in Node and in OpenCode's own Bun (`BUN_BE_BUN=1 tests/host/node_modules/.bin/opencode
// bench/replay.bench.mjs`). Not a test: it reports figures (the target is under 2 s).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readRecordings } from "../bin/replay/recording.js";
import { replayCalls } from "../bin/replay/replay.js";
import { callRecord, replayJson, replayText } from "../bin/replay/report.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;
const ROOT = "/tmp/nso-bench-recorded/project";

/** The tool calls of a generated session: `n` calls of a mix seen in real sessions. */
export function generatedExport(n, { agents = ["dev", "build", "qa"] } = {}) {
  const messages = [];
  let notepad = "# Notepad\n";
  for (let i = 0; i < n; i++) {
    const agent = agents[i % agents.length];
    const k = i % 10;
    const file = `src/mod${i % 50}/file${Math.floor(i / 10)}.ts`;
    let tool;
    let input;
    if (k === 0) [tool, input] = ["write", { filePath: file, content: `export const v${i} = ${i};\n` }];
    else if (k === 1) [tool, input] = ["edit", { filePath: `src/mod${(i - 1) % 50}/file${Math.floor(i / 10)}.ts`, oldString: ` = ${i - 1};`, newString: ` = ${i};` }];
    else if (k === 2) [tool, input] = ["read", { filePath: file }];
    else if (k === 3) [tool, input] = ["bash", { command: i % 30 === 3 ? "git push origin main" : `npm test -- --grep case${i} && git add -A && git commit -m "step ${i}"` }];
    else if (k === 4) {
      const next = `${notepad}- note ${i}\n`;
      [tool, input] = ["write", { filePath: "docs/kord/notepads/bench.md", content: i % 40 === 4 ? "# rewritten\n" : next }];
      if (i % 40 !== 4) notepad = next;
    } else if (k === 5) [tool, input] = ["grep", { pattern: `v${i}`, path: "src" }];
    else if (k === 6) [tool, input] = ["apply_patch", { patchText: `*** Begin Patch\n*** Add File: src/gen/p${i}.ts\n+export {};\n*** End Patch\n` }];
    else if (k === 7) [tool, input] = ["bash", { command: `cat src/mod${i % 50}/*.ts | wc -l > /tmp/count${i}.txt`, workdir: ROOT }];
    else if (k === 8) [tool, input] = ["glob", { pattern: "src/**/*.ts" }];
    else [tool, input] = ["bash", { command: `rm -f build/out${i}.js` }];
    messages.push({
      info: { id: `msg_${String(i).padStart(8, "0")}`, sessionID: "ses_bench", role: "assistant", agent, mode: agent, path: { cwd: ROOT, root: ROOT }, time: { created: 1_800_000_000_000 + i } },
      parts: [{
        id: `prt_${String(i).padStart(8, "0")}`, sessionID: "ses_bench", messageID: `msg_${String(i).padStart(8, "0")}`, type: "tool", tool, callID: `call_${i}`,
        state: { status: "completed", input, output: "", metadata: {}, time: { start: 1_800_000_000_000 + i, end: 1_800_000_000_000 + i } },
      }],
    });
  }
  return { info: { id: "ses_bench", directory: ROOT, agent: "dev", title: "bench" }, messages };
}

function project() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-replay-bench-")));
  fs.mkdirSync(path.join(dir, ".opencode"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({ authority: { preset: "kord" } }));
  return dir;
}

const ms = (t) => `${t.toFixed(0)} ms`;

async function main() {
  const n = Number(process.env.REPLAY_CALLS ?? 10_000);
  const dir = project();
  const file = path.join(dir, "export.json");
  fs.writeFileSync(file, JSON.stringify(generatedExport(n)));
  const policy = fs.readFileSync(path.join(dir, ".opencode/nso.json"), "utf8");
  console.log(`nso replay benchmark (${runtime}): ${n} calls, export ${(fs.statSync(file).size / 1024).toFixed(0)} KiB, preset kord`);

  const runs = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    const recording = readRecordings([file]);
    const t1 = performance.now();
    const result = replayCalls(recording.calls, policy, { diskRoot: dir });
    const t2 = performance.now();
    const records = recording.calls.map((c, i) => callRecord(c, result.records[i]));
    const text = replayText(recording, { label: ".opencode/nso.json", preset: "kord" }, result, records);
    const json = JSON.stringify(replayJson(recording, { label: ".opencode/nso.json", preset: "kord" }, result, records, []), null, 2);
    const t3 = performance.now();
    runs.push({ read: t1 - t0, decide: t2 - t1, report: t3 - t2, total: t3 - t0, blocked: records.filter((x) => x.verdict === "block").length, bytes: text.length + json.length });
  }
  for (const [i, r] of runs.entries()) {
    console.log(`  in process, run ${i + 1}: total ${ms(r.total)} (read ${ms(r.read)}, decide ${ms(r.decide)} = ${((r.decide / n) * 1000).toFixed(1)} µs/call, report ${ms(r.report)}); ${r.blocked} refused`);
  }

  const cli = path.join(here, "../bin/nso.js");
  const t0 = performance.now();
  const child = spawnSync(process.execPath, [cli, "replay", file, "--dir", dir], { encoding: "utf8", maxBuffer: 1 << 28, env: process.env });
  const t1 = performance.now();
  if (child.status !== 0) throw new Error(`nso replay failed (${child.status}): ${child.stderr}`);
  console.log(`  CLI (new process, text report): ${ms(t1 - t0)}, ${child.stdout.split("\n").length} lines`);
  fs.rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
