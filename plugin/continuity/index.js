// Continuity for one project (issue 11, seed 001): the decision ledger, each session's raw lane
// and T0 transcript, and handoffs (decisions → this session → the project's memory) that are
// added to OpenCode's compaction and to a new main session's start. Host-independent: the host
// adapter passes events in (`onEvent`), and asks for the compaction context (`compacting`).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createLanes } from "./lane.js";
import { appendDecision, readLedger } from "./ledger.js";
import { replaceFile } from "../atomic-file.js";
import { makeStateDir } from "../state-dirs.js";
import { compactLane, readT0Meta, recentDigests } from "./transcripts.js";
import { createMind } from "../mind/index.js";

/** Where the latest handoffs are kept under the continuity folder. */
const HANDOFF_DIR = "handoffs";
const TASKS_DIR = ".opencode/context/active_tasks";
/** A session's raw lane stops growing past this (`continuity.laneMaxBytes`). */
const LANE_MAX_BYTES = 1 << 20;

/**
 * Continuity of the project at `root`. `config()` is the effective config (or null while NSO
 * is not enforcing), `wf(fn)` runs `fn` with the workflow package, `claims` is the Conductor's
 * instance (claims held), `sessions` the session registry, `memoryFiles()` the memory files,
 * `authorizeWrite(sessionID, agent, rel, content, via)` NSO's verdict on a write, `logs` the logs.
 */
export function createContinuity({ root, config, wf, claims, sessions, memoryFiles, authorizeWrite, logs }) {
  const settings = () => config()?.continuity;
  const enabled = () => settings()?.enabled === true;
  const recording = () => enabled() && settings().transcripts === true;
  const dir = () => path.resolve(root, settings()?.dir ?? ".opencode/nso");
  const ledgerFile = () => path.join(root, settings()?.ledger ?? ".opencode/context/decisions.md");
  const lanes = createLanes({
    settings: () => ({ dir: dir(), root, rawOutputBytes: settings()?.rawOutputBytes ?? 65536,
      laneMaxBytes: settings()?.laneMaxBytes ?? LANE_MAX_BYTES, flushMs: settings()?.flushMs ?? 250 }),
    errorLog: (text) => logs.error(text),
  });

  let mindOne = null;
  /** The project's Mind (created on first use). */
  const mind = () => (mindOne ??= createMind({ root, dir, wf, ledgerFile, errorLog: (text) => logs.error(text) }));

  /** What Mind knows about the session's segments and tasks, for the handoff's mind layer. */
  function mindLines(digest, budgetLines) {
    try {
      return mind().handoffLines(digest, Math.max(2, Math.floor(budgetLines / 4)));
    } catch (error) {
      logs.error(`Mind's lines for the handoff failed: ${error.message}`);
      return [];
    }
  }

  /** Records one host event (OpenCode's `event` hook) in the session's raw lane. */
  function onEvent(type, props) {
    if (!recording()) return;
    if (type === "message.part.updated") {
      const part = props.part;
      if (part?.id && part.sessionID) lanes.record(part.sessionID, "part", part.id, part);
    } else if (type === "message.updated") {
      const info = props.info;
      if (info?.id && info.sessionID) lanes.record(info.sessionID, "message", info.id, info);
    } else if (type === "session.created" || type === "session.updated") {
      const info = props.info;
      if (info?.id) lanes.record(info.id, "session", info.id, info);
    }
  }

  /** Compacts `session`'s lane into its T0 files now; its metadata (digest), or null. */
  function transcript(session) {
    if (!recording() || !session) return readT0Meta(dir(), session);
    const laneFile = lanes.settle(session);
    try {
      return wf((w) => compactLane({ wf: w, dir: dir(), root, session, laneFile }));
    } catch (error) {
      logs.error(`T0 transcript of ${session} failed: ${error.message}`);
      return readT0Meta(dir(), session);
    }
  }

  /** The status of a delegated task the session works on (its contract's status.md), if any. */
  function contractStatus(digest) {
    const link = digest?.tasks?.find((t) => t.kind === "contract" && (t.relation === "active" || t.relation === "completed"));
    if (!link) return null;
    try {
      const text = fs.readFileSync(path.join(root, TASKS_DIR, link.task, "status.md"), "utf8");
      const status = /\*\*Status\*\*:\s*\[?([A-Z_]+)\]?/.exec(text)?.[1];
      return status ? `task ${link.task}: ${status}` : null;
    } catch {
      return null;
    }
  }

  /**
   * The handoff of `session` (null: the project's, without a session layer): `{text, lines,
   * truncated, layers}`. Compacts the session's lane first.
   */
  async function handoff(session, { expand = false } = {}) {
    if (!enabled()) throw off();
    const s = settings();
    const meta = session ? transcript(session) : null;
    try {
      await mind().ingest();
    } catch (error) {
      logs.error(`Mind's ingestion before the handoff failed: ${error.message}`);
    }
    const digest = meta?.digest ?? null;
    const entry = session ? sessions.peek(session) : undefined;
    let ledger = null;
    try {
      ledger = fs.existsSync(ledgerFile()) ? readLedger(ledgerFile()) : null;
    } catch (error) {
      logs.error(error.message);
    }
    const input = {
      ledger,
      session: digest,
      task: entry?.task ?? digest?.task ?? null,
      status: contractStatus(digest),
      claims: await claimsHeld(session),
      memory: memoryFiles(),
      recent: recentDigests(dir(), { except: session, limit: s?.handoff?.recentSessions ?? 3 }),
      mind: mindLines(digest, expand ? s.handoff.expandLines : s.handoff.lines),
      budget: { lines: expand ? s.handoff.expandLines : s.handoff.lines, width: s.handoff.width },
      expand,
    };
    return JSON.parse(wf((w) => w.handoff(JSON.stringify(input))));
  }

  /**
   * The claims `session`'s window holds: this process's instance, else the Conductor's record
   * of the instance the session belongs to (the CLI). null: unknown (the Conductor is off or
   * cannot be read).
   */
  async function claimsHeld(session) {
    if (claims.mode() === "off") return null;
    if (!session) return [];
    const inst = claims.instanceOf(session);
    if (inst?.id) return [...inst.held].map(projectPath);
    try {
      const status = await claims.status();
      const mine = (status.instances ?? []).find((i) => (i.sessions ?? []).includes(session));
      return mine ? (mine.files_claimed ?? mine.claims ?? []).map(projectPath) : [];
    } catch {
      return null;
    }
  }

  /** A claimed path as the handoff shows paths: relative to the project when inside it. */
  function projectPath(p) {
    if (typeof p !== "string" || !path.isAbsolute(p)) return p;
    for (const base of [root, realRoot()]) {
      const rel = path.relative(base, p);
      if (rel && !rel.startsWith("..") && !path.isAbsolute(rel)) return rel.split(path.sep).join("/");
    }
    return p;
  }

  /** The project's real location (claims name real paths), else `root`. */
  function realRoot() {
    try {
      return fs.realpathSync(root);
    } catch {
      return root;
    }
  }

  /** Keeps `text` as the session's handoff and as the project's latest one. */
  function keepHandoff(session, text) {
    try {
      const folder = makeStateDir(path.join(dir(), HANDOFF_DIR), { root });
      replaceFile(path.join(folder, `${session.replace(/[^A-Za-z0-9_-]/g, "_")}.md`), text);
      replaceFile(path.join(folder, "latest.md"), text);
      replaceFile(path.join(folder, "latest.json"), JSON.stringify({ session, at: new Date().toISOString() }) + "\n");
    } catch (error) {
      logs.error(`cannot keep the handoff of ${session}: ${error.message}`);
    }
  }

  /**
   * OpenCode is about to compact `session`: its handoff joins the compaction's context (the
   * strings in `context`), so what matters survives the summary.
   */
  async function compacting(session, context) {
    if (!enabled() || !settings().handoff.atCompaction || !Array.isArray(context)) return;
    try {
      const h = await handoff(session);
      context.push(h.text);
      keepHandoff(session, h.text);
      logs.decision(`${new Date().toISOString()} handoff of ${session} added to the compaction (${h.lines} lines)`);
    } catch (error) {
      logs.error(`handoff at compaction of ${session} failed: ${error.message}`);
    }
  }

  /** A session went idle: its transcript is brought up to date; a main session's handoff kept. */
  async function idle(session) {
    if (!enabled() || !session) return;
    transcript(session);
    if (sessions.peek(session)?.parentID) return;
    try {
      keepHandoff(session, (await handoff(session)).text);
    } catch (error) {
      logs.error(`handoff of ${session} failed: ${error.message}`);
    }
  }

  /**
   * The project's latest handoff for the start of a new main session `session` (a handoff
   * of that same session is not shown back to it), or null.
   */
  function startText(session) {
    if (!enabled() || !settings().handoff.atSessionStart) return null;
    const folder = path.join(dir(), HANDOFF_DIR);
    try {
      const latest = JSON.parse(fs.readFileSync(path.join(folder, "latest.json"), "utf8"));
      if (latest.session === session) return null;
      const text = fs.readFileSync(path.join(folder, "latest.md"), "utf8");
      return `NSO: the project's latest handoff (from session ${latest.session}, ${latest.at}):\n${text}`;
    } catch {
      return null;
    }
  }

  /**
   * Records a decision for `ctx` (`{sessionID, agent}`; the CLI passes agent "person"):
   * `{decision, why, supersedes?}`. Returns `{id, text}`; throws a refusal with `code`/`fix`.
   */
  async function decide(ctx, { decision, why, supersedes }) {
    if (!enabled()) throw off();
    const file = ledgerFile();
    const rel = path.relative(root, file).split(path.sep).join("/");
    const person = ctx.agent === "person" ? (safeUser() ?? "person") : null;
    return wf((w) => appendDecision({
      wf: w, file, now: new Date().toISOString(),
      entry: { decision, why, supersedes: supersedes || null, agent: person ? `person (${person})` : ctx.agent ?? "unknown", session: ctx.sessionID ?? null },
      authorize: (text) => (ctx.agent === "person" ? null : authorizeWrite(ctx.sessionID, ctx.agent, rel, text, "nso_decide")),
    }));
  }

  /** The ledger's view (current decisions, newest first; `all`: superseded ones too). */
  function decisions({ all = false, json = false, maxLines } = {}) {
    const text = fs.existsSync(ledgerFile()) ? readLedger(ledgerFile()) : "";
    return wf((w) => (json ? w.ledgerJson(text) : w.ledgerView(text, all, maxLines ?? undefined)));
  }

  return {
    onEvent, transcript, handoff, compacting, idle, startText, decide, decisions,
    ledgerFile, dir, mind, flush: () => lanes.flush(), forget: (session) => lanes.forget(session),
  };
}

const off = () => Object.assign(new Error("continuity is off in this project."), { code: "continuity_off", fix: "set continuity.enabled to true in .opencode/nso.json." });

function safeUser() {
  try {
    return os.userInfo().username;
  } catch {
    return null;
  }
}
