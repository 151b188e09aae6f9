// The Conductor at the hooks: each main session of this process is an instance in the
// machine-wide claim store ($CONDUCTOR_HOME); before a write-class call, its targets are
// claimed for the session's instance, and another instance's intersecting claim refuses the
// call (`enforce`) or warns (`advisory`). Subagent sessions share their parent's instance.
// Host-independent: nso.js calls it; the store (conductor/stores.js: the files of
// $CONDUCTOR_HOME, or PostgreSQL shared by several machines) does the I/O.
import os from "node:os";
import path from "node:path";
import { loadCore } from "./core-loader.js";
import { canonicalClaim } from "./conductor/paths.js";
import { conflictText, targetPattern } from "./conductor/conflicts.js";
import { processStartToken } from "./conductor/liveness.js";
import { coreError } from "./errors.js";
import { resolveHome } from "./conductor/home.js";
import { openStore } from "./conductor/stores.js";
import { registerWithRetry, registrationLabel, sessionTasks } from "./conductor/registration.js";

const TASK_CHARS = 200;

/**
 * The claims of one NSO instance (one project in this process). `settings()` gives the
 * `conductor` config; `project` the project's name; `errorLog(text)` reports store problems.
 */
export function createClaims({ root, settings, errorLog, home: homeOverride, host, surface, retryDelays }) {
  // `host` ({pid, source, label}): NSO runs in a short process per call on behalf of a
  // long-lived one (Claude Code starts a process per hook call). The instance carries that
  // process's pid (alive while it runs), and each call finds its session's instance again.
  const pid = host?.pid ?? process.pid;
  const bySession = new Map(); // sessionID -> main session id (its instance's owner)
  const instances = new Map(); // main session id -> { id, ready, held, forced, drift, lastActivity, lastBeat }
  let seenVersion = null;
  let unchangedThisTurn = false; // see unchanged()
  const settled = new WeakSet(); // instances whose registration finished (their `ready` resolved)
  let idleTimer = null;
  const storeNotices = new Map(); // text -> main session ids already told
  const tasks = sessionTasks(); // a registration made again later keeps the first task

  const mode = () => settings()?.mode ?? "enforce";
  const home = () => {
    const configured = settings()?.home ?? homeOverride;
    return configured ? path.resolve(root, configured) : resolveHome();
  };
  const ttlMs = () => (settings()?.ttlSeconds ?? 600) * 1000;
  /**
   * The configured store (a PostgreSQL one is opened once per process and reused), found again
   * only when the settings change (a config reload): it is asked several times per call. When
   * a reload names another store, this window's instances register there anew at their next
   * call (their claims in the old store lapse with their heartbeats).
   */
  let opened = { settings: null, store: null };
  const store = () => {
    const current = settings();
    if (opened.store && opened.settings === current) return opened.store;
    const next = openStore(current ?? {}, { root, home: current?.home ? undefined : homeOverride });
    if (opened.store && next !== opened.store) {
      instances.clear();
      seenVersion = null;
      unchangedThisTurn = false;
    }
    opened = { settings: current, store: next };
    return next;
  };
  /**
   * Whether the claims `held` (as JSON) cover the claim `pattern` (the core's
   * `conductorCovers`), remembered: the same targets are checked against the same claims at
   * every call.
   */
  const coverage = new Map();
  const covers = (held, pattern) => {
    const key = `${held}\u0000${pattern}`;
    let answer = coverage.get(key);
    if (answer === undefined) {
      answer = loadCore().conductorCovers(held, pattern);
      if (coverage.size >= 1024) coverage.clear();
      coverage.set(key, answer);
    }
    return answer;
  };
  /**
   * One store operation; the state it leaves is this instance's own news, not others'. An
   * answer about an instance confirms, until a TTL later, that its claims are still its own.
   */
  async function run(op) {
    const answer = await store().run({
      op, ttlSeconds: settings()?.ttlSeconds ?? 600,
      errorLog: (n) => {
        errorLog(n.message);
        storeNotices.set(`NSO conductor: ${n.message}`, new Set()); // every window's agent hears of it
      },
    });
    seenVersion = answer.version ?? seenVersion;
    if (!answer.error && op.instance_id) {
      for (const inst of instances.values()) if (inst.id === op.instance_id) inst.confirmedAt = Date.now();
    }
    return answer;
  }

  const ownerOf = (sessionID) => {
    let id = sessionID;
    for (let i = 0; i < 16 && bySession.has(id) && bySession.get(id) !== id; i++) id = bySession.get(id);
    return id;
  };

  /** A session appears: a subagent joins its parent's instance; a main one waits for its task. */
  function sessionStarted({ id, parentID }) {
    if (!id || mode() === "off") return;
    bySession.set(id, parentID ?? id);
  }

  /** Registers the instance of `sessionID`'s main session (once), with its first task; `retry`: see registration.js. */
  function register(sessionID, { task, agent, retry = false } = {}) {
    if (mode() === "off" || !sessionID) return undefined;
    const owner = ownerOf(sessionID);
    if (!bySession.has(owner)) bySession.set(owner, owner);
    ({ task, agent } = tasks.remember(owner, { task: String(task ?? "").trim().slice(0, TASK_CHARS), agent }));
    if (instances.has(owner)) return instances.get(owner);
    const inst = { id: null, held: [], forced: [], drift: null, lastActivity: Date.now(), lastBeat: Date.now(), confirmedAt: Date.now() };
    instances.set(owner, inst);
    const start = () => registerWithRetry(() => run({
      operation: "start", automatic: true, source: host?.source ?? "opc",
      task: task || `(${host?.label ?? "OpenCode session"})`,
      project: path.basename(root), priority: "P2", working_directory: root, project_root: root, pid,
      host: os.hostname(), process_started: processStartToken(pid), agent: agent ?? null, session: owner,
    }), { what: registrationLabel(task), retry, delays: retryDelays, errorLog, surface: (e) => surface?.({ ...e, session: owner, task: task ?? null }) }).then((answer) => {
      if (answer.error) throw coreError(answer.error);
      inst.id = answer.result.instance_id;
      inst.drift = answer.result.drift_warning ?? null;
      return inst;
    });
    inst.ready = (host ? recall(owner) : Promise.resolve(null)).then((found) => {
      if (!found) return start();
      inst.id = found.id;
      inst.held = [...found.held];
      return inst;
    }).then(() => {
      startIdleTimer();
      settled.add(inst);
      return inst;
    }).catch((error) => {
      instances.delete(owner); // the next call tries again
      throw error;
    });
    inst.ready.catch(() => {}); // reported by the call that awaits it
    return inst;
  }

  /**
   * The live instance an earlier call of this host process registered for session `owner`
   * (`{id, held}`), or null.
   */
  async function recall(owner) {
    const answer = await run({ operation: "status" });
    if (answer.error) throw coreError(answer.error);
    const mine = (answer.result?.instances ?? []).find((i) =>
      i.alive && i.pid === pid && i.host === os.hostname() && (i.sessions ?? []).includes(owner));
    return mine ? { id: mine.id, held: mine.files_claimed ?? [] } : null;
  }

  /**
   * Every minute: idle instances release their claims. With a store shared by several
   * machines, live instances also send heartbeats (other machines judge them by heartbeat
   * age alone), so the timer runs at least every quarter TTL.
   */
  function startIdleTimer() {
    if (idleTimer) return;
    idleTimer = setInterval(() => {
      releaseIdle();
      if (store().shared) for (const inst of instances.values()) if (inst.id) heartbeat(inst);
    }, Math.min(60_000, ttlMs() / 4));
    idleTimer.unref?.();
  }

  /** Releases the claims of instances without activity for `idleReleaseMinutes`. */
  async function releaseIdle(now = Date.now()) {
    const limit = (settings()?.idleReleaseMinutes ?? 30) * 60_000;
    for (const inst of instances.values()) {
      if (!inst.id || !inst.held.length || now - inst.lastActivity < limit) continue;
      try {
        await run({ operation: "release", instance_id: inst.id, all: true, reason: "idle" });
        inst.held = [];
      } catch (error) {
        errorLog(`conductor: idle release of ${inst.id} failed: ${error.message}`);
      }
    }
  }

  /**
   * Whether the store's state is the one last seen (nothing for `refresh` to learn), asked
   * without a promise turn; false when the version cannot be read (`refresh` then reports it).
   * Found unchanged, it is not read again before the next turn: a call asks twice (its notices,
   * then its write), and a second read microseconds later would narrow no race.
   */
  function unchanged() {
    if (unchangedThisTurn) return true;
    try {
      if (store().version() !== seenVersion) return false;
    } catch {
      return false;
    }
    unchangedThisTurn = true;
    queueMicrotask(() => {
      unchangedThisTurn = false;
    });
    return true;
  }

  /**
   * Claims took over by force, and claims that vanished, are noticed when the state changes:
   * the store's version (files: one stat; PostgreSQL: a revision checked in the background),
   * a read only when it changed.
   */
  async function refresh(inst) {
    const version = await store().version();
    if (version === seenVersion) return;
    seenVersion = version;
    const answer = await run({ operation: "notices", instance_id: inst.id });
    if (answer.error?.code === "unknown_instance") {
      inst.held = [];
      throw Object.assign(new Error("this window's conductor instance was removed (cleanup or a crash recovery); it registers again"), { code: "gone" });
    }
    for (const n of answer.result?.notices ?? []) inst.forced.push(n);
    if (inst.forced.length) inst.held = inst.held.filter((p) => !inst.forced.some((n) => n.pattern === p));
  }

  /**
   * Before a write-class call of `sessionID` on `targets` (`[[rel, below]]`): claims them.
   * Returns `{block}` (enforce: the refusal text), `{notice}` (advisory, or a forced claim
   * the agent must hear of), or `{}`: at once when the targets are already held and nothing
   * is to be waited for (see `heldAlready`), else a promise of it.
   */
  function beforeWrite(call) {
    return heldAlready(call) ?? claimWrite(call);
  }

  /**
   * `{}` at once, without a promise, when `beforeWrite` has nothing to wait for (the common
   * case): the instance registered, nothing new in the store, every target already held and,
   * with a shared store, its claims confirmed within a TTL. Else null (`claimWrite` decides).
   */
  function heldAlready({ sessionID, targets }) {
    try {
      if (mode() === "off" || !targets.length) return {};
      const owner = ownerOf(sessionID);
      const inst = instances.get(owner);
      if (!inst || !settled.has(inst) || !unchanged() || (store().shared && Date.now() - inst.confirmedAt >= ttlMs())) return null;
      const held = JSON.stringify(inst.held);
      if (!targets.every((t) => covers(held, targetPattern(root, t)))) return null;
      if (!bySession.has(owner)) bySession.set(owner, owner); // as register does
      inst.lastActivity = Date.now();
      heartbeat(inst);
      return {};
    } catch {
      return null; // claimWrite meets the same failure and reports it
    }
  }

  async function claimWrite({ sessionID, agent, targets, task }) {
    if (mode() === "off" || !targets.length) return {};
    let inst;
    try {
      inst = register(sessionID, { task, agent });
      await inst.ready;
      inst.lastActivity = Date.now();
      if (!unchanged()) await refresh(inst).catch(async (error) => {
        // A store that cannot be read now does not stop what the instance already holds.
        if (error.code !== "gone") return errorLog(`conductor: checking for news failed: ${error.message}`);
        instances.delete(ownerOf(sessionID));
        inst = register(sessionID, { task, agent });
        await inst.ready;
      });
      const patterns = targets.map((t) => targetPattern(root, t));
      const held = JSON.stringify(inst.held);
      let missing = patterns.filter((p) => !covers(held, p));
      if (!missing.length) {
        // Already held: no lock, no rewrite. A shared store's claims are trusted from the cache
        // for a TTL after the store last confirmed them (past that, other machines may have
        // judged this one gone): then a heartbeat must get through first.
        if (!store().shared || Date.now() - inst.confirmedAt < ttlMs()) {
          heartbeat(inst);
          return {};
        }
        const beat = await run({ operation: "heartbeat", instance_id: inst.id });
        if (!beat.error) {
          inst.lastBeat = Date.now();
          return {};
        }
        if (beat.error.code !== "unknown_instance") throw coreError(beat.error);
        // Judged gone by another machine: its claims were freed. Register again, claim anew.
        instances.delete(ownerOf(sessionID));
        inst = register(sessionID, { task, agent });
        await inst.ready;
        missing = patterns;
      }
      const answer = await run({ operation: "claim", instance_id: inst.id, files: missing, by: agent ?? null });
      if (answer.error) throw coreError(answer.error);
      if (answer.result.status === "conflict") {
        const text = conflictText(answer.result.conflicts ?? [], mode());
        if (mode() === "advisory") return { notice: text };
        return { block: text };
      }
      for (const p of answer.result.claimed ?? missing) if (!inst.held.includes(p)) inst.held.push(p);
      heartbeat(inst);
      return {};
    } catch (error) {
      const why = `NSO cannot use the conductor's claim store (${error.message})`;
      errorLog(`conductor: ${why}`);
      if (mode() === "advisory") return { notice: `${why}; the call went ahead without a claim (advisory mode).` };
      return { block: `${why}, so it refuses calls that change files until it works again (fail closed). ` +
        `Fix: ${(error.fix ?? "check that $CONDUCTOR_HOME (default ~/.conductor) is a writable folder, or set conductor.mode in .opencode/nso.json").replace(/\.$/, "")}.` };
    }
  }

  /**
   * Claims `paths` (relative to the project, or absolute; folders and globs allowed) for the
   * instance of `sessionID` ahead of the work (NSO's `nso_claim` tool). Returns the store's
   * result (`ok` with the patterns, or `conflict` with the holders).
   */
  async function claimPaths(sessionID, agent, paths) {
    const inst = register(sessionID, { agent });
    await inst.ready;
    inst.lastActivity = Date.now();
    const files = paths.map((p) => canonicalClaim(p, root));
    const answer = await run({ operation: "claim", instance_id: inst.id, files, by: agent ?? null });
    if (answer.error) throw coreError(answer.error);
    if (answer.result.status === "ok") for (const p of files) if (!inst.held.includes(p)) inst.held.push(p);
    return answer.result;
  }

  /** Releases `paths` (or every claim, with `all`) of `sessionID`'s instance (`nso_release`). */
  async function releasePaths(sessionID, { paths = [], all = false, reason } = {}) {
    const inst = instances.get(ownerOf(sessionID));
    if (!inst) return { status: "ok", released: [], message: "this session holds no claims." };
    await inst.ready;
    const files = paths.map((p) => canonicalClaim(p, root));
    const answer = await run({ operation: "release", instance_id: inst.id, ...(all ? { all: true } : { files }), reason });
    if (answer.error) throw coreError(answer.error);
    inst.held = all ? [] : inst.held.filter((p) => !files.includes(p));
    return answer.result;
  }

  /** Every instance on the machine and what it holds (`nso_claims`). */
  async function status() {
    const answer = await run({ operation: "status" });
    if (answer.error) throw coreError(answer.error);
    return answer.result;
  }

  /**
   * What the agent of `sessionID` must hear at its next tool call, whatever the tool: claims
   * a person took over by force, and a claim store that had to be recovered. "" when none.
   * The text itself, without a promise, when the store has nothing new since it was last
   * read (the common case); else a promise of it.
   */
  function noticesFor(sessionID) {
    if (mode() === "off") return "";
    const owner = ownerOf(sessionID);
    const lines = [];
    for (const [text, told] of storeNotices) {
      if (!told.has(owner)) {
        told.add(owner);
        lines.push(text);
      }
    }
    const inst = instances.get(owner);
    if (inst?.id && !unchanged()) return refresh(inst).catch((error) => {
      if (error.code !== "gone") errorLog(`conductor: checking notices failed: ${error.message}`);
    }).then(() => forcedNotices(inst, lines));
    return inst?.id ? forcedNotices(inst, lines) : lines.join("\n");
  }

  /** `lines` and the claims of `inst` taken over by force since it was last told, as one text. */
  function forcedNotices(inst, lines) {
    for (const n of inst.forced) {
      lines.push(`NSO conductor: your claim on ${n.pattern} was taken over by ${n.by || "the person"}` +
        `${n.justification ? ` ("${n.justification}")` : ""}; do not change it further without coordinating with them.`);
    }
    inst.forced = [];
    return lines.join("\n");
  }

  /** A heartbeat on activity, at most every quarter TTL, in the background. */
  function heartbeat(inst) {
    const every = ttlMs() / 4;
    if (Date.now() - inst.lastBeat < every) return;
    inst.lastBeat = Date.now();
    run({ operation: "heartbeat", instance_id: inst.id }).catch((error) => errorLog(`conductor: heartbeat failed: ${error.message}`));
  }

  /** A main session ends: its instance is done and its claims are released. */
  async function sessionEnded(sessionID) {
    let inst = instances.get(sessionID);
    bySession.delete(sessionID);
    instances.delete(sessionID);
    if (!inst && host && mode() !== "off") {
      const found = await recall(sessionID).catch((error) => errorLog(`conductor: finding the instance of ${sessionID} failed: ${error.message}`));
      if (found) inst = { id: found.id, ready: Promise.resolve() };
    }
    if (!inst) return;
    try {
      await inst.ready;
      await run({ operation: "done", instance_id: inst.id, outcome: "session_deleted", files_modified: [] });
    } catch (error) {
      errorLog(`conductor: releasing the claims of ${inst.id ?? sessionID} failed: ${error.message}`);
    }
  }

  /** Lines for the agent's system prompt: its instance and a drift warning, if any. */
  function systemText(sessionID) {
    const inst = instances.get(ownerOf(sessionID));
    if (!inst?.drift) return [];
    return [`NSO conductor: ${inst.drift}`];
  }

  /** Stops the idle timer (the process keeps no handle open). */
  function dispose() {
    if (idleTimer) clearInterval(idleTimer);
    idleTimer = null;
  }

  return {
    sessionStarted, register, beforeWrite, noticesFor, sessionEnded, systemText, releaseIdle, dispose, claimPaths, releasePaths, status,
    mode, home, instanceOf: (s) => instances.get(ownerOf(s)),
  };
}

