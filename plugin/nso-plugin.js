// NSO for OpenCode: the shim. It does I/O and wiring only; every decision comes from the
// Rust core in ../pkg (WebAssembly). Facts about the host it relies on: README "How NSO
// hooks into OpenCode".
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { nsoTools } from "./nso-tools.js";

const require = createRequire(import.meta.url);
const CORE_PATH = fileURLToPath(new URL("../pkg/nso.js", import.meta.url));
const WORKFLOW_PATH = fileURLToPath(new URL("../pkg/nso_workflow.js", import.meta.url));

/** Tools that only read; everything else is write-class and fails closed when NSO is down. */
const READ_TOOLS = new Set([
  "read", "glob", "grep", "list", "webfetch", "websearch", "codesearch",
  "todoread", "todowrite", "skill", "question", "lsp", "invalid",
]);
/** Agents OpenCode uses for its own requests on a user's session: never the caller. */
const PSEUDO_AGENTS = new Set(["title", "compaction", "summary"]);
const CONFIG_FILE = ".opencode/nso.json";
/** Arguments of the common file tools whose real path the shim resolves before asking. */
const PATH_ARGS = ["filePath", "path"];
const HOOK_DIRS = { pre: ".opencode/hooks/pre_tool_use", post: ".opencode/hooks/post_tool_use" };
const HOOK_LISTING_TTL_MS = 2000;
const AGENT_LOOKUP_TIMEOUT_MS = 2000;

let core = null;

/**
 * The wasm core, loaded once per process. The nodejs-target package instantiates
 * synchronously on require, so a cached module means one instance.
 */
export function loadCore() {
  if (!core) core = require(CORE_PATH);
  return core;
}

let workflowCore = null;

/**
 * The second wasm package (routing, contracts, delegations), loaded on first use so the
 * plugin's cold start does not pay for it.
 */
export function loadWorkflowCore() {
  if (!workflowCore) workflowCore = require(WORKFLOW_PATH);
  return workflowCore;
}

/** Drops a trapped (poisoned) instance and instantiates a fresh one. */
export function reloadCore() {
  delete require.cache[require.resolve(CORE_PATH)];
  core = null;
  if (workflowCore) {
    delete require.cache[require.resolve(WORKFLOW_PATH)];
    workflowCore = null;
  }
  return loadCore();
}

/** Drops a trapped workflow package (the main core stays); the next use loads a fresh one. */
export function reloadWorkflowCore() {
  if (workflowCore) delete require.cache[require.resolve(WORKFLOW_PATH)];
  workflowCore = null;
}

/** True for a WebAssembly trap: after one, the instance must not be used again. */
function isTrap(error) {
  return error instanceof WebAssembly.RuntimeError ||
    (error && error.name === "RuntimeError" && /unreachable|out of bounds/.test(error.message));
}

/**
 * The project root for `.opencode/`: OpenCode's worktree (git root), else its directory,
 * else the process's working directory. OpenCode reports worktree "/" outside git.
 */
export function projectRoot({ directory, worktree } = {}) {
  if (worktree && worktree !== "/" && fs.existsSync(worktree)) return path.resolve(worktree);
  if (directory) return path.resolve(directory);
  return process.cwd();
}

function readText(file) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw error;
  }
}

/**
 * Real locations of folders, cached between tool calls: every call resolves its paths, and
 * libc realpath costs several syscalls. The cache is cleared whenever something may have
 * changed the file system (a write-class tool finished, OpenCode reported a file event).
 */
const realDirs = new Map();

/** Forgets cached folder locations (after anything that may have changed the tree). */
export function forgetRealPaths() {
  realDirs.clear();
}

// Paths here are absolute and normalised (path.resolve ran first), so plain slicing at the
// last "/" replaces path.dirname/basename/join on this per-call path.
const parentOf = (p) => (p.lastIndexOf("/") <= 0 ? "/" : p.slice(0, p.lastIndexOf("/")));
const nameOf = (p) => p.slice(p.lastIndexOf("/") + 1);
const joinTo = (dir, name) => (dir === "/" ? `/${name}` : `${dir}/${name}`);

function realDir(dir) {
  let real = realDirs.get(dir);
  if (real === undefined) {
    if (dir === "/") real = dir;
    else {
      const base = realDir(parentOf(dir));
      real = resolveLink(base, joinTo(base, nameOf(dir)))[0];
    }
    realDirs.set(dir, real);
  }
  return real;
}

/**
 * `[real path, exists]` of `candidate` (inside the real folder `dir`), following a symlink in
 * its last part; one lstat when it is not a link.
 */
function resolveLink(dir, candidate, depth = 0) {
  const stat = fs.lstatSync(candidate, { throwIfNoEntry: false });
  if (!stat) return [candidate, false];
  if (!stat.isSymbolicLink() || depth > 40) return [candidate, true];
  let target;
  try {
    target = fs.readlinkSync(candidate);
  } catch {
    return [candidate, true];
  }
  const next = path.resolve(dir, target);
  const nextDir = realDir(parentOf(next));
  return resolveLink(nextDir, joinTo(nextDir, nameOf(next)), depth + 1);
}

/**
 * `[real path, exists]` of the absolute path `abs`: symlinks in every folder on the way and
 * in the last part are followed (a dangling link: where a write would land, not existing);
 * parts that do not exist yet are kept as written. Never throws.
 */
export function realPathInfo(abs) {
  // Normalise only what may need it ("/." also catches "/./" and "/../").
  const plain = abs.startsWith("/") && !abs.includes("/.") && !abs.includes("//") && !abs.endsWith("/");
  const clean = plain ? abs : path.resolve(abs);
  if (clean === "/") return ["/", true];
  const dir = realDir(parentOf(clean));
  return resolveLink(dir, joinTo(dir, nameOf(clean)));
}

/** The real location of the absolute path `abs` (see {@link realPathInfo}). */
export function realPath(abs) {
  return realPathInfo(abs)[0];
}

/** Answers the core's lookups `{resolve, content, exists}` into `request`'s maps. */
export function gatherLookups(request, need) {
  request.resolved ??= {};
  request.contents ??= {};
  request.exists ??= {};
  for (const p of need.resolve) request.resolved[p] = realPath(p);
  for (const p of need.content) request.contents[p] = readText(p) ?? null;
  for (const p of need.exists) request.exists[p] = fs.existsSync(p);
}

/**
 * One NSO instance per OpenCode project: the loaded config and policy, the session table
 * (agent per session) and the session summaries.
 */
export function createNso({ directory, worktree, client } = {}) {
  const root = projectRoot({ directory, worktree });
  const baseDir = directory ? path.resolve(directory) : root;
  const sessions = new Map(); // sessionID -> { agent, parentID, summary }
  const state = {
    engine: null, workflow: null, configText: undefined, failure: null, config: null,
    hookCache: new Map(), failureShown: new Set(),
  };
  const delegations = new Map(); // callID -> { started, agent, target, taskId }
  const taskAttempts = new Map(); // task id -> delegations so far
  const INIT_DIR = ".opencode/logs"; // marker and alive log: fixed, tools look for them there
  const logDir = (name) => path.join(root, name === "plugin_alive.log" ? INIT_DIR : state.config?.logDir ?? INIT_DIR);

  function appendLog(name, line) {
    try {
      fs.mkdirSync(logDir(name), { recursive: true });
      fs.appendFileSync(path.join(logDir(name), name), line.endsWith("\n") ? line : line + "\n");
    } catch (error) {
      console.error(`[nso] cannot write ${name}: ${error.message}`);
    }
  }

  function fail(code, message, fix) {
    state.engine = null;
    state.failure = { code, message, fix };
    const line = `${new Date().toISOString()} NSO NOT ENFORCING (${code}): ${message} Fix: ${fix}`;
    console.error(`[nso] ${line}`);
    appendLog("nso-errors.log", line);
  }

  /** (Re)loads the config and compiles the policy; on failure, records why (fail closed). */
  function load() {
    const file = path.join(root, CONFIG_FILE);
    let text;
    try {
      text = readText(file);
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
      state.config = state.engine.config();
      state.configText = text;
      state.workflow = null; // rebuilt from the new config on next use
      state.failure = null;
      // Status machines live in the lazily loaded workflow package: checked there, on the
      // first edit of a file they govern. A project's own `status` section is validated
      // now, so a mistake in it fails closed at once.
      state.engine.setStatusChecker((query) => withWorkflow((wf) => wf.checkStatusEdit(query)));
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
      appendLog("nso-errors.log", `${new Date().toISOString()} wasm trap, instance re-created: ${error.message}`);
      reloadCore();
      load();
      throw Object.assign(new Error(`NSO core trapped (${error.message}); it was restarted.`), { code: "trap" });
    }
  }

  function failureText() {
    const f = state.failure;
    return `NSO is not enforcing its rules: ${f.message} Until this is fixed, NSO refuses ` +
      `write-class tools (fail closed). Fix: ${f.fix}`;
  }

  // --- session start -----------------------------------------------------------------

  function memoryFiles() {
    return (state.config?.memory?.files ?? []).map((rel) => {
      let content = null;
      try {
        content = readText(path.join(root, rel)) ?? null;
      } catch (error) {
        appendLog("nso-errors.log", `${new Date().toISOString()} cannot read memory file ${rel}: ${error.message}`);
      }
      return { path: rel, content };
    });
  }

  /** `session.created`: marker, alive log, summary (main sessions); parent link (subagents). */
  function sessionCreated(info) {
    if (!info?.id) return;
    const entry = sessions.get(info.id) ?? {};
    entry.parentID = info.parentID;
    if (info.agent) entry.agent = info.agent;
    sessions.set(info.id, entry);
    if (info.parentID) return;
    load(); // a new session picks up config edits
    const now = new Date().toISOString();
    if (!state.engine) {
      appendLog("plugin_alive.log", `${now} nso session.created ${info.id} NOT ENFORCING`);
      return;
    }
    const summary = withEngine((e) => e.sessionSummary(memoryFiles()));
    entry.summary = summary.text;
    try {
      fs.mkdirSync(path.join(root, INIT_DIR), { recursive: true });
      fs.writeFileSync(path.join(root, INIT_DIR, "session_init_marker.txt"),
        withEngine((e) => e.markerText(info.id, now, summary)));
    } catch (error) {
      console.error(`[nso] cannot write the init marker: ${error.message}`);
    }
    appendLog("plugin_alive.log", withEngine((e) => e.aliveLine(info.id, now)));
  }

  function noteAgent(sessionID, agent) {
    if (!sessionID || !agent || PSEUDO_AGENTS.has(agent)) return;
    const entry = sessions.get(sessionID) ?? {};
    entry.agent = agent;
    sessions.set(sessionID, entry);
  }

  // --- project hook scripts ------------------------------------------------------------

  function hookScripts(kind) {
    if (state.config && state.config.hooks?.enabled === false) return [];
    const cached = state.hookCache.get(kind);
    const now = Date.now();
    if (cached && now - cached.at < HOOK_LISTING_TTL_MS) return cached.scripts;
    let scripts = [];
    const dir = path.join(root, HOOK_DIRS[kind]);
    try {
      scripts = fs.readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isFile() || d.isSymbolicLink())
        .map((d) => path.join(dir, d.name))
        .filter((file) => {
          try {
            fs.accessSync(file, fs.constants.X_OK);
            return fs.statSync(file).isFile();
          } catch {
            return false;
          }
        })
        .sort();
    } catch {
      scripts = []; // no folder: nothing to run
    }
    state.hookCache.set(kind, { at: now, scripts });
    return scripts;
  }

  /** Runs one hook script with `payload` as JSON on stdin; resolves to {code, output}. */
  function runHook(file, payload) {
    const timeoutMs = state.config?.hooks?.timeoutMs ?? 5000;
    return new Promise((resolve) => {
      let output = "";
      let settled = false;
      const done = (result) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          resolve(result);
        }
      };
      let child;
      try {
        child = spawn(file, [], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
      } catch (error) {
        return resolve({ code: -1, output: error.message });
      }
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        done({ code: -1, output: `timed out after ${timeoutMs} ms` });
      }, timeoutMs);
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
      child.on("error", (error) => done({ code: -1, output: error.message }));
      child.on("close", (code) => done({ code: code ?? -1, output }));
      child.stdin.on("error", () => {}); // a hook that ignores stdin may close it early
      child.stdin.end(JSON.stringify(payload));
    });
  }

  // --- routing and delegations (the lazily loaded workflow package) ------------------------

  function workflow() {
    if (!state.workflow) state.workflow = new (loadWorkflowCore().Workflow)(CONFIG_FILE, state.configText);
    return state.workflow;
  }

  /**
   * Runs `fn(workflow)`; after a trap, drops the poisoned package so the next call gets a
   * fresh one (this call still fails: its caller refuses or logs).
   */
  function withWorkflow(fn) {
    try {
      return fn(workflow());
    } catch (error) {
      if (isTrap(error)) {
        appendLog("nso-errors.log", `${new Date().toISOString()} workflow package trapped, reloaded: ${error.message}`);
        state.workflow = null;
        reloadWorkflowCore();
      }
      throw error;
    }
  }

  /**
   * Who wrote a message, from OpenCode's structure (never from text markers, which anyone
   * can type): in a subagent session the parent's agent wrote the prompt; a command
   * expansion or a message of synthetic parts only is `system`; else the person (`user`).
   */
  function sourceOf(sessionID, parts) {
    const entry = sessions.get(sessionID) ?? {};
    if (entry.parentID) return sessions.get(entry.parentID)?.agent ?? "parent-agent";
    if (entry.pendingCommand) return "system";
    const typed = parts.filter((p) => p?.type === "text" && !p.synthetic && !p.ignored);
    return typed.length ? "user" : "system";
  }

  /** `chat.message`: routes the message, logs the decision, notes it for the agent. */
  function routeMessage(input, output) {
    const sessionID = input?.sessionID;
    if (!sessionID || !state.engine) return;
    const parts = Array.isArray(output?.parts) ? output.parts : [];
    const source = sourceOf(sessionID, parts);
    const entry = sessions.get(sessionID) ?? {};
    entry.pendingCommand = undefined;
    const texts = parts.filter((p) => p?.type === "text" && typeof p.text === "string");
    const typed = texts.filter((p) => !p.synthetic && !p.ignored);
    const text = (typed.length ? typed : texts).map((p) => p.text).join("\n");
    const agent = output?.message?.agent ?? input.agent ?? entry.agent ?? "";
    const active = entry.inFlight > 0 ? entry.workflow : undefined;
    const decision = JSON.parse(withWorkflow((wf) => wf.route(text, source, agent, active)));
    appendLog("router.jsonl", JSON.stringify({
      time: new Date().toISOString(), sessionID, messageID: output?.message?.id ?? input.messageID, source, agent, ...decision,
    }));
    if (source === "user") {
      if (decision.should_route) entry.workflow = decision.workflow;
      entry.routeNote = decision.should_route
        ? `NSO router: the user's latest message matches workflow ${decision.workflow} ` +
          `(confidence ${decision.confidence}); handler: ${decision.handler}. ${decision.reason}`
        : `NSO router: the user's latest message is not routed (${decision.safety_check}): ${decision.reason}`;
    }
    sessions.set(sessionID, entry);
  }

  /** Agents from the main session down to `sessionID` (the delegation chain so far). */
  function chainOf(sessionID) {
    const chain = [];
    const seen = new Set();
    for (let id = sessionID; id && !seen.has(id); id = sessions.get(id)?.parentID) {
      seen.add(id);
      chain.unshift(sessions.get(id)?.agent ?? "unknown");
    }
    return chain;
  }

  const TASK_ID = /\b[a-z]+_\d{8}_[a-z0-9-]+_[a-z0-9]{6}\b/i;

  /** `tool.execute.before` of `task`: depth and cycle limits, then start the clock. */
  function beforeDelegation(input, args) {
    const target = String(args?.subagent_type ?? "");
    const chain = chainOf(input.sessionID);
    const maxDepth = state.config?.delegation?.maxDepth ?? 3;
    const refusal = loadWorkflowCore().checkDelegationChain(JSON.stringify(chain), target, maxDepth);
    if (refusal) {
      const r = JSON.parse(refusal);
      appendLog("nso.log", `${new Date().toISOString()} block task @${chain.at(-1)} ${r.code}`);
      throw blockError(`NSO blocked task for @${chain.at(-1)}: ${r.message}`);
    }
    const entry = sessions.get(input.sessionID) ?? {};
    entry.inFlight = (entry.inFlight ?? 0) + 1;
    sessions.set(input.sessionID, entry);
    const taskId = String(args?.prompt ?? "").match(TASK_ID)?.[0];
    if (taskId) taskAttempts.set(taskId, (taskAttempts.get(taskId) ?? 0) + 1);
    delegations.set(input.callID, { started: Date.now(), agent: chain.at(-1), target, taskId });
  }

  /** Whether each path (relative to the project, or absolute) exists, and its size. */
  function fileFacts(paths) {
    const facts = {};
    for (const p of paths) {
      const stat = fs.statSync(path.resolve(root, p), { throwIfNoEntry: false });
      facts[p] = { exists: Boolean(stat), size: stat?.isFile() ? stat.size : 0 };
    }
    return facts;
  }

  /**
   * `tool.execute.after` of `task`: duration, then verdicts for the caller on the subagent's
   * JSON return (if any) and on its task folder (if the prompt cited a task id).
   */
  function afterDelegation(input, output) {
    const d = delegations.get(input.callID);
    if (!d) return;
    delegations.delete(input.callID);
    const entry = sessions.get(input.sessionID);
    if (entry?.inFlight) entry.inFlight--;
    appendLog("delegations.jsonl", JSON.stringify({
      time: new Date().toISOString(), sessionID: input.sessionID, callID: input.callID,
      child: output?.metadata?.sessionId, agent: d.agent, target: d.target, taskId: d.taskId ?? null,
      ms: Date.now() - d.started,
    }));
    const wf = loadWorkflowCore();
    const text = String(output?.output ?? "");
    if (wf.hasJsonReturn(text)) {
      const child = output?.metadata?.sessionId;
      const facts = fileFacts(wf.jsonReturnPaths(text));
      const verdict = JSON.parse(wf.validateJsonReturn(text, JSON.stringify(facts), child));
      output.output = `${output.output ?? ""}\n\n[NSO, JSON return] ${verdict.note}`;
    }
    if (!d.taskId) return;
    const dir = path.join(root, ".opencode/context/active_tasks", d.taskId);
    const questions = readText(path.join(dir, "questions.md"));
    const result = readText(path.join(dir, "result.md"));
    const listing = {
      has_questions: questions !== undefined, questions_text: questions ?? null,
      has_result: result !== undefined, result_text: result ?? null,
    };
    let paths = [];
    if (result !== undefined) {
      try {
        paths = wf.resultPaths(result);
      } catch {
        // an unreadable result.md is judged by checkDelegation itself
      }
    }
    const facts = fileFacts(paths);
    const verdict = JSON.parse(wf.checkDelegation(JSON.stringify(listing), JSON.stringify(facts), taskAttempts.get(d.taskId) ?? 1));
    output.output = `${output.output ?? ""}\n\n[NSO, task ${d.taskId}] ${verdict.note}`;
  }

  // --- tool calls ------------------------------------------------------------------------

  const pendingNotices = new Map(); // callID -> soft reminders for tool.execute.after
  const MAX_LOOKUP_ROUNDS = 3;

  /**
   * Asks the core, answering what it needs to know first (real paths behind symlinks,
   * current contents, existence). Returns the decision, or undefined for a plain allow.
   */
  function decide(request) {
    request.resolved = {};
    request.contents = {};
    request.exists = {};
    preResolve(request);
    for (let round = 0; round < MAX_LOOKUP_ROUNDS; round++) {
      const json = withEngine((e) => e.decide(JSON.stringify(request)));
      if (json === undefined) return undefined;
      const reply = JSON.parse(json);
      if (!reply.need) return reply;
      gatherLookups(request, reply.need);
    }
    return { verdict: "block", ruleId: "nso.lookup", message: `NSO blocked ${request.tool}: NSO could not ` +
      `gather what it needs to decide on this call (fail closed). Report this to your caller.` };
  }

  /**
   * Real paths and existence of the usual path arguments, so most calls need one round:
   * the core asks for what is still missing.
   */
  function preResolve(request) {
    for (const key of PATH_ARGS) {
      const given = request.args?.[key];
      if (typeof given === "string" && given && !given.startsWith("~")) {
        const [real, exists] = realPathInfo(given.startsWith("/") ? given : `${baseDir}/${given}`);
        request.resolved[given] = real;
        request.exists[given] = exists;
      }
    }
  }

  function logDecision(decision, tool, agent) {
    const line = `${new Date().toISOString()} ${decision.verdict} ${tool} @${agent ?? "?"} ${decision.ruleId ?? ""}` +
      (decision.unclassified ? " (unclassified tool)" : "") +
      (decision.notices?.length ? ` reminder: ${decision.notices.join(" | ")}` : "");
    appendLog("nso.log", line);
    for (const extra of decision.log ?? []) appendLog("nso.log", `${new Date().toISOString()} ${extra}`);
  }

  function agentOf(sessionID) {
    return sessions.get(sessionID)?.agent;
  }

  /**
   * The session's agent; when none was recorded (the plugin loaded mid-session, e.g. after a
   * restart), asks OpenCode for the session's messages once (the latest user message names
   * its agent), bounded by a timeout.
   */
  async function callerOf(sessionID) {
    const known = agentOf(sessionID);
    if (known || !sessionID || typeof client?.session?.messages !== "function") return known;
    const entry = sessions.get(sessionID) ?? {};
    if (entry.lookedUp) return undefined;
    entry.lookedUp = true;
    sessions.set(sessionID, entry);
    try {
      const reply = await Promise.race([
        client.session.messages({ path: { id: sessionID } }),
        new Promise((resolve) => setTimeout(resolve, AGENT_LOOKUP_TIMEOUT_MS).unref?.()),
      ]);
      const messages = Array.isArray(reply) ? reply : reply?.data ?? [];
      for (let i = messages.length - 1; i >= 0; i--) {
        const info = messages[i]?.info ?? messages[i];
        if (info?.role === "user" && info.agent && !PSEUDO_AGENTS.has(info.agent)) {
          noteAgent(sessionID, info.agent);
          return info.agent;
        }
      }
    } catch (error) {
      appendLog("nso-errors.log", `${new Date().toISOString()} agent lookup for ${sessionID} failed: ${error.message}`);
    }
    return undefined;
  }

  /** `command.execute.before`: the next message of this session is a command expansion. */
  function noteCommand(sessionID, command) {
    if (!sessionID) return;
    const entry = sessions.get(sessionID) ?? {};
    entry.pendingCommand = command || true;
    sessions.set(sessionID, entry);
  }

  function forgetSession(sessionID) {
    sessions.delete(sessionID);
    try {
      state.engine?.forgetSession(sessionID);
    } catch {
      // a trapped engine is re-created on its next use
    }
  }

  function blockError(message) {
    const error = new Error(message);
    error.name = "NSOBlock";
    return error;
  }

  async function beforeTool(input, output) {
    const { tool, sessionID } = input;
    const args = output.args ?? {};
    const agent = agentOf(sessionID) ?? (await callerOf(sessionID));
    if (!state.engine) {
      if (!READ_TOOLS.has(tool)) {
        appendLog("nso.log", `${new Date().toISOString()} block ${tool} @${agent ?? "?"}: NSO not enforcing (${state.failure?.code})`);
        throw blockError(`NSO blocked ${tool}${agent ? ` for @${agent}` : ""}: ${failureText()}`);
      }
    } else {
      const decision = decide({ sessionId: sessionID, agent, tool, args, directory: baseDir, worktree: root });
      if (decision) {
        logDecision(decision, tool, agent);
        if (decision.verdict === "block") throw blockError(decision.message);
        if (decision.notices?.length) pendingNotices.set(input.callID, decision.notices);
      }
    }
    if (tool === "task" && state.engine) beforeDelegation(input, args);
    const scripts = hookScripts("pre");
    for (const file of scripts) {
      const result = await runHook(file, { event: "pre_tool_use", tool, sessionID, callID: input.callID, agent, args });
      if (result.code !== 0) {
        const rel = path.relative(root, file);
        const detail = result.output.trim().slice(0, 2000) || "(no output)";
        appendLog("nso.log", `${new Date().toISOString()} block ${tool} @${agent ?? "?"} hook ${rel} exit ${result.code}`);
        throw blockError(`NSO blocked ${tool}${agent ? ` for @${agent}` : ""}: project hook ${rel} refused it ` +
          `(exit ${result.code}): ${detail}`);
      }
    }
  }

  async function afterTool(input, output) {
    if (!READ_TOOLS.has(input.tool)) forgetRealPaths();
    if (input.tool === "task") {
      try {
        afterDelegation(input, output);
      } catch (error) {
        appendLog("nso-errors.log", `${new Date().toISOString()} delegation check failed: ${error.message}`);
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
    for (const file of hookScripts("post")) {
      const result = await runHook(file, {
        event: "post_tool_use", tool: input.tool, sessionID: input.sessionID, callID: input.callID,
        agent: agentOf(input.sessionID), args: input.args, output: output.output,
      });
      if (result.code !== 0) {
        appendLog("nso.log", `${new Date().toISOString()} post hook ${path.relative(root, file)} exit ${result.code}: ${result.output.trim().slice(0, 500)}`);
      }
    }
  }

  function systemText(sessionID) {
    const parts = [];
    if (state.failure) parts.push(`[${failureText()}]`);
    const entry = sessionID ? sessions.get(sessionID) : undefined;
    if (entry?.summary) parts.push(entry.summary);
    if (entry?.routeNote) parts.push(entry.routeNote);
    return parts;
  }

  // --- what NSO's own tools need ----------------------------------------------------------

  /**
   * The refusal text for writing `content` to `rel` (project-relative) as `agent`, from the
   * same engine as the agents' own calls (authority and status machines), or null.
   */
  function authorizeWrite(sessionID, agent, rel, content) {
    if (!state.engine) return failureText();
    const decision = decide({ sessionId: sessionID ?? "", agent, tool: "write", args: { filePath: rel, content }, directory: root, worktree: root });
    if (!decision) return null;
    logDecision(decision, "write (NSO tool)", agent);
    return decision.verdict === "block" ? decision.message : null;
  }

  /** Runs an atomic status sync (TODO.md + state.json) as the calling agent. */
  async function statusSync(ctx, options) {
    if (!state.engine) throw Object.assign(new Error(failureText()), { code: "not_enforcing" });
    const { op, ...args } = options;
    const { runStatusSync } = await import("./status-sync.js"); // loaded on first use
    const result = await runStatusSync({
      worktree: root, op, args, agent: ctx.agent ?? "",
      authorize: (files) => {
        for (const f of files) {
          const refusal = authorizeWrite(ctx.sessionID, ctx.agent, f.path, f.text);
          if (refusal) throw Object.assign(new Error(refusal), { name: "NSOBlock", code: "authority" });
        }
      },
    });
    appendLog("nso.log", `${new Date().toISOString()} status sync @${ctx.agent ?? "?"}: ${result.summary}`);
    return result;
  }

  load();
  return {
    root, sessions, state, load, sessionCreated, noteAgent, forgetSession, beforeTool, afterTool, systemText, agentOf,
    routeMessage, noteCommand, authorizeWrite, statusSync,
    workflowCore: loadWorkflowCore,
    configText: () => state.configText,
    log: (line) => appendLog("nso.log", line),
  };
}

/** NSO's tools minus those `tools` in .opencode/nso.json leaves out (read at plugin load). */
function offeredTools(nso) {
  const settings = nso.state.config?.tools ?? { enabled: true, exclude: [] };
  if (!settings.enabled) return {};
  const all = nsoTools(nso);
  for (const name of settings.exclude) delete all[name];
  return all;
}

/** The OpenCode plugin: wires hooks to an NSO instance for this project. */
export const NsoPlugin = async (input = {}) => {
  const nso = createNso({ directory: input.directory, worktree: input.worktree, client: input.client });
  return {
    event: async ({ event }) => {
      try {
        const props = event?.properties ?? {};
        if (event?.type === "session.created") nso.sessionCreated(props.info);
        else if (event?.type === "session.deleted") nso.forgetSession(props.info?.id);
        else if (event?.type === "message.updated" && props.info?.role === "user") {
          nso.noteAgent(props.info.sessionID, props.info.agent);
        } else if (event?.type === "file.edited" || event?.type === "file.watcher.updated") {
          forgetRealPaths();
          if (String(props.file ?? "").endsWith(CONFIG_FILE)) nso.load();
        }
      } catch (error) {
        console.error(`[nso] event ${event?.type}: ${error.message}`);
      }
    },
    "chat.message": async (hookInput, output) => {
      try {
        nso.noteAgent(hookInput?.sessionID, output?.message?.agent ?? hookInput?.agent);
        nso.routeMessage(hookInput, output);
      } catch (error) {
        console.error(`[nso] chat.message: ${error.message}`); // never throw here: it aborts the run
      }
    },
    "command.execute.before": async (hookInput) => {
      nso.noteCommand(hookInput?.sessionID, hookInput?.command);
    },
    "chat.params": async (hookInput) => {
      nso.noteAgent(hookInput.sessionID, hookInput.message?.agent);
    },
    "experimental.chat.system.transform": async (hookInput, output) => {
      for (const text of nso.systemText(hookInput.sessionID)) output.system.push(text);
    },
    tool: offeredTools(nso),
    "tool.execute.before": (hookInput, output) => nso.beforeTool(hookInput, output),
    "tool.execute.after": (hookInput, output) => nso.afterTool(hookInput, output),
  };
};

export default { id: "nso", server: NsoPlugin };
