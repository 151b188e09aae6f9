// The Conductor at the hooks: each main session of this process is an instance in the
// machine-wide claim store ($CONDUCTOR_HOME); before a write-class call, its targets are
// claimed for the session's instance, and another instance's intersecting claim refuses the
// call (`enforce`) or warns (`advisory`). Subagent sessions share their parent's instance.
// Host-independent: nso.js calls it; the store (conductor/store.js) does the I/O.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadCore } from "./core-loader.js";
import { canonicalClaim, literalClaim } from "./conductor/paths.js";
import { processStartToken } from "./conductor/liveness.js";
import { resolveHome, STATUS_FILE } from "./conductor/home.js";
import { runConductor } from "./conductor/store.js";

const TASK_CHARS = 200;

/**
 * The claim pattern of a project-relative target (`below`: everything under it). A tool's
 * target is a literal path: `app/[id].tsx` is that file, never a glob.
 */
export function targetPattern(root, [rel, below]) {
  return literalClaim(rel ? `${root}/${rel}` : root, { folder: below });
}

/** The agent-facing text for a conflict result of the store. */
export function conflictText(conflicts, mode) {
  const who = conflicts.map((c) => {
    const agent = c.holder_agent ? `, agent @${c.holder_agent}` : "";
    const age = c.holder_age_minutes !== undefined ? `, claimed ${c.holder_age_minutes} min ago` : "";
    return `${c.file} is claimed by instance ${c.held_by} (project ${c.holder_project ?? "?"}, task "${c.holder_task ?? ""}"${agent}${age})`;
  }).join("; ");
  const options = "Options: wait until that window finishes (its claims are released when it is done, idle or gone), " +
    "coordinate with it (it can release the file with nso_release), or ask the person to take it over: " +
    "`nso conductor claim <path> --force \"why\"`.";
  return mode === "advisory"
    ? `NSO conductor (advisory): ${who}. The call went ahead; another window may be editing the same file. ${options}`
    : `${who}. Another OpenCode window holds it, so this call would overwrite its work. ${options}`;
}

/**
 * The claims of one NSO instance (one project in this process). `settings()` gives the
 * `conductor` config; `project` the project's name; `errorLog(text)` reports store problems.
 */
export function createClaims({ root, settings, errorLog, home: homeOverride }) {
  const bySession = new Map(); // sessionID -> main session id (its instance's owner)
  const instances = new Map(); // main session id -> { id, ready, held, forced, drift, lastActivity, lastBeat }
  let seenMtime = 0;
  let idleTimer = null;
  const storeNotices = new Map(); // text -> main session ids already told

  const mode = () => settings()?.mode ?? "enforce";
  const home = () => {
    const configured = settings()?.home ?? homeOverride;
    return configured ? path.resolve(root, configured) : resolveHome();
  };
  /** One store operation; the state file it leaves is this instance's own news, not others'. */
  async function run(op) {
    const answer = await runConductor({
      home: home(), op, ttlSeconds: settings()?.ttlSeconds ?? 600,
      errorLog: (n) => {
        errorLog(n.message);
        storeNotices.set(`NSO conductor: ${n.message}`, new Set()); // every window's agent hears of it
      },
    });
    seenMtime = fs.statSync(path.join(home(), STATUS_FILE), { throwIfNoEntry: false })?.mtimeMs ?? seenMtime;
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

  /** Registers the instance of `sessionID`'s main session (once), with `task` as its task. */
  function register(sessionID, { task, agent } = {}) {
    if (mode() === "off" || !sessionID) return undefined;
    const owner = ownerOf(sessionID);
    if (!bySession.has(owner)) bySession.set(owner, owner);
    let inst = instances.get(owner);
    if (inst) return inst;
    inst = { id: null, held: [], forced: [], drift: null, lastActivity: Date.now(), lastBeat: Date.now() };
    instances.set(owner, inst);
    inst.ready = run({
      operation: "start", automatic: true, source: "opc", task: String(task ?? "").trim().slice(0, TASK_CHARS) || "(OpenCode session)",
      project: path.basename(root), priority: "P2", working_directory: root, project_root: root, pid: process.pid,
      host: os.hostname(), process_started: processStartToken(process.pid), agent: agent ?? null, session: owner,
    }).then((answer) => {
      if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
      inst.id = answer.result.instance_id;
      inst.drift = answer.result.drift_warning ?? null;
      startIdleTimer();
      return inst;
    }).catch((error) => {
      instances.delete(owner); // the next call tries again
      throw error;
    });
    inst.ready.catch(() => {}); // reported by the call that awaits it
    return inst;
  }

  function startIdleTimer() {
    if (idleTimer) return;
    idleTimer = setInterval(releaseIdle, 60_000);
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
   * Claims took over by force, and claims that vanished, are noticed when status.json
   * changes: one stat per call, a read only when it changed.
   */
  async function refresh(inst) {
    let stat;
    try {
      stat = fs.statSync(path.join(home(), STATUS_FILE));
    } catch {
      return;
    }
    if (stat.mtimeMs === seenMtime) return;
    seenMtime = stat.mtimeMs;
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
   * the agent must hear of), or `{}`.
   */
  async function beforeWrite({ sessionID, agent, targets, task }) {
    if (mode() === "off" || !targets.length) return {};
    let inst;
    try {
      inst = register(sessionID, { task, agent });
      await inst.ready;
      inst.lastActivity = Date.now();
      await refresh(inst).catch(async (error) => {
        if (error.code !== "gone") throw error;
        instances.delete(ownerOf(sessionID));
        inst = register(sessionID, { task, agent });
        await inst.ready;
      });
      const patterns = targets.map((t) => targetPattern(root, t));
      const core = loadCore();
      const held = JSON.stringify(inst.held);
      const missing = patterns.filter((p) => !core.conductorCovers(held, p));
      if (!missing.length) return {}; // already held: no lock, no rewrite
      const answer = await run({ operation: "claim", instance_id: inst.id, files: missing, by: agent ?? null });
      if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
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
        `Fix: ${error.fix ?? "check that $CONDUCTOR_HOME (default ~/.conductor) is a writable folder, or set conductor.mode in .opencode/nso.json"}.` };
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
    if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
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
    if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
    inst.held = all ? [] : inst.held.filter((p) => !files.includes(p));
    return answer.result;
  }

  /** Every instance on the machine and what it holds (`nso_claims`). */
  async function status() {
    const answer = await run({ operation: "status" });
    if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
    return answer.result;
  }

  /**
   * What the agent of `sessionID` must hear at its next tool call, whatever the tool: claims
   * a person took over by force, and a claim store that had to be recovered. "" when none.
   */
  async function noticesFor(sessionID) {
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
    if (inst?.id) {
      try {
        await refresh(inst);
      } catch (error) {
        if (error.code !== "gone") errorLog(`conductor: checking notices failed: ${error.message}`);
      }
      for (const n of inst.forced) {
        lines.push(`NSO conductor: your claim on ${n.pattern} was taken over by ${n.by || "the person"}` +
          `${n.justification ? ` ("${n.justification}")` : ""}; do not change it further without coordinating with them.`);
      }
      inst.forced = [];
    }
    return lines.join("\n");
  }

  /** A heartbeat on activity, at most every quarter TTL, in the background. */
  function heartbeat(inst) {
    const every = ((settings()?.ttlSeconds ?? 600) * 1000) / 4;
    if (Date.now() - inst.lastBeat < every) return;
    inst.lastBeat = Date.now();
    run({ operation: "heartbeat", instance_id: inst.id }).catch((error) => errorLog(`conductor: heartbeat failed: ${error.message}`));
  }

  /** A main session ends: its instance is done and its claims are released. */
  async function sessionEnded(sessionID) {
    const inst = instances.get(sessionID);
    bySession.delete(sessionID);
    if (!inst) return;
    instances.delete(sessionID);
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

