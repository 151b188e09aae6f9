// 16 real processes claim and release overlapping paths and globs in one CONDUCTOR_HOME. The
// test replays what each recorded inside the lock: never two instances holding intersecting
// claims at one moment, and the lock's own sequence has no repeat or gap.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { loadCore } from "../../plugin/core-loader.js";
import { checkState, jsonLines, scratch, spawnWorker } from "./conductor/spawn.mjs";

const { conductorIntersects } = loadCore();

test("16 processes x 12 rounds of claim/release on overlapping globs: no intersecting claims held at once", async (t) => {
  const s = scratch();
  const t0 = Date.now();
  const workers = Array.from({ length: 16 }, () => spawnWorker("loop", s, 12));
  const exits = await Promise.all(workers.map((w) => w.exited));
  for (const [i, e] of exits.entries()) assert.deepEqual(e, { code: 0, signal: null }, `worker ${i}: ${workers[i].output()}`);

  const events = jsonLines(s.events);
  assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), "one holder at a time: the sequence taken under the lock is 1..n");
  const held = new Map(); // instance id -> patterns held
  let acquired = 0;
  for (const e of events) {
    if (e.ev === "acquire") {
      for (const [other, patterns] of held) {
        if (other === e.id) continue;
        for (const p of e.patterns) for (const q of patterns) assert.ok(!conductorIntersects(p, q), `seq ${e.seq}: ${e.id} acquired ${p} while ${other} held ${q}`);
      }
      held.set(e.id, [...(held.get(e.id) ?? []), ...e.patterns]);
      acquired++;
    } else if (e.ev === "release") {
      held.set(e.id, (held.get(e.id) ?? []).filter((p) => !e.patterns.includes(p)));
    } else if (e.ev === "done") held.delete(e.id);
  }
  assert.equal(events.filter((e) => e.ev === "start").length, 16);
  assert.equal(events.filter((e) => e.ev === "done").length, 16);
  assert.ok(acquired >= 16, `only ${acquired} claims succeeded`);
  const state = checkState(fs.readFileSync(path.join(s.home, "status.json"), "utf8"), conductorIntersects, assert);
  assert.deepEqual(state.instances, [], "every worker finished with done");
  const history = jsonLines(path.join(s.home, "history.jsonl"));
  assert.equal(history.filter((h) => h.outcome === "success").length, 16);
  const conflictLines = fs.readFileSync(path.join(s.home, "conflicts.log"), "utf8").trim().split("\n");
  assert.ok(conflictLines.every((l) => / \| CONFLICT \| web-\w{6} tried to claim \//.test(l)), conflictLines.find((l) => !/CONFLICT/.test(l)));
  t.diagnostic(`${events.length} operations in lock order, ${acquired} claims granted, ${conflictLines.length} conflicts, ${Date.now() - t0} ms`);
});
