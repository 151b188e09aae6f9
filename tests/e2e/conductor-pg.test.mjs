// End-to-end (issue 14): the Conductor on PostgreSQL through real OpenCode. Two `opencode run`
// processes in two checkouts of one repository (two folders, `repository: "shop"`), sharing a
// real PostgreSQL server started for the test on 127.0.0.1. The first claims src/shared.ts by
// writing it; the second one's write to its own copy of that file is refused with the holder
// named; once the first process has ended, the second one's write succeeds.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode, tempDir } from "./lib/opencode.mjs";
import { startPostgres } from "../node/conductor/pg-server.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const FILE = "src/shared.ts";
const server = await startPostgres();
after(() => server.destroy());

function signal() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

test("two OpenCode processes in two checkouts, one PostgreSQL store: the second may not write the file the first claimed until it ends", async () => {
  const store = server.store({ namespace: "e2e", repository: "shop" });
  const checkout = () => makeProject({ git: true, files: { "src/other.ts": "x\n", ".opencode/nso.json": JSON.stringify({ conductor: { store } }) } });
  const dirs = { a: checkout(), b: checkout() };
  const aWrote = signal();
  const bRefused = signal();
  const aEnded = signal();
  const seen = { a: [], b: [] };
  const steps = { a: 0, b: 0 };
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
    const conductorHome = tempDir("conductor");
    const opts = { mock, plugins: [PLUGIN], env: { ...server.env, CONDUCTOR_HOME: conductorHome }, timeoutMs: 90_000 };
    const runA = runOpencode({ ...opts, projectDir: dirs.a, prompt: "window A: write the shared module" }).then((r) => {
      aEnded.resolve();
      return r;
    });
    await aWrote.promise;
    const runB = runOpencode({ ...opts, projectDir: dirs.b, prompt: "window B: write the shared module too" });
    const [a, b] = await Promise.all([runA, runB]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.doesNotMatch(seen.a[0], /NSO blocked/, `window A's write went through: ${seen.a[0]}`);
    const inB = fs.realpathSync(path.join(dirs.b, FILE)).replace(/[.*?[\]{}\\]/g, "\\$&");
    assert.match(seen.b[0], new RegExp(`^NSO blocked write for @build: ${inB} is claimed by instance opc-[a-z0-9]{6} \\(project .*, task "window A: write the shared module", agent @build`));
    assert.doesNotMatch(seen.b[1], /NSO blocked/, `after A ended, B's write succeeds: ${seen.b[1]}`);
    assert.equal(fs.readFileSync(path.join(dirs.b, FILE), "utf8"), "export const owner = 'B';\n");
    const lines = (await server.query("SELECT line FROM nso_conductor_conflicts WHERE namespace = 'e2e'")).map((r) => r.line);
    assert.ok(lines.some((l) => l.includes("| CONFLICT |") && l.includes("/@repo/shop/src/shared.ts")), lines.join("\n"));
    // The home keeps only the windows' activity feeds (Mission Control); no claim is kept there.
    assert.deepEqual(fs.readdirSync(conductorHome).filter((n) => n !== "activity"), [], "the files store was not used");
  } finally {
    await mock.close();
  }
});
