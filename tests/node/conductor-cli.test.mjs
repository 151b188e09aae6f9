// `nso conductor ...` (bin/conductor-cli.js through bin/nso.js), as a person or an agent in a
// shell runs it: the round trip with --json, the table, the seed's JSON on stdin, force.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { detectSource, parseConductorArgs, statusTable } from "../../bin/conductor-cli.js";
import { jsonLines } from "./conductor/spawn.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const SOURCE_VARS = ["OPENCODE", "OPENCODE_PID", "CURSOR_SESSION", "VSCODE_GIT_IPC_HANDLE", "TERM_PROGRAM", "CLAUDE_COWORK_SESSION", "CONDUCTOR_INSTANCE"];

/** A project folder with src/api/users.ts and src/lib/auth.ts, and a conductor home. */
function setup() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-conductor-cli-")));
  const project = path.join(dir, "pitchello");
  fs.mkdirSync(path.join(project, "src/api"), { recursive: true });
  fs.mkdirSync(path.join(project, "src/lib"), { recursive: true });
  fs.writeFileSync(path.join(project, "src/api/users.ts"), "");
  fs.writeFileSync(path.join(project, "src/lib/auth.ts"), "");
  const env = { ...process.env, CONDUCTOR_HOME: path.join(dir, "home") };
  for (const name of SOURCE_VARS) delete env[name];
  const nso = (args, { input, extraEnv } = {}) => {
    const r = spawnSync(process.execPath, [CLI, "conductor", ...args], { cwd: project, env: { ...env, ...extraEnv }, input, encoding: "utf8" });
    return { code: r.status, out: r.stdout, err: r.stderr, json: () => JSON.parse(r.stdout) };
  };
  return { dir, project, home: env.CONDUCTOR_HOME, nso };
}

test("start / claim / status / release / done round trip with --json, and the exit codes", () => {
  const { project, home, nso } = setup();
  const start = nso(["start", "--task", "Fix authentication bug", "--priority", "P1", "--agent", "dev", "--json"]);
  assert.equal(start.code, 0, start.err);
  const id = start.json().instance_id;
  assert.match(id, /^web-[a-z0-9]{6}$/);
  const other = nso(["start", "--task", "Refactor user service", "--priority", "P1", "--json"]).json().instance_id;

  const claim = nso(["claim", "src/api/users.ts", "--file", "src/lib", "--instance", id, "--json"]);
  assert.equal(claim.code, 0, claim.err);
  assert.deepEqual(claim.json(), {
    status: "ok", claimed: [`${project}/src/api/users.ts`, `${project}/src/lib/**`], message: claim.json().message,
  });

  const conflict = nso(["claim", "--files", "src/**/*.ts", "README.md", "--instance", other, "--json"]);
  assert.equal(conflict.code, 1);
  const c = conflict.json();
  assert.equal(c.status, "conflict");
  assert.deepEqual(c.claimed, [], "all or nothing");
  assert.deepEqual(c.conflicts.map((x) => [x.file, x.held_by, x.pattern]).sort(),
    [[`${project}/src/**/*.ts`, id, `${project}/src/api/users.ts`], [`${project}/src/**/*.ts`, id, `${project}/src/lib/**`]]);

  const status = nso(["status", "--json"]);
  assert.equal(status.code, 0);
  const mine = status.json().instances.find((i) => i.id === id);
  assert.deepEqual([mine.project, mine.project_root, mine.agent, mine.alive, mine.files_claimed],
    ["pitchello", project, "dev", true, [`${project}/src/api/users.ts`, `${project}/src/lib/**`]]);

  const release = nso(["release", "src/lib/", "--instance", id, "--reason", "not needed", "--json"]);
  assert.equal(release.code, 0, release.err);
  assert.deepEqual(release.json().released, [`${project}/src/lib/**`]);
  const done = nso(["done", "--outcome", "success", "--files", "src/api/users.ts", "--json"], { extraEnv: { CONDUCTOR_INSTANCE: id } });
  assert.equal(done.code, 0, done.err);
  const [line] = jsonLines(path.join(home, "history.jsonl"));
  assert.deepEqual([line.id, line.outcome, line.task, line.files_modified], [id, "success", "Fix authentication bug", [`${project}/src/api/users.ts`]]);
  const state = JSON.parse(fs.readFileSync(path.join(home, "status.json"), "utf8"));
  assert.deepEqual(state.instances.map((i) => i.id), [other]);
  assert.deepEqual(state.global_claims, {});

  assert.equal(nso(["heartbeat", "--instance", id, "--json"]).code, 2, "a finished instance is unknown");
  assert.equal(nso(["heartbeat", "--instance", other]).code, 0);
});

test("status prints a table: every instance with project, task, priority, agent, age, heartbeat, alive, claims", () => {
  const { nso } = setup();
  const id = nso(["start", "--task", "Fix authentication bug", "--priority", "P1", "--agent", "dev", "--json"]).json().instance_id;
  nso(["claim", "src/api/users.ts", "src/lib", "--instance", id]);
  nso(["start", "--task", "Docs", "--priority", "P3", "--project", "site"]);
  const r = nso(["status"]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trimEnd().split("\n");
  assert.match(lines[0], /^INSTANCE\s+PROJECT\s+TASK\s+PRI\s+AGENT\s+AGE\s+HEARTBEAT\s+ALIVE\s+CLAIMS$/);
  assert.match(lines[1], new RegExp(`^${id}\\s+pitchello\\s+Fix authentication bug\\s+P1\\s+dev\\s+0m\\s+\\d+s ago\\s+alive\\s+src/api/users\\.ts, src/lib/\\*\\*$`));
  assert.match(lines[2], /^web-[a-z0-9]{6}\s+site\s+Docs\s+P3\s+-\s+0m\s+\d+s ago\s+alive\s+-$/);
  assert.equal(lines[3], "2 instance(s), 2 claim(s), oldest 0m");
  assert.equal(statusTable({ instances: [] }), "no instances registered");
});

test("--json-in takes the seed's JSON operations on stdin", () => {
  const { project, home, nso } = setup();
  const seedStart = { operation: "start", task: "Fix authentication bug", project: "pitchello", priority: "P1", working_directory: project };
  const start = nso(["--json-in", "--json"], { input: JSON.stringify(seedStart) });
  assert.equal(start.code, 0, start.err);
  const id = start.json().instance_id;
  const seedClaim = { operation: "claim", instance_id: id, files: ["src/api/users.ts", "src/lib/auth.ts"] };
  const claim = nso(["claim", "--json-in", "--json"], { input: JSON.stringify(seedClaim) });
  assert.equal(claim.code, 0, claim.err);
  assert.deepEqual(claim.json().claimed, [`${project}/src/api/users.ts`, `${project}/src/lib/auth.ts`]);
  const release = nso(["--json-in"], { input: JSON.stringify({ operation: "release", instance_id: id, all: true, reason: "Switching to higher priority task" }) });
  assert.equal(release.code, 0, release.err);
  assert.match(release.out, /released: /);
  const status = nso(["--json-in", "--json"], { input: '{"operation": "status"}' });
  assert.equal(status.json().instances[0].task, "Fix authentication bug");
  assert.equal(nso(["--json-in"], { input: '{"operation": "cleanup", "max_age_minutes": 60}' }).code, 0);
  assert.equal(nso(["claim", "--json-in"], { input: '{"operation": "done", "instance_id": "x"}' }).code, 2, "the command and the JSON disagree");
  assert.match(nso(["--json-in"], { input: "not json" }).err, /stdin is not JSON/);
  assert.ok(fs.existsSync(path.join(home, "status.json")));
});

test("claim --force takes a claim over and logs FORCE in conflicts.log; the priority gate blocks with exit 1", () => {
  const { project, home, nso } = setup();
  const holder = nso(["start", "--task", "Refactor user service", "--priority", "P1", "--json"]).json().instance_id;
  nso(["claim", "src/api", "--instance", holder]);
  const me = nso(["start", "--task", "Fix authentication bug", "--priority", "P1", "--json"]).json().instance_id;
  const forced = nso(["claim", "src/api/users.ts", "--instance", me, "--force", "Talked to other instance, taking over"]);
  assert.equal(forced.code, 0, forced.err);
  assert.match(forced.out, new RegExp(`took ${project}/src/api/\\*\\* from ${holder}`));
  const log = fs.readFileSync(path.join(home, "conflicts.log"), "utf8");
  assert.match(log, new RegExp(`^\\S+ \\| FORCE \\| ${os.userInfo().username} \\(${me}\\) took ${project}/src/api/\\*\\* from ${holder} to claim ${project}/src/api/users\\.ts: Talked to other instance, taking over$`, "m"));
  const state = JSON.parse(fs.readFileSync(path.join(home, "status.json"), "utf8"));
  assert.deepEqual(state.global_claims, { [`${project}/src/api/users.ts`]: me });
  assert.equal(state.instances.find((i) => i.id === holder).forced[0].justification, "Talked to other instance, taking over");

  fs.writeFileSync(path.join(home, "sprint.json"), JSON.stringify({ sprint_name: "2026-W03", focus: "P1", priorities: [], explicitly_deferred: [] }));
  const blocked = nso(["start", "--task", "Docs", "--priority", "P3", "--json"]);
  assert.equal(blocked.code, 1);
  assert.equal(blocked.json().reason, "priority_gate");
  const overridden = nso(["start", "--task", "Docs", "--priority", "P3", "--override", "the release needs it", "--json"]);
  assert.equal(overridden.code, 0, overridden.err);
  assert.match(fs.readFileSync(path.join(home, "conflicts.log"), "utf8"), /\| OVERRIDE \|/);
});

test("usage and store errors exit 2 with what and how; a corrupt state is recovered loudly", () => {
  const { dir, home, nso } = setup();
  assert.equal(nso(["frobnicate"]).code, 2);
  assert.match(nso(["claim", "a.ts"]).err, /claim needs --instance ID \(or \$CONDUCTOR_INSTANCE\)/);
  assert.match(nso(["start", "--task", "x"]).err, /start needs --task and --priority/);
  assert.match(nso(["cleanup", "--max-age-minutes", "soon"]).err, /--max-age-minutes needs a whole number/);
  const file = path.join(dir, "not-a-folder");
  fs.writeFileSync(file, "");
  const bad = nso(["status", "--json", "--home", file]);
  assert.equal(bad.code, 2);
  assert.equal(bad.json().error.code, "conductor_home");
  assert.match(bad.err, /is not a folder; the conductor cannot record claims there\.\nFix: Make .* or set CONDUCTOR_HOME to one\. \[conductor_home\]/);

  nso(["start", "--task", "a", "--priority", "P1"]);
  fs.writeFileSync(path.join(home, "status.json"), "{broken");
  const r = nso(["status", "--json"]);
  assert.equal(r.code, 0);
  assert.match(r.err, /^nso conductor: RECOVERED: the conductor state .*status\.json could not be read/);
  assert.equal(r.json().recovered.code, "state_recovered");
});

test("inside OpenCode (OPENCODE, OPENCODE_PID): source opc, and the instance lives as long as that process", async () => {
  const { project, home, nso } = setup();
  const opencode = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
  await new Promise((r) => opencode.once("spawn", r));
  const extraEnv = { OPENCODE: "1", OPENCODE_PID: String(opencode.pid) };
  const agent = nso(["start", "--task", "agent task", "--priority", "P1", "--json"], { extraEnv }).json().instance_id;
  assert.match(agent, /^opc-[a-z0-9]{6}$/);
  const recorded = JSON.parse(fs.readFileSync(path.join(home, "status.json"), "utf8")).instances[0];
  assert.equal(recorded.pid, opencode.pid);
  assert.match(recorded.process_started, /^\d+@/);
  assert.equal(nso(["claim", "src/api/users.ts", "--instance", agent]).code, 0);
  const me = nso(["start", "--task", "mine", "--priority", "P1", "--json"]).json().instance_id;
  assert.equal(nso(["claim", "src/api", "--instance", me]).code, 1, "held while OpenCode runs");
  opencode.kill("SIGKILL");
  await new Promise((r) => opencode.once("exit", r));
  const after = nso(["claim", "src/api", "--instance", me, "--json"]);
  assert.equal(after.code, 0, after.out);
  assert.deepEqual(after.json().claimed, [`${project}/src/api/**`]);
  assert.equal(jsonLines(path.join(home, "history.jsonl"))[0].outcome, "orphaned");
});

test("source detection follows the seed, with OpenCode first; argument parsing", () => {
  assert.equal(detectSource({}), "web");
  assert.equal(detectSource({ CURSOR_SESSION: "1", VSCODE_GIT_IPC_HANDLE: "x" }), "cur");
  assert.equal(detectSource({ VSCODE_GIT_IPC_HANDLE: "x", TERM_PROGRAM: "iTerm.app" }), "vsc");
  assert.equal(detectSource({ TERM_PROGRAM: "iTerm.app" }), "itm");
  assert.equal(detectSource({ CLAUDE_COWORK_SESSION: "1" }), "cow");
  assert.equal(detectSource({ OPENCODE: "1", VSCODE_GIT_IPC_HANDLE: "x" }), "opc");
  assert.equal(detectSource({ OPENCODE_PID: "42" }), "opc");
  const opts = parseConductorArgs(["claim", "a", "--files", "b", "c", "--force", "why", "--file", "d", "--max-age-minutes", "5"]);
  assert.deepEqual([opts.op, opts.paths, opts.files, opts.force, opts.maxAgeMinutes], ["claim", ["a"], ["b", "c", "d"], "why", "5"]);
});

test("the CLI judges other machines' instances by the project's conductor.ttlSeconds (600 s without one), as the windows do", async () => {
  const { runConductor, isoSeconds } = await import("../../plugin/conductor/store.js");
  const { project, home, nso } = setup();
  /** An instance of another machine whose last heartbeat was `ageSeconds` ago, holding users.ts. */
  const deadElsewhere = async (ageSeconds) => {
    const now = isoSeconds(new Date(Date.now() - ageSeconds * 1000));
    const common = { home, now, host: "other-machine", ttlSeconds: 100_000 };
    const id = (await runConductor({ ...common, op: { operation: "start", task: "elsewhere", priority: "P1", working_directory: project, project_root: project, source: "web" } })).result.instance_id;
    assert.equal((await runConductor({ ...common, op: { operation: "claim", instance_id: id, files: [`${project}/src/api/users.ts`] } })).result.status, "ok");
    return id;
  };
  const me = nso(["start", "--task", "here", "--priority", "P1", "--json"]).json().instance_id;
  // No config: the windows' default of 600 s, not the seed's hour.
  const old = await deadElsewhere(11 * 60);
  const freed = nso(["claim", "src/api/users.ts", "--instance", me, "--json"]);
  assert.equal(freed.code, 0, freed.out);
  assert.ok(!nso(["status", "--json"]).json().instances.some((i) => i.id === old));
  assert.equal(nso(["release", "--all", "--instance", me]).code, 0);
  // ttlSeconds 10: a heartbeat 12 s old no longer holds anything.
  fs.mkdirSync(path.join(project, ".opencode"), { recursive: true });
  fs.writeFileSync(path.join(project, ".opencode/nso.json"), JSON.stringify({ conductor: { ttlSeconds: 10 } }));
  await deadElsewhere(12);
  const claim = nso(["claim", "src/api/users.ts", "--instance", me, "--json"]);
  assert.equal(claim.code, 0, claim.out);
  assert.equal(claim.json().status, "ok");
});
