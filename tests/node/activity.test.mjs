// The activity feed (plugin/activity.js, docs/mission-control.md part 1) through the real
// plugin: sessions, agents, tasks and every call's start (with NSO's verdict, rule, message)
// and end; bounded fields; rotation; and nothing lost when the process exits.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import plugin from "../../plugin/nso-plugin.js";
import { callTarget, createActivity } from "../../plugin/activity.js";
import { before, chatParams, makeProject, sessionCreated } from "./helpers.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const feedsIn = (home) => fs.readdirSync(path.join(home, "activity")).filter((n) => n.endsWith(".jsonl"));
const records = (file) => fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

test("the plugin's feed: instance first, then sessions, agents, the task and each call with NSO's verdict", async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-activity-"));
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ conductor: { home } }), "README.md": "x" });
  const hooks = await plugin.server({ directory: dir, worktree: dir, serverUrl: new URL("http://127.0.0.1:4096") });
  await hooks.event(sessionCreated("ses_a"));
  await hooks["chat.params"](...chatParams("ses_a", "plan"));
  await hooks["chat.message"]({ sessionID: "ses_a" }, { message: { agent: "plan" }, parts: [{ type: "text", text: "plan the <b>cache</b>" }] });
  const refused = await before(hooks, "ses_a", "write", { filePath: "src/a.ts", content: "x" });
  assert.ok(refused, "@plan may not write source");
  await hooks["chat.params"](...chatParams("ses_a", "build"));
  assert.equal(await before(hooks, "ses_a", "write", { filePath: "src/a.ts", content: "x" }), null);
  await hooks["tool.execute.after"]({ tool: "write", sessionID: "ses_a", callID: "call_1", args: { filePath: "src/a.ts" } }, { output: "ok" });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_a" } } });
  await sleep(400); // the batch timer (250 ms)
  const [feed] = feedsIn(home);
  assert.match(feed, new RegExp(`^[A-Za-z0-9._-]+-${process.pid}-[a-z0-9]{6}\\.jsonl$`));
  assert.equal((fs.statSync(path.join(home, "activity", feed)).mode & 0o777).toString(8), "600");
  const r = records(path.join(home, "activity", feed));
  assert.equal(r[0].kind, "instance");
  assert.equal(r[0].pid, process.pid);
  assert.equal(r[0].root, dir);
  assert.equal(r[0].serverUrl, "http://127.0.0.1:4096/");
  assert.deepEqual(r.filter((x) => x.kind === "session").map((x) => x.session), ["ses_a"]);
  assert.deepEqual(r.filter((x) => x.kind === "agent").map((x) => x.agent), ["plan", "build"], "an agent is recorded when it changes, not at every turn");
  assert.equal(r.find((x) => x.kind === "task").task, "plan the <b>cache</b>", "agent-controlled text is kept as data");
  const calls = r.filter((x) => x.kind === "call");
  assert.deepEqual(calls.map((c) => [c.phase, c.agent, c.verdict, c.target]), [
    ["start", "plan", "block", "src/a.ts"], ["start", "build", "allow", "src/a.ts"], ["end", "build", null, "src/a.ts"],
  ]);
  assert.match(calls[0].rule, /^nso\./);
  assert.equal(calls[0].message, refused, "the refusal is recorded with NSO's message");
  assert.equal(r.at(-1).kind, "idle");
});

test("fields are bounded; targets come from the call's path, command or patch", () => {
  assert.equal(callTarget({ filePath: "a.ts", command: "x" }), "a.ts");
  assert.equal(callTarget({ command: "npm test" }), "npm test");
  assert.equal(callTarget({ patchText: "*** Begin Patch\n*** Update File: src/b.ts\n" }), "src/b.ts");
  assert.equal(callTarget(null), null);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-activity-"));
  const a = createActivity({ home: () => home, header: () => ({ project: "p" }), errorLog: assert.fail });
  a.record("call", { session: "s", target: "x".repeat(1_000_000), message: "m".repeat(1_000_000), tool: "bash" });
  a.flush();
  const [, call] = records(a.file());
  assert.equal(call.target.length, 500);
  assert.equal(call.message.length, 2000);
  assert.ok(fs.statSync(a.file()).size < 4000);
});

test("a feed past its size is rotated: one old file kept, the new one starts with the instance", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-activity-"));
  const a = createActivity({ home: () => home, header: () => ({ project: "p" }), errorLog: assert.fail, rotateBytes: 4096 });
  for (let round = 0; round < 30; round++) {
    for (let i = 0; i < 10; i++) a.record("call", { session: "s", tool: "read", target: `file-${round}-${i}.ts` });
    a.flush();
  }
  const files = fs.readdirSync(path.join(home, "activity")).filter((f) => f !== ".gitignore").sort();
  assert.deepEqual(files, [a.fileName, `${a.fileName}.1`]);
  assert.match(fs.readFileSync(path.join(home, "activity", ".gitignore"), "utf8"), /^# NSO runtime state.*\n\*\n$/, "the feeds' folder ignores itself");
  for (const f of files) {
    const r = records(path.join(home, "activity", f));
    assert.equal(r[0].kind, "instance", f);
    assert.ok(fs.statSync(path.join(home, "activity", f)).size <= 4096 + 2000, f);
  }
  assert.equal(records(a.file()).at(-1).target, "file-29-9.ts", "the newest record is in the current file");
});

test("records held in memory are written when the process exits", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-activity-"));
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ conductor: { home } }) });
  const script = `
    import plugin from ${JSON.stringify(new URL("../../plugin/nso-plugin.js", import.meta.url).href)};
    const hooks = await plugin.server({ directory: ${JSON.stringify(dir)}, worktree: ${JSON.stringify(dir)} });
    await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_x", title: "t" } } } });
    process.exit(0);`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const [feed] = feedsIn(home);
  assert.deepEqual(records(path.join(home, "activity", feed)).map((x) => x.kind), ["instance", "session"]);
});
