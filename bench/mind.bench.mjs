// Benchmark of Mind: ingesting a two-hour session (about 2,300 events) and three shorter ones
// from scratch, then producing that session's handoff (what a new window gets); an
// incremental ingestion with nothing new; and Insight's latency per question over the
// hand-written questions (index built from the artifacts, then the answer). Reports figures,
// asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;
const { createNso } = await import(pathToFileURL(path.join(here, "../plugin/nso.js")).href);
const { writeLanes } = await import(pathToFileURL(path.join(here, "../tests/fixtures/mind/make-lanes.mjs")).href);
const questions = JSON.parse(fs.readFileSync(path.join(here, "../tests/fixtures/mind/questions.json"), "utf8")).questions;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(1)} ms`;

function project() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-bench-mind-")));
  fs.mkdirSync(path.join(dir, ".opencode"), { recursive: true });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-bench-mind-conductor-"));
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({
    conductor: { mode: "off", home },
    continuity: { mind: { segments: { auth: { paths: ["src/auth/**"] }, payments: { paths: ["src/payments/**"] }, checkout: { paths: ["web/**"] } } } },
  }));
  writeLanes(path.join(dir, ".opencode/nso/transcripts"), dir);
  return dir;
}

const runs = [];
for (let i = 0; i < 5; i++) {
  const dir = project();
  const nso = createNso({ directory: dir, worktree: dir });
  const t0 = performance.now();
  const report = await nso.continuity.mind().ingest();
  const t1 = performance.now();
  const handoff = await nso.continuity.handoff("ses_a1long");
  const t2 = performance.now();
  const again = await nso.continuity.mind().ingest();
  const t3 = performance.now();
  runs.push({ ingest: t1 - t0, handoff: t2 - t1, total: t2 - t0, incremental: t3 - t2, events: report.events, lines: handoff.lines });
  fs.rmSync(dir, { recursive: true, force: true });
  void again;
}
console.log(`mind (${runtime}), median of ${runs.length} fresh projects, ${runs[0].events} events in 4 sessions:`);
console.log(`  ingest from scratch        ${ms(median(runs.map((r) => r.ingest)))}`);
console.log(`  then the handoff           ${ms(median(runs.map((r) => r.handoff)))} (${runs[0].lines} lines; ingests first: nothing new)`);
console.log(`  ingest + handoff           ${ms(median(runs.map((r) => r.total)))}`);
console.log(`  ingest, nothing new        ${ms(median(runs.map((r) => r.incremental)))}`);

const dir = project();
const nso = createNso({ directory: dir, worktree: dir });
const mind = nso.continuity.mind();
await mind.ingest();
const times = [];
for (let round = 0; round < 5; round++) {
  for (const { q } of questions) {
    const t = performance.now();
    mind.ask(q);
    times.push(performance.now() - t);
  }
}
times.sort((a, b) => a - b);
console.log(`  insight per question       median ${ms(median(times))}, p90 ${ms(times[Math.floor(times.length * 0.9)])} (${times.length} asks: index from the artifacts + answer)`);
fs.rmSync(dir, { recursive: true, force: true });
