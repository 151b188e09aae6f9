// `nso audit`: what audit mode let through that NSO would have refused (`<logDir>/audit.jsonl`,
// written by the plugin when `authority.mode` or a rule's `mode` is `audit`): counts per rule,
// agent and tool, the most frequent commands and paths, and each rule's first examples, so a
// person can tune the policy before enforcing it.
import fs from "node:fs";
import path from "node:path";
import { oneLine } from "../plugin/text.js";

export const AUDIT_USAGE = "  nso audit [--since 7d|24h|2026-11-01] [--json] [--top N] [--dir DIR]";
export const AUDIT_HELP = `audit    what NSO would have refused while in audit mode (authority.mode or a rule's
         mode "audit"): counts per rule, agent and tool, the most frequent commands and
         paths, and each rule's first examples with the message the agent would have read.
         --since keeps records newer than a duration (30m, 24h, 7d) or a date. Read from
         <logDir>/audit.jsonl. Exit 0 (also when nothing would have been refused), 2 usage.`;

const UNITS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** The time `--since` names (ms), or throws: a duration back from `now`, or a date. */
export function sinceTime(text, now = Date.now()) {
  const m = /^(\d+)([mhdw])$/.exec(text);
  if (m) return now - Number(m[1]) * UNITS[m[2]];
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw Object.assign(new Error(`--since ${JSON.stringify(text)}: give a duration (30m, 24h, 7d, 2w) or a date (2026-11-01).`), { exit: 2 });
  return t;
}

/** The records of `text` (JSON lines), bad lines counted, not thrown. */
export function parseAudit(text) {
  const records = [];
  let bad = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line);
      if (r && typeof r === "object" && typeof r.rule === "string") records.push(r);
      else bad++;
    } catch {
      bad++;
    }
  }
  return { records, bad };
}

const countBy = (records, key, top) => {
  const counts = new Map();
  for (const r of records) {
    const k = key(r);
    if (k) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0]))).slice(0, top).map(([name, count]) => ({ name, count }));
};

/** The report of `records` newer than `since` (ms): counts, top targets, examples per rule. */
export function auditReport(records, { since = 0, top = 10, examples = 3 } = {}) {
  const kept = records.filter((r) => (Date.parse(r.t) || 0) >= since);
  const byRule = new Map();
  for (const r of kept) {
    if (!byRule.has(r.rule)) byRule.set(r.rule, []);
    const list = byRule.get(r.rule);
    if (list.length < examples) list.push({ t: r.t, agent: r.agent, tool: r.tool, target: r.target, message: r.message });
  }
  return {
    total: kept.length,
    rules: countBy(kept, (r) => r.rule, Infinity).map((c) => ({ ...c, examples: byRule.get(c.name) })),
    agents: countBy(kept, (r) => r.agent ?? "(unknown)", top),
    tools: countBy(kept, (r) => r.tool, top),
    commands: countBy(kept.filter((r) => r.tool === "bash"), (r) => r.target, top),
    paths: countBy(kept.filter((r) => r.tool !== "bash"), (r) => r.target, top),
  };
}

/** One line of text an agent controlled, safe for a terminal (see plugin/text.js). */
export const safe = oneLine;

/** The report as text. */
export function auditText(report) {
  if (!report.total) return "Nothing would have been refused (no audit records in this period).";
  const lines = [`${report.total} call(s) would have been refused.`, "", "By rule:"];
  for (const r of report.rules) {
    lines.push(`  ${String(r.count).padStart(6)}  ${safe(r.name)}`);
    for (const e of r.examples) lines.push(`          e.g. ${safe(e.t, 24)} @${safe(e.agent ?? "?", 40)} ${safe(e.tool, 40)} ${safe(e.target ?? "")}`, `               ${safe(e.message, 300)}`);
  }
  const table = (title, rows) => {
    if (!rows.length) return;
    lines.push("", `${title}:`);
    for (const r of rows) lines.push(`  ${String(r.count).padStart(6)}  ${safe(r.name)}`);
  };
  table("By agent", report.agents);
  table("By tool", report.tools);
  table("Most frequent commands", report.commands);
  table("Most frequent paths", report.paths);
  return lines.join("\n");
}

/** Runs `nso audit`; returns the exit status. `logDir` is the project's log folder (absolute). */
export function auditMain(argv, { logDir, out = console.log, err = console.error } = {}) {
  try {
    const opts = { top: 10 };
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i];
      if (arg === "--json") opts.json = true;
      else if (arg === "--since" || arg === "--top") {
        if (i + 1 >= argv.length) throw Object.assign(new Error(`nso audit: ${arg} needs a value`), { exit: 2 });
        opts[arg.slice(2)] = argv[++i];
      } else throw Object.assign(new Error(`nso audit: unknown argument ${JSON.stringify(arg)}\n\nusage:\n${AUDIT_USAGE}`), { exit: 2 });
    }
    const file = path.join(logDir, "audit.jsonl");
    const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
    const { records, bad } = parseAudit(text);
    const report = auditReport(records, { since: opts.since ? sinceTime(opts.since) : 0, top: Number(opts.top) || 10 });
    if (bad) err(`nso audit: ${bad} unreadable line(s) in ${file} skipped.`);
    out(opts.json ? JSON.stringify(report, null, 2) : auditText(report));
    return 0;
  } catch (error) {
    err(error.message);
    return error.exit ?? 1;
  }
}
