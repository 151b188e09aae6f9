// Every documented way of naming the PostgreSQL claim store connects: a URL (with the password
// from passwordEnv, PGPASSWORD or a pgpass file), host/port/user/database fields, fields over a
// URL, and a Unix socket folder. Each form runs a real operation against a real server.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createPgStore } from "../../plugin/conductor/pg-store.js";
import { stopTestServer, testServer } from "./conductor/stores.mjs";

let server;
let n = 0;
const startOp = { operation: "start", task: "t", priority: "P1", working_directory: "/w", project_root: "/w", source: "web" };

before(async () => {
  server = await testServer();
});
after(stopTestServer);

/** The environment without any password source but the ones a case adds. */
function envWith(extra = {}) {
  const env = { ...process.env, PGPASSFILE: "/nonexistent/pgpass", ...extra };
  if (!("PGPASSWORD" in extra)) delete env.PGPASSWORD;
  return env;
}

async function connects(settings, env) {
  const store = createPgStore({ type: "postgres", namespace: `c${++n}`, connectTimeoutMs: 2000, ...settings }, { env });
  assert.match(store.describe, new RegExp(`^nso@.+:${server.port}/postgres `), "messages name the store as configured");
  try {
    const answer = await store.run({ op: startOp });
    assert.equal(answer.result.status, "ok");
  } finally {
    await store.close();
  }
}

test("a URL without a password and passwordEnv connects (the URL's empty password does not win)", async () => {
  await connects({ url: `postgres://nso@127.0.0.1:${server.port}/postgres`, passwordEnv: "TEAM_PW" }, envWith({ TEAM_PW: server.password }));
});

test("a URL with PGPASSWORD, and a URL with a pgpass file, connect", async () => {
  const url = `postgres://nso@127.0.0.1:${server.port}/postgres`;
  await connects({ url }, envWith({ PGPASSWORD: server.password }));
  await connects({ url }, envWith({ PGPASSFILE: server.env.PGPASSFILE }));
});

test("host, port, user and database fields with passwordEnv connect, also over a URL naming another port", async () => {
  await connects({ host: "127.0.0.1", port: server.port, user: "nso", database: "postgres", passwordEnv: "TEAM_PW" }, envWith({ TEAM_PW: server.password }));
  await connects({ url: "postgres://nso@127.0.0.1:1/postgres", port: server.port, passwordEnv: "TEAM_PW" }, envWith({ TEAM_PW: server.password }));
});

test("a Unix socket folder as host (field or URL) connects", async () => {
  await connects({ host: server.dir, port: server.port, user: "nso", database: "postgres", passwordEnv: "TEAM_PW" }, envWith({ TEAM_PW: server.password }));
  await connects({ url: `postgres://nso@/postgres?host=${encodeURIComponent(server.dir)}&port=${server.port}`, passwordEnv: "TEAM_PW" },
    envWith({ TEAM_PW: server.password }));
});

test("a wrong password from passwordEnv is an authentication error naming the store", async () => {
  await assert.rejects(connects({ url: `postgres://nso@127.0.0.1:${server.port}/postgres`, passwordEnv: "TEAM_PW" }, envWith({ TEAM_PW: "wrong" })),
    (error) => error.code === "conductor_store" && error.kind === "auth" && /nso@127\.0\.0\.1:\d+\/postgres/.test(error.message));
});
