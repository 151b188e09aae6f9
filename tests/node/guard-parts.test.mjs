// The pure parts of `nso guard pre-commit` (bin/init/guard.js, bin/init/staged.js): git's
// output parsed, staged changes turned into the calls the engine decides, claims matched, and
// the committer's own instances told from others'. Inputs and expected values written by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { claimConflicts, deletionCall, ownInstanceTest, refusalText, stagedCalls, takenFromMerge } from "../../bin/init/guard.js";
import { parseCatFileBatch, parseLsTree, parseRawDiff } from "../../bin/init/staged.js";

const A = "a".repeat(40);
const B = "b".repeat(40);
const Z = "0".repeat(40);

test("git diff --cached --raw -z: adds, changes, deletes, renames, copies, odd names", () => {
  const text = [
    `:000000 100644 ${Z} ${A} A`, "new file.md",
    `:100644 100644 ${A} ${B} M`, "src/a.ts",
    `:100644 000000 ${A} ${Z} D`, "old\nline.txt",
    `:100644 100644 ${A} ${A} R100`, "docs/p.md", "docs/q.md",
    `:100644 100644 ${A} ${B} C75`, "x.ts", "y.ts",
    `:100644 120000 ${A} ${B} T`, "link",
    "",
  ].join("\0");
  assert.deepEqual(parseRawDiff(text), [
    { status: "A", score: null, oldMode: "000000", newMode: "100644", oldSha: Z, newSha: A, path: "new file.md", from: null },
    { status: "M", score: null, oldMode: "100644", newMode: "100644", oldSha: A, newSha: B, path: "src/a.ts", from: null },
    { status: "D", score: null, oldMode: "100644", newMode: "000000", oldSha: A, newSha: Z, path: "old\nline.txt", from: null },
    { status: "R", score: 100, oldMode: "100644", newMode: "100644", oldSha: A, newSha: A, path: "docs/q.md", from: "docs/p.md" },
    { status: "C", score: 75, oldMode: "100644", newMode: "100644", oldSha: A, newSha: B, path: "y.ts", from: "x.ts" },
    { status: "T", score: null, oldMode: "100644", newMode: "120000", oldSha: A, newSha: B, path: "link", from: null },
  ]);
  assert.deepEqual(parseRawDiff(""), []);
  assert.throws(() => parseRawDiff("garbage\0x\0"), /unexpected output of git diff --raw/);
  assert.throws(() => parseRawDiff(`:100644 100644 ${A} ${B} R100\0only-one\0`), /ends inside a record/);
});

test("git ls-tree -r -l -z and git cat-file --batch", () => {
  const tree = parseLsTree(`100644 blob ${A}      12\tsrc/a.ts\u{0}160000 commit ${B}       -\tvendor/lib\0`);
  assert.deepEqual([...tree], [
    ["src/a.ts", { mode: "100644", type: "blob", sha: A, size: 12 }],
    ["vendor/lib", { mode: "160000", type: "commit", sha: B, size: 0 }],
  ]);
  const batch = parseCatFileBatch(Buffer.from(`${A} blob 5\nhello\n${B} missing\n${Z} blob 0\n\n`));
  assert.deepEqual(batch.map((o) => (o.missing ? [o.sha, "missing"] : [o.sha, o.size, o.data.toString()])),
    [[A, 5, "hello"], [B, "missing"], [Z, 0, ""]]);
});

test("deletions are the engine's delete of one file; paths apply_patch cannot carry go through rm", () => {
  assert.deepEqual(deletionCall("src/a b.ts"), { tool: "apply_patch", args: { patchText: "*** Begin Patch\n*** Delete File: src/a b.ts\n*** End Patch" } });
  assert.deepEqual(deletionCall("odd\nname"), { tool: "bash", args: { command: "rm -- 'odd\nname'" } });
  assert.deepEqual(deletionCall(" lead"), { tool: "bash", args: { command: "rm -- ' lead'" } });
  assert.deepEqual(deletionCall("it's\nodd"), { tool: "bash", args: { command: "rm -- 'it'\\''s\nodd'" } });
});

test("staged changes become the calls the engine decides: write, deletion, rename = both, copy = write", () => {
  const changes = parseRawDiff([
    `:000000 100644 ${Z} ${A} A`, "n.md",
    `:100644 000000 ${A} ${Z} D`, "gone.md",
    `:100644 100644 ${A} ${B} R90`, "p.md", "q.md",
    `:100644 100644 ${A} ${B} C80`, "x.md", "y.md",
    `:100644 100644 ${A} ${B} M`, "big.bin", "",
  ].join("\0"));
  const content = (c) => (c.path === "big.bin" ? { oversized: 9_000_000 } : `text of ${c.newSha.slice(0, 1)}`);
  const M = "100644";
  assert.deepEqual(stagedCalls(changes, content), [
    { path: "n.md", what: "added", tool: "write", args: { filePath: "n.md", content: "text of a" }, sha: A, mode: M },
    { path: "gone.md", what: "deleted", tool: "apply_patch", args: { patchText: "*** Begin Patch\n*** Delete File: gone.md\n*** End Patch" }, sha: null, mode: null },
    { path: "p.md", what: "renamed to q.md", tool: "apply_patch", args: { patchText: "*** Begin Patch\n*** Delete File: p.md\n*** End Patch" }, sha: null, mode: null },
    { path: "q.md", what: "renamed from p.md", tool: "write", args: { filePath: "q.md", content: "text of b" }, sha: B, mode: M },
    { path: "y.md", what: "copied from x.md", tool: "write", args: { filePath: "y.md", content: "text of b" }, sha: B, mode: M },
    { path: "big.bin", what: "changed", tool: "write", args: { filePath: "big.bin", content: { nsoOversized: 9_000_000 } }, sha: B, mode: M },
  ]);
});

test("concluding a merge: a file as the merged branch has it (or deleted as there) is that branch's change", () => {
  const theirs = new Map([["src/a.ts", { mode: "100644", sha: A }], ["src/x.ts", { mode: "100755", sha: B }]]);
  assert.equal(takenFromMerge({ path: "src/a.ts", sha: A, mode: "100644" }, [theirs]), true);
  assert.equal(takenFromMerge({ path: "src/a.ts", sha: B, mode: "100644" }, [theirs]), false, "a resolution of the committer's");
  assert.equal(takenFromMerge({ path: "src/x.ts", sha: B, mode: "100644" }, [theirs]), false, "another mode");
  assert.equal(takenFromMerge({ path: "gone.ts", sha: null, mode: null }, [theirs]), true);
  assert.equal(takenFromMerge({ path: "src/a.ts", sha: null, mode: null }, [theirs]), false);
  assert.equal(takenFromMerge({ path: "src/a.ts", sha: A, mode: "100644" }, []), false);
});

test("claims: another live instance's intersecting claim conflicts; the committer's own and dead ones do not", () => {
  const instances = [
    { id: "opc-mine01", alive: true, files_claimed: ["/r/src/**"], project: "r", task: "mine", agent: "build", age_minutes: 1 },
    { id: "opc-other1", alive: true, files_claimed: ["/r/docs/x.md", "/r/src/**/*.ts"], project: "r", task: "window B", agent: "dev", age_minutes: 7 },
    { id: "opc-dead01", alive: false, files_claimed: ["/r/src/a.ts"], project: "r", task: "gone", agent: null, age_minutes: 90 },
  ];
  // A stand-in for the core's intersection: equal, or a `/**` folder claim, or `**/*.ts` under its prefix.
  const intersects = (held, file) => held === file || (held.endsWith("/**") && file.startsWith(held.slice(0, -2))) ||
    (held.endsWith("/**/*.ts") && file.startsWith(held.slice(0, -7)) && file.endsWith(".ts"));
  const own = (i) => i.id === "opc-mine01";
  assert.deepEqual(claimConflicts(instances, ["/r/src/a.ts", "/r/src/b.md", "/r/README.md"], own, intersects), [
    { file: "/r/src/a.ts", held_by: "opc-other1", pattern: "/r/src/**/*.ts", holder_project: "r", holder_task: "window B", holder_agent: "dev", holder_age_minutes: 7 },
  ]);
  assert.deepEqual(claimConflicts(instances, ["/r/README.md"], own, intersects), []);
});

test("the committer's own instances: named by NSO_INSTANCE, or an ancestor process of this host with the same start", () => {
  const own = ownInstanceTest({ env: { NSO_INSTANCE: "web-named1" }, ancestors: [4242, 17], host: "laptop", token: (pid) => `start-${pid}` });
  assert.equal(own({ id: "web-named1", host: "other", pid: 1 }), true);
  assert.equal(own({ id: "opc-a", host: "laptop", pid: 4242, process_started: "start-4242" }), true);
  assert.equal(own({ id: "opc-b", host: "laptop", pid: 4242, process_started: "an earlier process with that pid" }), false);
  assert.equal(own({ id: "opc-c", host: "laptop", pid: 17, process_started: null }), true);
  assert.equal(own({ id: "opc-d", host: "laptop", pid: 999, process_started: "start-999" }), false);
  assert.equal(own({ id: "opc-e", host: "desktop", pid: 4242, process_started: "start-4242" }), false);
  assert.equal(ownInstanceTest({ env: {}, ancestors: [], host: "h" })({ id: "x", host: "h", pid: 5 }), false);
});

test("the refusal text: each refusal with its file and NSO's message, long lists cut, then how to proceed", () => {
  const refusals = Array.from({ length: 5 }, (_, i) => ({ path: `src/f${i}.ts`, what: "added", rule: "nso.unknown_agent", message: `message ${i}` }));
  assert.equal(refusalText({ agent: "dev", refusals, conflicts: [], mode: "enforce" }, { full: 2, listed: 4 }), [
    "NSO refused this commit (git pre-commit guard, committing as @dev).",
    "", "src/f0.ts (added):", "  message 0",
    "", "src/f1.ts (added):", "  message 1",
    "", "3 more change(s) refused (`nso guard pre-commit --json` gives every message):",
    "  src/f2.ts (added): rule nso.unknown_agent",
    "  src/f3.ts (added): rule nso.unknown_agent",
    "  ... and 1 more",
    "", "How to proceed: nothing was committed. Unstage what may not be committed (`git restore --staged -- <file>`) and keep the rest, " +
      "or leave the change to whoever the message names and report it; then commit again. NSO decided as the committer named above " +
      "($NSO_AGENT when set, else the person: the agent `user` of authority.agents in .opencode/nso.json).",
  ].join("\n"));
  const conflict = { file: "/r/a.ts", held_by: "opc-x", holder_project: "r", holder_task: "t", holder_agent: null, holder_age_minutes: 3 };
  const text = refusalText({ agent: "user", refusals: [], conflicts: [conflict], mode: "enforce" });
  assert.ok(text.includes("\n\nConductor claims: /r/a.ts is claimed by instance opc-x (project r, task \"t\", claimed 3 min ago). Another OpenCode window holds it"), text);
});
