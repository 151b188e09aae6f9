//! After a delegation: what the subagent left behind (questions, a result, a JSON return),
//! whether its deliverables really exist (no "phantom research"), and whether a new
//! delegation is safe (depth limit, cycles).
//!
//! File checks are two-phase because this core does no I/O: the shim first asks which
//! paths matter ([`required_paths`], [`json_return_paths`]), stats them, then passes the
//! facts to [`check_delegation`] / [`validate_json_return`]. A path without a fact counts as
//! unverified, never as present.

use crate::contracts::contract::{self, ParseError, ResultStatus, TaskResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// After this many attempts with questions, escalate to the user instead of re-delegating.
pub const MAX_ATTEMPTS: u32 = 3;

/// Default delegation depth limit (ProofChecker: 3).
pub const MAX_DEPTH: usize = 3;

/// What the shim found in the task folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskDirListing {
    /// `questions.md` exists.
    pub has_questions: bool,
    /// Its text, if read.
    #[serde(default)]
    pub questions_text: Option<String>,
    /// `result.md` exists.
    pub has_result: bool,
    /// Its text, if read.
    #[serde(default)]
    pub result_text: Option<String>,
}

/// What the shim knows about one path.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileFact {
    /// The path exists (as a file).
    pub exists: bool,
    /// Its size in bytes.
    pub size: u64,
}

/// Path → fact, keyed exactly as returned by [`required_paths`] / [`json_return_paths`].
pub type FileFacts = BTreeMap<String, FileFact>;

/// The outcome of a delegation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The subagent asked questions: ask the user, re-delegate with the answers.
    Questions,
    /// Questions again after the last allowed attempt: hand over to the user.
    Escalate,
    /// COMPLETE and every deliverable exists and is non-empty.
    Complete,
    /// The subagent reported FAILED.
    Failed,
    /// result.md is unreadable, or deliverables are missing, empty or unverified.
    InvalidResult,
    /// Neither questions.md nor result.md.
    NoOutput,
}

/// One problem found while checking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Stable code: `result_unreadable`, `deliverable_missing`, `deliverable_empty`,
    /// `deliverable_unverified`, `path_outside_project`, `no_json`, `json_invalid`,
    /// `json_field_missing`, `json_field_invalid`, `artifact_missing`, `artifact_empty`,
    /// `artifact_unverified`, `session_mismatch`.
    pub code: String,
    /// The path concerned, if any.
    pub path: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// The verdict on a delegation, with a short note for the orchestrator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DelegationVerdict {
    /// What happened.
    pub outcome: Outcome,
    /// The attempt that was checked (1-based).
    pub attempt: u32,
    /// The attempt number to use when re-delegating (only for `questions`).
    pub next_attempt: Option<u32>,
    /// The questions, when there are any.
    pub questions: Vec<String>,
    /// The parsed result, when result.md was readable.
    pub result: Option<TaskResult>,
    /// Problems that make the result invalid.
    pub problems: Vec<Problem>,
    /// Things worth saying that do not invalidate the result.
    pub warnings: Vec<String>,
    /// A short note for the orchestrator: what happened and what to do now.
    pub note: String,
}

fn problem(code: &str, path: Option<&str>, message: String) -> Problem {
    Problem {
        code: code.to_string(),
        path: path.map(str::to_string),
        message,
    }
}

fn clip(s: &str, max: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

/// Normalizes a path for fact lookup: `./` prefixes dropped, `\` kept as is. `None` for a
/// path that leaves the project (absolute, `~`, or with a `..` part) or is empty.
pub fn project_path(path: &str) -> Option<String> {
    let mut p = path.trim();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    let absolute = p.starts_with('/')
        || p.starts_with('\\')
        || p.starts_with('~')
        || p.as_bytes().get(1) == Some(&b':');
    if p.is_empty() || absolute || p.split(['/', '\\']).any(|part| part == "..") {
        return None;
    }
    Some(p.to_string())
}

/// The deliverable paths of a result.md whose facts [`check_delegation`] needs (normalized
/// by [`project_path`], duplicates removed, paths outside the project left out).
pub fn required_paths(result_text: &str) -> Result<Vec<String>, ParseError> {
    let result = contract::parse_result(result_text)?;
    let mut out: Vec<String> = Vec::new();
    for d in &result.deliverables {
        if let Some(p) = project_path(&d.path) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    Ok(out)
}

/// Checks one path against the facts; `kind` is `deliverable` or `artifact`.
fn check_path(kind: &str, path: &str, facts: &FileFacts) -> Option<Problem> {
    let Some(p) = project_path(path) else {
        return Some(problem(
            "path_outside_project",
            Some(path),
            format!(
                "{kind} `{}` is not a path inside the project",
                clip(path, 120)
            ),
        ));
    };
    match facts.get(&p) {
        None => Some(problem(
            &format!("{kind}_unverified"),
            Some(&p),
            format!("{kind} `{p}` was not checked (no file facts were given for it)"),
        )),
        Some(f) if !f.exists => Some(problem(
            &format!("{kind}_missing"),
            Some(&p),
            format!("{kind} `{p}` does not exist"),
        )),
        Some(f) if f.size == 0 => Some(problem(
            &format!("{kind}_empty"),
            Some(&p),
            format!("{kind} `{p}` is empty"),
        )),
        Some(_) => None,
    }
}

fn numbered(questions: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut lines: Vec<String> = questions
        .iter()
        .take(SHOWN)
        .enumerate()
        .map(|(i, q)| format!("{}. {}", i + 1, clip(q, 300)))
        .collect();
    if questions.len() > SHOWN {
        lines.push(format!(
            "(and {} more in questions.md)",
            questions.len() - SHOWN
        ));
    }
    lines.join("\n")
}

/// Decides what a finished delegation means.
///
/// - questions.md present (it wins, as in the techspec; a result.md beside it is mentioned):
///   before attempt [`MAX_ATTEMPTS`] the note lists the questions and tells the orchestrator
///   to ask the user and re-delegate with the answers as attempt `attempt + 1`; at or after
///   it, `escalate`.
/// - result.md present: it must parse; FAILED gives `failed`; COMPLETE needs every
///   deliverable to exist and be non-empty per `file_facts` (see [`required_paths`]).
/// - neither: `no_output`.
///
/// `attempt` is 1-based (0 is treated as 1).
pub fn check_delegation(
    listing: &TaskDirListing,
    file_facts: &FileFacts,
    attempt: u32,
) -> DelegationVerdict {
    let attempt = attempt.max(1);
    let mut v = DelegationVerdict {
        outcome: Outcome::NoOutput,
        attempt,
        next_attempt: None,
        questions: Vec::new(),
        result: None,
        problems: Vec::new(),
        warnings: Vec::new(),
        note: String::new(),
    };
    if listing.has_questions {
        let text = listing.questions_text.as_deref().unwrap_or("");
        match contract::parse_questions(text) {
            Ok(q) => v.questions = q.questions,
            Err(e) => {
                v.warnings
                    .push(format!("questions.md could not be parsed: {e}"));
                let raw = clip(text, 600);
                if !raw.is_empty() {
                    v.questions = vec![raw];
                }
            }
        }
        if listing.has_result {
            v.warnings.push(
                "result.md also exists (perhaps from an earlier attempt); questions.md takes precedence".into(),
            );
        }
        let listed = if v.questions.is_empty() {
            "(questions.md is empty: read it in the task folder)".to_string()
        } else {
            numbered(&v.questions)
        };
        if attempt >= MAX_ATTEMPTS {
            v.outcome = Outcome::Escalate;
            v.note = format!(
                "The subagent still has questions after attempt {attempt} of {MAX_ATTEMPTS}; stop re-delegating. Show the user these questions and decide with them how to proceed:\n{listed}"
            );
        } else {
            v.outcome = Outcome::Questions;
            v.next_attempt = Some(attempt + 1);
            v.note = format!(
                "The subagent stopped with {} question(s) in questions.md (attempt {attempt} of {MAX_ATTEMPTS}):\n{listed}\nAsk the user, then re-delegate the same task with the answers in the prompt (attempt {} of {MAX_ATTEMPTS}); move questions.md aside first.",
                v.questions.len().max(1),
                attempt + 1
            );
        }
        return v;
    }
    if !listing.has_result {
        v.note = "The subagent wrote neither questions.md nor result.md: treat the task as not done. Check status.md and re-delegate or tell the user.".into();
        return v;
    }
    let text = listing.result_text.as_deref().unwrap_or("");
    let result = match contract::parse_result(text) {
        Ok(r) => r,
        Err(e) => {
            v.outcome = Outcome::InvalidResult;
            v.problems.push(problem(
                "result_unreadable",
                Some("result.md"),
                e.to_string(),
            ));
            v.note = format!(
                "result.md is not valid: {e}. Ask the subagent to fix result.md, or tell the user."
            );
            return v;
        }
    };
    if result.status == ResultStatus::Failed {
        v.outcome = Outcome::Failed;
        let why = if result.notes.trim().is_empty() {
            "no notes given".to_string()
        } else {
            clip(&result.notes, 400)
        };
        v.note = format!("The subagent reported FAILED ({why}). Tell the user and decide the next step together.");
        v.result = Some(result);
        return v;
    }
    for d in &result.deliverables {
        if let Some(p) = check_path("deliverable", &d.path, file_facts) {
            v.problems.push(p);
        }
    }
    if result.deliverables.is_empty() {
        v.warnings.push("result.md lists no deliverables".into());
    }
    if v.problems.is_empty() {
        v.outcome = Outcome::Complete;
        v.note = format!(
            "The subagent reported COMPLETE; {} deliverable(s) verified (exist, non-empty). Review them and report to the user.",
            result.deliverables.len()
        );
    } else {
        v.outcome = Outcome::InvalidResult;
        let list: Vec<String> = v
            .problems
            .iter()
            .take(10)
            .map(|p| p.message.clone())
            .collect();
        v.note = format!(
            "The subagent reported COMPLETE, but: {}. Do not accept the result; re-delegate to fix it or tell the user.",
            list.join("; ")
        );
    }
    v.result = Some(result);
    v
}

// ---------------------------------------------------------------------------------------
// ProofChecker-style JSON return

/// One artifact of a JSON return.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnArtifact {
    /// `type`, if given.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// `path`.
    pub path: String,
    /// `summary`, if given.
    pub summary: Option<String>,
}

/// The check of a subagent's JSON return.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonReturnVerdict {
    /// No problems.
    pub ok: bool,
    /// `status` (lowercase) if present and valid: `completed`, `failed` or `partial`.
    pub status: Option<String>,
    /// `summary`, if present.
    pub summary: Option<String>,
    /// `session_id`, if present.
    pub session_id: Option<String>,
    /// Artifacts with a usable `path`.
    pub artifacts: Vec<ReturnArtifact>,
    /// Problems that make the return invalid.
    pub problems: Vec<Problem>,
    /// Things worth saying that do not invalidate it.
    pub warnings: Vec<String>,
    /// A short note for the orchestrator.
    pub note: String,
}

/// Longest text searched for a JSON object (its tail is searched).
pub const MAX_RETURN_SCAN: usize = 128 * 1024;
/// Most `{` positions tried when searching outside code fences.
const MAX_CANDIDATES: usize = 256;

fn parse_object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>();
    match stream.next() {
        Some(Ok(serde_json::Value::Object(m))) => Some(m),
        _ => None,
    }
}

/// Finds the subagent's JSON return in its output: the last fenced code block (via
/// pulldown-cmark) that holds a JSON object with a `status` key, else the last `{…}`
/// object with a `status` key anywhere in the text (searching backwards from the end).
/// Only the last [`MAX_RETURN_SCAN`] bytes are searched.
pub fn find_json_object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let mut start = text.len().saturating_sub(MAX_RETURN_SCAN);
    while start < text.len() && !text.is_char_boundary(start) {
        start += 1;
    }
    let text = &text[start..];
    if text.trim_start().starts_with('{') {
        if let Some(m) = parse_object(text.trim()).filter(|m| m.contains_key("status")) {
            return Some(m);
        }
    }
    use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
    let mut blocks: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for ev in Parser::new(text) {
        match ev {
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match &kind {
                    CodeBlockKind::Fenced(l) => l.to_lowercase(),
                    CodeBlockKind::Indented => String::new(),
                };
                current = (lang.is_empty() || lang.starts_with("json")).then(String::new);
            }
            Event::Text(t) => {
                if let Some(c) = current.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(c) = current.take() {
                    blocks.push(c);
                }
            }
            _ => {}
        }
    }
    for block in blocks.iter().rev() {
        if let Some(m) = parse_object(block.trim()).filter(|m| m.contains_key("status")) {
            return Some(m);
        }
    }
    let positions: Vec<usize> = text.match_indices('{').map(|(i, _)| i).collect();
    for &i in positions.iter().rev().take(MAX_CANDIDATES) {
        if let Some(m) = parse_object(&text[i..]).filter(|m| m.contains_key("status")) {
            return Some(m);
        }
    }
    None
}

fn artifact_list(
    obj: &serde_json::Map<String, serde_json::Value>,
    problems: &mut Vec<Problem>,
) -> Vec<ReturnArtifact> {
    let Some(value) = obj.get("artifacts") else {
        problems.push(problem(
            "json_field_missing",
            None,
            "`artifacts` is missing (use [] when there are none)".into(),
        ));
        return Vec::new();
    };
    let Some(items) = value.as_array() else {
        problems.push(problem(
            "json_field_invalid",
            None,
            "`artifacts` must be a list".into(),
        ));
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(a) = item.as_object() else {
            problems.push(problem(
                "json_field_invalid",
                None,
                format!("`artifacts[{i}]` must be an object"),
            ));
            continue;
        };
        let text = |k: &str| a.get(k).and_then(|v| v.as_str()).map(str::to_string);
        match text("path").filter(|p| !p.trim().is_empty()) {
            Some(path) => out.push(ReturnArtifact {
                kind: text("type"),
                path: path.trim().to_string(),
                summary: text("summary"),
            }),
            None => problems.push(problem(
                "json_field_missing",
                None,
                format!("`artifacts[{i}].path` is missing or not a non-empty string"),
            )),
        }
    }
    out
}

/// The artifact paths of a JSON return whose facts [`validate_json_return`] needs
/// (normalized, deduplicated, paths outside the project left out). Empty when no JSON
/// return is found.
pub fn json_return_paths(text: &str) -> Vec<String> {
    let Some(obj) = find_json_object(text) else {
        return Vec::new();
    };
    let mut ignored = Vec::new();
    let mut out: Vec<String> = Vec::new();
    for a in artifact_list(&obj, &mut ignored) {
        if let Some(p) = project_path(&a.path) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Validates a subagent's JSON return (`status`, `artifacts[]` with `path`, `summary`,
/// `session_id`) found in `text` by [`find_json_object`]: structure, then every artifact
/// exists and is non-empty per `file_facts` (see [`json_return_paths`]). When
/// `expected_session_id` is given, `session_id` must be present and equal to it; otherwise
/// a missing one is only a warning.
pub fn validate_json_return(
    text: &str,
    file_facts: &FileFacts,
    expected_session_id: Option<&str>,
) -> JsonReturnVerdict {
    let mut v = JsonReturnVerdict {
        ok: false,
        status: None,
        summary: None,
        session_id: None,
        artifacts: Vec::new(),
        problems: Vec::new(),
        warnings: Vec::new(),
        note: String::new(),
    };
    let Some(obj) = find_json_object(text) else {
        v.problems.push(problem(
            "no_json",
            None,
            "no JSON object with a `status` key was found in the subagent's output".into(),
        ));
        v.note = "The subagent returned no JSON result; ask it to return {\"status\", \"artifacts\", \"summary\", \"session_id\"}.".into();
        return v;
    };
    match obj
        .get("status")
        .and_then(|s| s.as_str())
        .map(|s| s.trim().to_lowercase())
    {
        Some(s) if matches!(s.as_str(), "completed" | "failed" | "partial") => v.status = Some(s),
        _ => v.problems.push(problem(
            "json_field_invalid",
            None,
            "`status` must be \"completed\", \"failed\" or \"partial\"".into(),
        )),
    }
    match obj.get("summary").and_then(|s| s.as_str()).map(str::trim) {
        Some(s) if !s.is_empty() => {
            if s.chars().count() > 2000 {
                v.warnings
                    .push("`summary` is over 2000 characters; summaries should be brief".into());
            }
            v.summary = Some(s.to_string());
        }
        Some(_) | None => v.problems.push(problem(
            "json_field_missing",
            None,
            "`summary` is missing or empty".into(),
        )),
    }
    match (obj.get("session_id"), expected_session_id) {
        (Some(serde_json::Value::String(s)), expected) => {
            v.session_id = Some(s.clone());
            if let Some(e) = expected {
                if s.trim() != e.trim() {
                    v.problems.push(problem(
                        "session_mismatch",
                        None,
                        format!(
                            "`session_id` is \"{}\", expected \"{}\"",
                            clip(s, 80),
                            clip(e, 80)
                        ),
                    ));
                }
            }
        }
        (Some(_), _) => v.problems.push(problem(
            "json_field_invalid",
            None,
            "`session_id` must be a string".into(),
        )),
        (None, Some(_)) => v.problems.push(problem(
            "json_field_missing",
            None,
            "`session_id` is missing".into(),
        )),
        (None, None) => v.warnings.push("`session_id` is missing".into()),
    }
    let mut structural = Vec::new();
    v.artifacts = artifact_list(&obj, &mut structural);
    v.problems.extend(structural);
    for a in &v.artifacts {
        if let Some(p) = check_path("artifact", &a.path, file_facts) {
            v.problems.push(p);
        }
    }
    if v.artifacts.is_empty() && v.status.as_deref() == Some("completed") {
        v.warnings
            .push("status is completed but no artifacts are listed".into());
    }
    v.ok = v.problems.is_empty();
    v.note = if v.ok {
        format!(
            "Valid return: status {}, {} artifact(s) verified (exist, non-empty).",
            v.status.as_deref().unwrap_or("?"),
            v.artifacts.len()
        )
    } else {
        let list: Vec<String> = v
            .problems
            .iter()
            .take(10)
            .map(|p| p.message.clone())
            .collect();
        format!(
            "Invalid return: {}. Do not relay it as done.",
            list.join("; ")
        )
    };
    v
}

// ---------------------------------------------------------------------------------------
// Delegation chain safety

/// Why a delegation is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DelegationRefusal {
    /// Stable code: `delegation_cycle`, `delegation_depth`, `delegation_invalid`.
    pub code: &'static str,
    /// The chain including the refused target, normalized (`build`, `dev`, `dev`).
    pub chain: Vec<String>,
    /// Human-readable explanation naming the chain (`@build → @dev → @dev`).
    pub message: String,
}

impl fmt::Display for DelegationRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DelegationRefusal {}

fn norm_agent(a: &str) -> String {
    a.trim().trim_start_matches('@').trim().to_lowercase()
}

fn show(chain: &[String]) -> String {
    chain
        .iter()
        .map(|a| format!("@{a}"))
        .collect::<Vec<_>>()
        .join(" → ")
}

/// Checks that `chain` (agents from the root to the current one) may delegate to
/// `target_agent`.
///
/// Depth: the new delegation would have depth `chain.len()` (the root delegating directly
/// is depth 1); more than `max_depth` is refused. Cycles: the target, or any agent, appearing
/// twice in the chain is refused. Names compare case-insensitively without `@`.
pub fn check_delegation_chain(
    chain: &[String],
    target_agent: &str,
    max_depth: usize,
) -> Result<(), DelegationRefusal> {
    let mut full: Vec<String> = chain.iter().map(|a| norm_agent(a)).collect();
    let target = norm_agent(target_agent);
    full.push(target.clone());
    if chain.is_empty() || full.iter().any(String::is_empty) {
        return Err(DelegationRefusal {
            code: "delegation_invalid",
            message: format!(
                "delegation refused: the chain must name at least the root agent and every agent must have a name (got {})",
                if chain.is_empty() { "an empty chain".to_string() } else { show(&full) }
            ),
            chain: full,
        });
    }
    for (i, a) in full.iter().enumerate() {
        if let Some(j) = full[..i].iter().position(|b| b == a) {
            return Err(DelegationRefusal {
                code: "delegation_cycle",
                message: format!(
                    "delegation refused: cycle {} (@{a} is already at position {} of the chain); finish or return instead of delegating back",
                    show(&full[..=i]),
                    j + 1
                ),
                chain: full,
            });
        }
    }
    let depth = chain.len();
    if depth > max_depth {
        return Err(DelegationRefusal {
            code: "delegation_depth",
            message: format!(
                "delegation refused: {} would be depth {depth}, over the limit of {max_depth}; do the work here or return to @{}",
                show(&full),
                full[0]
            ),
            chain: full,
        });
    }
    Ok(())
}
