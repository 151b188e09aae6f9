// The conductor's inter-process lock (plugin/lock.js) with real processes: mutual
// exclusion under contention, a SIGKILLed holder, a stopped holder, the stale-takeover race.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { acquireLock, LOCK_NAME } from "../../plugin/conductor/lock.js";
import { guardedFs, STALE_MS } from "../../plugin/lock.js";

const WORKER = new URL("./conductor/lock-worker.mjs", import.meta.url).pathname;
const tempHome = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-conductor-lock-")));

/** Spawns the lock worker; `line(text)` resolves when it prints that line. */
function worker(...args) {
  const child = spawn(process.execPath, [WORKER, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiters = [];
  child.stdout.on("data", (d) => {
    out += d;
    for (const w of waiters) if (out.includes(`${w.text}\n`)) w.resolve();
  });
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return {
    child, exited,
    output: () => out,
    errors: () => err,
    line: (text) => new Promise((resolve) => {
      if (out.includes(`${text}\n`)) resolve();
      else waiters.push({ text, resolve });
    }),
  };
}

/** A lock folder as another process would have left it. */
function plantLock(home, owner, ageMs) {
  const dir = path.join(home, LOCK_NAME);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "owner.json"), JSON.stringify(owner));
  const t = new Date(Date.now() - ageMs);
  fs.utimesSync(dir, t, t);
  return dir;
}

test("16 processes contend for the lock: never two inside, no lost update", async () => {
  const home = tempHome();
  const workers = Array.from({ length: 16 }, () => worker("count", home, "25"));
  const results = await Promise.all(workers.map((w) => w.exited));
  for (const [i, r] of results.entries()) assert.deepEqual(r, { code: 0, signal: null }, `worker ${i}: ${workers[i].output()}${workers[i].errors()}`);
  assert.equal(fs.readFileSync(path.join(home, "counter"), "utf8"), String(16 * 25));
  assert.equal(fs.existsSync(path.join(home, LOCK_NAME)), false, "the lock is released");
});

test("a holder killed with SIGKILL: the next process takes the lock at once (dead pid), not after the stale time", async () => {
  const home = tempHome();
  const holder = worker("hold", home);
  await holder.line("locked");
  holder.child.kill("SIGKILL");
  await holder.exited;
  const t0 = Date.now();
  const lock = await acquireLock(home, { waitMs: 2_000 });
  const took = Date.now() - t0;
  lock.assertHeld();
  await lock.release();
  assert.ok(took < 1_000, `took ${took} ms`);
});

test("a live holder blocks; the wait ends with conductor_locked naming the holder", async () => {
  const home = tempHome();
  const holder = worker("hold", home);
  await holder.line("locked");
  try {
    await assert.rejects(acquireLock(home, { waitMs: 300 }), (error) => {
      assert.equal(error.code, "conductor_locked");
      assert.match(error.message, new RegExp(`held by pid ${holder.child.pid} on `));
      assert.match(error.fix, /Try again/);
      return true;
    });
  } finally {
    holder.child.kill("SIGKILL");
    await holder.exited;
  }
});

test("a stopped holder (no refresh) loses the lock after the stale time and must not write", async () => {
  const home = tempHome();
  const holder = worker("stall", home);
  await holder.line("locked");
  holder.child.kill("SIGSTOP");
  const t0 = Date.now();
  const lock = await acquireLock(home, { waitMs: STALE_MS + 5_000 });
  const took = Date.now() - t0;
  lock.assertHeld();
  holder.child.kill("SIGCONT");
  holder.child.stdin.write("go\n");
  await holder.line("conductor_lock_lost");
  lock.assertHeld(); // the stopped holder's release did not remove our lock
  await lock.release();
  await holder.exited;
  assert.ok(took >= STALE_MS - 1_000 && took < STALE_MS + 3_000, `took ${took} ms`);
});

test("a stale lock of another host is broken after the stale time; one waiter of many wins it at a time", async () => {
  const home = tempHome();
  plantLock(home, { pid: 1, host: "elsewhere", at: "2026-01-01T00:00:00Z", nonce: "x" }, 60_000);
  const workers = Array.from({ length: 12 }, () => worker("count", home, "3"));
  const results = await Promise.all(workers.map((w) => w.exited));
  for (const [i, r] of results.entries()) assert.equal(r.code, 0, `worker ${i}: ${workers[i].output()}${workers[i].errors()}`);
  assert.equal(fs.readFileSync(path.join(home, "counter"), "utf8"), String(12 * 3));
});

test("takeover guard: a breaker that judged an old lock stale never removes the fresh lock that replaced it", () => {
  const home = tempHome();
  const dir = plantLock(home, { pid: 1, host: "elsewhere", nonce: "old" }, 60_000);
  // B looks at the stale lock...
  const b = { mine: null, seen: null, compromised: null };
  const fsB = guardedFs(JSON.stringify({ nonce: "b" }), b, STALE_MS);
  fsB.stat(dir, () => {});
  const seen = fs.statSync(dir);
  b.seen = { owner: fs.readFileSync(path.join(dir, "owner.json"), "utf8"), ino: seen.ino };
  // ...meanwhile A breaks it and takes a fresh lock...
  const a = { mine: null, seen: b.seen, compromised: null };
  const fsA = guardedFs(JSON.stringify({ nonce: "a" }), a, STALE_MS);
  fsA.rmdirSync(dir);
  assert.equal(fs.existsSync(dir), false, "A removed the stale lock");
  fsA.mkdir(dir, (error) => assert.equal(error, null));
  assert.equal(a.mine, JSON.stringify({ nonce: "a" }));
  // ...then B, late, removes "the stale lock": A's fresh lock must survive.
  fsB.rmdirSync(dir);
  assert.equal(fs.readFileSync(path.join(dir, "owner.json"), "utf8"), JSON.stringify({ nonce: "a" }));
  // A lock folder is never replaced by a second mkdir, and a release removes only one's own.
  fsB.mkdir(dir, (error) => assert.equal(error.code, "EEXIST"));
  const c = { mine: JSON.stringify({ nonce: "c" }), seen: null, compromised: null };
  guardedFs(c.mine, c, STALE_MS).rmdirSync(dir);
  assert.equal(fs.readFileSync(path.join(dir, "owner.json"), "utf8"), JSON.stringify({ nonce: "a" }));
  fsA.rmdirSync(dir);
  assert.equal(fs.existsSync(dir), false);
  assert.deepEqual(fs.readdirSync(home), [], "no temp or aside folders left");
});

test("takeover guard: a lock judged stale whose holder refreshed it meanwhile is put back, not removed", () => {
  const home = tempHome();
  const owner = { pid: 1, host: "elsewhere", nonce: "slow" };
  const dir = plantLock(home, owner, 60_000);
  const b = { mine: null, seen: null, compromised: null };
  const fsB = guardedFs(JSON.stringify({ nonce: "b" }), b, STALE_MS);
  const before = fs.statSync(dir);
  b.seen = { owner: JSON.stringify(owner), ino: before.ino };
  fs.utimesSync(dir, new Date(), new Date()); // the holder's refresh, after B judged it stale
  fsB.rmdirSync(dir);
  assert.equal(fs.statSync(dir).ino, before.ino, "the same lock folder is in place");
  assert.equal(fs.readFileSync(path.join(dir, "owner.json"), "utf8"), JSON.stringify(owner));
  assert.deepEqual(fs.readdirSync(home), [LOCK_NAME], "nothing left aside");
  // Judged again once it is really stale, it goes; so does a stale lock without an owner file.
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(dir, old, old);
  fsB.rmdirSync(dir);
  assert.equal(fs.existsSync(dir), false);
  fs.mkdirSync(path.join(dir, "junk"), { recursive: true });
  fs.utimesSync(dir, old, old);
  b.seen = { owner: null, ino: fs.statSync(dir).ino };
  fsB.rmdirSync(dir);
  assert.deepEqual(fs.readdirSync(home), []);
});
