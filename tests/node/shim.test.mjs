// Tests of the real shim plugin/nso-plugin.js with hook inputs shaped like OpenCode 1.18's.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import plugin, { NsoPlugin, createNso, loadCore, projectRoot } from "../../plugin/nso-plugin.js";
import { cachedPathInfo, forgetChangedBy } from "../../plugin/files.js";
import { callsOf, makeProject, readIf, sessionCreated, chatParams, before } from "./helpers.mjs";

const MEMORY = ".opencode/context/01_memory";

async function start(dir, extra = {}) {
  return plugin.server({ directory: dir, worktree: dir, ...extra });
}

test("module shape: default {id, server} and a named plugin function", () => {
  assert.equal(plugin.id, "nso");
  assert.equal(plugin.server, NsoPlugin);
  assert.equal(typeof NsoPlugin, "function");
});

test("the core loads once and is shared", () => {
  assert.equal(loadCore(), loadCore());
});

test("paths come from worktree, then directory, then cwd", () => {
  const dir = makeProject();
  assert.equal(projectRoot({ directory: path.join(dir, "sub"), worktree: dir }), dir);
  assert.equal(projectRoot({ directory: dir, worktree: "/" }), dir); // OpenCode outside git
  assert.equal(projectRoot({}), process.cwd());
});

test("session init in a project with no .opencode folder writes marker and alive log", async () => {
  const dir = makeProject({ "src/a.ts": "x" });
  const hooks = await start(dir);
  await hooks.event(sessionCreated("ses_main"));
  const marker = readIf(dir, ".opencode/logs/session_init_marker.txt");
  assert.match(marker, /^initialized: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\nsession: ses_main\n/);
  assert.match(marker, /memory loaded: \(none\)/);
  assert.match(readIf(dir, ".opencode/logs/plugin_alive.log"), /session\.created ses_main\n$/);
  const out = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_main" }, out);
  assert.deepEqual(out.system, []);
});

test("memory files reach the system prompt of their main session only", async () => {
  const dir = makeProject({
    [`${MEMORY}/active_context.md`]: "Current focus: the login page.",
    [`${MEMORY}/patterns.md`]: "Use Result, never panic.",
  });
  const hooks = await start(dir);
  await hooks.event(sessionCreated("ses_a"));
  await hooks.event(sessionCreated("ses_child", { parentID: "ses_a", agent: "general" }));
  const main = { system: ["base"] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_a" }, main);
  assert.equal(main.system.length, 2);
  assert.match(main.system[1], /Current focus: the login page\./);
  assert.match(main.system[1], /Use Result, never panic\./);
  const child = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_child" }, child);
  assert.deepEqual(child.system, []);
  // the subagent's session.created did not rewrite the marker
  assert.match(readIf(dir, ".opencode/logs/session_init_marker.txt"), /session: ses_a\n/);
  assert.match(readIf(dir, ".opencode/logs/session_init_marker.txt"), /memory missing: .*progress\.md/);
});

test("the caller comes from chat.params message.agent, never the title pseudo-agent", async () => {
  const dir = makeProject();
  const hooks = await start(dir);
  await hooks.event(sessionCreated("ses_1"));
  await hooks["chat.params"](...chatParams("ses_1", "plan", "title"));
  await hooks["chat.params"](...chatParams("ses_1", "title"));
  const message = await before(hooks, "ses_1", "write", { filePath: "/etc/passwd", content: "x" });
  assert.match(message, /for @plan/);
});

test("a subagent session takes its agent from session.created", async () => {
  const nso = createNso({ directory: makeProject() });
  nso.sessionCreated({ id: "ses_child", parentID: "ses_parent", agent: "explore" });
  assert.equal(nso.agentOf("ses_child"), "explore");
});

test("a write inside the project passes; outside it is refused with NSO's message", async () => {
  const dir = makeProject();
  const hooks = await start(dir);
  await hooks.event(sessionCreated("ses_1"));
  await hooks["chat.params"](...chatParams("ses_1", "build"));
  assert.equal(await before(hooks, "ses_1", "write", { filePath: "src/a.ts", content: "x" }), null);
  assert.equal(await before(hooks, "ses_1", "read", { filePath: "/etc/hosts" }), null);
  const message = await before(hooks, "ses_1", "write", { filePath: "../escape.txt", content: "x" });
  assert.match(message, /^NSO blocked write for @build: /);
  assert.match(message, /outside the project/);
  assert.match(readIf(dir, ".opencode/logs/nso.log"), /block write @build/);
});

test("an invalid config fails closed for write-class tools and says how to fix it", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"memory": {"files": 7}}' });
  const hooks = await start(dir);
  await hooks.event(sessionCreated("ses_1"));
  for (const tool of ["write", "edit", "bash", "apply_patch", "some_mcp_tool"]) {
    const message = await before(hooks, "ses_1", tool, { filePath: "a.txt", command: "ls" });
    assert.match(message, /NSO is not enforcing its rules: \.opencode\/nso\.json: memory\.files: expected a list of paths/, tool);
    assert.match(message, /fail closed/);
    assert.match(message, /Fix: make `memory\.files` a list of paths/);
  }
  assert.equal(await before(hooks, "ses_1", "read", { filePath: "a.txt" }), null);
  const out = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_1" }, out);
  assert.match(out.system.join("\n"), /NSO is not enforcing/);
  const first = { output: "file text" };
  await hooks["tool.execute.after"]({ tool: "read", sessionID: "ses_1", callID: "c", args: {} }, first);
  assert.match(first.output, /^file text\n\n\[NSO is not enforcing/);
  const second = { output: "again" };
  await hooks["tool.execute.after"]({ tool: "read", sessionID: "ses_1", callID: "c", args: {} }, second);
  assert.equal(second.output, "again");
  assert.match(readIf(dir, ".opencode/logs/nso-errors.log"), /NOT ENFORCING \(config_type\)/);
  assert.match(readIf(dir, ".opencode/logs/plugin_alive.log"), /NOT ENFORCING/);

  // Fixing the file takes effect at the next session.
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), "{}");
  await hooks.event(sessionCreated("ses_2"));
  await hooks["chat.params"](...chatParams("ses_2", "build"));
  assert.equal(await before(hooks, "ses_2", "write", { filePath: "a.txt", content: "" }), null);
});

test("a core that cannot load fails closed and names the fix", async () => {
  const dir = makeProject();
  const copy = makeProject();
  fs.mkdirSync(path.join(copy, "pkg"));
  fs.cpSync(new URL("../../plugin/", import.meta.url), path.join(copy, "plugin"), { recursive: true });
  for (const f of ["nso.js", "package.json"]) {
    fs.copyFileSync(new URL(`../../pkg/${f}`, import.meta.url), path.join(copy, "pkg", f));
  }
  fs.writeFileSync(path.join(copy, "pkg/nso_bg.wasm"), "not wasm");
  const broken = await import(path.join(copy, "plugin/nso-plugin.js"));
  const hooks = await broken.default.server({ directory: dir, worktree: dir });
  await hooks.event(sessionCreated("ses_1"));
  const message = await before(hooks, "ses_1", "write", { filePath: "a.txt", content: "x" });
  assert.match(message, /did not load/);
  assert.match(message, /Fix: reinstall the nso-opencode package/);
  assert.equal(await before(hooks, "ses_1", "grep", { pattern: "x" }), null);
  assert.equal(readIf(dir, "a.txt"), undefined);
});

test("after a wasm trap the instance is re-created and the next call works", async () => {
  const dir = makeProject();
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_1", "build");
  const engine = nso.state.engine;
  engine.decideCall = () => loadCore().trapForTest();
  await assert.rejects(nso.beforeTool({ tool: "write", sessionID: "ses_1" }, { args: { filePath: "a", content: "" } }), /trapped.*restarted/);
  assert.notEqual(nso.state.engine, engine);
  await nso.beforeTool({ tool: "write", sessionID: "ses_1" }, { args: { filePath: "a", content: "" } });
  await assert.rejects(nso.beforeTool({ tool: "write", sessionID: "ses_1" }, { args: { filePath: "/x", content: "" } }), /outside the project/);
  assert.match(readIf(dir, ".opencode/logs/nso-errors.log"), /wasm trap, instance re-created/);
});

function hookScript(dir, kind, name, body) {
  const file = path.join(dir, ".opencode/hooks", kind, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

test("project pre hooks get the call as JSON and a non-zero exit blocks with their message", async () => {
  const dir = makeProject();
  hookScript(dir, "pre_tool_use", "10-record.sh", `cat > "${dir}/seen.json"`);
  hookScript(dir, "pre_tool_use", "20-deny-env.sh",
    `if grep -q '\\.env' ; then echo "secrets stay out of reach" >&2; exit 3; fi`);
  fs.writeFileSync(path.join(dir, ".opencode/hooks/pre_tool_use/README.md"), "not executable");
  const hooks = await start(dir);
  await hooks["chat.params"](...chatParams("ses_1", "build"));
  assert.equal(await before(hooks, "ses_1", "read", { filePath: "src/a.ts" }), null);
  const seen = JSON.parse(readIf(dir, "seen.json"));
  assert.deepEqual({ tool: seen.tool, agent: seen.agent, args: seen.args },
    { tool: "read", agent: "build", args: { filePath: "src/a.ts" } });
  const message = await before(hooks, "ses_1", "read", { filePath: ".env" });
  assert.match(message, /project hook \.opencode\/hooks\/pre_tool_use\/20-deny-env\.sh refused it \(exit 3\): secrets stay out of reach/);
});

test("a pre hook that hangs is stopped at the timeout and blocks", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"hooks": {"timeoutMs": 200}}' });
  hookScript(dir, "pre_tool_use", "slow.sh", "sleep 5");
  const hooks = await start(dir);
  const started = Date.now();
  const message = await before(hooks, "ses_1", "read", { filePath: "a" });
  assert.ok(Date.now() - started < 2000);
  assert.match(message, /timed out after 200 ms/);
});

test("post hooks see the output; their failure never breaks the call", async () => {
  const dir = makeProject();
  hookScript(dir, "post_tool_use", "log.sh", `cat > "${dir}/post.json"; exit 1`);
  const hooks = await start(dir);
  const out = { output: "hello" };
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: "s", callID: "c", args: { command: "echo hello" } }, out);
  assert.equal(out.output, "hello");
  assert.equal(JSON.parse(readIf(dir, "post.json")).output, "hello");
  assert.match(readIf(dir, ".opencode/logs/nso.log"), /post hook .*log\.sh exit 1/);
});

test("chat.message never throws, even on malformed input", async () => {
  const hooks = await start(makeProject());
  await hooks["chat.message"](undefined, undefined);
  await hooks["chat.message"]({ sessionID: "s" }, { message: null });
  await hooks.event({ event: null });
  await hooks.event({ event: { type: "session.created", properties: {} } });
});

test("symlinks are decided on their real target, for file tools and for bash", async () => {
  const outside = makeProject({ "victim.txt": "keep" });
  const dir = makeProject({
    ".opencode/nso.json": '{"authority": {"preset": "kord"}}',
    "docs/kord/plans/p1.md": "# Plan\n",
    "src/app.ts": "x",
  });
  fs.symlinkSync(outside, path.join(dir, "out"));                               // folder link out
  fs.symlinkSync(path.join(outside, "victim.txt"), path.join(dir, "notes.md")); // file link out
  fs.symlinkSync("../../../src", path.join(dir, "docs/kord/plans/code"));       // plans -> src
  const hooks = await start(dir);
  await hooks["chat.params"](...chatParams("ses_dev", "dev"));
  await hooks["chat.params"](...chatParams("ses_plan", "plan"));

  for (const filePath of ["out/x.txt", "notes.md", path.join(dir, "out/deep/y.txt")]) {
    const message = await before(hooks, "ses_dev", "write", { filePath, content: "x" });
    assert.match(message ?? "", /outside the project/, filePath);
  }
  // @plan may write plan drafts, but this "plan" folder is src/ in disguise.
  const disguised = await before(hooks, "ses_plan", "write", { filePath: "docs/kord/plans/code/evil.ts", content: "x" });
  assert.match(disguised ?? "", /NSO blocked write for @plan/);
  assert.match(disguised ?? "", /src\/evil\.ts/);
  const viaBash = await before(hooks, "ses_dev", "bash", { command: "cd docs && echo x > ../out/z.txt" });
  assert.match(viaBash ?? "", /outside the project/);
  assert.equal(await before(hooks, "ses_dev", "write", { filePath: "src/new.ts", content: "x" }), null);
});

test("cached real paths: write and edit forget only what was missing, other tools everything", () => {
  const dir = makeProject({ "src/old.ts": "x" });
  const created = path.join(dir, "src/new/created.ts");
  const removed = path.join(dir, "src/old.ts");
  assert.deepEqual(cachedPathInfo(created), [created, false]);
  assert.deepEqual(cachedPathInfo(removed), [removed, true]);
  fs.mkdirSync(path.dirname(created));
  fs.writeFileSync(created, "x");
  fs.rmSync(removed);
  forgetChangedBy("write"); // a write creates files and folders; it never removes or moves one
  assert.deepEqual(cachedPathInfo(created), [created, true]);
  assert.deepEqual(cachedPathInfo(removed), [removed, true]);
  forgetChangedBy("bash");
  assert.deepEqual(cachedPathInfo(removed), [removed, false]);
});

test("the hooks: a bash call let through begins a change, a refused one does not; its after hook looks up again", async () => {
  const outside = makeProject({ "app.ts": "x" });
  const config = { authority: { preset: "kord" }, conductor: { mode: "off" } };
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify(config), "src/app.ts": "x" });
  const file = path.join(dir, "src/app.ts");
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_a", "dev");
  const lstats = (fn) => callsOf(fs, "lstatSync", fn);
  forgetChangedBy("bash");
  assert.deepEqual(cachedPathInfo(file), [file, true]);
  assert.match(await bashIn(nso, "ses_a", "git push origin main") ?? "", /NSO/, "refused: it never runs");
  assert.equal(lstats(() => cachedPathInfo(file)), 0, "a refused call changes nothing");
  assert.equal(await bashIn(nso, "ses_a", "ls -la src"), null);
  fs.renameSync(path.join(dir, "src"), path.join(dir, "src-old"));
  fs.symlinkSync(outside, path.join(dir, "src"));
  assert.deepEqual(cachedPathInfo(file), [path.join(outside, "app.ts"), true], "while it runs, looked up anew");
  fs.rmSync(path.join(dir, "src"));
  fs.renameSync(path.join(dir, "src-old"), path.join(dir, "src"));
  await nso.afterTool({ tool: "bash", sessionID: "ses_a", callID: "c", args: { command: "ls -la src" } }, { output: "" });
  assert.equal(lstats(() => assert.deepEqual(cachedPathInfo(file), [file, true])), 0, "looked up again by the after hook");
});

test("real locations: links in folders and last parts, chains, dangling links, parts not yet there", () => {
  const outside = makeProject();
  const dir = makeProject({ "real/f.txt": "x" });
  const at = (rel) => path.join(dir, rel);
  fs.symlinkSync("real", at("a"));                   // folder link
  fs.symlinkSync("a", at("b"));                      // a chain of two
  fs.symlinkSync("missing/target.txt", at("dang"));  // dangling, into a folder not there
  fs.symlinkSync("nowhere", at("dangdir"));          // dangling, used as a folder
  fs.symlinkSync("loop2", at("loop1"));
  fs.symlinkSync("loop1", at("loop2"));
  fs.symlinkSync(outside, at("out"));
  forgetChangedBy("bash");
  const cases = [
    ["b/f.txt", [at("real/f.txt"), true]],
    ["b", [at("real"), true]],
    ["b/new/deeper/x.txt", [at("real/new/deeper/x.txt"), false]],
    ["dang", [at("missing/target.txt"), false]],
    ["dangdir/x.txt", [at("nowhere/x.txt"), false]],
    ["out/y.txt", [path.join(outside, "y.txt"), false]],
    ["a/../real/f.txt", [at("real/f.txt"), true]],
    ["real/f.txt/under", [at("real/f.txt/under"), false]],
  ];
  for (const [rel, expected] of cases) {
    assert.deepEqual(cachedPathInfo(at(rel)), expected, rel);
    assert.deepEqual(cachedPathInfo(at(rel)), expected, `${rel}, cached`);
  }
  // A loop neither throws nor resolves out of the project.
  assert.ok(cachedPathInfo(at("loop1/x"))[0].startsWith(dir));
});

test("a folder swapped for a symlink by bash is seen at the next call", async () => {
  const outside = makeProject();
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}', "src/app.ts": "x" });
  const hooks = await start(dir);
  await hooks["chat.params"](...chatParams("ses_dev", "dev"));
  assert.equal(await before(hooks, "ses_dev", "write", { filePath: "src/x.ts", content: "x" }), null);
  await hooks["tool.execute.after"]({ tool: "edit", sessionID: "ses_dev", callID: "c1", args: {} }, { output: "" });
  assert.equal(await before(hooks, "ses_dev", "write", { filePath: "src/x.ts", content: "x" }), null);
  fs.renameSync(path.join(dir, "src"), path.join(dir, "src-old")); // what `mv src src-old && ln -s … src` does
  fs.symlinkSync(outside, path.join(dir, "src"));
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_dev", callID: "c2", args: {} }, { output: "" });
  assert.match(await before(hooks, "ses_dev", "write", { filePath: "src/x.ts", content: "x" }) ?? "", /outside the project/);
});

/** `command` through `nso.beforeTool` as bash in `session`: null when allowed, else the refusal's message. */
const bashIn = (nso, session, command) => nso.beforeTool({ tool: "bash", sessionID: session, callID: "c" }, { args: { command } })
  .then(() => null, (error) => error.message);

/** Replaces `object[name]` with a wrapper that notes `pick(args)` in `calls`, then calls it. */
function spy(object, name, calls, pick) {
  const real = object[name];
  object[name] = (...args) => (calls.push(pick(args)), real.apply(object, args));
}

test("a remembered allow does not cross again, and does not outlive the policy that allowed it", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}' });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_dev", "dev");
  nso.noteAgent("ses_qa", "qa");
  const crossed = [];
  spy(nso.state.engine, "decideCall", crossed, (args) => args[1]);
  const run = (session, command) => nso.beforeTool({ tool: "bash", sessionID: session, callID: "c" }, { args: { command } });
  await run("ses_dev", "npm test");
  await run("ses_dev", "npm test");
  await run("ses_dev", "npm test");
  assert.deepEqual(crossed, ["dev"], "asked once, then remembered");
  await run("ses_qa", "npm test");
  await run("ses_dev", "npm test -- --watch=false");
  assert.deepEqual(crossed, ["dev", "qa", "dev"], "another agent or other arguments are another call");
  // A new policy without @dev: the remembered allow goes with the old engine.
  for (let i = 0; i < 3; i++) await run("ses_dev", "touch src/new.ts");
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), '{"authority": {"preset": "nso"}}');
  nso.load();
  await assert.rejects(run("ses_dev", "touch src/new.ts"), /not an agent of this policy/);
});

test("a write or edit allowed for any text is remembered by its shape: new texts do not cross; checked texts always do", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}', "src/app.ts": "a\n",
    "docs/kord/notepads/auth/learnings.md": "- one\n" });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_dev", "dev");
  nso.noteAgent("ses_qa", "qa");
  const crossed = [];
  spy(nso.state.engine, "decideCall", crossed, (args) => `${args[2]} ${JSON.parse(args[3]).filePath}`);
  const call = (session, tool, args) => nso.beforeTool({ tool, sessionID: session, callID: "c" }, { args }).then(() => null, (e) => e.message);
  for (const content of ["b\n", "c\n", "", "x".repeat(5000)]) {
    assert.equal(await call("ses_dev", "write", { filePath: "src/app.ts", content }), null);
  }
  assert.deepEqual(crossed, ["write src/app.ts"], "new contents of the same file: one crossing");
  for (const [oldString, newString] of [["a", "b"], ["b", "c"], ["c", ""]]) {
    assert.equal(await call("ses_dev", "edit", { filePath: "src/app.ts", oldString, newString }), null);
  }
  assert.equal(await call("ses_dev", "edit", { filePath: "src/app.ts", oldString: "", newString: "d" }), null);
  assert.deepEqual(crossed.slice(1), ["edit src/app.ts", "edit src/app.ts"], "an edit that creates is another shape");
  // Another agent, another file, another kind of text: other calls.
  assert.match(await call("ses_qa", "write", { filePath: "src/app.ts", content: "q\n" }) ?? "", /^NSO blocked write for @qa/);
  assert.equal(await call("ses_dev", "write", { filePath: "src/b.ts", content: "b" }), null);
  assert.equal(await call("ses_dev", "write", { filePath: "src/app.ts", content: { text: "b" } }) === null, true);
  assert.deepEqual(crossed.slice(3), ["write src/app.ts", "write src/b.ts", "write src/app.ts"]);
  // An append-only notepad: the core reads what is written, so every text crosses, and a
  // rewrite is refused after an append was allowed.
  const notes = "docs/kord/notepads/auth/learnings.md";
  crossed.length = 0;
  assert.equal(await call("ses_dev", "edit", { filePath: notes, oldString: "- one\n", newString: "- one\n- two\n" }), null);
  assert.match(await call("ses_dev", "edit", { filePath: notes, oldString: "- one\n", newString: "- uno\n" }) ?? "", /^NSO blocked edit for @dev: .*append/s);
  assert.ok(crossed.length >= 2 && crossed.every((c) => c === `edit ${notes}`), JSON.stringify(crossed));
});

test("textShape: the text arguments of write and edit replaced; other tools and non-text arguments have none", async () => {
  const { textShape } = await import("../../plugin/decision.js");
  const shape = (tool, args) => textShape({ tool, args });
  assert.equal(shape("write", { filePath: "a", content: "x" }), shape("write", { filePath: "a", content: "" }));
  assert.notEqual(shape("write", { filePath: "a", content: "x" }), shape("write", { filePath: "b", content: "x" }));
  assert.equal(shape("edit", { filePath: "a", oldString: "x", newString: "y" }), shape("edit", { filePath: "a", oldString: "z", newString: "" }));
  assert.notEqual(shape("edit", { filePath: "a", oldString: "", newString: "y" }), shape("edit", { filePath: "a", oldString: "x", newString: "y" }));
  assert.notEqual(shape("edit", { filePath: "a", oldString: "x", newString: "y" }), shape("edit", { filePath: "a", oldString: "x", newString: "y", replaceAll: true }));
  for (const content of [0, 1, null, { nsoOversized: 9 }, ["x"]]) assert.equal(shape("write", { filePath: "a", content }), undefined, JSON.stringify(content));
  assert.equal(shape("edit", { filePath: "a", newString: "y" }), undefined);
  assert.equal(shape("bash", { command: "ls" }), undefined);
  assert.equal(shape("apply_patch", { patchText: "*** Begin Patch" }), undefined);
});

test("a remembered refusal is counted in the shim: its repeats per session, its log line and record each time", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}' });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_a", "dev");
  nso.noteAgent("ses_b", "dev");
  const decided = [];
  const counted = [];
  spy(nso.state.engine, "decideCall", decided, (args) => args[0]);
  spy(nso.state.engine, "refusedAgain", counted, (args) => args[0]);
  const push = (session) => bashIn(nso, session, "git push origin main");
  const first = await push("ses_a");
  assert.doesNotMatch(first, /already refused/);
  assert.match(await push("ses_a"), /^NSO blocked bash for @dev: .*This exact call was already refused 1 time in this session/);
  assert.match(await push("ses_a"), /already refused 2 times in this session/);
  assert.equal(await push("ses_b"), first, "another session: its first refusal");
  assert.match(await push("ses_b"), /already refused 1 time in this session/);
  assert.deepEqual(decided, ["ses_a"], "decided once");
  assert.deepEqual(counted, ["ses_b"], "the core asked only for a session new to the remembered refusal");
  await new Promise((resolve) => setTimeout(resolve, 250)); // the logs' timer
  const log = readIf(dir, ".opencode/logs/nso.log");
  assert.equal(log.match(/ block bash @dev kord\.git\.push/g)?.length, 5, "every refusal logged");
});

test("repeats counted in the shim reach the core when it forgets the refusal, and go with their session", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}' });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_a", "dev");
  const call = (command) => nso.beforeTool({ tool: "bash", sessionID: "ses_a", callID: "c" }, { args: { command } });
  const push = () => bashIn(nso, "ses_a", "git push origin main");
  for (let i = 0; i < 3; i++) await push();
  // Enough other lasting answers that the shim forgets them all and starts again.
  for (let i = 0; i < 600; i++) await call(`ls src${i}`);
  const decided = [];
  spy(nso.state.engine, "decideCall", decided, (args) => args[3]);
  assert.match(await push(), /already refused 3 times in this session/, "the core counts on from the shim's count");
  assert.deepEqual(decided, ['{"command":"git push origin main"}'], "decided by the core again");
  assert.match(await push(), /already refused 4 times in this session/);
  // A session that ends starts again from nothing, in the shim as in the core.
  nso.noteAgent("ses_b", "dev");
  await nso.forgetSession("ses_a");
  nso.noteAgent("ses_a", "dev");
  assert.doesNotMatch(await bashIn(nso, "ses_b", "git push origin main"), /already refused/, "remembered anew (the first in ses_b)");
  assert.doesNotMatch(await push(), /already refused/);
  assert.match(await push(), /already refused 1 time in this session/, "counted in the shim");
  await nso.forgetSession("ses_a");
  nso.noteAgent("ses_a", "dev");
  assert.doesNotMatch(await push(), /already refused/);
  assert.match(await push(), /already refused 1 time in this session/);
});

test("what a call must look up is remembered as its allow is; the lookups are made anew each time", async () => {
  const outside = makeProject();
  const config = { authority: { preset: "kord" }, conductor: { mode: "off" } };
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify(config), "src/app.ts": "x" });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_a", "dev");
  nso.noteAgent("ses_b", "dev");
  const decided = [];
  spy(nso.state.engine, "decideCall", decided, (args) => args[4] === undefined ? "call" : "with lookups");
  const bash = (session) => bashIn(nso, session, "cd src && echo x > out.txt");
  assert.equal(await bash("ses_a"), null);
  assert.deepEqual(decided, ["call", "with lookups"], "the core says what to look up, then decides");
  forgetChangedBy("bash");
  assert.equal(await bash("ses_b"), null);
  assert.deepEqual(decided, ["call", "with lookups"], "looked up again, in another session, without asking the core");
  fs.renameSync(path.join(dir, "src"), path.join(dir, "src-old"));
  fs.symlinkSync(outside, path.join(dir, "src"));
  forgetChangedBy("bash");
  assert.match(await bash("ses_a") ?? "", /outside the project/, "new lookups: decided anew");
  assert.ok(decided.length > 2);
  assert.deepEqual(decided.filter((d) => d === "call"), ["call"], "what to look up first still remembered");
});

test("a refusal is remembered only while its policy lasts, and an audited one never", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}' });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_a", "devops");
  nso.noteAgent("ses_b", "dev");
  const run = (session) => nso.beforeTool({ tool: "bash", sessionID: session, callID: "c" }, { args: { command: "git push origin main" } });
  await assert.rejects(run("ses_b"), /NSO blocked bash for @dev/);
  await assert.rejects(run("ses_b"), /NSO blocked bash for @dev/);
  // A policy where @dev may push: the remembered refusal goes with the old engine.
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({ authority: { preset: "kord",
    rules: [{ id: "kord.git.push", disabled: true }, { id: "acme.dev.push", agents: ["dev"], git: ["push"], effect: "allow" }] } }));
  nso.load();
  await run("ses_b");
  // Audit mode: refusals are let through and logged each time, never remembered as refusals.
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({ authority: { preset: "kord", mode: "audit" } }));
  nso.load();
  for (let i = 0; i < 3; i++) await run("ses_b");
  await new Promise((resolve) => setTimeout(resolve, 250));
  const audit = readIf(dir, ".opencode/logs/audit.jsonl").trim().split("\n");
  assert.equal(audit.length, 3, "each audited call recorded");
});

test("a repeated refusal tells the agent to stop and report", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}' });
  const hooks = await start(dir);
  await hooks["chat.params"](...chatParams("ses_1", "qa"));
  const first = await before(hooks, "ses_1", "bash", { command: "git push origin main" });
  assert.doesNotMatch(first, /already refused/);
  const second = await before(hooks, "ses_1", "bash", { command: "git push origin main" });
  assert.match(second, /This exact call was already refused 1 time in this session: stop retrying, and report the block to your caller\./);
});

test("soft rules run the call and append their reminder to its output", async () => {
  const config = { authority: { preset: "kord", rules: [{ id: "acme.lock.soft", agents: ["*"], ops: ["write"], paths: ["**/package-lock.json"], effect: "soft", reason: "lock files change through npm" }] } };
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify(config), "package-lock.json": "{}" });
  const hooks = await start(dir);
  await hooks["chat.params"](...chatParams("ses_1", "dev"));
  await hooks["tool.execute.before"]({ tool: "edit", sessionID: "ses_1", callID: "c9" }, { args: { filePath: "package-lock.json", oldString: "{}", newString: "{ }" } });
  const out = { output: "Edit applied." };
  await hooks["tool.execute.after"]({ tool: "edit", sessionID: "ses_1", callID: "c9", args: {} }, out);
  assert.match(out.output, /^Edit applied\.\n\n\[.*lock files change through npm.*\]$/s);
  assert.match(readIf(dir, ".opencode/logs/nso.log"), /soft edit @dev \S+ reminder: .*lock files change through npm/);
});

test("with no agent recorded (plugin loaded mid-session), the agent comes from the session's messages", async () => {
  const dir = makeProject();
  let asked = 0;
  const client = {
    session: {
      messages: async ({ path: p }) => {
        asked++;
        assert.equal(p.id, "ses_old");
        return { data: [
          { info: { role: "user", agent: "build" } },
          { info: { role: "assistant", agent: "build" } },
          { info: { role: "user", agent: "title" } },
        ] };
      },
    },
  };
  const hooks = await plugin.server({ directory: dir, worktree: dir, client });
  const message = await before(hooks, "ses_old", "write", { filePath: "/etc/x", content: "x" });
  assert.match(message, /for @build/);
  await before(hooks, "ses_old", "write", { filePath: "a.txt", content: "x" });
  assert.equal(asked, 1, "looked up once, then remembered");
});

test("a failing or silent agent lookup fails closed as an unknown caller", async () => {
  const dir = makeProject();
  const client = { session: { messages: async () => { throw new Error("server gone"); } } };
  const hooks = await plugin.server({ directory: dir, worktree: dir, client });
  const message = await before(hooks, "ses_x", "write", { filePath: "a.txt", content: "x" });
  assert.match(message, /unidentified agent/);
  assert.match(readIf(dir, ".opencode/logs/nso-errors.log"), /agent lookup for ses_x failed: server gone/);
});

test("status machines: an illegal move through the shim is refused; a broken status section fails closed", async () => {
  const file = ".opencode/context/active_tasks/build_20261122_x_ab12cd/status.md";
  const dir = makeProject({ [file]: "# Task Status\n\n- Status: PENDING\n" });
  const hooks = await start(dir);
  await hooks.event(sessionCreated("ses_1"));
  await hooks["chat.params"](...chatParams("ses_1", "build"));
  const jump = await before(hooks, "ses_1", "edit", { filePath: file, oldString: "Status: PENDING", newString: "Status: COMPLETE" });
  assert.match(jump, /Rule status\.nso-task \(built-in status machine\): .* moves task from PENDING to COMPLETE, which is not a legal transition\. From PENDING the legal next states are IN_PROGRESS/);
  assert.equal(await before(hooks, "ses_1", "edit", { filePath: file, oldString: "Status: PENDING", newString: "Status: IN_PROGRESS" }), null);

  const broken = makeProject({ ".opencode/nso.json": JSON.stringify({ status: { machines: { flow: { states: [{ name: "A", initial: true }], transitions: [{ from: "A", to: "Z", agents: ["*"] }] } } } }) });
  const h2 = await start(broken);
  await h2.event(sessionCreated("ses_2"));
  await h2["chat.params"](...chatParams("ses_2", "build"));
  const refused = await before(h2, "ses_2", "write", { filePath: "src/a.ts", content: "x" });
  assert.match(refused, /NSO is not enforcing its rules: \.opencode\/nso\.json: status\.machines\.flow\.transitions\[0\]\.to: /);
  assert.match(refused, /Fix: /);
});

test("a trap in the workflow package refuses that status check, and the next one works", async () => {
  const file = ".opencode/context/active_tasks/build_20261122_x_ab12cd/status.md";
  const dir = makeProject({ [file]: "# Task Status\n\n- Status: PENDING\n" });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_1", "build");
  const edit = (callID) => nso.beforeTool({ tool: "edit", sessionID: "ses_1", callID }, { args: { filePath: file, oldString: "Status: PENDING", newString: "Status: IN_PROGRESS" } })
    .then(() => null, (error) => error.message);
  nso.state.workflow = { checkStatusEdit: () => { throw new WebAssembly.RuntimeError("unreachable"); } };
  assert.match(await edit("c1"), /NSO could not check the status change of .*status\.md \(unreachable\), so it refuses it \(fail closed\)/);
  assert.equal(await edit("c2"), null);
  assert.match(readIf(dir, ".opencode/logs/nso-errors.log"), /workflow package trapped, reloaded/);
});
