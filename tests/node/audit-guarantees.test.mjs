// Audit mode relaxes the policy, not NSO's guarantees: the decision ledger stays append-only,
// NSO's own config stays protected and status files change only through the sync, while every
// other refusal is let through and recorded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createNso } from "../../plugin/nso.js";
import { makeProject, readIf } from "./helpers.mjs";

const LEDGER = ".opencode/context/decisions.md";
const LEDGER_TEXT = "# Decisions\n\n## D-0001 · keep the ledger\n";

/** A call through the instance: null when it runs, else NSO's message. */
const call = (nso, session, tool, args) =>
  nso.beforeTool({ tool, sessionID: session, callID: "c" }, { args }).then(() => null, (error) => error.message);

for (const [preset, agent] of [["nso", "build"], ["kord", "dev"], ["proofchecker", "implementer"]]) {
  test(`${preset} in audit mode: the ledger, NSO's config and (proofchecker) the status files still refuse; the rest runs and is recorded`, async () => {
    const dir = makeProject({
      ".opencode/nso.json": JSON.stringify({ authority: { preset, mode: "audit" }, conductor: { mode: "off" } }),
      [LEDGER]: LEDGER_TEXT,
      ".opencode/specs/TODO.md": "# TODO\n",
    });
    const nso = createNso({ directory: dir, worktree: dir });
    nso.noteAgent("ses_1", agent);
    nso.noteAgent("ses_2", "explore");
    assert.match(await call(nso, "ses_1", "bash", { command: `echo x > ${LEDGER}` }) ?? "", /append-only|nso_decide/);
    assert.match(await call(nso, "ses_1", "write", { filePath: LEDGER, content: "gone\n" }) ?? "", /append-only|nso_decide/);
    assert.match(await call(nso, "ses_1", "write", { filePath: ".opencode/nso.json", content: "{}" }) ?? "", /changed by the person only/);
    if (preset === "proofchecker") {
      assert.match(await call(nso, "ses_1", "edit", { filePath: ".opencode/specs/TODO.md", oldString: "# TODO", newString: "# X" }) ?? "",
        /atomic status sync/);
    }
    // An append is no rewrite: it runs.
    assert.equal(await call(nso, "ses_1", "bash", { command: `echo '- note' >> ${LEDGER}` }), null);
    // A refusal of the policy itself runs in audit mode, and is recorded.
    assert.equal(await call(nso, "ses_2", "write", { filePath: "src/app.ts", content: "x" }), null);
    await new Promise((resolve) => setTimeout(resolve, 250)); // the logs' timer
    const audit = (readIf(dir, ".opencode/logs/audit.jsonl") ?? "").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
    assert.ok(audit.some((r) => r.agent === "explore" && r.target === "src/app.ts"), JSON.stringify(audit));
  });
}
