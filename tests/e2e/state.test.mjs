// End-to-end: an ordinary 30-step session (writes, reads, edits, bash with `git status`)
// through real OpenCode with the scripted model, once with NSO and once without, on the same
// kind of git repository. With NSO: the session's raw lane stays under 1 MB without reaching
// its cap, `git status --porcelain` shows exactly what it shows without NSO (nothing of NSO's),
// and the session's wall time is within 1.2x of the same session without NSO. Each variant runs
// three times, alternately, and the faster run of each is compared (the machine is shared). Figures
// are printed as test diagnostics.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sequence, startMockModel } from "./lib/mock-model.mjs";
import { makeProject, runOpencode } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const STEPS = 30;

/** A module of about `lines` lines: what an agent writes. */
const moduleText = (name, lines) => Array.from({ length: lines }, (_, i) => `export const ${name}_${i} = ${i}; // line ${i} of ${name}`).join("\n") + "\n";

/** The 30 steps: five rounds of write, read, edit, `git status`, another write, a listing. */
function steps() {
  const list = [];
  for (let k = 0; k < STEPS / 6; k++) {
    const a = `src/mod${k}.js`;
    list.push({ toolCalls: [{ name: "write", args: { filePath: a, content: moduleText(`m${k}`, 120) } }] });
    list.push({ toolCalls: [{ name: "read", args: { filePath: a } }] });
    list.push({ toolCalls: [{ name: "edit", args: { filePath: a, oldString: `m${k}_7 = 7;`, newString: `m${k}_7 = 70;` } }] });
    list.push({ toolCalls: [{ name: "bash", args: { command: "git status --porcelain", description: "Show the working tree's changes" } }] });
    list.push({ toolCalls: [{ name: "write", args: { filePath: `docs/note${k}.md`, content: `# Note ${k}\n\n${"Some prose about the module. ".repeat(40)}\n` } }] });
    list.push({ toolCalls: [{ name: "bash", args: { command: "ls -la src docs && wc -l src/*.js", description: "List the files" } }] });
  }
  return list;
}

/** One session in a fresh repository: `{ ms, dir, run, mock }`. */
async function session(withNso) {
  const dir = makeProject({ git: true, files: { "README.md": "# app\n", "package.json": "{\"name\":\"app\"}\n" } });
  const mock = await startMockModel(sequence(steps()));
  try {
    const run = await runOpencode({ projectDir: dir, prompt: "build the modules step by step", mock, plugins: withNso ? [PLUGIN] : [], timeoutMs: 300_000 });
    assert.equal(run.code, 0, `${withNso ? "with" : "without"} NSO: ${run.stderr.slice(-2000)}`);
    assert.equal(run.timedOut, false);
    const calls = run.events.filter((e) => e.type === "tool_use");
    const failed = calls.filter((e) => e.part?.state?.status !== "completed").map((e) => `${e.part?.tool}: ${e.part?.state?.error ?? e.part?.state?.status}`);
    assert.deepEqual(failed, [], `${withNso ? "with" : "without"} NSO, every step succeeds`);
    return { ms: run.ms, dir, run, calls: calls.length };
  } finally {
    await mock.close();
  }
}

const porcelain = (dir) => execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: dir, encoding: "utf8" })
  .split("\n").filter(Boolean).filter((l) => !l.endsWith("opencode.json")).sort();

/** Sizes of what NSO keeps of the session: its raw lanes and the T0 metadata's omitted count. */
function laneFigures(dir) {
  const folder = path.join(dir, ".opencode/nso/transcripts");
  const names = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
  const lanes = names.filter((n) => n.endsWith(".raw.jsonl")).map((n) => fs.statSync(path.join(folder, n)).size);
  const omitted = names.filter((n) => n.endsWith(".t0.json")).map((n) => JSON.parse(fs.readFileSync(path.join(folder, n), "utf8")).omitted?.records ?? 0);
  return { lanes, omitted };
}

test("30 ordinary steps through real OpenCode: a small lane, a clean git status, within 1.2x of the time without NSO", { timeout: 1_500_000 }, async (t) => {
  const runs = { without: [], with: [] };
  for (let round = 0; round < 3; round++) {
    runs.without.push(await session(false));
    runs.with.push(await session(true));
  }
  const best = (list) => list.reduce((a, b) => (b.ms < a.ms ? b : a));
  const plain = best(runs.without);
  const nso = best(runs.with);
  for (const r of [...runs.without, ...runs.with]) assert.equal(r.calls, STEPS, `all ${STEPS} steps ran`);

  for (const r of runs.with) {
    const { lanes, omitted } = laneFigures(r.dir);
    assert.ok(lanes.length >= 1, "the session was recorded");
    for (const size of lanes) assert.ok(size < 1 << 20, `lane of ${size} bytes`);
    assert.deepEqual(omitted.filter((n) => n > 0), [], "the lane stayed under its cap by itself");
    assert.ok(fs.existsSync(path.join(r.dir, ".opencode/logs")), "NSO wrote its logs");
    assert.deepEqual(porcelain(r.dir), porcelain(plain.dir), "git status shows what it shows without NSO: nothing of NSO's");
  }
  const ratio = nso.ms / plain.ms;
  const lane = Math.max(...runs.with.flatMap((r) => laneFigures(r.dir).lanes));
  t.diagnostic(`wall time without NSO ${runs.without.map((r) => r.ms).join(", ")} ms; with NSO ${runs.with.map((r) => r.ms).join(", ")} ms; best ${plain.ms} vs ${nso.ms} ms, ratio ${ratio.toFixed(2)}`);
  t.diagnostic(`largest raw lane ${lane} bytes; git status with NSO: ${JSON.stringify(porcelain(nso.dir))}`);
  assert.ok(ratio <= 1.2, `with NSO ${nso.ms} ms, without ${plain.ms} ms: ratio ${ratio.toFixed(2)}`);
});
