//! The workflow package's continuity exports: the decision ledger, T0 transcripts and
//! handoffs. Each parses its input, calls [`nso_workflow::continuity`], converts the output; the
//! shim reads and writes the files, takes the ledger's lock and computes the hashes.

use crate::common::{js_error, json};
use crate::Workflow;
use nso_workflow::config;
use nso_workflow::continuity::{events, handoff, ledger, policy::T0Policy, t0};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A ledger entry as the CLI's `--json` shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EntryOut<'a> {
    #[serde(flatten)]
    entry: &'a ledger::Decision,
    /// The decision's text (its heading), under the name the tool and CLI use.
    decision: &'a str,
}

/// The ledger read back: entries in file order and the problems found.
#[derive(Serialize)]
struct LedgerOut<'a> {
    entries: Vec<EntryOut<'a>>,
    warnings: &'a [ledger::LedgerWarning],
}

/// One session's transcript: its text, digest and counts.
#[derive(Serialize)]
struct TranscriptOut {
    session: String,
    text: String,
    digest: nso_workflow::continuity::SessionDigest,
    stats: t0::T0Stats,
}

/// The transcripts of one input, with the policy that made them and the input's problems.
#[derive(Serialize)]
struct TranscriptsOut {
    policy: String,
    sessions: Vec<TranscriptOut>,
    warnings: Vec<String>,
}

#[wasm_bindgen]
impl Workflow {
    /// Numbers a new decision (`NewDecision` JSON: `{decision, why, agent, session,
    /// supersedes, whenIso}`) after the entries of the ledger `text`: `{id, appendText}` JSON.
    /// Throws with `code` and `fix` when the decision is refused.
    #[wasm_bindgen(js_name = ledgerAppend)]
    pub fn ledger_append(&self, text: &str, new_json: &str) -> Result<String, JsValue> {
        let new: ledger::NewDecision = serde_json::from_str(new_json)
            .map_err(|e| js_error("bad_input", &format!("decision: {e}")))?;
        let appended = ledger::append(text, &new).map_err(|e| {
            let error = js_error(e.code, &e.message);
            let _ = js_sys::Reflect::set(&error, &"fix".into(), &e.fix.as_str().into());
            error
        })?;
        json(&appended)
    }

    /// The ledger's view as text: current decisions newest first (`all`: superseded ones
    /// too, marked), at most `max_lines` lines.
    #[wasm_bindgen(js_name = ledgerView)]
    pub fn ledger_view(&self, text: &str, all: bool, max_lines: Option<usize>) -> String {
        ledger::render_view(&ledger::parse(text), all, max_lines)
    }

    /// The ledger read back as JSON: `{entries, warnings}`, entries in file order with
    /// `supersededBy`.
    #[wasm_bindgen(js_name = ledgerJson)]
    pub fn ledger_json(&self, text: &str) -> Result<String, JsValue> {
        let parsed = ledger::parse(text);
        let entries = parsed
            .entries
            .iter()
            .map(|entry| EntryOut {
                entry,
                decision: &entry.title,
            })
            .collect();
        json(&LedgerOut {
            entries,
            warnings: &parsed.warnings,
        })
    }

    /// The T0 transcripts of a raw lane (JSONL); `root` makes paths project-relative.
    #[wasm_bindgen(js_name = t0FromLane)]
    pub fn t0_from_lane(&self, text: &str, root: Option<String>) -> Result<String, JsValue> {
        self.transcripts(events::from_lane(text), root.as_deref())
    }

    /// The T0 transcripts of `opencode export` JSON (one session or a list).
    #[wasm_bindgen(js_name = t0FromExport)]
    pub fn t0_from_export(&self, text: &str, root: Option<String>) -> Result<String, JsValue> {
        self.transcripts(events::from_export(text), root.as_deref())
    }

    /// A handoff from its layers (`HandoffInput` JSON): `{text, lines, truncated, layers}`.
    #[wasm_bindgen(js_name = handoff)]
    pub fn handoff(&self, input_json: &str) -> Result<String, JsValue> {
        let input: handoff::HandoffInput = serde_json::from_str(input_json)
            .map_err(|e| js_error("bad_input", &format!("handoff input: {e}")))?;
        json(&handoff::compose(&input))
    }
}

impl Workflow {
    /// The project's T0 policy (`continuity.t0`, else the built-in one).
    pub(super) fn t0_policy(&self) -> Result<T0Policy, JsValue> {
        let config = config::parse(&self.config_file, self.config_text.as_deref())
            .map_err(|e| js_error(e.code, &e.to_string()))?;
        match &config.continuity.t0 {
            Some(v) => T0Policy::from_json(v).map_err(|e| {
                js_error(
                    "config_value",
                    &format!(
                        "{}: continuity.t0.{}: {} Fix: {}",
                        self.config_file, e.path, e.problem, e.fix
                    ),
                )
            }),
            None => Ok(T0Policy::default()),
        }
    }

    fn transcripts(
        &self,
        input: events::Normalized,
        root: Option<&str>,
    ) -> Result<String, JsValue> {
        let policy = self.t0_policy()?;
        let sessions = input
            .sessions
            .iter()
            .map(|s| {
                let out = t0::render(s, &policy, root);
                TranscriptOut {
                    session: out.digest.session.clone(),
                    text: out.text,
                    digest: out.digest,
                    stats: out.stats,
                }
            })
            .collect();
        json(&TranscriptsOut {
            policy: format!("{} v{}", policy.name, policy.version),
            sessions,
            warnings: input.warnings,
        })
    }
}
