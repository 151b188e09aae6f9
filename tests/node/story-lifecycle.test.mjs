// A kord story through its lifecycle with `nso explain` (the README's walk-through): every
// allowed move is applied to the file before the next one, and two moves are refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { makeProject } from "./helpers.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const STORY = fs.readFileSync(new URL("../../crate/tests/fixtures/status/story_draft.md", import.meta.url), "utf8");
const FILE = "docs/kord/stories/s1.md";
const CONFIG = JSON.stringify({
  authority: {
    preset: "kord",
    rules: [{ id: "team.stories.edit", description: "the team moves stories with the edit tool",
      agents: ["po", "build", "dev", "dev-junior", "qa"], ops: ["write"], paths: ["docs/kord/**/stories/*.md"], effect: "allow" }],
  },
});

function move(dir, agent, from, to) {
  const args = JSON.stringify({ oldString: `status: ${from}`, newString: `status: ${to}` });
  const r = spawnSync(process.execPath, [CLI, "explain", "--agent", agent, "--tool", "edit", "--path", FILE, "--args", args, "--dir", dir], { encoding: "utf8" });
  if (r.status === 0) {
    const file = path.join(dir, FILE);
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(`status: ${from}`, `status: ${to}`));
  }
  return { code: r.status, out: r.stdout + r.stderr };
}

test("a story moves DRAFT → READY → IN_PROGRESS → REVIEW → DONE, with refused moves on the way", () => {
  const dir = makeProject({ ".opencode/nso.json": CONFIG, [FILE]: STORY });
  const file = path.join(dir, FILE);

  let r = move(dir, "dev", "DRAFT", "READY");
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /which only @sm or @po may do\. From DRAFT the legal next state is READY \(by @sm or @po\)/);
  assert.equal(move(dir, "sm", "DRAFT", "READY").code, 0);
  assert.equal(move(dir, "build", "READY", "IN_PROGRESS").code, 0);

  r = move(dir, "dev-junior", "IN_PROGRESS", "REVIEW");
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /`all_tasks_checked`: every checkbox in `## Tasks` is ticked/);
  fs.writeFileSync(file, fs.readFileSync(file, "utf8").replaceAll("- [ ]", "- [x]"));
  assert.equal(move(dir, "dev-junior", "IN_PROGRESS", "REVIEW").code, 0);

  r = move(dir, "dev-junior", "REVIEW", "DONE");
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /which only @qa may do\. From REVIEW the legal next states are DONE \(by @qa\), IN_PROGRESS \(by @qa\) and ABORTED \(by @qa\)/);

  fs.appendFileSync(file, "### Review 1 (2026-11-22)\n- Verdict: APPROVED\n");
  r = move(dir, "qa", "REVIEW", "DONE");
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /status check passes; REVIEW → DONE/);
  assert.match(fs.readFileSync(file, "utf8"), /status: DONE/);
});
