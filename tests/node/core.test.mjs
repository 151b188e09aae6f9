// Tests of the built wasm package pkg/ as the shim uses it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

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
