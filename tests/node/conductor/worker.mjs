// A child process for the conductor tests: one conductor instance of its own (pid and start
// token recorded), running operations through plugin/conductor/store.js.
// Usage: node worker.mjs MODE HOME ROOT EVENTS [ROUNDS|PATTERN]
//   loop:  start; ROUNDS times claim 1-2 random patterns of a pool of overlapping paths and
//          globs under ROOT, then release all; done. Prints "done" at the end.
//   storm: the same without end (the test kills it); prints "ready" after its start.
//   hang:  start, claim PATTERN, print "claimed", hold it until killed.
// Inside the lock (insideLock), each operation that changed something appends one event to
// EVENTS: {seq, pid, id, ev, patterns}. seq comes from EVENTS.seq, read and incremented under
// the lock: a second holder at the same moment shows as a repeated or skipped number.
import fs from "node:fs";
import { runConductor } from "../../../plugin/conductor/store.js";
import { processStartToken } from "../../../plugin/conductor/liveness.js";

const [mode, home, root, events, arg] = process.argv.slice(2);
const POOL = ["src/a.ts", "src/b.ts", "src/**", "src/*.ts", "src/api/users.ts", "src/api/**", "lib/x.js", "lib/{x,y}.js",
  "lib/**", "docs/readme.md", "docs/*.md", "**/*.md", "test/[ab].js", "test/a.js"].map((p) => `${root}/${p}`);
const pick = () => POOL[Math.floor(Math.random() * POOL.length)];

let id = null;

function record(ev, patterns) {
  const seqFile = `${events}.seq`;
  const seq = Number(fs.existsSync(seqFile) ? fs.readFileSync(seqFile, "utf8") : 0) + 1;
  fs.writeFileSync(seqFile, String(seq));
  fs.appendFileSync(events, `${JSON.stringify({ seq, pid: process.pid, id, ev, patterns })}\n`);
}

async function op(operation, fields, onOk) {
  const answer = await runConductor({
    home, op: { operation, ...fields },
    insideLock: ({ result }) => {
      if (result?.status === "ok") onOk?.(result);
    },
  });
  if (answer.error) throw new Error(`${operation}: ${answer.error.code}: ${answer.error.message}`);
  return answer.result;
}

await op("start", {
  task: `worker ${process.pid}`, project: "race", priority: "P1", working_directory: root, project_root: root, source: "web",
  pid: process.pid, process_started: processStartToken(process.pid), agent: "dev", session: null,
}, (result) => {
  id = result.instance_id;
  record("start", []);
});

if (mode === "hang") {
  await op("claim", { instance_id: id, files: [arg] }, (result) => record("acquire", result.claimed));
  console.log("claimed");
  setInterval(() => {}, 1000);
} else {
  if (mode === "storm") console.log("ready");
  const rounds = mode === "storm" ? Infinity : Number(arg);
  for (let i = 0; i < rounds; i++) {
    const files = Math.random() < 0.5 ? [pick()] : [pick(), pick()];
    const claim = await op("claim", { instance_id: id, files }, (result) => record("acquire", result.claimed));
    if (claim.status === "ok") {
      if (Math.random() < 0.3) await new Promise((r) => setTimeout(r, Math.random() * 3));
      await op("release", { instance_id: id, all: true }, (result) => record("release", result.released));
    }
  }
  await op("done", { instance_id: id, outcome: "success" }, () => record("done", []));
  console.log("done");
}
