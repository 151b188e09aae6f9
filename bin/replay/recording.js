// Reading the recordings `nso replay` is given: each file's format is recognised from its
// content (an `opencode export` JSON document, NSO's raw lane, or a Claude Code transcript),
// and all sessions are put into the order the calls ran: a session's calls in order, each
// subagent's calls right after the call that started it (OpenCode's `task` naming the child
// session, Claude Code's Task/Agent result naming the agent).
import fs from "node:fs";
import path from "node:path";
import { isClaudeRecord, sessionsFromTranscripts } from "./claude-code.js";
import { isLaneRecord, sessionsFromExportDocument, sessionsFromLane } from "./opencode.js";

/** An input that cannot be read at all (exit 2). */
export class UnreadableInput extends Error {}

/** The subagent files Claude Code keeps for a session file `<dir>/<id>.jsonl`: `<dir>/<id>/subagents/agent-*.jsonl`. */
export function claudeSubagentFiles(file) {
  if (!file.endsWith(".jsonl")) return [];
  const dir = path.join(file.slice(0, -".jsonl".length), "subagents");
  let names = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => /^agent-.+\.jsonl$/.test(n)).sort().map((n) => path.join(dir, n));
}

/** The `agentType` of a Claude Code subagent file's `agent-<id>.meta.json`, if any. */
function metaAgentType(file) {
  const m = /^(.*agent-.+)\.jsonl$/.exec(file);
  if (!m) return undefined;
  try {
    const t = JSON.parse(fs.readFileSync(`${m[1]}.meta.json`, "utf8"))?.agentType;
    return typeof t === "string" && t ? t : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What one file holds: `{kind: "opencode", sessions, warnings}` for an export or a lane,
 * `{kind: "claude", records, warnings}` for a transcript. Throws {@link UnreadableInput}.
 */
export function readRecordingFile(file, label = file) {
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new UnreadableInput(`${label}: cannot read it (${error.code ?? error.message})`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const head = text.trimStart()[0];
  let jsonError;
  if (head === "{" || head === "[") {
    try {
      const doc = JSON.parse(text);
      if (Array.isArray(doc) || Array.isArray(doc?.messages)) return { kind: "opencode", ...sessionsFromExportDocument(doc, label) };
      if (!isClaudeRecord(doc) && !isLaneRecord(doc)) throw new UnreadableInput(`${label}: a JSON document that is neither an \`opencode export\` nor a transcript`);
    } catch (error) {
      if (error instanceof UnreadableInput) throw error;
      jsonError = error.message;
    }
  }
  // JSON lines: one record per line; a line that is not a record is reported and skipped.
  const warnings = [];
  const lane = [];
  const claude = [];
  const agentType = metaAgentType(file);
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    let r;
    try {
      r = JSON.parse(line);
    } catch {
      warnings.push(`${label}:${i + 1}: not JSON (truncated?) — skipped`);
      return;
    }
    if (isLaneRecord(r)) lane.push({ record: r, line: i + 1 });
    else if (isClaudeRecord(r)) claude.push({ record: r, line: i + 1, file: label, agentType });
    else warnings.push(`${label}:${i + 1}: not a transcript record — skipped`);
  });
  if (!lane.length && !claude.length) {
    throw new UnreadableInput(jsonError ? `${label}: not valid JSON (${jsonError}) and no JSON lines of a transcript` : `${label}: no session records (an \`opencode export\` JSON, a Claude Code transcript or NSO's raw lane)`);
  }
  if (lane.length >= claude.length) {
    const r = sessionsFromLane(lane, label);
    if (claude.length) warnings.push(`${label}: ${claude.length} Claude Code record(s) among NSO raw-lane records — skipped`);
    return { kind: "opencode", sessions: r.sessions, warnings: [...warnings, ...r.warnings] };
  }
  if (lane.length) warnings.push(`${label}: ${lane.length} NSO raw-lane record(s) among Claude Code records — skipped`);
  return { kind: "claude", records: claude, warnings };
}

/**
 * Reads `files` (Claude Code session files bring their subagent files along) into sessions in
 * run order and the flat list of calls. `mainAgent` decides Claude Code's main chain (and
 * OpenCode calls whose message names no agent), `agents` its subagent types (`claudeCode.agents`). Returns `{files, sessions, calls, warnings}`;
 * each call knows its 1-based `index` and its session's `label` (S1, S2, ...).
 */
export function readRecordings(files, { mainAgent, agents, labelOf = (f) => f } = {}) {
  const read = [];
  const seen = new Set();
  const queue = files.map((f) => ({ file: f, label: labelOf(f) }));
  while (queue.length) {
    const { file, label } = queue.shift();
    const key = path.resolve(file);
    if (seen.has(key)) continue;
    seen.add(key);
    const r = readRecordingFile(file, label);
    read.push({ file, label, ...r });
    if (r.kind === "claude") {
      const extra = claudeSubagentFiles(file).filter((f) => !seen.has(path.resolve(f)));
      queue.push(...extra.map((f) => ({ file: f, label: labelOf(f) })));
    }
  }
  const warnings = read.flatMap((r) => r.warnings);
  const sessions = [];
  for (const r of read) if (r.kind === "opencode") sessions.push(...r.sessions.map((s) => ({ ...s, file: r.label })));
  const claude = read.filter((r) => r.kind === "claude").flatMap((r) => r.records);
  if (claude.length) {
    const r = sessionsFromTranscripts(claude, { mainAgent, agents });
    sessions.push(...r.sessions);
    warnings.push(...r.warnings);
  }
  const parents = new Map(sessions.map((s) => [s.key, s]));
  for (const s of sessions) {
    // A subagent's caller is its parent session's agent ("" when that is not known).
    const caller = s.parent ? (parents.get(s.parent)?.agent ?? "") : undefined;
    for (const c of s.calls) {
      c.agent ??= s.agent ?? mainAgent;
      if (caller !== undefined) c.delegatedBy = caller;
    }
  }
  const { order, calls } = runOrder(sessions, warnings);
  order.forEach((s, i) => (s.label = `S${i + 1}`));
  const labels = new Map(order.map((s) => [s.key, s.label]));
  calls.forEach((c, i) => {
    c.index = i + 1;
    c.label = labels.get(c.session);
  });
  return { files: read.map((r) => ({ file: r.label, kind: r.kind })), sessions: order, calls, warnings };
}

/**
 * Sessions and calls in the order they ran: root sessions in input order, a session's calls in
 * order, a subagent's calls right after the call that started it (or, when no call names it,
 * after its parent's calls).
 */
function runOrder(sessions, warnings) {
  const byKey = new Map();
  for (const s of sessions) {
    if (byKey.has(s.key)) warnings.push(`${s.file}: session ${s.id} was already read from ${byKey.get(s.key).file} — skipped`);
    else byKey.set(s.key, s);
  }
  const started = new Set(); // sessions a call we have started
  for (const s of byKey.values()) for (const c of s.calls) if (c.child && c.child !== s.key && byKey.has(c.child)) started.add(c.child);
  const order = [];
  const visited = new Set();
  const calls = [];
  const visit = (s) => {
    if (visited.has(s)) return;
    visited.add(s);
    order.push(s);
    for (const c of s.calls) {
      calls.push(c);
      if (started.has(c.child)) visit(byKey.get(c.child));
    }
    for (const child of byKey.values()) if (child.parent === s.key && !started.has(child.key)) visit(child);
  };
  for (const s of byKey.values()) if (!started.has(s.key) && !(s.parent && byKey.has(s.parent))) visit(s);
  for (const s of byKey.values()) visit(s); // a cycle of links: still replayed, at the end
  return { order, calls };
}
