/* tslint:disable */
/* eslint-disable */

/**
 * The artifacts of a project, indexed for questions (see `nso_workflow::mind::insight`).
 */
export class MindIndex {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * The answer to `question` (`mode`: `brief`, `refs` or `snips`), as `Answer` JSON.
     */
    ask(question: string, mode: string, segment?: string | null): string;
    /**
     * Lines for a handoff's mind layer (JSON list of strings).
     */
    handoffLines(segments_json: string, tasks_json: string, except: string | null | undefined, limit: number): string;
    /**
     * Reads and indexes a corpus (`Corpus` JSON: `{observations, reflections, moves,
     * ledger, handoffs}`).
     */
    constructor(corpus_json: string);
}

/**
 * The router of one project, compiled from `routing` in `.opencode/nso.json`.
 */
export class Workflow {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * The verdict of the status machines on one change: `StatusQuery` JSON in
     * (`{file, old, new, agents}`), `StatusAnswer` JSON out. An invalid `status` section
     * refuses every change of a governed file, naming the problem and the fix.
     * `kord_json` (optional) holds what the shell read for Kord's checks (the project's
     * squads and a story's plan): a plan breaking the rules is refused, a story outside a
     * story-driven plan passes with its gates dormant.
     */
    checkStatusEdit(query_json: string, kord_json?: string | null): string;
    /**
     * A handoff from its layers (`HandoffInput` JSON): `{text, lines, truncated, layers}`.
     */
    handoff(input_json: string): string;
    /**
     * Numbers a new decision (`NewDecision` JSON: `{decision, why, agent, session,
     * supersedes, whenIso}`) after the entries of the ledger `text`: `{id, appendText}` JSON.
     * Throws with `code` and `fix` when the decision is refused.
     */
    ledgerAppend(text: string, new_json: string): string;
    /**
     * The ledger read back as JSON: `{entries, warnings}`, entries in file order with
     * `supersededBy`.
     */
    ledgerJson(text: string): string;
    /**
     * The ledger's view as text: current decisions newest first (`all`: superseded ones
     * too, marked), at most `max_lines` lines.
     */
    ledgerView(text: string, all: boolean, max_lines?: number | null): string;
    /**
     * Distills a lane (`export`: `opencode export` JSON) into the records to append, given
     * what is kept (`{id: {rev, basis}}` JSON): `Distilled` JSON.
     */
    mindDistill(text: string, _export: boolean, root: string | null | undefined, known_json: string): string;
    /**
     * The provider of `continuity.mind.provider` (`ProviderSettings` JSON), or `null`.
     */
    mindProvider(): string;
    /**
     * Merges a provider's `answer` into the records of its pass (`kind`: `observations`, a
     * JSON list of observations, or `reflection`, one reflection): the records as JSON, or
     * the error `provider_answer` saying why the answer was refused.
     */
    mindRefine(kind: string, records_json: string, answer: string): string;
    /**
     * The reflections of the current observations (`observations.jsonl` and `moves.jsonl`
     * texts): a JSON list.
     */
    mindReflect(observations: string, moves: string): string;
    /**
     * The provider's pass over one reflection (`Reflection` JSON): `ProviderPass` JSON.
     */
    mindReflectionPass(reflection_json: string): string;
    /**
     * The segments of `continuity.mind` (JSON list of names).
     */
    mindSegments(): string;
    /**
     * Compiles the routing section of the config text (`undefined`: no config file).
     */
    constructor(config_file: string, config_text?: string | null);
    /**
     * Routes a message: `source` is `user` for the person's own words, else who wrote it;
     * `active_workflow` is the session's workflow in progress. JSON `RouteDecision`.
     */
    route(message: string, source: string, agent: string, active_workflow?: string | null): string;
    /**
     * How many bytes of a message the router reads (`routing.scanLimitBytes`): the shim
     * cuts longer messages before they cross the boundary.
     */
    scanLimitBytes(): number;
    /**
     * Problems of the `status` section of the config (`[]` when valid or absent), each
     * `{code, path, problem, fix}` (for `nso check` and the plugin's load). The machines
     * compiled here serve the later status checks.
     */
    statusProblems(): string;
    /**
     * The T0 transcripts of `opencode export` JSON (one session or a list).
     */
    t0FromExport(text: string, root?: string | null): string;
    /**
     * The T0 transcripts of a raw lane (JSONL); `root` makes paths project-relative.
     */
    t0FromLane(text: string, root?: string | null): string;
}

/**
 * The verdict on a finished delegation from its task folder (`{has_questions,
 * questions_text, has_result, result_text}`) and file facts (`{path: {exists, size}}`).
 */
export function checkDelegation(listing_json: string, facts_json: string, attempt: number): string;

/**
 * Checks a delegation chain (agents from the main session down, JSON list) before `task`
 * starts `target`: `undefined` when allowed, else the refusal as JSON.
 */
export function checkDelegationChain(chain_json: string, target: string, max_depth: number): string | undefined;

/**
 * The language routing table in a command file's frontmatter (JSON), if it has one.
 */
export function commandRouting(file: string, text: string): string | undefined;

/**
 * A task's language: state.json `language`, else the TODO.md entry's `**Language**`, else
 * `general` (JSON, with where it came from).
 */
export function detectLanguage(state_json: string | null | undefined, todo_md: string | null | undefined, task: string): string;

/**
 * Whether a subagent's output carries a ProofChecker-style JSON return (an object with
 * `status`, in a code fence or at the end).
 */
export function hasJsonReturn(text: string): boolean;

/**
 * Artifact paths of the JSON return in a subagent's output (the shim reports on each).
 */
export function jsonReturnPaths(text: string): string[];

/**
 * The verdict on a delegation (before it starts, or after it returned when `output` is
 * given): `{allowed, rule, message, state, writes}`.
 */
export function kordDelegation(input_json: string): string;

/**
 * The files to read before a delegation: `{plan, story}` (names; `null`: none).
 */
export function kordFiles(state: string | null | undefined, prompt: string): string;

/**
 * The plan file a story belongs to (`undefined`: none), so the shell can read it for
 * `checkStatusEdit`.
 */
export function kordPlanOfStory(file: string): string | undefined;

/**
 * What a new session is told about a plan in progress (empty: nothing).
 */
export function kordResumeText(state: string): string;

/**
 * Mind by segment (`Overview` JSON) from a corpus (`Corpus` JSON), at most `limit`
 * reflections and open questions per segment.
 */
export function mindOverview(corpus_json: string, limit: number): string;

/**
 * A new task id `<workflow>_<yyyymmdd>_<slug>_<6 random chars>`; the shim supplies the
 * date and the random part. Throws with `code` on a bad workflow, date or random part.
 */
export function newTaskId(workflow: string, date_yyyymmdd: string, title: string, random6: string): string;

/**
 * Parses a task file (`contract`, `status`, `result`, `questions`) into data (JSON).
 */
export function parseTaskFile(kind: string, text: string): string;

/**
 * Plans archiving of completed and abandoned tasks (`ArchiveInputs` as JSON).
 */
export function planArchive(inputs_json: string, config_file: string, config_text?: string | null): string;

/**
 * Plans a new task (`NewTaskInputs` as JSON): number, TODO.md entry, state.json object.
 */
export function planNewTask(inputs_json: string, config_file: string, config_text?: string | null): string;

/**
 * Plans a status move of one task in TODO.md and state.json (and the project's
 * state.json): inputs as JSON (`SyncInputs`), the plan as JSON (`{files, moves,
 * task_number, summary, notes}`). Throws with `code`, `file`, `line` when refused.
 */
export function planStatusSync(inputs_json: string, config_file: string, config_text?: string | null): string;

/**
 * Renders a task file (`contract`, `status`, `result`, `questions`) from its data (JSON,
 * every field given) through `template` (`undefined`: the shipped template).
 */
export function renderTaskFile(kind: string, data_json: string, template?: string | null): string;

/**
 * Paths a result.md names as deliverables (the shim reports whether each exists).
 */
export function resultPaths(result_text: string): string[];

/**
 * The agent for a command and a language, from the routing tables (JSON list).
 */
export function routeLanguage(tables_json: string, command: string, language: string): string;

export function start(): void;

/**
 * Every disagreement between TODO.md and state.json (and a project's state.json): status,
 * artifacts, numbers, tasks missing from one side, each with file and line (JSON list).
 */
export function statusCheck(todo_md: string, state_json: string, project_state_json?: string | null): string;

/**
 * Validates the JSON return: structure, and every artifact exists and is non-empty.
 */
export function validateJsonReturn(text: string, facts_json: string, session_id?: string | null): string;

/**
 * Checks a task id; throws with `code` and the reason when it is malformed.
 */
export function validateTaskId(id: string): void;
