// What Claude Code pays per PreToolUse call: a whole process per call (Claude Code starts one
// for every hook), timed from spawn to exit, p50 and p99 over ~200 calls in rotation (a mix
// of everyday calls under the kord preset: allowed bash, read, edit, and refusals). Rows: the
// native hook (target/release/nso-hook, `cargo build --release -p nso-hook`), the Node
// adapter (`node bin/nso.js hook claude-code`), a Python process that only reads the JSON and
// writes one back (the reference the issue asks for), and a process that does nothing
// (`true`: what a spawn costs here). Also, with the Conductor on, the native hook on an edit
// of a file the session holds already (decided natively) and on one it hands to Node (a file
// not claimed yet): the price of the hand-over.
// Not a test: it reports figures; it checks only that native and Node give the same answers.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(here, "../bin/nso.js");
const NATIVE = path.join(here, "../target/release/nso-hook");
const CALLS = Number(process.env.NSO_BENCH_CALLS ?? 200);
const PYTHON = "import json,sys; d=json.load(sys.stdin); sys.stdout.write(json.dumps({'seen': d.get('tool_name')}))";

const made = []; // temporary folders, removed at the end

/** A kord project whose Claude Code main agent is @dev; `conductor` is its conductor mode. */
function project(conductor) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-hook-bench-")));
  made.push(dir);
  fs.mkdirSync(path.join(dir, ".opencode"));
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(path.join(dir, "src/app.ts"), "export const a = 1;\n");
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-hook-bench-conductor-"));
  made.push(home);
  const config = { authority: { preset: "kord" }, conductor: { mode: conductor, home }, claudeCode: { mainAgent: "dev" } };
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify(config));
  return dir;
}

/** The PreToolUse inputs of the rotation, as Claude Code sends them. */
function inputs(dir) {
  const calls = [
    ["Bash", { command: "git status --short" }],
    ["Read", { file_path: `${dir}/src/app.ts` }],
    ["Bash", { command: "npm test -- --watch=false" }],
    ["Edit", { file_path: `${dir}/src/app.ts`, old_string: "1", new_string: "1" }],
    ["Grep", { pattern: "export", path: `${dir}/src` }],
    ["Bash", { command: "git push origin main" }], // refused: kord.git.push
    ["Write", { file_path: `${dir}/.opencode/nso.json`, content: "{}" }], // refused: governance
  ];
  return calls.map(([tool_name, tool_input], i) => JSON.stringify({
    session_id: "ses_bench", transcript_path: `${dir}/t.jsonl`, cwd: dir, permission_mode: "default",
    hook_event_name: "PreToolUse", tool_name, tool_input, tool_use_id: `toolu_${i}`,
  }));
}

/** Runs `command` once per input (in rotation) `n` times; sorted milliseconds and the answers. */
function time(command, dir, list, n = CALLS) {
  const env = { ...process.env, CLAUDE_PROJECT_DIR: dir, CONDUCTOR_HOME: path.join(dir, ".home") };
  const ms = [];
  const answers = [];
  for (let i = 0; i < n; i++) {
    const input = list[i % list.length];
    const t0 = process.hrtime.bigint();
    const r = spawnSync(command[0], command.slice(1), { input, cwd: dir, env, encoding: "utf8" });
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 0) throw new Error(`${command.join(" ")}: exit ${r.status}: ${r.stderr}`);
    if (i < list.length) answers.push(r.stdout);
  }
  return { ms: ms.sort((a, b) => a - b), answers };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const rows = [];
const row = (label, result, note = "") =>
  rows.push([label, percentile(result.ms, 50).toFixed(2), percentile(result.ms, 99).toFixed(2), String(result.ms.length), note]);

const off = project("off");
const list = inputs(off);
const haveNative = fs.existsSync(NATIVE);
const haveNode = fs.existsSync(path.join(here, "../plugin/hosts/claude-code.js"));
let native;
if (haveNative) {
  native = time([NATIVE, "claude-code", "--fallback", CLI], off, list);
  row("native nso-hook", native, "decided natively (conductor off)");
} else {
  rows.push(["native nso-hook", "-", "-", "0", "not built: cargo build --release -p nso-hook"]);
}
if (haveNode) {
  const node = time([process.execPath, CLI, "hook", "claude-code"], off, list);
  row("node bin/nso.js hook claude-code", node, "wasm core in Node");
  if (native) {
    const differ = list.filter((_, i) => native.answers[i] !== node.answers[i]);
    if (differ.length) throw new Error(`native and Node answer differently on ${differ.length} calls`);
  }
} else {
  rows.push(["node bin/nso.js hook claude-code", "-", "-", "0", "skipped: plugin/hosts/claude-code.js does not exist yet"]);
}
row("python3 -c (JSON read + write)", time(["python3", "-c", PYTHON], off, list), "reference: the least a hook in Python costs");
row("true (spawn only)", time(["true"], off, list), "what starting any process costs here");
if (haveNative) {
  // Conductor on (enforce, the default): once the session's instance holds a file (Node
  // claimed it at the first edit), later edits of it are decided natively; an edit of a file
  // not held yet is handed to Node, which claims it.
  const on = project("enforce");
  const edit = (file, id) => JSON.stringify({
    session_id: "ses_bench", cwd: on, hook_event_name: "PreToolUse", tool_name: "Edit",
    tool_input: { file_path: `${on}/src/${file}`, old_string: "1", new_string: "1" }, tool_use_id: `toolu_${id}`,
  });
  time([process.execPath, CLI, "hook", "claude-code"], on, [edit("app.ts", "claim")], 1);
  row("native, conductor on, claim held", time([NATIVE, "claude-code", "--fallback", CLI], on, [edit("app.ts", "held")]),
    "allowed edit of a file the session holds");
  const fresh = Array.from({ length: Math.min(CALLS, 50) }, (_, i) => edit(`new${i}.ts`, `new${i}`));
  row("native, handed to Node", time([NATIVE, "claude-code", "--fallback", CLI], on, fresh, fresh.length),
    "allowed edit of a file not held yet (Node claims it)");
}

const refused = list.filter((_, i) => native?.answers[i]?.includes('"deny"')).length;
console.log(`hook.bench: one process per PreToolUse call, ${os.cpus()[0]?.model ?? "?"}, node ${process.versions.node}; ` +
  `${list.length} calls in rotation (${refused} refused)`);
const widths = [34, 8, 8, 6];
const line = (cells) => cells.map((c, i) => (i < widths.length ? (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])) : `  ${c}`)).join(" ");
console.log(line(["runner", "p50 ms", "p99 ms", "calls", "note"]));
for (const r of rows) console.log(line(r));
if (haveNative) console.log(`native binary: ${fs.statSync(NATIVE).size} bytes`);
for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
