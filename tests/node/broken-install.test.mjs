// A copy of NSO without its npm dependencies (no `npm install` run): writes are refused, as
// they must be when claims cannot be recorded, and the refusal names the missing package and
// the command that installs it, never a wrong cause. Checked in a copy of the checkout without
// node_modules, in its own process (so nothing resolves the packages from elsewhere).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { missingPackage } from "../../plugin/dependencies.js";

const ROOT = new URL("../../", import.meta.url).pathname;

/** NSO's files as a package install has them (package.json's `files`), without node_modules. */
function bareCopy() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-bare-")));
  for (const part of ["package.json", "plugin", "bin", "pkg", "schema"]) fs.cpSync(path.join(ROOT, part), path.join(dir, "nso", part), { recursive: true });
  fs.mkdirSync(path.join(dir, "project/src"), { recursive: true });
  fs.mkdirSync(path.join(dir, "home"));
  return dir;
}

const SCRIPT = `
const { default: plugin } = await import(process.argv[1] + "/nso/plugin/nso-plugin.js");
const dir = process.argv[1] + "/project";
const hooks = await plugin.server({ directory: dir, worktree: dir });
await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_1", title: "t" } } } });
await hooks["chat.params"]({ sessionID: "ses_1", agent: "build", message: { agent: "build", role: "user" } }, {});
const out = {};
try {
  await hooks["tool.execute.before"]({ tool: "write", sessionID: "ses_1", callID: "c1" }, { args: { filePath: dir + "/src/a.js", content: "x" } });
  out.write = "allowed";
} catch (error) { out.write = error.message; }
try { out.decide = String(await hooks.tool.nso_decide.execute({ decision: "d", why: "w" }, { sessionID: "ses_1", agent: "build" })); }
catch (error) { out.decide = "threw: " + error.message; }
console.log(JSON.stringify(out));
`;

test("without its npm packages, a write is refused naming proper-lockfile and `npm install` in NSO's folder", () => {
  const dir = bareCopy();
  try {
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", SCRIPT, dir], {
      encoding: "utf8", cwd: path.join(dir, "project"), env: { ...process.env, CONDUCTOR_HOME: path.join(dir, "home"), NODE_PATH: "" }, timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split("\n").pop());
    assert.match(out.write, /^NSO blocked write/);
    assert.match(out.write, /the npm package proper-lockfile, which NSO needs, is not installed/);
    assert.ok(out.write.includes(`Fix: run \`npm install\` in ${path.join(dir, "nso")} (NSO's folder)`), out.write);
    assert.doesNotMatch(out.write, /CONDUCTOR_HOME|writable/);
    assert.match(out.decide, /proper-lockfile/);
    assert.match(out.decide, /npm install/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a missing package is told from other import failures", () => {
  const err = (message, code = "ERR_MODULE_NOT_FOUND") => Object.assign(new Error(message), { code });
  assert.equal(missingPackage(err("Cannot find package 'pg' imported from /x/pg-store.js")), "pg");
  assert.equal(missingPackage(err("Cannot find package '@scope/name' imported from /x")), "@scope/name");
  assert.equal(missingPackage(err("Cannot find module 'pg/lib/client'")), "pg");
  assert.equal(missingPackage(err("Cannot find module '/x/pg-store.js' imported from /x")), null, "NSO's own file: not a package");
  assert.equal(missingPackage(err("boom", "EACCES")), null);
});
