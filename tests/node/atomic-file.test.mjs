// plugin/atomic-file.js: files replaced whole, their modes, symlinks, and what a kill leaves.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { replaceFile } from "../../plugin/atomic-file.js";

const MODULE = fileURLToPath(new URL("../../plugin/atomic-file.js", import.meta.url));
const scratch = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-atomic-")));
const temps = (dir) => fs.readdirSync(dir).filter((name) => name.includes(".nso-tmp-"));

test("a file is replaced whole, its folders made; a failed replace leaves no temp file and the old bytes", () => {
  const dir = scratch();
  const file = path.join(dir, "a/b/notes.md");
  replaceFile(file, "one\n");
  replaceFile(file, "two\n");
  assert.equal(fs.readFileSync(file, "utf8"), "two\n");
  assert.deepEqual(temps(path.dirname(file)), []);
  // A folder where the file should go: the rename fails, the temp goes, the folder stays.
  const blocked = path.join(dir, "blocked");
  fs.mkdirSync(path.join(blocked, "inside"), { recursive: true });
  assert.throws(() => replaceFile(blocked, "x"), /EISDIR|ENOTEMPTY|EEXIST/);
  assert.deepEqual(temps(dir), []);
  assert.ok(fs.statSync(path.join(blocked, "inside")).isDirectory());
});

test("modes: set exactly whatever the umask, or an existing file's kept", () => {
  const dir = scratch();
  const secret = path.join(dir, "status.json");
  const umask = process.umask(0o077);
  try {
    replaceFile(path.join(dir, "plain.txt"), "x");
    assert.equal(fs.statSync(path.join(dir, "plain.txt")).mode & 0o777, 0o600, "the umask applies by default");
  } finally {
    process.umask(umask);
  }
  replaceFile(secret, "{}", { mode: 0o600 });
  assert.equal(fs.statSync(secret).mode & 0o777, 0o600);
  const script = path.join(dir, "hook");
  replaceFile(script, "#!/bin/sh\n", { mode: 0o644, keepMode: true });
  assert.equal(fs.statSync(script).mode & 0o777, 0o644, "new: the given mode");
  fs.chmodSync(script, 0o750);
  replaceFile(script, "#!/bin/sh\nexit 0\n", { mode: 0o644, keepMode: true });
  assert.equal(fs.statSync(script).mode & 0o777, 0o750, "existing: its own mode kept");
});

test("a symlink is replaced by the file, unless the caller follows it on purpose", () => {
  const dir = scratch();
  const outside = scratch();
  const victim = path.join(outside, "victim.txt");
  fs.writeFileSync(victim, "keep\n");
  const planted = path.join(dir, "latest.md");
  fs.symlinkSync(victim, planted);
  replaceFile(planted, "handoff\n");
  assert.equal(fs.readFileSync(victim, "utf8"), "keep\n", "the link's target untouched");
  assert.ok(!fs.lstatSync(planted).isSymbolicLink());
  assert.equal(fs.readFileSync(planted, "utf8"), "handoff\n");
  const dotfile = path.join(dir, "settings.json");
  fs.symlinkSync(victim, dotfile);
  replaceFile(dotfile, "{}\n", { followLink: true });
  assert.ok(fs.lstatSync(dotfile).isSymbolicLink(), "the link stays");
  assert.equal(fs.readFileSync(victim, "utf8"), "{}\n", "its target replaced");
});

test("killed while replacing, again and again: the file always holds one whole version", async () => {
  const dir = scratch();
  const file = path.join(dir, "state.json");
  const versions = ["a", "b"].map((c) => c.repeat(4 << 20));
  fs.writeFileSync(file, versions[0]);
  const writer = `
    import { replaceFile } from ${JSON.stringify(MODULE)};
    const versions = ["a", "b"].map((c) => c.repeat(4 << 20));
    process.stdout.write("ready\\n");
    for (let i = 1; ; i++) replaceFile(${JSON.stringify(file)}, versions[i % 2]);
  `;
  for (let round = 0; round < 8; round++) {
    const child = spawn(process.execPath, ["--input-type=module", "-e", writer], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise((resolve) => child.stdout.once("data", resolve));
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(Math.random() * 60)));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    const text = fs.readFileSync(file, "utf8");
    assert.ok(text === versions[0] || text === versions[1], `round ${round}: ${text.length} bytes, not one whole version`);
  }
  // What a kill can leave is a temp file, never the target half written.
  for (const name of temps(dir)) assert.match(name, /^\.state\.json\.nso-tmp-\d+-[0-9a-f]{8}$/);
});
