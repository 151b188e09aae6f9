// Tests of `nso explain` / `nso check` (bin/nso.js) over the real wasm core.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { makeProject } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const KORD = JSON.parse(fs.readFileSync(new URL("../../crate/presets/kord.json", import.meta.url), "utf8"));

function nso(...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// A kord project whose OpenCode agents are kord's (refusals suggest only the project's agents).
const kordProject = () => makeProject({
  ".opencode/nso.json": '{"authority": {"preset": "kord"}}',
  "opencode.json": JSON.stringify({ agent: Object.fromEntries(Object.keys(KORD.agents).map((a) => [a, {}])) }),
});

test("explain: a bash push by @dev is blocked by kord.git.push, with who may and what instead", () => {
  const dir = kordProject();
  const r = nso("explain", "--agent", "dev", "--command", "cd sub && git push origin main", "--dir", dir);
  assert.equal(r.code, 1, r.err);
  assert.match(r.out, /decision: block by kord\.git\.push \(preset kord\)/);
  assert.match(r.out, /NSO blocked bash for @dev: "git push origin main" is a push\./);
  assert.match(r.out, /Who may: @devops\./);
  // A project without a devops agent: nobody of the project is suggested.
  const lean = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}' });
  assert.match(nso("explain", "--agent", "dev", "--command", "git push origin main", "--dir", lean).out, /Who may: no agent of this project\./);
  const ok = nso("explain", "--agent", "devops", "--command", "git push origin main", "--dir", dir);
  assert.equal(ok.code, 0, ok.out);
  assert.match(ok.out, /decision: allow/);
});

test("explain --json gives the decision as data", () => {
  const dir = kordProject();
  const r = nso("explain", "--agent", "plan", "--path", "src/a.ts", "--dir", dir, "--json");
  assert.equal(r.code, 1);
  const d = JSON.parse(r.out);
  assert.equal(d.verdict, "block");
  assert.equal(d.ruleId, "kord.plan.md_only"); // the planner writes Markdown only
  assert.equal(d.agent, "plan");
  // src/a.ts does not exist: a create, as the plugin (which checks existence first) says too.
  assert.deepEqual(d.operations.map((o) => [o.op, o.target]), [["create", "src/a.ts"]]);
});

test("explain and check report usage and config errors with exit status 2 / 1", () => {
  assert.equal(nso("explain", "--command", "ls").code, 2);
  assert.match(nso("explain", "--agent").err, /--agent needs a value/);
  assert.equal(nso("frobnicate").code, 2);
  const bad = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord", "rules": [{"id": "x", "effect": "allow"}]}, "memory": {}}' });
  const r = nso("check", "--dir", bad);
  assert.equal(r.code, 1);
  assert.match(r.out, /\.opencode\/nso\.json: authority\.rules\[0\]/);
  assert.match(r.out, /Fix: /);
  assert.equal(nso("explain", "--agent", "dev", "--path", "a", "--dir", bad).code, 2);
  const good = kordProject();
  assert.equal(nso("check", "--dir", good).code, 0);
});

// Every agent of the kord preset x every area of its matrix x read/write/create/delete, and
// every git operation: explain answers each cell, and its text names the rule that decided.
test("explain answers for every cell of the kord matrix", () => {
  const core = require("../../pkg/nso.js");
  const nsoCore = new core.Nso(".opencode/nso.json", '{"authority": {"preset": "kord"}}');
  const areas = [
    "src/app.ts", ".github/workflows/ci.yml", "Dockerfile", "docker-compose.yml", "db/migrations/001.sql",
    "supabase/seed.sql", "web/styles/site.css", "web/components/Button.tsx",
    "docs/kord/plans/p1.md", "docs/kord/plans/p1/drafts/d.md", "docs/kord/plans/p1/stories/s1.md",
    "docs/kord/adrs/001.md", "docs/kord/notepads/p1/learn.md", "docs/kord/runs/p1/log.md",
    "docs/kord/architecture/overview.md",
  ];
  const tools = { read: ["read", {}], write: ["edit", { oldString: "a", newString: "b" }], create: ["write", { content: "x" }], delete: ["apply_patch"] };
  let cells = 0;
  for (const agent of Object.keys(KORD.agents)) {
    for (const area of areas) {
      for (const [op, [tool, extra]] of Object.entries(tools)) {
        const args = tool === "apply_patch" ? { patchText: `*** Begin Patch\n*** Delete File: ${area}\n*** End Patch` } : { filePath: area, ...extra };
        const facts = { realPath: (abs) => [abs, op !== "create"], read: () => undefined };
        const { decision, text } = nsoCore.explainCall("s", agent, tool, args, facts, { directory: "/p", worktree: "/p" });
        assert.match(text, new RegExp(`decision: ${decision.verdict} by ${decision.ruleId.replaceAll(".", "\\.")}`), `${agent} ${op} ${area}`);
        cells++;
      }
    }
    for (const git of ["add .", "commit -m x", "push origin main", "checkout -b feat", "merge main", "rebase main"]) {
      const facts = { realPath: (abs) => [abs, true], read: () => undefined };
      const { decision, text } = nsoCore.explainCall("s", agent, "bash", { command: `git ${git}` }, facts, { directory: "/p", worktree: "/p" });
      assert.match(text, /decision: (allow|block)/, `${agent} git ${git}`);
      assert.ok(decision.ruleId, `${agent} git ${git}`);
      cells++;
    }
  }
  assert.ok(cells > 1300, `${cells} cells`);
});

test("route: command x language from the command frontmatter, language by precedence", () => {
  const fixture = (name) => fs.readFileSync(new URL(`../../crate/tests/fixtures/${name}`, import.meta.url), "utf8");
  const dir = makeProject({
    ".opencode/command/research.md": fixture("seed_command_research.md"),
    ".opencode/specs/TODO.md": "### 258. Resolve sorries\n- **Language**: lean\n\n### 300. Docs\n- **Status**: [NOT STARTED]\n",
    ".opencode/specs/259_tooling/state.json": '{"project_number": 259, "language": "python"}',
    ".opencode/specs/TODO.md.bak": "",
  });
  const lean = nso("route", "--command", "/research", "--task", "258", "--dir", dir);
  assert.equal(lean.code, 0, lean.err);
  assert.match(lean.out, /language lean \(from todo_md\)/);
  assert.match(lean.out, /agent: @lean-research-agent/);
  const py = JSON.parse(nso("route", "--command", "/research", "--task", "259", "--dir", dir, "--json").out);
  assert.deepEqual([py.language.language, py.language.source, py.route.agent], ["python", "state_json", "researcher"]);
  const general = nso("route", "--command", "research", "--task", "300", "--dir", dir);
  assert.match(general.out, /language general/);
  assert.match(general.out, /agent: @researcher/);
  const none = nso("route", "--command", "/deploy", "--task", "258", "--dir", dir);
  assert.equal(none.code, 1);
  assert.match(none.out, /no agent/);
  assert.equal(nso("route", "--command", "/research").code, 2);
  // The same answer through `nso explain`.
  const viaExplain = nso("explain", "--command", "/research", "--task", "258", "--dir", dir);
  assert.equal(viaExplain.code, 0, viaExplain.err);
  assert.equal(viaExplain.out, lean.out);
});

test("status check: consistent files pass; a disagreement names file, line and both values", () => {
  const fixture = (name) => fs.readFileSync(new URL(`../../crate/tests/fixtures/status/${name}`, import.meta.url), "utf8");
  const dir = makeProject({ ".opencode/specs/TODO.md": fixture("TODO.md"), ".opencode/specs/state.json": fixture("state.json") });
  const ok = nso("status", "check", "--dir", dir);
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /^consistent: /m);
  const todo = path.join(dir, ".opencode/specs/TODO.md");
  fs.writeFileSync(todo, fs.readFileSync(todo, "utf8").replace("[NOT STARTED]", "[PLANNED]"));
  const bad = nso("status", "check", "--dir", dir, "--json");
  assert.equal(bad.code, 1);
  const [d] = JSON.parse(bad.out);
  assert.equal(d.code, "status_mismatch");
  assert.equal(d.file, ".opencode/specs/TODO.md");
  assert.deepEqual([d.task, d.field, d.todo_value, d.state_value, d.other_file], [259, "status", "PLANNED", "not_started", ".opencode/specs/state.json"]);
  assert.equal(fs.readFileSync(todo, "utf8").split("\n")[d.line - 1].includes("[PLANNED]"), true, `line ${d.line}`);
  assert.equal(nso("status", "check", "--dir", makeProject()).code, 2);
});

test("the shipped examples/nso.json (the README's complete example) is valid", () => {
  const dir = makeProject({ ".opencode/nso.json": fs.readFileSync(new URL("../../examples/nso.json", import.meta.url), "utf8") });
  const r = nso("check", "--dir", dir);
  assert.equal(r.code, 0, r.out);
  const push = nso("explain", "--agent", "release-bot", "--command", "git push origin main", "--dir", dir);
  assert.equal(push.code, 0, push.out);
  const secrets = nso("explain", "--agent", "dev", "--tool", "read", "--path", ".env", "--dir", dir);
  assert.equal(secrets.code, 1);
  assert.match(secrets.out, /acme\.secrets\.read/);
});

test("check validates the status section too", () => {
  const dir = makeProject({ ".opencode/nso.json": JSON.stringify({ status: { defaults: ["nso-tasks"] } }) });
  const r = nso("check", "--dir", dir);
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /status\.defaults\[0\]: .*nso-tasks/);
  assert.match(r.out, /Fix: /);
});
