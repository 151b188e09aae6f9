// Benchmark of Mind, on two sets of lanes: sessions recorded through real OpenCode
// (tests/fixtures/mind/record.mjs: three windows, one of more than 2,000 events) and the
// synthetic two-hour session of make-lanes.mjs (about 2,300 events) with three shorter ones.
// For each: ingesting from scratch, then producing the long session's handoff (what a new
// window gets); an incremental ingestion with nothing new; Insight's latency per question over
// the hand-written questions (index built from the artifacts, then the answer), and how many
// answers cite the expected artifact among their first five results. Reports figures, asserts
// nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { hitMatches } from "../tests/fixtures/mind/expect.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;
const { createNso } = await import(pathToFileURL(path.join(here, "../plugin/nso.js")).href);
const fixtures = path.join(here, "../tests/fixtures/mind");
const { writeLanes } = await import(pathToFileURL(path.join(fixtures, "make-lanes.mjs")).href);
const { writeRecordedLanes, MIND_SETTINGS } = await import(pathToFileURL(path.join(fixtures, "record.mjs")).href);
const questionsOf = (name) => JSON.parse(fs.readFileSync(path.join(fixtures, name), "utf8")).questions;
const SETS = [
  { name: "recorded through OpenCode", write: writeRecordedLanes, long: "ses_rec_long", questions: questionsOf("questions-recorded.json"), mind: MIND_SETTINGS },
  { name: "synthetic", write: writeLanes, long: "ses_a1long", questions: questionsOf("questions.json"),
    mind: { segments: { auth: { paths: ["src/auth/**"] }, payments: { paths: ["src/payments/**"] }, checkout: { paths: ["web/**"] } } } },
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(1)} ms`;

function project(set) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-bench-mind-")));
  fs.mkdirSync(path.join(dir, ".opencode"), { recursive: true });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-bench-mind-conductor-"));
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({
    conductor: { mode: "off", home },
    continuity: { mind: set.mind },
  }));
  set.write(path.join(dir, ".opencode/nso/transcripts"), dir);
  return dir;
}

/** Events of session `id` in its lane, as the core counts them (parts of its messages). */
function longEvents(dir, id) {
  const text = fs.readFileSync(path.join(dir, ".opencode/nso/transcripts", `${id}.raw.jsonl`), "utf8");
  return new Set(text.split("\n").filter((l) => l.includes('"kind":"part"')).map((l) => JSON.parse(l).part.id)).size;
}

for (const set of SETS) {
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const dir = project(set);
    const nso = createNso({ directory: dir, worktree: dir });
    const t0 = performance.now();
    const report = await nso.continuity.mind().ingest();
    const t1 = performance.now();
    const handoff = await nso.continuity.handoff(set.long);
    const t2 = performance.now();
    const again = await nso.continuity.mind().ingest();
    const t3 = performance.now();
    runs.push({ ingest: t1 - t0, handoff: t2 - t1, total: t2 - t0, incremental: t3 - t2, events: report.events, sessions: report.sessions, lines: handoff.lines, longEvents: longEvents(dir, set.long) });
    fs.rmSync(dir, { recursive: true, force: true });
    void again;
  }
  console.log(`mind (${runtime}), ${set.name}: median of ${runs.length} fresh projects, ${runs[0].events} events in ${runs[0].sessions} sessions (the long one ${runs[0].longEvents}):`);
  console.log(`  ingest from scratch        ${ms(median(runs.map((r) => r.ingest)))}`);
  console.log(`  then the handoff           ${ms(median(runs.map((r) => r.handoff)))} (${runs[0].lines} lines; ingests first: nothing new)`);
  console.log(`  ingest + handoff           ${ms(median(runs.map((r) => r.total)))}`);
  console.log(`  ingest, nothing new        ${ms(median(runs.map((r) => r.incremental)))}`);

  const dir = project(set);
  const nso = createNso({ directory: dir, worktree: dir });
  const mind = nso.continuity.mind();
  await mind.ingest();
  const times = [];
  for (let round = 0; round < 5; round++) {
    for (const { q } of set.questions) {
      const t = performance.now();
      mind.ask(q);
      times.push(performance.now() - t);
    }
  }
  const hits = set.questions.filter(({ q, expect }) => mind.ask(q).hits.slice(0, 5).some((h) => hitMatches(h, expect))).length;
  times.sort((a, b) => a - b);
  console.log(`  insight per question       median ${ms(median(times))}, p90 ${ms(times[Math.floor(times.length * 0.9)])} (${times.length} asks: index from the artifacts + answer)`);
  console.log(`  top-5 hit rate             ${hits}/${set.questions.length} questions cite the expected artifact`);
  fs.rmSync(dir, { recursive: true, force: true });
}
