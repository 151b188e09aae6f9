// plugin/conductor/store.js and its helpers over the real core: clock skew, a corrupt or huge
// status.json (moved aside, last good state restored, reported), a missing home (created), a
// home that cannot be written (clear error), pid reuse, the liveness helpers.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { DEFAULT_TTL_SECONDS, buildRequest, isoSeconds, random6, runConductor } from "../../plugin/conductor/store.js";
import { aliveMap, isProcessAlive, processStartToken } from "../../plugin/conductor/liveness.js";
import { canonicalClaim, literalClaim } from "../../plugin/conductor/paths.js";
import { loadCore } from "../../plugin/core-loader.js";
import { jsonLines } from "./conductor/spawn.mjs";

const tempDir = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-conductor-store-")));
const T = Date.parse("2026-11-23T10:00:00Z");
const at = (seconds) => isoSeconds(new Date(T + seconds * 1000));
const startOp = (fields = {}) => ({ operation: "start", task: "t", priority: "P1", working_directory: "/w", project_root: "/w", source: "web", ...fields });

/** A home with one instance (claiming /w/a.ts) and a last-good copy of the state before. */
async function homeWithState() {
  const home = path.join(tempDir(), "home");
  const start = await runConductor({ home, now: at(0), op: startOp() });
  const id = start.result.instance_id;
  await runConductor({ home, now: at(1), op: { operation: "claim", instance_id: id, files: ["/w/a.ts"] } });
  await runConductor({ home, now: at(2), op: { operation: "heartbeat", instance_id: id } });
  return { home, id };
}

test("a heartbeat in the future (clock skew) counts as now, is stored as now, and expires a TTL later", async () => {
  const home = path.join(tempDir(), "home");
  const ttlSeconds = 600;
  // Another host whose clock runs a day ahead registers and claims.
  const ahead = { home, host: "elsewhere", now: at(86_400), ttlSeconds };
  const a = (await runConductor({ ...ahead, op: startOp({ pid: null }) })).result.instance_id;
  assert.equal((await runConductor({ ...ahead, op: { operation: "claim", instance_id: a, files: ["/w/src/**"] } })).result.status, "ok");
  // Here, now: its claim holds, its heartbeat is not in the future any more.
  const b = (await runConductor({ home, now: at(0), ttlSeconds, op: startOp() })).result.instance_id;
  const refused = await runConductor({ home, now: at(0), ttlSeconds, op: { operation: "claim", instance_id: b, files: ["/w/src/x.ts"] } });
  assert.equal(refused.result.status, "conflict");
  const stored = JSON.parse(fs.readFileSync(path.join(home, "status.json"), "utf8")).instances.find((i) => i.id === a);
  assert.equal(stored.last_heartbeat, at(0), "a future heartbeat is stored as now");
  const status = await runConductor({ home, now: at(60), ttlSeconds, op: { operation: "status" } });
  assert.equal(status.result.instances.find((i) => i.id === a).heartbeat_age_seconds, 60);
  // A TTL later, with no sign of life, it is an orphan: the claim goes through.
  const later = await runConductor({ home, now: at(ttlSeconds + 1), ttlSeconds, op: { operation: "claim", instance_id: b, files: ["/w/src/x.ts"] } });
  assert.equal(later.result.status, "ok", JSON.stringify(later.result));
  const [orphan] = jsonLines(path.join(home, "history.jsonl"));
  assert.equal(orphan.id, a);
  assert.equal(orphan.outcome, "orphaned");
  assert.match(orphan.reason, /no heartbeat/);
});

test("a corrupt status.json is moved aside, the last good state restored, the operation retried, and it is reported", async () => {
  const { home, id } = await homeWithState();
  const garbage = '{"version": "2.0", "instances": [ {"id": "web-aaaaaa",';
  fs.writeFileSync(path.join(home, "status.json"), garbage);
  const logged = [];
  const answer = await runConductor({ home, now: at(10), op: { operation: "status" }, errorLog: (n) => logged.push(n) });
  assert.equal(answer.result.status, "ok");
  assert.deepEqual(answer.result.instances.map((i) => [i.id, i.files_claimed]), [[id, ["/w/a.ts"]]], "the claim survived through last-good");
  const notice = answer.recovered;
  assert.equal(notice.code, "state_recovered");
  assert.equal(notice.corrupt, "status.json.corrupt-20261123T100010Z");
  assert.equal(notice.restored_from, "status.json.last-good");
  assert.match(notice.problem, /not valid JSON at line 1/);
  assert.match(notice.message, /moved to status\.json\.corrupt-20261123T100010Z and the last good state \(status\.json\.last-good\) was restored/);
  assert.deepEqual(answer.result.recovered, notice, "the result carries the notice for the callers to show");
  assert.deepEqual(logged, [notice]);
  assert.equal(fs.readFileSync(path.join(home, notice.corrupt), "utf8"), garbage, "the corrupt file is kept as it was");
  const restored = JSON.parse(fs.readFileSync(path.join(home, "status.json"), "utf8"));
  assert.deepEqual(restored.instances.map((i) => i.id), [id], "status.json is whole again");
  // An operation the core refuses after a recovery still finds status.json restored.
  fs.writeFileSync(path.join(home, "status.json"), garbage);
  const refused = await runConductor({ home, now: at(10), op: { operation: "heartbeat", instance_id: "web-zzzzzz" } });
  assert.equal(refused.error.code, "unknown_instance");
  assert.equal(refused.recovered.corrupt, "status.json.corrupt-20261123T100010Z-2", "a second corrupt file of the same second gets its own name");
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, "status.json"), "utf8")).instances.map((i) => i.id), [id]);
  // The next operation is normal again.
  const next = await runConductor({ home, now: at(11), op: { operation: "heartbeat", instance_id: id } });
  assert.equal(next.recovered, null);
  assert.equal(next.result.status, "ok");
});

test("a corrupt status.json with a corrupt last-good: both moved aside, the operation runs on an empty state", async () => {
  const { home } = await homeWithState();
  fs.writeFileSync(path.join(home, "status.json"), "not json");
  fs.writeFileSync(path.join(home, "status.json.last-good"), '{"instances": "no"}');
  const answer = await runConductor({ home, now: at(10), op: startOp({ task: "after" }) });
  assert.equal(answer.result.status, "ok");
  assert.equal(answer.recovered.restored_from, null);
  assert.match(answer.recovered.message, /starts from an empty state/);
  const names = fs.readdirSync(home).sort();
  assert.ok(names.includes("status.json.corrupt-20261123T100010Z"));
  assert.ok(names.includes("status.json.last-good.corrupt-20261123T100010Z"));
  const state = JSON.parse(fs.readFileSync(path.join(home, "status.json"), "utf8"));
  assert.deepEqual(state.instances.map((i) => i.task), ["after"]);
});

test("a 20 MB status.json is not read: moved aside as corrupt, last good restored, quickly", async () => {
  const { home, id } = await homeWithState();
  const huge = `{"version": "2.0", "instances": [], "junk": "${"x".repeat(20 << 20)}"}`;
  fs.writeFileSync(path.join(home, "status.json"), huge);
  const t0 = Date.now();
  const answer = await runConductor({ home, now: at(10), op: { operation: "status" } });
  const took = Date.now() - t0;
  assert.match(answer.recovered.problem, /status\.json is 20971\d{3} bytes, over the limit of 16777216 bytes/);
  assert.deepEqual(answer.result.instances.map((i) => i.id), [id]);
  assert.equal(fs.statSync(path.join(home, answer.recovered.corrupt)).size, huge.length);
  assert.ok(took < 2_000, `took ${took} ms`);
});

test("a missing CONDUCTOR_HOME is created, with its missing parents, mode 700", async () => {
  const home = path.join(tempDir(), "a", "b", ".conductor");
  const answer = await runConductor({ home, op: startOp() });
  assert.equal(answer.result.status, "ok");
  assert.equal(fs.statSync(home).mode & 0o777, 0o700);
  assert.ok(fs.existsSync(path.join(home, "status.json")));
});

test("a home that cannot be used fails with conductor_home, what and how to fix it (also for root)", async () => {
  // Root ignores permission bits, so these fail for every user: a regular file, a path
  // under a regular file, and folders of kernel file systems that refuse new entries.
  const file = path.join(tempDir(), "file");
  fs.writeFileSync(file, "x");
  const cases = [[file, /is not a folder/], [path.join(file, "sub"), /is not a folder/],
    ["/sys/kernel", /cannot be written \((EPERM|EACCES|EROFS)\)/], ["/proc/self/conductor", /cannot be written \((ENOENT|EACCES|EPERM)\)/]];
  for (const [home, why] of cases) {
    await assert.rejects(runConductor({ home, op: { operation: "status" } }), (error) => {
      assert.equal(error.code, "conductor_home", home);
      assert.match(error.message, why);
      assert.match(error.message, /the conductor cannot record claims there/);
      assert.match(error.fix, /or set CONDUCTOR_HOME to one/);
      return true;
    });
  }
  assert.equal(fs.readFileSync(file, "utf8"), "x");
  assert.equal(fs.existsSync("/sys/kernel/status.lock"), false);
});

test("pid reuse: an instance whose pid now belongs to another process (other start token) is an orphan", async () => {
  const home = path.join(tempDir(), "home");
  const reused = (await runConductor({ home, op: startOp({ pid: process.pid, process_started: "1@another-boot" }) })).result.instance_id;
  const live = (await runConductor({ home, op: startOp({ pid: process.pid, process_started: processStartToken(process.pid) }) })).result.instance_id;
  const claim = await runConductor({ home, op: { operation: "claim", instance_id: live, files: ["/w/x"] } });
  assert.equal(claim.result.status, "ok");
  const history = jsonLines(path.join(home, "history.jsonl"));
  assert.deepEqual(history.map((h) => [h.id, h.outcome]), [[reused, "orphaned"]]);
  assert.match(history[0].reason, new RegExp(`process ${process.pid} is gone on ${os.hostname()}`));
});

test("liveness helpers: start tokens, alive map (this host, with pid only), dead processes", async () => {
  const token = processStartToken(process.pid);
  assert.match(token, /^\d+@[0-9a-f-]{36}$/);
  assert.equal(processStartToken(process.pid), token, "stable");
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
  await new Promise((r) => child.once("spawn", r));
  const childToken = processStartToken(child.pid);
  assert.notEqual(childToken, token);
  assert.equal(isProcessAlive(child.pid, childToken), true);
  assert.equal(isProcessAlive(child.pid, token), false, "same pid, other start: not the registered process");
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  assert.equal(isProcessAlive(child.pid, childToken), false);
  assert.equal(processStartToken(child.pid), null);
  const host = os.hostname();
  const state = { instances: [
    { id: "a", host, pid: process.pid, process_started: token },
    { id: "b", host, pid: child.pid, process_started: childToken },
    { id: "c", host: "elsewhere", pid: process.pid },
    { id: "d", host, pid: null },
  ] };
  assert.deepEqual(aliveMap(state, host), { a: true, b: false });
});

test("buildRequest: the core's request shape; a random that would repeat a registered id is replaced", () => {
  assert.match(random6(), /^[a-z0-9]{6}$/);
  const state = JSON.stringify({ instances: [{ id: "web-aaaaaa", host: "h" }] });
  const request = buildRequest({ state, sprint: null, now: at(0), random: "aaaaaa", host: "h", ttlSeconds: DEFAULT_TTL_SECONDS, op: startOp() });
  assert.notEqual(request.random, "aaaaaa");
  assert.deepEqual(Object.keys(request).sort(), ["alive", "host", "now", "op", "random", "sprint", "state", "ttlSeconds"]);
  assert.equal(buildRequest({ state, now: at(0), random: "aaaaaa", host: "h", op: startOp({ source: "opc" }) }).random, "aaaaaa");
});

test("canonicalClaim: absolute, real folders, `..` removed, globs kept, a folder claims everything under it", () => {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, "real/src"), { recursive: true });
  fs.writeFileSync(path.join(dir, "real/src/a.ts"), "");
  fs.symlinkSync(path.join(dir, "real"), path.join(dir, "link"));
  const base = path.join(dir, "link");
  assert.equal(canonicalClaim("src/a.ts", base), `${dir}/real/src/a.ts`);
  assert.equal(canonicalClaim("./src/../src/a.ts", base), `${dir}/real/src/a.ts`);
  assert.equal(canonicalClaim("src", base), `${dir}/real/src/**`);
  assert.equal(canonicalClaim("new/", base), `${dir}/real/new/**`, "a trailing slash names a folder, existing or not");
  assert.equal(canonicalClaim("new/file.ts", base), `${dir}/real/new/file.ts`, "missing parts are kept");
  assert.equal(canonicalClaim("src/**/*.ts", base), `${dir}/real/src/**/*.ts`);
  assert.equal(canonicalClaim(`${base}/src/{a,b}.ts`, "/elsewhere"), `${dir}/real/src/{a,b}.ts`);
  assert.equal(canonicalClaim("/*.ts", base), "/*.ts");
  assert.equal(canonicalClaim("../real/src/*", base), `${dir}/real/src/*`);
  // A real name with glob characters is claimed as itself (escaped), not as a glob.
  fs.mkdirSync(path.join(dir, "real/app/[id]"), { recursive: true });
  fs.writeFileSync(path.join(dir, "real/app/[id]/page.tsx"), "");
  const literal = canonicalClaim("app/[id]/page.tsx", base);
  assert.equal(literal, `${dir}/real/app/\\[id\\]/page.tsx`);
  const { conductorCovers } = loadCore();
  assert.equal(conductorCovers(JSON.stringify([literal]), `${dir}/real/app/[id]/page.tsx`), true);
  assert.equal(conductorCovers(JSON.stringify([literal]), `${dir}/real/app/i/page.tsx`), false);
  assert.equal(canonicalClaim("*.tsx", path.join(base, "app/[id]")), `${dir}/real/app/\\[id\\]/*.tsx`, "the folder part is escaped");
  assert.equal(canonicalClaim("app/[id]", base), `${dir}/real/app/\\[id\\]/**`);
  assert.equal(canonicalClaim("app/[id]/new.tsx", base), `${dir}/real/app/\\[id\\]/new.tsx`, "a new file in an existing [id] folder");
  assert.equal(canonicalClaim("app/[id]/*.tsx", base), `${dir}/real/app/\\[id\\]/*.tsx`);
  assert.equal(canonicalClaim("app/[ab]/x.tsx", base), `${dir}/real/app/[ab]/x.tsx`, "a class where nothing exists");
  assert.equal(literalClaim(`${base}/app/[new].tsx`), `${dir}/real/app/\\[new\\].tsx`, "a tool's target is never a glob");
  assert.equal(literalClaim(`${base}/app`, { folder: true }), `${dir}/real/app/**`);
});

test("insideLock runs while the lock is held, after the state is written", async () => {
  const home = path.join(tempDir(), "home");
  let seen;
  await runConductor({
    home, op: startOp(),
    insideLock: ({ result }) => {
      seen = { locked: fs.existsSync(path.join(home, "status.lock", "owner.json")), written: fs.readFileSync(path.join(home, "status.json"), "utf8").includes(result.instance_id) };
    },
  });
  assert.deepEqual(seen, { locked: true, written: true });
  assert.equal(fs.existsSync(path.join(home, "status.lock")), false);
});
