// The Conductor at the hooks (plugin/claims.js through the real plugin): before a write-class
// call the plugin claims its targets for the session's instance; another instance's
// intersecting claim refuses the call (enforce) or warns (advisory).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import plugin from "../../plugin/nso-plugin.js";
import { before, chatParams, makeProject, readIf, sessionCreated } from "./helpers.mjs";

/** Two OpenCode windows (plugin instances) on one project, each with a main session. */
async function twoWindows(config = {}) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-claims-"));
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ conductor: { home, ...config } }), "src/a.ts": "a", "src/b.ts": "b" });
  const open = async (sid, agent) => {
    const hooks = await plugin.server({ directory: dir, worktree: dir });
    await hooks.event(sessionCreated(sid));
    await hooks["chat.params"](...chatParams(sid, agent));
    await hooks["chat.message"]({ sessionID: sid }, { message: { agent }, parts: [{ type: "text", text: `${agent}: refactor the api` }] });
    return hooks;
  };
  return { dir, home, a: await open("ses_a", "build"), b: await open("ses_b", "build") };
}

const write = (file) => ({ filePath: file, content: "x" });

/**
 * A person takes `file` over by force, as `nso conductor` does from a shell: a new instance
 * (task "hotfix") claims it with `--force "urgent hotfix"`. Returns that instance's id.
 */
function forceOver(home, dir, file) {
  const cli = new URL("../../bin/nso.js", import.meta.url).pathname;
  const nso = (...args) => spawnSync(process.execPath, [cli, "conductor", ...args, "--home", home, "--dir", dir, "--json"], { encoding: "utf8" });
  const started = nso("start", "--task", "hotfix", "--priority", "P1");
  assert.equal(started.status, 0, started.stderr);
  const id = JSON.parse(started.stdout).instance_id;
  const taken = nso("claim", file, "--force", "urgent hotfix", "--instance", id);
  assert.equal(taken.status, 0, taken.stderr);
  return id;
}

test("a file one window has claimed is refused to another, naming the holder; subagents share", async () => {
  const { a, b, home } = await twoWindows();
  assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null);
  const refused = await before(b, "ses_b", "write", write("src/a.ts"));
  assert.match(refused, /^NSO blocked write for @build: .*src\/a\.ts is claimed by instance opc-[a-z0-9]{6} \(project nso-test-\w+, task "build: refactor the api", agent @build, claimed 0 min ago\)/);
  assert.match(refused, /wait .* coordinate .* --force/);
  assert.equal(await before(b, "ses_b", "write", write("src/b.ts")), null, "other files are free");
  // A subagent of window A works under A's instance.
  await a.event(sessionCreated("ses_a_child", { parentID: "ses_a", agent: "general" }));
  assert.equal(await before(a, "ses_a_child", "edit", { filePath: "src/a.ts", oldString: "a", newString: "c" }), null);
  // Folders and shell writes intersect: B may not delete src/ while A holds src/a.ts.
  assert.match(await before(b, "ses_b", "bash", { command: "rm -rf src" }), /claimed by instance/);
  const status = JSON.parse(fs.readFileSync(path.join(home, "status.json"), "utf8"));
  assert.equal(status.version, "2.0");
  assert.equal(status.instances.length, 2);
  assert.match(fs.readFileSync(path.join(home, "conflicts.log"), "utf8"), /\| CONFLICT \|/);
});

test("when the holder's session ends, its claims are released", async () => {
  const { a, b } = await twoWindows();
  assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null);
  assert.match(await before(b, "ses_b", "write", write("src/a.ts")), /claimed by instance/);
  await a.event({ event: { type: "session.deleted", properties: { info: { id: "ses_a" } } } });
  assert.equal(await before(b, "ses_b", "write", write("src/a.ts")), null);
});

test("a write remembered as allowed is still claimed every time: another window's claim refuses it", async () => {
  const { a, b } = await twoWindows();
  // The same call again and again: the policy's answer and its targets are remembered.
  for (let i = 0; i < 3; i++) assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null);
  await a.event({ event: { type: "session.deleted", properties: { info: { id: "ses_a" } } } });
  for (let i = 0; i < 3; i++) assert.equal(await before(b, "ses_b", "write", write("src/a.ts")), null);
  // Window A's next session makes the call it made before: now B holds the file.
  await a.event(sessionCreated("ses_a2"));
  await a["chat.params"](...chatParams("ses_a2", "build"));
  assert.match(await before(a, "ses_a2", "write", write("src/a.ts")) ?? "", /claimed by instance/);
  assert.match(await before(a, "ses_a2", "bash", { command: "echo x > src/a.ts" }) ?? "", /claimed by instance/);
});

test("advisory mode lets the call pass and tells the agent; off mode claims nothing", async () => {
  const { a, b } = await twoWindows({ mode: "advisory" });
  assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null);
  assert.equal(await before(b, "ses_b", "write", write("src/a.ts")), null);
  const out = { output: "written" };
  await b["tool.execute.after"]({ tool: "write", sessionID: "ses_b", callID: "call_1", args: write("src/a.ts") }, out);
  assert.match(out.output, /NSO conductor \(advisory\): .*src\/a\.ts is claimed by instance/);
  const off = await twoWindows({ mode: "off" });
  assert.equal(await before(off.a, "ses_a", "write", write("src/a.ts")), null);
  assert.equal(await before(off.b, "ses_b", "write", write("src/a.ts")), null);
  assert.equal(fs.existsSync(path.join(off.home, "status.json")), false, "no instance registered");
});

test("an unusable claim store fails closed in enforce mode and says how to fix it", async () => {
  const file = path.join(makeProject({ "not-a-folder": "x" }), "not-a-folder");
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ conductor: { home: file } }) });
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.event(sessionCreated("ses_1"));
  await hooks["chat.params"](...chatParams("ses_1", "build"));
  const refused = await before(hooks, "ses_1", "write", write("src/a.ts"));
  assert.match(refused, /NSO cannot use the conductor's claim store .*fail closed\)\. Fix: /);
  assert.equal(await before(hooks, "ses_1", "read", { filePath: "src/a.ts" }), null, "reads never need a claim");
  assert.match(readIf(dir, ".opencode/logs/nso-errors.log"), /conductor/);
});

test("agents claim a folder ahead, see who holds what, and release", async () => {
  const { a, b } = await twoWindows();
  const ctx = (sessionID) => ({ sessionID, agent: "build" });
  assert.match(await a.tool.nso_claim.execute({ paths: ["src/"] }, ctx("ses_a")), /^Claimed: .*\/src\/\*\*/);
  assert.match(await b.tool.nso_claim.execute({ paths: ["src/b.ts"] }, ctx("ses_b")), /^Not claimed \(nothing was\): .*src\/b\.ts held by opc-/);
  assert.match(await b.tool.nso_claims.execute({}, ctx("ses_b")), /INSTANCE[\s\S]*src\/\*\*/);
  assert.match(await before(b, "ses_b", "write", write("src/b.ts")), /claimed by instance/);
  assert.match(await a.tool.nso_release.execute({ paths: [] }, ctx("ses_a")), /^Released: .*src\/\*\*/);
  assert.equal(await before(b, "ses_b", "write", write("src/b.ts")), null);
});

test("a claim a person forces over is told to the former holder's agent at its next tool call", async () => {
  const { a, b, home, dir } = await twoWindows();
  assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null);
  const id = forceOver(home, dir, "src/a.ts");
  assert.match(fs.readFileSync(path.join(home, "conflicts.log"), "utf8"), /\| FORCE \|/);
  // A's next call, a read, carries the notice in its result.
  assert.equal(await before(a, "ses_a", "read", { filePath: "src/b.ts" }), null);
  const out = { output: "text" };
  await a["tool.execute.after"]({ tool: "read", sessionID: "ses_a", callID: "call_1", args: {} }, out);
  assert.match(out.output, /NSO conductor: your claim on .*src\/a\.ts was taken over by .*\("urgent hotfix"\)/);
  // And its write to that file is now refused: the new holder has it.
  assert.match(await before(a, "ses_a", "write", write("src/a.ts")), new RegExp(`claimed by instance ${id}`));
  assert.ok(b);
});

test("a write to a held file reads the store's version once, and the next call reads it again", async () => {
  const { a, home, dir } = await twoWindows();
  assert.equal(await before(a, "ses_a", "write", write("src/b.ts")), null);
  const { openStore } = await import("../../plugin/conductor/stores.js");
  const store = openStore({ home }, { root: dir }); // the plugin's own (one per folder)
  const version = store.version;
  let reads = 0;
  store.version = () => (reads++, version.call(store));
  try {
    const call = () => a["tool.execute.before"]({ tool: "write", sessionID: "ses_a", callID: "c" }, { args: write("src/b.ts") });
    await call();
    assert.equal(reads, 1, "its notices and its write: one read");
    await call();
    assert.equal(reads, 2, "read again at the next call");
  } finally {
    store.version = version;
  }
});

test("a config reload that names another Conductor home claims there", async () => {
  const { a, home, dir } = await twoWindows();
  assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null);
  assert.match(fs.readFileSync(path.join(home, "status.json"), "utf8"), /src\/a\.ts/);
  const other = fs.mkdtempSync(path.join(os.tmpdir(), "nso-claims-other-"));
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({ conductor: { home: other } }));
  await a.event({ event: { type: "file.edited", properties: { file: path.join(dir, ".opencode/nso.json") } } });
  assert.equal(await before(a, "ses_a", "write", write("src/b.ts")), null);
  assert.match(fs.readFileSync(path.join(other, "status.json"), "utf8"), /src\/b\.ts/);
  assert.doesNotMatch(fs.readFileSync(path.join(home, "status.json"), "utf8"), /src\/b\.ts/);
});

test("a write to a file still held, after another is forced over, carries the notice; the next one none", async () => {
  const { a, home, dir } = await twoWindows();
  assert.equal(await before(a, "ses_a", "write", write("src/a.ts")), null);
  assert.equal(await before(a, "ses_a", "write", write("src/b.ts")), null);
  assert.equal(await before(a, "ses_a", "write", write("src/b.ts")), null); // held already: settled at once
  const id = forceOver(home, dir, "src/a.ts");
  const after = async (callID) => {
    const out = { output: "text" };
    await a["tool.execute.after"]({ tool: "write", sessionID: "ses_a", callID, args: {} }, out);
    return out.output;
  };
  const writeB = (callID) => a["tool.execute.before"]({ tool: "write", sessionID: "ses_a", callID }, { args: write("src/b.ts") });
  await writeB("call_b1");
  assert.match(await after("call_b1"), /NSO conductor: your claim on .*src\/a\.ts was taken over by .*\("urgent hotfix"\)/);
  await writeB("call_b2");
  assert.equal(await after("call_b2"), "text");
  assert.match(await before(a, "ses_a", "write", write("src/a.ts")), new RegExp(`claimed by instance ${id}`));
});

test("an agent's status sync claims TODO.md and state.json for its window", async () => {
  const fixture = (name) => fs.readFileSync(new URL(`../../crate/tests/fixtures/status/${name}`, import.meta.url), "utf8");
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-claims-"));
  const dir = makeProject({
    ".opencode/nso.json": JSON.stringify({ authority: { preset: "proofchecker" }, conductor: { home } }),
    ".opencode/specs/TODO.md": fixture("TODO.md"), ".opencode/specs/state.json": fixture("state.json"),
  });
  const windows = [];
  for (const sid of ["ses_a", "ses_b"]) {
    const hooks = await plugin.server({ directory: dir, worktree: dir });
    await hooks.event(sessionCreated(sid));
    windows.push(hooks);
  }
  const set = (hooks, sid, status) => hooks.tool.nso_status_set.execute({ task: 258, status, artifacts: [] }, { sessionID: sid, agent: "planner" });
  assert.match(await set(windows[0], "ses_a", "PLANNING"), /\[RESEARCHED\] → \[PLANNING\]/);
  // A sync the machine refuses claims nothing; a legal one in another window meets A's claim.
  assert.match(await set(windows[1], "ses_b", "COMPLETED"), /refused .*not a legal transition/);
  assert.match(await set(windows[1], "ses_b", "PLANNED"), /refused .*TODO\.md is claimed by instance/);
});
