// A newcomer's first hour through real OpenCode: `nso init opencode` on a project with three
// agents of its own, a session in audit mode (the refused call runs and is recorded), `nso
// audit`, `nso enforce`, then the same kind of call refused; `nso doctor` passes throughout.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { startMockModel, sequence, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode } from "./lib/opencode.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const nso = (projectDir, ...args) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: projectDir, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const git = (projectDir, ...args) => spawnSync("git", args, { cwd: projectDir, encoding: "utf8" }).stdout;

async function tagRun(projectDir, tag) {
  const mock = await startMockModel(sequence([
    { toolCalls: [{ name: "bash", args: { command: `git tag ${tag}`, description: "tag the release" } }] },
    { text: "Done." },
  ]));
  try {
    const run = await runOpencode({ projectDir, prompt: "tag it", mock, agent: "build", timeoutMs: 90_000 });
    assert.equal(run.code, 0, run.stderr);
    return toolResults(mock.requests.filter((r) => !r.isTitle).at(-1).body)[0];
  } finally {
    await mock.close();
  }
}

test("init opencode, a session in audit mode, nso audit, nso enforce, a refusal; doctor passes", async () => {
  const projectDir = makeProject({
    git: true,
    files: {
      "opencode.json": JSON.stringify({ agent: { architect: { mode: "primary" }, coder: {} } }),
      ".opencode/agent/reviewer.md": "---\ndescription: reviews changes\n---\nReview the diff.\n",
    },
  });
  const init = nso(projectDir, "init", "opencode", "--preset", "nso");
  assert.equal(init.code, 0, init.err);
  for (const agent of ["architect", "coder", "reviewer", "build", "plan"]) assert.ok(init.out.includes(`@${agent}`), `${agent} in:\n${init.out}`);
  assert.match(init.out, /Audit mode/);
  const doctor = nso(projectDir, "doctor");
  assert.equal(doctor.code, 0, doctor.out);

  // Audit mode: the tag is created, the model is not told, the record is there.
  const audited = await tagRun(projectDir, "v1");
  assert.doesNotMatch(audited, /NSO blocked/);
  assert.match(git(projectDir, "tag"), /v1/);
  const audit = nso(projectDir, "audit", "--json");
  assert.equal(audit.code, 0, audit.err);
  assert.ok(JSON.parse(audit.out).rules.some((r) => r.name === "nso.git.user_only"), audit.out);

  const enforce = nso(projectDir, "enforce");
  assert.equal(enforce.code, 0, enforce.err);
  assert.equal(JSON.parse(fs.readFileSync(path.join(projectDir, ".opencode/nso.json"), "utf8")).authority.mode, "enforce");

  const refused = await tagRun(projectDir, "v2");
  assert.match(refused, /^NSO blocked bash for @build: .*Rule nso\.git\.user_only/);
  assert.doesNotMatch(git(projectDir, "tag"), /v2/);
  const after = nso(projectDir, "doctor", "--json");
  assert.equal(after.code, 0, after.out);
  assert.match(JSON.parse(after.out).checks.find((c) => c.name === "recent").detail, /block bash @build nso\.git\.user_only/);
});
