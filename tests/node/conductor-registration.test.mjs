// A window's registration with a PostgreSQL claim store whose connections time out (a loaded
// server): a proxy on 127.0.0.1 swallows the first connections without a word, so the driver's
// connection timeout fires. The registration at the first message is retried with backoff,
// every failure is logged with its cause, a final failure reaches the person and Mission
// Control, and the instance registered later still carries the task of the first message.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createClaims } from "../../plugin/claims.js";
import { registrationEvent } from "../../plugin/conductor/registration.js";
import { closeStores } from "../../plugin/conductor/stores.js";
import { agentRows } from "../../bin/mc/agents.js";
import { stopTestServer, storedState, testServer } from "./conductor/stores.mjs";

let server;
before(async () => {
  server = await testServer();
  process.env.NSO_TEST_DB_PASSWORD = server.password; // the proxy's port is not in the pgpass file
});
after(async () => {
  await closeStores();
  stopTestServer();
});

/**
 * A TCP proxy to the test server that leaves the first `swallow` connections unanswered
 * (counted in `seen`), then forwards. `swallow = Infinity` until `open()`.
 */
async function stallingProxy(swallow) {
  const sockets = new Set();
  const proxy = { seen: 0, swallow, port: 0 };
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    if (proxy.seen++ < proxy.swallow) return; // silence: the client's connect timeout fires
    const upstream = net.connect(server.port, "127.0.0.1");
    sockets.add(upstream);
    upstream.on("error", () => socket.destroy());
    upstream.on("close", () => sockets.delete(upstream));
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise((resolve) => listener.listen(0, "127.0.0.1", resolve));
  proxy.port = listener.address().port;
  proxy.close = () => {
    for (const s of sockets) s.destroy();
    listener.close();
  };
  return proxy;
}

function windowClaims(port, namespace, log, surfaced) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-registration-")));
  fs.mkdirSync(path.join(root, "src"));
  const store = { type: "postgres", host: "127.0.0.1", port, user: "nso", database: "postgres", namespace, passwordEnv: "NSO_TEST_DB_PASSWORD",
    connectTimeoutMs: 1000, timeoutMs: 5000 }; // a loaded machine still connects in time once forwarded
  const claims = createClaims({
    root, settings: () => ({ mode: "enforce", ttlSeconds: 600, store }), errorLog: (text) => log.push(text),
    surface: (event) => surfaced.push(event), retryDelays: [50, 100, 200],
  });
  return { root, claims };
}

test("connection timeouts at registration: retried with backoff, each failure logged with its cause, the task kept", async () => {
  const proxy = await stallingProxy(2);
  const log = [];
  const surfaced = [];
  const { root, claims } = windowClaims(proxy.port, "reg1", log, surfaced);
  try {
    const inst = claims.register("ses_main", { task: "migrate the billing tables", agent: "build", retry: true });
    await inst.ready;
    assert.equal(proxy.seen, 3, "two swallowed connections, the third forwarded");
    const failures = log.filter((l) => /failed \(attempt \d of 4, retrying in/.test(l));
    assert.equal(failures.length, 2, log.join("\n"));
    assert.match(failures[0], /registering this window's conductor instance for "migrate the billing tables" failed \(attempt 1 of 4, retrying in 0\.05 s\): the PostgreSQL claim store .* cannot be used/);
    assert.match(failures[0], /timeout/i, "the cause is named");
    assert.ok(log.some((l) => /succeeded at attempt 3/.test(l)));
    assert.deepEqual(surfaced.map((e) => [e.final, e.recovered, e.session]), [[false, true, "ses_main"]]);
    assert.deepEqual((await claims.status()).instances.map((i) => i.task), ["migrate the billing tables"]);
    const answer = await claims.claimPaths("ses_main", "build", [path.join(root, "src/a.ts")]);
    assert.equal(answer.status, "ok");
  } finally {
    claims.dispose?.();
    proxy.close();
  }
});

test("a registration that keeps timing out is surfaced to the person and Mission Control; the later one keeps the first message's task", async () => {
  const proxy = await stallingProxy(Infinity);
  const log = [];
  const surfaced = [];
  const { root, claims } = windowClaims(proxy.port, "reg2", log, surfaced);
  try {
    const inst = claims.register("ses_main", { task: "migrate the billing tables", agent: "build", retry: true });
    await assert.rejects(inst.ready, (error) => error.code === "conductor_store");
    assert.equal(proxy.seen, 4, "one attempt and three retries");
    assert.equal(log.filter((l) => /retrying in/.test(l)).length, 3);
    assert.match(log.at(-1), /failed after 4 attempt\(s\): .*timeout.*; it is tried again at the next call that needs a claim/i);
    assert.equal(surfaced.length, 1);
    assert.equal(surfaced[0].final, true);
    assert.equal(surfaced[0].task, "migrate the billing tables");

    // What the person and Mission Control see of it.
    const told = [];
    const records = [];
    registrationEvent({ event: surfaced[0], notify: (text) => told.push(text), activity: { record: (kind, fields) => records.push({ kind, ...fields }) } });
    assert.match(told[0], /^NSO conductor: registering this window's conductor instance for "migrate the billing tables" failed after 4 attempt/);
    const feed = { records: [{ v: 1, t: Date.now() - 1, kind: "session", session: "ses_main", agent: "build" }, ...records.map((r, i) => ({ v: 1, t: Date.now() + i, ...r }))] };
    const rows = agentRows(feed, { key: "k", project: "shop", root, alive: true }, { now: Date.now() });
    assert.match(rows[0].storeProblem.message, /failed after 4 attempt/);

    // The store answers again: a write registers (one attempt) with the first message's task.
    proxy.swallow = 0;
    const answer = await claims.claimPaths("ses_main", "build", [path.join(root, "src/a.ts")]);
    assert.equal(answer.status, "ok");
    const instances = JSON.parse(await storedState(server, "reg2")).instances;
    assert.deepEqual(instances.map((i) => i.task), ["migrate the billing tables"]);
  } finally {
    claims.dispose?.();
    proxy.close();
  }
});
