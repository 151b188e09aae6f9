// One verdict everywhere (issue 9, item 4): the CLI and the plugin decide the same agent and
// action the same way. One table of (agent, action) runs through `bin/nso.js` and through the
// plugin's hooks and tools, in projects under several policies; the verdicts (and refusal
// texts) must be identical.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawnSync } from "node:child_process";
import plugin from "../../plugin/nso-plugin.js";
import { before, chatParams, makeProject, sessionCreated } from "./helpers.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const fixture = (name) => fs.readFileSync(new URL(`../../crate/tests/fixtures/status/${name}`, import.meta.url), "utf8");
const NOW = "2026-01-04T09:15:00Z";

/** A ProofChecker-style project (TODO.md + state.json) under `config`. */
const project = (config) => makeProject({
  ".opencode/specs/TODO.md": fixture("TODO.md"),
  ".opencode/specs/state.json": fixture("state.json"),
  ...(config ? { ".opencode/nso.json": JSON.stringify(config) } : {}),
});

function cli(dir, ...args) {
  const r = spawnSync(process.execPath, [CLI, ...args, "--dir", dir], { encoding: "utf8", env: { ...process.env, NSO_SYNC_NOW: NOW } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The plugin's verdict on a status move by `agent`: through NSO's own tool, as in OpenCode. */
async function pluginMove(dir, agent, n, status) {
  const hooks = await plugin.server({ directory: dir, worktree: dir });
  const text = await hooks.tool.nso_status_set.execute({ task: n, status, artifacts: [] }, { sessionID: "ses_1", agent, directory: dir, worktree: dir });
  const refused = text.match(/^NSO nso_status_set refused for @\S+: ([\s\S]*) Nothing was written\.$/);
  return refused ? { allowed: false, why: refused[1] } : { allowed: true };
}

/** The CLI's verdict on the same move (`--agent NAME`, or `--as-user`). */
function cliMove(dir, agent, n, status) {
  const who = agent === "--as-user" ? ["--as-user"] : ["--agent", agent];
  const r = cli(dir, "status", "set", String(n), status, ...who);
  if (r.code === 0) return { allowed: true };
  assert.equal(r.code, 1, `a refusal, not a usage error: ${r.err}`);
  const why = r.err.split("\n").filter((l) => !l.startsWith("nso: acting for")).join("\n").trim();
  return { allowed: false, why: why.replace(/^nso status set: /, "") };
}

const POLICIES = {
  "default (nso preset)": undefined,
  "proofchecker preset": { authority: { preset: "proofchecker" } },
  "proofchecker, the person as planner": { authority: { preset: "proofchecker", agents: { user: { description: "the person at the keyboard", like: "planner" } } } },
};
const AGENTS = ["planner", "researcher", "implementer", "orchestrator", "build", "no-such-agent"];

test("status moves: the CLI and NSO's tool give one verdict for every agent and policy", async () => {
  let allowed = 0;
  let refused = 0;
  for (const [name, config] of Object.entries(POLICIES)) {
    for (const agent of [...AGENTS, "--as-user"]) {
      const pluginAgent = agent === "--as-user" ? "user" : agent;
      const viaPlugin = await pluginMove(project(config), pluginAgent, 258, "PLANNING");
      const viaCli = cliMove(project(config), agent, 258, "PLANNING");
      assert.deepEqual(viaCli, viaPlugin, `${name}, ${agent}`);
      if (viaPlugin.allowed) allowed++;
      else refused++;
    }
  }
  // The table exercises both outcomes (else it could not tell a difference).
  assert.ok(allowed >= 2 && refused >= 10, `allowed ${allowed}, refused ${refused}`);
});

test("the default preset refuses a ProofChecker role in the CLI as in OpenCode", () => {
  const r = cli(project(undefined), "status", "set", "258", "PLANNING", "--agent", "planner");
  assert.equal(r.code, 1);
  assert.match(r.err, /planner/);
});

test("--as-user says that it acts for the person, and is refused without a `user` agent", () => {
  const r = cli(project(undefined), "status", "set", "258", "PLANNING", "--as-user");
  assert.equal(r.code, 1);
  assert.match(r.err, /acting for the person at the keyboard/);
  const ok = cli(project(POLICIES["proofchecker, the person as planner"]), "status", "set", "258", "PLANNING", "--as-user");
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.err, /acting for the person at the keyboard/);
  assert.equal(cli(project(undefined), "status", "set", "258", "PLANNING").code, 2, "an identity is required");
});

test("tool calls: nso explain and the plugin's tool.execute.before give one verdict", async () => {
  const calls = [
    ["write", { filePath: "src/a.ts", content: "x" }],
    ["write", { filePath: ".opencode/specs/TODO.md", content: "x" }],
    ["edit", { filePath: "docs/plan.md", oldString: "", newString: "# Plan\n" }],
    ["bash", { command: "git push origin main" }],
    ["bash", { command: "cd src && rm -rf build" }],
    ["write", { filePath: "../outside.txt", content: "x" }],
  ];
  let differ = new Set();
  for (const [name, config] of Object.entries(POLICIES)) {
    const dir = project(config);
    const hooks = await plugin.server({ directory: dir, worktree: dir });
    await hooks.event(sessionCreated("ses_main"));
    for (const agent of AGENTS) {
      // Subagent sessions of one main session: one conductor instance, so their claims never
      // conflict with each other (claims are the subject of other tests).
      const sid = `ses_${agent}`;
      await hooks.event(sessionCreated(sid, { parentID: "ses_main", agent }));
      await hooks["chat.params"](...chatParams(sid, agent));
      for (const [tool, args] of calls) {
        const viaPlugin = await before(hooks, sid, tool, args);
        const r = cli(dir, "explain", "--agent", agent, "--tool", tool, "--args", JSON.stringify(args), "--json");
        assert.ok(r.code === 0 || r.code === 1, r.err);
        const decision = JSON.parse(r.out);
        const label = `${name}, @${agent}, ${tool} ${JSON.stringify(args)}`;
        assert.equal(viaPlugin === null ? "allow" : "block", decision.verdict === "block" ? "block" : "allow", `${label}: ${viaPlugin}`);
        // The subagents report to their caller; the CLI decides for no session, as for a
        // primary agent: the messages are the same up to whom to ask.
        const upToWhom = (m) => m.replace(/ If the work needs this, [^.]*\.$/, "");
        if (viaPlugin !== null) assert.equal(upToWhom(viaPlugin), upToWhom(decision.message), label);
        differ.add(decision.verdict === "block");
      }
    }
  }
  assert.equal(differ.size, 2, "the table has allows and blocks");
});
