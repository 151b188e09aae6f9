// NSO's tools for agents over the Conductor: claim files ahead of a change (a whole folder
// before a refactor), release them, and see who holds what across every OpenCode window.

const list = (description) => (description ? { type: "array", items: { type: "string" }, description } : { type: "array", items: { type: "string" } });

/** The paths argument: a list of non-empty strings (one string is taken as a list of one). */
function paths(args) {
  const v = args?.paths;
  const items = typeof v === "string" ? [v] : v;
  if (!Array.isArray(items) || items.some((p) => typeof p !== "string")) throw new Error("`paths` must be a list of paths.");
  const clean = items.map((p) => p.trim()).filter(Boolean);
  if (clean.length > 100) throw new Error("`paths` has more than 100 items.");
  return clean;
}

/** The claim tools of one NSO instance (`nso.claims`), as tool bodies (arguments, execute; the description is the core's: toolbox.js). */
export function claimTools(nso) {
  const run = (name, body) => async (args, ctx = {}) => {
    if (nso.claims.mode() === "off") return `NSO ${name}: the conductor is off in this project (conductor.mode).`;
    try {
      return await body(args ?? {}, ctx);
    } catch (error) {
      return `NSO ${name} failed for @${ctx.agent ?? "?"}: ${error.message}${error.fix ? ` Fix: ${error.fix}` : ""}`;
    }
  };
  return {
    nso_claim: {
      args: { paths: list("paths or globs") },
      execute: run("nso_claim", async (args, ctx) => {
        const result = await nso.claims.claimPaths(ctx.sessionID, ctx.agent, paths(args));
        if (result.status === "ok") return `Claimed: ${(result.claimed ?? []).join(", ") || "(already yours)"}. ${result.message ?? ""}`.trim();
        const holders = (result.conflicts ?? []).map((c) => `${c.file} held by ${c.held_by} (task "${c.holder_task ?? ""}"${c.holder_agent ? `, @${c.holder_agent}` : ""})`);
        return `Not claimed (nothing was): ${holders.join("; ")}. Wait, coordinate with that window, or ask the person to force it.`;
      }),
    },
    nso_release: {
      args: { paths: list() },
      execute: run("nso_release", async (args, ctx) => {
        const given = paths({ paths: args.paths ?? [] });
        const result = await nso.claims.releasePaths(ctx.sessionID, { paths: given, all: given.length === 0, reason: "released by the agent" });
        return `Released: ${(result.released ?? []).join(", ") || "nothing"}.`;
      }),
    },
    nso_claims: {
      args: {},
      execute: run("nso_claims", async () => {
        const { statusTable } = await import("../bin/conductor-cli.js"); // the CLI's table, loaded on use
        return statusTable(await nso.claims.status());
      }),
    },
  };
}
