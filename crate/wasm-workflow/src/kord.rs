//! The workflow package's Kord exports: squads, plans and the orchestrator's rules. Each
//! parses its input, calls `nso_workflow::kord` and returns JSON.

use crate::common::{js_error, json};
use nso_workflow::kord::{calls, plan, resume_text, State};
use wasm_bindgen::prelude::*;

/// The plan file a story belongs to (`undefined`: none), so the shell can read it for
/// `checkStatusEdit`.
#[wasm_bindgen(js_name = kordPlanOfStory)]
pub fn kord_plan_of_story(file: &str) -> Option<String> {
    plan::plan_file_of_story(file)
}

/// The files to read before a delegation: `{plan, story}` (names; `null`: none).
#[wasm_bindgen(js_name = kordFiles)]
pub fn kord_files(state: Option<String>, prompt: &str) -> Result<String, JsValue> {
    json(&calls::files(state.as_deref(), prompt))
}

/// The verdict on a delegation (before it starts, or after it returned when `output` is
/// given): `{allowed, rule, message, state, writes}`.
#[wasm_bindgen(js_name = kordDelegation)]
pub fn kord_delegation(input_json: &str) -> Result<String, JsValue> {
    let input: calls::DelegationInput = serde_json::from_str(input_json)
        .map_err(|e| js_error("bad_input", &format!("kord delegation: {e}")))?;
    json(&calls::decide(&input))
}

/// What a new session is told about a plan in progress (empty: nothing).
#[wasm_bindgen(js_name = kordResumeText)]
pub fn kord_resume_text(state: &str) -> String {
    State::parse(Some(state))
        .map(|s| resume_text(&s))
        .unwrap_or_else(|e| format!("Kord: {e}"))
}
