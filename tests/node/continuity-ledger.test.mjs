// The decision ledger through the real plugin and CLI: agents record with nso_decide, people
// with `nso decide`; supersession by reference; the file is append-only for every agent and
// tool (bash included); concurrent writers in real processes never share an id or lose an
// entry; a writer killed while holding the lock does not block the next one.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import plugin from "../../plugin/nso-plugin.js";
import { loadWorkflowCore } from "../../plugin/core-loader.js";
import { before, chatParams, makeProject, sessionCreated } from "./helpers.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const LEDGER = ".opencode/context/decisions.md";
const LEDGER_JS = new URL("../../plugin/continuity/ledger.js", import.meta.url).href;
const LOADER_JS = new URL("../../plugin/core-loader.js", import.meta.url).href;
const cli = (dir, ...args) => spawnSync(process.execPath, [CLI, ...args, "--dir", dir], { encoding: "utf8" });
const entries = (text) => JSON.parse(new (loadWorkflowCore().Workflow)(".opencode/nso.json", undefined).ledgerJson(text));

async function window(dir, sid = "ses_a", agent = "build") {
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.event(sessionCreated(sid));
  await hooks["chat.params"](...chatParams(sid, agent));
  return hooks;
}

test("agents record decisions with nso_decide; a later one supersedes an earlier one; the view shows the current ones", async () => {
  const dir = makeProject({ "README.md": "x" });
  const hooks = await window(dir);
  const ctx = { sessionID: "ses_a", agent: "build" };
  const first = await hooks.tool.nso_decide.execute({ decision: "Use SQLite for the cache", why: "one file, no server" }, ctx);
  assert.match(first, /^Recorded D-0001 in \.opencode\/context\/decisions\.md\.$/);
  const second = await hooks.tool.nso_decide.execute({ decision: "Use PostgreSQL for the cache", why: "teams share it", supersedes: "D-0001" }, ctx);
  assert.match(second, /^Recorded D-0002 .*\(supersedes D-0001\)/);
  const text = fs.readFileSync(path.join(dir, LEDGER), "utf8");
  assert.match(text, /D-0001/);
  assert.match(text, /Use SQLite for the cache/, "the superseded decision stays in the file");
  const view = await hooks.tool.nso_decisions.execute({}, ctx);
  assert.match(view, /D-0002/);
  assert.doesNotMatch(view, /SQLite/, "the current view leaves out superseded decisions");
  assert.match(await hooks.tool.nso_decisions.execute({ all: true }, ctx), /SQLite[\s\S]*superseded by D-0002|superseded by D-0002[\s\S]*SQLite/);
  const refused = await hooks.tool.nso_decide.execute({ decision: "x", why: "y", supersedes: "D-0099" }, ctx);
  assert.match(refused, /^NSO nso_decide refused for @build: .*D-0099/);
  assert.equal(fs.readFileSync(path.join(dir, LEDGER), "utf8"), text, "a refused decision writes nothing");
  assert.match(await hooks.tool.nso_decide.execute({ decision: "", why: "y" }, ctx), /refused.*decision/);
});

test("the ledger is append-only for every agent and tool: rewrites, truncation, sed -i, rm and mv are refused; appends pass", async () => {
  const dir = makeProject({ "README.md": "x" });
  // @oracle may write .opencode/context/** under the nso preset: only the ledger's own
  // append-only area stands in its way.
  const hooks = await window(dir, "ses_a", "oracle");
  await hooks.tool.nso_decide.execute({ decision: "Keep the API stable", why: "clients pin it" }, { sessionID: "ses_a", agent: "oracle" });
  const old = fs.readFileSync(path.join(dir, LEDGER), "utf8");
  const refusals = [
    ["write", { filePath: LEDGER, content: "# rewritten\n" }],
    ["edit", { filePath: LEDGER, oldString: "Keep the API stable", newString: "Break the API" }],
    ["bash", { command: `echo x > ${LEDGER}` }],
    ["bash", { command: `sed -i 's/stable/unstable/' ${LEDGER}` }],
    ["bash", { command: `f=${LEDGER}; : > "$f"` }],
  ];
  for (const [tool, args] of refusals) {
    const message = await before(hooks, "ses_a", tool, args);
    assert.ok(message, `${tool} ${JSON.stringify(args)} must be refused`);
    assert.match(message, /append-only|only be appended|appends only/i, message);
    assert.match(message, /nso_decide/, "the refusal says what to do instead");
  }
  assert.equal(await before(hooks, "ses_a", "write", { filePath: LEDGER, content: `${old}\nA note.\n` }), null, "an append passes");
  assert.equal(await before(hooks, "ses_a", "bash", { command: `echo note >> ${LEDGER}` }), null);
  for (const command of [`rm ${LEDGER}`, `mv ${LEDGER} /tmp/x.md`]) assert.ok(await before(hooks, "ses_a", "bash", { command }), command);
  // @build may not write there at all; nso_decide still records for it.
  await hooks["chat.params"](...chatParams("ses_a", "build"));
  assert.ok(await before(hooks, "ses_a", "write", { filePath: LEDGER, content: `${old}x` }));
  assert.match(await hooks.tool.nso_decide.execute({ decision: "Log refusals", why: "audits" }, { sessionID: "ses_a", agent: "build" }), /^Recorded D-0002/);
});

test("nso decide records as the person; --supersedes is checked; nso decisions shows the current view", () => {
  const dir = makeProject({ "README.md": "x" });
  let r = cli(dir, "decide", "Ship on Fridays", "--why", "the team asked");
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Recorded D-0001/);
  r = cli(dir, "decide", "Never ship on Fridays", "--why", "an outage", "--supersedes", "D-0001");
  assert.equal(r.status, 0, r.stderr);
  r = cli(dir, "decide", "Again", "--why", "x", "--supersedes", "D-0001");
  assert.equal(r.status, 1, "D-0001 is already superseded");
  assert.match(r.stderr, /D-0001.*D-0002|D-0002.*D-0001/);
  r = cli(dir, "decide", "No reason");
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--why/);
  r = cli(dir, "decisions");
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /D-0002.*Never ship on Fridays/);
  assert.doesNotMatch(r.stdout, /Ship on Fridays[^]*D-0001/);
  const parsed = entries(fs.readFileSync(path.join(dir, LEDGER), "utf8"));
  assert.equal(parsed.entries.length, 2);
  assert.match(parsed.entries[0].agent, /person/);
  assert.deepEqual(parsed.warnings, []);
});

/** A process appending `count` decisions to `file`; prints "done". */
function writer(file, count, tag) {
  const script = `
    import { appendDecision } from ${JSON.stringify(LEDGER_JS)};
    import { loadWorkflowCore } from ${JSON.stringify(LOADER_JS)};
    const wf = new (loadWorkflowCore().Workflow)(".opencode/nso.json", undefined);
    for (let i = 0; i < ${count}; i++) {
      await appendDecision({ wf, file: ${JSON.stringify(file)}, now: new Date().toISOString(), staleMs: 2000,
        entry: { decision: "decision ${tag}-" + i, why: "why ${tag}-" + i, agent: "w${tag}", session: null, supersedes: null } });
    }
    console.log("done");`;
  return spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
}

const finished = (child) => new Promise((resolve) => {
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  child.on("exit", (code, signal) => resolve({ code, signal, out, err }));
});

test("6 processes appending 10 decisions each at once: 60 entries, ids D-0001..D-0060 each once, nothing lost", async () => {
  const dir = makeProject({});
  const file = path.join(dir, LEDGER);
  const results = await Promise.all([0, 1, 2, 3, 4, 5].map((w) => finished(writer(file, 10, w))));
  for (const r of results) assert.equal(r.code, 0, r.err);
  const parsed = entries(fs.readFileSync(file, "utf8"));
  assert.deepEqual(parsed.warnings, []);
  const ids = parsed.entries.map((e) => e.id);
  assert.deepEqual(ids, Array.from({ length: 60 }, (_, i) => `D-${String(i + 1).padStart(4, "0")}`));
  const decisions = new Set(parsed.entries.map((e) => e.decision));
  assert.equal(decisions.size, 60, "every writer's every decision is there once");
});

test("a writer SIGKILLed while it holds the ledger lock does not block the next one", async () => {
  const dir = makeProject({});
  const file = path.join(dir, LEDGER);
  const holder = spawn(process.execPath, ["--input-type=module", "-e", `
    import { withLedgerLock } from ${JSON.stringify(LEDGER_JS)};
    await withLedgerLock(${JSON.stringify(file)}, async () => { console.log("locked"); await new Promise(() => setInterval(() => {}, 1000)); }, { staleMs: 2000 });`],
  { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve) => holder.stdout.on("data", (d) => String(d).includes("locked") && resolve()));
  assert.ok(fs.existsSync(`${file}.lock`), "the lock is held");
  holder.kill("SIGKILL");
  const started = Date.now();
  const r = await finished(writer(file, 1, "after"));
  assert.equal(r.code, 0, r.err);
  assert.ok(Date.now() - started < 10_000, "the stale lock was taken over");
  assert.equal(entries(fs.readFileSync(file, "utf8")).entries.length, 1);
});
