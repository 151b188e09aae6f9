// Mind's optional provider through the real shim and a scripted command
// (tests/fixtures/mind/provider.mjs): a good answer rewords the records and names the provider
// as their producer; a command that hangs is killed at its timeout (with the process it
// started); a bad, oversized or foreign answer leaves the deterministic records; every failure
// is logged; a secret in the lane never reaches the command's stdin.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createNso } from "../../plugin/nso.js";
import { makeProject, readIf } from "./helpers.mjs";

const PROVIDER = new URL("../fixtures/mind/provider.mjs", import.meta.url).pathname;
const MIND = ".opencode/nso/mind";
const SECRETS = ["sk-ant-api03-Zq8xK2mPvW4nR7tY1uI0oLkJ", "hunter2hunter2", "acme_77f0c1d2e3b4"];

/** A lane of one session in the plugin's recording format, with secrets in what was said and run. */
function laneText() {
  const lines = [];
  let seq = 0;
  const t = (n) => Date.UTC(2026, 10, 20, 9, 0, n);
  const rec = (kind, key, value) => lines.push(JSON.stringify({ v: 1, seq: ++seq, t: t(seq), kind, [key]: value }));
  const msg = (id, role) => rec("message", "info", { id, sessionID: "ses_p1", role, time: { created: t(seq) }, agent: "build" });
  const part = (id, msgId, body) => rec("part", "part", { id, sessionID: "ses_p1", messageID: msgId, ...body });
  rec("session", "info", { id: "ses_p1", title: "login", time: { created: t(0), updated: t(0) } });
  msg("msg_1", "user");
  part("prt_1", "msg_1", { type: "text", text: `Fix the login. The key is ${SECRETS[0]} and DB_PASSWORD=${SECRETS[1]}, vendor id ${SECRETS[2]}.` });
  msg("msg_2", "assistant");
  part("prt_2", "msg_2", { type: "text", text: "Running the tests first." });
  part("prt_3", "msg_2", { type: "tool", tool: "bash", callID: "c1", state: { status: "completed", input: { command: `API_TOKEN=${SECRETS[0]} npm test` }, output: "1 failing: login expected 200", metadata: { exit: 1 } } });
  part("prt_4", "msg_2", { type: "text", text: "The session cookie is not set; fixing src/auth/login.ts." });
  part("prt_5", "msg_2", { type: "tool", tool: "edit", callID: "c2", state: { status: "completed", input: { filePath: "src/auth/login.ts" }, output: "ok" } });
  part("prt_6", "msg_2", { type: "tool", tool: "bash", callID: "c3", state: { status: "completed", input: { command: `API_TOKEN=${SECRETS[0]} npm test` }, output: "all passing", metadata: { exit: 0 } } });
  part("prt_7", "msg_2", { type: "text", text: "Should the cookie be SameSite=Strict?" });
  return lines.join("\n") + "\n";
}

function project(mode, extra = {}) {
  const dir = makeProject({});
  const log = path.join(dir, "provider-log");
  const config = {
    conductor: { mode: "off" },
    continuity: {
      t0: { redact: { prefixes: ["acme_"] } },
      mind: { reflectAfter: 2, provider: { name: "scripted", command: [process.execPath, PROVIDER, mode, log], timeoutMs: 5000, ...extra } },
    },
  };
  fs.mkdirSync(path.join(dir, ".opencode/nso/transcripts"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify(config));
  fs.writeFileSync(path.join(dir, ".opencode/nso/transcripts/ses_p1.raw.jsonl"), laneText());
  return { dir, log };
}

const mindOf = (dir) => createNso({ directory: dir, worktree: dir }).continuity.mind();
const records = (dir, name) => fs.readFileSync(path.join(dir, MIND, name), "utf8").trim().split("\n").map((l) => JSON.parse(l));
const inputs = (log) => (fs.existsSync(log) ? fs.readdirSync(log).filter((f) => f.startsWith("input-")).map((f) => fs.readFileSync(path.join(log, f), "utf8")) : []);
/** Whether `pid` runs (a zombie left unreaped by the container's init does not). */
const alive = (pid) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

/** The observations and reflections of the same lane without a provider. */
async function deterministic() {
  const { dir } = project("good");
  const config = JSON.parse(fs.readFileSync(path.join(dir, ".opencode/nso.json"), "utf8"));
  delete config.continuity.mind.provider;
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify(config));
  await mindOf(dir).ingest();
  return { observations: records(dir, "observations.jsonl"), reflections: records(dir, "reflections.jsonl") };
}

test("without a provider every artifact is deterministic; a good answer rewords them and names its producer", async () => {
  const plain = await deterministic();
  assert.ok(plain.observations.length >= 4 && plain.reflections.length >= 1);
  assert.ok([...plain.observations, ...plain.reflections].every((r) => r.producer === "deterministic" && r.basis == null));

  const { dir, log } = project("good");
  const report = await mindOf(dir).ingest();
  assert.equal(report.providerFailures, 0);
  const obs = records(dir, "observations.jsonl");
  assert.equal(obs.length, plain.observations.length);
  for (const [o, p] of obs.map((o, i) => [o, plain.observations[i]])) {
    assert.equal(o.producer, "scripted");
    assert.equal(o.basis, p.rev, "names the deterministic revision it was made from");
    assert.match(o.text, /^(open question: )?refined: /);
    assert.deepEqual([o.id, o.events, o.files, o.kind], [p.id, p.events, p.files, p.kind], "citations stay");
  }
  const refl = records(dir, "reflections.jsonl");
  assert.ok(refl.every((r) => r.producer === "scripted" && r.lines.every((l) => l.startsWith("refined: "))));
  const passes = inputs(log).map((i) => JSON.parse(i).pass);
  assert.ok(passes.includes("observations") && passes.includes("reflection"), passes.join());

  // Nothing changed: nothing is sent or appended again, even though the kept records differ
  // from what the deterministic pass gives.
  fs.utimesSync(path.join(dir, ".opencode/nso/transcripts/ses_p1.raw.jsonl"), new Date(), new Date(Date.now() + 5000));
  const again = await mindOf(dir).ingest();
  assert.deepEqual([again.read, again.appended, again.reflections], [1, 0, 0]);
  assert.equal(inputs(log).length, passes.length, "the provider was not asked again");
});

test("a secret in the lane never reaches the provider's stdin", async () => {
  const { dir, log } = project("good");
  await mindOf(dir).ingest();
  const sent = inputs(log);
  assert.ok(sent.length >= 2);
  for (const text of sent) {
    for (const secret of SECRETS) assert.ok(!text.includes(secret), `${secret} was sent`);
    if (JSON.parse(text).pass === "observations") assert.ok(text.includes("[REDACTED]"));
  }
  assert.ok(sent.some((t) => t.includes("acme_[REDACTED]")), "the project's own redaction rules apply");
});

test("a provider that hangs is killed at its timeout, with what it started; the deterministic records stand", async () => {
  const plain = await deterministic();
  const { dir, log } = project("sleep", { timeoutMs: 2500, passes: ["observations"] });
  const started = Date.now();
  const report = await mindOf(dir).ingest();
  assert.ok(Date.now() - started < 10_000, "the ingestion did not wait for the command");
  assert.equal(report.providerFailures, 1);
  const pid = Number(fs.readFileSync(path.join(log, "pid-0"), "utf8"));
  const child = Number(fs.readFileSync(path.join(log, "child-0"), "utf8"));
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(alive(pid), false, "the command was killed");
  assert.equal(alive(child), false, "and the process it started");
  assert.deepEqual(records(dir, "observations.jsonl"), plain.observations);
  assert.match(readIf(dir, ".opencode/logs/nso-errors.log"), /provider scripted on ses_p1 chunk 0: timed out after 2500 ms \(killed\); the deterministic records stand/);
});

for (const [mode, extra, why] of [
  ["bad", {}, /its answer was refused: .*not JSON/],
  ["huge", { maxOutputBytes: 4096 }, /its answer passed maxOutputBytes \(4096\) \(killed\)/],
  ["foreign", {}, /its answer was refused: .*names `ses_other\/task-0`, not an observation of the pass/],
  ["good", { maxInputBytes: 1024, passes: ["observations"] }, /its input has \d+ bytes, over maxInputBytes \(1024\)/],
]) {
  test(`a ${mode === "good" ? "pass over its input budget" : `${mode} answer`} leaves the deterministic records, and is logged`, async () => {
    const plain = await deterministic();
    const { dir, log } = project(mode, extra);
    const report = await mindOf(dir).ingest();
    assert.ok(report.providerFailures >= 1);
    assert.deepEqual(records(dir, "observations.jsonl"), plain.observations);
    assert.deepEqual(records(dir, "reflections.jsonl"), plain.reflections);
    assert.match(readIf(dir, ".opencode/logs/nso-errors.log"), why);
    if (extra.maxInputBytes) assert.equal(inputs(log).length, 0, "nothing over budget is sent");
  });
}
