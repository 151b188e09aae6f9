// How a claim conflict reads, and which claim a tool's target makes: shared by the hooks
// (../claims.js) and the pre-commit guard.
import { literalClaim } from "./paths.js";

/**
 * The claim pattern of a project-relative target (`below`: everything under it). A tool's
 * target is a literal path: `app/[id].tsx` is that file, never a glob.
 */
export function targetPattern(root, [rel, below]) {
  return literalClaim(rel ? `${root}/${rel}` : root, { folder: below });
}

/** The agent-facing text for a conflict result of the store. */
export function conflictText(conflicts, mode) {
  const who = conflicts.map((c) => {
    const agent = c.holder_agent ? `, agent @${c.holder_agent}` : "";
    const age = c.holder_age_minutes !== undefined ? `, claimed ${c.holder_age_minutes} min ago` : "";
    return `${c.file} is claimed by instance ${c.held_by} (project ${c.holder_project ?? "?"}, task "${c.holder_task ?? ""}"${agent}${age})`;
  }).join("; ");
  const options = "Options: wait until that window finishes (its claims are released when it is done, idle or gone), " +
    "coordinate with it (it can release the file with nso_release), or ask the person to take it over: " +
    "`nso conductor claim <path> --force \"why\"`.";
  // The instance id starts with its source: `cc-` a Claude Code session, `opc-` an OpenCode window.
  const claude = conflicts.filter((c) => String(c.held_by).startsWith("cc-")).length;
  const holder = claude === 0 ? "Another OpenCode window" : claude === conflicts.length ? "A Claude Code session" : "Another agent session";
  return mode === "advisory"
    ? `NSO conductor (advisory): ${who}. The call went ahead; another window may be editing the same file. ${options}`
    : `${who}. ${holder} holds it, so this call would overwrite its work. ${options}`;
}
