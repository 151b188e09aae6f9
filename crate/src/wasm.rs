//! The one wasm boundary: every `#[wasm_bindgen]` item lives here. Each export parses its
//! input, calls the core and converts the output; no decisions are made in this file.

use crate::{authority, config, session};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// One serializer configuration for every structure that crosses the boundary: maps become
/// plain objects so the shim can read fields directly.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| js_error("internal", &e.to_string()))
}

/// A JS `Error` carrying a stable `code` the shim branches on (never on message text).
fn js_error(code: &str, message: &str) -> JsValue {
    let error = js_sys::Error::new(message);
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&error, &"code".into(), &code.into());
    error.into()
}

fn config_error(e: &config::ConfigError) -> JsValue {
    let error = js_error(e.code, &e.to_string());
    let problem = format!("{}: {}: {}", e.file, e.path, e.problem);
    for (key, value) in [("file", &e.file), ("path", &e.path), ("fix", &e.fix), ("problem", &problem)] {
        let _ = js_sys::Reflect::set(&error, &key.into(), &value.as_str().into());
    }
    error
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
}

#[wasm_bindgen]
impl Nso {
    /// Parses the config text of `config_file` (`undefined` when the file does not exist)
    /// and compiles the policy. Throws an Error with `code`, `file`, `path` and `fix`.
    #[wasm_bindgen(constructor)]
    pub fn new(config_file: &str, config_text: Option<String>) -> Result<Nso, JsValue> {
        let config =
            config::parse(config_file, config_text.as_deref()).map_err(|e| config_error(&e))?;
        let engine = authority::Engine::new(&config.authority, config_file)
            .map_err(|e| js_error("config_policy", &e))?;
        Ok(Nso { config, engine })
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

    /// Paths whose current content the engine needs before deciding on this request (JSON).
    #[wasm_bindgen(js_name = requiredContent)]
    pub fn required_content(&self, request_json: &str) -> Result<Vec<String>, JsValue> {
        let request = parse_request(request_json)?;
        Ok(self.engine.required_content(&request))
    }

    /// Decides on a tool call given as JSON. Returns `undefined` for a plain allow (the hot
    /// path converts nothing), else the decision as JSON text.
    #[wasm_bindgen(js_name = decide)]
    pub fn decide(&mut self, request_json: &str) -> Result<Option<String>, JsValue> {
        let request = parse_request(request_json)?;
        let decision = self.engine.decide(&request);
        if decision.verdict == authority::Verdict::Allow && decision.message.is_none() {
            return Ok(None);
        }
        serde_json::to_string(&decision)
            .map(Some)
            .map_err(|e| js_error("internal", &e.to_string()))
    }
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
