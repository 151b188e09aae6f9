// The HTTP side of `nso mc` (docs/mission-control.md, part 3): the page, the snapshot and its
// deltas over Server-Sent Events, one agent's inspector, a project's decision ledger and Mind, and the
// person's two actions on claims. Bound to 127.0.0.1 only; every request is checked by
// access.js (Host, Origin, token) before anything else, and every answer carries a strict
// Content-Security-Policy.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureHome } from "../../plugin/conductor/home.js";
import { makeStateDir } from "../../plugin/state-dirs.js";
import { COOKIE, newToken, refusal } from "./access.js";
import { ActionError, forceClaims, releaseClaims } from "./actions.js";
import { createLedgers } from "./ledger.js";
import { createLive } from "./live.js";
import { readMind } from "./mind.js";
import { serverAnswers } from "./inspector.js";
import { inspect } from "./model.js";

const PUBLIC = path.join(path.dirname(fileURLToPath(import.meta.url)), "public");
const ASSETS = {
  "/app.js": ["app.js", "text/javascript; charset=utf-8"],
  "/dom.js": ["dom.js", "text/javascript; charset=utf-8"],
  "/inspector.js": ["inspector.js", "text/javascript; charset=utf-8"],
  "/mind.js": ["mind.js", "text/javascript; charset=utf-8"],
  "/style.css": ["style.css", "text/css; charset=utf-8"],
};
/** The policy of every answer: nothing but this origin's own files; no inline code or style. */
export const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'";
const SECURITY_HEADERS = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "cache-control": "no-store",
};
/** A client that has this much unsent is dropped (it reconnects and gets a fresh snapshot). */
const MAX_BACKLOG = 8 << 20;
const MAX_BODY = 64 * 1024;
const PING_MS = 15_000;

function send(res, status, body, type = "application/json; charset=utf-8", extra = {}) {
  const data = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, "content-length": Buffer.byteLength(data), ...extra });
  res.end(res.req.method === "HEAD" ? undefined : data);
}

const fail = (res, status, message) => send(res, status, { error: message });

/** The JSON body of a POST (at most 64 KiB, `application/json` only). */
function readJson(req) {
  return new Promise((resolve, reject) => {
    if (!/^application\/json\b/i.test(req.headers["content-type"] ?? "")) {
      reject(new ActionError("Send the action as application/json."));
      return;
    }
    let size = 0;
    const chunks = [];
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new ActionError("The request is too large."));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on("end", () => {
      try {
        const value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("not an object");
        resolve(value);
      } catch {
        reject(new ActionError("The request body is not a JSON object."));
      }
    });
    req.on("error", reject);
  });
}

/**
 * Starts Mission Control on the Conductor home `home`: `{ url, port, token, home, close(),
 * live, clients() }`. `port` 0 (the default) takes a free one. `liveOptions` go to
 * createLive (tests and the benchmark set the clock and tick).
 */
export async function startServer({ home, port = 0, token = newToken(), liveOptions = {}, errorLog = (t) => console.error(`nso mc: ${t}`) } = {}) {
  const dir = ensureHome(home);
  makeStateDir(path.join(dir, "activity"), { mode: 0o700 });
  const assets = Object.fromEntries(Object.entries(ASSETS).map(([route, [file, type]]) => [route, [fs.readFileSync(path.join(PUBLIC, file)), type]]));
  const page = fs.readFileSync(path.join(PUBLIC, "index.html"), "utf8");
  const clients = new Set();
  let eventId = 0;

  /** Sends `event` with `data` to every SSE client (serialised once). */
  function broadcast(event, data) {
    const frame = `id: ${++eventId}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of clients) {
      if (res.writableLength > MAX_BACKLOG) {
        res.destroy();
        clients.delete(res);
      } else res.write(frame);
    }
  }

  const live = createLive({ home: dir, onDelta: (delta) => broadcast("delta", delta), errorLog, ...liveOptions });
  const ledgers = createLedgers({ onChange: (root) => broadcast("ledger", { root }), errorLog });
  let actualPort = port;

  function events(req, res) {
    res.writeHead(200, { ...SECURITY_HEADERS, "content-type": "text/event-stream; charset=utf-8", connection: "keep-alive", "x-accel-buffering": "no" });
    req.socket.setNoDelay(true);
    res.write(`retry: 1000\nid: ${eventId}\nevent: snapshot\ndata: ${JSON.stringify(live.snapshot())}\n\n`);
    clients.add(res);
    const ping = setInterval(() => res.write(": ping\n\n"), PING_MS);
    res.on("close", () => {
      clearInterval(ping);
      clients.delete(res);
    });
  }

  /** The row of `key` and the Conductor instance it belongs to. */
  function rowOf(key) {
    const row = live.snapshot()?.agents.find((r) => r.key === key);
    if (!row) throw Object.assign(new Error("No such agent (it may have been forgotten)."), { status: 404 });
    return row;
  }

  async function inspectRow(key) {
    const row = rowOf(key);
    const snapshot = live.snapshot();
    const details = inspect({ feeds: live.feeds(), key, home: dir, snapshot }) ?? {};
    const conductor = (snapshot?.registry ?? []).find((r) => r.id === row.conductorId) ?? null;
    // `opencode attach` is offered only when the instance's server answers for the session now.
    const serverUrl = snapshot?.instances?.find((i) => i.key === row.instance)?.serverUrl;
    const attach = details.attach && row.state !== "dead" && (await serverAnswers(serverUrl, row.session)) ? details.attach : null;
    return { ...details, row: details.row ?? row, conductor, claims: details.claims ?? row.claims, attach };
  }

  async function act(req, res, what) {
    const body = await readJson(req);
    const row = rowOf(String(body.key ?? ""));
    if (!row.conductorId) throw new ActionError("This agent is not registered with the Conductor: it holds no claim.");
    const result = what === "release"
      ? await releaseClaims({ home: dir, instance: row.conductorId, files: body.files, reason: body.reason })
      : await forceClaims({ home: dir, instance: row.conductorId, files: body.files, justification: body.justification, root: row.root });
    live.refresh();
    send(res, result.status === "error" ? 409 : 200, result);
  }

  async function handle(req, res) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const refused = refusal(req, url, { token, port: actualPort });
    if (refused) return fail(res, refused.status, refused.message);
    const route = url.pathname;
    if (route === "/api/release" || route === "/api/force") {
      if (req.method === "POST") return act(req, res, route.slice(5));
      return send(res, 405, { error: "An action is a POST." }, undefined, { allow: "POST" });
    }
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, { error: "Mission Control is read-only but for its two actions." }, undefined, { allow: "GET, HEAD" });
    if (route === "/" || route === "/index.html") {
      // The cookie lets the page's own module imports carry the token.
      return send(res, 200, page.replaceAll("__TOKEN__", token), "text/html; charset=utf-8", {
        "set-cookie": `${COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`,
      });
    }
    if (ASSETS[route]) return send(res, 200, ...assets[route]);
    if (route === "/events") return events(req, res);
    if (route === "/api/snapshot") return send(res, 200, live.snapshot());
    if (route === "/api/inspect") return send(res, 200, await inspectRow(url.searchParams.get("key") ?? ""));
    if (route === "/api/decisions" || route === "/api/mind") {
      const root = url.searchParams.get("root") ?? "";
      const known = new Set((live.snapshot()?.instances ?? []).map((i) => i.root).filter(Boolean));
      if (!known.has(root)) return fail(res, 404, "Not a project Mission Control knows (one of its instances' roots).");
      return send(res, 200, route === "/api/mind" ? readMind(root) : ledgers.read(root));
    }
    if (route === "/favicon.ico") return send(res, 204, "", "image/x-icon");
    return fail(res, 404, "Not found.");
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (res.headersSent) return res.destroy();
      fail(res, error.status ?? 500, error.status ? error.message : `Mission Control failed: ${error.message}`);
      if (!error.status) errorLog(error.stack ?? error.message);
    });
  });
  live.start();
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  actualPort = server.address().port;
  return {
    url: `http://127.0.0.1:${actualPort}/?token=${token}`,
    port: actualPort, token, home: dir, live, server,
    clients: () => clients.size,
    async close() {
      live.stop();
      ledgers.close();
      for (const res of clients) res.end();
      clients.clear();
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
