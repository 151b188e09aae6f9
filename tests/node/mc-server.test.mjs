// Mission Control's HTTP side (bin/mc/server.js), without a browser: who may ask (token, Host,
// Origin), what every answer carries (CSP), where it listens (127.0.0.1 only), the SSE stream
// (snapshot, then deltas when a feed grows, a new instance, a process dies), the person's two
// actions on claims, the decision ledger. Feed files are written by hand, as the contract
// (docs/mission-control.md, part 1) describes them.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startServer, CSP } from "../../bin/mc/server.js";
import { runConductor } from "../../plugin/conductor/store.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nso-mc-server-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const HOST = os.hostname();

/** A fresh Conductor home with an activity folder and a project folder. */
function setup() {
  const dir = path.join(tmp, `case-${++n}`);
  const home = path.join(dir, "home");
  const root = path.join(dir, "project");
  fs.mkdirSync(path.join(home, "activity"), { recursive: true });
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  return { home, root: fs.realpathSync(root) };
}

/** Appends records to the feed `key` in `home` (the instance line first when the file is new). */
function feed(home, key, records, instance) {
  const file = path.join(home, "activity", `${key}.jsonl`);
  const lines = [];
  if (!fs.existsSync(file)) lines.push({ v: 1, t: Date.now(), kind: "instance", serverUrl: null, nso: "test", ...instance });
  lines.push(...records.map((r) => ({ v: 1, t: Date.now(), ...r })));
  fs.appendFileSync(file, lines.map((l) => JSON.stringify(l) + "\n").join(""));
}

/** One HTTP request to the server: `{ status, headers, body }`. */
function request(port, { method = "GET", pathname = "/", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: pathname, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d) => (text += d)).on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const json = (r) => JSON.parse(r.body);

/**
 * Opens the SSE stream; `next(pred, ms)` resolves to the next event `{ event, data, at }`
 * matching `pred` (events already received count), `close()` ends it.
 */
function events(port, token, headers = {}) {
  return new Promise((resolve, reject) => {
    const received = [];
    const waiters = [];
    const req = http.get({ host: "127.0.0.1", port, path: `/events?token=${token}`, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let buffer = "";
      res.setEncoding("utf8").on("data", (d) => {
        buffer += d;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (!event) continue;
          received.push({ event, data: JSON.parse(data), at: Date.now() });
          for (const w of [...waiters]) w.check();
        }
      });
      resolve({
        status: res.statusCode, headers: res.headers, received,
        next(pred, ms = 5000) {
          return new Promise((ok, fail) => {
            const w = {
              check() {
                const found = received.find((e) => !e.used && pred(e));
                if (!found) return;
                found.used = true;
                clearTimeout(w.timer);
                waiters.splice(waiters.indexOf(w), 1);
                ok(found);
              },
              timer: setTimeout(() => {
                waiters.splice(waiters.indexOf(w), 1);
                fail(new Error(`no matching event within ${ms} ms; got ${received.map((e) => e.event).join(", ")}`));
              }, ms),
            };
            waiters.push(w);
            w.check();
          });
        },
        close: () => req.destroy(),
      });
    });
    req.on("error", reject);
  });
}

async function withServer(options, fn) {
  const mc = await startServer({ errorLog: () => {}, ...options });
  try {
    return await fn(mc);
  } finally {
    await mc.close();
  }
}

test("binds 127.0.0.1 only, on a free port, and prints an address with a 64-hex-digit token", async () => {
  const { home } = setup();
  await withServer({ home }, async (mc) => {
    assert.equal(mc.server.address().address, "127.0.0.1");
    assert.ok(mc.port > 0);
    assert.match(mc.url, new RegExp(`^http://127\\.0\\.0\\.1:${mc.port}/\\?token=[0-9a-f]{64}$`));
    // Another loopback address of this machine reaches nothing.
    const refused = await new Promise((resolve) => {
      const s = net.connect({ host: "127.0.0.2", port: mc.port });
      s.on("connect", () => {
        s.destroy();
        resolve(false);
      });
      s.on("error", (e) => resolve(e.code));
    });
    assert.equal(refused, "ECONNREFUSED");
  });
});

test("every request needs the token: 401 without, 403 with a wrong one; query, bearer and cookie work", async () => {
  const { home } = setup();
  await withServer({ home }, async ({ port, token }) => {
    for (const pathname of ["/", "/app.js", "/style.css", "/api/snapshot", "/events", "/api/inspect?key=x"]) {
      assert.equal((await request(port, { pathname })).status, 401, pathname);
      const sep = pathname.includes("?") ? "&" : "?";
      assert.equal((await request(port, { pathname: `${pathname}${sep}token=${"0".repeat(64)}` })).status, 403, pathname);
      assert.equal((await request(port, { pathname, headers: { authorization: `Bearer ${token.slice(0, -1)}x` } })).status, 403, pathname);
    }
    const page = await request(port, { pathname: `/?token=${token}` });
    assert.equal(page.status, 200);
    assert.match(page.headers["set-cookie"][0], /^nso_mc=[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Strict$/);
    assert.equal((await request(port, { pathname: "/app.js", headers: { cookie: `other=1; nso_mc=${token}` } })).status, 200);
    assert.equal((await request(port, { pathname: "/api/snapshot", headers: { authorization: `Bearer ${token}` } })).status, 200);
  });
});

test("a foreign Host (DNS rebinding) or Origin is refused even with the token", async () => {
  const { home } = setup();
  await withServer({ home }, async ({ port, token }) => {
    const auth = { authorization: `Bearer ${token}` };
    assert.equal((await request(port, { pathname: "/api/snapshot", headers: { ...auth, host: `evil.example:${port}` } })).status, 403);
    assert.equal((await request(port, { pathname: "/api/snapshot", headers: { ...auth, host: "127.0.0.1" } })).status, 403, "port missing");
    assert.equal((await request(port, { pathname: "/api/snapshot", headers: { ...auth, host: `127.0.0.1:${port + 1}` } })).status, 403);
    assert.equal((await request(port, { pathname: "/api/snapshot", headers: { ...auth, host: `localhost:${port}` } })).status, 200);
    assert.equal((await request(port, { pathname: "/api/snapshot", headers: { ...auth, origin: "http://evil.example" } })).status, 403);
    assert.equal((await request(port, { pathname: "/api/snapshot", headers: { ...auth, origin: "null" } })).status, 403);
    assert.equal((await request(port, { pathname: "/api/snapshot", headers: { ...auth, origin: `http://127.0.0.1:${port + 1}` } })).status, 403);
    assert.equal((await request(port, { pathname: "/api/snapshot", headers: { ...auth, origin: `http://127.0.0.1:${port}` } })).status, 200);
    const sse = await events(port, token, { host: `attacker.test:${port}` });
    assert.equal(sse.status, 403);
    sse.close();
    const post = await request(port, { method: "POST", pathname: "/api/release", headers: { ...auth, origin: "http://evil.example", "content-type": "application/json" }, body: "{}" });
    assert.equal(post.status, 403);
  });
});

test("every answer carries the strict CSP; the page has no inline script, style or handler", async () => {
  const { home } = setup();
  await withServer({ home }, async ({ port, token }) => {
    for (const pathname of ["/", "/app.js", "/dom.js", "/inspector.js", "/style.css", "/api/snapshot", "/nope"]) {
      const r = await request(port, { pathname: `${pathname}?token=${token}` });
      assert.equal(r.headers["content-security-policy"], CSP, pathname);
      assert.equal(r.headers["x-content-type-options"], "nosniff");
      assert.equal(r.headers["referrer-policy"], "no-referrer");
    }
    assert.equal((await request(port, { pathname: "/" })).headers["content-security-policy"], CSP, "a refusal too");
    assert.match(CSP, /^default-src 'self';/);
    assert.doesNotMatch(CSP, /unsafe-inline|unsafe-eval/);
    const page = (await request(port, { pathname: `/?token=${token}` })).body;
    for (const tag of page.match(/<script[^>]*>/g)) assert.match(tag, /\ssrc="[^"]+"/);
    assert.doesNotMatch(page, /<script[^>]*>[^<]+<\/script>/);
    assert.doesNotMatch(page, /\sstyle=|\son[a-z]+=/i);
    assert.doesNotMatch(page, /__TOKEN__/);
    const app = (await request(port, { pathname: `/app.js?token=${token}` }));
    assert.match(app.headers["content-type"], /^text\/javascript/);
    // The page's code never parses data as HTML.
    for (const file of ["app.js", "dom.js", "inspector.js"]) {
      assert.doesNotMatch(fs.readFileSync(new URL(`../../bin/mc/public/${file}`, import.meta.url), "utf8"), /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/, file);
    }
  });
});

test("SSE: needs the token, starts with a snapshot, then a delta arrives when a feed line is appended", async () => {
  const { home, root } = setup();
  const key = `${HOST}-${process.pid}-aaaaaa`;
  feed(home, key, [{ kind: "session", session: "ses_1", parent: null, agent: "build", title: "first" }],
    { pid: process.pid, host: HOST, started: Date.now(), project: "proj", root });
  await withServer({ home, liveOptions: { tickMs: 60_000 } }, async ({ port, token }) => {
    assert.equal((await request(port, { pathname: "/events" })).status, 401);
    const sse = await events(port, token);
    assert.equal(sse.status, 200);
    assert.match(sse.headers["content-type"], /^text\/event-stream/);
    assert.equal(sse.headers["content-security-policy"], CSP);
    const first = await sse.next((e) => e.event === "snapshot");
    assert.deepEqual(first.data.agents.map((r) => [r.key, r.agent]), [[`${key}/ses_1`, "build"]]);
    const appended = Date.now();
    feed(home, key, [{ kind: "call", session: "ses_1", agent: "build", tool: "bash", callID: "c1", phase: "start", verdict: "allow", rule: null, target: "npm test", message: null }]);
    const delta = await sse.next((e) => e.event === "delta" && e.data.upsert.some((r) => r.inProgress?.target === "npm test"), 3000);
    assert.ok(delta.at - appended < 1000, `the delta came ${delta.at - appended} ms after the append (the watcher, not the tick)`);
    assert.deepEqual(delta.data.remove, []);
    assert.equal(delta.data.upsert.length, 1, "only the row that changed");
    sse.close();
  });
});

test("SSE: a new instance appears within a second; a killed process turns dead", async () => {
  const { home, root } = setup();
  await withServer({ home }, async ({ port, token }) => {
    const sse = await events(port, token);
    await sse.next((e) => e.event === "snapshot");
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    await new Promise((r) => child.once("spawn", r));
    const key = `${HOST}-${child.pid}-bbbbbb`;
    const written = Date.now();
    feed(home, key, [{ kind: "session", session: "ses_9", parent: null, agent: "plan", title: null }],
      { pid: child.pid, host: HOST, started: Date.now(), project: "proj", root });
    const appeared = await sse.next((e) => e.event === "delta" && e.data.upsert.some((r) => r.key === `${key}/ses_9` && r.state !== "dead"));
    assert.ok(appeared.at - written < 1000, `appeared after ${appeared.at - written} ms`);
    assert.ok(appeared.data.instances.some((i) => i.key === key && i.alive));
    const killed = Date.now();
    child.kill("SIGKILL");
    const dead = await sse.next((e) => e.event === "delta" && e.data.upsert.some((r) => r.key === `${key}/ses_9` && r.state === "dead"), 5000);
    assert.ok(dead.at - killed < 3000, `dead after ${dead.at - killed} ms`);
    sse.close();
  });
});

test("the inspector of a row; an unknown key is 404", async () => {
  const { home, root } = setup();
  const key = `${HOST}-${process.pid}-cccccc`;
  feed(home, key, [
    { kind: "session", session: "ses_1", parent: null, agent: "build", title: null },
    { kind: "call", session: "ses_1", agent: "build", tool: "write", callID: "c1", phase: "start", verdict: "block", rule: "authority.write", target: "src/a.ts", message: "NSO blocked write for @build: <b>no</b>" },
  ], { pid: process.pid, host: HOST, started: Date.now(), project: "proj", root, serverUrl: "http://127.0.0.1:4096" });
  await withServer({ home }, async ({ port, token }) => {
    const auth = { authorization: `Bearer ${token}` };
    const r = await request(port, { pathname: `/api/inspect?key=${encodeURIComponent(`${key}/ses_1`)}`, headers: auth });
    assert.equal(r.status, 200);
    const data = json(r);
    assert.equal(data.row.state, "blocked");
    assert.equal(data.calls.at(-1).message, "NSO blocked write for @build: <b>no</b>", "data passes as data");
    assert.equal((await request(port, { pathname: "/api/inspect?key=nope", headers: auth })).status, 404);
  });
});

test("the inspector offers `opencode attach` only when the instance's server answers for the session", async () => {
  const { home, root } = setup();
  // An OpenCode-like server that knows ses_up only; and a port where nothing listens (`opencode run`).
  const opencode = http.createServer((req, res) => res.writeHead(req.url === "/session/ses_up" ? 200 : 404).end("{}"));
  await new Promise((r) => opencode.listen(0, "127.0.0.1", r));
  const closed = net.createServer();
  await new Promise((r) => closed.listen(0, "127.0.0.1", r));
  const deadPort = closed.address().port;
  await new Promise((r) => closed.close(r));
  const up = `http://127.0.0.1:${opencode.address().port}`;
  const cases = [["hhhhh1", up, "ses_up", `opencode attach ${up} --session ses_up`], ["hhhhh2", up, "ses_other", null],
    ["hhhhh3", `http://127.0.0.1:${deadPort}`, "ses_run", null], ["hhhhh4", "http://localhost:4096", "ses_run2", null]];
  for (const [rand, serverUrl, session] of cases) {
    feed(home, `${HOST}-${process.pid}-${rand}`, [{ kind: "session", session, parent: null, agent: "build", title: null }],
      { pid: process.pid, host: HOST, started: Date.now(), project: "proj", root, serverUrl });
  }
  try {
    await withServer({ home }, async ({ port, token }) => {
      for (const [rand, , session, attach] of cases) {
        const key = `${HOST}-${process.pid}-${rand}/${session}`;
        const r = await request(port, { pathname: `/api/inspect?key=${encodeURIComponent(key)}`, headers: { authorization: `Bearer ${token}` } });
        assert.equal(json(r).attach, attach, key);
      }
    });
  } finally {
    opencode.close();
  }
});

test("release and force: through the Conductor, with a justification, logged in conflicts.log", async () => {
  const { home, root } = setup();
  const start = async (session, task) => (await runConductor({
    home, op: { operation: "start", task, priority: "P2", project: "proj", project_root: root, working_directory: root, source: "opc",
      host: HOST, pid: process.pid, process_started: null, agent: "build", session },
  })).result.instance_id;
  const a = await start("ses_a", "task A");
  const b = await start("ses_b", "task B");
  const file = path.join(root, "src/shared.ts");
  assert.equal((await runConductor({ home, op: { operation: "claim", instance_id: a, files: [file] } })).result.status, "ok");
  const key = `${HOST}-${process.pid}-dddddd`;
  feed(home, key, [
    { kind: "session", session: "ses_a", parent: null, agent: "build", title: null },
    { kind: "session", session: "ses_b", parent: null, agent: "build", title: null },
  ], { pid: process.pid, host: HOST, started: Date.now(), project: "proj", root });
  await withServer({ home }, async ({ port, token }) => {
    const post = (route, body, headers = {}) => request(port, { method: "POST", pathname: route, body: JSON.stringify(body),
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", origin: `http://127.0.0.1:${port}`, ...headers } });
    const snap = json(await request(port, { pathname: "/api/snapshot", headers: { authorization: `Bearer ${token}` } }));
    assert.deepEqual(snap.agents.find((r) => r.session === "ses_a").claims, [file]);

    // No justification, no change.
    const bare = await post("/api/force", { key: `${key}/ses_b`, files: [file], justification: "  " });
    assert.equal(bare.status, 400);
    assert.match(json(bare).error, /justification is required/);
    assert.equal((await post("/api/force", { key: `${key}/ses_b`, files: [file], justification: "x" }, { "content-type": "text/plain" })).status, 400);
    assert.equal((await request(port, { pathname: "/api/force", headers: { authorization: `Bearer ${token}` } })).status, 405);

    const forced = await post("/api/force", { key: `${key}/ses_b`, files: [file], justification: "A is stuck\nfor an hour" });
    assert.equal(forced.status, 200, forced.body);
    assert.deepEqual(json(forced).forced, [{ pattern: file, held_by: a }]);
    let log = fs.readFileSync(path.join(home, "conflicts.log"), "utf8");
    assert.match(log, new RegExp(`\\| FORCE \\| \\S+ \\(Mission Control\\) \\(${b}\\) took .*shared\\.ts from ${a} to claim .*: A is stuck for an hour\\n`));

    const released = await post("/api/release", { key: `${key}/ses_b`, files: [file], reason: "done by hand" });
    assert.equal(released.status, 200, released.body);
    assert.deepEqual(json(released).released, [file]);
    log = fs.readFileSync(path.join(home, "conflicts.log"), "utf8");
    assert.match(log, new RegExp(`\\| RESOLVED \\| \\S+ \\(Mission Control\\) released .*shared\\.ts of ${b}: done by hand\\n$`));
    const state = JSON.parse(fs.readFileSync(path.join(home, "status.json"), "utf8"));
    assert.deepEqual(state.instances.flatMap((i) => i.files_claimed), []);
    assert.equal((await post("/api/release", { key: "nope/ses", files: [file], reason: "x" })).status, 404);
  });
});

test("the decision ledger of a known project, watched once read; other folders are not read", async () => {
  const { home, root } = setup();
  fs.mkdirSync(path.join(root, ".opencode/context"), { recursive: true });
  fs.writeFileSync(path.join(root, ".opencode/context/decisions.md"),
    "# Decision ledger\n\n## D-0001 · Use <img src=x onerror=alert(1)>\n- **When**: 2026-01-01T00:00:00Z\n- **Agent**: person\n- **Session**: -\n- **Why**: because\n");
  feed(home, `${HOST}-${process.pid}-eeeeee`, [], { pid: process.pid, host: HOST, started: Date.now(), project: "proj", root });
  await withServer({ home }, async ({ port, token }) => {
    const auth = { authorization: `Bearer ${token}` };
    const r = json(await request(port, { pathname: `/api/decisions?root=${encodeURIComponent(root)}`, headers: auth }));
    assert.equal(r.file, path.join(root, ".opencode/context/decisions.md"));
    assert.deepEqual(r.entries.map((e) => [e.id, e.title]), [["D-0001", "Use <img src=x onerror=alert(1)>"]]);
    assert.equal((await request(port, { pathname: `/api/decisions?root=${encodeURIComponent("/etc")}`, headers: auth })).status, 404);
    // A ledger the page has read is watched: a new decision is announced over SSE.
    const sse = await events(port, token);
    await sse.next((e) => e.event === "snapshot");
    fs.appendFileSync(path.join(root, ".opencode/context/decisions.md"), "\n## D-0002 · Second\n- **When**: 2026-01-02T00:00:00Z\n- **Agent**: person\n- **Session**: -\n- **Why**: more\n");
    assert.deepEqual((await sse.next((e) => e.event === "ledger")).data, { root });
    sse.close();
  });
});

test("the Decisions panel follows a ledger whose folder did not exist when the page first read it", async () => {
  const { home, root } = setup();
  feed(home, `${HOST}-${process.pid}-iiiiii`, [], { pid: process.pid, host: HOST, started: Date.now(), project: "proj", root });
  await withServer({ home }, async ({ port, token }) => {
    const auth = { authorization: `Bearer ${token}` };
    const decisions = async () => json(await request(port, { pathname: `/api/decisions?root=${encodeURIComponent(root)}`, headers: auth }));
    assert.deepEqual((await decisions()).entries, [], "no .opencode/ yet: no decisions");
    const sse = await events(port, token);
    await sse.next((e) => e.event === "snapshot");
    // The first decision creates .opencode/context/ and the ledger (as nso_decide does).
    fs.mkdirSync(path.join(root, ".opencode/context"), { recursive: true });
    fs.writeFileSync(path.join(root, ".opencode/context/decisions.md"), "# Decision ledger\n\n## D-0001 · First\n- **When**: 2026-01-01T00:00:00Z\n- **Agent**: person\n- **Session**: -\n- **Why**: w\n");
    assert.deepEqual((await sse.next((e) => e.event === "ledger", 5000)).data, { root });
    assert.deepEqual((await decisions()).entries.map((e) => e.id), ["D-0001"]);
    // The ledger's own folder is watched from then on: the next decision is announced too.
    const seen = sse.received.length;
    fs.appendFileSync(path.join(root, ".opencode/context/decisions.md"), "\n## D-0002 · Second\n- **When**: 2026-01-02T00:00:00Z\n- **Agent**: person\n- **Session**: -\n- **Why**: w\n");
    await sse.next((e) => e.event === "ledger" && sse.received.indexOf(e) >= seen, 5000);
    assert.deepEqual((await decisions()).entries.map((e) => e.id), ["D-0001", "D-0002"]);
    sse.close();
  });
});

test("with a one-feed reader, a change to one feed reads that feed only", async () => {
  const { home, root } = setup();
  const keys = ["ffffff", "gggggg"].map((r) => `${HOST}-${process.pid}-${r}`);
  for (const key of keys) {
    feed(home, key, [{ kind: "session", session: `ses_${key.slice(-6)}`, parent: null, agent: "build", title: null }],
      { pid: process.pid, host: HOST, started: Date.now(), project: "proj", root });
  }
  const { readFeeds } = await import("../../bin/mc/model.js");
  const read = [];
  const readFeed = (file, key) => {
    read.push([path.basename(file), key]);
    return readFeeds(home).find((f) => f.key === key) ?? null;
  };
  await withServer({ home, liveOptions: { readFeed, tickMs: 60_000 } }, async ({ port, token }) => {
    const sse = await events(port, token);
    await sse.next((e) => e.event === "snapshot");
    read.length = 0;
    feed(home, keys[1], [{ kind: "task", session: "ses_gggggg", task: "the second" }]);
    const delta = await sse.next((e) => e.event === "delta");
    assert.deepEqual(delta.data.upsert.map((r) => [r.key, r.task]), [[`${keys[1]}/ses_gggggg`, "the second"]]);
    assert.deepEqual(read, [[`${keys[1]}.jsonl`, keys[1]]]);
    sse.close();
  });
});

test("`nso mc` prints its address, serves the page, stops on SIGTERM; a bad flag is a usage error", async () => {
  const { home } = setup();
  const nso = new URL("../../bin/nso.js", import.meta.url).pathname;
  const child = spawn(process.execPath, [nso, "mc", "--home", home, "--no-open"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const url = await new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (d) => {
      out += d;
      const m = /^NSO Mission Control: (http:\/\/127\.0\.0\.1:(\d+)\/\?token=[0-9a-f]{64})$/m.exec(out);
      if (m) resolve(new URL(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const page = await request(url.port, { pathname: `${url.pathname}${url.search}` });
  assert.equal(page.status, 200);
  assert.match(page.body, /<title>NSO Mission Control<\/title>/);
  child.kill("SIGTERM");
  assert.equal(await new Promise((r) => child.on("exit", r)), 0);
  const bad = spawn(process.execPath, [nso, "mc", "--port", "eighty"], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  bad.stderr.setEncoding("utf8").on("data", (d) => (err += d));
  assert.equal(await new Promise((r) => bad.on("exit", r)), 2);
  assert.match(err, /--port needs a port number/);
});

test("a browser is opened only where there is one: not under CI, not without a display", async () => {
  const { browserOpener } = await import("../../bin/mc/launch.js");
  const bin = path.join(tmp, "bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, "xdg-open"), "#!/bin/sh\n", { mode: 0o755 });
  assert.equal(browserOpener({ DISPLAY: ":0", PATH: bin }, "linux"), "xdg-open");
  assert.equal(browserOpener({ WAYLAND_DISPLAY: "wayland-0", PATH: bin }, "linux"), "xdg-open");
  assert.equal(browserOpener({ DISPLAY: ":0", PATH: bin, CI: "true" }, "linux"), null);
  assert.equal(browserOpener({ PATH: bin }, "linux"), null, "no display");
  assert.equal(browserOpener({ DISPLAY: ":0", PATH: path.join(tmp, "nowhere") }, "linux"), null, "no xdg-open");
  assert.equal(browserOpener({}, "darwin"), "open");
});

test("`nso mc` watches the home the project's plugin writes to: conductor.home, else $CONDUCTOR_HOME", async () => {
  const { homeFor } = await import("../../bin/mc/launch.js");
  const { root } = setup();
  assert.equal(homeFor(root, { CONDUCTOR_HOME: "/somewhere/else" }), "/somewhere/else");
  fs.mkdirSync(path.join(root, ".opencode"), { recursive: true });
  fs.writeFileSync(path.join(root, ".opencode/nso.json"), JSON.stringify({ conductor: { home: "../shared-home" } }));
  assert.equal(homeFor(root, { CONDUCTOR_HOME: "/somewhere/else" }), path.join(path.dirname(root), "shared-home"));
});
