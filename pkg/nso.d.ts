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
     * [`Nso::decide`] on a call given in parts, so a plain allow crosses only its own
     * arguments: the tool's arguments as JSON, and the lookups answered so far
     * (`{resolved, contents, oversized, exists}` as JSON; `undefined` when there are none);
     * the directories are those of [`Nso::set_directories`]. The answers of `decide`, but a
     * decision comes as its brief (`{verdict, ruleId, message?, notices?, log?,
     * unclassified?}`): what a hook acts on, without the operations; and a plain allow that
     * lasts (the same call, in any session, is allowed until the policy changes: see
     * `Engine::answer`) as `true`, so the shim may remember it for this instance (the same
     * for what must be looked up: `lasting` in its answer).
     */
    decideCall(session_id: string, agent: string | null | undefined, tool: string, args_json: string, lookups_json?: string | null): any;
    /**
     * Decides on a tool call given as JSON (`{sessionId, agent, tool, args, directory,
     * worktree, resolved, contents, exists}`). Returns `undefined` for a plain allow (the
     * hot path converts nothing); `{"need": {resolve, content, exists}}` as JSON when the
     * shim must look things up and call again; else the decision as JSON.
     */
    decide(request_json: string): string | undefined;
    /**
     * The decision on a call without counting it (for `nso explain --json`), as JSON.
     */
    evaluate(request_json: string): string;
    /**
     * A human-readable account of how a call is decided (for `nso explain`).
     */
    explain(request_json: string): string;
    /**
     * Forgets a session's repeat counters.
     */
    forgetSession(session_id: string): void;
    /**
     * What the shim must look up for this call before deciding (`{resolve, content,
     * exists}` as JSON), without deciding or counting anything.
     */
    lookups(request_json: string): string;
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
     * Counts `times` more refusals, in `session`, of a call the shim remembers as refused:
     * `key` is the `again` of its first brief (see `authority::Brief::again`). How many
     * refusals of it the session has had, these included; the last one's message gets the
     * repeat note of that count (see [`Nso::repeat_note_parts`]). The shim may count the
     * repeats itself and tell them here in one call before it lets the core decide the call
     * again (as when it forgets the refusal).
     */
    refusedAgain(session_id: string, key: number, times: number): number;
    /**
     * The repeat note's words (`authority::REPEAT_NOTE_PARTS`, as JSON): before the number
     * of earlier refusals, after it when it is one, after it otherwise. The note of the
     * `n`th refusal (n of 2 or more) is `before + (n - 1) + (n === 2 ? one : many)`.
     */
    static repeatNoteParts(): string;
    /**
     * The session summary of memory files `[{path, content|null}]`: `{text, loaded,
     * missing, truncated}`.
     */
    sessionSummary(files: any): any;
    /**
     * Sets the `directory` and `worktree` of the calls decided by [`Nso::decide_call`].
     */
    setDirectories(directory: string, worktree: string): void;
    /**
     * Sets the function that checks status changes: it takes a `StatusQuery` as JSON
     * (`{file, old, new, agents}`) and returns a `StatusAnswer` as JSON (`{allowed,
     * machine, builtin, detail}`). The shim passes the workflow package's
     * `Workflow.checkStatusEdit`, so the machines load only when a governed file is edited.
     * Without it, such edits are refused.
     */
    setStatusChecker(checker: Function): void;
    /**
     * The project files a tool call (request JSON as for `decide`) would change, as JSON
     * `[[relative path, below]]`: what the Conductor claims before the call.
     */
    writeTargets(request_json: string): string;
}

/**
 * Every problem in a configuration text, as JSON `[{code, path, problem, fix}]` (empty when
 * it is valid). The constructor reports only the first.
 */
export function checkConfig(config_file: string, config_text: string): string;

/**
 * How the engine classifies a tool call (`{ops, unclassified, ...}`), for tests and tools.
 */
export function classify(tool: string, args_json: string): string;

/**
 * A Claude Code tool call (`tool_name`, `tool_input` as JSON) in the engine's form, as JSON
 * `{tool, args, subagentType}` (see [`crate::hosts::claude_code`]). Never throws: input that
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
 * The JSON Schema of the `authority` section.
 */
export function policySchema(): string;

export function start(): void;

/**
 * Panics on purpose, so tests can check that the shim survives a trap. Not for other use.
 */
export function trapForTest(): void;

/**
 * The version of the core.
 */
export function version(): string;
