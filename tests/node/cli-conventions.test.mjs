// The command line as a newcomer meets it (bin/nso.js, bin/conventions.js): --version, short
// help on every command, "did you mean", exit statuses, --dir that must exist, errors as JSON
// under --json, `nso check` listing every problem at once, an empty config reported as the
// defaults; and `nso init opencode`, `nso enforce` and `nso doctor` on real project folders.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { makeProject } from "./helpers.mjs";

const CLI = new URL("../../bin/nso.js", import.meta.url).pathname;
const NSO_ROOT = path.resolve(path.dirname(CLI), "..");
const VERSION = JSON.parse(fs.readFileSync(path.join(NSO_ROOT, "package.json"), "utf8")).version;
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
delete env.NSO_AGENT;

function nso(args, { cwd, extraEnv } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env: { ...env, ...extraEnv }, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const COMMANDS = ["init", "enforce", "doctor", "explain", "check", "audit", "replay", "route", "status", "mc", "conductor",
  "decide", "decisions", "transcript", "handoff", "guard", "hook"];

test("--version prints the package's version", () => {
  for (const flag of ["--version", "-V"]) {
    const r = nso([flag]);
    assert.equal(r.code, 0);
    assert.equal(r.out.trim(), `nso ${VERSION}`);
  }
});

test("nso --help is an overview of one line per command, under 40 lines", () => {
  const r = nso(["--help"]);
  assert.equal(r.code, 0);
  const lines = r.out.trim().split("\n");
  assert.ok(lines.length < 40, `${lines.length} lines`);
  for (const c of COMMANDS) assert.match(r.out, new RegExp(`^  ${c} +\\S`, "m"), c);
  assert.equal(nso([]).code, 0);
});

test("every command answers --help and -h with a short help: usage, what it does, an example; it runs nothing", () => {
  for (const c of COMMANDS) {
    for (const flag of ["--help", "-h"]) {
      const r = nso([c, flag]);
      assert.equal(r.code, 0, `${c} ${flag}: ${r.err}`);
      assert.match(r.out, new RegExp(`^usage:\\n {2}nso ${c}`), `${c} ${flag}`);
      assert.match(r.out, /\nexample:\n {2}nso /, c);
      assert.ok(r.out.split("\n").length <= 25, `${c} help has ${r.out.split("\n").length} lines`);
    }
  }
  // `nso help CMD` says the same; check --help does not run the check (an invalid config stays unreported).
  assert.equal(nso(["help", "audit"]).out, nso(["audit", "--help"]).out);
  const bad = makeProject({ ".opencode/nso.json": "{nope" });
  const r = nso(["check", "--help", "--dir", bad]);
  assert.equal(r.code, 0);
  assert.doesNotMatch(r.out, /not valid JSON/);
  // -h as another flag's value is that value.
  assert.notEqual(nso(["explain", "--agent", "build", "--command", "-h", "--dir", makeProject()]).out.startsWith("usage:"), true);
});

test("an unknown command or flag is a usage error (exit 2) with the nearest name", () => {
  const r = nso(["explian"]);
  assert.equal(r.code, 2);
  assert.match(r.err, /unknown command "explian"\. Did you mean "explain"\?/);
  assert.ok(r.err.split("\n").length < 5, "no dump of the whole usage");
  const flag = nso(["audit", "--snice", "7d"]);
  assert.equal(flag.code, 2);
  assert.match(flag.err, /unknown argument "--snice"\. Did you mean "--since"\?/);
  assert.match(nso(["conductor", "status", "--hom", "/tmp"]).err, /Did you mean "--home"\?/);
  assert.match(nso(["explain", "--agnet", "x"]).err, /Did you mean "--agent"\?/);
  assert.match(nso(["init", "opencod"]).err, /Did you mean "opencode"\?/);
  assert.equal(nso(["zzzzzz"]).err.includes("Did you mean"), false);
});

test("nso init without a target is a usage error", () => {
  const r = nso(["init"], { cwd: makeProject() });
  assert.equal(r.code, 2);
  assert.match(r.err, /say what to install NSO into: opencode, claude-code or git/);
});

test("a --dir that does not exist is an error for every command that takes one, never the defaults", () => {
  for (const args of [["explain", "--agent", "build", "--command", "ls"], ["check"], ["doctor"], ["audit"], ["status", "check"], ["init", "opencode"]]) {
    const r = nso([...args, "--dir", "/nonexistent/project"]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}${r.err}`);
    assert.match(r.err, /--dir \/nonexistent\/project: no such folder/);
  }
  const file = path.join(makeProject({ "a.txt": "" }), "a.txt");
  assert.match(nso(["check", "--dir", file]).err, /is not a folder/);
});

test("under --json, errors are JSON too: usage errors and config errors", () => {
  const usage = nso(["check", "--json", "--dir", "/nonexistent"]);
  assert.equal(usage.code, 2);
  assert.deepEqual(Object.keys(JSON.parse(usage.out).error), ["code", "message", "fix"]);
  assert.equal(JSON.parse(usage.out).error.code, "no_such_dir");
  const broken = makeProject({ ".opencode/nso.json": '{"authority": {"preset": "nope"}}' });
  const r = nso(["explain", "--agent", "build", "--command", "ls", "--json", "--dir", broken]);
  assert.equal(r.code, 2);
  const { error } = JSON.parse(r.out);
  assert.match(error.message, /preset/);
  assert.ok(error.fix);
  assert.equal(JSON.parse(nso(["explian", "--json"]).out).error.code, "unknown_command");
  // Commands with their own parsers too: the same shape on stdout, the text on stderr.
  const since = nso(["audit", "--since", "bogus", "--json", "--dir", makeProject()]);
  assert.equal(since.code, 2);
  assert.match(JSON.parse(since.out).error.message, /--since "bogus"/);
  const decisions = nso(["decisions", "--json", "--dir", makeProject({ ".opencode/nso.json": "{nope" })]);
  assert.notEqual(decisions.code, 0);
  const { error: broken2 } = JSON.parse(decisions.out);
  assert.match(broken2.message, /not valid JSON/);
  assert.doesNotMatch(broken2.message, /^\[nso\]/);
  assert.match(broken2.fix, /correct the JSON syntax/);
});

test("nso check lists the problems of every section in one run", () => {
  const dir = makeProject({
    ".opencode/nso.json": JSON.stringify({
      memory: { enabled: "yes" }, hooks: { timeoutMs: -5 }, logdir: "x",
      authority: { rules: [{ id: "a", effect: "allow" }] }, conductor: { mode: "sometimes" },
    }),
  });
  const r = nso(["check", "--dir", dir]);
  assert.equal(r.code, 1);
  for (const where of ["memory.enabled", "hooks.timeoutMs", "logdir", "authority.rules[0]", "conductor.mode"]) {
    assert.ok(r.out.includes(`.opencode/nso.json: ${where}`), `${where} missing from:\n${r.out}`);
  }
  assert.match(r.out, /Did you mean `logDir`|did you mean `logDir`/);
  const json = JSON.parse(nso(["check", "--json", "--dir", dir]).out);
  assert.equal(json.valid, false);
  assert.ok(json.problems.length >= 5);
});

test("an empty or {} config is reported as using the defaults", () => {
  for (const text of ["", "{}", '{"$schema": "x.json"}']) {
    const dir = makeProject({ ".opencode/nso.json": text });
    const r = nso(["check", "--dir", dir]);
    assert.equal(r.code, 0);
    assert.match(r.out, /empty: NSO uses its defaults/);
    const doctor = nso(["doctor", "--json", "--dir", dir]);
    const config = JSON.parse(doctor.out).checks.find((c) => c.name === "config");
    assert.equal(config.status, "warn");
    assert.match(config.detail, /empty: NSO uses its defaults/);
  }
});
