// A child process for the PostgreSQL store tests: one conductor instance of its own on a
// simulated host, running operations through the store the plugin uses (stores.js).
// Usage: node pg-worker.mjs MODE SETTINGS_JSON HOST ROOT [ROUNDS]
//   loop:  start; ROUNDS times claim 1-2 random patterns of a pool of overlapping paths and
//          globs under ROOT, then release all; done. Store errors (the server restarting) are
//          retried. Prints "done <errors>" at the end.
//   plain: loop without the test hook inside the transaction (the store's own path: write,
//          COMMIT and unlock in one call); the test audits the claim rows instead.
//   storm: the same without end (the test kills it); prints "ready" after its start, and
//          "in-tx <revision>" from inside a transaction whose writes are made but not yet
//          committed (it then waits 3 s there, so the test's kill lands in it).
// Inside the transaction, each operation that changed the state inserts one row into
// nso_test_events {namespace, revision, pid, id, ev, patterns}: committed with the state or
// not at all, so the events replay exactly what the database decided, in revision order.
import { openStore } from "../../../plugin/conductor/stores.js";
import { processStartToken } from "../../../plugin/conductor/liveness.js";

const [mode, settingsJson, host, root, arg] = process.argv.slice(2);
const looping = mode === "loop" || mode === "plain";
const settings = JSON.parse(settingsJson);
const store = openStore({ store: settings }, { env: process.env });
const POOL = ["src/a.ts", "src/b.ts", "src/**", "src/*.ts", "src/api/users.ts", "src/api/**", "lib/x.js", "lib/{x,y}.js",
  "lib/**", "docs/readme.md", "docs/*.md", "**/*.md", "test/[ab].js", "test/a.js"].map((p) => `${root}/${p}`);
const pick = () => POOL[Math.floor(Math.random() * POOL.length)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let id = null;
let errors = 0;

async function record(client, answer, ev) {
  if (!answer.changed || answer.result?.status !== "ok") return;
  const patterns = ev === "acquire" ? answer.result.claimed : ev === "release" ? answer.result.released : [];
  await client.query("INSERT INTO nso_test_events (namespace, revision, pid, id, ev, patterns) VALUES ($1, $2, $3, $4, $5, $6)",
    [settings.namespace, answer.version, process.pid, id ?? answer.result.instance_id, ev, patterns]);
  if (mode === "storm" && id !== null && Math.random() < 0.4) { // after "ready": the test is watching
    console.log(`in-tx ${answer.version}`);
    await sleep(3000); // the test kills it here; 3 s leaves room for a slow, loaded machine
  }
}

/** One operation; a store error (unreachable, timeout) is retried in loop mode. */
async function op(operation, fields, ev) {
  for (;;) {
    try {
      const insideLock = mode === "plain" ? undefined : (a, client) => record(client, a, ev);
      const answer = await store.run({ op: { operation, ...fields }, host, insideLock });
      // A done whose COMMIT went through before the connection broke, retried: already done.
      if (answer.error?.code === "unknown_instance" && operation === "done" && errors) return { status: "ok" };
      if (answer.error) throw new Error(`${operation}: ${answer.error.code}: ${answer.error.message}`);
      return answer.result;
    } catch (error) {
      if (error.code !== "conductor_store" || !looping) throw error;
      errors++;
      await sleep(50);
      // A start whose COMMIT went through before the connection broke: adopt that instance.
      if (operation === "start") {
        const mine = await store.run({ op: { operation: "status" }, host }).then((a) => a.result.instances.find((i) => i.pid === process.pid && i.host === host), () => null);
        if (mine) return { status: "ok", instance_id: mine.id };
      }
    }
  }
}

const started = await op("start", {
  task: `worker ${process.pid}`, project: "race", priority: "P1", working_directory: root, project_root: root, source: "web",
  pid: process.pid, process_started: processStartToken(process.pid), host, agent: "dev", session: null,
}, "start");
id = started.instance_id;

if (mode === "storm") console.log("ready");
const rounds = mode === "storm" ? Infinity : Number(arg);
for (let i = 0; i < rounds; i++) {
  const files = Math.random() < 0.5 ? [pick()] : [pick(), pick()];
  const claim = await op("claim", { instance_id: id, files }, "acquire");
  if (claim.status === "ok") {
    if (Math.random() < 0.3) await sleep(Math.random() * 3);
    await op("release", { instance_id: id, all: true }, "release");
  }
}
await op("done", { instance_id: id, outcome: "success" }, "done");
await store.close();
console.log(`done ${errors}`);
