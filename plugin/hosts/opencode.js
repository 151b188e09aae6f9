// The OpenCode host adapter: wires OpenCode 1.18's hooks to a host-independent NSO instance
// (../nso.js), and works out who is calling from OpenCode's events. Facts about the host it
// relies on: README "How NSO hooks into OpenCode" and tests/e2e/README.md.
import { CONFIG_FILE, createNso } from "../nso.js";
import { projectAgents } from "../decision/project-agents.js";
import { startChecks } from "../start-checks.js";
import { chooseTools, hideTools, toolDefinitions } from "../toolbox.js";

/** Agents OpenCode uses for its own requests on a user's session: never the caller. */
export const PSEUDO_AGENTS = new Set(["title", "compaction", "summary"]);
const AGENT_LOOKUP_TIMEOUT_MS = 2000;

/** The caller named by OpenCode, unless it is one of OpenCode's pseudo-agents. */
export const realAgent = (agent) => (agent && !PSEUDO_AGENTS.has(agent) ? agent : undefined);

/**
 * The text of a message's parts and whether the person typed any of it (OpenCode marks
 * command expansions and injected text `synthetic` or `ignored`).
 */
export function messageText(parts) {
  const list = Array.isArray(parts) ? parts : [];
  const texts = list.filter((p) => p?.type === "text" && typeof p.text === "string");
  const typed = texts.filter((p) => !p.synthetic && !p.ignored);
  return { text: (typed.length ? typed : texts).map((p) => p.text).join("\n"), typed: typed.length > 0 };
}

/** The agent of the latest user message in OpenCode's `session.messages` reply, if any. */
export function latestUserAgent(reply) {
  const messages = Array.isArray(reply) ? reply : reply?.data ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const info = messages[i]?.info ?? messages[i];
    if (info?.role === "user" && realAgent(info.agent)) return info.agent;
  }
  return undefined;
}

/**
 * The caller of `sessionID`: the recorded agent; when none was recorded (the plugin loaded
 * mid-session, e.g. after a restart), asks OpenCode for the session's messages once,
 * bounded by a timeout.
 */
async function callerOf(nso, client, sessionID) {
  const known = nso.agentOf(sessionID);
  if (known || !sessionID || typeof client?.session?.messages !== "function") return known;
  const entry = nso.sessions.entry(sessionID);
  if (entry.lookedUp) return undefined;
  entry.lookedUp = true;
  try {
    const reply = await Promise.race([
      client.session.messages({ path: { id: sessionID } }),
      new Promise((resolve) => setTimeout(resolve, AGENT_LOOKUP_TIMEOUT_MS).unref?.()),
    ]);
    const agent = latestUserAgent(reply);
    nso.noteAgent(sessionID, agent);
    return agent;
  } catch (error) {
    nso.logError(`agent lookup for ${sessionID} failed: ${error.message}`);
  }
  return undefined;
}

/**
 * Tells the person `text` through OpenCode: a toast in the terminal UI and a line in
 * OpenCode's log (`opencode run` has no UI: stderr, written by the instance, shows it there).
 * Never waits and never throws.
 */
function tell(client, text) {
  const attempt = (send) => {
    try {
      Promise.resolve(send()).catch(() => {});
    } catch {
      // no UI, or no server yet: stderr and nso-errors.log have the text
    }
  };
  attempt(() => client?.tui?.showToast?.({ body: { title: "NSO", message: text, variant: "error", duration: 15000 } }));
  attempt(() => client?.app?.log?.({ body: { service: "nso", level: "error", message: text } }));
}

const pendingAtExit = new Set(); // WeakRefs to what every instance holds in memory

/** What `holder` (raw lanes, an activity feed) keeps in memory is written before the process ends. */
function flushAtExit(holder) {
  if (!pendingAtExit.size) {
    process.once?.("exit", () => {
      for (const ref of pendingAtExit) ref.deref()?.flush();
    });
  }
  pendingAtExit.add(new WeakRef(holder));
}

/** The OpenCode plugin: wires hooks to an NSO instance for this project. */
export const NsoPlugin = async (input = {}) => {
  const client = input.client;
  const nso = createNso({
    directory: input.directory, worktree: input.worktree, serverUrl: input.serverUrl,
    notify: (text) => tell(client, text), projectAgentsOf: projectAgents,
  });
  flushAtExit(nso.continuity);
  flushAtExit(nso.activity);
  startChecks({ root: nso.root, config: nso.state.config, warn: (text) => { console.error(`[nso] ${text}`); nso.logError(text); } });
  const noteAgent = (sessionID, agent) => nso.noteAgent(sessionID, realAgent(agent));
  const tools = chooseTools(nso); // at plugin load: OpenCode registers tools once
  return {
    config: async (config) => hideTools(config, nso, tools),
    event: async ({ event }) => {
      try {
        const props = event?.properties ?? {};
        nso.continuity.onEvent(event?.type, props);
        if (event?.type === "session.idle") {
          nso.activity.record("idle", { session: props.sessionID ?? null });
          await nso.continuity.idle(props.sessionID);
        } else if (event?.type === "session.compacted") nso.activity.record("compacted", { session: props.sessionID ?? null });
        else if (event?.type === "session.created") nso.sessionCreated(props.info);
        else if (event?.type === "session.deleted") await nso.forgetSession(props.info?.id);
        else if (event?.type === "message.updated" && props.info?.role === "user") {
          noteAgent(props.info.sessionID, props.info.agent);
        } else if (event?.type === "file.edited" || event?.type === "file.watcher.updated") {
          // A change of NSO's own config takes effect at once.
          if (String(props.file ?? "").endsWith(CONFIG_FILE)) nso.load();
        }
      } catch (error) {
        console.error(`[nso] event ${event?.type}: ${error.message}`);
      }
    },
    "chat.message": async (hookInput, output) => {
      try {
        noteAgent(hookInput?.sessionID, output?.message?.agent ?? hookInput?.agent);
        nso.route({
          sessionID: hookInput?.sessionID, messageID: output?.message?.id ?? hookInput?.messageID,
          agent: output?.message?.agent ?? hookInput?.agent, ...messageText(output?.parts),
        });
      } catch (error) {
        console.error(`[nso] chat.message: ${error.message}`); // never throw here: it aborts the run
      }
    },
    "command.execute.before": async (hookInput) => {
      nso.noteCommand(hookInput?.sessionID, hookInput?.command);
    },
    "chat.params": async (hookInput) => {
      noteAgent(hookInput.sessionID, hookInput.message?.agent);
    },
    "experimental.chat.system.transform": async (hookInput, output) => {
      for (const text of nso.systemText(hookInput.sessionID)) output.system.push(text);
    },
    "experimental.session.compacting": async (hookInput, output) => {
      try {
        await nso.continuity.compacting(hookInput?.sessionID, output?.context);
      } catch (error) {
        console.error(`[nso] session.compacting: ${error.message}`);
      }
    },
    tool: toolDefinitions(nso, tools),
    // Not an async function: with the caller known (nearly always), the call is decided at
    // once and its settled promise returned, without the turns of an `await` in between.
    "tool.execute.before": (hookInput, output) => {
      const known = nso.agentOf(hookInput.sessionID);
      if (known) return nso.beforeTool({ ...hookInput, agent: known }, output);
      return callerOf(nso, client, hookInput.sessionID).then((agent) => nso.beforeTool({ ...hookInput, agent }, output));
    },
    "tool.execute.after": (hookInput, output) => nso.afterTool(hookInput, output),
    dispose: async () => nso.flush(),
  };
};
