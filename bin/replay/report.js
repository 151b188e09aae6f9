// What `nso replay` prints: every call with its verdict and rule (a text table, or JSON records),
// a summary per verdict and per rule, and with `--diff` the calls two policies decide
// differently. Pure and deterministic: the same replay gives the same bytes.
import { clip, oneLine } from "../../plugin/text.js";

/** Verdicts in the order summaries list them (others after, by name). */
const VERDICTS = ["allow", "soft", "warn", "audit", "block"];
/** Longest target kept in JSON records, and shown in a table cell. */
const TARGET_JSON = 500;
const TARGET_TEXT = 120;

/** One line of text an agent controlled, safe for a terminal (see plugin/text.js). */
export const safe = oneLine;

/** What a call is about: its path, command, pattern, URL or subagent; the files of a patch. */
export function callTarget(tool, args) {
  const a = args && typeof args === "object" ? args : {};
  if (typeof a.patchText === "string") {
    const files = [...a.patchText.matchAll(/\*\*\* (?:Add|Update|Delete) File: (.+)/g)].map((m) => m[1].trim());
    return files.join(", ");
  }
  for (const key of ["filePath", "path", "command", "pattern", "url", "query", "subagent_type", "file_path", "notebook_path"]) {
    if (typeof a[key] === "string" && a[key]) return a[key];
  }
  return "";
}

/** A call and its decision as one JSON record. */
export function callRecord(call, decided) {
  const record = {
    index: call.index, session: call.session, sessionLabel: call.label, agent: call.agent ?? null, tool: call.tool,
  };
  if (call.hostTool !== call.tool) record.hostTool = call.hostTool;
  Object.assign(record, {
    target: clip(callTarget(call.tool, call.args), TARGET_JSON), recorded: call.status,
    verdict: decided.verdict, rule: decided.rule, message: decided.message,
  });
  if (decided.notices) record.notices = decided.notices;
  if (decided.unclassified) record.unclassified = true;
  record.applied = decided.applied;
  record.where = call.where;
  return record;
}

/** Counts per verdict and per rule (`{verdicts: {allow: n}, rules: [{rule, verdict, count}]}`). */
export function summarise(records) {
  const verdicts = new Map();
  const rules = new Map();
  for (const r of records) {
    verdicts.set(r.verdict, (verdicts.get(r.verdict) ?? 0) + 1);
    if (r.rule) {
      const key = `${r.verdict}\u0000${r.rule}`;
      rules.set(key, (rules.get(key) ?? 0) + 1);
    }
  }
  const order = [...VERDICTS.filter((v) => verdicts.has(v)), ...[...verdicts.keys()].filter((v) => !VERDICTS.includes(v)).sort()];
  return {
    calls: records.length,
    verdicts: Object.fromEntries(order.map((v) => [v, verdicts.get(v)])),
    rules: [...rules].map(([key, count]) => {
      const [verdict, rule] = key.split("\u0000");
      return { rule, verdict, count };
    }).sort((a, b) => b.count - a.count || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0) || (a.verdict < b.verdict ? -1 : 1)),
  };
}

/** Rows as aligned columns (the last column is not padded). */
function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ").trimEnd();
  return [line(header), ...rows.map(line)].map((l) => `  ${l}`);
}

/** The sessions list: label, id, host, agent, file, parent. */
function sessionLines(sessions) {
  const labels = new Map(sessions.map((s) => [s.key, s.label]));
  const rows = sessions.map((s) => [
    s.label, safe(s.id, 80), s.host, s.agent ? `@${safe(s.agent, 40)}` : "(unknown agent)", safe(s.file, 120),
    s.parent ? `subagent of ${labels.get(s.parent) ?? safe(s.parent, 80)}` : "",
  ]);
  return table(["", "session", "host", "agent", "file", ""], rows);
}

const ruleText = (r) => (r.rule ? `${r.verdict} ${r.rule}` : r.verdict);
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The summary lines of `summary` (see {@link summarise}). */
function summaryLines(summary) {
  const parts = Object.entries(summary.verdicts).map(([v, n]) => `${n} ${v}`);
  const lines = [`summary: ${plural(summary.calls, "call")}${parts.length ? `: ${parts.join(", ")}` : ""}`];
  if (summary.rules.length) {
    lines.push("by rule:");
    for (const r of summary.rules) lines.push(`  ${String(r.count).padStart(6)}  ${r.verdict.padEnd(5)}  ${safe(r.rule)}`);
  }
  return lines;
}

/** Notes on the files: changes laid over the project, and those the replay could not follow. */
function fileLines(result) {
  const lines = [`files: ${plural(result.changes, "change")} laid over the project; ${plural(result.notFollowed.length, "change")} not followed`];
  for (const n of result.notFollowed.slice(0, 20)) lines.push(`  #${n.index} ${safe(n.path ?? "", 120)}: ${safe(n.why, 200)}`);
  if (result.notFollowed.length > 20) lines.push(`  … and ${result.notFollowed.length - 20} more (--json lists them all)`);
  return lines;
}

/** The header line: what was replayed under which policy. */
function headerLine(recording, policy) {
  return `nso replay: ${plural(recording.calls.length, "call")} in ${plural(recording.sessions.length, "session")} from ` +
    `${plural(recording.files.length, "file")}, policy ${safe(policy.label)}, preset ${policy.preset}`;
}

/** The report of one replay as text. */
export function replayText(recording, policy, result, records) {
  const rows = records.map((r) => [
    String(r.index), r.sessionLabel, safe(r.agent ?? "?", 40), safe(r.tool, 40), r.recorded, r.verdict, safe(r.rule ?? "-", 80),
    safe(r.target, TARGET_TEXT),
  ]);
  return [
    headerLine(recording, policy), "", "sessions:", ...sessionLines(recording.sessions), "",
    ...(rows.length ? table(["#", "session", "agent", "tool", "recorded", "verdict", "rule", "target"], rows) : ["  (no tool calls)"]),
    "", ...summaryLines(summarise(records)), ...fileLines(result),
  ].join("\n");
}

/** The sessions as JSON records. */
function sessionRecords(sessions) {
  const labels = new Map(sessions.map((s) => [s.key, s.label]));
  return sessions.map((s) => ({
    label: s.label, session: s.key, id: s.id, host: s.host, agent: s.agent ?? null, file: s.file,
    parent: s.parent ? labels.get(s.parent) ?? s.parent : null, calls: s.calls.length,
  }));
}

/** The report of one replay as a JSON value. */
export function replayJson(recording, policy, result, records, warnings) {
  return {
    files: recording.files, policy: { file: policy.label, preset: policy.preset }, sessions: sessionRecords(recording.sessions),
    calls: records, summary: summarise(records), changes: result.changes, notFollowed: result.notFollowed, warnings,
  };
}

/** Whether two decisions of one call differ (verdict or rule). */
const differs = (a, b) => a.verdict !== b.verdict || a.rule !== b.rule;

/** The calls two replays decide differently: `[{index, ..., a: {verdict, rule, message}, b}]`. */
export function differences(recordsA, recordsB) {
  const out = [];
  recordsA.forEach((a, i) => {
    const b = recordsB[i];
    if (!differs(a, b)) return;
    const call = { index: a.index, session: a.session, sessionLabel: a.sessionLabel, agent: a.agent, tool: a.tool };
    if (a.hostTool) call.hostTool = a.hostTool;
    out.push({ ...call, target: a.target, recorded: a.recorded, where: a.where, a: { verdict: a.verdict, rule: a.rule, message: a.message }, b: { verdict: b.verdict, rule: b.rule, message: b.message } });
  });
  return out;
}

/** The report of `--diff` as text. */
export function diffText(recording, policyA, policyB, recordsA, recordsB) {
  const diffs = differences(recordsA, recordsB);
  const lines = [
    headerLine(recording, policyA).replace(/, policy .*$/, ", under two policies:"),
    `  A: ${safe(policyA.label)}, preset ${policyA.preset}`, `  B: ${safe(policyB.label)}, preset ${policyB.preset}`, "",
    "sessions:", ...sessionLines(recording.sessions), "",
  ];
  if (!diffs.length) lines.push(`Every call is decided the same under A and B (${plural(recordsA.length, "call")}).`);
  else {
    lines.push(`${plural(diffs.length, "call")} of ${recordsA.length} decided differently:`);
    lines.push(...table(["#", "session", "agent", "tool", "A", "B", "target"], diffs.map((d) => [
      String(d.index), d.sessionLabel, safe(d.agent ?? "?", 40), safe(d.tool, 40), safe(ruleText(d.a), 80), safe(ruleText(d.b), 80),
      safe(d.target, TARGET_TEXT),
    ])));
  }
  lines.push("", "A:", ...summaryLines(summarise(recordsA)).map((l) => `  ${l}`), "B:", ...summaryLines(summarise(recordsB)).map((l) => `  ${l}`));
  return lines.join("\n");
}

/** The report of `--diff` as a JSON value. */
export function diffJson(recording, policyA, policyB, recordsA, recordsB, warnings) {
  return {
    files: recording.files,
    policies: { a: { file: policyA.label, preset: policyA.preset }, b: { file: policyB.label, preset: policyB.preset } },
    sessions: sessionRecords(recording.sessions), calls: recordsA.length, differences: differences(recordsA, recordsB),
    summary: { a: summarise(recordsA), b: summarise(recordsB) }, warnings,
  };
}
