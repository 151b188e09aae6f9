// Mind through the real shim and CLI: ingestion of recorded lanes (damaged records skipped,
// counted and named), hand-written questions answered within the first five results, the
// same lanes giving byte-identical artifacts, an ingestion killed at random moments resuming
// without duplicates, hand moves, and the handoff's mind layer.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { createNso } from "../../plugin/nso.js";
import { makeProject } from "./helpers.mjs";
import { writeLanes } from "../fixtures/mind/make-lanes.mjs";
import { hitMatches } from "../fixtures/mind/expect.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const QUESTIONS = JSON.parse(fs.readFileSync(new URL("../fixtures/mind/questions.json", import.meta.url), "utf8")).questions;
const MIND = ".opencode/nso/mind";
const CONFIG = {
  conductor: { mode: "off" },
  continuity: {
    mind: {
      segments: {
        auth: { paths: ["src/auth/**", "docs/auth.md"], tasks: ["todo:12"], keywords: ["login", "session", "cookie"] },
        payments: { paths: ["src/payments/**"], tasks: ["todo:14"], keywords: ["payment", "cents"] },
        checkout: { paths: ["web/**", "docs/checkout-plan.md"], tasks: ["todo:20"], keywords: ["checkout", "stripe"] },
      },
    },
  },
};

function shop() {
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify(CONFIG) });
  writeLanes(path.join(dir, ".opencode/nso/transcripts"), dir);
  return dir;
}
const cli = (dir, ...args) => spawnSync(process.execPath, [CLI, ...args, "--dir", dir], { encoding: "utf8" });
const mindOf = (dir) => createNso({ directory: dir, worktree: dir }).continuity.mind();
const read = (dir, name) => fs.readFileSync(path.join(dir, MIND, name), "utf8");

test("ingestion reads every lane, and names and counts the damaged records it skips", () => {
  const dir = shop();
  const r = cli(dir, "mind", "ingest", "--json");
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.lanes, 4);
  assert.equal(report.sessions, 4);
  assert.ok(report.events > 2000, `${report.events} events`);
  assert.equal(report.skippedLines, 2, "the corrupt line and the cut-off last record");
  assert.ok(report.skipped.every((s) => s.startsWith(".opencode/nso/transcripts/ses_b2web.raw.jsonl: line ")), report.skipped.join("\n"));
  assert.ok(fs.readFileSync(path.join(dir, MIND, ".gitignore"), "utf8").includes("*"), "Mind's folder ignores itself");
  const again = JSON.parse(cli(dir, "mind", "ingest", "--json").stdout);
  assert.deepEqual([again.read, again.unchanged, again.appended], [0, 4, 0], "nothing new: nothing read, nothing appended");
  const status = cli(dir, "mind", "status");
  assert.equal(status.status, 0, status.stderr);
  assert.match(status.stdout, /by segment: .*auth \d+/);
});

test("hand-written questions are answered with the expected artifact among the first five", () => {
  const dir = shop();
  const mind = mindOf(dir);
  return mind.ingest().then(() => {
    const misses = [];
    for (const { q, expect } of QUESTIONS) {
      const answer = mind.ask(q);
      if (!answer.hits.slice(0, 5).some((h) => hitMatches(h, expect))) misses.push(`${q}\n  got: ${answer.hits.slice(0, 5).map((h) => h.cite).join(", ")}`);
      assert.ok(answer.text.split("\n").length <= 12, "a brief answer is a few lines");
    }
    console.log(`insight: ${QUESTIONS.length - misses.length}/${QUESTIONS.length} questions cite the expected artifact in the top 5`);
    assert.deepEqual(misses, []);
  });
});

test("the same lanes give byte-identical artifacts", async () => {
  const [a, b] = [shop(), shop()];
  // different project folders: paths are project-relative, so the artifacts still agree
  await mindOf(a).ingest();
  await mindOf(b).ingest();
  for (const name of ["observations.jsonl", "reflections.jsonl"]) assert.equal(read(a, name), read(b, name), name);
  assert.ok(read(a, "reflections.jsonl").length > 0, "the long session's segments are reflected");
  await mindOf(a).ingest({ rebuild: true });
  assert.equal(read(a, "observations.jsonl"), read(b, "observations.jsonl"), "a rebuild derives the same records");
});

test("an ingestion killed at random moments resumes from its checkpoint: the same artifacts, no duplicates", async () => {
  const reference = shop();
  await mindOf(reference).ingest();
  const expected = read(reference, "observations.jsonl");
  const dir = shop();
  // More lanes, so that a kill lands in the middle of the work.
  const lanes = path.join(dir, ".opencode/nso/transcripts");
  let kills = 0;
  for (let attempt = 0; attempt < 40; attempt++) {
    const child = spawn(process.execPath, [CLI, "mind", "ingest", "--dir", dir], { stdio: "ignore" });
    const delay = 60 + ((attempt * 37) % 200);
    const done = await new Promise((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
      }, delay);
      child.on("exit", (code, signal) => {
        clearTimeout(timer);
        resolve(signal === null && code === 0);
      });
    });
    if (done) break;
    kills++;
  }
  assert.ok(kills >= 1, "at least one ingestion was killed");
  const finish = cli(dir, "mind", "ingest", "--json");
  assert.equal(finish.status, 0, finish.stderr);
  assert.equal(read(dir, "observations.jsonl"), expected, `after ${kills} kills, the artifacts are those of one uninterrupted run`);
  const keys = read(dir, "observations.jsonl").trim().split("\n").map((l) => JSON.parse(l)).map((o) => `${o.id}@${o.rev}`);
  assert.equal(new Set(keys).size, keys.length, "no record twice");
  assert.ok(fs.readdirSync(lanes).length === 4);
});

test("insight modes, a hand move, and the handoff's mind layer", async () => {
  const dir = shop();
  const refs = cli(dir, "insight", "what did we decide about the card form", "--refs");
  assert.equal(refs.status, 0, refs.stderr);
  assert.match(refs.stdout, /^decision ses_b1plan\/decision-\d+$/m);
  const snips = cli(dir, "insight", "token.expiry undefined", "--snips");
  assert.match(snips.stdout, /^\[ses_a1long\/cmd-\d+\] `npm test` failed/m);
  assert.match(snips.stdout, /^ {2}> /m);
  const json = JSON.parse(cli(dir, "insight", "guest checkout", "--json").stdout);
  assert.equal(json.mode, "brief");
  assert.ok(json.hits.length > 0);
  assert.equal(cli(dir, "insight", "x", "--refs", "--snips").status, 2);
  const id = JSON.parse(cli(dir, "insight", "PCI scope", "--json").stdout).hits[0].cite;
  assert.equal(cli(dir, "mind", "move", id, "nowhere").status, 1);
  const moved = cli(dir, "mind", "move", id, "payments");
  assert.equal(moved.status, 0, moved.stderr);
  const inPayments = JSON.parse(cli(dir, "insight", "PCI scope", "--segment", "payments", "--json").stdout);
  assert.equal(inPayments.hits[0].cite, id, "the moved artifact answers in its new segment");
  const nso = createNso({ directory: dir, worktree: dir });
  const h = await nso.continuity.handoff("ses_b2web");
  assert.match(h.text, /\[ses_b1plan\/decision-\d+\]|\[r-checkout/, h.text);
});
