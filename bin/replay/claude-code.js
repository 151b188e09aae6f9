// Claude Code transcripts for `nso replay`: the JSONL files under ~/.claude/projects/<project>/
// (`<session>.jsonl`, and since 2.1 each subagent's `<session>/subagents/agent-<id>.jsonl` with an
// `agent-<id>.meta.json` naming its type). Records of `type` "assistant" carry `tool_use` blocks,
// records of `type` "user" the `tool_result` blocks; `isSidechain` marks a subagent's records,
// `agentId` which subagent. Every call is mapped onto NSO's tools (plugin/hosts/claude-tools.js).
// Read tolerantly: other record types and unknown fields are ignored.
import { claudeSubagentType, claudeToolCall } from "../../plugin/hosts/claude-tools.js";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v) => (typeof v === "string" && v ? v : undefined);

/** Record types Claude Code writes that hold no tool calls (skipped without a warning). */
const QUIET_TYPES = new Set(["summary", "system", "progress", "file-history-snapshot", "queue-operation", "permission-mode", "attachment", "custom-title", "tag"]);

/** Whether a parsed JSON line looks like a Claude Code transcript record. */
export const isClaudeRecord = (r) => isObject(r) && typeof r.type === "string" && (isObject(r.message) || str(r.sessionId) !== undefined || str(r.uuid) !== undefined || QUIET_TYPES.has(r.type));

/** The text of a tool_result's content (a string, or a list of text blocks). */
function resultText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c) => (isObject(c) && typeof c.text === "string" ? c.text : "")).join("\n");
}

/**
 * Which subagent each sidechain record belongs to: its `agentId`, else that of the records it
 * is chained to by `parentUuid` (older transcripts name the agent on some records only), else
 * one id per chain (`sidechain-<first uuid>`).
 */
function sidechainAgents(records) {
  const up = new Map(); // uuid -> representative (union-find over parentUuid links)
  const find = (u) => {
    let root = u;
    while (up.has(root) && up.get(root) !== root) root = up.get(root);
    up.set(u, root);
    return root;
  };
  const named = new Map(); // representative -> agentId
  const side = records.map((x) => x.record).filter((r) => r.isSidechain === true && str(r.uuid));
  for (const r of side) if (!up.has(r.uuid)) up.set(r.uuid, r.uuid);
  for (const r of side) {
    if (str(r.parentUuid) && up.has(r.parentUuid)) {
      const a = find(r.uuid);
      const b = find(r.parentUuid);
      if (a !== b) up.set(a, b);
    }
  }
  for (const r of side) if (str(r.agentId) && !named.has(find(r.uuid))) named.set(find(r.uuid), r.agentId);
  return (r) => {
    if (str(r.agentId)) return r.agentId;
    if (!str(r.uuid) || !up.has(r.uuid)) return "sidechain";
    const root = find(r.uuid);
    return named.get(root) ?? `sidechain-${root.slice(0, 8)}`;
  };
}

/**
 * The sessions of Claude Code transcript records `[{record, line, file, agentType?}]` (all files
 * of one replay together, since a subagent's calls are in its own file and the result naming it
 * in its parent's). `mainAgent` is who the main chain's calls are decided as, `agents` maps
 * subagent types to NSO agents (`claudeCode.agents`). Returns
 * `{sessions, warnings}`; a subagent is the session `<sessionId>/<agentId>` of the parent
 * `<sessionId>`, decided as its subagent type.
 */
export function sessionsFromTranscripts(records, { mainAgent, agents = {} } = {}) {
  const warnings = [];
  const sessions = new Map(); // key -> session
  const seenToolUse = new Set();
  const results = new Map(); // tool_use id -> {isError, agentId}
  const taskCalls = new Map(); // tool_use id -> call (Task / Agent)
  const metaTypes = new Map(); // session key -> agentType from agent-<id>.meta.json

  const sessionFor = (key, sessionId, sidechain, agentId, file) => {
    if (!sessions.has(key)) {
      sessions.set(key, {
        id: sidechain ? `${sessionId} agent ${agentId ?? "?"}` : sessionId, key, host: "claude-code", parent: sidechain ? sessionId : null,
        agent: sidechain ? undefined : mainAgent, agentId: agentId ?? null, directory: undefined, root: undefined, title: undefined,
        file, calls: [], firstLine: null,
      });
    }
    return sessions.get(key);
  };

  const agentOf = sidechainAgents(records);
  for (const { record: r, line, file, agentType } of records) {
    const where = `${file}:${line}`;
    if (QUIET_TYPES.has(r.type) || (r.type !== "assistant" && r.type !== "user")) continue;
    const sessionId = str(r.sessionId) ?? file;
    const sidechain = r.isSidechain === true;
    const agentId = sidechain ? agentOf(r) : undefined;
    const key = sidechain ? `${sessionId}/${agentId}` : sessionId;
    const content = r.message?.content;
    if (r.type === "user") {
      if (!Array.isArray(content)) continue;
      for (const block of content) {
        if (!isObject(block) || block.type !== "tool_result" || !str(block.tool_use_id)) continue;
        const used = isObject(r.toolUseResult) ? r.toolUseResult : {};
        const named = str(used.agentId) ?? (!sidechain ? str(r.agentId) : undefined) ?? /agentId: ([\w-]+)/.exec(resultText(block.content))?.[1];
        results.set(block.tool_use_id, { isError: block.is_error === true, agentId: named, toolUseResult: used });
      }
      continue;
    }
    if (!isObject(r.message) || !Array.isArray(content)) {
      warnings.push(`${where}: assistant record without message.content — skipped`);
      continue;
    }
    const session = sessionFor(key, sessionId, sidechain, agentId, file);
    if (agentType) metaTypes.set(key, agentType);
    session.firstLine ??= where;
    session.root ??= str(r.cwd);
    for (const block of content) {
      if (!isObject(block) || block.type !== "tool_use") continue;
      if (!str(block.name) || !str(block.id)) {
        warnings.push(`${where}: tool_use without name or id — skipped`);
        continue;
      }
      if (seenToolUse.has(block.id)) continue; // the same block copied into another file
      seenToolUse.add(block.id);
      const mapped = claudeToolCall(block.name, block.input);
      const call = {
        session: key, callID: block.id, hostTool: block.name, tool: mapped.tool, args: mapped.args,
        agent: undefined, directory: str(r.cwd), root: undefined, status: "no result", completed: false,
        time: Date.parse(r.timestamp) || undefined, child: undefined, recorded: {}, where,
      };
      const subagent = claudeSubagentType(block.name, block.input);
      if (subagent) taskCalls.set(block.id, { call, subagent });
      session.calls.push(call);
    }
  }

  // Results: completion, the recorded change of an edit, and which subagent a Task started.
  const typeOf = new Map(); // subagent session key -> subagent type
  for (const session of sessions.values()) {
    for (const call of session.calls) {
      const result = results.get(call.callID);
      if (result) {
        call.status = result.isError ? "error" : "completed";
        call.completed = !result.isError;
        const patch = result.toolUseResult?.structuredPatch;
        if (Array.isArray(patch)) call.recorded.structuredPatch = patch;
      }
      const task = taskCalls.get(call.callID);
      if (task && result?.agentId) {
        const childKey = `${session.key.split("/")[0]}/${result.agentId}`;
        call.child = childKey;
        typeOf.set(childKey, task.subagent);
        // A subagent's own subagents (Claude Code 2.1.172+) are children of the subagent.
        if (sessions.has(childKey) && childKey !== session.key) sessions.get(childKey).parent = session.key;
      }
    }
  }

  // Agents: the main chain's is `mainAgent`; a subagent's is the type its Task asked for, else
  // its meta file's, else that of the latest unlinked Task before it in its parent (older
  // transcripts name no agentId in the result).
  for (const session of sessions.values()) {
    if (!session.parent) continue;
    let type = typeOf.get(session.key) ?? metaTypes.get(session.key);
    if (!type) {
      const parent = sessions.get(session.parent);
      const firstTime = session.calls.find((c) => c.time !== undefined)?.time;
      const unlinked = (c) => !c.child || !sessions.has(c.child);
      const candidates = (parent?.calls ?? []).filter((c) => taskCalls.has(c.callID) && unlinked(c) && (firstTime === undefined || c.time === undefined || c.time <= firstTime));
      const guess = candidates.at(-1);
      if (guess) {
        type = taskCalls.get(guess.callID).subagent;
        guess.child = session.key;
        warnings.push(`${session.firstLine}: subagent ${session.agentId} is not named in a Task result; decided as @${type}, the type of the Task call at ${guess.where}`);
      } else {
        warnings.push(`${session.firstLine}: subagent ${session.agentId}: its type is unknown; its calls are decided as an unknown agent`);
      }
    }
    // As the hook decides it: the NSO agent `claudeCode.agents` maps the type to, else the type.
    session.agent = type && Object.hasOwn(agents, type) ? agents[type] : type;
  }

  for (const session of sessions.values()) {
    const parent = session.parent ? sessions.get(session.parent) : undefined;
    session.root = parent?.root ?? session.root;
    for (const call of session.calls) {
      call.agent = session.agent;
      call.root = session.root;
      call.directory ??= session.root;
    }
  }
  return { sessions: [...sessions.values()], warnings };
}
