// End-to-end: OpenCode's own agents keep working under the default preset. `plan` writes its
// plan where OpenCode's plan mode puts it (.opencode/plans/*.md), as it does without NSO.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, sequence, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const PLAN = ".opencode/plans/loyalty.md";

test("under the default preset, plan writes its plan in .opencode/plans/", async () => {
  const projectDir = makeProject({ git: true, files: { "src/app.ts": "export {};\n" } });
  const mock = await startMockModel(sequence([
    { toolCalls: [{ name: "write", args: { filePath: PLAN, content: "# Loyalty points\n\n1. Model the points ledger.\n" } }] },
    { text: "plan written" },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "plan the loyalty feature", mock, agent: "plan", plugins: [PLUGIN] });
    assert.equal(run.code, 0, run.stderr);
    const results = mock.requests.filter((r) => !r.isTitle).flatMap((r) => toolResults(r.body)).join("\n");
    assert.doesNotMatch(results, /NSO blocked/);
    assert.equal(fs.readFileSync(path.join(projectDir, PLAN), "utf8"), "# Loyalty points\n\n1. Model the points ledger.\n");
  } finally {
    await mock.close();
  }
});
