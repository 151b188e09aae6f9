// One NSO instance per project, independent of the host: the loaded config and policy, the
// session registry, the decision path of each tool call and session start (what NSO's own
// tools need to write is in own-writes.js). A host adapter (hosts/opencode.js) turns the
// host's hooks into these calls.
import fs from "node:fs";
import path from "node:path";
import { crossingPrefix } from "./text.js";
import { isTrap, loadCore, loadWorkflowCore, reloadCore, reloadWorkflowCore } from "./core-loader.js";
import { blockError, decideCall, isReadTool, logDecision, notEnforcingText } from "./decision/call.js";
import { callTarget, createActivity } from "./activity.js";
import { registrationEvent } from "./conductor/registration.js";
import { createClaims } from "./claims.js";
import { createContinuity } from "./continuity/index.js";
import { createDelegations } from "./delegations.js";
import { createKord } from "./kord.js";
import { projectRoot, readText } from "./decision/files.js";
import { INIT_DIR, createLogs, stamp } from "./logs.js";
import { createOwnWrites } from "./decision/own-writes.js";
import { createProjectHooks } from "./decision/project-hooks.js";
import { routeMessage } from "./routing.js";
import { SessionRegistry } from "./sessions.js";
import { makeStateDir } from "./state-dirs.js";

export const CONFIG_FILE = ".opencode/nso.json";
/** The core's version, for the activity feed (null while it does not load). */
function coreVersion() {
  try {
    return loadCore().version();
  } catch {
    return null;
  }
}

const DECIDED = Promise.resolve(); // what `beforeTool` returns for a call decided at once

/**
 * Creates the NSO instance of the project at `worktree` (else `directory`). Relative paths
 * in tool calls are taken from `directory`. A host that runs NSO in a short process per call
 * names the long-lived process it acts for: `host` ({pid, source, label}, the Conductor's
 * instance) and `feed` ({name, pid}, the activity feed). `notify(text)` tells the person
 * (the host's notification; stderr is written anyway) when NSO stops enforcing its rules.
 * `projectAgentsOf(root)` lists the agents the host has for the project (refusals suggest
 * only these; without it, every agent of the policy counts).
 */
export function createNso({ directory, worktree, serverUrl, feed, host, notify, projectAgentsOf } = {}) {
  const root = projectRoot({ directory, worktree });
  const baseDir = directory ? path.resolve(directory) : root;
  const sessions = new SessionRegistry();
  const state = { engine: null, workflow: null, configText: undefined, failure: null, config: null, failureShown: new Set() };
  const logs = createLogs(root, () => state.config?.logDir);
  const projectHooks = createProjectHooks(root, () => state.config?.hooks);
  const delegations = createDelegations({
    root, sessions, logs, wf: loadWorkflowCore, maxDepth: () => state.config?.delegation?.maxDepth ?? 3,
  });
  const kord = createKord({ root, wf: (fn) => withWorkflow(() => fn(loadWorkflowCore())), logs });
  const pendingNotices = new Map(); // callID -> soft reminders for the result
  const claims = createClaims({ root, settings: () => state.config?.conductor, errorLog: (text) => logs.error(text), host,
    surface: (event) => registrationEvent({ event, notify, activity }) });
  const activity = createActivity({
    home: () => claims.home(),
    header: () => ({ project: path.basename(root), root, serverUrl: serverUrl ? String(serverUrl) : null, nso: coreVersion() }),
    errorLog: (text) => logs.error(text),
    feed,
  });
  const continuity = createContinuity({
    root, config: () => (state.engine ? state.config : null), wf: (fn) => withWorkflow(fn), claims, sessions, logs,
    memoryFiles: () => memoryFiles(), authorizeWrite: (...args) => ownWrites.authorizeWrite(...args),
  });

  function fail(code, message, fix) {
    state.engine = null;
    state.failure = { code, message, fix };
    const line = `${stamp()} NSO NOT ENFORCING (${code}): ${message} Fix: ${fix}`;
    console.error(`[nso] ${line}`);
    logs.append("nso-errors.log", line);
    try {
      notify?.(failureText());
    } catch {
      // a notification that cannot be shown never stops NSO: stderr and the log have it
    }
  }

  /** (Re)loads the config and compiles the policy; on failure, records why (fail closed). */
  function load() {
    let text;
    try {
      text = readText(path.join(root, CONFIG_FILE));
    } catch (error) {
      return fail("config_read", `cannot read ${CONFIG_FILE}: ${error.message}.`, "make the file readable or remove it.");
    }
    let mod;
    try {
      mod = loadCore();
    } catch (error) {
      return fail("wasm_load", `the NSO core (pkg/nso_bg.wasm) did not load: ${error.message}.`,
        "reinstall the nso-opencode package (pkg/ must be complete), or run `npm run build` in the NSO checkout.");
    }
    try {
      state.engine?.free?.();
      state.engine = new mod.Nso(CONFIG_FILE, text);
      state.engine.setDirectories(baseDir, root);
      if (projectAgentsOf) state.engine.setProjectAgents(projectAgentsOf(root));
      state.config = state.engine.config();
      state.configText = text;
      state.workflow = null; // rebuilt from the new config on next use
      state.failure = null;
      // Status machines live in the lazily loaded workflow package: checked there, on the
      // first edit of a file they govern. A project's own `status` section is validated
      // now, so a mistake in it fails closed at once.
      state.engine.setStatusChecker((query) => withWorkflow((wf) => wf.checkStatusEdit(query, kord.statusContext(query))));
      // The T0 policy is checked by the workflow package (it makes the transcripts): a
      // mistake in it fails closed at load like any other config mistake.
      if (state.config.continuity?.t0) withWorkflow(() => null);
      if (state.config.status) {
        const [problem] = JSON.parse(withWorkflow((wf) => wf.statusProblems()));
        if (problem) {
          state.engine.free?.();
          return fail(problem.code, `${CONFIG_FILE}: ${problem.path}: ${problem.problem}`, problem.fix);
        }
      }
    } catch (error) {
      if (isTrap(error)) reloadCore();
      fail(error.code ?? "config", error.problem ?? error.message, error.fix ?? `correct ${CONFIG_FILE}.`);
    }
  }

  /** Runs `fn(engine)`; after a trap, re-creates the instance so the next call works. */
  function withEngine(fn) {
    try {
      return fn(state.engine);
    } catch (error) {
      if (!isTrap(error)) throw error;
      logs.error(`wasm trap, instance re-created: ${error.message}`);
      reloadCore();
      load();
      throw Object.assign(new Error(`NSO core trapped (${error.message}); it was restarted.`), { code: "trap" });
    }
  }

  /**
   * Runs `fn(workflow)`; after a trap, drops the poisoned package so the next call gets a
   * fresh one (this call still fails: its caller refuses or logs).
   */
  function withWorkflow(fn) {
    try {
      state.workflow ??= new (loadWorkflowCore().Workflow)(CONFIG_FILE, state.configText);
      return fn(state.workflow);
    } catch (error) {
      if (isTrap(error)) {
        logs.error(`workflow package trapped, reloaded: ${error.message}`);
        state.workflow = null;
        reloadWorkflowCore();
      }
      throw error;
    }
  }

  const failureText = () => notEnforcingText(state.failure);

  /** The core's brief on one request (undefined: a plain allow that changes no file). */
  const decide = (request, facts) => withEngine((e) => decideCall(e, request, facts));
  const ownWrites = createOwnWrites({ root, state, decide, withEngine, failureText, claims, logs });

  // --- session start -----------------------------------------------------------------

  function memoryFiles() {
    return (state.config?.memory?.files ?? []).map((rel) => {
      let content = null;
      try {
        content = readText(path.join(root, rel)) ?? null;
      } catch (error) {
        logs.error(`cannot read memory file ${rel}: ${error.message}`);
      }
      return { path: rel, content };
    });
  }

  /**
   * A new session `{id, parentID?, agent?}`: main sessions reload the config and get the
   * init marker, the alive line and the memory summary; subagent sessions their parent link.
   */
  function sessionCreated(info) {
    if (!info?.id) return;
    const entry = sessions.created(info);
    claims.sessionStarted(info);
    activity.record("session", { session: info.id, parent: info.parentID ?? null, agent: info.agent ?? null, title: info.title ?? null });
    if (info.parentID) return;
    load(); // a new session picks up config edits
    const now = stamp();
    if (!state.engine) {
      logs.append("plugin_alive.log", `${now} nso session.created ${info.id} NOT ENFORCING`);
      return;
    }
    const summary = withEngine((e) => e.sessionSummary(memoryFiles()));
    entry.summary = summary.text;
    entry.handoffNote = continuity.startText(info.id) ?? undefined;
    entry.kordNote = kord.resumeText();
    try {
      makeStateDir(path.join(root, INIT_DIR), { root });
      fs.writeFileSync(path.join(root, INIT_DIR, "session_init_marker.txt"), withEngine((e) => e.markerText(info.id, now, summary)));
    } catch (error) {
      console.error(`[nso] cannot write the init marker: ${error.message}`);
    }
    logs.append("plugin_alive.log", withEngine((e) => e.aliveLine(info.id, now)));
  }

  async function forgetSession(sessionID) {
    sessions.forget(sessionID);
    continuity.forget(sessionID);
    activity.record("deleted", { session: sessionID });
    await claims.sessionEnded(sessionID);
    try {
      state.engine?.forgetSession(sessionID);
    } catch {
      // a trapped engine is re-created on its next use
    }
  }

  // --- tool calls ------------------------------------------------------------------------

  /**
   * Before a tool call `{tool, sessionID, callID, agent?}` with `output.args`: the decision,
   * delegation limits, then the project's pre hooks. A promise, rejected with NSO's refusal.
   * `agent` defaults to the session's recorded agent.
   */
  function beforeTool(input, output) {
    const agent = input.agent ?? sessions.agentOf(input.sessionID);
    const seen = { verdict: "allow", rule: null, message: null };
    let rest;
    try {
      rest = decideTool(input, output, agent, seen);
    } catch (error) {
      return refused(input, output, agent, seen, error);
    }
    if (rest instanceof Error) return refused(input, output, agent, seen, rest);
    if (!rest) {
      callStarted(input, output, agent, seen.verdict, seen.rule, seen.message);
      return DECIDED;
    }
    return rest.then(() => callStarted(input, output, agent, seen.verdict, seen.rule, seen.message), (error) => {
      callStarted(input, output, agent, "block", error.rule ?? seen.rule ?? null, error.message);
      throw error;
    });
  }

  /** {@link beforeTool}'s answer to a call refused at once: `error`, recorded and rejected. */
  function refused(input, output, agent, seen, error) {
    callStarted(input, output, agent, "block", error?.rule ?? seen.rule ?? null, error?.message);
    return Promise.reject(error);
  }

  /**
   * The activity feed's record of a call about to run, or refused (`verdict` "block", which
   * only a refused call has: audit mode lets a call through as "audit").
   */
  function callStarted(input, output, agent, verdict, rule, message) {
    activity.record("call", {
      session: input.sessionID ?? null, agent: agent ?? null, tool: input.tool, callID: input.callID ?? null, phase: "start",
      verdict, rule, target: callTarget(output?.args), message,
    });
  }

  /**
   * The decision on a call, then what may wait (claims, project hooks): undefined when
   * nothing waits, as for most calls, so they are decided without a promise in between; else
   * a promise of the rest. NSO's refusal comes as its Error when the call is refused at
   * once (returned, not thrown: a throw cost a refusal in Bun as much as its decision), else
   * the promise rejects with it.
   */
  function decideTool(input, output, agent, seen) {
    const { tool, sessionID } = input;
    const args = output.args ?? {};
    let brief;
    if (!state.engine) {
      if (!isReadTool(tool)) {
        logs.decision(`${stamp()} block ${tool} @${agent ?? "?"}: NSO not enforcing (${state.failure?.code})`);
        return Object.assign(blockError(`NSO blocked ${tool}${agent ? ` for @${agent}` : ""}: ${failureText()}`), { rule: "nso.not_enforcing" });
      }
    } else {
      brief = decide({ sessionId: sessionID, agent, tool, args, delegatedBy: callerAgent(sessionID) });
      if (brief) {
        seen.verdict = brief.verdict;
        seen.rule = brief.ruleId || null;
        seen.message = brief.message ?? null;
        logDecision(logs, brief);
        if (brief.verdict === "block") return blockError(brief.message);
        if (brief.notices?.length) pendingNotices.set(input.callID, [...brief.notices]);
      }
    }
    const claiming = state.engine && (state.config?.conductor?.mode ?? "enforce") !== "off";
    // Undefined when the claims are settled at once (the common case), else a promise.
    const claimed = claiming ? claimTargets(input, agent, brief?.targets) : undefined;
    const scripts = projectHooks.scripts("pre");
    const delegating = tool === "task" && state.engine;
    if (!claimed && !scripts.length && !delegating) return undefined;
    return (async () => {
      await claimed;
      if (delegating) await kord.before(input, agent, args).then(() => delegations.before(input, args));
      for (const file of scripts) {
        const result = await projectHooks.run(file, { event: "pre_tool_use", tool, sessionID, callID: input.callID, agent, args });
        if (result.code !== 0) {
          const rel = path.relative(root, file);
          const detail = result.output.trim().slice(0, 2000) || "(no output)";
          logs.decision(`${stamp()} block ${tool} @${agent ?? "?"} hook ${rel} exit ${result.code}`);
          throw Object.assign(blockError(`NSO blocked ${tool}${agent ? ` for @${agent}` : ""}: project hook ${rel} refused it ` +
            `(exit ${result.code}): ${detail}`), { rule: "project.hook" });
        }
      }
    })();
  }

  /**
   * Who the agent of `sessionID` works for: undefined for a main session (the person), the
   * agent of its parent session for a subagent ("" when that is not known).
   */
  function callerAgent(sessionID) {
    const parent = sessions.peek(sessionID)?.parentID;
    return parent === undefined ? undefined : (sessions.agentOf(parent) ?? "");
  }

  /**
   * The Conductor's claims on what an allowed call changes (`targets`, the core's `[[rel,
   * below]]`; none for a read): another window's claim refuses it (enforce: thrown, or the
   * promise rejects) or adds a warning to its result (advisory). Undefined when settled at
   * once, as when nothing new is in the store and the targets are held already; else a promise.
   */
  function claimTargets(input, agent, targets) {
    const told = claims.noticesFor(input.sessionID); // at any tool call: forced takeovers, store recovery
    return typeof told === "string"
      ? claimWrites(input, agent, targets, told)
      : told.then((text) => claimWrites(input, agent, targets, text ?? ""));
  }

  /**
   * The rest of {@link claimTargets} once the notices `told` are known: the call's write
   * targets claimed for its session (a call that changes no file claims nothing). Undefined
   * when settled at once.
   */
  function claimWrites({ tool, sessionID, callID }, agent, targets, told) {
    if (told) pendingNotices.set(callID, [...(pendingNotices.get(callID) ?? []), told]);
    if (!targets?.length) return undefined;
    const answer = claims.beforeWrite({ sessionID, agent, targets });
    const settle = ({ block, notice }) => {
      if (block) {
        logs.decision(`${stamp()} block ${tool} @${agent ?? "?"} conductor.claim`);
        pendingNotices.delete(callID); // a refused call has no result: what it was to carry goes with the refusal
        throw Object.assign(blockError(`NSO blocked ${tool}${agent ? ` for @${agent}` : ""}: ${block}${told ? `\n\n${told}` : ""}`), { rule: "conductor.claim" });
      }
      if (notice) pendingNotices.set(callID, [...(pendingNotices.get(callID) ?? []), notice]);
    };
    return typeof answer.then === "function" ? answer.then(settle) : settle(answer);
  }

  /**
   * After a tool call `{tool, sessionID, callID, args}`: delegation verdicts, reminders and
   * the failure notice appended to `output.output`, then the project's post hooks.
   */
  async function afterTool(input, output) {
    activity.record("call", {
      session: input.sessionID ?? null, agent: sessions.agentOf(input.sessionID) ?? null, tool: input.tool, callID: input.callID ?? null,
      phase: "end", verdict: null, rule: null, target: callTarget(input.args), message: null,
    });
    if (input.tool === "task") {
      try {
        delegations.after(input, output);
        await kord.after(input, sessions.agentOf(input.sessionID), output);
      } catch (error) {
        logs.error(`delegation check failed: ${error.message}`);
      }
    }
    const notices = pendingNotices.get(input.callID);
    if (notices) {
      pendingNotices.delete(input.callID);
      output.output = `${output.output ?? ""}\n\n${notices.map((n) => `[${n}]`).join("\n")}`;
    }
    if (state.failure && !state.failureShown.has(input.sessionID)) {
      state.failureShown.add(input.sessionID);
      output.output = `${output.output ?? ""}\n\n[${failureText()}]`;
    }
    for (const file of projectHooks.scripts("post")) {
      const result = await projectHooks.run(file, {
        event: "post_tool_use", tool: input.tool, sessionID: input.sessionID, callID: input.callID,
        agent: sessions.agentOf(input.sessionID), args: input.args, output: output.output,
      });
      if (result.code !== 0) {
        logs.decision(`${stamp()} post hook ${path.relative(root, file)} exit ${result.code}: ${result.output.trim().slice(0, 500)}`);
      }
    }
  }

  /** What the agent of `sessionID` sees added to its system prompt. */
  function systemText(sessionID) {
    const parts = [];
    if (state.failure) parts.push(`[${failureText()}]`);
    const entry = sessionID ? sessions.peek(sessionID) : undefined;
    if (entry?.summary) parts.push(entry.summary);
    if (entry?.handoffNote) parts.push(entry.handoffNote);
    if (entry?.kordNote) parts.push(entry.kordNote);
    if (entry?.routeNote) parts.push(entry.routeNote);
    if (sessionID) parts.push(...claims.systemText(sessionID));
    return parts;
  }

  /** Routes a message (see routing.js); nothing happens while NSO is not enforcing. */
  function route(message) {
    if (!message.sessionID || !state.engine) return;
    // The person's first message names the window's task in the conductor.
    const entry = sessions.entry(message.sessionID);
    if (entry.task === undefined && message.text) {
      entry.task = message.text.slice(0, 2000); // the session's task: its first message
      activity.record("task", { session: message.sessionID, task: entry.task });
    }
    if (message.typed && !entry.parentID) {
      claims.register(message.sessionID, { task: message.text, agent: message.agent, retry: true })?.ready?.catch(() => {});
    }
    // Only the router's scan window matters: the rest of a long message never crosses.
    const route = (text, ...rest) => withWorkflow((wf) => wf.route(crossingPrefix(text, wf.scanLimitBytes()), ...rest));
    routeMessage({ sessions, logs, route }, message);
  }

  load();
  return {
    root, sessions, state, load, sessionCreated, forgetSession, beforeTool, afterTool, systemText, route,
    ...ownWrites,
    agentOf: (id) => sessions.agentOf(id),
    noteAgent: (id, agent) => {
      if (!id || !agent || sessions.agentOf(id) === agent) return;
      sessions.noteAgent(id, agent);
      activity.record("agent", { session: id, agent });
    },
    noteCommand: (id, command) => {
      if (id) sessions.entry(id).pendingCommand = command || true;
    },
    claims, continuity, activity,
    /** Writes what waits in memory (log lines, the activity feed, raw lanes): the host is done with NSO. */
    flush: () => [logs, activity, continuity].forEach((holder) => holder.flush?.()),
    /** The soft reminders a call's decision left for its result (a host without an after hook takes them). */
    takeNotices: (callID) => {
      const notices = pendingNotices.get(callID);
      pendingNotices.delete(callID);
      return notices ?? [];
    },
    workflowCore: loadWorkflowCore,
    configText: () => state.configText,
    log: (line) => logs.decision(line),
    logError: (text) => logs.error(text),
  };
}
