// End-to-end (issue 10): two `opencode run` processes on one project at the same time. The
// first claims src/shared.ts by writing it; the second one's write to it is refused with the
// holder named; once the first process has ended, the second one's write succeeds.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode, tempDir } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const FILE = "src/shared.ts";

/** A promise with its resolve function. */
function signal() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

test("two OpenCode windows: the second may not write a file the first has claimed until it ends", async () => {
  const projectDir = makeProject({ git: true, files: { "src/other.ts": "x\n" } });
  const conductorHome = tempDir("conductor");
  const aWrote = signal();
  const bRefused = signal();
  const aEnded = signal();
  const seen = { a: [], b: [] };
  const steps = { a: 0, b: 0 };
  // One mock model serves both processes; each request says which window it is from.
  const mock = await startMockModel(async (req, ctx) => {
    if (ctx.isTitle) return undefined;
    const win = /window A/.test(JSON.stringify(req.messages?.find((m) => m.role === "user") ?? "")) ? "a" : "b";
    const step = steps[win]++;
    if (step > 0) seen[win].push(toolResults(req).at(-1) ?? "");
    if (win === "a") {
      if (step === 0) return { toolCalls: [{ name: "write", args: { filePath: FILE, content: "export const owner = 'A';\n" } }] };
      aWrote.resolve();
      await bRefused.promise; // window A stays alive (holding its claim) until B was refused
      return { text: "done" };
    }
    if (step === 0) return { toolCalls: [{ name: "write", args: { filePath: FILE, content: "export const owner = 'B';\n" } }] };
    if (step === 1) {
      bRefused.resolve();
      await aEnded.promise;
      return { toolCalls: [{ name: "write", args: { filePath: FILE, content: "export const owner = 'B';\n" } }] };
    }
    return { text: "done" };
  });
  try {
    const opts = { projectDir, mock, plugins: [PLUGIN], env: { CONDUCTOR_HOME: conductorHome }, timeoutMs: 90_000 };
    const runA = runOpencode({ ...opts, prompt: "window A: write the shared module" }).then((r) => {
      aEnded.resolve();
      return r;
    });
    await aWrote.promise;
    const runB = runOpencode({ ...opts, prompt: "window B: write the shared module too" });
    const [a, b] = await Promise.all([runA, runB]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.doesNotMatch(seen.a[0], /NSO blocked/, "window A's write went through");
    assert.match(seen.b[0], /^NSO blocked write for @build: .*src\/shared\.ts is claimed by instance opc-[a-z0-9]{6} \(project .*, task "window A: write the shared module", agent @build/);
    assert.match(seen.b[0], /--force/);
    assert.doesNotMatch(seen.b[1], /NSO blocked/, `after A ended, B's write succeeds: ${seen.b[1]}`);
    assert.equal(fs.readFileSync(path.join(projectDir, FILE), "utf8"), "export const owner = 'B';\n");
    assert.match(fs.readFileSync(path.join(conductorHome, "conflicts.log"), "utf8"), /\| CONFLICT \|/);
  } finally {
    await mock.close();
  }
});
