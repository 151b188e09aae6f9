// The raw lane: batching (latest version of a part wins), bounded outputs with their real
// size, resume after a restart (seq goes on, a cut-off last line stays alone), and records
// that survive the process exiting right after an event.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { createLanes, cutUtf8, lanePart, lastSeq, laneFile, safeName } from "../../plugin/continuity/lane.js";

const scratch = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-lane-")));
const lines = (file) => fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
const lanesIn = (dir, extra = {}) => createLanes({ settings: () => ({ dir, rawOutputBytes: 64, flushMs: 10_000, ...extra }), errorLog: () => {} });
const toolPart = (id, output, status = "completed") => ({
  id, sessionID: "ses_a", messageID: "msg_1", type: "tool", callID: `call_${id}`, tool: "bash",
  state: { status, input: { command: "seq 1 100000" }, output, metadata: { exit: 0, output, description: "x" }, time: { start: 1, end: 2 } },
});

test("cutUtf8 never splits a character and keeps short text as it is", () => {
  assert.equal(cutUtf8("héllo", 2), "h");
  assert.equal(cutUtf8("héllo", 3), "hé");
  assert.equal(cutUtf8("€€", 4), "€");
  assert.equal(cutUtf8("abc", 10), "abc");
});

test("lanePart cuts a big tool output, records its real size, and keeps small metadata only", () => {
  const big = "é".repeat(1500); // 3000 bytes, 1500 characters
  const kept = lanePart(toolPart("prt_1", big), 64);
  assert.equal(kept.state.nsoOutputBytes, 3000);
  assert.ok(Buffer.byteLength(kept.state.output) <= 64);
  assert.equal(kept.state.metadata.exit, 0);
  assert.equal(kept.state.metadata.description, "x");
  assert.equal(kept.state.metadata.output, undefined, "a metadata string over 1024 characters is dropped");
  const small = lanePart(toolPart("prt_2", "ok"), 64);
  assert.equal(small.state.output, "ok");
  assert.equal(small.state.nsoOutputBytes, undefined);
  const text = { id: "prt_3", type: "text", text: "x".repeat(500) };
  assert.equal(lanePart(text, 64), text, "text parts are kept whole");
  assert.equal(toolPart("prt_4", big).state.output, big, "the caller's part is not changed");
});

test("a batch keeps the latest version of each part, numbered in order", () => {
  const dir = scratch();
  const lanes = lanesIn(dir);
  lanes.record("ses_a", "session", "ses_a", { id: "ses_a", title: "t" });
  for (let i = 0; i < 50; i++) lanes.record("ses_a", "part", "prt_1", { id: "prt_1", sessionID: "ses_a", messageID: "m", type: "text", text: "x".repeat(i) });
  lanes.record("ses_b", "message", "msg_9", { id: "msg_9", sessionID: "ses_b", role: "user" });
  lanes.flush();
  const a = lines(laneFile(dir, "ses_a")).map((l) => JSON.parse(l));
  assert.deepEqual(a.map((r) => [r.seq, r.kind]), [[1, "session"], [2, "part"]]);
  assert.equal(a[1].part.text.length, 49, "only the latest version is written");
  const b = lines(laneFile(dir, "ses_b")).map((l) => JSON.parse(l));
  assert.deepEqual(b.map((r) => r.info.id), ["msg_9"], "sessions never share a lane");
});

test("after a restart the seq goes on, and a cut-off last line stays alone on its line", () => {
  const dir = scratch();
  const first = lanesIn(dir);
  first.record("ses_a", "message", "msg_1", { id: "msg_1", sessionID: "ses_a" });
  first.record("ses_a", "message", "msg_2", { id: "msg_2", sessionID: "ses_a" });
  first.flush();
  const file = laneFile(dir, "ses_a");
  fs.appendFileSync(file, '{"v":1,"seq":3,"t":1,"kind":"message","info":{"id":"msg_3"'); // a crash mid-record
  const second = lanesIn(dir);
  second.record("ses_a", "message", "msg_4", { id: "msg_4", sessionID: "ses_a" });
  second.flush();
  const all = lines(file);
  assert.equal(all.length, 4);
  assert.ok(all[2].endsWith('"msg_3"'), "the cut record is left as it was");
  assert.equal(JSON.parse(all[3]).seq, 3, "numbering resumes after the last complete record");
  assert.equal(JSON.parse(all[3]).info.id, "msg_4");
  assert.equal(lastSeq(fs.readFileSync(file, "utf8")), 3);
});

test("events recorded just before the process exits are written (flush on exit)", () => {
  const dir = scratch();
  const script = `
    import { createLanes } from ${JSON.stringify(new URL("../../plugin/continuity/lane.js", import.meta.url).href)};
    const lanes = createLanes({ settings: () => ({ dir: ${JSON.stringify(dir)}, rawOutputBytes: 1024, flushMs: 60000 }), errorLog: () => {} });
    process.once("exit", () => lanes.flush());
    for (let i = 0; i < 20; i++) lanes.record("ses_x", "part", "prt_" + i, { id: "prt_" + i, sessionID: "ses_x", type: "text", text: "t" + i });
    process.exit(0);`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(lines(laneFile(dir, "ses_x")).length, 20);
});

test("a session id is a safe file name", () => {
  assert.equal(safeName("ses_ab-C9"), "ses_ab-C9");
  assert.equal(safeName("../../etc/passwd"), "______etc_passwd");
  assert.equal(safeName(""), "_");
  const dir = scratch();
  assert.ok(laneFile(dir, "../x").startsWith(path.join(dir, "transcripts")));
});
