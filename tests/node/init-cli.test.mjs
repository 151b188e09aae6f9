// `nso init git | claude-code | opencode` as a person runs them (bin/nso.js), on real folders
// and real git: what is written, what is never touched, and what is printed.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const NSO_ROOT = path.resolve(path.dirname(CLI), "..");
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` };
for (const name of ["NSO_AGENT", "NSO_INSTANCE", "GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"]) delete env[name];

const tmp = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-init-")));
const nso = (cwd, ...args) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const git = (cwd, ...args) => {
  const r = spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=T", ...args], { cwd, env, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};
function gitRepo() {
  const dir = tmp();
  git(dir, "init", "-q", "-b", "main");
  return dir;
}
const read = (file) => fs.readFileSync(file, "utf8");

// The hook NSO writes, by hand (bin/init/git-hook.js hookText).
const HOOK = `#!/bin/sh
# nso: pre-commit guard, installed by \`nso init git\`
# Re-checks the staged changes against NSO's policy and the Conductor's claims; a refusal
# stops the commit. NSO_AGENT names the committing agent (default: the person, agent \`user\`).
exec node ${CLI} guard pre-commit
`;

test("nso init git installs an executable pre-commit hook once; run again it says so", () => {
  const dir = gitRepo();
  const first = nso(dir, "init", "git");
  assert.equal(first.code, 0, first.err);
  const hook = path.join(dir, ".git/hooks/pre-commit");
  assert.equal(first.out, `installed NSO's pre-commit guard: ${hook}\n  every commit's staged changes are checked against NSO's policy and the Conductor's claims.\n`);
  assert.equal(read(hook), HOOK);
  assert.equal(fs.statSync(hook).mode & 0o777, 0o755);
  const again = nso(path.join(dir), "init", "git");
  assert.equal(again.code, 0);
  assert.equal(again.out, `NSO's pre-commit guard is already installed: ${hook}\n`);
  assert.equal(read(hook), HOOK);
});

test("an existing hook of the user's is left byte-identical; the line that chains NSO is printed; exit 1", () => {
  const dir = gitRepo();
  const hook = path.join(dir, ".git/hooks/pre-commit");
  const mine = "#!/usr/bin/env bash\nset -e\nnpx lint-staged\r\n# no newline at the end";
  fs.writeFileSync(hook, mine, { mode: 0o700 });
  const r = nso(dir, "init", "git");
  assert.equal(r.code, 1);
  assert.equal(fs.readFileSync(hook, "utf8"), mine);
  assert.equal(fs.statSync(hook).mode & 0o777, 0o700);
  assert.match(r.err, new RegExp(`${hook} already exists and is not NSO's: it was left as it is\\.`));
  assert.ok(r.err.includes(`\n  node ${CLI} guard pre-commit || exit 1\n`), r.err);

  // Chained by the user: recognised, still untouched.
  const chained = `${mine}\nnode ${CLI} guard pre-commit || exit 1\n`;
  fs.writeFileSync(hook, chained);
  const ok = nso(dir, "init", "git");
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /is your own hook and already runs NSO's guard/);
  assert.equal(read(hook), chained);
});

test("core.hooksPath and linked worktrees: the hook goes where git runs hooks, and runs", () => {
  const dir = gitRepo();
  git(dir, "config", "core.hooksPath", ".githooks");
  const r = nso(dir, "init", "git");
  assert.equal(r.code, 0, r.err);
  assert.equal(read(path.join(dir, ".githooks/pre-commit")), HOOK);
  assert.equal(fs.existsSync(path.join(dir, ".git/hooks/pre-commit")), false);

  // The hook runs: the person without an agent `user` is refused (default preset nso).
  fs.writeFileSync(path.join(dir, "a.txt"), "a\n");
  git(dir, "add", "a.txt");
  const commit = spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-m", "a"], { cwd: dir, env, encoding: "utf8" });
  assert.equal(commit.status, 1);
  assert.match(commit.stderr, /NSO blocked write for unknown agent "user": creating a\.txt/);

  const main = gitRepo();
  fs.writeFileSync(path.join(main, "x"), "x\n");
  git(main, "add", "x");
  git(main, "commit", "-qm", "x");
  const wt = path.join(tmp(), "wt");
  git(main, "worktree", "add", "-q", wt);
  const fromWorktree = nso(wt, "init", "git");
  assert.equal(fromWorktree.code, 0, fromWorktree.err);
  assert.equal(read(path.join(main, ".git/hooks/pre-commit")), HOOK, "hooks of linked worktrees are the repository's");
  assert.equal(nso(main, "init", "git").out, `NSO's pre-commit guard is already installed: ${path.join(main, ".git/hooks/pre-commit")}\n`);
});

test("nso init git outside a repository: refused with the fix", () => {
  const r = nso(tmp(), "init", "git");
  assert.equal(r.code, 1);
  assert.match(r.err, /is not inside a git work tree\.\nFix: run `git init` first/);
});

const NODE_CMD = `node "${CLI}" hook claude-code`;

test("nso init claude-code merges NSO's hooks into .claude/settings.json, keeping the user's", () => {
  const dir = tmp();
  fs.mkdirSync(path.join(dir, ".claude"));
  const file = path.join(dir, ".claude/settings.json");
  fs.writeFileSync(file, JSON.stringify({ model: "opus", hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "mine.sh" }] }] } }));
  const r = nso(dir, "init", "claude-code", "--node");
  assert.equal(r.code, 0, r.err);
  const settings = JSON.parse(read(file));
  assert.equal(settings.model, "opus");
  assert.deepEqual(settings.hooks.PreToolUse, [
    { matcher: "Bash", hooks: [{ type: "command", command: "mine.sh" }] },
    { matcher: "*", hooks: [{ type: "command", command: NODE_CMD }] },
  ]);
  assert.deepEqual(Object.keys(settings.hooks), ["PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "SubagentStart", "SubagentStop", "SessionEnd"]);
  assert.deepEqual(settings.hooks.SubagentStop, [{ hooks: [{ type: "command", command: NODE_CMD }] }]);
  assert.ok(read(file).startsWith('{\n  "model": "opus",\n  "hooks": {\n'), "2-space indentation");
  // No main agent set: the warning says what follows and how to set it.
  assert.match(r.err, /^warning: Claude Code's main agent has no NSO identity .* until it is set: nso init claude-code --main-agent NAME\n$/);
  assert.deepEqual(fs.readdirSync(path.join(dir, ".claude")), ["settings.json"], "no temp file left");

  const again = nso(dir, "init", "claude-code", "--node");
  assert.equal(again.code, 0);
  assert.match(again.out, /NSO's hooks are already in .*settings\.json; nothing changed\./);
});

test("nso init claude-code --main-agent: checked against the policy; unknown names refused with nothing written", () => {
  const dir = tmp();
  fs.mkdirSync(path.join(dir, ".opencode"));
  const config = path.join(dir, ".opencode/nso.json");
  const configText = '{"authority": {"preset": "kord", "agents": {"frontend-dev": {"like": "dev"}}}}';
  fs.writeFileSync(config, configText);
  const bad = nso(dir, "init", "claude-code", "--main-agent", "nobody");
  assert.equal(bad.code, 1);
  assert.match(bad.err, /--main-agent nobody: the policy of .*nso\.json has no agent of that name \(nothing was written\)\.\nFix: name one of its agents: .*\bdevops\b.*\bfrontend-dev\b/);
  assert.equal(read(config), configText);
  assert.equal(fs.existsSync(path.join(dir, ".claude")), false, "settings.json not written either");

  const good = nso(dir, "init", "claude-code", "--main-agent", "Frontend-Dev");
  assert.equal(good.code, 0, good.err);
  assert.deepEqual(JSON.parse(read(config)), { authority: { preset: "kord", agents: { "frontend-dev": { like: "dev" } } }, claudeCode: { mainAgent: "frontend-dev" } });
  assert.match(good.out, /set claudeCode\.mainAgent to "frontend-dev"/);
  assert.equal(good.err, "", "no warning once the main agent is set");
  assert.equal(nso(dir, "init", "claude-code").err, "");
});

test("nso init claude-code: a settings file that is not JSON is named and left alone; --native uses the binary", () => {
  const dir = tmp();
  fs.mkdirSync(path.join(dir, ".claude"));
  const file = path.join(dir, ".claude/settings.json");
  fs.writeFileSync(file, '{"hooks": {');
  const r = nso(dir, "init", "claude-code");
  assert.equal(r.code, 1);
  assert.match(r.err, new RegExp(`nso init claude-code: ${file} is not valid JSON \\(.*\\); nothing was written\\.\\nFix: correct the settings file`));
  assert.equal(read(file), '{"hooks": {');

  fs.writeFileSync(file, "{}");
  const bin = path.join(dir, "nso-hook");
  fs.writeFileSync(bin, "#!/bin/sh\n", { mode: 0o755 });
  const native = nso(dir, "init", "claude-code", "--native", bin);
  assert.equal(native.code, 0, native.err);
  assert.deepEqual(JSON.parse(read(file)).hooks.PreToolUse, [{ matcher: "*", hooks: [{ type: "command", command: `"${bin}" claude-code --fallback "${CLI}"` }] }]);
  // Back to the Node hook: NSO's entry is replaced, not duplicated.
  const plain = nso(dir, "init", "claude-code", "--node");
  assert.equal(plain.code, 0, plain.err);
  assert.deepEqual(JSON.parse(read(file)).hooks.PreToolUse, [{ matcher: "*", hooks: [{ type: "command", command: NODE_CMD }] }]);
  assert.equal(nso(dir, "init", "claude-code", "--node", "--native", bin).code, 2, "one or the other");
  assert.equal(nso(dir, "init", "claude-code", "--native", path.join(dir, "missing")).code, 1);
});

test("nso init opencode: NSO's plugin entry once; JSONC comments refused with the entry to add; a plugin file counts", () => {
  const dir = tmp();
  // A path relative to the config file: a shared opencode.json names no one's home folder.
  const entry = path.relative(dir, path.join(NSO_ROOT, "plugin/nso-plugin.js"));
  fs.writeFileSync(path.join(dir, "opencode.json"), '{"$schema": "https://opencode.ai/config.json", "plugin": ["opencode-wakatime"], "model": "m"}');
  const r = nso(dir, "init", "opencode");
  assert.equal(r.code, 0, r.err);
  assert.equal(read(path.join(dir, "opencode.json")),
    `{\n  "$schema": "https://opencode.ai/config.json",\n  "plugin": [\n    "opencode-wakatime",\n    "${entry}"\n  ],\n  "model": "m"\n}\n`);
  const again = nso(dir, "init", "opencode");
  assert.equal(again.code, 0);
  assert.match(again.out, /already loads NSO/);

  const withComments = "{\n  // mine\n  \"plugin\": []\n}\n";
  fs.writeFileSync(path.join(dir, "opencode.jsonc"), withComments);
  const refused = nso(dir, "init", "opencode");
  assert.equal(refused.code, 1);
  assert.match(refused.err, /opencode\.jsonc has comments, which this command cannot keep/);
  assert.ok(refused.err.includes(`"plugin": [${JSON.stringify(entry)}]`), refused.err);
  assert.equal(read(path.join(dir, "opencode.jsonc")), withComments);

  const other = tmp();
  fs.mkdirSync(path.join(other, ".opencode/plugins"), { recursive: true });
  fs.writeFileSync(path.join(other, ".opencode/plugins/nso.js"), `export { default } from "${entry}";\n`);
  const viaFile = nso(other, "init", "opencode");
  assert.equal(viaFile.code, 0);
  assert.match(viaFile.out, /already loads NSO through the project plugin file \.opencode\/plugins\/nso\.js/);
  assert.equal(fs.existsSync(path.join(other, "opencode.json")), false);
});

test("usage errors exit 2", () => {
  assert.equal(nso(tmp(), "init", "vim").code, 2);
  assert.equal(nso(tmp(), "init").code, 2);
  assert.equal(nso(tmp(), "init", "git", "--main-agent", "x").code, 2);
  assert.equal(nso(tmp(), "guard", "post-commit").code, 2);
});

test("a settings file that is a symlink is written through (the link stays); NSO's hook in settings.local.json is warned about", () => {
  const dir = tmp();
  const dotfiles = path.join(dir, "dotfiles");
  fs.mkdirSync(dotfiles);
  fs.writeFileSync(path.join(dotfiles, "opencode.json"), '{"model": "m"}');
  const project = path.join(dir, "project");
  fs.mkdirSync(path.join(project, ".claude"), { recursive: true });
  fs.symlinkSync(path.join(dotfiles, "opencode.json"), path.join(project, "opencode.json"));
  assert.equal(nso(project, "init", "opencode").code, 0);
  assert.equal(fs.lstatSync(path.join(project, "opencode.json")).isSymbolicLink(), true);
  assert.deepEqual(JSON.parse(read(path.join(dotfiles, "opencode.json"))).plugin, [path.relative(project, path.join(NSO_ROOT, "plugin/nso-plugin.js"))]);

  fs.writeFileSync(path.join(project, ".claude/settings.local.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "nso hook claude-code" }] }] } }));
  const r = nso(project, "init", "claude-code");
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /settings\.local\.json also runs NSO's hook, so Claude Code would run it twice/);
});
