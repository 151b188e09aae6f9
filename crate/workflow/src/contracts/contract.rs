//! Task contract files: `contract.md`, `status.md`, `result.md` and `questions.md` in
//! `.opencode/context/active_tasks/{task_id}/` (techspec section 3.3): typed data, parsing
//! (pulldown-cmark, through [`nso_text::documents::markdown`]) and rendering through a template
//! ([`crate::contracts::template`]), plus task ids (re-exported from [`crate::contracts::task_id`]).
//!
//! Parsing is tolerant of hand edits: fields may be `- Key: value` bullets (bold keys,
//! extra spaces and any case allowed), paragraph lines or rows of a two-column table;
//! sections are found by heading in any order and any case; unknown fields and sections
//! are kept (`extra_fields`, `extra_sections`) and rendered again at the end; CRLF and
//! trailing spaces are fine. Both the section 3.3 samples and the appendix templates parse.
//!
//! Errors name the file, the line and what was expected, e.g.
//! `status.md line 3: expected a Status field with one of PENDING, IN_PROGRESS, BLOCKED, COMPLETE, FAILED (found "DONE")`.
//!
//! Round trip: for data obtained by parsing, `parse(render(data)) == data` with the default
//! templates. Free text (objective, notes, list items) is kept as Markdown source, so it
//! survives unchanged; fields and table cells are kept as plain text (markup removed).
//! Preamble text that is not a field is not kept (except the questions.md agent sentence).

use crate::contracts::template::{self, TemplateError, TemplateKind, TemplateValue, Vars};
use nso_text::documents::markdown::{self, Block, Document, Field, ListItem, Section};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

pub use crate::contracts::task_id::{task_id, validate_task_id, TaskIdError, TaskIdParts};

/// The instructions of the techspec's contract template, used by [`Contract::new`].
pub const DEFAULT_INSTRUCTIONS: [&str; 5] = [
    "Read all context files listed above",
    "If anything is unclear, write questions to `questions.md` in this folder and STOP",
    "Update `status.md` as you work",
    "Write final results to `result.md`",
    "Ensure all success criteria are met before completing",
];

/// A checklist entry (`- [ ] text` / `- [x] text`). The text is Markdown source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkbox {
    /// Item text (Markdown).
    pub text: String,
    /// Whether it is ticked. Plain list items take the section's default (unticked for
    /// criteria and remaining steps, ticked for completed steps).
    pub checked: bool,
}

/// A field the parser does not know, kept for the round trip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtraField {
    /// Key as written (plain text).
    pub key: String,
    /// Value (plain text).
    pub value: String,
}

/// A section the parser does not know, kept for the round trip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtraSection {
    /// Heading text (plain).
    pub heading: String,
    /// Body (Markdown source, trimmed).
    pub body: String,
}

/// `contract.md`: what the orchestrator wants the subagent to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contract {
    /// Task id (from a `Task ID` field or the title `# Task Contract: <id>`).
    pub task_id: String,
    /// The agent the task is delegated to.
    pub agent: String,
    /// Workflow (`BUILD` …).
    pub workflow: String,
    /// Phase (`IMPLEMENTATION` …).
    pub phase: Option<String>,
    /// Creation time as written (the shim supplies it).
    pub created: Option<String>,
    /// Who delegated (`Oracle` in the techspec).
    pub delegated_by: Option<String>,
    /// `## Objective` (Markdown).
    pub objective: String,
    /// `## Requirements` or `## Requirements Reference` (Markdown, may be empty).
    pub requirements_reference: String,
    /// `## Success Criteria`.
    pub success_criteria: Vec<Checkbox>,
    /// `## Context Files` (Markdown items, usually paths).
    pub context_files: Vec<String>,
    /// `## Instructions` (Markdown items).
    #[serde(default = "default_instructions")]
    pub instructions: Vec<String>,
    /// Unknown fields.
    pub extra_fields: Vec<ExtraField>,
    /// Unknown sections.
    pub extra_sections: Vec<ExtraSection>,
}

fn default_instructions() -> Vec<String> {
    DEFAULT_INSTRUCTIONS.iter().map(|s| s.to_string()).collect()
}

impl Contract {
    /// A contract with the default instructions and no optional parts.
    pub fn new(task_id: &str, agent: &str, workflow: &str, objective: &str) -> Contract {
        Contract {
            task_id: task_id.to_string(),
            agent: agent.to_string(),
            workflow: workflow.to_string(),
            phase: None,
            created: None,
            delegated_by: None,
            objective: objective.to_string(),
            requirements_reference: String::new(),
            success_criteria: Vec::new(),
            context_files: Vec::new(),
            instructions: DEFAULT_INSTRUCTIONS.iter().map(|s| s.to_string()).collect(),
            extra_fields: Vec::new(),
            extra_sections: Vec::new(),
        }
    }
}

/// The `Status` values of `status.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TaskStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Waiting on something.
    Blocked,
    /// Done.
    Complete,
    /// Gave up.
    Failed,
}

impl TaskStatus {
    /// The value as written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "PENDING",
            TaskStatus::InProgress => "IN_PROGRESS",
            TaskStatus::Blocked => "BLOCKED",
            TaskStatus::Complete => "COMPLETE",
            TaskStatus::Failed => "FAILED",
        }
    }
}

/// The `Status` values of `result.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ResultStatus {
    /// The work is done.
    Complete,
    /// The work could not be done.
    Failed,
}

impl ResultStatus {
    /// The value as written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultStatus::Complete => "COMPLETE",
            ResultStatus::Failed => "FAILED",
        }
    }
}

/// `status.md`: progress reported by the subagent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// Task id from the title, if given.
    pub task_id: Option<String>,
    /// Current status.
    pub status: TaskStatus,
    /// `Last Update` time as written.
    pub last_update: Option<String>,
    /// `Progress` text.
    pub progress: Option<String>,
    /// `Current Step` (a field, or the first item of a `## Current Step` section).
    pub current_step: Option<String>,
    /// `## Completed` / `## Completed Steps`.
    pub completed_steps: Vec<Checkbox>,
    /// `## Remaining`.
    pub remaining: Vec<Checkbox>,
    /// `## Artifacts` / `## Artifacts Created` (Markdown items).
    pub artifacts: Vec<String>,
    /// Unknown fields.
    pub extra_fields: Vec<ExtraField>,
    /// Unknown sections.
    pub extra_sections: Vec<ExtraSection>,
}

/// One deliverable of `result.md`: `- path (note)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deliverable {
    /// The path (a leading code span, or the first word of the item).
    pub path: String,
    /// What follows the path, without enclosing parentheses or a leading `-`/`:` (Markdown).
    pub note: String,
}

/// One `- Name: value` line of `## Validation` (or a table row).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationEntry {
    /// What was checked (`Lint`).
    pub name: String,
    /// Outcome as written (`✅ Pass`); empty when the line had no colon.
    pub value: String,
}

/// `result.md`: the subagent's final report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskResult {
    /// Task id from the title, if given.
    pub task_id: Option<String>,
    /// COMPLETE or FAILED.
    pub status: ResultStatus,
    /// `Completed` time as written.
    pub completed: Option<String>,
    /// `Duration` as written.
    pub duration: Option<String>,
    /// `## Deliverables`.
    pub deliverables: Vec<Deliverable>,
    /// `## Validation`.
    pub validation: Vec<ValidationEntry>,
    /// `## Notes` (Markdown).
    pub notes: String,
    /// Unknown fields.
    pub extra_fields: Vec<ExtraField>,
    /// Unknown sections.
    pub extra_sections: Vec<ExtraSection>,
}

/// `questions.md`: what the subagent needs answered before it can work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Questions {
    /// Task id from the title, if given.
    pub task_id: Option<String>,
    /// The asking agent (`Agent X needs clarification…` or an `Agent` field).
    pub agent: Option<String>,
    /// The questions (Markdown items), at least one.
    pub questions: Vec<String>,
    /// `## What I Understood` (Markdown).
    pub understood: String,
    /// `## What Is Unclear` (Markdown).
    pub unclear: String,
    /// Unknown fields.
    pub extra_fields: Vec<ExtraField>,
    /// Unknown sections.
    pub extra_sections: Vec<ExtraSection>,
}

/// A task file that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParseError {
    /// Stable code: `task_file_missing_field`, `task_file_invalid_value`,
    /// `task_file_duplicate_field`, `task_file_duplicate_section`,
    /// `task_file_missing_section`, `task_file_conflict`.
    pub code: &'static str,
    /// `contract.md`, `status.md`, `result.md` or `questions.md`.
    pub file: &'static str,
    /// 1-based line where the problem is (or where the missing part was expected).
    pub line: usize,
    /// What was expected there.
    pub expected: String,
    /// What was found instead, if anything.
    pub found: Option<String>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} line {}: expected {}",
            self.file, self.line, self.expected
        )?;
        if let Some(found) = &self.found {
            write!(f, " (found \"{found}\")")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {}

const TASK_STATUS_VALUES: &str = "PENDING, IN_PROGRESS, BLOCKED, COMPLETE, FAILED";
const RESULT_STATUS_VALUES: &str = "COMPLETE, FAILED";

// ---------------------------------------------------------------------------------------
// Parsing helpers

struct Ctx {
    file: &'static str,
    doc: Document,
}

type Known = &'static [(&'static str, &'static [&'static str])];

struct FieldValue {
    value: String,
    line: usize,
}

impl Ctx {
    fn new(file: &'static str, text: &str) -> Ctx {
        Ctx {
            file,
            doc: Document::parse(text),
        }
    }

    fn err(
        &self,
        code: &'static str,
        line: usize,
        expected: String,
        found: Option<String>,
    ) -> ParseError {
        ParseError {
            code,
            file: self.file,
            line: line.max(1),
            expected,
            found: found.map(|f| clip(&f, 80)),
        }
    }

    /// Where fields are expected: the first preamble block, else just after the title.
    fn fields_line(&self) -> usize {
        let first = self.doc.preamble.first().map(block_line);
        first.unwrap_or_else(|| self.doc.title.as_ref().map_or(1, |t| t.line + 1))
    }

    /// The last non-empty line.
    fn end_line(&self) -> usize {
        self.doc.text.trim_end().split('\n').count().max(1)
    }

    /// Known fields of the preamble by canonical name, and the unknown ones.
    fn fields(
        &self,
        known: Known,
    ) -> Result<(BTreeMap<&'static str, FieldValue>, Vec<ExtraField>), ParseError> {
        self.fields_except(known, None)
    }

    /// Like `fields`, ignoring the paragraph line `skip` (the questions.md agent sentence).
    fn fields_except(
        &self,
        known: Known,
        skip: Option<usize>,
    ) -> Result<(BTreeMap<&'static str, FieldValue>, Vec<ExtraField>), ParseError> {
        let mut found: BTreeMap<&'static str, FieldValue> = BTreeMap::new();
        let mut extra = Vec::new();
        for Field {
            key,
            norm,
            value,
            line,
        } in markdown::fields(&self.doc.preamble)
        {
            if Some(line) == skip {
                continue;
            }
            let Some((canonical, _)) = known
                .iter()
                .find(|(_, norms)| norms.contains(&norm.as_str()))
            else {
                extra.push(ExtraField { key, value });
                continue;
            };
            if let Some(prev) = found.get(canonical) {
                if !prev.value.trim().eq_ignore_ascii_case(value.trim()) {
                    return Err(self.err(
                        "task_file_duplicate_field",
                        line,
                        format!("one {key} field (another one is on line {})", prev.line),
                        Some(value),
                    ));
                }
                continue;
            }
            found.insert(canonical, FieldValue { value, line });
        }
        Ok((found, extra))
    }

    /// Known sections by canonical name, and the unknown ones.
    fn sections(
        &self,
        known: Known,
    ) -> Result<(BTreeMap<&'static str, &Section>, Vec<ExtraSection>), ParseError> {
        let mut found: BTreeMap<&'static str, &Section> = BTreeMap::new();
        let mut extra = Vec::new();
        for section in &self.doc.sections {
            let norm = markdown::normalize_key(&section.heading.text);
            let Some((canonical, _)) = known
                .iter()
                .find(|(_, norms)| norms.contains(&norm.as_str()))
            else {
                extra.push(ExtraSection {
                    heading: section.heading.text.clone(),
                    body: section.body.clone(),
                });
                continue;
            };
            if let Some(prev) = found.get(canonical) {
                return Err(self.err(
                    "task_file_duplicate_section",
                    section.heading.line,
                    format!(
                        "one `## {}` section (another one starts on line {})",
                        section.heading.text, prev.heading.line
                    ),
                    None,
                ));
            }
            found.insert(canonical, section);
        }
        Ok((found, extra))
    }

    /// The id after the title prefix (`# Task Status: <id>`), if any.
    fn title_id(&self, prefixes: &[&str]) -> Option<(String, usize)> {
        let title = self.doc.title.as_ref()?;
        for prefix in prefixes {
            let head = title.text.get(..prefix.len())?;
            if head.eq_ignore_ascii_case(prefix) {
                let rest = title.text.get(prefix.len()..).unwrap_or("");
                let id = rest
                    .trim_start_matches([':', '-', '\u{2014}', '\u{2013}', ' ', '\t', '#'])
                    .trim();
                return (!id.is_empty()).then(|| (id.to_string(), title.line));
            }
        }
        None
    }
}

fn block_line(b: &Block) -> usize {
    match b {
        Block::Paragraph { line, .. }
        | Block::List { line, .. }
        | Block::Table { line, .. }
        | Block::Other { line } => *line,
        Block::Heading(h) => h.line,
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

fn non_empty(v: Option<&FieldValue>) -> Option<String> {
    v.map(|f| f.value.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// A list-like entry of a section: a list item, or a paragraph line when there is no list.
struct Entry {
    raw: String,
    plain: String,
    checked: Option<bool>,
    code_prefix: Option<String>,
    code_prefix_end: usize,
}

/// Item text for a list: one line, escaped where it would otherwise be read as block syntax
/// (see [`markdown::starts_like_block`]).
fn item_markdown(text: &str) -> String {
    markdown::escape_block_start(&line_value(text))
}

/// Undoes [`item_markdown`]'s escape.
fn unescape_item(raw: &str) -> String {
    markdown::unescape_block_start(raw)
}

fn entries(section: Option<&&Section>) -> Vec<Entry> {
    let Some(section) = section else {
        return Vec::new();
    };
    let items: Vec<&ListItem> = markdown::list_items(&section.blocks);
    if !items.is_empty() {
        return items
            .into_iter()
            .filter(|i| !i.raw.is_empty() || i.checked.is_some())
            .map(|i| Entry {
                raw: unescape_item(&i.raw),
                plain: i.text.clone(),
                checked: i.checked,
                code_prefix: i.code_prefix.clone(),
                code_prefix_end: i.code_prefix_end,
            })
            .collect();
    }
    let mut out = Vec::new();
    for block in &section.blocks {
        if let Block::Paragraph { text, .. } = block {
            for line in text.split('\n').map(str::trim).filter(|l| !l.is_empty()) {
                out.push(Entry {
                    raw: line.to_string(),
                    plain: line.to_string(),
                    checked: None,
                    code_prefix: None,
                    code_prefix_end: 0,
                });
            }
        }
    }
    out
}

fn checkboxes(section: Option<&&Section>, default: bool) -> Vec<Checkbox> {
    entries(section)
        .into_iter()
        .map(|e| Checkbox {
            text: e.raw,
            checked: e.checked.unwrap_or(default),
        })
        .collect()
}

fn raw_items(section: Option<&&Section>) -> Vec<String> {
    entries(section)
        .into_iter()
        .map(|e| e.raw)
        .filter(|s| !s.is_empty())
        .collect()
}

fn body(section: Option<&&Section>) -> String {
    section.map(|s| s.body.clone()).unwrap_or_default()
}

/// Normalizes a status word: outer punctuation/emoji dropped, upper case, spaces and `-`
/// as `_`.
fn status_word(value: &str) -> String {
    value
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_uppercase()
        .replace([' ', '-'], "_")
}

fn parse_task_status(value: &str) -> Option<TaskStatus> {
    match status_word(value).as_str() {
        "PENDING" => Some(TaskStatus::Pending),
        "IN_PROGRESS" | "INPROGRESS" => Some(TaskStatus::InProgress),
        "BLOCKED" => Some(TaskStatus::Blocked),
        "COMPLETE" | "COMPLETED" => Some(TaskStatus::Complete),
        "FAILED" => Some(TaskStatus::Failed),
        _ => None,
    }
}

fn parse_result_status(value: &str) -> Option<ResultStatus> {
    match status_word(value).as_str() {
        "COMPLETE" | "COMPLETED" => Some(ResultStatus::Complete),
        "FAILED" => Some(ResultStatus::Failed),
        _ => None,
    }
}

/// Strips one pair of parentheses enclosing the whole text (balanced), else returns it.
fn strip_outer_parens(s: &str) -> &str {
    let Some(inner) = s.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else {
        return s;
    };
    let mut depth = 1i32;
    for c in inner.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return s;
                }
            }
            _ => {}
        }
    }
    inner
}

fn deliverable(e: &Entry) -> Option<Deliverable> {
    let (path, rest) = match &e.code_prefix {
        Some(code) => (
            code.trim().to_string(),
            e.raw.get(e.code_prefix_end..).unwrap_or(""),
        ),
        None => {
            let path = e
                .plain
                .split_whitespace()
                .next()?
                .trim_end_matches([':', ',', ';'])
                .to_string();
            let rest = match e.raw.find(char::is_whitespace) {
                Some(i) => &e.raw[i..],
                None => "",
            };
            (path, rest)
        }
    };
    if path.is_empty() {
        return None;
    }
    let rest = rest.trim();
    let rest = rest
        .strip_prefix("\u{2014}")
        .or_else(|| rest.strip_prefix("\u{2013}"))
        .or_else(|| rest.strip_prefix("- "))
        .or_else(|| rest.strip_prefix(':'))
        .map(str::trim)
        .unwrap_or(rest);
    Some(Deliverable {
        path,
        note: strip_outer_parens(rest).trim().to_string(),
    })
}

// ---------------------------------------------------------------------------------------
// Parsers

const CONTRACT_FIELDS: Known = &[
    ("task_id", &["taskid", "id"]),
    ("agent", &["agent", "assignedagent", "assignee"]),
    ("workflow", &["workflow"]),
    ("phase", &["phase"]),
    ("created", &["created", "createdat", "timestamp"]),
    ("delegated_by", &["delegatedby"]),
];

const CONTRACT_SECTIONS: Known = &[
    ("objective", &["objective", "goal"]),
    (
        "requirements",
        &["requirements", "requirementsreference", "requirement"],
    ),
    (
        "criteria",
        &["successcriteria", "acceptancecriteria", "criteria"],
    ),
    ("context", &["contextfiles", "context", "files"]),
    ("instructions", &["instructions"]),
];

/// Parses `contract.md`. Requires a task id (field or title), `Agent`, `Workflow` and a
/// non-empty `## Objective`.
pub fn parse_contract(text: &str) -> Result<Contract, ParseError> {
    let ctx = Ctx::new("contract.md", text);
    let (fields, extra_fields) = ctx.fields(CONTRACT_FIELDS)?;
    let (sections, extra_sections) = ctx.sections(CONTRACT_SECTIONS)?;
    let from_field = fields
        .get("task_id")
        .filter(|f| !f.value.is_empty())
        .map(|f| (f.value.clone(), f.line));
    let from_title = ctx.title_id(&["Task Contract"]);
    let task_id =
        match (from_field, from_title) {
            (Some((f, line)), Some((t, _))) if f != t => {
                return Err(ctx.err(
                    "task_file_conflict",
                    line,
                    format!("the Task ID field to match the id in the title (\"{t}\")"),
                    Some(f),
                ))
            }
            (Some((f, _)), _) => f,
            (None, Some((t, _))) => t,
            (None, None) => return Err(ctx.err(
                "task_file_missing_field",
                ctx.doc.title.as_ref().map_or(1, |t| t.line),
                "a task id: a title `# Task Contract: <task id>` or a `- Task ID: <task id>` field"
                    .into(),
                None,
            )),
        };
    let required = |name: &str, label: &str| -> Result<String, ParseError> {
        match fields.get(name) {
            Some(f) if !f.value.trim().is_empty() => Ok(f.value.trim().to_string()),
            Some(f) => Err(ctx.err(
                "task_file_missing_field",
                f.line,
                format!("a value for the {label} field"),
                None,
            )),
            None => Err(ctx.err(
                "task_file_missing_field",
                ctx.fields_line(),
                format!("an {label} field (`- {label}: <value>` or a table row `| {label} | <value> |`)")
                    .replace("an Workflow", "a Workflow"),
                None,
            )),
        }
    };
    let agent = required("agent", "Agent")?;
    let workflow = required("workflow", "Workflow")?;
    let objective = body(sections.get("objective"));
    if objective.is_empty() {
        let line = sections
            .get("objective")
            .map_or(ctx.end_line(), |s| s.heading.line);
        return Err(ctx.err(
            "task_file_missing_section",
            line,
            "a `## Objective` section saying what to do".into(),
            None,
        ));
    }
    Ok(Contract {
        task_id,
        agent,
        workflow,
        phase: non_empty(fields.get("phase")),
        created: non_empty(fields.get("created")),
        delegated_by: non_empty(fields.get("delegated_by")),
        objective,
        requirements_reference: body(sections.get("requirements")),
        success_criteria: checkboxes(sections.get("criteria"), false),
        context_files: raw_items(sections.get("context")),
        instructions: raw_items(sections.get("instructions")),
        extra_fields,
        extra_sections,
    })
}

const STATUS_FIELDS: Known = &[
    ("task_id", &["taskid", "id"]),
    ("status", &["status", "state"]),
    (
        "last_update",
        &["lastupdate", "lastupdated", "updated", "updatedat"],
    ),
    ("progress", &["progress"]),
    ("current_step", &["currentstep", "current"]),
];

const STATUS_SECTIONS: Known = &[
    ("completed", &["completed", "completedsteps", "done"]),
    (
        "remaining",
        &["remaining", "remainingsteps", "nextsteps", "todo"],
    ),
    (
        "artifacts",
        &["artifacts", "artifactscreated", "files", "filescreated"],
    ),
    ("current_step", &["currentstep"]),
];

fn status_error(ctx: &Ctx, field: Option<&FieldValue>, values: &str) -> ParseError {
    let (code, line, found) = match field {
        Some(f) => ("task_file_invalid_value", f.line, Some(f.value.clone())),
        None => ("task_file_missing_field", ctx.fields_line(), None),
    };
    ctx.err(
        code,
        line,
        format!("a Status field with one of {values}"),
        found,
    )
}

/// Parses `status.md`. Requires a `Status` field with a known value.
pub fn parse_status(text: &str) -> Result<Status, ParseError> {
    let ctx = Ctx::new("status.md", text);
    let (fields, extra_fields) = ctx.fields(STATUS_FIELDS)?;
    let (sections, extra_sections) = ctx.sections(STATUS_SECTIONS)?;
    let status_field = fields.get("status");
    let status = status_field
        .and_then(|f| parse_task_status(&f.value))
        .ok_or_else(|| status_error(&ctx, status_field, TASK_STATUS_VALUES))?;
    let task_id =
        non_empty(fields.get("task_id")).or_else(|| ctx.title_id(&["Task Status"]).map(|t| t.0));
    let current_step = non_empty(fields.get("current_step")).or_else(|| {
        let items = raw_items(sections.get("current_step"));
        if items.is_empty() {
            Some(body(sections.get("current_step"))).filter(|b| !b.is_empty())
        } else {
            Some(items.join("; "))
        }
    });
    Ok(Status {
        task_id,
        status,
        last_update: non_empty(fields.get("last_update")),
        progress: non_empty(fields.get("progress")),
        current_step: current_step.map(|s| s.replace('\n', " ")),
        completed_steps: checkboxes(sections.get("completed"), true),
        remaining: checkboxes(sections.get("remaining"), false),
        artifacts: raw_items(sections.get("artifacts")),
        extra_fields,
        extra_sections,
    })
}

const RESULT_FIELDS: Known = &[
    ("task_id", &["taskid", "id"]),
    ("status", &["status", "result", "outcome"]),
    (
        "completed",
        &["completed", "completedat", "finished", "finishedat"],
    ),
    ("duration", &["duration"]),
];

const RESULT_SECTIONS: Known = &[
    (
        "deliverables",
        &["deliverables", "filescreated", "files", "artifacts"],
    ),
    (
        "validation",
        &["validation", "checks", "testresults", "verification"],
    ),
    (
        "notes",
        &["notes", "notesfororacle", "notesfortheorchestrator"],
    ),
];

fn validation_entries(section: Option<&&Section>) -> Vec<ValidationEntry> {
    let Some(s) = section else { return Vec::new() };
    let mut out = Vec::new();
    for block in &s.blocks {
        if let Block::Table { rows, .. } = block {
            for row in rows {
                if let Some(name) = row.cells.first().filter(|c| !c.is_empty()) {
                    out.push(ValidationEntry {
                        name: name.clone(),
                        value: row.cells[1..].join(" | "),
                    });
                }
            }
        }
    }
    if !out.is_empty() {
        return out;
    }
    entries(section)
        .into_iter()
        .filter(|e| !e.plain.is_empty())
        .map(|e| match markdown::split_field(&e.plain) {
            Some((name, value)) => ValidationEntry { name, value },
            None => ValidationEntry {
                name: e.plain,
                value: String::new(),
            },
        })
        .collect()
}

/// Parses `result.md`. Requires a `Status` field of COMPLETE or FAILED.
pub fn parse_result(text: &str) -> Result<TaskResult, ParseError> {
    let ctx = Ctx::new("result.md", text);
    let (fields, extra_fields) = ctx.fields(RESULT_FIELDS)?;
    let (sections, extra_sections) = ctx.sections(RESULT_SECTIONS)?;
    let status_field = fields.get("status");
    let status = status_field
        .and_then(|f| parse_result_status(&f.value))
        .ok_or_else(|| status_error(&ctx, status_field, RESULT_STATUS_VALUES))?;
    Ok(TaskResult {
        task_id: non_empty(fields.get("task_id"))
            .or_else(|| ctx.title_id(&["Task Result"]).map(|t| t.0)),
        status,
        completed: non_empty(fields.get("completed")),
        duration: non_empty(fields.get("duration")),
        deliverables: entries(sections.get("deliverables"))
            .iter()
            .filter_map(deliverable)
            .collect(),
        validation: validation_entries(sections.get("validation")),
        notes: body(sections.get("notes")),
        extra_fields,
        extra_sections,
    })
}

const QUESTIONS_FIELDS: Known = &[("task_id", &["taskid", "id"]), ("agent", &["agent"])];

const QUESTIONS_SECTIONS: Known = &[
    ("questions", &["questions", "question", "openquestions"]),
    (
        "understood",
        &["whatiunderstood", "understood", "understanding"],
    ),
    (
        "unclear",
        &["whatisunclear", "unclear", "ambiguities", "ambiguity"],
    ),
];

/// The agent of `Agent X needs clarification before proceeding.`, and its line.
fn agent_sentence(blocks: &[Block]) -> Option<(String, usize)> {
    for block in blocks {
        if let Block::Paragraph { text, line: first } = block {
            for (n, line) in text.split('\n').enumerate() {
                let line = line.trim();
                let Some(head) = line.get(..6) else { continue };
                if !head.eq_ignore_ascii_case("agent ") {
                    continue;
                }
                let rest = &line[6..];
                if let Some(i) = rest.find(" needs clarification") {
                    let agent = rest[..i].trim();
                    return (!agent.is_empty()).then(|| (agent.to_string(), first + n));
                }
            }
        }
    }
    None
}

/// Parses `questions.md`. Requires at least one question: the items of `## Questions`
/// (or, without that section, the list items of the preamble).
pub fn parse_questions(text: &str) -> Result<Questions, ParseError> {
    let ctx = Ctx::new("questions.md", text);
    let sentence = agent_sentence(&ctx.doc.preamble);
    let (fields, extra_fields) =
        ctx.fields_except(QUESTIONS_FIELDS, sentence.as_ref().map(|s| s.1))?;
    let (sections, extra_sections) = ctx.sections(QUESTIONS_SECTIONS)?;
    let mut questions: Vec<String> = match sections.get("questions") {
        Some(s) => {
            let items = raw_items(Some(s));
            if items.is_empty() {
                s.blocks
                    .iter()
                    .filter_map(|b| match b {
                        Block::Paragraph { text, .. } => {
                            Some(text.replace('\n', " ").trim().to_string())
                        }
                        _ => None,
                    })
                    .filter(|t| !t.is_empty())
                    .collect()
            } else {
                items
            }
        }
        None => markdown::list_items(&ctx.doc.preamble)
            .into_iter()
            .filter(|i| markdown::split_field(&i.text).is_none() && !i.raw.is_empty())
            .map(|i| unescape_item(&i.raw))
            .collect(),
    };
    questions.retain(|q| !q.trim().is_empty());
    if questions.is_empty() {
        let line = sections
            .get("questions")
            .map_or(ctx.end_line(), |s| s.heading.line);
        return Err(ctx.err(
            "task_file_missing_section",
            line,
            "a `## Questions` section with at least one question (`1. …` or `- …`)".into(),
            None,
        ));
    }
    Ok(Questions {
        task_id: non_empty(fields.get("task_id"))
            .or_else(|| ctx.title_id(&["Questions"]).map(|t| t.0)),
        agent: non_empty(fields.get("agent")).or(sentence.map(|s| s.0)),
        questions,
        understood: body(sections.get("understood")),
        unclear: body(sections.get("unclear")),
        extra_fields,
        extra_sections,
    })
}

// ---------------------------------------------------------------------------------------
// Rendering

/// A field value on one line.
fn line_value(s: &str) -> String {
    s.split('\n')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
        .trim()
        .to_string()
}

/// A value placed in a table cell: one line, `|` escaped.
fn cell_value(s: &str) -> String {
    line_value(s).replace('|', "\\|")
}

fn opt(s: &Option<String>) -> String {
    s.as_deref().map(line_value).unwrap_or_default()
}

fn text(s: impl Into<String>) -> TemplateValue {
    TemplateValue::Text(s.into())
}

fn check_items(items: &[Checkbox]) -> TemplateValue {
    TemplateValue::List(
        items
            .iter()
            .map(|c| {
                format!(
                    "[{}] {}",
                    if c.checked { "x" } else { " " },
                    item_markdown(&c.text)
                )
            })
            .collect(),
    )
}

fn plain_items(items: &[String]) -> TemplateValue {
    TemplateValue::List(items.iter().map(|s| item_markdown(s)).collect())
}

fn extra_fields_value(fields: &[ExtraField]) -> TemplateValue {
    TemplateValue::List(
        fields
            .iter()
            .map(|f| item_markdown(&format!("{}: {}", line_value(&f.key), line_value(&f.value))))
            .collect(),
    )
}

fn extra_sections_value(sections: &[ExtraSection]) -> TemplateValue {
    text(
        sections
            .iter()
            .map(|s| format!("## {}\n{}", line_value(&s.heading), s.body.trim()))
            .collect::<Vec<_>>()
            .join("\n\n"),
    )
}

/// A path as Markdown: bare when it only has `A-Za-z0-9./-`, else in a code span.
pub fn path_markdown(path: &str) -> String {
    if !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-'))
    {
        return path.to_string();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in path.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    let pad = path.starts_with('`')
        || path.ends_with('`')
        || (path.starts_with(' ') && path.ends_with(' '));
    if pad {
        format!("{fence} {path} {fence}")
    } else {
        format!("{fence}{path}{fence}")
    }
}

/// The variables the contract template receives: `task_id`, `agent`, `workflow`, `phase`,
/// `timestamp` (and `created`), `delegated_by`, `objective`, `requirements_reference`,
/// `criteria_list`, `file_list`, `instructions` (numbered), `extra_fields`, `extra_sections`.
/// Field values are put on one line and `|` is escaped (they sit in table cells).
pub fn contract_vars(c: &Contract) -> Vars {
    let mut v = Vars::new();
    v.insert("task_id".into(), text(line_value(&c.task_id)));
    v.insert("agent".into(), text(cell_value(&c.agent)));
    v.insert("workflow".into(), text(cell_value(&c.workflow)));
    v.insert("phase".into(), text(cell_value(&opt(&c.phase))));
    v.insert("timestamp".into(), text(cell_value(&opt(&c.created))));
    v.insert("created".into(), text(cell_value(&opt(&c.created))));
    v.insert(
        "delegated_by".into(),
        text(cell_value(&opt(&c.delegated_by))),
    );
    v.insert("objective".into(), text(c.objective.trim()));
    v.insert(
        "requirements_reference".into(),
        text(c.requirements_reference.trim()),
    );
    v.insert("criteria_list".into(), check_items(&c.success_criteria));
    v.insert("file_list".into(), plain_items(&c.context_files));
    v.insert(
        "instructions".into(),
        TemplateValue::OrderedList {
            ordered: c.instructions.iter().map(|s| item_markdown(s)).collect(),
        },
    );
    v.insert("extra_fields".into(), extra_fields_value(&c.extra_fields));
    v.insert(
        "extra_sections".into(),
        extra_sections_value(&c.extra_sections),
    );
    v
}

/// The variables the status template receives: `task_id`, `status`, `timestamp` (and
/// `last_update`), `progress`, `description` (and `current_step`), `completed_items`,
/// `remaining_items`, `files_created_or_modified`, `extra_fields`, `extra_sections`.
pub fn status_vars(s: &Status) -> Vars {
    let mut v = Vars::new();
    v.insert("task_id".into(), text(opt(&s.task_id)));
    v.insert("status".into(), text(s.status.as_str()));
    v.insert("timestamp".into(), text(opt(&s.last_update)));
    v.insert("last_update".into(), text(opt(&s.last_update)));
    v.insert("progress".into(), text(opt(&s.progress)));
    v.insert("description".into(), text(opt(&s.current_step)));
    v.insert("current_step".into(), text(opt(&s.current_step)));
    v.insert("completed_items".into(), check_items(&s.completed_steps));
    v.insert("remaining_items".into(), check_items(&s.remaining));
    v.insert(
        "files_created_or_modified".into(),
        plain_items(&s.artifacts),
    );
    v.insert("extra_fields".into(), extra_fields_value(&s.extra_fields));
    v.insert(
        "extra_sections".into(),
        extra_sections_value(&s.extra_sections),
    );
    v
}

/// The variables the result template receives: `task_id`, `status`, `timestamp` (and
/// `completed`), `duration`, `file_list` (deliverables as `path (note)`), `test_results`
/// (validation as `Name: value`), `any_notes_for_oracle` (and `notes`), `extra_fields`,
/// `extra_sections`.
pub fn result_vars(r: &TaskResult) -> Vars {
    let mut v = Vars::new();
    v.insert("task_id".into(), text(opt(&r.task_id)));
    v.insert("status".into(), text(r.status.as_str()));
    v.insert("timestamp".into(), text(opt(&r.completed)));
    v.insert("completed".into(), text(opt(&r.completed)));
    v.insert("duration".into(), text(opt(&r.duration)));
    v.insert(
        "file_list".into(),
        TemplateValue::List(
            r.deliverables
                .iter()
                .map(|d| {
                    let note = line_value(&d.note);
                    item_markdown(&if note.is_empty() {
                        path_markdown(&d.path)
                    } else {
                        format!("{} ({note})", path_markdown(&d.path))
                    })
                })
                .collect(),
        ),
    );
    v.insert(
        "test_results".into(),
        TemplateValue::List(
            r.validation
                .iter()
                .map(|e| {
                    let value = line_value(&e.value);
                    item_markdown(&if value.is_empty() {
                        line_value(&e.name)
                    } else {
                        format!("{}: {value}", line_value(&e.name))
                    })
                })
                .collect(),
        ),
    );
    v.insert("any_notes_for_oracle".into(), text(r.notes.trim()));
    v.insert("notes".into(), text(r.notes.trim()));
    v.insert("extra_fields".into(), extra_fields_value(&r.extra_fields));
    v.insert(
        "extra_sections".into(),
        extra_sections_value(&r.extra_sections),
    );
    v
}

/// The variables the questions template receives: `task_id`, `agent`, `questions`
/// (numbered), `agent_understanding`, `specific_ambiguity`, `extra_fields`, `extra_sections`.
pub fn questions_vars(q: &Questions) -> Vars {
    let mut v = Vars::new();
    v.insert("task_id".into(), text(opt(&q.task_id)));
    v.insert("agent".into(), text(opt(&q.agent)));
    v.insert(
        "questions".into(),
        TemplateValue::OrderedList {
            ordered: q.questions.iter().map(|s| item_markdown(s)).collect(),
        },
    );
    v.insert("agent_understanding".into(), text(q.understood.trim()));
    v.insert("specific_ambiguity".into(), text(q.unclear.trim()));
    v.insert("extra_fields".into(), extra_fields_value(&q.extra_fields));
    v.insert(
        "extra_sections".into(),
        extra_sections_value(&q.extra_sections),
    );
    v
}

fn render_with(
    kind: TemplateKind,
    template: Option<&str>,
    vars: &Vars,
) -> Result<String, TemplateError> {
    template::render_compact(template.unwrap_or(template::default_template(kind)), vars)
}

/// Renders a contract through `template` (None: [`template::default_template`]).
pub fn render_contract(c: &Contract, template: Option<&str>) -> Result<String, TemplateError> {
    render_with(TemplateKind::Contract, template, &contract_vars(c))
}

/// Renders a status through `template` (None: the default).
pub fn render_status(s: &Status, template: Option<&str>) -> Result<String, TemplateError> {
    render_with(TemplateKind::Status, template, &status_vars(s))
}

/// Renders a result through `template` (None: the default).
pub fn render_result(r: &TaskResult, template: Option<&str>) -> Result<String, TemplateError> {
    render_with(TemplateKind::Result, template, &result_vars(r))
}

/// Renders questions through `template` (None: the default).
pub fn render_questions(q: &Questions, template: Option<&str>) -> Result<String, TemplateError> {
    render_with(TemplateKind::Questions, template, &questions_vars(q))
}
