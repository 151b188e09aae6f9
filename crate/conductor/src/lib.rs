//! The Conductor (seed 003): coordination of several agent instances working on the same
//! files, through claims on path patterns in a shared `status.json`.
//!
//! Pure: the state text, the operation, the time, randomness and liveness facts come in; the
//! new state text, the result and the lines to log go out ([`apply`]). The shim
//! (`plugin/conductor/`) takes the lock, reads the files, checks processes, and writes. The
//! request and response are specified in `docs/conductor-contract.md`.
//!
//! - [`state`]: `status.json` 2.0 (seed 1.0 read too), written deterministically.
//! - [`glob`], [`intersect`]: claim patterns, and whether two of them share a path.
//! - `ops`, `claim`, `report`, [`liveness`]: the operations, orphan removal, `status`.
//! - [`gate`]: the priority gate from `sprint.json`.

mod claim;
pub mod clock;
mod fields;
pub mod gate;
pub mod glob;
pub mod held;
pub mod intersect;
pub mod liveness;
mod ops;
mod report;
pub mod request;
pub mod state;

use serde::Serialize;

pub use glob::Pattern;
pub use intersect::{overlap, Overlap};
pub use request::{Request, Response};

/// The stable error codes of a response (the shim branches on them, never on messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// `status.json` cannot be read: the shim moves it aside and restores the last good one.
    StateCorrupt,
    /// The request is malformed or asks for something impossible.
    BadRequest,
    /// The instance id is not registered (finished, or removed as an orphan).
    UnknownInstance,
}

impl ErrorCode {
    /// The code as written in responses.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::StateCorrupt => "state_corrupt",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::UnknownInstance => "unknown_instance",
        }
    }
}

/// An error of one request: code, what is wrong, what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConductorError {
    /// Stable code.
    pub code: ErrorCode,
    /// What is wrong, naming the field or place.
    pub message: String,
    /// What to do about it.
    pub fix: String,
}

impl ConductorError {
    /// An error with its code, message and fix.
    pub fn new(code: ErrorCode, message: impl Into<String>, fix: impl Into<String>) -> Self {
        ConductorError {
            code,
            message: message.into(),
            fix: fix.into(),
        }
    }
}

impl std::fmt::Display for ConductorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} ({})", self.code.as_str(), self.message, self.fix)
    }
}

/// Runs one request given as JSON text and returns the response as JSON text. Never fails:
/// a bad request or state is an error response.
pub fn apply(request_json: &str) -> String {
    apply_request(request_json).to_json()
}

/// [`apply`] with the response as a structure.
pub fn apply_request(request_json: &str) -> Response {
    match Request::parse(request_json) {
        Ok(request) => ops::run(&request),
        Err(error) => Response::failure(error),
    }
}

/// Does any of `patterns` cover the path `path` (a file the instance is about to touch)?
pub fn covers(patterns: &[String], path: &str) -> bool {
    let path = glob::normalize_path(path);
    patterns.iter().any(|p| glob::text_matches(p, &path))
}

/// Can some path match both patterns? (A false "yes" is possible only past the work budget.)
pub fn intersects(a: &str, b: &str) -> bool {
    intersect::intersects(a, b)
}

/// For a store that keeps claims as rows sorted by literal head: for each claim pattern (as
/// given, or as stored), its normalised text, its literal head and where the claims that may
/// meet it are ([`held::HeadLookup`]; `all` for the empty head, which every claim may meet);
/// `null` for a pattern that is not absolute (the core refuses it whatever the state). Also
/// the limit on the claims of one state, past which the whole state decides. JSON in and out.
pub fn claim_lookups(patterns_json: &str) -> Result<String, String> {
    let patterns: Vec<String> =
        serde_json::from_str(patterns_json).map_err(|e| format!("claim patterns: {e}"))?;
    let looked: Vec<serde_json::Value> = patterns
        .iter()
        .map(|p| {
            if !p.starts_with('/') {
                return serde_json::Value::Null;
            }
            let normal = glob::normalize(p);
            let head = glob::literal_head(&normal).to_string();
            match held::HeadLookup::of(&head) {
                None => serde_json::json!({"pattern": normal, "head": head, "all": true}),
                Some(l) => serde_json::json!({
                    "pattern": normal, "head": head, "all": false,
                    "exact": l.exact, "from": l.from, "to": l.to,
                }),
            }
        })
        .collect();
    Ok(serde_json::json!({"max_claims": state::MAX_CLAIMS, "patterns": looked}).to_string())
}
