// The pure parts of `nso init` (bin/init/): the git hook NSO writes and how it recognises an
// existing one, Claude Code's settings merge, claudeCode.mainAgent, and OpenCode's plugin list.
// Text in, text (or an error) out; expected texts are written by hand (tests/fixtures/init/).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { HOOK_MARK, chainLine, hookText, planHook, shQuote } from "../../bin/init/git-hook.js";
import { hookCommand, isNsoCommand, mainAgentOf, mergeClaudeSettings, setMainAgent } from "../../bin/init/claude-code.js";
import { isNsoEntry, mergeOpencodeConfig, pluginEntry } from "../../bin/init/opencode.js";
import { InitError, hasComments } from "../../bin/init/json-file.js";

const fixture = (name) => fs.readFileSync(new URL(`../fixtures/init/${name}`, import.meta.url), "utf8");
const CMD = 'node "/opt/nso/bin/nso.js" hook claude-code';

test("the git hook: NSO's text, and every kind of existing hook", () => {
  assert.equal(hookText("/opt/nso/bin/nso.js"), [
    "#!/bin/sh",
    "# nso: pre-commit guard, installed by `nso init git`",
    "# Re-checks the staged changes against NSO's policy and the Conductor's claims; a refusal",
    "# stops the commit. NSO_AGENT names the committing agent (default: the person, agent `user`).",
    "exec node /opt/nso/bin/nso.js guard pre-commit",
    "",
  ].join("\n"));
  assert.equal(HOOK_MARK, "# nso: pre-commit guard, installed by `nso init git`");
  assert.equal(shQuote("/home/me/my nso/it's/bin/nso.js"), "'/home/me/my nso/it'\\''s/bin/nso.js'");
  assert.equal(chainLine("/home/me/my nso/bin/nso.js"), "node '/home/me/my nso/bin/nso.js' guard pre-commit || exit 1");

  assert.deepEqual(planHook(undefined, "/opt/nso/bin/nso.js"), { action: "create", text: hookText("/opt/nso/bin/nso.js") });
  assert.deepEqual(planHook(hookText("/opt/nso/bin/nso.js"), "/opt/nso/bin/nso.js"), { action: "current" });
  // NSO's own hook for a checkout that moved: rewritten for this one.
  assert.deepEqual(planHook(hookText("/old/nso/bin/nso.js"), "/opt/nso/bin/nso.js"), { action: "update", text: hookText("/opt/nso/bin/nso.js") });
  // NSO's hook with a line of the user's added is the user's now: never rewritten.
  const edited = hookText("/old/nso/bin/nso.js").replace("#!/bin/sh\n", "#!/bin/sh\nnpm run lint || exit 1\n");
  assert.equal(planHook(edited, "/opt/nso/bin/nso.js").action, "chained");
  assert.equal(planHook("#!/bin/sh\nnpx lint-staged\nnode /x/bin/nso.js guard pre-commit || exit 1\n", "/opt/nso/bin/nso.js").action, "chained");
  assert.equal(planHook("#!/bin/sh\nnpx lint-staged\n", "/opt/nso/bin/nso.js").action, "foreign");
  assert.equal(planHook("", "/opt/nso/bin/nso.js").action, "foreign", "an empty file is still the user's");
});

test("Claude Code settings: the user's keys and hooks kept, NSO's old entries updated in place, none twice", () => {
  const merged = mergeClaudeSettings(fixture("claude-settings.user.json"), CMD);
  assert.equal(merged.text, fixture("claude-settings.expected.json"));
  assert.equal(merged.changed, true);
  assert.deepEqual(merged.events, { PreToolUse: "updated", PostToolUse: "updated", SessionStart: "added", UserPromptSubmit: "added", SubagentStart: "added", SubagentStop: "added", SessionEnd: "added" });
  // Idempotent: merging again changes nothing.
  const again = mergeClaudeSettings(merged.text, CMD);
  assert.equal(again.changed, false);
  assert.equal(again.text, merged.text);
  assert.deepEqual(Object.values(again.events), Array(7).fill("kept"));
});

test("Claude Code settings: a new file, and files that are not merged", () => {
  const created = JSON.parse(mergeClaudeSettings(undefined, CMD).text);
  assert.deepEqual(created, {
    hooks: {
      PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: CMD }] }],
      PostToolUse: [{ matcher: "*", hooks: [{ type: "command", command: CMD }] }],
      SessionStart: [{ hooks: [{ type: "command", command: CMD }] }],
      UserPromptSubmit: [{ hooks: [{ type: "command", command: CMD }] }],
      SubagentStart: [{ hooks: [{ type: "command", command: CMD }] }],
      SubagentStop: [{ hooks: [{ type: "command", command: CMD }] }],
      SessionEnd: [{ hooks: [{ type: "command", command: CMD }] }],
    },
  });
  const fails = (text, pattern) => assert.throws(() => mergeClaudeSettings(text, CMD, "/p/.claude/settings.json"),
    (e) => e instanceof InitError && pattern.test(e.message) && e.message.includes("/p/.claude/settings.json") && e.fix.length > 0);
  fails('{"hooks": {"PreToolUse": [}', /is not valid JSON.*nothing was written/);
  fails("[1, 2]", /does not hold a JSON object/);
  fails('{"hooks": []}', /"hooks" is not an object/);
  fails('{"hooks": {"SessionStart": {"hooks": []}}}', /hooks\.SessionStart is not a list/);
  fails('{\n  // mine\n  "model": "opus"\n}', /has comments/);
});

test("hook commands: node by default, the native binary with the Node hook as its fallback; NSO's recognised", () => {
  assert.equal(hookCommand({ nsoJs: "/opt/nso/bin/nso.js" }), CMD);
  assert.equal(hookCommand({ nsoJs: "/opt/nso/bin/nso.js", nativeHook: "/opt/nso/target/release/nso-hook" }),
    '"/opt/nso/target/release/nso-hook" claude-code --fallback "/opt/nso/bin/nso.js"');
  assert.equal(hookCommand({ nsoJs: '/opt/$HOME "x"/bin/nso.js' }), "node '/opt/$HOME \"x\"/bin/nso.js' hook claude-code");
  for (const c of [CMD, '"/a/nso-hook" claude-code --fallback "/a/bin/nso.js"', "nso hook claude-code", "npx nso hook claude-code"]) {
    assert.equal(isNsoCommand(c), true, c);
  }
  for (const c of ["~/bin/check.sh", "echo hook claude-codes", "my-hook claude-code-lint"]) assert.equal(isNsoCommand(c), false, c);
});

test("claudeCode.mainAgent: set with every other key kept; a new file; read back", () => {
  const text = '{\n  "authority": {"preset": "kord"},\n  "claudeCode": {"agents": {"Explore": "explore"}}\n}\n';
  const r = setMainAgent(text, "dev");
  assert.equal(r.text, '{\n  "authority": {\n    "preset": "kord"\n  },\n  "claudeCode": {\n    "agents": {\n      "Explore": "explore"\n    },\n    "mainAgent": "dev"\n  }\n}\n');
  assert.deepEqual([r.changed, r.previous], [true, undefined]);
  assert.deepEqual(setMainAgent(r.text, "dev").changed, false);
  assert.equal(setMainAgent(r.text, "build").previous, "dev");
  assert.equal(setMainAgent(undefined, "build").text, '{\n  "claudeCode": {\n    "mainAgent": "build"\n  }\n}\n');
  assert.throws(() => setMainAgent('{"claudeCode": "build"}', "build"), /"claudeCode" is not an object/);
  assert.equal(mainAgentOf(r.text), "dev");
  assert.equal(mainAgentOf(text), undefined);
  assert.equal(mainAgentOf("not json"), undefined);
});

test("OpenCode config: NSO's entry added once, $schema and other keys kept; comments refused", () => {
  const merged = mergeOpencodeConfig(fixture("opencode.user.json"), "/opt/nso/plugin/nso-plugin.js");
  assert.equal(merged.text, fixture("opencode.expected.json"));
  assert.equal(merged.changed, true);
  const again = mergeOpencodeConfig(merged.text, "/opt/nso/plugin/nso-plugin.js");
  assert.deepEqual([again.changed, again.present, again.text], [false, "/opt/nso/plugin/nso-plugin.js", merged.text]);
  // Another path to NSO already there: left as the user wrote it, NSO not added twice.
  const other = '{"plugin": ["../nso/plugin/nso-plugin.js"]}';
  assert.deepEqual(mergeOpencodeConfig(other, "/opt/nso/plugin/nso-plugin.js"), { text: other, changed: false, present: "../nso/plugin/nso-plugin.js", replaced: undefined });
  // NSO named by package (OpenCode would look for it in the npm registry): replaced where it
  // stands, a second one dropped, a path entry kept over both.
  const pinned = mergeOpencodeConfig('{"plugin": ["a", "nso-opencode@0.1.0", "b", "nso-opencode"]}', "./x/plugin/nso-plugin.js");
  assert.deepEqual([JSON.parse(pinned.text).plugin, pinned.replaced], [["a", "./x/plugin/nso-plugin.js", "b"], "nso-opencode@0.1.0"]);
  const both = '{"plugin": ["nso-opencode", "/opt/nso/plugin/nso-plugin.js"]}';
  assert.equal(mergeOpencodeConfig(both, "./x/plugin/nso-plugin.js").changed, false);
  assert.equal(mergeOpencodeConfig(undefined, "nso-opencode").text, '{\n  "$schema": "https://opencode.ai/config.json",\n  "plugin": [\n    "nso-opencode"\n  ]\n}\n');
  assert.equal(mergeOpencodeConfig('{"model": "m"}', "nso-opencode").text, '{\n  "model": "m",\n  "plugin": [\n    "nso-opencode"\n  ]\n}\n');
  assert.throws(() => mergeOpencodeConfig(fixture("opencode.user.jsonc"), "nso-opencode", "/p/opencode.jsonc"),
    (e) => e instanceof InitError && /\/p\/opencode\.jsonc has comments/.test(e.message));
  assert.throws(() => mergeOpencodeConfig('{"plugin": "nso-opencode"}', "nso-opencode"), /"plugin" is not a list/);
});

test("NSO's plugin entry: the path of its plugin file, relative to the config file unless asked", () => {
  assert.equal(pluginEntry("/home/me/app/node_modules/nso-opencode", "/home/me/app"), "./node_modules/nso-opencode/plugin/nso-plugin.js");
  assert.equal(pluginEntry("/home/me/src/nso", "/home/me/app"), "../src/nso/plugin/nso-plugin.js");
  assert.equal(pluginEntry("/home/me/src/nso", "/home/me/app", { absolute: true }), "/home/me/src/nso/plugin/nso-plugin.js");
  assert.equal(pluginEntry("/home/me/src/nso"), "/home/me/src/nso/plugin/nso-plugin.js");
  for (const e of ["nso-opencode", "nso-opencode@1.2.3", "/a/plugin/nso-plugin.js", "file:///a/plugin/nso-plugin.js", "../nso/plugin/nso-plugin.js"]) {
    assert.equal(isNsoEntry(e), true, e);
  }
  for (const e of ["nso-opencode-extra", "opencode-wakatime", "/a/plugin/other.js", 3]) assert.equal(isNsoEntry(e), false, String(e));
});

test("comments are found outside strings only", () => {
  assert.equal(hasComments('{"url": "https://x.y/z", "glob": "a/*b"}'), false);
  assert.equal(hasComments('{"a": "x\\"//"} // c'), true);
  assert.equal(hasComments('{/* c */ "a": 1}'), true);
  assert.equal(hasComments('{"a": "\\\\"}'), false);
});
