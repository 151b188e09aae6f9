// Tests of the real shim plugin/nso-plugin.js with hook inputs shaped like OpenCode 1.18's.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import plugin, { NsoPlugin, createNso, loadCore, projectRoot } from "../../plugin/nso-plugin.js";
import { realPathInfo } from "../../plugin/decision/files.js";
import { makeProject, readIf, sessionCreated, chatParams, before } from "./helpers.mjs";

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

test("a broken config is told to the person too (a toast and OpenCode's log), and says that reads still work", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"memory": 7}' });
  const shown = [];
  const client = {
    tui: { showToast: async (options) => shown.push(["toast", options.body]) },
    app: { log: async (options) => shown.push(["log", options.body]) },
  };
  await plugin.server({ directory: dir, worktree: dir, client });
  const toast = shown.find(([kind]) => kind === "toast")?.[1];
  assert.equal(toast?.variant, "error");
  assert.match(toast?.message ?? "", /NSO is not enforcing its rules: .*memory.*reads still work.*Fix: /s);
  assert.equal(shown.find(([kind]) => kind === "log")?.[1]?.level, "error");
  // A client that throws changes nothing for NSO.
  const throwing = { tui: { showToast: () => { throw new Error("no UI"); } }, app: { log: () => Promise.reject(new Error("down")) } };
  const hooks = await plugin.server({ directory: dir, worktree: dir, client: throwing });
  await hooks.event(sessionCreated("ses_1"));
  assert.match(await before(hooks, "ses_1", "write", { filePath: "a.txt", content: "x" }) ?? "", /not enforcing/);
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
  // Without its core NSO cannot tell reads from writes: every tool is refused, and it says so.
  assert.match(await before(hooks, "ses_1", "grep", { pattern: "x" }) ?? "", /refuses every tool/);
  assert.doesNotMatch(message, /reads still work/);
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
    assert.deepEqual(realPathInfo(at(rel)), expected, rel);
  }
  // A loop neither throws nor resolves out of the project.
  assert.ok(realPathInfo(at("loop1/x"))[0].startsWith(dir));
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


test("a refusal's repeats are counted per session by the core, and each is logged", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}' });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_a", "dev");
  nso.noteAgent("ses_b", "dev");
  const push = (session) => bashIn(nso, session, "git push origin main");
  const first = await push("ses_a");
  assert.doesNotMatch(first, /already refused/);
  assert.match(await push("ses_a"), /^NSO blocked bash for @dev: .*This exact call was already refused 1 time in this session/);
  assert.match(await push("ses_a"), /already refused 2 times in this session/);
  assert.equal(await push("ses_b"), first, "another session: its first refusal");
  assert.match(await push("ses_b"), /already refused 1 time in this session/);
  // A session that ends starts again from nothing.
  await nso.forgetSession("ses_a");
  nso.noteAgent("ses_a", "dev");
  assert.equal(await push("ses_a"), first);
  await new Promise((resolve) => setTimeout(resolve, 250)); // the logs' timer
  const log = readIf(dir, ".opencode/logs/nso.log");
  assert.equal(log.match(/ block bash @dev kord\.git\.push/g)?.length, 6, "every refusal logged");
});

test("a new policy decides the next call: nothing allowed or refused before outlives it", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}' });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_b", "dev");
  const run = () => nso.beforeTool({ tool: "bash", sessionID: "ses_b", callID: "c" }, { args: { command: "git push origin main" } });
  await assert.rejects(run(), /NSO blocked bash for @dev/);
  await assert.rejects(run(), /NSO blocked bash for @dev/);
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({ authority: { preset: "kord",
    rules: [{ id: "kord.git.push", disabled: true }, { id: "acme.dev.push", agents: ["dev"], git: ["push"], effect: "allow" }] } }));
  nso.load();
  await run();
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), '{"authority": {"preset": "nso"}}');
  nso.load();
  await assert.rejects(run(), /not an agent of this policy/);
  // Audit mode: refusals are let through and recorded each time.
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify({ authority: { preset: "kord", mode: "audit" } }));
  nso.load();
  for (let i = 0; i < 3; i++) await run();
  await new Promise((resolve) => setTimeout(resolve, 250));
  const audit = readIf(dir, ".opencode/logs/audit.jsonl").trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(audit.length, 3, "each audited call recorded");
  assert.deepEqual(Object.keys(audit[0]), ["t", "session", "agent", "tool", "rule", "target", "message"]);
  assert.equal(audit[0].target, "git push origin main");
});

test("a repeated refusal tells the agent to stop and report", async () => {
  const dir = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}' });
  const hooks = await start(dir);
  await hooks["chat.params"](...chatParams("ses_1", "qa"));
  const first = await before(hooks, "ses_1", "bash", { command: "git push origin main" });
  assert.doesNotMatch(first, /already refused/);
  const second = await before(hooks, "ses_1", "bash", { command: "git push origin main" });
  assert.match(second, /This exact call was already refused 1 time in this session: stop retrying, and ask the person\./);
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
