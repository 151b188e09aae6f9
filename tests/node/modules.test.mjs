// The shim's modules (issue 9, item 6): no import cycles, files of a few hundred lines, and
// the pure helpers each module exports, tested without a host.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SessionRegistry, delegationChain } from "../../plugin/sessions.js";
import { latestUserAgent, messageText, realAgent } from "../../plugin/hosts/opencode.js";
import { blockError, logDecision, notEnforcingText } from "../../plugin/decision/call.js";
import { messageSource, routeNote } from "../../plugin/routing.js";
import { citedTaskId } from "../../plugin/delegations.js";
import { listHookScripts, runHookScript } from "../../plugin/decision/project-hooks.js";
import { createLogs } from "../../plugin/logs.js";
import { makeProject, readIf } from "./helpers.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/", import.meta.url));

/** Every .js file under plugin/, relative to it. */
function modules(dir = PLUGIN, rel = "") {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? modules(dir, path.join(rel, d.name)) : d.name.endsWith(".js") ? [path.join(rel, d.name)] : []);
}

test("the shim's modules import each other without cycles, and none is long", () => {
  const graph = new Map();
  for (const m of modules()) {
    const text = fs.readFileSync(path.join(PLUGIN, m), "utf8");
    // Static imports only: a dynamic import() on first use cannot form a load-time cycle.
    const deps = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)"/gm)]
      .map(([, spec]) => path.normalize(path.join(path.dirname(m), spec)));
    graph.set(m, deps);
    const lines = text.split("\n").length;
    assert.ok(lines <= 450, `${m} has ${lines} lines: split it by responsibility`);
  }
  assert.ok(graph.size >= 10, "the shim is split into modules");
  const state = new Map(); // module -> "visiting" | "done"
  const visit = (m, trail) => {
    if (state.get(m) === "done") return;
    assert.notEqual(state.get(m), "visiting", `import cycle: ${[...trail, m].join(" -> ")}`);
    state.set(m, "visiting");
    for (const d of graph.get(m) ?? []) visit(d, [...trail, m]);
    state.set(m, "done");
  };
  for (const m of graph.keys()) visit(m, []);
  // The decision path (plugin/decision/) stands apart from the features: it imports only
  // itself and the shell's plumbing (the core loader, logs), never a feature module.
  const plumbing = new Set(["core-loader.js", "logs.js", "errors.js", "text.js", "atomic-file.js", "run-command.js"]);
  for (const [m, deps] of graph) {
    if (!m.startsWith(`decision${path.sep}`)) continue;
    for (const d of deps) {
      assert.ok(d.startsWith(`decision${path.sep}`) || plumbing.has(d), `${m} imports the feature module ${d}`);
    }
  }
  // The host adapter is the only module that knows OpenCode's hook names.
  for (const m of graph.keys()) {
    if (m === path.join("hosts", "opencode.js")) continue;
    assert.doesNotMatch(fs.readFileSync(path.join(PLUGIN, m), "utf8"), /tool\.execute\.before"|"chat\.params"/, m);
  }
});

test("session registry: agents, parents and the delegation chain", () => {
  const s = new SessionRegistry();
  s.created({ id: "main" });
  s.noteAgent("main", "build");
  s.created({ id: "child", parentID: "main", agent: "general" });
  s.created({ id: "grandchild", parentID: "child" });
  assert.deepEqual(s.chainOf("grandchild"), ["build", "general", "unknown"]);
  s.noteAgent("x", undefined);
  assert.equal(s.peek("x"), undefined, "nothing recorded for a missing agent");
  s.forget("child");
  assert.deepEqual(s.chainOf("grandchild"), ["unknown", "unknown"]);
  // A cycle in parent links ends the walk instead of looping.
  const cyclic = { a: { parentID: "b", agent: "A" }, b: { parentID: "a", agent: "B" } };
  assert.deepEqual(delegationChain((id) => cyclic[id], "a"), ["B", "A"]);
});

test("OpenCode identity: pseudo-agents, message text, the latest user agent", () => {
  assert.equal(realAgent("title"), undefined);
  assert.equal(realAgent("compaction"), undefined);
  assert.equal(realAgent("build"), "build");
  assert.deepEqual(messageText([{ type: "text", text: "hi" }, { type: "text", text: "cmd", synthetic: true }, { type: "file" }]), { text: "hi", typed: true });
  assert.deepEqual(messageText([{ type: "text", text: "expanded", synthetic: true }]), { text: "expanded", typed: false });
  assert.deepEqual(messageText(undefined), { text: "", typed: false });
  const reply = { data: [
    { info: { role: "user", agent: "plan" } }, { info: { role: "assistant", agent: "plan" } },
    { info: { role: "user", agent: "build" } }, { info: { role: "user", agent: "title" } },
  ] };
  assert.equal(latestUserAgent(reply), "build");
  assert.equal(latestUserAgent([]), undefined);
});

test("decision helpers: log lines, the not-enforcing text, the refusal error", () => {
  const written = [];
  const logs = { decision: (lines) => written.push(lines()), audit: (record) => written.push(record) };
  logDecision(logs, { verdict: "soft", ruleId: "kord.x", log: ["soft bash @? kord.x reminder: a | b", "extra"] });
  assert.match(written[0], /^\d{4}-\d\d-\d\dT\S+Z soft bash @\? kord\.x reminder: a \| b\n\S+Z extra$/);
  logDecision(logs, { verdict: "allow", targets: [["a", false]] });
  assert.equal(written.length, 1, "a plain allow logs nothing");
  logDecision(logs, { verdict: "audit", ruleId: "r", log: ["audit x"], audit: { session: "s", agent: "a", tool: "t", rule: "r", target: null, message: "m" } });
  assert.deepEqual(Object.keys(written[2]), ["t", "session", "agent", "tool", "rule", "target", "message"]);
  assert.match(notEnforcingText({ message: "bad.", fix: "fix it." }), /^NSO is not enforcing its rules: bad\. .*fail closed\); reads still work\. Fix: fix it\.$/);
  assert.match(notEnforcingText({ code: "wasm_load", message: "gone.", fix: "reinstall." }), /refuses every tool/);
  const limit = Error.stackTraceLimit;
  const refusal = blockError("NSO blocked bash for @dev: no.\nSecond line.");
  assert.ok(refusal instanceof Error);
  assert.equal(refusal.name, "NSOBlock");
  assert.equal(refusal.message, "NSO blocked bash for @dev: no.\nSecond line.");
  assert.equal(String(refusal), "NSOBlock: NSO blocked bash for @dev: no.\nSecond line.");
  assert.equal(Object.assign(blockError("x"), { rule: "r" }).rule, "r");
  // No frames captured, and other errors keep theirs.
  assert.doesNotMatch(refusal.stack ?? "", /\n\s+at /);
  assert.equal(Error.stackTraceLimit, limit);
  assert.match(new Error("x").stack, /\n\s+at /);
});

test("routing helpers: who wrote a message, and the note for the agent", () => {
  const s = new SessionRegistry();
  s.created({ id: "main" });
  s.noteAgent("main", "oracle");
  s.created({ id: "child", parentID: "main" });
  assert.equal(messageSource(s, "child", { typed: true }), "oracle", "a subagent's prompt was written by its parent");
  assert.equal(messageSource(s, "main", { typed: true }), "user");
  assert.equal(messageSource(s, "main", { typed: false }), "system");
  s.entry("main").pendingCommand = "/research";
  assert.equal(messageSource(s, "main", { typed: true }), "system", "a command expansion");
  assert.match(routeNote({ should_route: true, workflow: "research", confidence: 0.9, handler: "@r", reason: "why" }), /matches workflow research \(confidence 0.9\); handler: @r\. why/);
  assert.match(routeNote({ should_route: false, safety_check: "pass_through", reason: "short" }), /not routed \(pass_through\): short/);
});

test("delegation and project-hook helpers", async () => {
  assert.equal(citedTaskId("do it: build_20261122_login_ab12cd please"), "build_20261122_login_ab12cd");
  assert.equal(citedTaskId(undefined), undefined);
  const dir = makeProject({ "hooks/b.sh": "#!/bin/sh\ncat >/dev/null; echo no; exit 3\n", "hooks/a.txt": "not executable" });
  fs.chmodSync(path.join(dir, "hooks/b.sh"), 0o755);
  assert.deepEqual(listHookScripts(path.join(dir, "hooks")), [path.join(dir, "hooks/b.sh")]);
  assert.deepEqual(listHookScripts(path.join(dir, "missing")), []);
  assert.deepEqual(await runHookScript(path.join(dir, "hooks/b.sh"), { x: 1 }, { cwd: dir }), { code: 3, output: "no\n" });
});

test("logs: lines go to the configured folder, the alive log stays in .opencode/logs", () => {
  const dir = makeProject();
  let configured = "custom/logs";
  const logs = createLogs(dir, () => configured);
  logs.decision("one");
  logs.append("plugin_alive.log", "alive\n");
  logs.error("broke");
  assert.equal(readIf(dir, "custom/logs/nso.log"), "one\n");
  assert.equal(readIf(dir, ".opencode/logs/plugin_alive.log"), "alive\n");
  assert.match(readIf(dir, "custom/logs/nso-errors.log"), /^\d{4}-\d\d-\d\dT.* broke\n$/);
  configured = undefined;
  logs.decision("two");
  assert.equal(readIf(dir, ".opencode/logs/nso.log"), "two\n");
});
