// The README's demo: NSO inside real OpenCode with a scripted model on 127.0.0.1 (no API key).
// Prints what a person would want to see: the init marker, the memory summary as the model
// received it, and NSO's refusals as the model received them.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, sequence, systemText, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode, tempDir } from "./lib/opencode.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const say = (title, body = "") => console.log(`\n== ${title}\n${body}`);
const indent = (text) => text.trimEnd().split("\n").map((l) => `   | ${l}`).join("\n");

const outside = path.join(tempDir("outside"), "stolen.txt");
const steps = [
  { toolCalls: [{ name: "write", args: { filePath: "src/login.ts", content: "export const login = () => true;\n" } }] },
  { toolCalls: [{ name: "write", args: { filePath: outside, content: "secrets\n" } }] },
];
const mock = await startMockModel(sequence(steps));
const projectDir = makeProject({
  git: true,
  files: {
    ".opencode/context/01_memory/active_context.md": "# Active context\nSprint goal: ship the login page.\n",
    ".opencode/context/01_memory/patterns.md": "# Patterns\nErrors are values; never panic.\n",
  },
});
say("Project", `${projectDir}\n   opencode.json loads the plugin ${PLUGIN}`);
say("The scripted model will call", steps.map((s) => `   ${JSON.stringify(s.toolCalls[0])}`).join("\n"));

const run = await runOpencode({ projectDir, prompt: "Implement the login page", mock, plugins: [PLUGIN] });
await mock.close();
if (run.code !== 0) {
  console.error(run.stdout, run.stderr);
  process.exit(1);
}
const calls = mock.requests.filter((r) => !r.isTitle);
const marker = fs.readFileSync(path.join(projectDir, ".opencode/logs/session_init_marker.txt"), "utf8");
say("1. Session init marker (.opencode/logs/session_init_marker.txt)", indent(marker));
const context = systemText(calls[0].body).match(/<nso-session-context>[\s\S]*?<\/nso-session-context>/);
say("2. Memory summary, as the model received it in its system prompt", indent(context ? context[0] : "(missing!)"));
say("3. Tool results, as the model received them");
for (const result of toolResults(calls.at(-1).body)) console.log(indent(result), "\n");
say("4. On disk", [
  `   src/login.ts written: ${fs.existsSync(path.join(projectDir, "src/login.ts"))}`,
  `   ${outside} written: ${fs.existsSync(outside)}`,
].join("\n"));
say("5. NSO's decision log (.opencode/logs/nso.log)", indent(fs.readFileSync(path.join(projectDir, ".opencode/logs/nso.log"), "utf8")));
const ok = context && !fs.existsSync(outside) && toolResults(calls.at(-1).body).some((r) => r.startsWith("NSO blocked"));

// Second run: the kord preset, OpenCode's plan agent (the seed's @plan: never writes code)
// tries to write source code through bash.
const sneaky = "cat > src/feature.ts <<'EOF'\nexport const feature = true;\nEOF";
const mock2 = await startMockModel(sequence([{ toolCalls: [{ name: "bash", args: { command: sneaky, description: "write" } }] }]));
const kordDir = makeProject({ git: true, files: { ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" } }) } });
say("6. Second run: .opencode/nso.json selects the kord preset; agent plan runs", indent(sneaky));
const run2 = await runOpencode({ projectDir: kordDir, prompt: "Sketch the feature", mock: mock2, agent: "plan", plugins: [PLUGIN] });
await mock2.close();
const refusal = toolResults(mock2.requests.filter((r) => !r.isTitle).at(-1).body).find((r) => r.startsWith("NSO blocked"));
console.log(indent(refusal ?? "(no refusal!)"));
console.log(`   src/feature.ts written: ${fs.existsSync(path.join(kordDir, "src/feature.ts"))}`);
const ok2 = run2.code === 0 && refusal && !fs.existsSync(path.join(kordDir, "src/feature.ts"));

// Third run: a task's status.md is governed by the nso-task state machine. @build jumps from
// PENDING straight to COMPLETE with edit (refused), then reports progress with NSO's tool.
const id = "build_20261122_login_ab12cd";
const statusFile = `.opencode/context/active_tasks/${id}/status.md`;
const mock3 = await startMockModel(sequence([
  { toolCalls: [{ name: "edit", args: { filePath: statusFile, oldString: "- Status: PENDING", newString: "- Status: COMPLETE" } }] },
  // The refusal names the moves @build may make; the model takes one.
  { toolCalls: [{ name: "edit", args: { filePath: statusFile, oldString: "- Status: PENDING", newString: "- Status: IN_PROGRESS" } }] },
]));
const taskDir = makeProject({ git: true, files: {
  [`.opencode/context/active_tasks/${id}/contract.md`]: `# Task Contract: ${id}\n\n- Agent: build\n\n## Objective\nThe login page.\n`,
  [statusFile]: `# Task Status: ${id}\n\n- Status: PENDING\n`,
} });
say("7. Third run: @build edits status.md from PENDING to COMPLETE, then makes a move the refusal names (IN_PROGRESS)");
const run3 = await runOpencode({ projectDir: taskDir, prompt: "Work on the login task", mock: mock3, plugins: [PLUGIN] });
await mock3.close();
const results3 = toolResults(mock3.requests.filter((r) => !r.isTitle).at(-1).body);
for (const result of results3) console.log(indent(result), "\n");
const status = fs.readFileSync(path.join(taskDir, statusFile), "utf8");
console.log(indent(status));
const ok3 = run3.code === 0 && /You \(@build\) may move it to IN_PROGRESS/.test(results3.join("\n")) && /- Status: IN_PROGRESS/.test(status);

console.log(ok && ok2 && ok3
  ? "\nDemo OK: NSO loaded, initialised the session, refused the write outside the project and @plan's bash write into src/, and held a task's status to its state machine."
  : "\nDemo FAILED");
process.exit(ok && ok2 && ok3 ? 0 : 1);
