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
     * Decides on a tool call given as JSON. Returns `undefined` for a plain allow (the hot
     * path converts nothing), else the decision as JSON text.
     */
    decide(request_json: string): string | undefined;
    /**
     * Text of the init marker for a session.
     */
    markerText(session_id: string, now_iso: string, summary: any): string;
    /**
     * Parses the config text of `config_file` (`undefined` when the file does not exist)
     * and compiles the policy. Throws an Error with `code`, `file`, `path` and `fix`.
     */
    constructor(config_file: string, config_text?: string | null);
    /**
     * Paths whose current content the engine needs before deciding on this request (JSON).
     */
    requiredContent(request_json: string): string[];
    /**
     * The session summary of memory files `[{path, content|null}]`: `{text, loaded,
     * missing, truncated}`.
     */
    sessionSummary(files: any): any;
}

export function start(): void;

/**
 * Panics on purpose, so tests can check that the shim survives a trap. Not for other use.
 */
export function trapForTest(): void;

/**
 * The version of the core.
 */
export function version(): string;
