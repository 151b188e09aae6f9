// The golden fixtures of continuity (tests/fixtures/continuity/), shared with the Rust tests,
// checked through the built workflow package the plugin and CLI load: ledger views, handoffs
// and T0 transcripts. The expected files were written by hand from the formats' rules.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { loadWorkflowCore } from "../../plugin/core-loader.js";

const FIX = new URL("../fixtures/continuity/", import.meta.url).pathname;
const read = (rel) => fs.readFileSync(path.join(FIX, rel), "utf8");
const workflow = (configText) => new (loadWorkflowCore().Workflow)(".opencode/nso.json", configText);

test("ledger fixtures: the current and full views are the hand-written ones", () => {
  const wf = workflow(undefined);
  const cases = [
    ["ledger/chains.md", false, undefined, "ledger/chains.current.txt"],
    ["ledger/chains.md", true, undefined, "ledger/chains.all.txt"],
    ["ledger/chains.md", false, 2, "ledger/chains.current-2.txt"],
    ["ledger/messy.md", false, undefined, "ledger/messy.current.txt"],
    ["ledger/crlf.md", false, undefined, "ledger/crlf.current.txt"],
    ["ledger/truncated.md", false, undefined, "ledger/truncated.current.txt"],
  ];
  for (const [input, all, maxLines, expected] of cases) {
    assert.equal(wf.ledgerView(read(input), all, maxLines), read(expected), `${input} all=${all} max=${maxLines}`);
  }
  const messy = JSON.parse(wf.ledgerJson(read("ledger/messy.md")));
  const expected = JSON.parse(read("ledger/messy.expected.json"));
  assert.deepEqual(messy.warnings, expected.warnings);
  assert.deepEqual(messy.entries.map((e) => [e.id, e.supersededBy ?? null, e.duplicate]), expected.entries.map((e) => [e.id, e.supersededBy ?? null, e.duplicate]));
});

test("ledger: an append to each fixture keeps every old entry and adds exactly one", () => {
  const wf = workflow(undefined);
  for (const file of ["chains.md", "messy.md", "crlf.md", "truncated.md"]) {
    const text = read(`ledger/${file}`);
    const before = JSON.parse(wf.ledgerJson(text)).entries;
    const out = JSON.parse(wf.ledgerAppend(text, JSON.stringify({ decision: "A new one", why: "a test", agent: "build", session: "ses_x", supersedes: null, whenIso: "2026-11-23T12:00:00Z" })));
    const after = JSON.parse(wf.ledgerJson(text + out.appendText)).entries;
    assert.equal(after.length, before.length + 1, file);
    assert.deepEqual(after.slice(0, -1).map((e) => [e.id, e.title, e.why]), before.map((e) => [e.id, e.title, e.why]), file);
    assert.equal(after.at(-1).id, out.id);
    assert.equal(after.at(-1).decision, "A new one");
  }
});

test("handoff fixtures: every case gives the hand-written text, truncation and layer statuses", () => {
  const wf = workflow(undefined);
  const cases = JSON.parse(read("handoff/cases.json"));
  assert.ok(cases.length >= 5);
  for (const c of cases) {
    const input = JSON.parse(read(`handoff/${c.input}`));
    if (c.budget) input.budget = c.budget;
    if (c.expand !== undefined) input.expand = c.expand;
    const out = JSON.parse(wf.handoff(JSON.stringify(input)));
    assert.equal(out.text, read(`handoff/${c.expected}`), c.name);
    assert.equal(out.truncated, c.truncated, c.name);
    assert.deepEqual(out.layers, c.layers, c.name);
  }
});

test("T0 fixtures: the export and the damaged lane of one session give the hand-written transcript; an interleaved lane keeps its sessions apart", () => {
  const policy = read("t0/small.policy.json");
  const wf = workflow(JSON.stringify({ continuity: { t0: JSON.parse(policy) } }));
  const fromExport = JSON.parse(wf.t0FromExport(read("t0/small.export.json"), "/home/dev/shop"));
  assert.equal(fromExport.policy, "shop-t0 v3");
  assert.equal(fromExport.sessions.length, 1);
  assert.equal(fromExport.sessions[0].text, read("t0/small.t0.md"));
  assert.deepEqual(fromExport.sessions[0].digest, JSON.parse(read("t0/small.digest.json")));
  const fromLane = JSON.parse(wf.t0FromLane(read("t0/small.lane.jsonl"), "/home/dev/shop"));
  assert.equal(fromLane.sessions[0].text, read("t0/small.t0.md"), "the lane's damage is skipped, its updates applied");
  assert.deepEqual(fromLane.warnings.map((w) => /^line (\d+)/.exec(w)?.[1]), ["11", "16", "20", "25", "34"]);
  const plain = workflow(undefined);
  const interleaved = JSON.parse(plain.t0FromLane(read("t0/interleaved.lane.jsonl"), "/srv/app"));
  assert.deepEqual(interleaved.sessions.map((s) => s.session).sort(), ["ses_int_a", "ses_int_b", "ses_int_sub"]);
  for (const s of interleaved.sessions) assert.equal(s.text, read(`t0/interleaved.${s.session}.t0.md`), s.session);
});
