// `nso init opencode`, `nso enforce` and `nso doctor` on real project folders, as a newcomer
// runs them: a project with agents of its own, the files written (and not written), what each
// agent may do, and the doctor's verdict for a good setup and for each way it can be broken.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { makeProject } from "./helpers.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const NSO_ROOT = path.resolve(path.dirname(CLI), "..");
const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-doctor-home-"));
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", CONDUCTOR_HOME: path.join(home, "conductor"), XDG_CONFIG_HOME: path.join(home, "config") };
delete env.NSO_AGENT;

function run(cli, args, cwd) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, env, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const nso = (args, cwd) => run(CLI, args, cwd);
const read = (dir, rel) => fs.readFileSync(path.join(dir, rel), "utf8");

/** A project with three agents of its own: two in opencode.json, one in a Markdown file. */
const threeAgents = () => makeProject({
  "opencode.json": JSON.stringify({ agent: { architect: { mode: "primary" }, coder: {} } }),
  ".opencode/agent/reviewer.md": "---\ndescription: reviews changes\n---\nReview the diff.\n",
});

test("nso init opencode --dry-run shows both files and writes nothing", () => {
  const dir = threeAgents();
  const before = read(dir, "opencode.json");
  const r = nso(["init", "opencode", "--dry-run", "--preset", "kord"], dir);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /would write .*opencode\.json/);
  assert.match(r.out, /would write .*\.opencode\/nso\.json/);
  assert.equal(read(dir, "opencode.json"), before);
  assert.equal(fs.existsSync(path.join(dir, ".opencode/nso.json")), false);
});

test("nso init opencode: a relative entry, nso.json with its schema and preset in audit mode, each agent's rights, idempotent", () => {
  const dir = threeAgents();
  const r = nso(["init", "opencode", "--preset", "nso"], dir);
  assert.equal(r.code, 0, r.err);
  const config = JSON.parse(read(dir, "opencode.json"));
  const [entry] = config.plugin;
  assert.ok(!path.isAbsolute(entry), entry);
  assert.equal(path.resolve(dir, entry), path.join(NSO_ROOT, "plugin/nso-plugin.js"));
  assert.deepEqual(Object.keys(config.agent), ["architect", "coder"], "the user's keys are kept");
  const nsoJson = JSON.parse(read(dir, ".opencode/nso.json"));
  assert.deepEqual(nsoJson.authority, { preset: "nso", mode: "audit" });
  assert.equal(path.resolve(dir, ".opencode", nsoJson.$schema), path.join(NSO_ROOT, "schema/nso.schema.json"));
  // What each agent may do, as the core decides it: OpenCode's plan writes only plans.
  assert.match(r.out, /@plan: writes \.opencode\/plans\/plan\.md; runs npm test; not git commit -m wip/);
  assert.match(r.out, /@reviewer: /);
  assert.match(r.out, /nso enforce/);
  // The agents the preset does not know get the JSON to add.
  const unknown = /Agents the policy does not know \(NSO lets them read only\): (.*)\./.exec(r.out);
  if (unknown) assert.match(r.out, /"authority":\{"agents":\{/);
  for (const agent of ["architect", "coder", "reviewer"]) assert.ok(r.out.includes(`@${agent}`), agent);

  const opencodeBefore = read(dir, "opencode.json");
  const nsoBefore = read(dir, ".opencode/nso.json");
  const again = nso(["init", "opencode", "--preset", "kord"], dir);
  assert.equal(again.code, 0);
  assert.match(again.out, /already loads NSO/);
  assert.match(again.out, /exists; it was left as it is \(to change the preset, edit authority\.preset there\)/);
  assert.equal(read(dir, "opencode.json"), opencodeBefore);
  assert.equal(read(dir, ".opencode/nso.json"), nsoBefore);
  // --absolute when asked; an unknown preset is a usage error with the nearest name.
  const abs = threeAgents();
  assert.equal(nso(["init", "opencode", "--absolute", "--preset", "nso"], abs).code, 0);
  assert.equal(JSON.parse(read(abs, "opencode.json")).plugin[0], path.join(NSO_ROOT, "plugin/nso-plugin.js"));
  const typo = nso(["init", "opencode", "--preset", "krod"], threeAgents());
  assert.equal(typo.code, 2);
  assert.match(typo.err, /Did you mean "kord"\?/);
});

test("nso enforce switches audit to enforce (and --audit back), keeping every other key", () => {
  const dir = makeProject({ ".opencode/nso.json": '{"logDir": "logs", "authority": {"preset": "kord", "mode": "audit"}}' });
  const r = nso(["enforce"], dir);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(read(dir, ".opencode/nso.json")), { logDir: "logs", authority: { preset: "kord", mode: "enforce" } });
  assert.match(nso(["enforce"], dir).out, /already enforcing; nothing changed/);
  assert.equal(nso(["enforce", "--audit"], dir).code, 0);
  assert.equal(JSON.parse(read(dir, ".opencode/nso.json")).authority.mode, "audit");
  const none = makeProject();
  const missing = nso(["enforce"], none);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /nso init opencode/);
  const broken = makeProject({ ".opencode/nso.json": "{nope" });
  assert.equal(nso(["enforce"], broken).code, 1);
  assert.equal(read(broken, ".opencode/nso.json"), "{nope");
});

const checks = (r) => Object.fromEntries(JSON.parse(r.out).checks.map((c) => [c.name, c]));

test("nso doctor passes on a project set up by nso init opencode, with a self-test of one allowed and one refused call", () => {
  const dir = threeAgents();
  assert.equal(nso(["init", "opencode", "--preset", "kord"], dir).code, 0);
  const r = nso(["doctor", "--json"], dir);
  assert.equal(r.code, 0, r.out);
  const c = checks(r);
  assert.equal(JSON.parse(r.out).ok, true);
  for (const name of ["plugin", "config", "dependencies", "core", "self-test", "claim store", "recent"]) assert.equal(c[name].status, "ok", `${name}: ${c[name].detail}`);
  assert.match(c["self-test"].detail, /allowed: @\S+ .*; refused: @\S+ /);
  const text = nso(["doctor"], dir);
  assert.equal(text.code, 0);
  assert.match(text.out, /NSO is set up for this project\./);
});

test("nso doctor fails, naming the fix, without a plugin entry, with a broken config, without dependencies, with an unreachable PostgreSQL store", () => {
  const noPlugin = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "kord"}}' });
  let r = nso(["doctor", "--json"], noPlugin);
  assert.equal(r.code, 1);
  assert.equal(checks(r).plugin.status, "fail");
  assert.match(checks(r).plugin.fix, /nso init opencode/);

  const broken = threeAgents();
  nso(["init", "opencode"], broken);
  fs.writeFileSync(path.join(broken, ".opencode/nso.json"), '{"memory": {"enabled": 1}, "authority": {"preset": "kord", "rules": [{"id": "x"}]}}');
  r = nso(["doctor", "--json"], broken);
  assert.equal(r.code, 1);
  assert.equal(checks(r).config.status, "fail");
  assert.match(checks(r).config.detail, /2 problem\(s\)/);
  assert.match(checks(r).config.detail, /memory\.enabled/);
  assert.match(checks(r).config.detail, /authority\.rules\[0\]/);

  // A copy of NSO without its node_modules.
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), "nso-copy-"));
  for (const part of ["bin", "plugin", "pkg", "schema", "package.json"]) fs.cpSync(path.join(NSO_ROOT, part), path.join(copy, part), { recursive: true });
  const project = threeAgents();
  nso(["init", "opencode"], project);
  r = run(path.join(copy, "bin/nso.js"), ["doctor", "--json"], project);
  assert.equal(r.code, 1, r.err);
  assert.equal(checks(r).dependencies.status, "fail");
  assert.match(checks(r).dependencies.detail, /proper-lockfile/);
  assert.match(checks(r).dependencies.fix, /npm install/);

  const pg = threeAgents();
  nso(["init", "opencode"], pg);
  fs.writeFileSync(path.join(pg, ".opencode/nso.json"), JSON.stringify({ authority: { preset: "kord" }, conductor: { store: { type: "postgres", url: "postgres://nso@127.0.0.1:9/nso" } } }));
  r = nso(["doctor", "--json"], pg);
  assert.equal(r.code, 1);
  assert.equal(checks(r)["claim store"].status, "fail");
  assert.match(checks(r)["claim store"].detail, /ECONNREFUSED|cannot be used/);
  assert.match(checks(r)["claim store"].fix, /database server/);
});
