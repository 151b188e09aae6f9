// Mind on sessions recorded through real OpenCode with the NSO plugin (record.mjs): three
// windows, one of more than 2,000 events. Every lane is read without a damaged record, and the
// hand-written questions of questions-recorded.json are answered with the expected artifact
// among the first five results.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createNso } from "../../plugin/nso.js";
import { makeProject } from "./helpers.mjs";
import { MIND_SETTINGS, writeRecordedLanes } from "../fixtures/mind/record.mjs";
import { hitMatches } from "../fixtures/mind/expect.mjs";

const QUESTIONS = JSON.parse(fs.readFileSync(new URL("../fixtures/mind/questions-recorded.json", import.meta.url), "utf8")).questions;
const CONFIG = { conductor: { mode: "off" }, continuity: { mind: MIND_SETTINGS } };

test("recorded sessions: every lane read whole, and the questions cite the expected artifact in the top 5", async () => {
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify(CONFIG) });
  writeRecordedLanes(path.join(dir, ".opencode/nso/transcripts"), dir);
  const mind = createNso({ directory: dir, worktree: dir }).continuity.mind();
  const report = await mind.ingest();
  assert.equal(report.sessions, 3);
  assert.equal(report.skippedLines, 0, report.skipped.join("\n"));
  const long = JSON.parse(fs.readFileSync(path.join(dir, ".opencode/nso/mind/checkpoint.json"), "utf8"));
  assert.ok(long.lanes["ses_rec_long.raw.jsonl"], "the long window's lane was read");
  assert.ok(report.events > 2000, `${report.events} events`);
  const misses = [];
  for (const { q, expect } of QUESTIONS) {
    const answer = mind.ask(q);
    if (!answer.hits.slice(0, 5).some((h) => hitMatches(h, expect))) misses.push(`${q}\n  got: ${answer.hits.slice(0, 5).map((h) => h.cite).join(", ")}`);
  }
  console.log(`insight on recorded sessions: ${QUESTIONS.length - misses.length}/${QUESTIONS.length} questions cite the expected artifact in the top 5`);
  assert.deepEqual(misses, []);
});
