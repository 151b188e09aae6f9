// A child process for tests/node/conductor-lock.test.mjs: takes the conductor lock of a home
// folder in one of several ways. Usage: node lock-worker.mjs MODE HOME [ROUNDS]
//   count: ROUNDS times: lock, check nobody else is inside (a marker file made with O_EXCL),
//          increment a counter file without atomicity (a lost update shows a second holder),
//          unlock. Prints "violation ..." and exits 3 if another live holder was inside.
//   hold:  locks, prints "locked", holds until killed.
//   stall: locks, prints "locked", waits for a line on stdin, then prints "held" or the
//          error code of assertHeld (the test stops and continues it in between).
import fs from "node:fs";
import path from "node:path";
import { acquireLock } from "../../../plugin/conductor/lock.js";
import { pidExists } from "../../../plugin/conductor/liveness.js";

const [mode, home, rounds = "20"] = process.argv.slice(2);
const marker = path.join(home, "inside");
const counter = path.join(home, "counter");

function enter() {
  for (;;) {
    try {
      fs.writeFileSync(marker, String(process.pid), { flag: "wx" });
      return;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    const other = Number(fs.readFileSync(marker, "utf8"));
    // Left by a holder killed inside: its lock was broken because it is dead.
    if (other && pidExists(other)) {
      console.log(`violation: ${other} is inside while ${process.pid} holds the lock`);
      process.exit(3);
    }
    fs.rmSync(marker, { force: true });
  }
}

if (mode === "count") {
  for (let i = 0; i < Number(rounds); i++) {
    const lock = await acquireLock(home);
    enter();
    const n = Number(fs.existsSync(counter) ? fs.readFileSync(counter, "utf8") : 0);
    if (Math.random() < 0.3) await new Promise((r) => setTimeout(r, Math.random() * 3));
    fs.writeFileSync(counter, String(n + 1));
    fs.rmSync(marker);
    lock.assertHeld();
    await lock.release();
  }
  console.log("done");
} else if (mode === "hold" || mode === "stall") {
  const lock = await acquireLock(home);
  console.log("locked");
  if (mode === "hold") setInterval(() => {}, 1000);
  else {
    process.stdin.once("data", async () => {
      try {
        lock.assertHeld();
        console.log("held");
      } catch (error) {
        console.log(error.code);
      }
      await lock.release();
      process.exit(0);
    });
  }
}
