// Continuity through the real plugin, fed with the events real OpenCode 1.18.33 sent
// (tests/fixtures/continuity/opencode/): the raw lane and T0 at session.idle, equal to the T0
// of `opencode export` of the same session; subagents never mixed into their parent; the
// handoff added to a compaction and to a new main session's system prompt; the settings.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import plugin from "../../plugin/nso-plugin.js";
import { chatParams, makeProject, sessionCreated } from "./helpers.mjs";

const FIX = new URL("../fixtures/continuity/opencode/", import.meta.url).pathname;
const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const events = (name) => fs.readFileSync(path.join(FIX, name), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const MAIN = "ses_df78deea6fferqdojeSzmQzsaz";
const PARENT = "ses_df78dd762ffe6WbgM9oG8yPg4M";
const CHILD = "ses_df78dd10affePBtEVyfzhJhd36";
const transcripts = (dir) => path.join(dir, ".opencode/nso/transcripts");

async function replay(dir, file) {
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  for (const event of events(file)) await hooks.event({ event });
  return hooks;
}

test("real OpenCode events: the lane's T0 at idle equals the T0 of `opencode export`, and is deterministic", async () => {
  const dir = makeProject({ "README.md": "x" });
  const hooks = await replay(dir, "events-main.jsonl");
  // The last events came after idle: a second idle brings the transcript up to date.
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: MAIN } } });
  const t0 = fs.readFileSync(path.join(transcripts(dir), `${MAIN}.t0.md`), "utf8");
  const meta = JSON.parse(fs.readFileSync(path.join(transcripts(dir), `${MAIN}.t0.json`), "utf8"));
  assert.match(t0, new RegExp(`^# T0 transcript ${MAIN}\\npolicy: nso-t0 v1\\n`));
  assert.match(t0, /\[tool\] bash ok .*exit=3/, "the exit code of `exit 3` is kept");
  assert.ok(meta.t0Bytes < meta.rawBytes, "T0 is smaller than the lane");
  assert.equal(meta.laneBytes, fs.statSync(path.join(transcripts(dir), `${MAIN}.raw.jsonl`)).size, "the checkpoint is the lane's size");
  const fromExport = spawnSync(process.execPath, [CLI, "transcript", path.join(FIX, "export-main.json"), "--dir", dir], { encoding: "utf8" });
  assert.equal(fromExport.status, 0, fromExport.stderr);
  assert.equal(fromExport.stdout, `${t0}\n`, "the live lane and the export give the same transcript");
  assert.match(fromExport.stderr, new RegExp(`${MAIN}: sha256 ${meta.sha256}`), "the same hash");
  // Made again from the same lane: byte-identical; an unchanged lane is not compacted again.
  const mtime = fs.statSync(path.join(transcripts(dir), `${MAIN}.t0.md`)).mtimeMs;
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: MAIN } } });
  assert.equal(fs.statSync(path.join(transcripts(dir), `${MAIN}.t0.md`)).mtimeMs, mtime);
  const lane = path.join(transcripts(dir), `${MAIN}.raw.jsonl`);
  const again = spawnSync(process.execPath, [CLI, "transcript", lane, "--dir", dir], { encoding: "utf8" });
  assert.equal(again.stdout, fromExport.stdout);
});

test("a subagent's session has its own lane and transcript: parent and child never mix", async () => {
  const dir = makeProject({ "README.md": "x" });
  const hooks = await replay(dir, "events-subagent.jsonl");
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: PARENT } } });
  const parent = fs.readFileSync(path.join(transcripts(dir), `${PARENT}.t0.md`), "utf8");
  const child = fs.readFileSync(path.join(transcripts(dir), `${CHILD}.t0.md`), "utf8");
  assert.match(child, new RegExp(`parent ${PARENT}`));
  assert.match(parent, /\[tool\] task ok/);
  const childOnly = child.split("\n").filter((l) => l.startsWith("[tool]") && !parent.includes(l));
  assert.ok(childOnly.length > 0, "the child's tool calls are in the child's transcript only");
  for (const sid of [PARENT, CHILD]) {
    for (const line of fs.readFileSync(path.join(transcripts(dir), `${sid}.raw.jsonl`), "utf8").split("\n").filter(Boolean)) {
      const r = JSON.parse(line);
      const owner = r.kind === "part" ? r.part.sessionID : r.kind === "message" ? r.info.sessionID : r.info.id;
      assert.equal(owner, sid, "every record of a lane belongs to its session");
    }
  }
});

test("compaction gets the session's handoff; a new main session starts with the latest one", async () => {
  const dir = makeProject({ "README.md": "x", ".opencode/context/01_memory/active_context.md": "Focus: the cache layer.\n" });
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.event(sessionCreated("ses_one"));
  await hooks["chat.params"](...chatParams("ses_one", "build"));
  await hooks["chat.message"]({ sessionID: "ses_one" }, { message: { agent: "build" }, parts: [{ type: "text", text: "build the cache layer" }] });
  await hooks.tool.nso_decide.execute({ decision: "Cache entries expire after one hour", why: "freshness beats hit rate here" }, { sessionID: "ses_one", agent: "build" });
  const context = [];
  await hooks["experimental.session.compacting"]({ sessionID: "ses_one" }, { context });
  assert.equal(context.length, 1);
  const handoff = context[0];
  assert.match(handoff, /^## NSO handoff · session ses_one/);
  assert.match(handoff, /D-0001 · Cache entries expire after one hour/);
  assert.match(handoff, /task: build the cache layer/);
  assert.match(handoff, /Focus: the cache layer/);
  assert.ok(handoff.split("\n").filter(Boolean).length <= 40, "one screen");
  // A new main session in another window of the project.
  const other = await plugin.server({ directory: dir, worktree: dir });
  await other.event(sessionCreated("ses_two"));
  const system = { system: [] };
  await other["experimental.chat.system.transform"]({ sessionID: "ses_two" }, system);
  const text = system.system.join("\n");
  assert.match(text, /the project's latest handoff \(from session ses_one/);
  assert.match(text, /Cache entries expire after one hour/);
  // The CLI composes the same from the files: the session's lane, the ledger, the memory.
  const cli = spawnSync(process.execPath, [CLI, "handoff", "--session", "ses_one", "--dir", dir], { encoding: "utf8" });
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, /^## NSO handoff · session ses_one/);
  assert.match(cli.stdout, /Cache entries expire after one hour/);
  const project = spawnSync(process.execPath, [CLI, "handoff", "--json", "--dir", dir], { encoding: "utf8" });
  const parsed = JSON.parse(project.stdout);
  assert.match(parsed.text, /^## NSO handoff · project/);
  assert.ok(parsed.lines <= 40);
  // The session that made it is not shown its own handoff back.
  await hooks.event(sessionCreated("ses_one"));
  const own = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_one" }, own);
  assert.doesNotMatch(own.system.join("\n"), /latest handoff/);
});

test("settings: transcripts off records nothing; continuity off lifts the ledger's protection and offers no nso_decide", async () => {
  const quiet = makeProject({ ".opencode/nso.json": JSON.stringify({ continuity: { transcripts: false } }) });
  await replay(quiet, "events-main.jsonl");
  assert.equal(fs.existsSync(transcripts(quiet)), false);
  const off = makeProject({ ".opencode/nso.json": JSON.stringify({ continuity: { enabled: false } }) });
  const hooks = await plugin.server({ directory: off, worktree: off });
  await hooks.event(sessionCreated("ses_a"));
  await hooks["chat.params"](...chatParams("ses_a", "oracle"));
  assert.equal(hooks.tool.nso_decide, undefined, "continuity off: no continuity tools are offered");
  await assert.doesNotReject(hooks["tool.execute.before"]({ tool: "write", sessionID: "ses_a", callID: "c" }, { args: { filePath: ".opencode/context/decisions.md", content: "free text" } }));
});

test("a mistake in the T0 policy fails closed at load, naming the key and the fix", async () => {
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ continuity: { t0: { snippets: { bash: 0 } } } }) });
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.event(sessionCreated("ses_a"));
  await hooks["chat.params"](...chatParams("ses_a", "build"));
  await assert.rejects(
    hooks["tool.execute.before"]({ tool: "write", sessionID: "ses_a", callID: "c" }, { args: { filePath: "a.txt", content: "x" } }),
    (error) => /NSO blocked write/.test(error.message) && /continuity\.t0\.snippets\.bash/.test(error.message),
  );
  const check = spawnSync(process.execPath, [CLI, "check", "--dir", dir], { encoding: "utf8" });
  assert.equal(check.status, 1);
  assert.match(check.stdout, /continuity\.t0\.snippets\.bash/);
  assert.match(check.stdout, /Fix: /);
});

test("events the plugin holds in memory are written when OpenCode's process exits", () => {
  const dir = makeProject({ "README.md": "x" });
  const script = `
    import plugin from ${JSON.stringify(new URL("../../plugin/nso-plugin.js", import.meta.url).href)};
    const hooks = await plugin.server({ directory: ${JSON.stringify(dir)}, worktree: ${JSON.stringify(dir)} });
    for (let i = 0; i < 30; i++) {
      await hooks.event({ event: { type: "message.part.updated", properties: { part: { id: "prt_" + i, sessionID: "ses_exit", messageID: "msg_1", type: "text", text: "t" + i } } } });
    }
    process.exit(0); // well before the 250 ms batch timer`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const lines = fs.readFileSync(path.join(transcripts(dir), "ses_exit.raw.jsonl"), "utf8").split("\n").filter(Boolean);
  assert.equal(lines.length, 30);
});

test("a handoff names the files the session claims as project paths, like the rest of it", async () => {
  const dir = makeProject({ "README.md": "x", "src/a.js": "a\n" });
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks.event(sessionCreated("ses_h"));
  await hooks["chat.params"](...chatParams("ses_h", "build"));
  await hooks["chat.message"]({ sessionID: "ses_h", agent: "build" }, { message: { id: "m1", agent: "build" }, parts: [{ type: "text", text: "fix a" }] });
  await hooks["tool.execute.before"]({ tool: "write", sessionID: "ses_h", callID: "c1" }, { args: { filePath: path.join(dir, "src/a.js"), content: "b\n" } });
  const text = await hooks.tool.nso_handoff.execute({}, { sessionID: "ses_h", agent: "build" });
  assert.match(text, /claims held \(1\): src\/a\.js$/m);
  assert.ok(!text.includes(dir), "no absolute path of the project");
});
