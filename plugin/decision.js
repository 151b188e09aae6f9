// The decision path of one tool call: the request the core decides, the lookups it asks for
// (real paths behind symlinks, current contents, existence), the refusal thrown to the host,
// and the log lines. Host-independent.
import { callTarget } from "./activity.js";
import { TEXT_ARGS, boundArgs } from "./bounds.js";
import { cachedPathInfo, gatherLookups } from "./files.js";

/** Tools that only read; everything else is write-class and fails closed when NSO is down. */
export const READ_TOOLS = new Set([
  "read", "glob", "grep", "list", "webfetch", "websearch", "codesearch",
  "todoread", "todowrite", "skill", "question", "lsp", "invalid",
]);
/** Arguments of the common file tools whose real path is resolved before asking. */
const PATH_ARGS = ["filePath", "path"];
const MAX_LOOKUP_ROUNDS = 3;

/** What refusals are made of: an Error, named NSOBlock (see {@link blockError}). */
const BLOCK = Object.create(Error.prototype, { name: { value: "NSOBlock", writable: true, configurable: true } });

/**
 * The error a host adapter throws (or reports) to refuse a call; its message is NSO's. An
 * Error (`instanceof`, its name NSOBlock, `String()` "NSOBlock: message") built without the
 * Error constructor: a refusal is not a fault, its stack would say nothing (hosts read the
 * message), and capturing one, or toggling `Error.stackTraceLimit` not to, cost a hook in
 * Bun more than the decision did.
 */
export function blockError(message) {
  const error = Object.create(BLOCK);
  error.message = message;
  return error;
}

/** What agents read while NSO cannot enforce (a config error, a core that did not load). */
export function notEnforcingText(failure) {
  return `NSO is not enforcing its rules: ${failure.message} Until this is fixed, NSO refuses ` +
    `write-class tools (fail closed). Fix: ${failure.fix}`;
}

/**
 * Where the lookups are answered: `pathInfo(abs)` gives `[real path, exists]`, `gather(request,
 * need, contentBytes)` fills the request's maps (see files.js). By default the disk; `nso
 * replay` passes a virtual overlay of the files a recorded session changed.
 */
export const DISK_LOOKUPS = Object.freeze({ pathInfo: cachedPathInfo, gather: gatherLookups });

/**
 * Real paths and existence of the usual path arguments, so most calls need one round:
 * the core asks for what is still missing. Relative paths are taken from `baseDir`.
 */
export function preResolve(request, baseDir, pathInfo = cachedPathInfo) {
  for (const key of PATH_ARGS) {
    const given = request.args?.[key];
    if (typeof given === "string" && given && !given.startsWith("~")) {
      const [real, exists] = pathInfo(given.startsWith("/") ? given : `${baseDir}/${given}`);
      request.resolved[given] = real;
      request.exists[given] = exists;
    }
  }
}

/**
 * The lookups `request` carries (`{resolved, contents, oversized, exists}`) as JSON, for the
 * core's `decideCall`; undefined when it carries none (most bash calls), so nothing is encoded.
 */
export function lookupsJson({ resolved, contents, oversized, exists }) {
  for (const map of [resolved, contents, oversized, exists]) {
    for (const _ in map) return JSON.stringify({ resolved, contents, oversized, exists });
  }
  return undefined;
}

/** How many lasting answers (plain allows and refusals) an instance remembers before it starts again. */
const LASTING_MAX = 512;
/** How many sessions a remembered refusal counts apart before it tells the core and starts again. */
const COUNTED_SESSIONS = 256;
/**
 * The answer of `engine` (an `Nso` whose directories are `directory` and `worktree`) to
 * `request`: undefined for a plain allow, else the reply (a decision's brief, or what the core
 * needs looked up first). A call in those directories crosses in parts (its arguments and
 * lookups, see `Nso.decideCall`), so a plain allow encodes and parses no more than its
 * arguments; any other (an NSO tool's write `via`) crosses whole. `lasting` (a Map, one per
 * engine: a new policy is a new engine) remembers the answers the core called lasting (the
 * same call, in any session, gets the same answer until the policy changes): asked again, a
 * plain allow and what must be looked up do not cross, and a refusal is counted here (see
 * {@link refusedAgain}). A call is its arguments and lookups as JSON, its tool and its agent;
 * a write or edit the core allowed for any text of its shape (`decideCall` answers 2) is kept
 * under its shape instead ({@link textShape}), which is asked first. A lasting allow's key is
 * left in `request.lastingKey`, under which the host may keep what else is as pure (its write
 * targets, which depend on the shape only). The arguments' JSON is kept in `request.argsText` for
 * the call's next lookup round.
 */
export function askCore(engine, request, directory, worktree, lasting) {
  const r = request;
  if (r.via !== undefined || r.directory !== directory || r.worktree !== worktree) return engine.decide(JSON.stringify(r));
  const lookups = lookupsJson(r);
  // JSON has no raw NUL, the tool's length ends the tool, and an agent (last) is marked apart
  // from none (an unrecorded caller), so no two calls share a key.
  const rest = lasting && `\u0000${lookups ?? ""}\u0000${r.tool.length}\u0000${r.tool}${r.agent == null ? "-" : `@${r.agent}`}`;
  // A write or edit allowed for any text of its shape is kept under its shape (see
  // textShape): asked first, so such a call encodes no text.
  const shape = rest ? textShape(r) : undefined;
  const shapeKey = shape && `\u0001${shape}${rest}`;
  if (shapeKey && lasting.get(shapeKey) !== undefined) {
    r.lastingKey = shapeKey;
    return undefined;
  }
  // The arguments do not change between lookup rounds: encoded once per call.
  const args = (r.argsText ??= JSON.stringify(r.args));
  const key = rest && `${args}${rest}`;
  const known = key ? lasting.get(key) : undefined;
  if (known?.refused) return refusedAgain(engine, r.sessionId ?? "", known);
  if (known?.need) return known;
  if (known !== undefined) {
    r.lastingKey = key;
    return undefined;
  }
  const answer = engine.decideCall(r.sessionId ?? "", r.agent ?? undefined, r.tool, args, lookups);
  if (answer === undefined) return undefined;
  if (answer === true || answer === ANY_TEXT) {
    const kept = answer === ANY_TEXT && shapeKey ? shapeKey : key;
    if (kept) {
      remember(engine, lasting, kept, null);
      r.lastingKey = kept;
    }
    return undefined;
  }
  const reply = JSON.parse(answer);
  if (reply.need) {
    if (key && reply.lasting) remember(engine, lasting, key, { need: reply.need });
    return reply;
  }
  if (reply.again === undefined) return reply;
  const { again, ...refused } = reply;
  // The core counted this refusal, the first of the call in this session (it comes with
  // `again` only then).
  if (key) remember(engine, lasting, key, { refused, again, counts: new Map([[r.sessionId ?? "", { n: 1, untold: 0 }]]) });
  return refused;
}

/** `decideCall`'s answer to a plain allow that holds for any text of the call's shape. */
const ANY_TEXT = 2;
/**
 * The tools whose plain allow may hold for any text of the same shape
 * (`authority::Lasting::AnyText`: decided without reading what the call writes); their text
 * arguments are bounds.js `TEXT_ARGS`.
 */
const ANY_TEXT_TOOLS = new Set(["write", "edit"]);

/**
 * The shape of `r`'s arguments, as JSON: each text argument (bounds.js `TEXT_ARGS`) replaced
 * by `0`, but an empty `oldString` kept (an edit with one creates the file); undefined for
 * other tools than {@link ANY_TEXT_TOOLS}, or when a text argument is not a string (no string
 * becomes `0`, so no two shapes meet).
 */
export function textShape(r) {
  if (!ANY_TEXT_TOOLS.has(r.tool) || r.args === null || typeof r.args !== "object") return undefined;
  const shape = { ...r.args };
  for (const name of TEXT_ARGS[r.tool]) {
    const text = shape[name];
    if (typeof text !== "string") return undefined;
    shape[name] = name === "oldString" && text === "" ? "" : 0;
  }
  return JSON.stringify(shape);
}

function remember(engine, lasting, key, value) {
  if (lasting.size >= LASTING_MAX) forgetLasting(engine, lasting);
  lasting.set(key, value);
}

/**
 * Forgets what `lasting` remembers (see {@link askCore}), first telling `engine` the repeats
 * counted here, so that when the core decides those calls again it counts on from the right
 * number.
 */
function forgetLasting(engine, lasting) {
  for (const known of lasting.values()) if (known?.refused) tellCounts(engine, known);
  lasting.clear();
}

/** Tells the core the repeats of a remembered refusal it has not counted (`Nso.refusedAgain`). */
function tellCounts(engine, { again, counts }) {
  for (const [session, count] of counts) if (count.untold > 0) engine.refusedAgain(session, again, count.untold);
  counts.clear();
}

/** Forgets what `lasting`'s remembered refusals counted in `session` (the core forgets its own). */
export function forgetSessionCounts(lasting, session) {
  for (const known of lasting?.values() ?? []) known?.counts?.delete(session);
}

/** The repeat note's words (`Nso.repeatNoteParts`): the same for every engine, asked once. */
let noteParts;

/**
 * A remembered refusal (`{refused, again, counts}`, see {@link askCore}) made again in
 * `session`: counted here, as the core would count it (the first time in a session, by the
 * core itself, `Nso.refusedAgain`, which knows that session's earlier refusals of the call;
 * then here, told to the core when the refusal is forgotten), with the core's repeat note.
 */
function refusedAgain(engine, session, known) {
  const { refused, again, counts } = known;
  let count = counts.get(session);
  if (count === undefined) {
    if (counts.size >= COUNTED_SESSIONS) tellCounts(engine, known);
    count = { n: engine.refusedAgain(session, again, 1), untold: 0 };
    counts.set(session, count);
  } else {
    count.n++;
    count.untold++;
  }
  const n = count.n;
  if (n < 2) return briefWith(refused, refused.message);
  noteParts ??= JSON.parse(engine.constructor.repeatNoteParts());
  return briefWith(refused, `${refused.message ?? ""}${noteParts[0]}${countText(n - 1)}${n === 2 ? noteParts[1] : noteParts[2]}`);
}

/** Decimal texts of 0-999, and of 000-999 (see {@link countText}); made at the first repeat. */
let digits;
let padded;

/**
 * The decimal text of the integer `n` ≥ 0, joined from cached pieces. Measured in Bun, in the
 * bench's rotation, where a remembered refusal's count grows past tens of thousands: putting
 * the number itself into the message took about 0.39 µs (of a 1.5-2 µs refusal), a cached
 * text 0.05; joining cached strings makes a rope, and Bun keeps the texts of few numbers.
 */
export function countText(n) {
  digits ??= Array.from({ length: 1000 }, (_, i) => String(i));
  padded ??= digits.map((d) => d.padStart(3, "0"));
  return n < 1000 ? digits[n] : `${countText(Math.floor(n / 1000))}${padded[n % 1000]}`;
}

/**
 * A copy of the brief `b` (see `authority::Brief`) with `message`: its fields named, not
 * spread (a spread copy cost a remembered refusal in Bun about a tenth of its time).
 */
export const briefWith = (b, message) => ({
  verdict: b.verdict, ruleId: b.ruleId, message, notices: b.notices, log: b.log, unclassified: b.unclassified,
});

/**
 * Asks the core (`ask(request)` returns its reply, as JSON or parsed, or undefined for a plain
 * allow; the request as JSON for `Nso.decide`, or in parts for `Nso.decideCall`, see {@link askCore}),
 * answering what it needs to know first. Returns the decision, or undefined for a plain allow;
 * a core that keeps asking is a refusal (fail closed). Texts larger than
 * `contentBytes` do not cross (bounds.js). `lookups` answers what the core asks for (default:
 * the disk, {@link DISK_LOOKUPS}).
 */
export function decideWithLookups(ask, request, contentBytes, lookups = DISK_LOOKUPS) {
  request.args = boundArgs(request.tool, request.args, contentBytes);
  request.resolved = {};
  request.contents = {};
  request.exists = {};
  preResolve(request, request.directory, lookups.pathInfo);
  for (let round = 0; round < MAX_LOOKUP_ROUNDS; round++) {
    const answer = ask(request);
    if (answer === undefined) return undefined;
    const reply = typeof answer === "string" ? JSON.parse(answer) : answer;
    if (!reply.need) return reply;
    lookups.gather(request, reply.need, contentBytes);
  }
  return { verdict: "block", ruleId: "nso.lookup", message: `NSO blocked ${request.tool}: NSO could not ` +
    `gather what it needs to decide on this call (fail closed). Report this to your caller.` };
}

/** The `nso.log` lines of a decision: the verdict line, then the core's extra lines. */
export function decisionLogLines(decision, tool, agent, time) {
  const line = `${time} ${decision.verdict} ${tool} @${agent ?? "?"} ${decision.ruleId ?? ""}` +
    (decision.unclassified ? " (unclassified tool)" : "") +
    (decision.notices?.length ? ` reminder: ${decision.notices.join(" | ")}` : "");
  return [line, ...(decision.log ?? []).map((extra) => `${time} ${extra}`)];
}

/**
 * Logs a decision on `request`: its `nso.log` lines (the call named `tool`), and, when audit
 * mode let it through, what `audit.jsonl` keeps of it. The lines are formatted and written
 * off the call's path (logs.js): `decision` must not change afterwards.
 */
export function logDecision(logs, decision, request, tool = request.tool) {
  const at = Date.now();
  const { agent } = request;
  logs.decision(() => decisionLogLines(decision, tool, agent, new Date(at).toISOString()).join("\n"));
  if (decision.verdict === "audit") {
    logs.audit({ t: new Date(at).toISOString(), session: request.sessionId ?? null, agent: agent ?? null, tool: request.tool,
      rule: decision.ruleId, target: callTarget(request.args), message: decision.message ?? null });
  }
}
