// Tests of the built wasm package pkg/ as the shim uses it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

import { DISK_FACTS } from "../../plugin/decision/files.js";

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

/** Facts of a project at /p where every path is where it is written, and `present` exist. */
const memory = (present = []) => ({
  asked: [],
  realPath(abs) {
    this.asked.push(abs);
    return [abs, present.includes(abs)];
  },
  read: () => undefined,
});

test("decideCall: nothing for a plain allow of a read, the files a write changes, a refusal's brief", () => {
  const nso = new core.Nso(".opencode/nso.json", '{"authority": {"preset": "kord"}}');
  nso.setDirectories("/p", "/p");
  const facts = memory(["/p/src/a.ts"]);
  const call = (session, agent, tool, args) => nso.decideCall(session, agent, tool, args, facts);
  assert.equal(call("s1", "dev", "read", { filePath: "src/a.ts" }), undefined);
  assert.deepEqual(call("s1", "dev", "write", { filePath: "src/a.ts", content: "x" }), { verdict: "allow", targets: [["src/a.ts", false]] });
  assert.ok(facts.asked.includes("/p/src/a.ts"), "asked where the path leads");
  const first = call("s2", "dev", "bash", { command: "git push origin main" });
  assert.deepEqual(Object.keys(first), ["verdict", "ruleId", "message", "log"]);
  assert.equal(first.verdict, "block");
  assert.equal(first.ruleId, "kord.git.push");
  assert.deepEqual(first.log, ["block bash @dev kord.git.push"]);
  assert.match(call("s2", "dev", "bash", { command: "git push origin main" }).message, /already refused 1 time in this session/);
  assert.doesNotMatch(call("s3", "dev", "bash", { command: "git push origin main" }).message, /already refused/);
});

test("decideCall: a host whose facts fail refuses the call, naming the path and the reason", () => {
  const nso = new core.Nso(".opencode/nso.json", '{"authority": {"preset": "kord"}}');
  nso.setDirectories("/p", "/p");
  const broken = { realPath: () => { throw new Error("EACCES: permission denied"); }, read: () => undefined };
  const brief = nso.decideCall("s", "dev", "write", { filePath: "src/a.ts", content: "x" }, broken);
  assert.equal(brief.verdict, "block");
  assert.equal(brief.ruleId, "kord.lookup");
  assert.match(brief.message, /\/p\/src\/a\.ts .*EACCES: permission denied.*fail closed/);
  const odd = { realPath: () => "not a pair", read: () => undefined };
  assert.equal(nso.decideCall("s", "dev", "write", { filePath: "src/a.ts", content: "x" }, odd).verdict, "block");
});

test("decideCall: a text too large to check crosses as its size; a huge command is cut past the analyser's limit", () => {
  const nso = new core.Nso(".opencode/nso.json", '{"authority": {"preset": "kord"}, "limits": {"contentBytes": 1000}}');
  nso.setDirectories("/p", "/p");
  const notes = "docs/kord/notepads/a/l.md";
  const facts = { realPath: (abs) => [abs, true], read: () => "# old\n" };
  const brief = nso.decideCall("s", "dev", "write", { filePath: notes, content: "é".repeat(600) }, facts);
  assert.match(brief.message, /1200 bytes, more than NSO reads/);
  const huge = nso.decideCall("s", "plan", "bash", { command: `git push; echo ${"x".repeat(70_000)}` }, facts);
  assert.match(huge.message, /too large to analyse/);
});

test("explainCall: the decision and its account, with the facts looked up", () => {
  const nso = new core.Nso(".opencode/nso.json", '{"authority": {"preset": "kord"}}');
  nso.setDirectories("/p", "/p");
  const { decision, text } = nso.explainCall("cli", "qa", "write", { filePath: "src/a.ts", content: "x" }, DISK_FACTS);
  assert.equal(decision.verdict, "block");
  assert.ok(Array.isArray(decision.operations) && decision.operations.length >= 1);
  assert.match(text, /decision: block by kord\./);
});

test("isReadTool is the core's one list", () => {
  for (const tool of ["read", "grep", "glob", "list", "ls", "task"]) assert.equal(core.isReadTool(tool), true, tool);
  for (const tool of ["write", "edit", "bash", "apply_patch", "nso_status_set", "mystery"]) assert.equal(core.isReadTool(tool), false, tool);
});
