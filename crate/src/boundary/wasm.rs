//! The one wasm boundary: every `#[wasm_bindgen]` item lives here. Each export parses its
//! input, calls the core and converts the output; no decisions are made in this file.

use super::common::{config_error, js_error, json};
use crate::{authority, conductor, config, session};
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
    crate::VERSION.to_string()
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
    /// The request of every [`Nso::decide_call`], kept between calls: its `directory` and
    /// `worktree` are fixed per project, so they cross once ([`Nso::set_directories`]), and a
    /// call refills its other strings (no allocation for what fits).
    call: authority::Request,
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
    /// The project files a tool call (request JSON as for `decide`) would change, as JSON
    /// `[[relative path, below]]`: what the Conductor claims before the call.
    #[wasm_bindgen(js_name = writeTargets)]
    pub fn write_targets(&self, request_json: &str) -> Result<String, JsValue> {
        let req: authority::Request = serde_json::from_str(request_json)
            .map_err(|e| js_error("bad_input", &format!("request: {e}")))?;
        json(&self.engine.write_targets(&req))
    }

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
        let engine = crate::continuity::project_engine(&config, config_file)
            .map_err(|e| policy_error(config_file, &e))?;
        Ok(Nso {
            config,
            engine,
            call: authority::Request::default(),
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

    /// Decides on a tool call given as JSON (`{sessionId, agent, tool, args, directory,
    /// worktree, resolved, contents, exists}`). Returns `undefined` for a plain allow (the
    /// hot path converts nothing); `{"need": {resolve, content, exists}}` as JSON when the
    /// shim must look things up and call again; else the decision as JSON.
    #[wasm_bindgen(js_name = decide)]
    pub fn decide(&mut self, request_json: &str) -> Result<Option<String>, JsValue> {
        self.decide_request(&parse_request(request_json)?)
    }

    /// Sets the `directory` and `worktree` of the calls decided by [`Nso::decide_call`].
    #[wasm_bindgen(js_name = setDirectories)]
    pub fn set_directories(&mut self, directory: String, worktree: String) {
        self.call.directory = directory;
        self.call.worktree = worktree;
    }

    /// [`Nso::decide`] on a call given in parts, so a plain allow crosses only its own
    /// arguments: the tool's arguments as JSON, and the lookups answered so far
    /// (`{resolved, contents, oversized, exists}` as JSON; `undefined` when there are none);
    /// the directories are those of [`Nso::set_directories`]. The answers of `decide`, but a
    /// decision comes as its brief (`{verdict, ruleId, message?, notices?, log?,
    /// unclassified?}`): what a hook acts on, without the operations; and a plain allow that
    /// lasts (the same call, in any session, is allowed until the policy changes: see
    /// `Engine::answer`) as `true`, so the shim may remember it for this instance (the same
    /// for what must be looked up: `lasting` in its answer).
    #[wasm_bindgen(js_name = decideCall)]
    pub fn decide_call(
        &mut self,
        session_id: &str,
        agent: Option<String>,
        tool: &str,
        args_json: &str,
        lookups_json: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let args = serde_json::from_str(args_json)
            .map_err(|e| js_error("bad_input", &format!("tool arguments: {e}")))?;
        // The lookups have the request's own field names: parsed as a request, its four maps
        // taken.
        let lookups = lookups_json.map(|text| parse_request(&text)).transpose()?;
        let mut request = std::mem::take(&mut self.call);
        request.args = args;
        refill(&mut request.session_id, session_id);
        request.agent = agent;
        refill(&mut request.tool, tool);
        if let Some(l) = lookups {
            (request.resolved, request.contents) = (l.resolved, l.contents);
            (request.oversized, request.exists) = (l.oversized, l.exists);
        }
        let answer = self.decide_brief(&request);
        // Kept for the next call without what was this call's own (empty maps allocate
        // nothing); the agent and the strings are replaced by the next call.
        request.args = serde_json::Value::Null;
        (request.resolved, request.contents) = Default::default();
        (request.oversized, request.exists) = Default::default();
        self.call = request;
        answer
    }

    /// What the shim must look up for this call before deciding (`{resolve, content,
    /// exists}` as JSON), without deciding or counting anything.
    #[wasm_bindgen(js_name = lookups)]
    pub fn lookups(&self, request_json: &str) -> Result<String, JsValue> {
        json(&self.engine.lookups(&parse_request(request_json)?))
    }

    /// The decision on a call without counting it (for `nso explain --json`), as JSON.
    #[wasm_bindgen(js_name = evaluate)]
    pub fn evaluate(&self, request_json: &str) -> Result<String, JsValue> {
        json(&self.engine.evaluate(&parse_request(request_json)?))
    }

    /// A human-readable account of how a call is decided (for `nso explain`).
    #[wasm_bindgen(js_name = explain)]
    pub fn explain(&self, request_json: &str) -> Result<String, JsValue> {
        Ok(self.engine.explain(&parse_request(request_json)?))
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

    /// Counts `times` more refusals, in `session`, of a call the shim remembers as refused:
    /// `key` is the `again` of its first brief (see `authority::Brief::again`). How many
    /// refusals of it the session has had, these included; the last one's message gets the
    /// repeat note of that count (see [`Nso::repeat_note_parts`]). The shim may count the
    /// repeats itself and tell them here in one call before it lets the core decide the call
    /// again (as when it forgets the refusal).
    #[wasm_bindgen(js_name = refusedAgain)]
    pub fn refused_again(&mut self, session_id: &str, key: f64, times: u32) -> u32 {
        // A key is an integer below 2^53 (exact as f64); anything else counts apart.
        self.engine.refused_again(session_id, key as u64, times)
    }

    /// The repeat note's words (`authority::REPEAT_NOTE_PARTS`, as JSON): before the number
    /// of earlier refusals, after it when it is one, after it otherwise. The note of the
    /// `n`th refusal (n of 2 or more) is `before + (n - 1) + (n === 2 ? one : many)`.
    #[wasm_bindgen(js_name = repeatNoteParts)]
    pub fn repeat_note_parts() -> String {
        serde_json::to_string(&authority::REPEAT_NOTE_PARTS).unwrap_or_default()
    }

    /// Forgets a session's repeat counters.
    #[wasm_bindgen(js_name = forgetSession)]
    pub fn forget_session(&mut self, session_id: &str) {
        self.engine.forget_session(session_id);
    }
}

impl Nso {
    /// `decide`'s answer: nothing for a plain allow, else the decision or the lookups.
    fn decide_request(&mut self, request: &authority::Request) -> Result<Option<String>, JsValue> {
        match self.engine.decide_unless_plain(request) {
            Ok(None) => Ok(None),
            Ok(Some(decision)) => json(&decision).map(Some),
            Err(need) => json(&Need {
                need: &need,
                lasting: false,
            })
            .map(Some),
        }
    }

    /// `decideCall`'s answer: as [`Nso::decide_request`], but a decision crosses as its
    /// [`authority::Brief`], the part a hook acts on, a lasting plain allow (see
    /// [`authority::Engine::answer`]) as `true`, and one that holds for any text of the
    /// call's shape ([`authority::Lasting::AnyText`]) as `2`.
    fn decide_brief(&mut self, request: &authority::Request) -> Result<JsValue, JsValue> {
        use authority::Lasting;
        let (answer, lasting) = self.engine.answer_lasting(request);
        let text = match answer {
            Ok(None) => {
                return Ok(match lasting {
                    Lasting::AnyText => JsValue::from_f64(2.0),
                    Lasting::Yes => JsValue::TRUE,
                    Lasting::No => JsValue::UNDEFINED,
                })
            }
            Ok(Some(decision)) => {
                let mut brief = decision.brief();
                if lasting != Lasting::No
                    && decision.verdict == authority::Verdict::Block
                    && decision.repeats == 0
                {
                    brief.again = Some(authority::repeat_key(request));
                }
                json(&brief)?
            }
            Err(need) => json(&Need {
                need: &need,
                lasting: lasting != Lasting::No,
            })?,
        };
        Ok(JsValue::from_str(&text))
    }
}

/// Sets `to` to `text`, in the room it has.
fn refill(to: &mut String, text: &str) {
    to.clear();
    to.push_str(text);
}

/// What the shim must look up before the core can decide: `{"need": {resolve, content,
/// exists}}`, with `"lasting": true` (from `decideCall` only) when the same call, with the
/// same lookups answered, needs the same in any session until the policy changes (see
/// `Engine::answer`), so the shim may remember it.
#[derive(Serialize)]
struct Need<'a> {
    need: &'a authority::Lookups,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    lasting: bool,
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

/// Every problem in a configuration text, as JSON `[{code, path, problem, fix}]` (empty when
/// it is valid). The constructor reports only the first.
#[wasm_bindgen(js_name = checkConfig)]
pub fn check_config(config_file: &str, config_text: &str) -> Result<String, JsValue> {
    let problems: Vec<serde_json::Value> = match config::parse(config_file, Some(config_text)) {
        Err(e) => vec![serde_json::json!({
            "code": e.code, "path": e.path, "problem": e.problem, "fix": e.fix,
        })],
        Ok(config) => {
            match authority::Policy::from_config_value(&config.authority, config_file, "authority")
            {
                Ok(_) => vec![],
                Err(errors) => errors
                    .0
                    .iter()
                    .map(|e| {
                        serde_json::json!({
                            "code": format!("config_{}", e.code), "path": e.path,
                            "problem": e.message, "fix": e.hint,
                        })
                    })
                    .collect(),
            }
        }
    };
    json(&problems)
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

fn parse_request(json: &str) -> Result<authority::Request, JsValue> {
    serde_json::from_str(json)
        .map_err(|e| js_error("bad_input", &format!("tool call request: {e}")))
}

/// A Claude Code tool call (`tool_name`, `tool_input` as JSON) in the engine's form, as JSON
/// `{tool, args, subagentType}` (see [`crate::hosts::claude_code`]). Never throws: input that
/// is not JSON is taken as no input.
#[wasm_bindgen(js_name = claudeToolCall)]
pub fn claude_tool_call(name: &str, input_json: &str) -> String {
    let input: serde_json::Value = serde_json::from_str(input_json).unwrap_or_default();
    let call = crate::hosts::claude_code::tool_call(name, &input);
    let subagent = crate::hosts::claude_code::subagent_type(name, &input);
    serde_json::json!({ "tool": call.tool, "args": call.args, "subagentType": subagent })
        .to_string()
}
