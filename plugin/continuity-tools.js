// NSO's tools for agents over continuity: record a decision in the project's ledger, read the
// current decisions, and get a handoff of the session (what a new window needs to go on).

const str = (description) => (description ? { type: "string", description } : { type: "string" });

/** A string argument, trimmed; `required` refuses a missing or empty one. */
function text(args, name, { required = false } = {}) {
  const v = args?.[name];
  if (v === undefined || v === null) {
    if (required) throw new Error(`\`${name}\` is required.`);
    return "";
  }
  if (typeof v !== "string") throw new Error(`\`${name}\` must be a string.`);
  if (required && !v.trim()) throw new Error(`\`${name}\` is empty.`);
  return v.trim();
}

/** The continuity tools of one NSO instance (`nso.continuity`), as tool bodies (arguments, execute; the description is the core's: toolbox.js). */
export function continuityTools(nso) {
  const run = (name, body) => async (args, ctx = {}) => {
    if (!nso.state.engine) return `NSO ${name} refused: NSO is not enforcing (${nso.state.failure?.code ?? "not loaded"}); see .opencode/logs/nso-errors.log.`;
    try {
      return await body(args ?? {}, ctx);
    } catch (error) {
      return `NSO ${name} refused for @${ctx.agent ?? "?"}: ${error.message}${error.fix ? ` Fix: ${error.fix}` : ""} Nothing was written.`;
    }
  };
  return {
    nso_decide: {
      args: {
        decision: str(),
        why: str(),
        supersedes: str("e.g. D-0007"),
      },
      execute: run("nso_decide", async (args, ctx) => {
        const decision = text(args, "decision", { required: true });
        const why = text(args, "why", { required: true });
        const supersedes = text(args, "supersedes") || null;
        const { id } = await nso.continuity.decide(ctx, { decision, why, supersedes });
        nso.log(`${new Date().toISOString()} nso_decide @${ctx.agent ?? "?"} ${id}${supersedes ? ` supersedes ${supersedes}` : ""}`);
        return `Recorded ${id} in ${nso.continuity.ledgerFile().slice(nso.root.length + 1)}${supersedes ? ` (supersedes ${supersedes})` : ""}.`;
      }),
    },
    nso_decisions: {
      args: { all: { type: "boolean" } },
      execute: run("nso_decisions", async (args) => nso.continuity.decisions({ all: args.all === true, maxLines: 200 })),
    },
    nso_insight: {
      description: "Ask the project's Mind (what earlier sessions decided, changed, broke and fixed, were refused, asked) a question: which files matter, what was decided and why, how an error was fixed, what to read next. Every line cites its source. `mode`: brief (default), refs (only references) or snips (small snippets).",
      args: {
        question: str("the question, in a few words"),
        mode: str("brief, refs or snips"),
        segment: str("keep to one segment of the project, if any"),
      },
      execute: run("nso_insight", async (args) => {
        const question = text(args, "question", { required: true });
        const mode = text(args, "mode") || "brief";
        if (!["brief", "refs", "snips"].includes(mode)) throw new Error("`mode` is brief, refs or snips.");
        const mind = nso.continuity.mind();
        await mind.ingest();
        return mind.ask(question, { mode, segment: text(args, "segment") || undefined }).text;
      }),
    },
    nso_handoff: {
      args: { expand: { type: "boolean" } },
      execute: run("nso_handoff", async (args, ctx) => (await nso.continuity.handoff(ctx.sessionID, { expand: args.expand === true })).text),
    },
  };
}
