//! The boundary of the second wasm package (`pkg/nso_workflow*`): routing, task contracts,
//! delegation checks, status machines, continuity, Mind and Kord. The shim loads it lazily,
//! the first time it needs one of them, so the plugin's cold start does not pay for it. Each
//! export parses its input, calls the core and converts the output; no decisions here.
#![cfg(target_family = "wasm")]

/// Shared with the main package's boundary: the start hook and the error and result conversions.
#[path = "../../wasm/src/common.rs"]
mod common;
/// Continuity exports (ledger, T0 transcripts, handoffs).
mod continuity;
/// Kord exports (squads, plans, the orchestrator's rules).
mod kord;
/// Mind exports (distilling lanes, Insight).
mod mind;

use crate::common::{config_error, js_error, json};
use nso_workflow::contracts::{contract, delegation};
use nso_workflow::routing::{language, router};
use nso_workflow::{config, status};
use wasm_bindgen::prelude::*;

fn from_json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, JsValue> {
    serde_json::from_str(text).map_err(|e| js_error("bad_input", &format!("{what}: {e}")))
}

/// The router of one project, compiled from `routing` in `.opencode/nso.json`.
#[wasm_bindgen]
pub struct Workflow {
    router: router::Router,
    pub(crate) config_file: String,
    pub(crate) config_text: Option<String>,
    /// The status machines, compiled on the first status check.
    status: std::cell::OnceCell<Result<status::StatusConfig, status::StatusConfigError>>,
}

#[wasm_bindgen]
impl Workflow {
    /// Compiles the routing section of the config text (`undefined`: no config file).
    #[wasm_bindgen(constructor)]
    pub fn new(config_file: &str, config_text: Option<String>) -> Result<Workflow, JsValue> {
        let config =
            config::parse(config_file, config_text.as_deref()).map_err(|e| config_error(&e))?;
        Ok(Workflow {
            router: router::Router::new(config.routing),
            config_file: config_file.to_string(),
            config_text,
            status: std::cell::OnceCell::new(),
        })
    }

    /// The verdict of the status machines on one change: `StatusQuery` JSON in
    /// (`{file, old, new, agents}`), `StatusAnswer` JSON out. An invalid `status` section
    /// refuses every change of a governed file, naming the problem and the fix.
    /// `kord_json` (optional) holds what the shell read for Kord's checks (the project's
    /// squads and a story's plan): a plan breaking the rules is refused, a story outside a
    /// story-driven plan passes with its gates dormant.
    #[wasm_bindgen(js_name = checkStatusEdit)]
    pub fn check_status_edit(
        &self,
        query_json: &str,
        kord_json: Option<String>,
    ) -> Result<String, JsValue> {
        let query: nso_decision::authority::StatusQuery = from_json("status query", query_json)?;
        if let Some(text) = kord_json {
            let ctx: nso_workflow::kord::gates::EditContext = from_json("kord context", &text)?;
            match nso_workflow::kord::gates::check_edit(&query.file, &query.new, &ctx) {
                nso_workflow::kord::gates::EditVerdict::Continue => {}
                nso_workflow::kord::gates::EditVerdict::Refuse(detail) => {
                    return json(&nso_decision::authority::StatusAnswer {
                        allowed: false,
                        machine: Some("kord-plan".into()),
                        builtin: true,
                        detail,
                    })
                }
                nso_workflow::kord::gates::EditVerdict::Dormant(detail) => {
                    return json(&nso_decision::authority::StatusAnswer {
                        allowed: true,
                        machine: Some("kord-story".into()),
                        builtin: true,
                        detail: format!("; {detail}"),
                    })
                }
            }
        }
        let answer = match self.status() {
            Ok(config) => status::oracle::answer(&query, config),
            Err(e) => nso_decision::authority::StatusAnswer {
                allowed: false,
                machine: None,
                builtin: false,
                detail: format!("the status machines cannot be checked because {e}"),
            },
        };
        json(&answer)
    }

    /// Problems of the `status` section of the config (`[]` when valid or absent), each
    /// `{code, path, problem, fix}` (for `nso check` and the plugin's load). The machines
    /// compiled here serve the later status checks.
    #[wasm_bindgen(js_name = statusProblems)]
    pub fn status_problems(&self) -> Result<String, JsValue> {
        match self.status() {
            Ok(_) => Ok("[]".to_string()),
            Err(e) => json(&[e]),
        }
    }

    /// The status machines of the config, compiled on first use.
    fn status(&self) -> &Result<status::StatusConfig, status::StatusConfigError> {
        self.status
            .get_or_init(|| status::parse_nso_json(&self.config_file, self.config_text.as_deref()))
    }

    /// How many bytes of a message the router reads (`routing.scanLimitBytes`): the shim
    /// cuts longer messages before they cross the boundary.
    #[wasm_bindgen(js_name = scanLimitBytes)]
    pub fn scan_limit_bytes(&self) -> usize {
        self.router.config().scan_limit_bytes
    }

    /// Routes a message: `source` is `user` for the person's own words, else who wrote it;
    /// `active_workflow` is the session's workflow in progress. JSON `RouteDecision`.
    #[wasm_bindgen(js_name = route)]
    pub fn route(
        &self,
        message: &str,
        source: &str,
        agent: &str,
        active_workflow: Option<String>,
    ) -> Result<String, JsValue> {
        json(&self.router.route(
            message,
            source,
            agent,
            &router::RouterState { active_workflow },
        ))
    }
}

/// Checks a delegation chain (agents from the main session down, JSON list) before `task`
/// starts `target`: `undefined` when allowed, else the refusal as JSON.
#[wasm_bindgen(js_name = checkDelegationChain)]
pub fn check_delegation_chain(
    chain_json: &str,
    target: &str,
    max_depth: usize,
) -> Result<Option<String>, JsValue> {
    let chain: Vec<String> = from_json("delegation chain", chain_json)?;
    match delegation::check_delegation_chain(&chain, target, max_depth) {
        Ok(()) => Ok(None),
        Err(refusal) => json(&refusal).map(Some),
    }
}

/// Paths a result.md names as deliverables (the shim reports whether each exists).
#[wasm_bindgen(js_name = resultPaths)]
pub fn result_paths(result_text: &str) -> Result<Vec<String>, JsValue> {
    delegation::required_paths(result_text).map_err(|e| js_error(e.code, &e.to_string()))
}

/// The verdict on a finished delegation from its task folder (`{has_questions,
/// questions_text, has_result, result_text}`) and file facts (`{path: {exists, size}}`).
#[wasm_bindgen(js_name = checkDelegation)]
pub fn check_delegation(
    listing_json: &str,
    facts_json: &str,
    attempt: u32,
) -> Result<String, JsValue> {
    let listing: delegation::TaskDirListing = from_json("task folder listing", listing_json)?;
    let facts: delegation::FileFacts = from_json("file facts", facts_json)?;
    json(&delegation::check_delegation(&listing, &facts, attempt))
}

/// Parses a task file (`contract`, `status`, `result`, `questions`) into data (JSON).
#[wasm_bindgen(js_name = parseTaskFile)]
pub fn parse_task_file(kind: &str, text: &str) -> Result<String, JsValue> {
    let value = match kind {
        "contract" => contract::parse_contract(text).map(|v| serde_json::to_value(v)),
        "status" => contract::parse_status(text).map(|v| serde_json::to_value(v)),
        "result" => contract::parse_result(text).map(|v| serde_json::to_value(v)),
        "questions" => contract::parse_questions(text).map(|v| serde_json::to_value(v)),
        other => {
            return Err(js_error(
                "bad_input",
                &format!("unknown task file `{other}`"),
            ))
        }
    };
    match value {
        Ok(v) => json(&v.map_err(|e| js_error("internal", &e.to_string()))?),
        Err(e) => Err(js_error(e.code, &e.to_string())),
    }
}

/// Whether a subagent's output carries a ProofChecker-style JSON return (an object with
/// `status`, in a code fence or at the end).
#[wasm_bindgen(js_name = hasJsonReturn)]
pub fn has_json_return(text: &str) -> bool {
    delegation::find_json_object(text).is_some()
}

/// Artifact paths of the JSON return in a subagent's output (the shim reports on each).
#[wasm_bindgen(js_name = jsonReturnPaths)]
pub fn json_return_paths(text: &str) -> Vec<String> {
    delegation::json_return_paths(text)
}

/// Validates the JSON return: structure, and every artifact exists and is non-empty.
#[wasm_bindgen(js_name = validateJsonReturn)]
pub fn validate_json_return(
    text: &str,
    facts_json: &str,
    session_id: Option<String>,
) -> Result<String, JsValue> {
    let facts: delegation::FileFacts = from_json("file facts", facts_json)?;
    json(&delegation::validate_json_return(
        text,
        &facts,
        session_id.as_deref(),
    ))
}

/// The language routing table in a command file's frontmatter (JSON), if it has one.
#[wasm_bindgen(js_name = commandRouting)]
pub fn command_routing(file: &str, text: &str) -> Result<Option<String>, JsValue> {
    match language::parse_command_routing(file, text) {
        Ok(Some(table)) => json(&table).map(Some),
        Ok(None) => Ok(None),
        Err(e) => Err(js_error(e.code, &e.to_string())),
    }
}

/// A task's language: state.json `language`, else the TODO.md entry's `**Language**`, else
/// `general` (JSON, with where it came from).
#[wasm_bindgen(js_name = detectLanguage)]
pub fn detect_language(
    state_json: Option<String>,
    todo_md: Option<String>,
    task: &str,
) -> Result<String, JsValue> {
    json(&language::detect_language(
        state_json.as_deref(),
        todo_md.as_deref(),
        task,
    ))
}

/// The agent for a command and a language, from the routing tables (JSON list).
#[wasm_bindgen(js_name = routeLanguage)]
pub fn route_language(tables_json: &str, command: &str, language: &str) -> Result<String, JsValue> {
    let tables: Vec<language::RoutingTable> = from_json("routing tables", tables_json)?;
    json(&language::route_language(&tables, command, language))
}

/// Every disagreement between TODO.md and state.json (and a project's state.json): status,
/// artifacts, numbers, tasks missing from one side, each with file and line (JSON list).
#[wasm_bindgen(js_name = statusCheck)]
pub fn status_check(
    todo_md: &str,
    state_json: &str,
    project_state_json: Option<String>,
) -> Result<String, JsValue> {
    json(&status::check::check_consistency(
        todo_md,
        state_json,
        project_state_json.as_deref(),
    ))
}

/// The status machines of `.opencode/nso.json` (`undefined`: no file, the defaults).
fn status_config(
    config_file: &str,
    config_text: Option<String>,
) -> Result<status::StatusConfig, JsValue> {
    status::parse_nso_json(config_file, config_text.as_deref()).map_err(|e| {
        let error = js_error(e.code, &format!("{}: {}: {}", e.file, e.path, e.problem));
        let _ = js_sys::Reflect::set(&error, &"fix".into(), &e.fix.as_str().into());
        let _ = js_sys::Reflect::set(&error, &"file".into(), &e.file.as_str().into());
        error
    })
}

/// A sync planning error as a JS Error with `code`, `file`, `line` and the message.
fn sync_error(e: status::SyncError) -> JsValue {
    let error = js_error(e.code.as_str(), &e.to_string());
    let _ = js_sys::Reflect::set(&error, &"file".into(), &e.file.as_str().into());
    if let Some(line) = e.line {
        let _ = js_sys::Reflect::set(&error, &"line".into(), &(line as f64).into());
    }
    error
}

/// Parses a planner's inputs and the project's machines, runs the planner, converts the plan.
fn plan<I: serde::de::DeserializeOwned>(
    what: &str,
    inputs_json: &str,
    config_file: &str,
    config_text: Option<String>,
    planner: fn(&I, &status::StatusConfig) -> Result<status::SyncPlan, status::SyncError>,
) -> Result<String, JsValue> {
    let inputs: I = from_json(what, inputs_json)?;
    let config = status_config(config_file, config_text)?;
    json(&planner(&inputs, &config).map_err(sync_error)?)
}

/// Plans a status move of one task in TODO.md and state.json (and the project's
/// state.json): inputs as JSON (`SyncInputs`), the plan as JSON (`{files, moves,
/// task_number, summary, notes}`). Throws with `code`, `file`, `line` when refused.
#[wasm_bindgen(js_name = planStatusSync)]
pub fn plan_status_sync(
    inputs_json: &str,
    config_file: &str,
    config_text: Option<String>,
) -> Result<String, JsValue> {
    plan(
        "status sync inputs",
        inputs_json,
        config_file,
        config_text,
        status::plan_status_sync,
    )
}

/// Plans a new task (`NewTaskInputs` as JSON): number, TODO.md entry, state.json object.
#[wasm_bindgen(js_name = planNewTask)]
pub fn plan_new_task(
    inputs_json: &str,
    config_file: &str,
    config_text: Option<String>,
) -> Result<String, JsValue> {
    plan(
        "new task inputs",
        inputs_json,
        config_file,
        config_text,
        status::plan_new_task,
    )
}

/// Plans archiving of completed and abandoned tasks (`ArchiveInputs` as JSON).
#[wasm_bindgen(js_name = planArchive)]
pub fn plan_archive(
    inputs_json: &str,
    config_file: &str,
    config_text: Option<String>,
) -> Result<String, JsValue> {
    plan(
        "archive inputs",
        inputs_json,
        config_file,
        config_text,
        status::plan_archive,
    )
}

/// Renders a task file (`contract`, `status`, `result`, `questions`) from its data (JSON,
/// every field given) through `template` (`undefined`: the shipped template).
#[wasm_bindgen(js_name = renderTaskFile)]
pub fn render_task_file(
    kind: &str,
    data_json: &str,
    template: Option<String>,
) -> Result<String, JsValue> {
    let t = template.as_deref();
    let rendered = match kind {
        "contract" => contract::render_contract(&from_json(kind, data_json)?, t),
        "status" => contract::render_status(&from_json(kind, data_json)?, t),
        "result" => contract::render_result(&from_json(kind, data_json)?, t),
        "questions" => contract::render_questions(&from_json(kind, data_json)?, t),
        other => {
            return Err(js_error(
                "bad_input",
                &format!("unknown task file `{other}`"),
            ))
        }
    };
    rendered.map_err(|e| js_error("template", &e.to_string()))
}

/// A new task id `<workflow>_<yyyymmdd>_<slug>_<6 random chars>`; the shim supplies the
/// date and the random part. Throws with `code` on a bad workflow, date or random part.
#[wasm_bindgen(js_name = newTaskId)]
pub fn new_task_id(
    workflow: &str,
    date_yyyymmdd: &str,
    title: &str,
    random6: &str,
) -> Result<String, JsValue> {
    nso_workflow::contracts::task_id::task_id(workflow, date_yyyymmdd, title, random6)
        .map_err(|e| js_error(e.code, &e.to_string()))
}

/// Checks a task id; throws with `code` and the reason when it is malformed.
#[wasm_bindgen(js_name = validateTaskId)]
pub fn validate_task_id(id: &str) -> Result<(), JsValue> {
    nso_workflow::contracts::task_id::validate_task_id(id)
        .map(|_| ())
        .map_err(|e| js_error(e.code, &e.to_string()))
}
