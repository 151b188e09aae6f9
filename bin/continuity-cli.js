// `nso decide`, `nso decisions`, `nso transcript` and `nso handoff`: continuity from the
// command line, over the same instance (plugin/nso.js) and core as the plugin.
import fs from "node:fs";
import path from "node:path";
import { loadWorkflowCore } from "../plugin/core-loader.js";
import { createNso } from "../plugin/nso.js";
import { projectAgents } from "../plugin/decision/project-agents.js";
import { safeName } from "../plugin/continuity/lane.js";
import { replaceFile } from "../plugin/atomic-file.js";
import { t0Record } from "../plugin/continuity/transcripts.js";

export const CONTINUITY_COMMANDS = ["decide", "decisions", "transcript", "handoff"];

export const CONTINUITY_USAGE = `  nso decide "DECISION" --why "WHY" [--supersedes D-NNNN] [--dir DIR] [--json]
  nso decisions [--all] [--json] [--dir DIR]
  nso transcript FILE... [--policy POLICY.json] [--out DIR] [--json] [--dir DIR]
  nso handoff [--session ID] [--expand] [--json] [--dir DIR]`;

export const CONTINUITY_HELP = `decide   records a decision in the project's decision ledger (continuity.ledger, default
         .opencode/context/decisions.md) as the person: the next id (D-0001, ...), the time,
         your user name. --supersedes names the decision it replaces. The ledger is only
         ever appended to. Exit 0 recorded, 1 refused (the message says why), 2 usage.
decisions
         the current decisions, newest first; --all also lists superseded ones.
transcript
         the T0 transcript of a recorded session: FILE is the JSON of \`opencode export ID\`
         (one session, or a list of them) or a raw lane (.opencode/nso/transcripts/*.raw.jsonl).
         Prints the transcript (several sessions: one after the other) and its SHA-256 on
         stderr; --out DIR writes <session>.t0.md and .t0.json there; --json prints the
         records. The policy is the project's continuity.t0 unless --policy gives one.
         Damaged records are skipped with a warning on stderr. Exit 0, 1 nothing readable, 2 usage.
handoff  what a new window needs to go on: the decisions, the session (its task, files
         changed, claims, refusals, open questions, last ask) and the project's memory,
         within continuity.handoff.lines (--expand: expandLines). Without --session: the
         project's, without a session layer.`;

function parse(argv) {
  const opts = { positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (["--json", "--all", "--expand"].includes(arg)) opts[arg.slice(2)] = true;
    else if (["--why", "--supersedes", "--dir", "--policy", "--out", "--session"].includes(arg)) {
      if (i + 1 >= argv.length) throw usage(`${arg} needs a value`);
      opts[arg.slice(2)] = argv[++i];
    } else if (arg.startsWith("--")) throw usage(`unknown argument ${JSON.stringify(arg)}`);
    else opts.positional.push(arg);
  }
  return opts;
}

const usage = (message) => Object.assign(new Error(`nso: ${message}\n\nusage:\n${CONTINUITY_USAGE}`), { exit: 2 });

/** The NSO instance of the project around `dir`; throws when its config is broken. */
function instance(dir, project) {
  const { directory, worktree } = project(dir);
  const nso = createNso({ directory, worktree, projectAgentsOf: projectAgents });
  if (!nso.state.engine) {
    const f = nso.state.failure;
    throw Object.assign(new Error(`nso: ${f?.message ?? "NSO did not load."}\nFix: ${f?.fix ?? "see .opencode/logs/nso-errors.log."}`), { exit: 2 });
  }
  return nso;
}

/** The T0 results of the recorded session(s) in `file`. */
function transcriptsOf(file, wf, root) {
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    throw Object.assign(new Error(`nso: cannot read ${file} (${error.code ?? error.message}).`), { exit: 2 });
  }
  const isExport = /^\s*[[{]/.test(text) && !/^\s*\{"v":\d/.test(text);
  return { out: JSON.parse(isExport ? wf.t0FromExport(text, root) : wf.t0FromLane(text, root)), bytes: Buffer.byteLength(text), source: path.basename(file) };
}

/** Runs one continuity command; returns the exit status. */
export async function continuityMain(command, argv, { project, out = console.log, err = console.error } = {}) {
  try {
    const opts = parse(argv);
    if (command === "decide") return await decide(opts, project, out);
    if (command === "decisions") {
      const nso = instance(opts.dir, project);
      out(nso.continuity.decisions({ all: opts.all, json: opts.json }));
      return 0;
    }
    if (command === "handoff") {
      const nso = instance(opts.dir, project);
      const h = await nso.continuity.handoff(opts.session ?? null, { expand: opts.expand });
      out(opts.json ? JSON.stringify(h, null, 2) : h.text);
      return 0;
    }
    if (command === "transcript") return transcript(opts, project, out, err);
    throw usage(`unknown command ${command}`);
  } catch (error) {
    err(error.exit ? error.message : `nso ${command}: ${error.message}${error.fix ? `\nFix: ${error.fix}` : ""}`);
    return error.exit ?? 1;
  }
}

async function decide(opts, project, out) {
  const [decision, ...extra] = opts.positional;
  if (!decision || extra.length) throw usage("give the decision as one argument (quote it)");
  if (!opts.why) throw usage("--why is required: a decision without its reason cannot be weighed later");
  const nso = instance(opts.dir, project);
  const result = await nso.continuity.decide({ agent: "person", sessionID: null }, { decision, why: opts.why, supersedes: opts.supersedes });
  out(opts.json ? JSON.stringify({ id: result.id, ledger: nso.continuity.ledgerFile() }) : `Recorded ${result.id} in ${path.relative(process.cwd(), nso.continuity.ledgerFile()) || nso.continuity.ledgerFile()}.`);
  return 0;
}

function transcript(opts, project, out, err) {
  if (!opts.positional.length) throw usage("name the file of a recorded session");
  const { directory, worktree } = project(opts.dir);
  let configText;
  const configFile = path.join(worktree, ".opencode/nso.json");
  if (opts.policy) {
    let policy;
    try {
      policy = JSON.parse(fs.readFileSync(opts.policy, "utf8"));
    } catch (error) {
      throw Object.assign(new Error(`nso: ${opts.policy} is not a readable JSON policy (${error.message}).`), { exit: 2 });
    }
    configText = JSON.stringify({ continuity: { t0: policy } });
  } else if (fs.existsSync(configFile)) configText = fs.readFileSync(configFile, "utf8");
  let wf;
  try {
    wf = new (loadWorkflowCore().Workflow)(opts.policy ?? ".opencode/nso.json", configText);
  } catch (error) {
    throw Object.assign(new Error(`nso: ${error.message}`), { exit: 2 });
  }
  const records = [];
  for (const file of opts.positional) {
    const { out: result, bytes, source } = transcriptsOf(path.resolve(directory, file), wf, worktree);
    for (const w of result.warnings) err(`${file}: ${w}`);
    for (const s of result.sessions) records.push({ ...t0Record(s, { policy: result.policy, warnings: result.warnings, source, rawBytes: bytes }), text: s.text });
  }
  if (!records.length) {
    err("nso transcript: no session could be read from the input.");
    return 1;
  }
  if (opts.out) {
    for (const r of records) {
      const base = path.join(path.resolve(opts.out), safeName(r.session));
      const { text, ...meta } = r;
      replaceFile(`${base}.t0.md`, text);
      replaceFile(`${base}.t0.json`, JSON.stringify(meta, null, 2) + "\n");
    }
  }
  if (opts.json) out(JSON.stringify(records, null, 2));
  else if (!opts.out) out(records.map((r) => r.text).join("\n"));
  for (const r of records) err(`${r.session}: sha256 ${r.sha256} (${r.policy}, ${r.t0Bytes} of ${r.rawBytes} bytes)`);
  return 0;
}
