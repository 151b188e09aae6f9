// Bounded input (the core's authority::bounds, applied at the wasm boundary before a string
// is copied; plugin/text.js crossingPrefix for the router's scan window): long messages,
// commands and texts are cut or left out before they cross into wasm, and the verdicts stay
// what the core gives on the whole input.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawnSync } from "node:child_process";
import { crossingPrefix } from "../../plugin/text.js";
import { createNso } from "../../plugin/nso.js";
import { loadWorkflowCore } from "../../plugin/core-loader.js";
import { makeProject, readIf } from "./helpers.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const utf8 = (s) => Buffer.byteLength(s, "utf8");

test("crossingPrefix keeps at least the first N+1 bytes and never splits a surrogate pair", () => {
  assert.equal(crossingPrefix("short", 100), "short");
  const ascii = "a".repeat(1000);
  assert.ok(utf8(crossingPrefix(ascii, 100)) > 100);
  assert.ok(crossingPrefix(ascii, 100).length < 110);
  const emoji = "😀".repeat(500); // 2 UTF-16 units, 4 bytes each
  for (const n of [99, 100, 101]) {
    const cut = crossingPrefix(emoji, n);
    assert.ok(utf8(cut) > n, `n=${n}`);
    assert.ok(emoji.startsWith(cut));
    assert.doesNotMatch(cut, /[\ud800-\udbff]$/, "no lone high surrogate at the end");
  }
});

test("a text over the limit is left out by the core, measured in bytes, and the host's arguments are untouched", async () => {
  const note = "docs/kord/notepads/auth/learnings.md";
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" } }), [note]: "# Learnings\n" });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_1", "dev");
  const call = (tool, args) => nso.beforeTool({ tool, sessionID: "ses_1", callID: "c" }, { args }).then(() => null, (e) => e.message);
  // 600,000 characters are 1.2 MB in UTF-8: over the default limit of 1 MiB, so the append-only
  // check cannot run on it.
  const args = { filePath: note, content: `# Learnings\n${"é".repeat(600_000)}` };
  assert.match(await call("write", args), /1200012 bytes, more than NSO reads/);
  assert.equal(typeof args.content, "string", "the host's arguments are untouched");
  assert.equal(args.content.length, 600_012);
  // 2 million characters are over the limit however they are encoded: never copied whole.
  assert.match(await call("write", { filePath: note, content: "x".repeat(2_000_000) }), /bytes, more than NSO reads/);
});

test("a 10 MB message routes exactly like its scan window, and only the window crosses", () => {
  const dir = makeProject();
  const nso = createNso({ directory: dir, worktree: dir });
  nso.sessionCreated({ id: "ses_1" });
  const head = "Please research the Kripke semantics lemma and write a research report on it. ";
  const message = head + "filler words without meaning ".repeat(360_000);
  assert.ok(message.length > 10_000_000);
  const wf = new (loadWorkflowCore().Workflow)(".opencode/nso.json", undefined);
  const seen = [];
  const realRoute = wf.route.bind(wf);
  nso.state.workflow = { scanLimitBytes: () => wf.scanLimitBytes(), route: (text, ...rest) => (seen.push(text.length), realRoute(text, ...rest)) };
  nso.route({ sessionID: "ses_1", text: message, typed: true, agent: "build" });
  assert.equal(seen.length, 1);
  assert.ok(seen[0] <= wf.scanLimitBytes() + 2, `crossed ${seen[0]} characters`);
  const logged = JSON.parse(readIf(dir, ".opencode/logs/router.jsonl").trim().split("\n").at(-1));
  const whole = JSON.parse(realRoute(message, "user", "build", undefined));
  for (const key of ["should_route", "workflow", "confidence", "reason", "safety_check"]) {
    assert.deepEqual(logged[key], whole[key], key);
  }
});

test("huge inputs get the core's fail-closed verdicts, in the plugin and in the CLI alike", async () => {
  const note = "docs/kord/notepads/auth/learnings.md";
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" }, limits: { contentBytes: 65536 } }), [note]: "# Learnings\n" });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_1", "dev");
  const call = (tool, args) => nso.beforeTool({ tool, sessionID: "ses_1", callID: "c" }, { args }).then(() => null, (e) => e.message);
  const big = `# Learnings\n${"- a learning\n".repeat(10_000)}`; // 130 KB, keeps the prefix
  // An ordinary source file needs no content check: allowed as before.
  assert.equal(await call("write", { filePath: "src/big.ts", content: big }), null);
  // An append-only file cannot be checked without the text: refused, naming the limit.
  assert.match(await call("write", { filePath: note, content: big }), /130012 bytes, more than NSO reads .*limits\.contentBytes/);
  // The file itself grown past the limit: an edit is refused, an append with >> is the way out.
  fs.writeFileSync(`${dir}/${note}`, big);
  assert.match(await call("edit", { filePath: note, oldString: "- a learning\n", newString: "- a learning\n- more\n" }), /130012 bytes.*`>>`/);
  assert.equal(await call("bash", { command: `echo more >> ${note}` }), null);
  // A command over the analyser's limit is opaque (too large), whatever it says.
  const huge = `git push; echo ${"x".repeat(70_000)}`;
  const cli = spawnSync(process.execPath, [CLI, "explain", "--agent", "plan", "--command", huge, "--dir", dir, "--json"], { encoding: "utf8" });
  assert.equal(cli.status, 1, cli.stderr);
  assert.match(cli.stdout, /too large/);
  nso.noteAgent("ses_2", "plan");
  const plugin = await nso.beforeTool({ tool: "bash", sessionID: "ses_2", callID: "c" }, { args: { command: huge } }).then(() => null, (e) => e.message);
  assert.match(plugin, /too large to analyse/);
});
