// The session registry: what NSO knows of each host session (its agent, its parent, its
// summary and routing note, delegations in flight). Host-independent: a host adapter feeds
// it from its own events.

/**
 * A registry of sessions by id. Entries are plain objects, created on first mention;
 * every field is optional.
 */
export class SessionRegistry {
  constructor() {
    /** @type {Map<string, {agent?: string, parentID?: string, summary?: string, routeNote?: string, workflow?: string, inFlight?: number, pendingCommand?: string|boolean, lookedUp?: boolean}>} */
    this.entries = new Map();
  }

  /** The entry of `id`, created empty when unknown. */
  entry(id) {
    let entry = this.entries.get(id);
    if (!entry) {
      entry = {};
      this.entries.set(id, entry);
    }
    return entry;
  }

  /** The entry of `id`, or undefined (never creates one). */
  peek(id) {
    return this.entries.get(id);
  }

  /** The agent recorded for `id`, if any. */
  agentOf(id) {
    return this.entries.get(id)?.agent;
  }

  /** Records the calling agent of a session (a real agent: the host filters its pseudo-agents). */
  noteAgent(id, agent) {
    if (id && agent) this.entry(id).agent = agent;
  }

  /** Records a new session: its parent (subagent sessions) and agent when the host says. */
  created({ id, parentID, agent }) {
    const entry = this.entry(id);
    entry.parentID = parentID;
    if (agent) entry.agent = agent;
    return entry;
  }

  /** Forgets a session. */
  forget(id) {
    this.entries.delete(id);
  }

  /** Agents from the main session down to `id` (the delegation chain so far). */
  chainOf(id) {
    return delegationChain((s) => this.entries.get(s), id);
  }
}

/**
 * Agents from the main session down to `id`, following `parentID` links through `lookup`
 * (id -> entry); a cycle or a missing entry ends the walk. Unknown agents are "unknown".
 */
export function delegationChain(lookup, id) {
  const chain = [];
  const seen = new Set();
  for (let s = id; s && !seen.has(s); s = lookup(s)?.parentID) {
    seen.add(s);
    chain.unshift(lookup(s)?.agent ?? "unknown");
  }
  return chain;
}
