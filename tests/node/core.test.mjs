// Tests of the built wasm package pkg/ as the shim uses it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

import { briefWith, countText } from "../../plugin/decision.js";

const require = createRequire(import.meta.url);
const core = require("../../pkg/nso.js");

test("reports its version", () => {
  assert.match(core.version(), /^\d+\.\d+\.\d+$/);
});

test("a missing config gives the documented defaults", () => {
  const nso = new core.Nso(".opencode/nso.json", undefined);
  const config = nso.config();
  assert.deepEqual(config.memory.files, [
    ".opencode/context/01_memory/active_context.md",
    ".opencode/context/01_memory/progress.md",
    ".opencode/context/01_memory/patterns.md",
  ]);
  assert.equal(config.hooks.timeoutMs, 5000);
  assert.equal(config.logDir, ".opencode/logs");
});

test("config errors carry code, file, JSON path and fix", () => {
  const cases = [
    ['{"memory": {"files": "a.md"}}', "config_type", "memory.files"],
    ['{"memory": {"maxBytez": 3}}', "config_unknown_key", "memory.maxBytez"],
    ['{"hooks": ', "config_json", "line 1 column 10"],
  ];
  for (const [text, code, where] of cases) {
    assert.throws(() => new core.Nso(".opencode/nso.json", text), (error) => {
      assert.equal(error.code, code);
      assert.equal(error.file, ".opencode/nso.json");
      assert.equal(error.path, where);
      assert.ok(error.fix.length > 10, error.fix);
      assert.ok(error.message.startsWith(`.opencode/nso.json: ${where}: `), error.message);
      return true;
    });
  }
});

test("the session summary includes present files and lists missing ones", () => {
  const nso = new core.Nso(".opencode/nso.json", '{"memory": {"maxBytes": 300}}');
  const summary = nso.sessionSummary([
    { path: "a.md", content: "alpha ".repeat(100) },
    { path: "b.md", content: null },
  ]);
  assert.deepEqual(summary.loaded, ["a.md"]);
  assert.deepEqual(summary.missing, ["b.md"]);
  assert.equal(summary.truncated, true);
  assert.ok(Buffer.byteLength(summary.text) <= 300);
  assert.ok(summary.text.includes("## a.md"));
});

test("a trap poisons only that instance: a re-required package works", () => {
  assert.throws(() => core.trapForTest(), WebAssembly.RuntimeError);
  delete require.cache[require.resolve("../../pkg/nso.js")];
  const fresh = require("../../pkg/nso.js");
  assert.notEqual(fresh, core);
  const nso = new fresh.Nso(".opencode/nso.json", "{}");
  assert.equal(nso.config().logDir, ".opencode/logs");
});

test("the shipped policy schema is the one compiled into the core", async () => {
  const fs = await import("node:fs");
  const shipped = fs.readFileSync(new URL("../../schema/policy.schema.json", import.meta.url), "utf8");
  assert.equal(shipped, core.policySchema());
  const top = JSON.parse(fs.readFileSync(new URL("../../schema/nso.schema.json", import.meta.url), "utf8"));
  assert.equal(top.properties.authority.$ref, "policy.schema.json");
});

test("decideCall: a lasting plain allow is true, another plain allow undefined, a decision its brief", () => {
  const nso = new core.Nso(".opencode/nso.json", '{"authority": {"preset": "kord"}}');
  nso.setDirectories("/p", "/p");
  const call = (session, agent, tool, args) => nso.decideCall(session, agent, tool, JSON.stringify(args), undefined);
  // The same call is allowed in any session until the policy changes.
  assert.equal(call("s1", "dev", "bash", { command: "npm test" }), true);
  // An unrecorded caller may read, but its decisions name its session: never lasting.
  assert.equal(call("s1", undefined, "grep", { pattern: "x" }), undefined);
  // A refusal: what `decide` says of verdict, rule and message, without the operations.
  for (const n of [1, 2]) {
    const brief = JSON.parse(call("s2", "dev", "bash", { command: "git push origin main" }));
    const full = JSON.parse(nso.decide(JSON.stringify({ sessionId: `full${n}`, agent: "dev", tool: "bash",
      args: { command: "git push origin main" }, directory: "/p", worktree: "/p" })));
    // The first refusal of a lasting call in its session carries the key of its repeats.
    assert.deepEqual(Object.keys(brief), ["verdict", "ruleId", "message", ...(n === 1 ? ["again"] : [])]);
    if (n === 1) assert.ok(Number.isSafeInteger(brief.again), `${brief.again}`);
    assert.equal(brief.verdict, full.verdict);
    assert.equal(brief.ruleId, full.ruleId);
    // The second refusal in s2 says it repeats; `decide`'s sessions are new each time.
    if (n === 1) assert.equal(brief.message, full.message);
    else assert.match(brief.message, /^NSO blocked bash for @dev: .*already refused 1 time in this session/);
    assert.ok(Array.isArray(full.operations) && full.operations.length === 1);
  }
  // What must be looked up first, lasting as a plain allow is (the same in any session), or not.
  assert.deepEqual(JSON.parse(call("s1", "dev", "write", { filePath: "src/a.ts", content: "x" })),
    { need: { resolve: ["/p/src/a.ts"], content: [], exists: [] }, lasting: true });
  assert.deepEqual(Object.keys(JSON.parse(call("s1", undefined, "write", { filePath: "src/a.ts", content: "x" }))), ["need"]);
});

test("the shim's copy of a remembered refusal keeps every field of the core's brief", () => {
  const nso = new core.Nso(".opencode/nso.json", '{"authority": {"preset": "kord"}}');
  nso.setDirectories("/p", "/p");
  const briefs = [
    ["dev", "bash", { command: "git push origin main" }, undefined],
    ["dev", "bash", { command: "cd src && git push --force" }, undefined],
    ["dev", "frobnicate", { x: 1 }, undefined],
    ["qa", "write", { filePath: "src/a.ts", content: "x" }, { resolved: { "/p/src/a.ts": "/p/src/a.ts" }, contents: {}, exists: { "/p/src/a.ts": true } }],
  ].map(([agent, tool, args, lookups]) => JSON.parse(nso.decideCall("s", agent, tool, JSON.stringify(args), lookups && JSON.stringify(lookups))));
  for (const answer of briefs) {
    const brief = { ...answer };
    delete brief.again; // the shim keeps it apart
    const copy = briefWith(brief, brief.message);
    for (const key of Object.keys(copy)) if (copy[key] === undefined) delete copy[key];
    assert.deepEqual(copy, brief);
  }
  assert.ok(briefs.some((b) => b.again !== undefined), "some of them are remembered refusals");
  assert.ok(briefs.some((b) => b.unclassified && b.log?.length), "one has the flag and log lines");
});

test("the shim writes a repeat count as String does", () => {
  const samples = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 1010, 1100, 9999, 10000, 999999, 1000000, 1000001, 2 ** 31, 2 ** 53 - 1];
  for (let i = 0; i < 2000; i++) samples.push(i, Math.floor(Math.random() * 1e9));
  for (const n of samples) assert.equal(countText(n), String(n));
});

test("the repeat note's words, put together as the shim does, are the core's own note", () => {
  const nso = new core.Nso(".opencode/nso.json", '{"authority": {"preset": "kord"}}');
  const [before, one, many] = JSON.parse(core.Nso.repeatNoteParts());
  const request = JSON.stringify({ sessionId: "s", agent: "dev", tool: "bash", args: { command: "git push origin main" }, directory: "/p", worktree: "/p" });
  const first = JSON.parse(nso.decide(request)).message;
  for (let n = 2; n <= 4; n++) {
    assert.equal(JSON.parse(nso.decide(request)).message, `${first}${before}${n - 1}${n === 2 ? one : many}`);
  }
});

test("refusedAgain counts a remembered refusal as deciding it again would, also several told at once", () => {
  const nso = new core.Nso(".opencode/nso.json", '{"authority": {"preset": "kord"}}');
  nso.setDirectories("/p", "/p");
  const push = (session) => JSON.parse(nso.decideCall(session, "dev", "bash", JSON.stringify({ command: "git push origin main" }), undefined));
  const { again } = push("s1");
  assert.equal(nso.refusedAgain("s1", again, 1), 2);
  assert.equal(nso.refusedAgain("s1", again, 3), 5, "three counted by the shim, told at once");
  assert.equal(nso.refusedAgain("s2", again, 1), 1, "counted per session: the first in s2");
  // The core counts the same: its next decision in s1 is the sixth refusal.
  assert.match(push("s1").message, /already refused 5 times in this session/);
  assert.equal(push("s2").again, undefined, "not the first in s2 any more: no key");
  // Not lasting (an unrecorded agent's refusal names its session): no key.
  const unknown = JSON.parse(nso.decideCall("s3", undefined, "bash", JSON.stringify({ command: "git push origin main" }), undefined));
  assert.equal(unknown.verdict, "block");
  assert.equal(unknown.again, undefined);
});
