// `nso guard pre-commit`: what the git hook `nso init git` installs runs. A backstop that does
// not depend on the host's hooks firing (Claude Code's PreToolUse is reported to miss some
// subagent calls): every staged change is decided again, through the plugin's own decision
// path (plugin/decision/call.js: bounds, lookups, engine `decide`), as the committer, with HEAD as
// the files' current state; and no staged path may be claimed by another live Conductor
// instance. A refusal exits 1, which makes git refuse the commit.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { conflictText, targetPattern } from "../../plugin/conductor/conflicts.js";
import { resolveHome, STATUS_FILE } from "../../plugin/conductor/home.js";
import { procStat, processStartToken } from "../../plugin/conductor/liveness.js";
import { runConductor } from "../../plugin/conductor/store.js";
import { loadCore } from "../../plugin/core-loader.js";
import { decideCall, notEnforcingText } from "../../plugin/decision/call.js";
import { coreError } from "../../plugin/errors.js";
import { realPathInfo } from "../../plugin/decision/files.js";
import * as logFiles from "../../plugin/logs.js";
import { stateFolders } from "../../plugin/start-checks.js";
import { stateFolderTest } from "../../plugin/state-dirs.js";
import { loadPolicy } from "../replay/replay.js";
import { GITLINK_MODE, blobTexts, git, readStaged, workTreeOf } from "./staged.js";

export const GUARD_USAGE = "  nso guard pre-commit [--dir DIR] [--json]";
export const GUARD_HELP = `guard pre-commit
         what the git hook of \`nso init git\` runs: every staged change (index against
         HEAD) is decided again as the committer, through the same engine and decision path
         as the plugin: an added or changed file is a write of its staged content, a deleted
         file a deletion, a rename both; append-only and sacred files are compared HEAD ->
         staged. The committer is the agent named by $NSO_AGENT, else the person (the agent
         \`user\` of authority.agents; without one, refused). The policy is HEAD's
         .opencode/nso.json (the working tree's while it is not committed). A staged path
         claimed by another live Conductor instance is refused (enforce) or warned about
         (advisory); the committer's own instances are those whose process is an ancestor
         of this one (the OpenCode window running \`git commit\`) and $NSO_INSTANCE.
         Exit 0 commit allowed, 1 refused (also when NSO cannot decide: fail closed), 2 usage.`;

/** The session the guard's decisions are counted under (repeat counts stay per run). */
const SESSION = `git-pre-commit-${process.pid}`;
const CONFIG_FILE = ".opencode/nso.json";

class UsageError extends Error {}

function parseArgs(argv) {
  const [sub, ...rest] = argv;
  if (sub === "-h" || sub === "--help") return { help: true };
  if (sub !== "pre-commit") throw new UsageError(`nso guard: unknown guard ${JSON.stringify(sub ?? "")} (only pre-commit)`);
  const opts = {};
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "--json") opts.json = true;
    else if (rest[i] === "--dir") {
      if (i + 1 >= rest.length) throw new UsageError("nso guard: --dir needs a value");
      opts.dir = rest[++i];
    } else if (rest[i] === "-h" || rest[i] === "--help") opts.help = true;
    else throw new UsageError(`nso guard: unknown argument ${JSON.stringify(rest[i])}`);
  }
  return opts;
}

// --- pure parts ---------------------------------------------------------------------------

/**
 * Whether a project-relative path is NSO's runtime state: inside a folder that holds NSO's
 * `.gitignore`, or inside one of the state folders `config` names (logs, transcripts, handoffs).
 */
export function nsoStateTest(root, config) {
  const inMarked = stateFolderTest(root);
  const folders = stateFolders(root, config);
  return (rel) => folders.some((f) => rel === f || rel.startsWith(`${f}/`)) || inMarked(rel);
}

/**
 * The patch text of a deletion of `rel` for the engine: `apply_patch` with `*** Delete File:`
 * is the engine's own form of deleting one exact file (the same operation as `rm -- path`, a
 * delete of that path, without a shell command to quote or a bash rule to match). A path the
 * patch format cannot carry (a newline, spaces at either end) is deleted with `rm` instead.
 */
export function deletionCall(rel) {
  if (!/[\n\r]/.test(rel) && rel.trim() === rel && rel !== "") {
    return { tool: "apply_patch", args: { patchText: `*** Begin Patch\n*** Delete File: ${rel}\n*** End Patch` } };
  }
  return { tool: "bash", args: { command: `rm -- '${rel.replace(/'/g, "'\\''")}'` } };
}

/**
 * The calls that make the staged `changes` (records of staged.js `parseRawDiff`) from HEAD:
 * `[{path, what, tool, args, sha, mode}]` (`sha`, `mode`: the staged blob; null for a deletion). `content(record)` gives a record's staged text (or
 * `{oversized: bytes}`). An added, changed or type-changed file is a `write {filePath,
 * content}`; a deleted one a deletion ({@link deletionCall}); a rename deletes its source and
 * writes its destination; a copy writes its destination.
 */
export function stagedCalls(changes, content) {
  const calls = [];
  const write = (rel, record, what) => {
    const text = content(record);
    const args = { filePath: rel, content: typeof text === "string" ? text : loadCore().oversizedMarker(text.oversized) };
    calls.push({ path: rel, what, tool: "write", args, sha: record.newSha, mode: record.newMode });
  };
  const deletion = (rel, what) => ({ path: rel, what, ...deletionCall(rel), sha: null, mode: null });
  for (const c of changes) {
    if (c.status === "D") calls.push(deletion(c.path, "deleted"));
    else if (c.status === "R") {
      calls.push(deletion(c.from, `renamed to ${c.path}`));
      write(c.path, c, `renamed from ${c.from}`);
    } else if (c.status === "C") write(c.path, c, `copied from ${c.from}`);
    else write(c.path, c, c.status === "A" ? "added" : "changed");
  }
  return calls;
}

/**
 * Whether a call only takes the state of a merged branch (`trees`: path → `{sha, mode}` of
 * each MERGE_HEAD): the file as that branch has it, or deleted as it is there. Those changes
 * were made (and checked) on that branch; a merge commit's own work is what differs from it.
 */
export function takenFromMerge(call, trees) {
  return trees.some((tree) => (call.sha === null ? !tree.has(call.path)
    : tree.get(call.path)?.sha === call.sha && tree.get(call.path)?.mode === call.mode));
}

/**
 * The instances of a conductor `status` answer that hold a claim on one of `paths` (absolute
 * claim patterns of the staged files) and are not the committer's (`own(instance)`), as the
 * conflict records `conflictText` takes. Dead instances hold nothing.
 */
export function claimConflicts(instances, patterns, own, intersects) {
  const conflicts = [];
  for (const inst of instances ?? []) {
    if (!inst || inst.alive === false || own(inst)) continue;
    const held = inst.files_claimed ?? inst.claims ?? [];
    for (const file of patterns) {
      const pattern = held.find((p) => intersects(p, file));
      if (pattern === undefined) continue;
      conflicts.push({
        file, held_by: inst.id, pattern, holder_project: inst.project ?? null, holder_task: inst.task ?? "",
        holder_agent: inst.agent ?? null, holder_age_minutes: inst.age_minutes,
      });
    }
  }
  return conflicts;
}

/**
 * The text git prints when the guard refuses: each refusal with its file (the first `full` in
 * full, then one line each up to `listed`, then a count), then how to go on.
 */
export function refusalText({ agent, refusals, conflicts, mode }, { full = 20, listed = 200 } = {}) {
  const lines = [`NSO refused this commit (git pre-commit guard, committing as @${agent}).`];
  for (const r of refusals.slice(0, full)) lines.push("", `${r.path} (${r.what}):`, `  ${r.message}`);
  if (refusals.length > full) {
    lines.push("", `${refusals.length - full} more change(s) refused (\`nso guard pre-commit --json\` gives every message):`);
    for (const r of refusals.slice(full, listed)) lines.push(`  ${r.path} (${r.what}): rule ${r.rule ?? "?"}`);
    if (refusals.length > listed) lines.push(`  ... and ${refusals.length - listed} more`);
  }
  if (conflicts.length) lines.push("", `Conductor claims: ${conflictText(conflicts, mode)}`);
  lines.push("", "How to proceed: nothing was committed. Unstage what may not be committed " +
    "(`git restore --staged -- <file>`) and keep the rest, or leave the change to whoever the message " +
    "names and report it; then commit again. NSO decided as the committer named above " +
    "($NSO_AGENT when set, else the person: the agent `user` of authority.agents in .opencode/nso.json).");
  return lines.join("\n");
}

// --- the committer ------------------------------------------------------------------------

/** The pids of this process's ancestors, nearest first (Linux /proc; elsewhere `ps`). */
export function ancestorPids(pid = process.pid) {
  const out = [];
  let current = pid;
  for (let i = 0; i < 256; i++) {
    const parent = parentPid(current);
    if (!parent || parent <= 1 || out.includes(parent)) break;
    out.push(parent);
    current = parent;
  }
  return out;
}

function parentPid(pid) {
  const stat = procStat(pid);
  if (stat) return stat.parent;
  try {
    return Number(execFileSync("ps", ["-o", "ppid=", "-p", String(pid)], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a conductor instance is the committer's own: named by $NSO_INSTANCE, or living with
 * a process of this host that is an ancestor of the guard (the same process: its recorded start
 * token matches, so a reused pid is not taken for it).
 */
export function ownInstanceTest({ env = process.env, ancestors = ancestorPids(), host = os.hostname(), token = processStartToken } = {}) {
  const named = new Set([env.NSO_INSTANCE].filter(Boolean));
  const lineage = new Set(ancestors);
  return (inst) => {
    if (named.has(inst.id)) return true;
    if (inst.host !== host || !lineage.has(inst.pid)) return false;
    return inst.process_started == null || token(inst.pid) === inst.process_started;
  };
}

// --- I/O ----------------------------------------------------------------------------------

/**
 * The live instances of the Conductor and their claims, read only (the core's `status`
 * operation). Kept in one function: the claim store is chosen here (the files of
 * $CONDUCTOR_HOME, or `conductor.store` when another store is configured).
 */
export async function readClaimInstances(settings, root) {
  if (settings?.store && settings.store !== "files") {
    const { openStore, closeStores } = await import("../../plugin/conductor/stores.js");
    try {
      const answer = await openStore(settings, { root }).run({ op: { operation: "status" }, ttlSeconds: settings.ttlSeconds ?? 600 });
      if (answer.error) throw coreError(answer.error);
      return answer.result.instances ?? [];
    } finally {
      await closeStores();
    }
  }
  const home = settings?.home ? path.resolve(root, settings.home) : resolveHome();
  // No state yet: nobody has claimed anything (and the guard creates no folder).
  if (!fs.existsSync(path.join(home, STATUS_FILE))) return [];
  const answer = await runConductor({ home, op: { operation: "status" }, ttlSeconds: settings?.ttlSeconds ?? 600 });
  if (answer.error) throw coreError(answer.error);
  return answer.result.instances ?? [];
}

/**
 * The text of the policy the commit is decided under: HEAD's `.opencode/nso.json` when HEAD
 * has one (a commit cannot loosen the policy it is judged by), else the working tree's (a
 * config not committed yet, as the plugin reads it); undefined: NSO's defaults.
 */
function policyText(root, head) {
  if (head.has(CONFIG_FILE)) return git(root, ["cat-file", "blob", head.get(CONFIG_FILE).sha]);
  const file = path.join(root, CONFIG_FILE);
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

/**
 * The facts the core asks for (`Nso.decideCall`), answered from HEAD for paths inside the
 * repository (a change is decided against the committed state, not the working tree) and from
 * the disk outside. Git never stages a path behind a symlinked folder, and a staged symlink is
 * a change of the link itself: paths inside are their own real paths.
 */
export function headFacts(root, head, readBlobs) {
  const folders = new Set();
  for (const rel of head.keys()) for (let i = rel.indexOf("/"); i > 0; i = rel.indexOf("/", i + 1)) folders.add(rel.slice(0, i));
  const relOf = (abs) => (abs === root ? "" : abs.startsWith(`${root}/`) ? path.posix.normalize(abs.slice(root.length + 1)).replace(/\/$/, "") : undefined);
  const inside = (abs) => {
    const rel = relOf(path.posix.resolve(abs));
    return rel === undefined || rel === ".git" || rel.startsWith(".git/") ? undefined : rel;
  };
  const existsAtHead = (rel) => rel === "" || head.has(rel) || folders.has(rel);
  return {
    realPath(abs) {
      const rel = inside(abs);
      return rel === undefined ? realPathInfo(abs) : [path.posix.resolve(abs), existsAtHead(rel)];
    },
    read(abs, maxBytes) {
      const rel = inside(abs);
      const entry = rel === undefined ? undefined : head.get(rel);
      if (!entry) return undefined; // outside the repository, or not at HEAD: not part of the commit
      if (entry.mode === GITLINK_MODE) return `Subproject commit ${entry.sha}\n`;
      const text = readBlobs([entry.sha], maxBytes).get(entry.sha);
      return text !== undefined && typeof text === "object" ? text.oversized : text;
    },
  };
}

/** Lines for `nso.log`, with `flushAllLogs` where the logs wait in memory. */
function flushLogs() {
  logFiles.flushAllLogs?.();
}

/**
 * Runs `nso guard pre-commit` with `argv` (after `guard`); resolves to the exit status. `out`
 * and `err` take whole texts; `env` gives NSO_AGENT / NSO_INSTANCE.
 */
export async function guardMain(argv, { out = (t) => process.stdout.write(`${t}\n`), err = (t) => process.stderr.write(`${t}\n`), env = process.env } = {}) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`${error.message}\n\nusage:\n${GUARD_USAGE}`);
    return 2;
  }
  if (opts.help) {
    out(`usage:\n${GUARD_USAGE}\n\n${GUARD_HELP}`);
    return 0;
  }
  const dir = path.resolve(opts.dir ?? process.cwd());
  const top = workTreeOf(dir);
  if (!top) {
    err(`nso guard pre-commit: ${dir} is not inside a git work tree; nothing to check.`);
    return 2;
  }
  const root = fs.realpathSync(top);
  const agent = env.NSO_AGENT?.trim() || "user";
  const asPerson = !env.NSO_AGENT?.trim();
  const report = { allowed: false, agent, asPerson, changes: [], refusals: [], conflicts: [], warnings: [] };
  const finish = (allowed, text) => {
    report.allowed = allowed;
    flushLogs();
    if (opts.json) out(JSON.stringify(report, null, 2));
    else if (text) (allowed ? out : err)(text);
    return allowed ? 0 : 1;
  };

  // What the commit records. Anything git cannot tell us refuses the commit (fail closed).
  let staged;
  let policy;
  let logs = logFiles.createLogs(root, () => undefined);
  try {
    staged = readStaged(root);
  } catch (error) {
    report.error = error.message;
    logs.error(`git pre-commit guard: cannot read the staged changes: ${error.message}`);
    return finish(false, `NSO refused this commit: it could not read the staged changes (${error.message}), so it cannot check them (fail closed).`);
  }
  try {
    policy = loadPolicy(policyText(root, staged.head));
    logs = logFiles.createLogs(root, () => policy.config.logDir);
  } catch (error) {
    const failure = {
      message: `${error.problem ?? error.message}`.replace(/([^.])$/, "$1."),
      fix: error.fix ?? `correct ${CONFIG_FILE}.`,
    };
    report.error = failure.message;
    logs.append("nso-errors.log", `${logFiles.stamp()} NSO NOT ENFORCING (${error.code ?? "config"}): ${failure.message} Fix: ${failure.fix}`);
    logs.decision(`${logFiles.stamp()} block git-commit @${agent}: NSO not enforcing (${error.code ?? "config"})`);
    return finish(false, `NSO refused this commit: ${notEnforcingText(failure)}`);
  }
  const contentBytes = policy.config.limits?.contentBytes;
  const readBlobs = (shas, limit) => blobTexts(root, shas, limit);

  let calls;
  try {
    const staging = readBlobs(staged.changes.filter((c) => c.newMode !== GITLINK_MODE && c.status !== "D").map((c) => c.newSha), contentBytes);
    calls = stagedCalls(staged.changes, (c) => (c.newMode === GITLINK_MODE ? `Subproject commit ${c.newSha}\n` : staging.get(c.newSha) ?? ""));
  } catch (error) {
    report.error = error.message;
    return finish(false, `NSO refused this commit: it could not read the staged contents (${error.message}) (fail closed).`);
  }

  // Completing a merge: what the merged branch brings is not the committer's change.
  if (staged.mergeTrees.length) {
    const taken = calls.filter((c) => takenFromMerge(c, staged.mergeTrees));
    report.merged = taken.map((c) => c.path);
    calls = calls.filter((c) => !taken.includes(c));
  }
  // NSO's own runtime state (a log staged with `git add -f`, or tracked from before its
  // folders ignored themselves) is not the committer's write: left out, with the fix.
  const inState = nsoStateTest(root, policy.config);
  const own = calls.filter((c) => inState(c.path));
  if (own.length) {
    report.nsoState = own.map((c) => c.path);
    report.warnings.push(`left out NSO's runtime state, which should not be committed: ${report.nsoState.slice(0, 5).join(", ")}` +
      `${own.length > 5 ? ` and ${own.length - 5} more` : ""} (git rm -r --cached -- <file> stops tracking it)`);
    calls = calls.filter((c) => !own.includes(c));
  }
  const facts = headFacts(root, staged.head, readBlobs);
  const header = asPerson ? `nso guard: committing as the person at the keyboard, with the rights of agent \`user\` (authority.agents.user in ${CONFIG_FILE}); set NSO_AGENT to commit as an agent.` : undefined;
  for (const call of calls) {
    const request = { sessionId: SESSION, agent, tool: call.tool, args: call.args, directory: root, worktree: root, origin: "git pre-commit" };
    let decision;
    try {
      decision = decideCall(policy.engine, request, facts);
    } catch (error) {
      decision = { verdict: "block", ruleId: "nso.guard", message: `NSO could not decide on this change (${error.message}); it refuses it (fail closed).` };
    }
    const verdict = decision?.verdict ?? "allow";
    report.changes.push({ path: call.path, what: call.what, tool: call.tool, verdict, rule: decision?.ruleId ?? null });
    if (!decision) continue;
    const at = logFiles.stamp();
    for (const line of decision.log ?? []) logs.decision(`${at} ${line}`);
    if (decision.audit) logs.audit({ t: at, ...decision.audit });
    if (verdict === "block") {
      report.refusals.push({ path: call.path, what: call.what, rule: decision.ruleId ?? null, message: decision.message });
    } else if (decision.notices?.length) {
      report.warnings.push(...decision.notices.map((n) => `${call.path}: ${n}`));
    }
  }

  // The Conductor: a staged path another live instance holds.
  const settings = policy.config.conductor ?? {};
  const mode = settings.mode ?? "enforce";
  if (mode !== "off" && calls.length) {
    try {
      const instances = await readClaimInstances(settings, root);
      const core = loadCore();
      const patterns = [...new Set(calls.map((c) => targetPattern(root, [c.path, false])))];
      const found = claimConflicts(instances, patterns, ownInstanceTest({ env }), (a, b) => core.conductorIntersects(a, b));
      if (found.length && mode === "advisory") report.warnings.push(conflictText(found, "advisory"));
      else if (found.length) {
        report.conflicts.push(...found);
        logs.decision(`${logFiles.stamp()} block git-commit @${agent} conductor.claim`);
      }
    } catch (error) {
      const why = `NSO cannot read the conductor's claims (${error.message})`;
      logs.error(`git pre-commit guard: ${why}`);
      if (mode === "advisory") report.warnings.push(`${why}; the commit goes ahead without checking them (advisory mode).`);
      else {
        report.error = why;
        return finish(false, `NSO refused this commit: ${why}, so it cannot tell whether another window holds a staged file (fail closed). ` +
          `Fix: ${error.fix ?? "check that $CONDUCTOR_HOME (default ~/.conductor) is readable, or set conductor.mode in .opencode/nso.json"}.`);
      }
    }
  }

  const refused = report.refusals.length > 0 || report.conflicts.length > 0;
  logs.decision(`${logFiles.stamp()} git pre-commit @${agent}: ${calls.length} change(s)${report.merged ? ` (+${report.merged.length} from the merged branch)` : ""}, ` +
    (refused ? `refused (${report.refusals.length} by the policy, ${report.conflicts.length} claimed)` : "allowed"));
  const warnings = report.warnings.map((w) => `nso guard: warning: ${w}`).join("\n");
  if (refused) {
    const text = refusalText({ agent, refusals: report.refusals, conflicts: report.conflicts, mode });
    return finish(false, [header, warnings, text].filter(Boolean).join("\n"));
  }
  return finish(true, warnings || undefined);
}
