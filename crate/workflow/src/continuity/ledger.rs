//! The decision ledger (seed 001 "AOC Mem"): one append-only Markdown file per project
//! (`continuity.ledger`, default `.opencode/context/decisions.md`) that people and agents read.
//!
//! The file is never rewritten: every change is one entry appended at the end (the shim takes
//! the lock and appends [`Appended::append_text`]; the authority engine keeps the old content a
//! prefix). An entry, as [`append`] writes it:
//!
//! ```text
//! ## D-0012 · Use PostgreSQL for the team claim store
//! - **When**: 2026-11-23T12:00:00Z
//! - **Agent**: @planner
//! - **Session**: ses_abc
//! - **Supersedes**: D-0007
//! - **Detail**: the decision's further lines, if it had any
//! - **Why**: teams already run it
//!     a further line of the why, indented four spaces
//! ```
//!
//! `Agent` is `@name` for an agent, `person` or `person (user)` for the CLI; `Session` is `-`
//! for none; `Supersedes` and `Detail` appear only when set. The decision's first line is the
//! heading; its further lines become `Detail`. Further lines of a value are indented four
//! spaces, so a line of a why that starts with `## ` or a code fence can never start an entry
//! or a fence. Values are stored normalized: line ends are `\n`, spaces at line ends and blank
//! lines at both ends are dropped. Entries are separated by a blank line; a new file starts
//! with [`HEADER`].
//!
//! [`parse`] tolerates hand edits: text between entries (kept as the entry's notes), missing
//! fields, duplicate ids, CRLF, a truncated last entry, headings in fenced code blocks, other
//! headings (they end an entry; what follows them is not part of any entry).

mod read;
mod view;

pub use view::{agent_display, current, render_view, view};

use read::scan;
use serde::{Deserialize, Serialize};

/// What a new ledger file starts with.
pub const HEADER: &str = "# Decision ledger\n\nAppend-only: entries are never edited or removed; \
a later entry supersedes an earlier one. Add one with `nso decide` or the `nso_decide` tool.\n";

/// Longest decision (heading and detail together), in characters.
pub const MAX_DECISION_CHARS: usize = 2_000;

/// Longest why, in characters.
pub const MAX_WHY_CHARS: usize = 4_000;

/// Longest agent, session or time value, in characters.
pub const MAX_FIELD_CHARS: usize = 200;

/// Shown where a view or a handoff has no decision.
pub const NO_DECISIONS: &str =
    "(no decisions recorded — record one with `nso decide` or the nso_decide tool)";

/// Ids with more digits than this are not read as ids (they would not fit a number).
const MAX_ID_DIGITS: usize = 18;

/// One decision as read from the ledger.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// The id, canonical (`D-0012`, at least four digits), whatever padding the file has.
    pub id: String,
    /// The id's number.
    pub number: u64,
    /// The heading's text: the decision's first line.
    pub title: String,
    /// The decision's further lines (`Detail`).
    pub detail: Option<String>,
    /// Why it was decided.
    pub why: Option<String>,
    /// When, as written (ISO 8601 for NSO's entries).
    pub when: Option<String>,
    /// Who: the agent name without `@`, or `person` / `person (user)`.
    pub agent: Option<String>,
    /// The session it was decided in (`None` for `-`).
    pub session: Option<String>,
    /// The canonical id of the entry it supersedes.
    pub supersedes: Option<String>,
    /// Text of the entry that is no field (hand-written lines, unknown fields).
    pub notes: Option<String>,
    /// The id of the entry that supersedes this one (computed over the whole ledger).
    pub superseded_by: Option<String>,
    /// Line of the heading (1-based).
    pub line: usize,
    /// Whether an earlier entry has the same id (both are kept).
    pub duplicate: bool,
}

/// A problem found while reading the ledger; reading goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LedgerWarning {
    /// Line (1-based).
    pub line: usize,
    /// What is wrong.
    pub problem: String,
}

/// The ledger as read: entries in file order and what was odd about them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Ledger {
    /// Entries, oldest (top of the file) first.
    pub entries: Vec<Decision>,
    /// Problems, by line.
    pub warnings: Vec<LedgerWarning>,
}

impl Ledger {
    /// The id the next entry gets: one past the highest number (`D-0001` for none).
    pub fn next_id(&self) -> String {
        let next = self
            .entries
            .iter()
            .map(|e| e.number)
            .max()
            .map_or(1, |n| n + 1);
        id_of(next)
    }
}

/// A decision to append, as the shim passes it (JSON, camelCase).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NewDecision {
    /// The decision; its first line becomes the heading, further lines `Detail`.
    pub decision: String,
    /// Why.
    pub why: String,
    /// The agent (`@` optional), or `person` / `person (user)`; empty: `unknown`.
    pub agent: String,
    /// The session, if any.
    pub session: Option<String>,
    /// The id of the entry this one supersedes (`D-0007`, `D-7`).
    pub supersedes: Option<String>,
    /// The time, ISO 8601 (`2026-11-23T12:00:00Z`), from the shim's clock.
    pub when_iso: String,
}

/// What to append: the new id and the exact text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Appended {
    /// The new entry's id.
    pub id: String,
    /// Text to append to the file as it was read (header, separation and entry).
    pub append_text: String,
}

/// A decision that cannot be recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LedgerError {
    /// Stable code: `ledger_empty_decision`, `ledger_empty_why`, `ledger_too_long`,
    /// `ledger_bad_field`, `ledger_bad_supersedes`, `ledger_unknown_supersedes`,
    /// `ledger_already_superseded`.
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub fix: String,
}

impl std::fmt::Display for LedgerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} Fix: {}", self.code, self.message, self.fix)
    }
}

impl std::error::Error for LedgerError {}

/// A decision in a view, with the entry that supersedes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct View<'a> {
    /// The entry.
    pub decision: &'a Decision,
    /// The id of the entry superseding it (`None`: current).
    pub superseded_by: Option<String>,
}

/// The canonical id of `number`: `D-` and at least four digits.
pub fn id_of(number: u64) -> String {
    format!("D-{number:04}")
}

/// Reads an id (`D-0007`, `D-7`, `d-7`), as its number.
pub fn parse_id(text: &str) -> Option<u64> {
    let t = text.trim();
    let digits = t.strip_prefix("D-").or_else(|| t.strip_prefix("d-"))?;
    if digits.is_empty()
        || digits.len() > MAX_ID_DIGITS
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    digits.parse().ok()
}

/// Reads a ledger, tolerating hand edits (see the module documentation). Never fails.
pub fn parse(text: &str) -> Ledger {
    scan(text).0
}

/// Numbers a new decision after the entries of `text` and gives the exact text to append, so
/// that `text + append_text` reads as the old entries plus the new one.
pub fn append(text: &str, new: &NewDecision) -> Result<Appended, LedgerError> {
    let decision = normalize(&new.decision);
    let why = normalize(&new.why);
    if decision.is_empty() {
        return Err(error(
            "ledger_empty_decision",
            "the decision is empty.",
            "say what was decided, in one line (further lines become its detail).",
        ));
    }
    if why.is_empty() {
        return Err(error(
            "ledger_empty_why",
            "the decision has no why.",
            "say why it was decided: the reason a later reader needs.",
        ));
    }
    for (name, value, max) in [
        ("decision", &decision, MAX_DECISION_CHARS),
        ("why", &why, MAX_WHY_CHARS),
    ] {
        let n = value.chars().count();
        if n > max {
            return Err(error(
                "ledger_too_long",
                format!("the {name} has {n} characters; at most {max} are kept in the ledger."),
                format!("shorten the {name} to {max} characters and link to a document for more."),
            ));
        }
    }
    let agent = agent_name(&new.agent)?;
    let session = single_field("session", new.session.as_deref().unwrap_or(""))?;
    let when = single_field("time", &new.when_iso)?;
    if when.is_empty() {
        return Err(error(
            "ledger_bad_field",
            "the time of the decision is missing.",
            "pass the time as ISO 8601, e.g. 2026-11-23T12:00:00Z.",
        ));
    }
    let (ledger, open_fence) = scan(text);
    let supersedes = match new.supersedes.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(raw) => Some(check_supersedes(&ledger, raw)?),
    };
    let id = ledger.next_id();
    let (title, detail) = match decision.split_once('\n') {
        Some((first, rest)) => (first.to_string(), Some(rest.trim().to_string())),
        None => (decision.clone(), None),
    };
    let mut entry = format!("## {id} · {title}\n- **When**: {when}\n");
    entry.push_str(&format!("- **Agent**: {}\n", agent_display(&agent)));
    let session = if session.is_empty() || session == "-" {
        "-"
    } else {
        &session
    };
    entry.push_str(&format!("- **Session**: {session}\n"));
    if let Some(s) = &supersedes {
        entry.push_str(&format!("- **Supersedes**: {s}\n"));
    }
    if let Some(d) = &detail {
        push_value(&mut entry, "Detail", d);
    }
    push_value(&mut entry, "Why", &why);
    let append_text = if text.trim().is_empty() {
        format!("{HEADER}\n{entry}")
    } else {
        let nl = if text.split('\n').next().is_some_and(|l| l.ends_with('\r')) {
            "\r\n"
        } else {
            "\n"
        };
        let mut sep = String::new();
        if !text.ends_with('\n') {
            sep.push('\n');
        }
        let last = text.strip_suffix('\n').unwrap_or(text);
        let last_blank = last.rsplit('\n').next().unwrap_or("").trim().is_empty();
        if let Some(fence) = open_fence {
            sep.push_str(&fence);
            sep.push_str("\n\n");
        } else if !last_blank {
            sep.push('\n');
        }
        let out = format!("{sep}{entry}");
        if nl == "\n" {
            out
        } else {
            out.replace('\n', nl)
        }
    };
    Ok(Appended { id, append_text })
}

fn error(code: &'static str, message: impl Into<String>, fix: impl Into<String>) -> LedgerError {
    LedgerError {
        code,
        message: message.into(),
        fix: fix.into(),
    }
}

/// The stored form of a multi-line value (see the module documentation).
fn normalize(text: &str) -> String {
    let unified = text.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = unified.split('\n').map(str::trim_end).collect();
    lines.join("\n").trim().to_string()
}

fn push_value(out: &mut String, label: &str, value: &str) {
    out.push_str(&format!("- **{label}**: "));
    for (i, line) in value.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.is_empty() {
                out.push_str("    ");
            }
        }
        out.push_str(line);
    }
    out.push('\n');
}

/// A one-line value: whitespace runs become one space.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn single_field(name: &str, raw: &str) -> Result<String, LedgerError> {
    let value = raw.trim();
    if value.contains(char::is_whitespace) {
        return Err(error(
            "ledger_bad_field",
            format!(
                "the {name} \"{}\" contains spaces or line breaks.",
                collapse(value)
            ),
            format!("pass the {name} as one word."),
        ));
    }
    if value.chars().count() > MAX_FIELD_CHARS {
        return Err(error(
            "ledger_bad_field",
            format!("the {name} is longer than {MAX_FIELD_CHARS} characters."),
            format!("pass the {name} as OpenCode gives it."),
        ));
    }
    Ok(value.to_string())
}

fn agent_name(raw: &str) -> Result<String, LedgerError> {
    let agent = collapse(raw);
    let agent = agent.strip_prefix('@').unwrap_or(&agent).trim().to_string();
    if agent.chars().count() > MAX_FIELD_CHARS {
        return Err(error(
            "ledger_bad_field",
            format!("the agent is longer than {MAX_FIELD_CHARS} characters."),
            "pass the agent's name, or `person` for a person.",
        ));
    }
    Ok(if agent.is_empty() {
        "unknown".to_string()
    } else {
        agent
    })
}

fn check_supersedes(ledger: &Ledger, raw: &str) -> Result<String, LedgerError> {
    let Some(number) = parse_id(raw) else {
        return Err(error(
            "ledger_bad_supersedes",
            format!("\"{}\" is not a decision id.", collapse(raw)),
            "name the superseded decision by its id, e.g. D-0007 (nso decisions lists them).",
        ));
    };
    let id = id_of(number);
    let mut targets = ledger.entries.iter().filter(|e| e.number == number);
    let Some(target) = targets.next() else {
        return Err(error(
            "ledger_unknown_supersedes",
            format!("the ledger has no decision {id}."),
            "name an existing decision (nso decisions lists the current ones).",
        ));
    };
    let live = target.superseded_by.is_none() || targets.any(|e| e.superseded_by.is_none());
    if let (false, Some(by)) = (live, &target.superseded_by) {
        let end = chain_end(ledger, target);
        return Err(error(
            "ledger_already_superseded",
            format!(
                "{id} is already superseded by {by}; the current decision of its chain is {end}."
            ),
            format!("supersede {end} instead, or record a new decision without supersedes."),
        ));
    }
    Ok(id)
}

/// The current entry at the end of `start`'s supersession chain.
fn chain_end(ledger: &Ledger, start: &Decision) -> String {
    let mut at = start;
    for _ in 0..ledger.entries.len() {
        let next = at
            .superseded_by
            .as_deref()
            .and_then(parse_id)
            .and_then(|n| ledger.entries.iter().rev().find(|e| e.number == n));
        match next {
            Some(e) => at = e,
            None => break,
        }
    }
    at.id.clone()
}
