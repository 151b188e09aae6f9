// `nso init git` + `nso guard pre-commit` with real git and real processes: a temporary
// repository, NSO's hook installed by the CLI, and `git commit` refused or allowed as the
// policy (HEAD's) and the Conductor's claims say.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const KORD = { authority: { preset: "kord" } };

/** A clean environment: no global git config, no NSO identity, a private conductor home. */
function cleanEnv(home) {
  const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", CONDUCTOR_HOME: home,
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` };
  for (const name of ["NSO_AGENT", "NSO_INSTANCE", "CONDUCTOR_INSTANCE", "OPENCODE", "OPENCODE_PID", "GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"]) delete env[name];
  return env;
}

/**
 * A repository with `files` and `.opencode/nso.json` = `config`, committed, and NSO's hook
 * installed by `nso init git`. `git(args, extraEnv)` and `write(rel, text)` act in it.
 */
function repo(files, config = KORD) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-guard-")));
  const root = path.join(dir, "project");
  const env = cleanEnv(path.join(dir, "conductor"));
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  const git = (args, extraEnv = {}) => {
    const r = spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=T", ...args], { cwd: root, env: { ...env, ...extraEnv }, encoding: "utf8" });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  fs.mkdirSync(root);
  assert.equal(git(["init", "-q", "-b", "main"]).code, 0);
  for (const [rel, text] of Object.entries({ ...files, ".opencode/nso.json": JSON.stringify(config) })) write(rel, text);
  git(["add", "-A"]);
  assert.equal(git(["commit", "-qm", "init"]).code, 0);
  const init = spawnSync(process.execPath, [CLI, "init", "git"], { cwd: root, env, encoding: "utf8" });
  assert.equal(init.status, 0, init.stderr);
  const head = () => git(["rev-parse", "HEAD"]).out.trim();
  const nso = (args, extraEnv = {}) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: root, env: { ...env, ...extraEnv }, encoding: "utf8" });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  return { dir, root, env, git, write, head, nso };
}

const PLAN = "# Plan\n- [ ] one\n- [ ] two\n";

test("a staged change to a sacred plan file refuses the commit with NSO's message; allowed changes commit", () => {
  const r = repo({ "docs/kord/plans/auth.md": PLAN, "src/a.ts": "export const a = 1;\n" });
  const before = r.head();
  r.write("docs/kord/plans/auth.md", PLAN + "- [ ] three\n");
  r.git(["add", "docs/kord/plans/auth.md"]);
  const refused = r.git(["commit", "-m", "add a step"], { NSO_AGENT: "dev" });
  assert.equal(refused.code, 1);
  assert.match(refused.err, /NSO refused this commit \(git pre-commit guard, committing as @dev\)\./);
  assert.match(refused.err, /docs\/kord\/plans\/auth\.md \(changed\):\n {2}NSO blocked write for @dev: writing docs\/kord\/plans\/auth\.md\. Rule kord\.plans\.sacred \(preset kord\)/);
  assert.match(refused.err, /How to proceed: nothing was committed\./);
  assert.equal(r.head(), before, "nothing was committed");
  const log = fs.readFileSync(path.join(r.root, ".opencode/logs/nso.log"), "utf8");
  assert.match(log, / block write \(git pre-commit\) @dev kord\.plans\.sacred\n/);
  assert.match(log, / git pre-commit @dev: 1 change\(s\), refused \(1 by the policy, 0 claimed\)\n/);

  // @build may tick a box of a plan: the change is judged HEAD -> staged.
  r.write("docs/kord/plans/auth.md", "# Plan\n- [x] one\n- [ ] two\n");
  r.git(["add", "docs/kord/plans/auth.md"]);
  const ticked = r.git(["commit", "-qm", "tick"], { NSO_AGENT: "build" });
  assert.equal(ticked.code, 0, ticked.err);
  assert.notEqual(r.head(), before);

  // `git commit -a` stages through its own index (GIT_INDEX_FILE): checked the same.
  r.write("docs/kord/plans/auth.md", "rewritten\n");
  const all = r.git(["commit", "-am", "everything"], { NSO_AGENT: "dev" });
  assert.equal(all.code, 1);
  assert.match(all.err, /docs\/kord\/plans\/auth\.md \(changed\):/);
  r.git(["checkout", "--", "docs/kord/plans/auth.md"]);

  r.write("src/a.ts", "export const a = 2;\n");
  r.git(["add", "src/a.ts"]);
  const allowed = r.git(["commit", "-qm", "a = 2"], { NSO_AGENT: "dev" });
  assert.equal(allowed.code, 0, allowed.err);
  assert.equal(r.git(["show", "HEAD:src/a.ts"]).out, "export const a = 2;\n");
});

test("append-only files are judged on what is staged against HEAD, not on the working tree", () => {
  const r = repo({ "docs/kord/notepads/dev.md": "day 1\n" });
  r.write("docs/kord/notepads/dev.md", "day 1\nday 2\n");
  r.git(["add", "docs/kord/notepads/dev.md"]);
  r.write("docs/kord/notepads/dev.md", "rewritten\n"); // not staged: not part of the commit
  const appended = r.git(["commit", "-qm", "notes"], { NSO_AGENT: "dev" });
  assert.equal(appended.code, 0, appended.err);
  assert.equal(r.git(["show", "HEAD:docs/kord/notepads/dev.md"]).out, "day 1\nday 2\n");

  r.git(["add", "docs/kord/notepads/dev.md"]); // now the rewrite is staged
  const rewritten = r.git(["commit", "-qm", "rewrite"], { NSO_AGENT: "dev" });
  assert.equal(rewritten.code, 1);
  assert.match(rewritten.err, /docs\/kord\/notepads\/dev\.md \(changed\):\n {2}NSO blocked write for @dev: .*Rule kord\.notepads\.append_only/);
});

test("a deletion and a rename are decided as deletions (kord: no agent deletes)", () => {
  const r = repo({ "src/a.ts": "a\n", "src/b.ts": "b\n" });
  r.git(["rm", "-q", "src/a.ts"]);
  const deleted = r.git(["commit", "-m", "rm a"], { NSO_AGENT: "dev" });
  assert.equal(deleted.code, 1);
  assert.match(deleted.err, /src\/a\.ts \(deleted\):\n {2}NSO blocked apply_patch for @dev: deleting src\/a\.ts\. Rule kord\.delete \(preset kord\)/);
  r.git(["reset", "-q", "HEAD", "--", "src/a.ts"]);
  r.git(["checkout", "--", "src/a.ts"]);

  r.git(["mv", "src/b.ts", "src/c.ts"]);
  const renamed = r.git(["commit", "-m", "mv"], { NSO_AGENT: "dev" });
  assert.equal(renamed.code, 1);
  assert.match(renamed.err, /src\/b\.ts \(renamed to src\/c\.ts\):\n {2}NSO blocked apply_patch for @dev: deleting src\/b\.ts\. Rule kord\.delete/);
  assert.doesNotMatch(renamed.err, /src\/c\.ts \(renamed from/, "creating src/c.ts is @dev's right");
});

test("the person commits as agent `user`: refused with how to define it until HEAD's policy has one", () => {
  const r = repo({ "src/a.ts": "a\n" });
  r.write("src/a.ts", "b\n");
  r.git(["add", "src/a.ts"]);
  const refused = r.git(["commit", "-m", "by hand"]);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /committing as the person at the keyboard, with the rights of agent `user`/);
  assert.match(refused.err, /NSO blocked write for unknown agent "user": writing src\/a\.ts\. Rule kord\.unknown_agent/);
  assert.match(refused.err, /\{"agents": \{"user": \{"like": "dev"\}\}\}/);

  // Giving `user` rights in the working tree only does not change the policy of HEAD.
  r.write(".opencode/nso.json", JSON.stringify({ authority: { preset: "kord", agents: { user: { like: "dev" } } } }));
  assert.equal(r.git(["commit", "-m", "by hand"]).code, 1);
  // Committed (the person bypasses the guard for NSO's own config, which no agent may change):
  r.git(["add", ".opencode/nso.json"]);
  assert.equal(r.git(["commit", "-m", "policy: the person works like @dev"]).code, 1, "NSO's config is protected from every agent");
  assert.equal(r.git(["commit", "-qm", "policy: the person works like @dev", "--no-verify"]).code, 0);
  r.write("src/a.ts", "c\n");
  r.git(["add", "src/a.ts"]);
  const allowed = r.git(["commit", "-qm", "by hand"]);
  assert.equal(allowed.code, 0, allowed.err);
});

test("a policy that does not load refuses every commit (fail closed)", () => {
  const r = repo({ "src/a.ts": "a\n" }, { authority: { preset: "no-such-preset" } });
  r.write("src/a.ts", "b\n");
  r.git(["add", "src/a.ts"]);
  const refused = r.git(["commit", "-m", "x"], { NSO_AGENT: "dev" });
  assert.equal(refused.code, 1);
  assert.match(refused.err, /^NSO refused this commit: NSO is not enforcing its rules: .*Until this is fixed, NSO refuses write-class tools \(fail closed\); reads still work\. Fix: /m);
});

/** Starts `command` and waits until it is running; resolves to the child. */
function started(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, options);
    child.once("spawn", () => resolve(child));
    child.once("error", reject);
  });
}

const exited = (child) => new Promise((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
  else child.once("exit", (code) => resolve(code));
});

test("a file claimed by another live instance refuses the commit; the committer's own instance (an ancestor process, or NSO_INSTANCE) does not", async (t) => {
  const r = repo({ "src/a.ts": "a\n", "src/b.ts": "b\n" });
  // Window B: a live process (sleep) registered as a conductor instance, holding src/a.ts.
  const sleeper = await started("sleep", ["120"], { stdio: "ignore" });
  t.after(() => sleeper.kill("SIGKILL"));
  const b = r.nso(["conductor", "start", "--task", "window B: the shared module", "--priority", "P1", "--agent", "dev", "--pid", String(sleeper.pid), "--json"]);
  assert.equal(b.code, 0, b.err);
  const other = JSON.parse(b.out).instance_id;
  assert.equal(r.nso(["conductor", "claim", "src/a.ts", "--instance", other]).code, 0);

  r.write("src/a.ts", "changed\n");
  r.git(["add", "src/a.ts"]);
  const refused = r.git(["commit", "-m", "a"], { NSO_AGENT: "dev" });
  assert.equal(refused.code, 1);
  assert.match(refused.err, new RegExp(`Conductor claims: ${r.root}/src/a\\.ts is claimed by instance ${other} \\(project project, task "window B: the shared module", agent @dev, claimed \\d+ min ago\\)\\. Another OpenCode window holds it`));
  assert.match(fs.readFileSync(path.join(r.root, ".opencode/logs/nso.log"), "utf8"), / block git-commit @dev conductor\.claim\n/);

  // This window: a shell registered as an instance holding src/b.ts; `git commit` run by that
  // shell (so the guard is its descendant) commits src/b.ts, which the same commit from
  // outside that shell may not.
  const shell = await started("bash", ["-c", "read -r _; git -c user.email=t@example.com -c user.name=T commit -qm 'b, from the window'"],
    { cwd: r.root, env: { ...r.env, NSO_AGENT: "dev" }, stdio: ["pipe", "pipe", "pipe"] });
  t.after(() => shell.kill("SIGKILL"));
  let shellErr = "";
  shell.stderr.on("data", (d) => (shellErr += d));
  const mine = JSON.parse(r.nso(["conductor", "start", "--task", "this window", "--priority", "P1", "--pid", String(shell.pid), "--json"]).out).instance_id;
  assert.equal(r.nso(["conductor", "claim", "src/b.ts", "--instance", mine]).code, 0);
  r.git(["reset", "-q", "--", "src/a.ts"]);
  r.write("src/b.ts", "changed\n");
  r.git(["add", "src/b.ts"]);
  const outside = r.git(["commit", "-m", "b"], { NSO_AGENT: "dev" });
  assert.equal(outside.code, 1);
  assert.match(outside.err, new RegExp(`src/b\\.ts is claimed by instance ${mine}`));
  shell.stdin.end("go\n");
  assert.equal(await exited(shell), 0, shellErr);
  assert.equal(r.git(["log", "-1", "--format=%s"]).out.trim(), "b, from the window");

  // NSO_INSTANCE names the committer's instance.
  r.git(["add", "src/a.ts"]);
  const named = r.git(["commit", "-qm", "a, as window B"], { NSO_AGENT: "dev", NSO_INSTANCE: other });
  assert.equal(named.code, 0, named.err);

  // Once window B's process is gone, its claims hold nothing.
  r.write("src/a.ts", "changed again\n");
  r.git(["add", "src/a.ts"]);
  sleeper.kill("SIGKILL");
  await exited(sleeper);
  const afterDeath = r.git(["commit", "-qm", "a again"], { NSO_AGENT: "dev" });
  assert.equal(afterDeath.code, 0, afterDeath.err);
});

test("conductor advisory mode warns and commits; off does not look at claims", async (t) => {
  const r = repo({ "src/a.ts": "a\n" }, { authority: { preset: "kord" }, conductor: { mode: "advisory" } });
  const sleeper = await started("sleep", ["120"], { stdio: "ignore" });
  t.after(() => sleeper.kill("SIGKILL"));
  const other = JSON.parse(r.nso(["conductor", "start", "--task", "window B", "--priority", "P1", "--pid", String(sleeper.pid), "--json"]).out).instance_id;
  assert.equal(r.nso(["conductor", "claim", "src/a.ts", "--instance", other]).code, 0);
  r.write("src/a.ts", "b\n");
  r.git(["add", "src/a.ts"]);
  const advisory = r.git(["commit", "-qm", "advisory"], { NSO_AGENT: "dev" });
  assert.equal(advisory.code, 0, advisory.err);
  assert.match(advisory.out + advisory.err, new RegExp(`nso guard: warning: NSO conductor \\(advisory\\): ${r.root}/src/a\\.ts is claimed by instance ${other}`));

  r.write(".opencode/nso.json", JSON.stringify({ authority: { preset: "kord" }, conductor: { mode: "off" } }));
  r.git(["add", ".opencode/nso.json"]);
  assert.equal(r.git(["commit", "-qm", "conductor off", "--no-verify"]).code, 0);
  r.write("src/a.ts", "c\n");
  r.git(["add", "src/a.ts"]);
  const off = r.git(["commit", "-qm", "off"], { NSO_AGENT: "dev" });
  assert.equal(off.code, 0, off.err);
  assert.equal(off.out + off.err, "");
});

test("nso guard pre-commit --json: the decision of every staged change", () => {
  const r = repo({ "src/a.ts": "a\n", "docs/kord/plans/p.md": PLAN });
  r.write("src/a.ts", "b\n");
  r.write("docs/kord/plans/p.md", "changed\n");
  r.git(["add", "-A", "src", "docs"]);
  const j = r.nso(["guard", "pre-commit", "--json"], { NSO_AGENT: "dev" });
  assert.equal(j.code, 1);
  const report = JSON.parse(j.out);
  assert.deepEqual([report.allowed, report.agent, report.asPerson], [false, "dev", false]);
  assert.deepEqual(report.changes.map((c) => [c.path, c.what, c.tool, c.verdict, c.rule]), [
    ["docs/kord/plans/p.md", "changed", "write", "block", "kord.plans.sacred"],
    ["src/a.ts", "changed", "write", "allow", null],
  ]);
  assert.deepEqual(report.refusals.map((x) => x.path), ["docs/kord/plans/p.md"]);
});

test("concluding a merge: the merged branch's changes are not the committer's; a resolution is", () => {
  const r = repo({ "docs/kord/plans/p.md": PLAN, "src/a.ts": "a\n" });
  // @plan changes the plan on a branch (allowed to @plan), and main changes src/a.ts.
  r.git(["checkout", "-qb", "planning"]);
  r.write("docs/kord/plans/p.md", PLAN + "- [ ] three\n");
  r.write("src/a.ts", "planning side\n");
  r.git(["add", "-A", "docs", "src"]);
  assert.equal(r.git(["commit", "-qm", "plan"], { NSO_AGENT: "plan" }).code, 1, "@plan may not write src/a.ts");
  r.git(["reset", "-q", "--", "src/a.ts"]);
  r.git(["checkout", "--", "src/a.ts"]);
  const planned = r.git(["commit", "-qm", "plan"], { NSO_AGENT: "plan" });
  assert.equal(planned.code, 0, planned.err);
  r.git(["checkout", "-q", "main"]);
  r.write("src/a.ts", "main side\n");
  r.git(["add", "src/a.ts"]);
  assert.equal(r.git(["commit", "-qm", "main"], { NSO_AGENT: "dev" }).code, 0);

  // @dev merges: the plan comes as the branch has it, so it is not @dev's change.
  assert.equal(r.git(["merge", "--no-commit", "--no-ff", "planning"], { NSO_AGENT: "dev" }).code, 0);
  const merged = r.git(["commit", "-qm", "merge planning"], { NSO_AGENT: "dev" });
  assert.equal(merged.code, 0, merged.err);
  assert.match(fs.readFileSync(path.join(r.root, ".opencode/logs/nso.log"), "utf8"), / git pre-commit @dev: 0 change\(s\) \(\+1 from the merged branch\), allowed\n/);

  // A plan edited while merging is the committer's change: refused.
  r.git(["checkout", "-qb", "planning2", "HEAD~1"]);
  r.write("docs/kord/plans/p.md", PLAN + "- [ ] four\n");
  r.git(["add", "docs"]);
  assert.equal(r.git(["commit", "-qm", "plan 2"], { NSO_AGENT: "plan" }).code, 0);
  r.git(["checkout", "-q", "main"]);
  assert.equal(r.git(["merge", "--no-commit", "--no-ff", "planning2"], { NSO_AGENT: "dev" }).code, 1, "both changed the plan: a conflict");
  r.write("docs/kord/plans/p.md", PLAN + "- [ ] three\n- [ ] four\n");
  r.git(["add", "docs"]);
  const resolved = r.git(["commit", "-m", "merge planning2"], { NSO_AGENT: "dev" });
  assert.equal(resolved.code, 1);
  assert.match(resolved.err, /docs\/kord\/plans\/p\.md \(changed\):\n {2}NSO blocked write for @dev: .*kord\.plans\.sacred/);
});

test("contents past limits.contentBytes: an ordinary file is decided as usual, a check that needs the text refuses", () => {
  const r = repo({ "docs/kord/notepads/dev.md": "day 1\n", "src/a.ts": "a\n" }, { authority: { preset: "kord" }, limits: { contentBytes: 1024 } });
  r.write("src/a.ts", "x".repeat(5000));
  r.git(["add", "src/a.ts"]);
  const big = r.git(["commit", "-qm", "big"], { NSO_AGENT: "dev" });
  assert.equal(big.code, 0, big.err);
  r.write("docs/kord/notepads/dev.md", "day 1\n" + "y".repeat(5000));
  r.git(["add", "docs"]);
  const refused = r.git(["commit", "-m", "long note"], { NSO_AGENT: "dev" });
  assert.equal(refused.code, 1);
  assert.match(refused.err, /docs\/kord\/notepads\/dev\.md \(changed\):\n {2}NSO blocked write for @dev: .*limits\.contentBytes/);
});

test("NSO's own runtime state staged with a change (git add -f, or tracked from before) is not judged as the committer's write", () => {
  const r = repo({ "src/a.ts": "export const a = 1;\n" });
  r.write("src/a.ts", "export const a = 2;\n");
  r.write(".opencode/logs/nso.log", "2026-01-01T00:00:00Z block write @dev ...\n");
  r.write(".opencode/nso/transcripts/ses_1.raw.jsonl", "{}\n");
  r.git(["add", "-f", "src/a.ts", ".opencode/logs/nso.log", ".opencode/nso/transcripts/ses_1.raw.jsonl"]);
  const json = r.nso(["guard", "pre-commit", "--json"], { NSO_AGENT: "dev" });
  const report = JSON.parse(json.out);
  assert.deepEqual(report.changes.map((c) => c.path), ["src/a.ts"], "only the committer's change is decided");
  assert.deepEqual(report.nsoState.sort(), [".opencode/logs/nso.log", ".opencode/nso/transcripts/ses_1.raw.jsonl"]);
  assert.equal(json.code, 0, json.out);
  const commit = r.git(["commit", "-m", "change a"], { NSO_AGENT: "dev" });
  assert.equal(commit.code, 0, commit.err);
  assert.match(commit.out + commit.err, /left out NSO's runtime state.*\.opencode\/logs\/nso\.log.*git rm -r --cached/);
});
