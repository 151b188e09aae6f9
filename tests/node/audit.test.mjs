// Audit mode through the real plugin and `nso audit`: nothing is refused, the agent is not
// told, and every call that would have been refused is logged with the full message it would
// have sent; the report counts per rule, agent and tool and shows each rule's first examples.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import plugin from "../../plugin/nso-plugin.js";
import { flushAllLogs } from "../../plugin/logs.js";
import { auditReport, auditText, parseAudit, safe, sinceTime } from "../../bin/audit-cli.js";
import { before, chatParams, makeProject, readIf, sessionCreated } from "./helpers.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const auditLines = (dir) => readIf(dir, ".opencode/logs/audit.jsonl").split("\n").filter(Boolean).map((l) => JSON.parse(l));

async function kord(authority) {
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord", ...authority }, conductor: { mode: "off" } }), "src/a.ts": "x" });
  const enforce = makeProject({ ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" }, conductor: { mode: "off" } }), "src/a.ts": "x" });
  const open = async (d) => {
    const hooks = await plugin.server({ directory: d, worktree: d });
    await hooks.event(sessionCreated("ses_a"));
    await hooks["chat.params"](...chatParams("ses_a", "dev"));
    return hooks;
  };
  return { dir, hooks: await open(dir), enforced: await open(enforce) };
}

test("authority.mode audit: calls run, the agent is not told, the log keeps the message it would have read", async () => {
  const { dir, hooks, enforced } = await kord({ mode: "audit" });
  const calls = [
    ["bash", { command: "git push origin main" }],
    ["bash", { command: "git -C . push --force" }],
    ["bash", { command: "rm -rf docs" }],
  ];
  for (const [tool, args] of calls) {
    const wouldBe = await before(enforced, "ses_a", tool, args);
    assert.ok(wouldBe, `${args.command} is refused when enforced`);
    assert.equal(await before(hooks, "ses_a", tool, args), null, `${args.command} runs in audit mode`);
    const output = { output: "done" };
    await hooks["tool.execute.after"]({ tool, sessionID: "ses_a", callID: "call_1", args }, output);
    assert.equal(output.output, "done", "the agent is not told");
    const last = auditLines(dir).at(-1);
    assert.equal(last.message, wouldBe, "the full message it would have sent");
    assert.equal(last.tool, tool);
    assert.equal(last.agent, "dev");
    assert.equal(last.target, args.command);
  }
  assert.equal(auditLines(dir).length, 3);
  assert.match(readIf(dir, ".opencode/logs/nso.log"), /audit bash @dev kord\.git\.push/);
  // An allowed call leaves no audit record.
  assert.equal(await before(hooks, "ses_a", "write", { filePath: "src/a.ts", content: "y" }), null);
  assert.equal(auditLines(dir).length, 3);
});

test("a rule's own mode: only its refusals are audited, the others still refuse", async () => {
  const { dir, hooks } = await kord({ rules: [{ id: "kord.git.push", disabled: true }, { id: "team.push", agents: ["*"], git: ["push"], effect: "block", mode: "audit", reason: "pushes wait for the release train" }] });
  assert.equal(await before(hooks, "ses_a", "bash", { command: "git push origin main" }), null);
  assert.equal(auditLines(dir).at(-1).rule, "team.push");
  assert.match(await before(hooks, "ses_a", "bash", { command: "rm -rf docs" }), /^NSO blocked bash for @dev/);
});

test("nso audit reports counts per rule, agent and tool, frequent commands and paths, and examples", async () => {
  const { dir, hooks } = await kord({ mode: "audit" });
  for (let i = 0; i < 3; i++) await before(hooks, "ses_a", "bash", { command: "git push origin main" });
  await before(hooks, "ses_a", "bash", { command: "rm -rf docs" });
  await hooks["chat.params"](...chatParams("ses_a", "plan"));
  await before(hooks, "ses_a", "write", { filePath: "src/a.ts", content: "z" });
  flushAllLogs(); // what the plugin logged is on disk before the line added after it
  fs.appendFileSync(path.join(dir, ".opencode/logs/audit.jsonl"), "{not json\n");
  const r = spawnSync(process.execPath, [CLI, "audit", "--json", "--dir", dir], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /1 unreadable line/);
  const report = JSON.parse(r.stdout);
  assert.equal(report.total, 5);
  assert.deepEqual(report.rules[0], { name: "kord.git.push", count: 3, examples: report.rules[0].examples });
  assert.equal(report.rules[0].examples.length, 3);
  assert.match(report.rules[0].examples[0].message, /^NSO blocked bash for @dev/);
  assert.deepEqual(report.agents, [{ name: "dev", count: 4 }, { name: "plan", count: 1 }]);
  assert.deepEqual(report.commands[0], { name: "git push origin main", count: 3 });
  assert.deepEqual(report.paths, [{ name: "src/a.ts", count: 1 }]);
  const text = spawnSync(process.execPath, [CLI, "audit", "--dir", dir], { encoding: "utf8" });
  assert.match(text.stdout, /^5 call\(s\) would have been refused\./);
  assert.match(text.stdout, /\n\s+3 {2}kord\.git\.push\n\s+e\.g\. /);
  const none = spawnSync(process.execPath, [CLI, "audit", "--since", "2999-01-01", "--dir", dir], { encoding: "utf8" });
  assert.match(none.stdout, /Nothing would have been refused/);
  assert.equal(spawnSync(process.execPath, [CLI, "audit", "--since", "yesterday-ish", "--dir", dir], { encoding: "utf8" }).status, 2);
});

test("the report's pure parts: durations, bad lines, and terminal-safe text", () => {
  const now = Date.parse("2026-11-23T12:00:00Z");
  assert.equal(sinceTime("24h", now), now - 86_400_000);
  assert.equal(sinceTime("2026-11-01", now), Date.parse("2026-11-01"));
  const { records, bad } = parseAudit('{"t":"2026-11-23T10:00:00Z","rule":"r","agent":"a","tool":"bash","target":"x"}\n[]\n\n{"rule":1}\n');
  assert.equal(records.length, 1);
  assert.equal(bad, 2);
  const report = auditReport([{ t: "2026-11-23T10:00:00Z", rule: "r", agent: "a\u001b[2J", tool: "bash", target: "echo \u001b[31mred", message: "m" }], {});
  assert.equal(report.total, 1);
  const text = auditText(report);
  assert.ok(!text.includes("\u001b"), "an agent cannot repaint the person's terminal");
  assert.match(text, /echo red/);
  assert.equal(safe("a\u001b[2Jb\u0007c\u009bd"), "ab c d");
});
