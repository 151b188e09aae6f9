// What each `nso` command says about itself: one summary line (plus a few for the short
// help), its usage lines (whose flags are the command's known flags: bin/conventions.js) and
// one example. The full reference is docs/cli.md.
import { AUDIT_USAGE } from "./audit-cli.js";
import { REPLAY_USAGE } from "./replay-cli.js";
import { GUARD_USAGE } from "./init/guard.js";
import { INIT_USAGE } from "./init/cli.js";
import { HOOK_USAGE } from "./hook-cli.js";
import { CONDUCTOR_USAGE } from "./conductor-cli.js";
import { CONTINUITY_USAGE } from "./continuity-cli.js";
import { STATUS_USAGE } from "./mc/status-cli.js";
import { MC_USAGE } from "./mc/launch.js";

const continuity = (name) => CONTINUITY_USAGE.split("\n").filter((l) => l.startsWith(`  nso ${name} `) || l === `  nso ${name}`).join("\n");

export const HELP = {
  init: {
    summary: "installs NSO into OpenCode, Claude Code or git.\nOpenCode: the plugin entry and .opencode/nso.json (a preset, in audit mode).\nPrints what each of the project's agents may write and run; --dry-run changes nothing.",
    usage: INIT_USAGE,
    example: "nso init opencode --preset nso --dry-run",
  },
  enforce: {
    summary: "switches the project's policy from audit mode to enforcing (authority.mode in .opencode/nso.json).",
    usage: "  nso enforce [--audit] [--dry-run] [--dir DIR]   (--audit: back to audit mode)",
    example: "nso enforce",
  },
  doctor: {
    summary: "checks that NSO is set up and working for this project, and says how to fix what is not.\nPlugin entry, config (every problem), dependencies, the core, a self-test (one allowed and one\nrefused call), the claim store, recent refusals. Exit 0 only when all is well.",
    usage: "  nso doctor [--json] [--dir DIR]",
    example: "nso doctor --json",
  },
  explain: {
    summary: "how NSO decides one tool call: the verdict, the rule and where it is defined, who may, and why.\n--as-user decides for the person at the keyboard (authority.agents.user). Exit 0 allowed, 1 blocked, 2 usage or config error.",
    usage: `  nso explain --agent NAME --command "BASH COMMAND" [--dir DIR] [--json]
  nso explain --agent NAME --tool TOOL [--path P] [--args JSON] [--session ID] [--dir DIR] [--json]
  nso explain --as-user --command "BASH COMMAND" [--dir DIR] [--json]
  nso explain --command /CMD --task N [--dir DIR] [--json]   (as nso route)`,
    example: 'nso explain --agent plan --command "git push origin main"',
  },
  mind: {
    summary: "the project's Mind: what earlier sessions decided, changed, broke and fixed, distilled from\ntheir transcripts. ingest reads new lane records; status, move (route an observation by hand), rebuild.",
    usage: "  nso mind ingest [--export FILE]... [--json] [--dir DIR]\n  nso mind status [--json] [--dir DIR]\n  nso mind move ID SEGMENT [--dir DIR]\n  nso mind rebuild [--json] [--dir DIR]",
    example: "nso mind ingest",
  },
  insight: {
    summary: "answers a question from the project's Mind, a citation on every line: what to read next,\nwhich files matter, what was decided, the relevant snippet.",
    usage: "  nso insight \"QUESTION\" [--brief | --refs | --snips] [--segment S] [--json] [--dir DIR]",
    example: "nso insight \"why did the login test fail\" --refs",
  },
  tools: {
    summary: "which of NSO's tools each agent of the project gets, and the bytes of their definitions\nthat every model request carries. Set the groups with `tools` in .opencode/nso.json.",
    usage: "  nso tools [--agent NAME] [--json] [--dir DIR]",
    example: "nso tools --agent plan",
  },
  check: {
    summary: "validates .opencode/nso.json and lists every problem in every section, with the fix.\nExit 0 valid (an empty file uses the defaults), 1 not.",
    usage: "  nso check [--dir DIR] [--json]",
    example: "nso check --dir ~/src/app",
  },
  route: {
    summary: "which agent a language-routed command goes to for a task.\nExit 0 routed, 1 no agent, 2 usage.",
    usage: "  nso route --command /CMD --task N [--state FILE] [--todo FILE] [--dir DIR] [--json]",
    example: "nso route --command /research --task 12",
  },
  status: {
    summary: "the Agents table, or the task status files (check, set, new, archive, recover).\nWithout a subcommand: every agent, its state, task and claims. check: TODO.md against state.json;\nset/new/archive: task changes as an agent or the person; recover: finish an interrupted sync.",
    usage: `${STATUS_USAGE}
  nso status check [--todo FILE] [--state FILE] [--dir DIR] [--json]
  nso status set N STATUS (--agent NAME | --as-user) [--artifact PATH]... [--dir DIR] [--json]
  nso status new --title T [--description D] [--priority P] [--language L] (--agent NAME | --as-user) [--dir DIR] [--json]
  nso status archive (--agent NAME | --as-user) [--dir DIR] [--json]
  nso status recover [--dir DIR]`,
    example: "nso status set 12 completed --agent implementer --artifact docs/report.md",
  },
  mc: {
    summary: "Mission Control: a local web page (127.0.0.1, token) with every agent, claim and decision, live.",
    usage: MC_USAGE,
    example: "nso mc --no-open",
  },
  conductor: {
    summary: "coordinates agents on one machine: tasks, file claims, releases, the priority gate.",
    usage: CONDUCTOR_USAGE,
    example: "nso conductor status --json",
  },
  decide: {
    summary: "records a decision in the project's decision ledger as the person.",
    usage: continuity("decide"),
    example: 'nso decide "Use PostgreSQL for claims" --why "several machines"',
  },
  decisions: {
    summary: "the current decisions of the ledger, newest first (--all: superseded ones too).",
    usage: continuity("decisions"),
    example: "nso decisions --all",
  },
  transcript: {
    summary: "the T0 transcript of a recorded session (opencode export JSON or NSO's raw lane).",
    usage: continuity("transcript"),
    example: "nso transcript session.json --out transcripts/",
  },
  handoff: {
    summary: "what a new window needs to go on: decisions, the session's task, files, claims, refusals.",
    usage: continuity("handoff"),
    example: "nso handoff --session ses_123",
  },
  audit: {
    summary: "what NSO would have refused while in audit mode: counts per rule, agent and tool, examples.",
    usage: AUDIT_USAGE,
    example: "nso audit --since 7d",
  },
  replay: {
    summary: "decides every tool call of a recorded session again under a policy; --diff compares two.",
    usage: REPLAY_USAGE,
    example: "nso replay export.json --diff stricter.json",
  },
  guard: {
    summary: "what the git hook of `nso init git` runs: every staged change decided again as the committer.",
    usage: GUARD_USAGE,
    example: "nso guard pre-commit",
  },
  hook: {
    summary: "NSO as Claude Code's hook command (JSON on stdin); installed by `nso init claude-code`.",
    usage: HOOK_USAGE,
    example: "nso hook claude-code < event.json",
  },
};
