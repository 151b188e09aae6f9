// Who may talk to Mission Control: a browser on this machine that holds the token. The server
// binds 127.0.0.1 only; the token keeps out other local users and pages that guess the port,
// the Host check keeps out DNS rebinding (a foreign name resolved to 127.0.0.1), and the
// Origin check keeps out pages of other origins that send the person's cookie along.
import crypto from "node:crypto";

/** Name of the cookie the page gets, so that its own requests carry the token. */
export const COOKIE = "nso_mc";

/** A fresh token: 32 random bytes, hex. */
export const newToken = () => crypto.randomBytes(32).toString("hex");

/** The names this server answers to: 127.0.0.1 and localhost, on its port. */
export const allowedHosts = (port) => [`127.0.0.1:${port}`, `localhost:${port}`];

/** The value of cookie `name` in a Cookie header, or undefined. */
export function cookieValue(header, name) {
  for (const part of String(header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The token a request presents: `Authorization: Bearer`, else `?token=`, else the cookie. */
export function presentedToken(req, url) {
  const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "");
  return auth?.[1] ?? url.searchParams.get("token") ?? cookieValue(req.headers.cookie, COOKIE);
}

/** Whether `given` is `token`, in constant time (both hashed first: equal lengths). */
export function sameToken(given, token) {
  if (typeof given !== "string") return false;
  const a = crypto.createHash("sha256").update(given).digest();
  const b = crypto.createHash("sha256").update(token).digest();
  return crypto.timingSafeEqual(a, b);
}

/**
 * Whether the request `req` (with its parsed `url`) may be answered: `null` when it may, else
 * `{ status, message }` (403 for a foreign Host or Origin, 401 without a token, 403 with a
 * wrong one). The Host and Origin are checked before the token, so that a rebinding page
 * learns nothing about it.
 */
export function refusal(req, url, { token, port }) {
  const hosts = allowedHosts(port);
  if (!hosts.includes(String(req.headers.host ?? "").toLowerCase())) {
    return { status: 403, message: "Mission Control answers only to 127.0.0.1 and localhost on its own port (Host header refused)." };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.some((h) => origin.toLowerCase() === `http://${h}`)) {
    return { status: 403, message: "Requests from other origins are refused (Origin header)." };
  }
  const given = presentedToken(req, url);
  if (given === undefined || given === null || given === "") {
    return { status: 401, message: "Mission Control needs its token: open the address `nso mc` printed (it ends in ?token=...)." };
  }
  if (!sameToken(given, token)) return { status: 403, message: "Wrong token: open the address `nso mc` printed, from its latest run." };
  return null;
}
