// Real SIGKILLs: workers are killed at random moments of their operations (at least 200
// times), and a holder of claims is killed. Afterwards the files agree with each other, no
// claim is lost or doubled, and no lock is left that blocks.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { loadCore } from "../../plugin/core-loader.js";
import { runConductor } from "../../plugin/conductor/store.js";
import { processStartToken } from "../../plugin/conductor/liveness.js";
import { STALE_MS } from "../../plugin/lock.js";
import { checkState, jsonLines, scratch, spawnWorker } from "./conductor/spawn.mjs";

const { conductorIntersects } = loadCore();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The pid in the conductor lock's owner file, or null when there is no lock. */
function lockOwnerPid(home) {
  try {
    return JSON.parse(fs.readFileSync(path.join(home, "status.lock", "owner.json"), "utf8")).pid;
  } catch {
    return null;
  }
}

test("200+ SIGKILLs in the middle of operations: state parses, agrees with the logs, no claim lost or doubled, no lock left", async (t) => {
  const s = scratch();
  const t0 = Date.now();
  const MID_OP_KILLS = 200;
  let midOp = 0;
  let early = 0;
  let holdingLock = 0;
  // Six slots, each: spawn a worker, wait until it is registered and looping (or not, 1 in 5
  // times: then the kill may land in its start), wait 0-40 ms, SIGKILL it, again.
  async function slot() {
    while (midOp < MID_OP_KILLS) {
      const w = spawnWorker("storm", s);
      const waitReady = Math.random() >= 0.2;
      const ready = waitReady ? await w.line("ready") : false;
      await sleep(waitReady ? Math.random() * 40 : 30 + Math.random() * 120);
      w.child.kill("SIGKILL");
      if (lockOwnerPid(s.home) === w.child.pid) holdingLock++;
      const exit = await w.exited;
      assert.equal(exit.signal, "SIGKILL", `a worker ended on its own: ${w.output()}`);
      if (ready) midOp++;
      else early++;
    }
  }
  await Promise.all(Array.from({ length: 6 }, slot));
  const stormMs = Date.now() - t0;

  // Right after the storm: the files as the killed processes left them.
  const text = fs.readFileSync(path.join(s.home, "status.json"), "utf8");
  const state = checkState(text, conductorIntersects, assert);
  checkState(fs.readFileSync(path.join(s.home, "status.json.last-good"), "utf8"), conductorIntersects, assert);
  const started = new Set(jsonLines(s.events).filter((e) => e.ev === "start").map((e) => e.id));
  const history = jsonLines(path.join(s.home, "history.jsonl"));
  const inHistory = new Set(history.map((h) => h.id));
  const present = new Set(state.instances.map((i) => i.id));
  for (const id of started) assert.ok(present.has(id) || inHistory.has(id), `${id} vanished without a history line`);
  for (const h of history) assert.equal(h.outcome, "orphaned", JSON.stringify(h));
  const conflictLines = fs.existsSync(path.join(s.home, "conflicts.log")) ? fs.readFileSync(path.join(s.home, "conflicts.log"), "utf8") : "";
  assert.ok(conflictLines === "" || conflictLines.endsWith("\n"), "no torn line at the end of conflicts.log");
  for (const line of conflictLines.split("\n").filter(Boolean)) assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \| CONFLICT \| web-\w{6} tried to claim \//);

  // A new operation gets the lock at once (the dead holder's pid is checked), never after
  // more than the stale time; every dead instance goes to history with its claims.
  const t1 = Date.now();
  const cleanup = await runConductor({ home: s.home, op: { operation: "cleanup" }, lock: { waitMs: STALE_MS + 1_000 } });
  const cleanupMs = Date.now() - t1;
  assert.ok(cleanupMs < STALE_MS, `the first operation after the storm took ${cleanupMs} ms`);
  assert.equal(cleanup.result.status, "ok");
  assert.deepEqual(new Set(cleanup.result.removed), present, "every registered worker is dead and removed");
  const after = checkState(fs.readFileSync(path.join(s.home, "status.json"), "utf8"), conductorIntersects, assert);
  assert.deepEqual(after.instances, []);
  assert.deepEqual(after.global_claims, {});
  const historyAfter = jsonLines(path.join(s.home, "history.jsonl"));
  for (const id of present) assert.ok(historyAfter.some((h) => h.id === id && h.outcome === "orphaned"), `${id} has no history line`);
  assert.deepEqual(fs.readdirSync(s.home).filter((n) => n.includes("nso-tmp") || n.startsWith("status.lock")), [], "no temp file or lock left");

  assert.ok(midOp >= MID_OP_KILLS);
  t.diagnostic(`${midOp + early} kills (${midOp} after registration, ${early} during start-up), ${holdingLock} while holding the lock; ` +
    `${started.size} instances registered, ${history.length} orphaned during the storm; storm ${stormMs} ms, first operation after it ${cleanupMs} ms`);
});

test("a holder of claims killed with SIGKILL: another instance claims its files at once (same-host pid check)", async () => {
  const s = scratch();
  const file = `${s.root}/src/api/users.ts`;
  const holder = spawnWorker("hang", s, file);
  assert.ok(await holder.line("claimed"), holder.output());
  const me = { host: undefined, pid: process.pid, process_started: processStartToken(process.pid) };
  const start = await runConductor({ home: s.home, op: { operation: "start", task: "take over", priority: "P1", working_directory: s.root, project_root: s.root, source: "opc", ...me } });
  const id = start.result.instance_id;
  const blocked = await runConductor({ home: s.home, op: { operation: "claim", instance_id: id, files: [`${s.root}/src/**`] } });
  assert.equal(blocked.result.status, "conflict", "while the holder runs, its claim holds");

  holder.child.kill("SIGKILL");
  await holder.exited;
  const t0 = Date.now();
  const claim = await runConductor({ home: s.home, op: { operation: "claim", instance_id: id, files: [`${s.root}/src/**`] } });
  const took = Date.now() - t0;
  assert.equal(claim.result.status, "ok", JSON.stringify(claim.result));
  assert.ok(took < 10_000, `took ${took} ms`);
  const history = jsonLines(path.join(s.home, "history.jsonl"));
  assert.equal(history.length, 1);
  assert.equal(history[0].outcome, "orphaned");
  assert.match(history[0].reason, new RegExp(`process ${holder.child.pid} is gone`));
});
