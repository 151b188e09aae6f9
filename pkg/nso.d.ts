/* tslint:disable */
/* eslint-disable */

/**
 * A loaded configuration and its compiled policy, for one project.
 */
export class Nso {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * One line for the plugin-alive log.
     */
    aliveLine(session_id: string, now_iso: string): string;
    /**
     * The effective configuration (defaults filled in) as a plain object.
     */
    config(): any;
    /**
     * Decides one tool call (`authority::Engine::decide_call`): `args` is the tool's
     * arguments as the host holds them (a text too large to check never crosses whole),
     * `facts` answers what the decision needs to know of the file system, `options`
     * (optional) `{via, directory, worktree, origin, delegatedBy}` (`delegatedBy`: the agent
     * that started this subagent, `""` when unknown; absent for a primary agent). Returns `undefined` for a plain allow that
     * changes no file, else the brief (`authority::Brief`): `{verdict, ruleId, message?,
     * notices?, log?, targets?, audit?}`.
     */
    decideCall(session_id: string, agent: string | null | undefined, tool: string, args: any, facts: any, options?: object | null): any;
    /**
     * How a call is decided, for `nso explain`: `{decision, text}`, the decision as
     * `authority::Decision` (repeats not counted) and a human-readable account, with the
     * facts looked up as for [`Nso::decide_call`].
     */
    explainCall(session_id: string, agent: string | null | undefined, tool: string, args: any, facts: any, options?: object | null): any;
    /**
     * Forgets a session's repeat counters.
     */
    forgetSession(session_id: string): void;
    /**
     * Text of the init marker for a session.
     */
    markerText(session_id: string, now_iso: string, summary: any): string;
    /**
     * The names whose status moves `agent` may make (its own, then those it is `like`), as
     * the status sync's role gate needs them; `[]` for an unknown agent.
     */
    movesAs(agent: string): string[];
    /**
     * Parses the config text of `config_file` (`undefined` when the file does not exist)
     * and compiles the policy. Throws an Error with `code`, `file`, `path`, `problem` and
     * `fix`.
     */
    constructor(config_file: string, config_text?: string | null);
    /**
     * The session summary of memory files `[{path, content|null}]`: `{text, loaded,
     * missing, truncated}`.
     */
    sessionSummary(files: any): any;
    /**
     * Sets the `directory` and `worktree` of calls that do not name theirs.
     */
    setDirectories(directory: string, worktree: string): void;
    /**
     * Sets the agents the project has (`undefined`: not known, every agent of the policy
     * counts): refusals name agents as the project does and suggest only these.
     */
    setProjectAgents(agents?: string[] | null): void;
    /**
     * Sets the function that checks status changes: it takes a `StatusQuery` as JSON
     * (`{file, old, new, agents}`) and returns a `StatusAnswer` as JSON (`{allowed,
     * machine, builtin, detail}`). The shim passes the workflow package's
     * `Workflow.checkStatusEdit`, so the machines load only when a governed file is edited.
     * Without it, such edits are refused.
     */
    setStatusChecker(checker: Function): void;
    /**
     * NSO's tools for this project (`toolbox::toolbox`): `facts` `{statusFiles,
     * commandFiles}`, `agents` the host's agents `[{name, mode?}]`. Returns `{tools, hidden:
     * {agent: [tool]}}`.
     */
    toolbox(facts: any, agents: any): any;
}

/**
 * Every problem in a configuration text, every section at once, as JSON
 * `[{code, path, problem, fix}]` (empty when it is valid). The constructor reports only the first.
 */
export function checkConfig(config_file: string, config_text: string): string;

/**
 * How the engine classifies a tool call (`{ops, unclassified, ...}`), for tests and tools.
 */
export function classify(tool: string, args_json: string): string;

/**
 * A Claude Code tool call (`tool_name`, `tool_input` as JSON) in the engine's form, as JSON
 * `{tool, args, subagentType}` (see [`nso_decision::hosts::claude_code`]). Never throws: input that
 * is not JSON is taken as no input.
 */
export function claudeToolCall(name: string, input_json: string): string;

/**
 * Runs one Conductor operation: the request as JSON (state text, sprint text, now, random,
 * host, alive, ttlSeconds, op) in, the response as JSON (state, result, history, conflicts,
 * error) out; see docs/conductor-contract.md. Never throws: a bad request or a corrupt state
 * is an error response.
 */
export function conductorApply(request_json: string): string;

/**
 * Whether any of the claim patterns (a JSON list of strings) covers `path`.
 */
export function conductorCovers(patterns_json: string, path: string): boolean;

/**
 * Whether some path matches both claim patterns.
 */
export function conductorIntersects(a: string, b: string): boolean;

/**
 * For a store keeping claims as rows: each pattern's literal head and where the claims that
 * may meet it are (see [`conductor::claim_lookups`]).
 */
export function conductorLookups(patterns_json: string): string;

export function isReadTool(tool: string): boolean;

/**
 * Whether `tool` only reads (every other tool is write-class: refused while NSO cannot
 * enforce its rules, and claimed by the Conductor when it runs).
 * What agents read while NSO cannot enforce its rules (`problem`: why; `fix`: what to do).
 */
export function notEnforcingText(problem: string, fix: string): string;

/**
 * The marker that stands for a text too large to check (`bytes`: its size), for a host that
 * knows a text's size without holding it (a blob the git guard did not read).
 */
export function oversizedMarker(bytes: number): any;

/**
 * The JSON Schema of the `authority` section.
 */
export function policySchema(): string;

export function start(): void;

/**
 * NSO's tools: `[{name, description, needs, writes}]` (`toolbox::TOOLBOX`).
 */
export function toolTable(): any;

/**
 * Panics on purpose, so tests can check that the shim survives a trap. Not for other use.
 */
export function trapForTest(): void;

/**
 * The version of the core.
 */
export function version(): string;
