// Routing of messages (the lazily loaded workflow package decides): who wrote a message,
// which workflow it belongs to, and the note the agent sees in its system prompt.
import { stamp } from "./logs.js";

/**
 * Who wrote a message, from the host's structure (never from text markers, which anyone can
 * type): in a subagent session the parent's agent wrote the prompt; a command expansion or
 * a message without typed text is `system`; else the person (`user`).
 */
export function messageSource(sessions, sessionID, { typed }) {
  const entry = sessions.peek(sessionID) ?? {};
  if (entry.parentID) return sessions.agentOf(entry.parentID) ?? "parent-agent";
  if (entry.pendingCommand) return "system";
  return typed ? "user" : "system";
}

/** The note for the agent about the user's latest message. */
export function routeNote(decision) {
  return decision.should_route
    ? `NSO router: the user's latest message matches workflow ${decision.workflow} ` +
      `(confidence ${decision.confidence}); handler: ${decision.handler}. ${decision.reason}`
    : `NSO router: the user's latest message is not routed (${decision.safety_check}): ${decision.reason}`;
}

/**
 * Routes one message of `sessionID` (`text`, whether the person `typed` it, the `agent` it
 * goes to), logs the decision in `router.jsonl` and keeps the note for the agent.
 * `route(text, source, agent, activeWorkflow)` is the workflow package's router.
 */
export function routeMessage({ sessions, logs, route }, { sessionID, messageID, text, typed, agent }) {
  const source = messageSource(sessions, sessionID, { typed });
  const entry = sessions.entry(sessionID);
  entry.pendingCommand = undefined;
  const active = entry.inFlight > 0 ? entry.workflow : undefined;
  const who = agent ?? entry.agent ?? "";
  const decision = JSON.parse(route(text, source, who, active));
  logs.append("router.jsonl", JSON.stringify({ time: stamp(), sessionID, messageID, source, agent: who, ...decision }));
  if (source === "user") {
    if (decision.should_route) entry.workflow = decision.workflow;
    entry.routeNote = decision.should_route ? routeNote(decision) : undefined; // nothing routes: no line
  }
  return decision;
}
