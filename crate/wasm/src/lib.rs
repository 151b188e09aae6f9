//! The one wasm boundary: every `#[wasm_bindgen]` item lives here. Each export parses its
//! input, calls the core and converts the output; no decisions are made in this file.
#![cfg(target_family = "wasm")]

mod common;

use crate::common::{config_error, js_error, json};
use nso_conductor as conductor;
use nso_decision::authority;
use nso_workflow::{config, session};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// One serializer configuration for every structure that crosses the boundary: maps become
/// plain objects so the shim can read fields directly.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| js_error("internal", &e.to_string()))
}

/// The version of the core.
#[wasm_bindgen(js_name = version)]
pub fn version() -> String {
    nso_workflow::VERSION.to_string()
}

/// Panics on purpose, so tests can check that the shim survives a trap. Not for other use.
#[wasm_bindgen(js_name = trapForTest)]
pub fn trap_for_test() {
    panic!("trap requested by a test");
}

/// A loaded configuration and its compiled policy, for one project.
#[wasm_bindgen]
pub struct Nso {
    config: config::Config,
    engine: authority::Engine,
    /// Where relative paths start and the project root, for calls that do not name theirs
    /// (see [`Nso::set_directories`]).
    directory: String,
    worktree: String,
}

#[wasm_bindgen]
extern "C" {
    /// The host's answers about the file system (`authority::Facts`): `realPath(abs)` gives
    /// `[real path, exists]`; `read(abs, maxBytes)` gives the file's text, `undefined` when
    /// there is no such file, or its size (a number) when it is larger than `maxBytes`. A
    /// throw is a fact that could not be found out: the call is refused.
    pub type HostFacts;
    #[wasm_bindgen(method, catch, js_name = realPath)]
    fn real_path(this: &HostFacts, abs: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn read(this: &HostFacts, abs: &str, max_bytes: f64) -> Result<JsValue, JsValue>;
}

fn policy_error(file: &str, errors: &authority::ConfigErrors) -> JsValue {
    let Some(first) = errors.first() else {
        return js_error("internal", "policy error without detail");
    };
    let more = match errors.0.len() {
        1 => String::new(),
        n => format!(" ({} more problems: run `nso check` to list them)", n - 1),
    };
    let problem = format!("{file}: {}: {}{more}", first.path, first.message);
    let error = js_error(
        &format!("config_{}", first.code),
        &format!("{problem}. Fix: {}", first.hint),
    );
    for (key, value) in [
        ("file", file),
        ("path", &first.path),
        ("fix", &first.hint),
        ("problem", &problem),
    ] {
        let _ = js_sys::Reflect::set(&error, &key.into(), &value.into());
    }
    error
}

#[wasm_bindgen]
impl Nso {
    /// The names whose status moves `agent` may make (its own, then those it is `like`), as
    /// the status sync's role gate needs them; `[]` for an unknown agent.
    #[wasm_bindgen(js_name = movesAs)]
    pub fn moves_as(&self, agent: &str) -> Vec<String> {
        self.engine.policy().moves_as(agent)
    }

    /// Parses the config text of `config_file` (`undefined` when the file does not exist)
    /// and compiles the policy. Throws an Error with `code`, `file`, `path`, `problem` and
    /// `fix`.
    #[wasm_bindgen(constructor)]
    pub fn new(config_file: &str, config_text: Option<String>) -> Result<Nso, JsValue> {
        let config =
            config::parse(config_file, config_text.as_deref()).map_err(|e| config_error(&e))?;
        let engine = nso_workflow::config::project_engine(&config, config_file)
            .map_err(|e| policy_error(config_file, &e))?;
        Ok(Nso {
            config,
            engine,
            directory: String::new(),
            worktree: String::new(),
        })
    }

    /// The effective configuration (defaults filled in) as a plain object.
    #[wasm_bindgen(js_name = config)]
    pub fn config(&self) -> Result<JsValue, JsValue> {
        to_js(&self.config)
    }

    /// The session summary of memory files `[{path, content|null}]`: `{text, loaded,
    /// missing, truncated}`.
    #[wasm_bindgen(js_name = sessionSummary)]
    pub fn session_summary(&self, files: JsValue) -> Result<JsValue, JsValue> {
        let files: Vec<session::MemoryFile> = serde_wasm_bindgen::from_value(files)
            .map_err(|e| js_error("bad_input", &format!("memory files: {e}")))?;
        to_js(&session::build_summary(&files, &self.config.memory))
    }

    /// Text of the init marker for a session.
    #[wasm_bindgen(js_name = markerText)]
    pub fn marker_text(
        &self,
        session_id: &str,
        now_iso: &str,
        summary: JsValue,
    ) -> Result<String, JsValue> {
        let summary: SummaryIn = serde_wasm_bindgen::from_value(summary)
            .map_err(|e| js_error("bad_input", &format!("summary: {e}")))?;
        let summary = session::Summary {
            text: String::new(),
            loaded: summary.loaded,
            missing: summary.missing,
            truncated: false,
        };
        Ok(session::marker_text(session_id, now_iso, &summary))
    }

    /// One line for the plugin-alive log.
    #[wasm_bindgen(js_name = aliveLine)]
    pub fn alive_line(&self, session_id: &str, now_iso: &str) -> String {
        session::alive_line(session_id, now_iso)
    }

    /// Sets the agents the project has (`undefined`: not known, every agent of the policy
    /// counts): refusals name agents as the project does and suggest only these.
    #[wasm_bindgen(js_name = setProjectAgents)]
    pub fn set_project_agents(&mut self, agents: Option<Vec<String>>) {
        self.engine.set_project_agents(agents);
    }

    /// NSO's tools for this project (`toolbox::toolbox`): `facts` `{statusFiles,
    /// commandFiles}`, `agents` the host's agents `[{name, mode?}]`. Returns `{tools, hidden:
    /// {agent: [tool]}}`.
    #[wasm_bindgen(js_name = toolbox)]
    pub fn toolbox(&self, facts: JsValue, agents: JsValue) -> Result<JsValue, JsValue> {
        let facts: nso_workflow::toolbox::ProjectFacts = serde_wasm_bindgen::from_value(facts)
            .map_err(|e| js_error("bad_input", &e.to_string()))?;
        let agents: Vec<nso_workflow::toolbox::HostAgent> = serde_wasm_bindgen::from_value(agents)
            .map_err(|e| js_error("bad_input", &e.to_string()))?;
        let policy = Some(self.engine.policy());
        to_js(&nso_workflow::toolbox::toolbox(
            &self.config,
            policy,
            &facts,
            &agents,
        ))
    }

    /// Sets the `directory` and `worktree` of calls that do not name theirs.
    #[wasm_bindgen(js_name = setDirectories)]
    pub fn set_directories(&mut self, directory: String, worktree: String) {
        self.directory = directory;
        self.worktree = worktree;
    }

    /// Decides one tool call (`authority::Engine::decide_call`): `args` is the tool's
    /// arguments as the host holds them (a text too large to check never crosses whole),
    /// `facts` answers what the decision needs to know of the file system, `options`
    /// (optional) `{via, directory, worktree, origin, delegatedBy}` (`delegatedBy`: the agent
    /// that started this subagent, `""` when unknown; absent for a primary agent). Returns `undefined` for a plain allow that
    /// changes no file, else the brief (`authority::Brief`): `{verdict, ruleId, message?,
    /// notices?, log?, targets?, audit?}`.
    #[wasm_bindgen(js_name = decideCall)]
    pub fn decide_call(
        &mut self,
        session_id: &str,
        agent: Option<String>,
        tool: &str,
        args: &JsValue,
        facts: &HostFacts,
        options: Option<js_sys::Object>,
    ) -> Result<JsValue, JsValue> {
        let call = self.call(session_id, agent, tool, args, options.as_ref())?;
        let (name, agent) = (call.log_name(), call.agent.clone());
        let bytes = self.config.limits.content_bytes;
        let answer = self.engine.decide_call(call, bytes, &mut JsFacts(facts));
        match answer.brief(&name, agent.as_deref()) {
            None => Ok(JsValue::UNDEFINED),
            Some(brief) => to_js(&brief),
        }
    }

    /// How a call is decided, for `nso explain`: `{decision, text}`, the decision as
    /// `authority::Decision` (repeats not counted) and a human-readable account, with the
    /// facts looked up as for [`Nso::decide_call`].
    #[wasm_bindgen(js_name = explainCall)]
    pub fn explain_call(
        &mut self,
        session_id: &str,
        agent: Option<String>,
        tool: &str,
        args: &JsValue,
        facts: &HostFacts,
        options: Option<js_sys::Object>,
    ) -> Result<JsValue, JsValue> {
        let call = self.call(session_id, agent, tool, args, options.as_ref())?;
        let bytes = self.config.limits.content_bytes;
        let explained = self.engine.explain_call(call, bytes, &mut JsFacts(facts));
        to_js(&serde_json::json!({ "decision": explained.decision, "text": explained.text }))
    }

    /// Sets the function that checks status changes: it takes a `StatusQuery` as JSON
    /// (`{file, old, new, agents}`) and returns a `StatusAnswer` as JSON (`{allowed,
    /// machine, builtin, detail}`). The shim passes the workflow package's
    /// `Workflow.checkStatusEdit`, so the machines load only when a governed file is edited.
    /// Without it, such edits are refused.
    #[wasm_bindgen(js_name = setStatusChecker)]
    pub fn set_status_checker(&mut self, checker: js_sys::Function) {
        self.engine
            .set_status_oracle(std::rc::Rc::new(JsStatusChecker(checker)));
    }

    /// Forgets a session's repeat counters.
    #[wasm_bindgen(js_name = forgetSession)]
    pub fn forget_session(&mut self, session_id: &str) {
        self.engine.forget_session(session_id);
    }
}

impl Nso {
    /// A call in the engine's form: `args` read from the host's value with the core's bounds,
    /// so a huge text is never copied whole.
    fn call(
        &self,
        session_id: &str,
        agent: Option<String>,
        tool: &str,
        args: &JsValue,
        options: Option<&js_sys::Object>,
    ) -> Result<authority::Call, JsValue> {
        let text = |key: &str| -> Option<String> {
            options.and_then(|o| js_sys::Reflect::get(o, &key.into()).ok()?.as_string())
        };
        Ok(authority::Call {
            session_id: session_id.to_string(),
            agent,
            delegated_by: text("delegatedBy"),
            tool: tool.to_string(),
            args: args_from_js(tool, args, self.config.limits.content_bytes)?,
            via: text("via"),
            directory: text("directory").unwrap_or_else(|| self.directory.clone()),
            worktree: text("worktree").unwrap_or_else(|| self.worktree.clone()),
            origin: text("origin"),
        })
    }
}

/// A call's arguments as the engine reads them: each top-level string the core bounds
/// (`authority::limit_of`) is measured before it is copied, and one over its bound is cut
/// (the bash command) or replaced by the oversized marker (a text) without crossing whole;
/// the rest crosses as JSON. JS strings are measured in UTF-16 units: a text of `n` units has
/// at least `n` bytes, so one of more units than its bound is over it.
fn args_from_js(
    tool: &str,
    args: &JsValue,
    content_bytes: u64,
) -> Result<serde_json::Value, JsValue> {
    use authority::Limit;
    let whole = |value: &JsValue| -> Result<serde_json::Value, JsValue> {
        if value.is_undefined() {
            return Ok(serde_json::Value::Null);
        }
        let text = js_sys::JSON::stringify(value)
            .map_err(|e| js_error("bad_input", &format!("tool arguments: {}", thrown(e))))?;
        serde_json::from_str(&String::from(text))
            .map_err(|e| js_error("bad_input", &format!("tool arguments: {e}")))
    };
    let Some(object) = args
        .dyn_ref::<js_sys::Object>()
        .filter(|_| !js_sys::Array::is_array(args))
    else {
        return whole(args);
    };
    let mut out = serde_json::Map::new();
    for key in js_sys::Object::keys(object).iter() {
        let Some(name) = key.as_string() else {
            continue;
        };
        let value = js_sys::Reflect::get(object, &key)?;
        let limit = authority::limit_of(tool, &name, content_bytes);
        let converted = match (value.dyn_ref::<js_sys::JsString>(), limit) {
            (Some(s), Some(Limit::Prefix(bytes))) if s.length() as usize > bytes + 1 => {
                serde_json::Value::String(String::from(s.slice(0, bytes as u32 + 2)))
            }
            (Some(s), Some(Limit::Whole(max))) if u64::from(s.length()) > max => {
                authority::oversized_marker(u64::from(s.length()))
            }
            (Some(s), _) => serde_json::Value::String(String::from(s)),
            (None, _) if value.is_undefined() => continue,
            (None, _) => whole(&value)?,
        };
        out.insert(name, converted);
    }
    Ok(authority::bound_args(
        tool,
        serde_json::Value::Object(out),
        content_bytes,
    ))
}

/// The host's [`HostFacts`] as the engine asks them.
struct JsFacts<'a>(&'a HostFacts);

/// What a JS throw says.
fn thrown(e: JsValue) -> String {
    js_sys::Reflect::get(&e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the host's lookup failed".to_string())
}

impl authority::Facts for JsFacts<'_> {
    fn real_path(&mut self, abs: &str) -> Result<(String, bool), String> {
        let answer = self.0.real_path(abs).map_err(thrown)?;
        let pair = answer.dyn_ref::<js_sys::Array>();
        match pair.map(|p| (p.get(0).as_string(), p.get(1).as_bool())) {
            Some((Some(real), Some(exists))) => Ok((real, exists)),
            _ => Err("the host did not answer [real path, exists]".to_string()),
        }
    }

    fn read(&mut self, abs: &str, max_bytes: u64) -> Result<authority::FileText, String> {
        let answer = self.0.read(abs, max_bytes as f64).map_err(thrown)?;
        if answer.is_undefined() || answer.is_null() {
            Ok(authority::FileText::Missing)
        } else if let Some(text) = answer.as_string() {
            Ok(authority::FileText::Text(text))
        } else if let Some(size) = answer.as_f64() {
            Ok(authority::FileText::TooLarge(size as u64))
        } else {
            Err("the host did not answer a text, a size or undefined".to_string())
        }
    }
}

/// A status checker implemented in JS (see [`Nso::set_status_checker`]). Any failure is a
/// refusal: the status change could not be checked.
#[derive(Debug)]
struct JsStatusChecker(js_sys::Function);

impl authority::StatusOracle for JsStatusChecker {
    fn check(&self, query: &authority::StatusQuery) -> authority::StatusAnswer {
        let refused = |why: String| {
            authority::StatusAnswer {
            allowed: false,
            machine: None,
            builtin: true,
            detail: format!("NSO could not check the status change of {} ({why}), so it refuses it (fail closed)", query.file),
        }
        };
        let Ok(input) = serde_json::to_string(query) else {
            return refused("the query could not be encoded".to_string());
        };
        let reply = match self.0.call1(&JsValue::NULL, &JsValue::from_str(&input)) {
            Ok(v) => v,
            Err(e) => {
                let msg = js_sys::Reflect::get(&e, &"message".into())
                    .ok()
                    .and_then(|m| m.as_string())
                    .unwrap_or_else(|| "the status checker threw".to_string());
                return refused(msg);
            }
        };
        match reply.as_string().map(|t| serde_json::from_str(&t)) {
            Some(Ok(answer)) => answer,
            _ => refused("the status checker gave no answer".to_string()),
        }
    }
}

/// NSO's tools: `[{name, description, needs, writes}]` (`toolbox::TOOLBOX`).
#[wasm_bindgen(js_name = toolTable)]
pub fn tool_table() -> Result<JsValue, JsValue> {
    to_js(&nso_workflow::toolbox::TOOLBOX)
}

/// Whether `tool` only reads (every other tool is write-class: refused while NSO cannot
/// enforce its rules, and claimed by the Conductor when it runs).
/// What agents read while NSO cannot enforce its rules (`problem`: why; `fix`: what to do).
#[wasm_bindgen(js_name = notEnforcingText)]
pub fn not_enforcing_text(problem: &str, fix: &str) -> String {
    authority::not_enforcing(problem, fix)
}

#[wasm_bindgen(js_name = isReadTool)]
pub fn is_read_tool(tool: &str) -> bool {
    authority::is_read_tool(tool)
}

/// The marker that stands for a text too large to check (`bytes`: its size), for a host that
/// knows a text's size without holding it (a blob the git guard did not read).
#[wasm_bindgen(js_name = oversizedMarker)]
pub fn oversized_marker(bytes: f64) -> Result<JsValue, JsValue> {
    to_js(&authority::oversized_marker(bytes as u64))
}

/// How the engine classifies a tool call (`{ops, unclassified, ...}`), for tests and tools.
#[wasm_bindgen(js_name = classify)]
pub fn classify(tool: &str, args_json: &str) -> Result<String, JsValue> {
    let args: serde_json::Value = serde_json::from_str(args_json)
        .map_err(|e| js_error("bad_input", &format!("tool arguments: {e}")))?;
    let class = authority::classify(tool, &args);
    json(&serde_json::json!({
        "kind": format!("{:?}", class.kind).to_lowercase(),
        "unclassified": class.unclassified,
        "operations": class.ops.len(),
    }))
}

/// Every problem in a configuration text, every section at once, as JSON
/// `[{code, path, problem, fix}]` (empty when it is valid). The constructor reports only the first.
#[wasm_bindgen(js_name = checkConfig)]
pub fn check_config(config_file: &str, config_text: &str) -> Result<String, JsValue> {
    json(&config::problems::every_problem(config_file, config_text))
}

/// The JSON Schema of the `authority` section.
#[wasm_bindgen(js_name = policySchema)]
pub fn policy_schema() -> String {
    authority::POLICY_SCHEMA.to_string()
}

/// Runs one Conductor operation: the request as JSON (state text, sprint text, now, random,
/// host, alive, ttlSeconds, op) in, the response as JSON (state, result, history, conflicts,
/// error) out; see docs/conductor-contract.md. Never throws: a bad request or a corrupt state
/// is an error response.
#[wasm_bindgen(js_name = conductorApply)]
pub fn conductor_apply(request_json: &str) -> String {
    conductor::apply(request_json)
}

/// Whether any of the claim patterns (a JSON list of strings) covers `path`.
#[wasm_bindgen(js_name = conductorCovers)]
pub fn conductor_covers(patterns_json: &str, path: &str) -> Result<bool, JsValue> {
    let patterns: Vec<String> = serde_json::from_str(patterns_json)
        .map_err(|e| js_error("bad_input", &format!("claim patterns: {e}")))?;
    Ok(conductor::covers(&patterns, path))
}

/// For a store keeping claims as rows: each pattern's literal head and where the claims that
/// may meet it are (see [`conductor::claim_lookups`]).
#[wasm_bindgen(js_name = conductorLookups)]
pub fn conductor_lookups(patterns_json: &str) -> Result<String, JsValue> {
    conductor::claim_lookups(patterns_json).map_err(|e| js_error("bad_input", &e))
}

/// Whether some path matches both claim patterns.
#[wasm_bindgen(js_name = conductorIntersects)]
pub fn conductor_intersects(a: &str, b: &str) -> bool {
    conductor::intersects(a, b)
}

#[derive(serde::Deserialize)]
struct SummaryIn {
    loaded: Vec<String>,
    missing: Vec<String>,
}

/// A Claude Code tool call (`tool_name`, `tool_input` as JSON) in the engine's form, as JSON
/// `{tool, args, subagentType}` (see [`nso_decision::hosts::claude_code`]). Never throws: input that
/// is not JSON is taken as no input.
#[wasm_bindgen(js_name = claudeToolCall)]
pub fn claude_tool_call(name: &str, input_json: &str) -> String {
    let input: serde_json::Value = serde_json::from_str(input_json).unwrap_or_default();
    let call = nso_decision::hosts::claude_code::tool_call(name, &input);
    let subagent = nso_decision::hosts::claude_code::subagent_type(name, &input);
    serde_json::json!({ "tool": call.tool, "args": call.args, "subagentType": subagent })
        .to_string()
}
