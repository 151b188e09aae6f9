// `nso mind ingest|status|move|rebuild` and `nso insight`: the project's Mind from the
// command line, over the same instance (plugin/nso.js) and core as the plugin.
import { createNso } from "../plugin/nso.js";
import { projectAgents } from "../plugin/decision/project-agents.js";

export const MIND_COMMANDS = ["mind", "insight"];

export const MIND_USAGE = `  nso mind ingest [--export FILE]... [--json] [--dir DIR]
  nso mind status [--json] [--dir DIR]
  nso mind move ID SEGMENT [--dir DIR]
  nso mind rebuild [--json] [--dir DIR]
  nso insight "QUESTION" [--brief | --refs | --snips] [--segment S] [--json] [--dir DIR]`;

export const MIND_HELP = `mind ingest
         reads what the sessions recorded since the last time (the raw lanes, and each
         --export FILE of \`opencode export\`) into the project's Mind: observations (decisions,
         files changed and why, failures and their fixes, refusals, questions and answers,
         status moves, commands that worked), routed to the segments of continuity.mind, and
         reflections per segment and task. Damaged records are skipped, counted and named.
         Exit 0, 1 failed, 2 usage.
mind status
         how many artifacts Mind holds, by kind and by segment, and the lanes read.
mind move
         moves an artifact (an id from nso insight --refs) to another segment by hand.
mind rebuild
         derives every artifact again from the lanes (hand moves are kept).
insight  answers a question from the project's Mind and decision ledger, citing an artifact
         on every line: --brief (default) a few bullets and what to read next, --refs only the
         references, --snips small snippets; --segment keeps to one segment. Reads new
         session records first. Exit 0, 1 failed, 2 usage.`;

const usage = (message) => Object.assign(new Error(`nso: ${message}\n\nusage:\n${MIND_USAGE}`), { exit: 2 });

function parse(argv) {
  const opts = { positional: [], export: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (["--json", "--brief", "--refs", "--snips"].includes(arg)) opts[arg.slice(2)] = true;
    else if (["--dir", "--segment", "--export"].includes(arg)) {
      if (i + 1 >= argv.length) throw usage(`${arg} needs a value`);
      if (arg === "--export") opts.export.push(argv[++i]);
      else opts[arg.slice(2)] = argv[++i];
    } else if (arg.startsWith("--")) throw usage(`unknown argument ${JSON.stringify(arg)}`);
    else opts.positional.push(arg);
  }
  return opts;
}

/** The project's Mind; throws when NSO's config is broken or continuity is off. */
function mindOf(dir, project) {
  const { directory, worktree } = project(dir);
  const nso = createNso({ directory, worktree, projectAgentsOf: projectAgents });
  if (!nso.state.engine) {
    const f = nso.state.failure;
    throw Object.assign(new Error(`nso: ${f?.message ?? "NSO did not load."}\nFix: ${f?.fix ?? "see .opencode/logs/nso-errors.log."}`), { exit: 2 });
  }
  return nso.continuity.mind();
}

function ingestText(r) {
  const lines = [`Mind: ${r.read} of ${r.lanes} lanes read (${r.unchanged} unchanged), ${r.sessions} sessions, ${r.events} events; ` +
    `${r.appended} records appended (${r.superseded} superseding), ${r.reflections} reflections; ${r.ms} ms.`];
  if (r.skippedLines) lines.push(`${r.skippedLines} damaged records skipped:`, ...r.skipped.map((s) => `  ${s}`));
  return lines.join("\n");
}

/** Runs `nso mind …` or `nso insight …`; returns the exit status. */
export async function mindMain(command, argv, { project, out = console.log, err = console.error } = {}) {
  try {
    if (command === "insight") return await insight(parse(argv), project, out);
    const [sub, ...rest] = argv;
    const opts = parse(rest);
    if (sub === "ingest" || sub === "rebuild") {
      const r = await mindOf(opts.dir, project).ingest({ exports: opts.export, rebuild: sub === "rebuild" });
      out(opts.json ? JSON.stringify(r, null, 2) : ingestText(r));
      return 0;
    }
    if (sub === "status") {
      const s = mindOf(opts.dir, project).status();
      if (opts.json) out(JSON.stringify(s, null, 2));
      else {
        const list = (m) => Object.entries(m).map(([k, n]) => `${k} ${n}`).join(", ") || "none";
        out(`Mind in ${s.folder}: ${s.observations} observations, ${s.reflections} reflections, ${s.moves} hand moves; ${s.lanes} lanes read, ${s.skippedLines} damaged records skipped.\n` +
          `  by kind: ${list(s.byKind)}\n  by segment: ${list(s.bySegment)}`);
      }
      return 0;
    }
    if (sub === "move") {
      if (opts.positional.length !== 2) throw usage("give the artifact's id and the segment");
      const [id, segment] = opts.positional;
      await mindOf(opts.dir, project).move(id, segment);
      out(`Moved ${id} to ${segment}.`);
      return 0;
    }
    throw usage(sub ? `unknown mind command ${JSON.stringify(sub)}` : "name a mind command");
  } catch (error) {
    err(error.exit ? error.message : `nso ${command}: ${error.message}${error.fix ? `\nFix: ${error.fix}` : ""}`);
    return error.exit ?? 1;
  }
}

async function insight(opts, project, out) {
  const question = opts.positional.join(" ").trim();
  if (!question) throw usage("ask a question (quote it)");
  if ([opts.brief, opts.refs, opts.snips].filter(Boolean).length > 1) throw usage("choose one of --brief, --refs, --snips");
  const mind = mindOf(opts.dir, project);
  await mind.ingest();
  const mode = opts.refs ? "refs" : opts.snips ? "snips" : "brief";
  const answer = mind.ask(question, { mode, segment: opts.segment });
  out(opts.json ? JSON.stringify(answer, null, 2) : answer.text.trimEnd());
  return 0;
}
