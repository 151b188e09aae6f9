// `nso init opencode` and `nso doctor` when NSO is installed in the project's node_modules
// (`npm install -D <tarball>` copies it there; `npm install -D <folder>` links it). OpenCode
// installs a plugin named by package from the npm registry, where NSO is not published, so
// the entry must be a path; through node_modules, it stays right for everyone who installs
// the project's dependencies.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { makeProject } from "./helpers.mjs";

const NSO_ROOT = path.resolve(new URL("../..", import.meta.url).pathname);
const home = fs.mkdtempSync(path.join(os.tmpdir(), "nso-installed-home-"));
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", CONDUCTOR_HOME: path.join(home, "conductor"), XDG_CONFIG_HOME: path.join(home, "config") };
delete env.NSO_AGENT;

const ENTRY = "./node_modules/nso-opencode/plugin/nso-plugin.js";
const read = (dir, rel) => fs.readFileSync(path.join(dir, rel), "utf8");
const run = (dir, ...args) => {
  const r = spawnSync(process.execPath, [path.join(dir, "node_modules/nso-opencode/bin/nso.js"), ...args], { cwd: dir, env, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const checks = (r) => Object.fromEntries(JSON.parse(r.out).checks.map((c) => [c.name, c]));

/** A project with NSO copied into its node_modules, as a tarball installs it. */
function withCopy(files) {
  const dir = makeProject(files);
  const pkg = path.join(dir, "node_modules/nso-opencode");
  for (const part of ["bin", "plugin", "pkg", "schema", "package.json"]) fs.cpSync(path.join(NSO_ROOT, part), path.join(pkg, part), { recursive: true });
  // Its dependencies, as npm would have installed them.
  fs.symlinkSync(path.join(NSO_ROOT, "node_modules"), path.join(pkg, "node_modules"));
  return dir;
}

/** A project whose node_modules links to the checkout, as installing a folder does. */
function withLink(files) {
  const dir = makeProject(files);
  fs.mkdirSync(path.join(dir, "node_modules"));
  fs.symlinkSync(NSO_ROOT, path.join(dir, "node_modules/nso-opencode"));
  return dir;
}

for (const [kind, make] of [["copied (a tarball)", withCopy], ["linked (a folder)", withLink]]) {
  test(`NSO ${kind} into node_modules: init writes the path through node_modules, and doctor agrees`, () => {
    const dir = make({ "opencode.json": '{"model": "m"}' });
    const r = run(dir, "init", "opencode", "--preset", "nso");
    assert.equal(r.code, 0, r.err);
    const config = JSON.parse(read(dir, "opencode.json"));
    assert.deepEqual(config, { model: "m", plugin: [ENTRY] });
    assert.ok(fs.existsSync(path.resolve(dir, ENTRY)));
    const nsoJson = JSON.parse(read(dir, ".opencode/nso.json"));
    assert.equal(nsoJson.$schema, "../node_modules/nso-opencode/schema/nso.schema.json");
    assert.ok(fs.existsSync(path.resolve(dir, ".opencode", nsoJson.$schema)));

    const doctor = run(dir, "doctor", "--json");
    assert.equal(checks(doctor).plugin.status, "ok", checks(doctor).plugin.detail);
    assert.match(checks(doctor).plugin.detail, /opencode\.json loads \.\/node_modules\/nso-opencode\/plugin\/nso-plugin\.js/);
    assert.equal(doctor.code, 0, doctor.out);

    // Run again: the entry is there; nothing changes.
    const again = run(dir, "init", "opencode");
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /already loads NSO/);
    assert.deepEqual(JSON.parse(read(dir, "opencode.json")), config);
  });
}

test("an entry naming NSO by package fails the doctor, and init replaces it where it stands", () => {
  const dir = withCopy({
    "opencode.json": '{"plugin": ["opencode-wakatime", "nso-opencode@0.1.0", "./local.js"]}',
    ".opencode/nso.json": '{"authority": {"preset": "nso"}}',
  });
  const doctor = run(dir, "doctor", "--json");
  assert.equal(doctor.code, 1);
  assert.equal(checks(doctor).plugin.status, "fail");
  assert.match(checks(doctor).plugin.detail, /npm registry, where NSO is not published/);
  assert.match(checks(doctor).plugin.fix, /nso init opencode/);

  const r = run(dir, "init", "opencode");
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /replaced "nso-opencode@0\.1\.0" in the plugin list with "\.\/node_modules\/nso-opencode\/plugin\/nso-plugin\.js"/);
  assert.deepEqual(JSON.parse(read(dir, "opencode.json")).plugin, ["opencode-wakatime", ENTRY, "./local.js"]);
  assert.equal(run(dir, "doctor", "--json").code, 0);
});

test("NSO run from outside the project (a checkout not in its node_modules) still writes a relative path to it", () => {
  const dir = makeProject({});
  const r = spawnSync(process.execPath, [path.join(NSO_ROOT, "bin/nso.js"), "init", "opencode", "--preset", "nso"], { cwd: dir, env, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const [entry] = JSON.parse(read(dir, "opencode.json")).plugin;
  assert.equal(path.resolve(dir, entry), path.join(NSO_ROOT, "plugin/nso-plugin.js"));
  assert.ok(!entry.includes("node_modules"), entry);
});
