// Smoke test of the harness itself: real OpenCode + mock model + a throwaway probe plugin.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { contentText, startMockModel, sequence, toolNames, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode, tempDir } from "./lib/opencode.mjs";

// Logs every hook call as a JSON line to the file given as plugin option `log`, and blocks
// writes to paths containing "blocked".
const PROBE_PLUGIN = `
import fs from "node:fs";
export default {
  id: "probe",
  server: async (_input, options) => {
    const log = (entry) => fs.appendFileSync(options.log, JSON.stringify(entry) + "\\n");
    const hook = (name) => async () => log({ hook: name });
    return {
      config: hook("config"),
      event: async ({ event }) => log({ hook: "event", type: event.type }),
      "chat.message": hook("chat.message"),
      "chat.params": async (input) => log({ hook: "chat.params", agent: input.message?.agent }),
      "tool.definition": hook("tool.definition"),
      "experimental.chat.messages.transform": hook("experimental.chat.messages.transform"),
      "experimental.chat.system.transform": hook("experimental.chat.system.transform"),
      "tool.execute.before": async (input, output) => {
        log({ hook: "tool.execute.before", input, args: output.args });
        const target = output.args?.filePath ?? "";
        if (input.tool === "write" && target.includes("blocked")) throw new Error("PROBE-BLOCK: " + target);
      },
      "tool.execute.after": async (input) => log({ hook: "tool.execute.after", tool: input.tool }),
    };
  },
};
`;

function setup(files = {}) {
  const projectDir = makeProject({ files: { ...files, "probe-plugin.js": PROBE_PLUGIN } });
  const log = path.join(tempDir("probe"), "hooks.jsonl");
  return { projectDir, log, plugins: [[path.join(projectDir, "probe-plugin.js"), { log }]] };
}

function readLog(file) {
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l)) : [];
}

test("write to allowed.txt runs; write to blocked.txt is blocked and the model sees PROBE-BLOCK", async () => {
  const mock = await startMockModel(
    sequence([
      { toolCalls: [{ name: "write", args: { filePath: "allowed.txt", content: "ok\n" } }] },
      { toolCalls: [{ name: "write", args: { filePath: "blocked.txt", content: "no\n" } }] },
    ]),
  );
  try {
    const { projectDir, log, plugins } = setup();
    const run = await runOpencode({ projectDir, prompt: "write two files", mock, plugins, timeoutMs: 30_000 });
    assert.equal(run.code, 0, run.stdout + run.stderr);

    assert.equal(fs.readFileSync(path.join(projectDir, "allowed.txt"), "utf8"), "ok\n");
    assert.ok(!fs.existsSync(path.join(projectDir, "blocked.txt")), "blocked.txt must not be written");

    assert.equal(mock.requests.filter((r) => r.isTitle).length, 1, "one session-title request");
    const turns = mock.requests.filter((r) => !r.isTitle);
    assert.equal(turns.length, 3);
    assert.equal(contentText(turns[0].body.messages.findLast((m) => m.role === "user")), "write two files");
    assert.ok(toolNames(turns[0]).includes("write"));
    assert.ok(!toolNames(turns[0]).includes("apply_patch"));
    assert.ok(!toolResults(turns[1].body).some((t) => t.includes("PROBE-BLOCK")));
    const blockedResult = toolResults(turns[2].body).at(-1);
    assert.match(blockedResult, /^PROBE-BLOCK: blocked\.txt/);

    const hooks = readLog(log);
    const before = hooks.filter((h) => h.hook === "tool.execute.before");
    assert.deepEqual(before.map((h) => [h.input.tool, h.args.filePath]), [["write", "allowed.txt"], ["write", "blocked.txt"]]);
    assert.equal(hooks.filter((h) => h.hook === "tool.execute.after").length, 1);
    assert.ok(hooks.some((h) => h.hook === "chat.params" && h.agent === "build"));
  } finally {
    await mock.close();
  }
});

test("a gpt- model id is offered apply_patch instead of write/edit", async () => {
  const patchText = "*** Begin Patch\n*** Add File: patched.txt\n+hello\n*** End Patch";
  const mock = await startMockModel(sequence([{ toolCalls: [{ name: "apply_patch", args: { patchText } }] }]));
  try {
    const { projectDir, log, plugins } = setup();
    const run = await runOpencode({ projectDir, prompt: "patch", mock, plugins, model: "gpt-5-mock", timeoutMs: 30_000 });
    assert.equal(run.code, 0, run.stdout + run.stderr);

    const names = toolNames(mock.requests.find((r) => !r.isTitle));
    assert.ok(names.includes("apply_patch"), names.join(","));
    assert.ok(!names.includes("write") && !names.includes("edit"), names.join(","));
    assert.equal(fs.readFileSync(path.join(projectDir, "patched.txt"), "utf8"), "hello\n");
    const before = readLog(log).find((h) => h.hook === "tool.execute.before");
    assert.equal(before.args.patchText, patchText);
  } finally {
    await mock.close();
  }
});
