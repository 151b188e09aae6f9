// NSO installed in a project's node_modules (as `npm install -D <tarball>` puts it there): the
// entry `nso init opencode` writes is one real OpenCode loads, shown by a refusal.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { startMockModel, sequence, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode } from "./lib/opencode.mjs";

const NSO_ROOT = path.resolve(new URL("../..", import.meta.url).pathname);

test("NSO copied into node_modules: init's entry loads in OpenCode, and the policy refuses", async () => {
  const projectDir = makeProject({ git: true });
  const installed = path.join(projectDir, "node_modules/nso-opencode");
  for (const part of ["bin", "plugin", "pkg", "schema", "package.json"]) fs.cpSync(path.join(NSO_ROOT, part), path.join(installed, part), { recursive: true });
  fs.symlinkSync(path.join(NSO_ROOT, "node_modules"), path.join(installed, "node_modules"));

  const init = spawnSync(process.execPath, [path.join(installed, "bin/nso.js"), "init", "opencode", "--preset", "nso", "--enforce"], { cwd: projectDir, encoding: "utf8" });
  assert.equal(init.status, 0, init.stderr);
  const config = JSON.parse(fs.readFileSync(path.join(projectDir, "opencode.json"), "utf8"));
  assert.deepEqual(config.plugin, ["./node_modules/nso-opencode/plugin/nso-plugin.js"]);

  const mock = await startMockModel(sequence([
    { toolCalls: [{ name: "bash", args: { command: "git tag v1", description: "tag the release" } }] },
    { text: "Done." },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "tag it", mock, agent: "build", timeoutMs: 90_000 });
    assert.equal(run.code, 0, run.stderr);
    const [result] = toolResults(mock.requests.filter((r) => !r.isTitle).at(-1).body);
    assert.match(result, /^NSO blocked bash for @build: .*Rule nso\.git\.user_only/);
  } finally {
    await mock.close();
  }
});
