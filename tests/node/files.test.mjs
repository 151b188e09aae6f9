// Real locations found from a project root (plugin/files.js `anchorAt`): after a change, a
// folder just below a root is walked from it, and the root is checked by identity; a root
// moved, swapped for a link or replaced by another folder is resolved anew.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import test from "node:test";
import { MAX_RECHECKED, anchorAt, cachedPathInfo, changeBegins, forgetChangedBy } from "../../plugin/files.js";
import { callsOf, makeProject } from "./helpers.mjs";

/** Calls of libc realpath (`fs.realpathSync.native`) while `fn` runs. */
const realpathCalls = (fn) => callsOf(fs.realpathSync, "native", fn);

/** File system calls (lstat and libc realpath) while `fn` runs. */
function lookups(fn) {
  let realpaths = 0;
  const lstats = callsOf(fs, "lstatSync", () => {
    realpaths = realpathCalls(fn);
  });
  return lstats + realpaths;
}

test("after a change, folders up to two levels below a root are walked from it, deeper ones not", () => {
  const dir = makeProject({ "src/app.ts": "x", "src/lib/util.ts": "x", "src/lib/deep/x.ts": "x" });
  anchorAt(dir);
  forgetChangedBy("bash");
  assert.equal(realpathCalls(() => {
    assert.deepEqual(cachedPathInfo(path.join(dir, "src/app.ts")), [path.join(dir, "src/app.ts"), true]);
    assert.deepEqual(cachedPathInfo(path.join(dir, "src/lib/util.ts")), [path.join(dir, "src/lib/util.ts"), true]);
    assert.deepEqual(cachedPathInfo(path.join(dir, "out.txt")), [path.join(dir, "out.txt"), false]);
    assert.deepEqual(cachedPathInfo(path.join(dir, "new/folder/x.ts")), [path.join(dir, "new/folder/x.ts"), false]);
  }), 0);
  assert.equal(realpathCalls(() => {
    assert.deepEqual(cachedPathInfo(path.join(dir, "src/lib/deep/x.ts")), [path.join(dir, "src/lib/deep/x.ts"), true]);
  }), 1);
});

test("a folder below a root swapped for a link out is seen after the change, one or two levels down", () => {
  const outside = makeProject({ "victim.txt": "x" });
  const dir = makeProject({ "src/lib/util.ts": "x", "docs/a.md": "x" });
  anchorAt(dir);
  forgetChangedBy("bash");
  assert.deepEqual(cachedPathInfo(path.join(dir, "src/lib/util.ts")), [path.join(dir, "src/lib/util.ts"), true]);
  assert.deepEqual(cachedPathInfo(path.join(dir, "docs/a.md")), [path.join(dir, "docs/a.md"), true]);
  fs.renameSync(path.join(dir, "src/lib"), path.join(dir, "src/lib-old"));
  fs.symlinkSync(outside, path.join(dir, "src/lib"));
  fs.renameSync(path.join(dir, "docs"), path.join(dir, "docs-old"));
  fs.symlinkSync(outside, path.join(dir, "docs"));
  forgetChangedBy("bash");
  assert.deepEqual(cachedPathInfo(path.join(dir, "src/lib/victim.txt")), [path.join(outside, "victim.txt"), true]);
  assert.deepEqual(cachedPathInfo(path.join(dir, "docs/a.md")), [path.join(outside, "a.md"), false]);
});

test("a root swapped for a link, or whose path now names another folder, is resolved anew", () => {
  const outside = makeProject({ "src/app.ts": "x" });
  const base = makeProject({ "a/proj/src/app.ts": "x", "b/proj/src/app.ts": "x" });
  const root = path.join(base, "a/proj");
  const file = path.join(root, "src/app.ts");
  anchorAt(root);
  forgetChangedBy("bash");
  assert.deepEqual(cachedPathInfo(file), [file, true]);
  // The root itself becomes a link out.
  fs.renameSync(root, path.join(base, "a/proj-old"));
  fs.symlinkSync(outside, root);
  forgetChangedBy("bash");
  assert.deepEqual(cachedPathInfo(file), [path.join(outside, "src/app.ts"), true]);
  // A folder above the root becomes a link to another folder of the same name.
  fs.rmSync(root);
  fs.renameSync(path.join(base, "a"), path.join(base, "a-old"));
  fs.symlinkSync(path.join(base, "b"), path.join(base, "a"));
  forgetChangedBy("bash");
  assert.deepEqual(cachedPathInfo(file), [path.join(base, "b/proj/src/app.ts"), true]);
});

test("a root moved whole, its old path now a link to it: the same folder, so the same answers", () => {
  const base = makeProject({ "a/proj/src/app.ts": "x" });
  const root = path.join(base, "a/proj");
  const file = path.join(root, "src/app.ts");
  anchorAt(root);
  fs.renameSync(path.join(base, "a"), path.join(base, "moved"));
  fs.symlinkSync(path.join(base, "moved"), path.join(base, "a"));
  forgetChangedBy("bash");
  // Every path below the root names what it named: nothing below it can have left it.
  assert.deepEqual(cachedPathInfo(file), [file, true]);
  assert.deepEqual(cachedPathInfo(path.join(root, "src")), [path.join(root, "src"), true]);
});

test("anchorAt ignores what is not a folder", () => {
  const dir = makeProject({ "f.txt": "x" });
  anchorAt(path.join(dir, "f.txt"));
  anchorAt(path.join(dir, "missing"));
  anchorAt("/");
  forgetChangedBy("bash");
  assert.deepEqual(cachedPathInfo(path.join(dir, "f.txt/x")), [path.join(dir, "f.txt/x"), false]);
});

test("in a folder found missing nothing is looked up, until a write may have made it", () => {
  const dir = makeProject({ "src/app.ts": "x" });
  anchorAt(dir);
  forgetChangedBy("bash");
  const at = (rel) => path.join(dir, rel);
  assert.deepEqual(cachedPathInfo(at("src/new/a.ts")), [at("src/new/a.ts"), false]);
  assert.equal(callsOf(fs, "lstatSync", () => {
    assert.deepEqual(cachedPathInfo(at("src/new/b.ts")), [at("src/new/b.ts"), false]);
  }), 0);
  fs.mkdirSync(at("src/new"));
  fs.writeFileSync(at("src/new/b.ts"), "x");
  forgetChangedBy("write");
  assert.deepEqual(cachedPathInfo(at("src/new/b.ts")), [at("src/new/b.ts"), true]);
});

test("when a change ends, the files cached before it are looked up again at once, as the change left them", () => {
  const outside = makeProject({ "app.ts": "x" });
  const dir = makeProject({ "src/app.ts": "x", "README.md": "x" });
  const at = (rel) => path.join(dir, rel);
  anchorAt(dir);
  forgetChangedBy("bash");
  assert.deepEqual(cachedPathInfo(at("src/app.ts")), [at("src/app.ts"), true]);
  assert.deepEqual(cachedPathInfo(at("README.md")), [at("README.md"), true]);
  changeBegins("bash");
  // The command swaps src/ for a link out of the project.
  fs.renameSync(at("src"), at("src-old"));
  fs.symlinkSync(outside, at("src"));
  forgetChangedBy("bash");
  assert.equal(lookups(() => {
    assert.deepEqual(cachedPathInfo(at("src/app.ts")), [path.join(outside, "app.ts"), true]);
    assert.deepEqual(cachedPathInfo(at("README.md")), [at("README.md"), true]);
  }), 0, "looked up in the after hook, not by the next call");
});

test("while a change runs, nothing cached before it is used; write, edit and task begin no change", () => {
  const outside = makeProject({ "app.ts": "x" });
  const dir = makeProject({ "src/app.ts": "x" });
  const at = (rel) => path.join(dir, rel);
  anchorAt(dir);
  forgetChangedBy("bash");
  assert.deepEqual(cachedPathInfo(at("src/app.ts")), [at("src/app.ts"), true]);
  changeBegins("write");
  changeBegins("edit");
  changeBegins("task"); // its subagent's calls begin their own changes
  assert.equal(lookups(() => cachedPathInfo(at("src/app.ts"))), 0, "still cached");
  changeBegins("bash");
  fs.renameSync(at("src"), at("src-old"));
  fs.symlinkSync(outside, at("src"));
  // A call decided while the command runs (hosts may run calls side by side) sees the swap.
  assert.deepEqual(cachedPathInfo(at("src/app.ts")), [path.join(outside, "app.ts"), true]);
  // A second change beginning while the first runs forgets again.
  fs.rmSync(at("src"));
  fs.renameSync(at("src-old"), at("src"));
  changeBegins("apply_patch");
  assert.deepEqual(cachedPathInfo(at("src/app.ts")), [at("src/app.ts"), true]);
  forgetChangedBy("apply_patch");
  forgetChangedBy("bash");
  assert.equal(lookups(() => cachedPathInfo(at("src/app.ts"))), 0);
});

test(`only the latest ${MAX_RECHECKED} files cached are looked up again when a change ends`, () => {
  const names = Array.from({ length: MAX_RECHECKED + 8 }, (_, i) => `f${i}.ts`);
  const dir = makeProject(Object.fromEntries(names.map((n) => [n, "x"])));
  anchorAt(dir);
  forgetChangedBy("bash");
  for (const name of names) cachedPathInfo(path.join(dir, name));
  changeBegins("bash");
  forgetChangedBy("bash");
  assert.equal(lookups(() => cachedPathInfo(path.join(dir, names.at(-1)))), 0);
  assert.equal(lookups(() => cachedPathInfo(path.join(dir, names[8]))), 0);
  assert.ok(lookups(() => cachedPathInfo(path.join(dir, names[7]))) > 0, "older ones are looked up when asked");
});
