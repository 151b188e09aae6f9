// A PostgreSQL server may end a connection in the very packet that completed it (a server
// shutting down does this to the connections it had just accepted). node-postgres then emits
// 'error' on a connection pg-pool has just handed out, before any code of the caller runs:
// that must not end the process running NSO (OpenCode, the CLI, a hook). The store's
// operation fails with a store error instead. The server here is a stand-in on 127.0.0.1 that
// speaks just enough of the protocol to do that.
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { openStore } from "../../plugin/conductor/stores.js";

const message = (type, body) => {
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
};
const int32 = (n) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
/** An ErrorResponse: FATAL 57P01, as a server in a fast shutdown sends it. */
const fatal = message("E", Buffer.concat([
  ...[["S", "FATAL"], ["V", "FATAL"], ["C", "57P01"], ["M", "terminating connection due to administrator command"]]
    .map(([code, text]) => Buffer.from(`${code}${text}\0`)),
  Buffer.from("\0"),
]));

/** Accepts every connection (authentication OK, ready) and ends it in the same packet. */
async function shuttingDownServer() {
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.once("data", () => socket.end(Buffer.concat([message("R", int32(0)), message("Z", Buffer.from("I")), fatal])));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: server.address().port,
    connections: () => sockets.size,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

test("a connection ended by the server as it was made fails the operation, and never the process", async () => {
  const server = await shuttingDownServer();
  const uncaught = [];
  const onUncaught = (error) => uncaught.push(error);
  process.on("uncaughtException", onUncaught);
  try {
    const store = openStore({ store: { type: "postgres", host: "127.0.0.1", port: server.port, user: "nso", database: "nso",
      namespace: "fatal", connectTimeoutMs: 1000, timeoutMs: 1000 } }, { env: {} });
    for (let i = 0; i < 3; i++) {
      await assert.rejects(store.run({ op: { operation: "status" }, host: "h" }), (error) => {
        assert.equal(error.code, "conductor_store", error.message);
        return true;
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // late 'error' events of the closed connections
    assert.ok(server.connections() >= 3, "each operation met the server");
    assert.deepEqual(uncaught.map((e) => e.message), []);
    await store.close();
  } finally {
    process.off("uncaughtException", onUncaught);
    server.close();
  }
});
