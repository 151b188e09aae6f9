// What NSO's own tools need to write project files for an agent (nso-tools.js, the
// continuity's decision ledger, the CLI): the same engine as the agents' own calls decides
// each write, the agent's window claims the files, and the atomic status sync runs under both.
import { logDecision } from "./call.js";
import { stamp } from "../logs.js";

/** The NSO tool behind each status sync operation: its writes are made `via` that tool. */
const SYNC_TOOLS = { set: "nso_status_set", new: "nso_task_new", archive: "nso_task_archive" };

/**
 * The writes of NSO's own tools for the project at `root`. `state` is the instance's state
 * (`engine`, `config`), `decide(request)` its brief (undefined: a plain allow),
 * `withEngine(fn)` runs `fn` on the engine, `failureText()` is what agents read while NSO is
 * not enforcing; `claims` and `logs` are the instance's.
 */
export function createOwnWrites({ root, state, decide, withEngine, failureText, claims, logs }) {
  /**
   * The refusal text for writing `content` to `rel` (project-relative) as `agent`, from the
   * same engine as the agents' own calls (authority and status machines), or null. `via`
   * names the NSO tool making the write (rules' `tools`/`exceptTools` see it).
   */
  function authorizeWrite(sessionID, agent, rel, content, via) {
    if (!state.engine) return failureText();
    const brief = decide({ sessionId: sessionID ?? "", agent, tool: "write", args: { filePath: rel, content }, directory: root, worktree: root, via });
    if (!brief) return null;
    logDecision(logs, brief);
    return brief.verdict === "block" ? brief.message : null;
  }

  /**
   * Claims project files (relative paths) that one of NSO's own tools is about to write, for
   * the calling agent's window; the refusal text, or null. The CLI acts for the person, who
   * is no conductor instance: it claims nothing.
   */
  async function claimFiles(ctx, rels) {
    if (!ctx.sessionID || ctx.sessionID === "cli") return null;
    const { block } = await claims.beforeWrite({ sessionID: ctx.sessionID, agent: ctx.agent, targets: rels.map((r) => [r, false]) });
    return block ?? null;
  }

  /**
   * Runs an atomic status sync (TODO.md + state.json) as the calling agent `ctx.agent`:
   * the status machine plans it, and every planned write must pass the same engine as the
   * agents' own writes. Used by NSO's tools and by the CLI alike (one verdict).
   */
  async function statusSync(ctx, options) {
    if (!state.engine) throw Object.assign(new Error(failureText()), { code: "not_enforcing" });
    const { op, now, ...args } = options;
    const { runStatusSync } = await import("../status-sync.js"); // loaded on first use
    const result = await runStatusSync({
      worktree: root, op, args, agent: ctx.agent ?? "", now,
      // Its canonical name (an alias may call) and the agents it is `like`.
      like: withEngine((e) => e.movesAs(ctx.agent ?? "")),
      // Every planned write passes the engine; then the agent's window claims the files (a
      // sync the machine or the policy refuses claims nothing).
      authorize: async (files) => {
        for (const f of files) {
          const refusal = authorizeWrite(ctx.sessionID, ctx.agent, f.path, f.text, SYNC_TOOLS[op]);
          if (refusal) throw Object.assign(new Error(refusal), { name: "NSOBlock", code: "authority" });
        }
        const held = await claimFiles(ctx, files.map((f) => f.path));
        if (held) throw Object.assign(new Error(held), { name: "NSOBlock", code: "conductor" });
      },
    });
    logs.decision(`${stamp()} status sync @${ctx.agent ?? "?"}: ${result.summary}`);
    return result;
  }

  return { authorizeWrite, claimFiles, statusSync };
}
