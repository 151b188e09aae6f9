// End-to-end (issue 11) through real OpenCode: a session records a decision, writes a file,
// is refused a rewrite of the ledger, and overflows its context, so OpenCode compacts it. The
// compaction request the model receives carries NSO's handoff; a new session's system prompt
// carries the project's latest handoff; the first session's T0 transcript exists, is the
// same made twice, and is the same made from the plugin's raw lane or from `opencode export`.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { contentText, startMockModel, systemText } from "./lib/mock-model.mjs";
import { makeProject, opencodeExport, runOpencode, tempDir } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const CLI = fileURLToPath(new URL("../../bin/nso.js", import.meta.url));
const LEDGER = ".opencode/context/decisions.md";
const DECISION = "Use PostgreSQL for the team claim store";
// A model limit makes OpenCode compact when a reply reports more tokens than fit.
const LIMITED = { provider: { mock: { models: { "mock-model": { limit: { context: 20000, output: 2000 } } } } } };
const OVERFLOW = { prompt_tokens: 25000, completion_tokens: 10, total_tokens: 25010 };

const isCompaction = (body) => /summar/i.test(systemText(body)) && !(body.tools?.length);
const allText = (body) => (body.messages ?? []).map((m) => contentText(m)).join("\n");
const nso = (dir, ...args) => spawnSync(process.execPath, [CLI, ...args, "--dir", dir], { encoding: "utf8" });

test("a compaction carries NSO's handoff; a new session starts with it; the T0 transcript is deterministic", async () => {
  const projectDir = makeProject({ git: true, files: { "README.md": "# cache service\n" } });
  const conductorHome = tempDir("conductor");
  const seen = { compaction: null, secondStart: null };
  let step = 0;
  const mock = await startMockModel((body, ctx) => {
    if (ctx.isTitle) return undefined;
    if (isCompaction(body)) {
      seen.compaction = body;
      return { text: "Summary: the cache plan was made." };
    }
    if (/second window/.test(allText(body))) {
      seen.secondStart ??= body;
      return { text: "I will go on from the handoff." };
    }
    switch (step++) {
      case 0: return { toolCalls: [{ name: "nso_decide", args: { decision: DECISION, why: "teams already run it; one server for every machine" } }] };
      case 1: return { toolCalls: [{ name: "write", args: { filePath: "src/cache.ts", content: "export const ttl = 3600;\n" } }] };
      case 2: return { toolCalls: [{ name: "bash", args: { command: `echo rewritten > ${LEDGER}`, description: "rewrite" } }] };
      case 3: return { text: "The cache is planned. Should entries expire after an hour?", usage: OVERFLOW };
      default: return { text: "done" };
    }
  });
  try {
    const opts = { projectDir, mock, plugins: [PLUGIN], config: LIMITED, env: { CONDUCTOR_HOME: conductorHome }, timeoutMs: 90_000 };
    const first = await runOpencode({ ...opts, prompt: "first window: plan the cache and record the decision" });
    assert.equal(first.code, 0, first.stderr);
    const sessionID = first.events.find((e) => e.sessionID)?.sessionID;
    assert.ok(sessionID, "the run names its session");

    // The decision is in the ledger; the rewrite was refused and the ledger kept.
    const ledger = fs.readFileSync(path.join(projectDir, LEDGER), "utf8");
    assert.match(ledger, /## D-0001 · Use PostgreSQL for the team claim store/);
    assert.doesNotMatch(ledger, /^rewritten/m);

    // The compaction request the model received carries the handoff.
    assert.ok(seen.compaction, "OpenCode compacted the session");
    const compaction = allText(seen.compaction);
    assert.match(compaction, /NSO handoff/);
    assert.match(compaction, /D-0001.*Use PostgreSQL for the team claim store/);
    assert.match(compaction, /src\/cache\.ts/, "files changed are in the session layer");
    assert.match(compaction, /NSO blocked bash/, "the refusal it hit is in the session layer");

    // The T0 transcript: kept by the plugin, the same when made twice from the lane, and the
    // same from `opencode export` of the session.
    const transcripts = path.join(projectDir, ".opencode/nso/transcripts");
    const lane = path.join(transcripts, `${sessionID}.raw.jsonl`);
    assert.ok(fs.existsSync(lane), "the raw lane exists");
    const kept = fs.readFileSync(path.join(transcripts, `${sessionID}.t0.md`), "utf8");
    assert.match(kept, new RegExp(`^# T0 transcript ${sessionID}`));
    assert.match(kept, /policy: nso-t0 v1/);
    const meta = JSON.parse(fs.readFileSync(path.join(transcripts, `${sessionID}.t0.json`), "utf8"));
    assert.match(meta.sha256, /^[0-9a-f]{64}$/);
    const once = nso(projectDir, "transcript", lane);
    const twice = nso(projectDir, "transcript", lane);
    assert.equal(once.status, 0, once.stderr);
    assert.equal(once.stdout, twice.stdout, "byte-identical when made twice");
    assert.match(once.stderr, /sha256 [0-9a-f]{64}/);
    const exported = await opencodeExport(sessionID, first.env, projectDir);
    assert.equal(exported.code, 0, exported.stderr);
    const exportFile = path.join(tempDir("export"), "session.json");
    fs.writeFileSync(exportFile, exported.stdout);
    const fromExport = nso(projectDir, "transcript", exportFile);
    assert.equal(fromExport.status, 0, fromExport.stderr);
    assert.equal(fromExport.stdout, once.stdout, "the live lane and `opencode export` give the same T0");
    assert.match(once.stdout, /\[tool\] write ok .*src\/cache\.ts/);
    assert.match(once.stdout, /\[tool\] bash error .*NSO blocked/);

    // A second window: a new main session starts with the project's latest handoff.
    const second = await runOpencode({ ...opts, prompt: "second window: go on with the cache" });
    assert.equal(second.code, 0, second.stderr);
    assert.ok(seen.secondStart, "the second session reached the model");
    const system = systemText(seen.secondStart);
    assert.match(system, /latest handoff \(from session ses_/);
    assert.match(system, /D-0001.*Use PostgreSQL for the team claim store/);
  } finally {
    await mock.close();
  }
});
