// Spawning the conductor test workers, and reading what they leave behind.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";

const WORKER = new URL("./worker.mjs", import.meta.url).pathname;

/** A fresh folder for one test: `home` (CONDUCTOR_HOME, not created), `events`, `root`. */
export function scratch() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-conductor-")));
  return { dir, home: path.join(dir, "home"), events: path.join(dir, "events.jsonl"), root: path.join(dir, "project") };
}

/** Spawns worker.mjs; `line(text)` resolves when it prints that line (or it exits). */
export function spawnWorker(mode, { home, root, events }, arg = "") {
  const child = spawn(process.execPath, [WORKER, mode, home, root, events, String(arg)], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiters = [];
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => {
    for (const w of waiters) w.resolve(false);
    resolve({ code, signal });
  }));
  child.stdout.on("data", (d) => {
    out += d;
    for (const w of waiters) if (out.includes(`${w.text}\n`)) w.resolve(true);
  });
  child.stderr.on("data", (d) => (err += d));
  return {
    child, exited,
    output: () => out + err,
    line: (text) => new Promise((resolve) => {
      if (out.includes(`${text}\n`)) resolve(true);
      else if (child.exitCode !== null || child.signalCode !== null) resolve(false);
      else waiters.push({ text, resolve });
    }),
  };
}

/** The JSON lines of `file` (none when missing); a line that does not parse fails the test. */
export function jsonLines(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

/**
 * The invariants of a status.json text: it parses, `global_claims` is exactly the claims the
 * instances list (each pattern to its one holder), and no two instances hold intersecting
 * patterns. Returns the parsed state; throws an AssertionError naming what is wrong.
 */
export function checkState(text, intersects, assert) {
  const state = JSON.parse(text);
  assert.equal(state.version, "2.0");
  const derived = {};
  for (const i of state.instances) {
    for (const p of i.files_claimed) {
      assert.equal(derived[p], undefined, `${p} is listed by ${derived[p]} and ${i.id}`);
      derived[p] = i.id;
    }
  }
  assert.deepEqual(state.global_claims, derived, "global_claims is the union of files_claimed");
  for (const [a, i] of state.instances.entries()) {
    for (const b of state.instances.slice(a + 1)) {
      for (const p of i.files_claimed) for (const q of b.files_claimed) assert.ok(!intersects(p, q), `${i.id} holds ${p}, ${b.id} holds ${q}`);
    }
  }
  return state;
}
