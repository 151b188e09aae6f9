// NSO's log lines wait in memory (a decision never waits for the disk) and are never lost:
// written by a flush, by the host's `dispose`, and when the process ends — normally, through
// process.exit, or by a signal (checked with real child processes).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { createLogs } from "../../plugin/logs.js";
import plugin from "../../plugin/nso-plugin.js";
import { makeProject } from "./helpers.mjs";

const PLUGIN = new URL("../../plugin/nso-plugin.js", import.meta.url).href;
const onDisk = (dir, rel = ".opencode/logs/nso.log") => {
  try {
    return fs.readFileSync(path.join(dir, rel), "utf8");
  } catch {
    return undefined;
  }
};

/** A project under kord where @dev's `git push` is refused. */
const kordProject = () => makeProject({ ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" }, conductor: { mode: "off" } }) });

/** A child process that gets @dev's push refused, then `ending` (a statement). */
function childScript(dir, ending) {
  return `
    const plugin = (await import(${JSON.stringify(PLUGIN)})).default;
    const hooks = await plugin.server({ directory: ${JSON.stringify(dir)}, worktree: ${JSON.stringify(dir)} });
    await hooks["chat.params"]({ sessionID: "s", message: { agent: "dev" } }, {});
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "git push origin main" } })
      .catch((error) => process.stdout.write(error.name + "\\n"));
    ${ending}`;
}

test("a line waits in memory until a flush, each log keeping its lines in order", () => {
  const dir = makeProject();
  const logs = createLogs(dir);
  logs.decision("one");
  logs.error("broke");
  logs.decision("two");
  assert.equal(onDisk(dir), undefined, "nothing written inside the call");
  logs.flush();
  assert.equal(onDisk(dir), "one\ntwo\n");
  assert.match(onDisk(dir, ".opencode/logs/nso-errors.log"), /^\S+ broke\n$/);
  logs.decision("three");
  logs.flush();
  assert.equal(onDisk(dir), "one\ntwo\nthree\n", "appended, not rewritten");
});

test("a line given as a function is formatted at the flush, in its place; one that throws is reported there", () => {
  const dir = makeProject();
  const logs = createLogs(dir);
  let formatted = 0;
  logs.decision("one");
  logs.decision(() => (formatted++, "two\nthree"));
  logs.decision(() => {
    throw new Error("no text");
  });
  logs.decision("four");
  assert.equal(formatted, 0, "not formatted inside the call");
  logs.flush();
  assert.equal(formatted, 1);
  assert.match(onDisk(dir), /^one\ntwo\nthree\n\S+ NSO could not format a log line: no text\nfour\n$/);
});

test("the host's dispose writes the refusal's line", async () => {
  const dir = kordProject();
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  await hooks["chat.params"]({ sessionID: "s", message: { agent: "dev" } }, {});
  await assert.rejects(hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "git push origin main" } }));
  assert.equal(onDisk(dir), undefined);
  await hooks.dispose();
  assert.match(onDisk(dir), /block bash @dev kord\.git\.push\n$/);
});

for (const [how, ending, code] of [
  ["the process ends on its own", "", 0],
  ["the process calls process.exit", "process.exit(3);", 3],
]) {
  test(`a refusal's line is written when ${how}`, () => {
    const dir = kordProject();
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", childScript(dir, ending)], { encoding: "utf8" });
    assert.equal(run.status, code, run.stderr);
    assert.equal(run.stdout, "NSOBlock\n");
    assert.match(onDisk(dir), /block bash @dev kord\.git\.push\n$/);
  });
}

for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  test(`a refusal's line is written when ${signal} ends the process, which still ends by the signal`, async () => {
    const dir = kordProject();
    const child = spawn(process.execPath, ["--input-type=module", "-e", childScript(dir, "setInterval(() => {}, 1000);")]);
    let out = "";
    await new Promise((resolve) => child.stdout.on("data", (chunk) => (out += chunk) && out.includes("\n") && resolve()));
    child.kill(signal);
    const [code, ended] = await new Promise((resolve) => child.on("exit", (...args) => resolve(args)));
    assert.deepEqual([code, ended], [null, signal]);
    assert.match(onDisk(dir), /block bash @dev kord\.git\.push\n$/);
  });
}
