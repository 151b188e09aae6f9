// Nothing NSO learns about the file system outlives the call that asked: while other calls run
// side by side (OpenCode runs the calls of one step together; other windows and background
// processes change the tree at any time), a folder swapped for a link out of the project is
// seen by the very next decision.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createNso } from "../../plugin/nso.js";
import { makeProject } from "./helpers.mjs";

const CONFIG = JSON.stringify({ authority: { preset: "kord" }, conductor: { mode: "off" } });

/** A project with `src/app.ts`, a folder outside it, and an NSO instance where `ses_dev` is @dev. */
function setUp() {
  const outside = makeProject({ "app.ts": "elsewhere" });
  const dir = makeProject({ ".opencode/nso.json": CONFIG, "src/app.ts": "x" });
  const nso = createNso({ directory: dir, worktree: dir });
  nso.noteAgent("ses_dev", "dev");
  nso.noteAgent("ses_sub", "dev");
  const src = path.join(dir, "src");
  return {
    dir, outside, nso,
    /** `mv src src-old && ln -s <outside> src`, or back. */
    swapOut: () => (fs.renameSync(src, `${src}-old`), fs.symlinkSync(outside, src)),
    swapBack: () => (fs.rmSync(src), fs.renameSync(`${src}-old`, src)),
  };
}

/** A call's before hook: null when allowed, else NSO's message. */
const before = (nso, session, tool, args, callID) =>
  nso.beforeTool({ tool, sessionID: session, callID }, { args }).then(() => null, (error) => error.message);
const after = (nso, session, tool, args, callID) =>
  nso.afterTool({ tool, sessionID: session, callID, args }, { output: "" });

test("two changes in flight: the first ends, src/ becomes a link out, the next write is refused", async () => {
  const { nso, swapOut } = setUp();
  const a = { command: "git status" };
  const b = { command: "npm test" };
  // The file was written before (as agents write a file again and again).
  assert.equal(await before(nso, "ses_dev", "write", { filePath: "src/app.ts", content: "1" }, "W0"), null);
  await after(nso, "ses_dev", "write", { filePath: "src/app.ts", content: "1" }, "W0");
  assert.equal(await before(nso, "ses_dev", "bash", a, "A"), null);
  assert.equal(await before(nso, "ses_dev", "bash", b, "B"), null);
  await after(nso, "ses_dev", "bash", a, "A"); // A ends while B still runs
  swapOut(); // what B does
  const write = (content, id) => before(nso, "ses_dev", "write", { filePath: "src/app.ts", content }, id);
  assert.match(await write("2", "W1") ?? "", /outside the project/, "inside the overlap");
  assert.match(await write("3", "W2") ?? "", /outside the project/, "new text, same place");
  await after(nso, "ses_dev", "bash", b, "B");
  assert.match(await write("4", "W3") ?? "", /outside the project/);
});

test("a subagent's short call ending beside a parent's long script does not hide the script's swap", async () => {
  const { nso, swapOut } = setUp();
  const script = { command: "./long-script.sh" };
  const edit = { filePath: "src/app.ts", oldString: "x", newString: "y" };
  assert.equal(await before(nso, "ses_sub", "read", { filePath: "src/app.ts" }, "R"), null);
  assert.equal(await before(nso, "ses_dev", "bash", script, "P"), null);
  assert.equal(await before(nso, "ses_dev", "task", { subagent_type: "general", prompt: "x", description: "x" }, "T"), null);
  assert.equal(await before(nso, "ses_sub", "bash", { command: "ls" }, "S"), null);
  await after(nso, "ses_sub", "bash", { command: "ls" }, "S");
  swapOut();
  assert.match(await before(nso, "ses_sub", "edit", edit, "E") ?? "", /outside the project/);
});

/** A small seeded generator (mulberry32), so a failing interleaving can be run again. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Where a write of `rel` in `dir` really lands, found now (links followed; parts not there kept). */
function landing(dir, rel) {
  let at = path.join(dir, rel);
  const missing = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(at), ...missing.reverse());
    } catch {
      missing.push(path.basename(at));
      at = path.dirname(at);
    }
  }
}

test("property: in random interleavings of calls starting and ending, with folders swapped for links, every allowed write lands inside the project", async () => {
  const tools = [["bash", { command: "npm test" }], ["bash", { command: "ls -la" }], ["task", { subagent_type: "general", prompt: "p", description: "d" }],
    ["ls", { path: "." }], ["apply_patch", { patchText: "*** Begin Patch\n*** Update File: README.md\n@@\n-a\n+b\n*** End Patch" }]];
  const targets = ["src/app.ts", "src/new/x.ts", "lib/util.ts"];
  let writes = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const next = random(seed);
    const pick = (list) => list[Math.floor(next() * list.length)];
    const { dir, nso, outside } = setUp();
    fs.mkdirSync(path.join(dir, "lib"));
    const inFlight = [];
    const swapped = new Set();
    for (let step = 0; step < 40; step++) {
      const r = next();
      if (r < 0.25) {
        const [tool, args] = pick(tools);
        const id = `c${step}`;
        if (await before(nso, pick(["ses_dev", "ses_sub"]), tool, args, id) === null) inFlight.push({ tool, args, id });
      } else if (r < 0.45 && inFlight.length) {
        const call = inFlight.splice(Math.floor(next() * inFlight.length), 1)[0];
        await after(nso, "ses_dev", call.tool, call.args, call.id);
      } else if (r < 0.6) {
        // A running call (or another window) swaps a folder for a link out, or back.
        const folder = pick(["src", "lib"]);
        const abs = path.join(dir, folder);
        if (swapped.has(folder)) {
          fs.rmSync(abs);
          fs.renameSync(`${abs}-old`, abs);
          swapped.delete(folder);
        } else {
          fs.renameSync(abs, `${abs}-old`);
          fs.symlinkSync(outside, abs);
          swapped.add(folder);
        }
      } else {
        const rel = pick(targets);
        const where = landing(dir, rel);
        const refusal = await before(nso, "ses_dev", "write", { filePath: rel, content: `v${step}` }, `w${step}`);
        writes++;
        const inside = where.startsWith(`${fs.realpathSync(dir)}/`);
        assert.ok(refusal !== null || inside, `seed ${seed} step ${step}: a write of ${rel} landing at ${where} was allowed`);
        if (refusal !== null) {
          assert.ok(!inside, `seed ${seed} step ${step}: a write of ${rel} inside the project was refused: ${refusal}`);
          assert.match(refusal, /outside the project/, `seed ${seed} step ${step}`);
        }
      }
    }
  }
  assert.ok(writes > 1000, `${writes} writes decided`);
});
