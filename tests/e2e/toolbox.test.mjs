// NSO's tool box through real OpenCode: what a model request carries of NSO, measured from the
// request the scripted model receives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { toolNames, systemText } from "./lib/mock-model.mjs";
import { firstRequest, requestSize } from "./lib/request-size.mjs";

const PLUGIN = fileURLToPath(new URL("../../plugin/nso-plugin.js", import.meta.url));
const KORD = {
  ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" } }),
  "opencode.json": JSON.stringify({ agent: { librarian: { mode: "primary", description: "Read-only research." } } }),
};

test("a default project: NSO adds at most 2 KB to a request, and no router line", async () => {
  const size = await requestSize({ plugin: PLUGIN, agent: "build" });
  // a primary agent: no reports (those are a subagent's)
  assert.deepEqual(size.tools, ["nso_claim", "nso_claims", "nso_contract", "nso_decide", "nso_decisions", "nso_handoff", "nso_release"]);
  assert.ok(size.total <= 2048, `NSO adds ${size.total} bytes (${size.toolBytes} tools, ${size.systemBytes} system)`);
  assert.equal(size.systemBytes, 0, "nothing routes: no system text");
});

test("status and routing tools come with the project's TODO.md and command files", async () => {
  const body = await firstRequest({
    plugins: [PLUGIN], agent: "build",
    files: { ".opencode/specs/TODO.md": "# TODO\n", ".opencode/command/research.md": "---\nname: research\n---\n# /research\n" },
  });
  const names = toolNames(body).filter((n) => n.startsWith("nso_"));
  for (const t of ["nso_status_set", "nso_task_new", "nso_task_archive", "nso_route"]) assert.ok(names.includes(t), t);
  assert.doesNotMatch(systemText(body), /NSO router/);
});

test("kord: a read-only agent gets no tool that writes where it may not (OpenCode honours the config hook)", async () => {
  const body = await firstRequest({ plugins: [PLUGIN], agent: "librarian", files: KORD });
  const names = toolNames(body).filter((n) => n.startsWith("nso_"));
  for (const t of ["nso_contract", "nso_report_status", "nso_report_result", "nso_report_questions"]) assert.ok(!names.includes(t), t);
  for (const t of ["nso_decide", "nso_handoff", "nso_decisions", "nso_claims", "nso_claim", "nso_release"]) assert.ok(names.includes(t), t);
});
