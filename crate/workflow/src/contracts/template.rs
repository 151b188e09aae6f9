//! `{{var}}` templates for the task files, with the defaults taken from the NSO techspec
//! (appendix "Contract Templates"), and the renderer.
//!
//! Rules of [`render`]:
//! - `{{ name }}` (spaces inside the braces allowed) is replaced by the variable `name`;
//!   names are ASCII letters, digits and `_`, not starting with a digit.
//! - A referenced variable missing from `vars` is an error naming it and its line; variables
//!   the template does not use are fine (a project template may drop fields).
//! - An unclosed `{{` or a placeholder that is not a valid name (such as the seed's
//!   `{{PENDING | IN_PROGRESS}}`) is an error with its line.
//! - Text values are inserted as they are; lists become Markdown lists (`- item` or
//!   `1. item`, one per line, continuation lines of an item indented to stay in it).
//!   Nothing is escaped.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The variables of a template.
pub type Vars = BTreeMap<String, TemplateValue>;

/// The value of one template variable.
///
/// From JSON: a string is `Text`, an array of strings is `List`, and
/// `{"ordered": [..]}` is `OrderedList`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TemplateValue {
    /// Inserted as is.
    Text(String),
    /// Rendered as a bullet list (`- item`), one item per line; empty list → empty text.
    List(Vec<String>),
    /// Rendered as a numbered list (`1. item`).
    OrderedList {
        /// The items.
        ordered: Vec<String>,
    },
}

impl TemplateValue {
    /// A text value.
    pub fn text(s: impl Into<String>) -> Self {
        TemplateValue::Text(s.into())
    }

    fn render(&self) -> String {
        match self {
            TemplateValue::Text(s) => s.clone(),
            TemplateValue::List(items) => list(items.iter().map(|i| ("- ".to_string(), i))),
            TemplateValue::OrderedList { ordered } => list(
                ordered
                    .iter()
                    .enumerate()
                    .map(|(n, i)| (format!("{}. ", n + 1), i)),
            ),
        }
    }
}

fn list<'a>(items: impl Iterator<Item = (String, &'a String)>) -> String {
    let mut out = Vec::new();
    for (marker, item) in items {
        let indent = " ".repeat(marker.len());
        let mut lines = item.split('\n');
        let first = lines.next().unwrap_or("");
        let mut s = format!("{marker}{first}");
        for l in lines {
            s.push('\n');
            if !l.is_empty() {
                s.push_str(&indent);
                s.push_str(l);
            }
        }
        out.push(s);
    }
    out.join("\n")
}

/// The four task files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TemplateKind {
    /// `contract.md`, written by the orchestrator before delegating.
    Contract,
    /// `status.md`, kept up to date by the subagent.
    Status,
    /// `result.md`, written by the subagent at the end.
    Result,
    /// `questions.md`, written by the subagent instead of working when unclear.
    Questions,
}

impl TemplateKind {
    /// The file name in the task folder (`contract.md` …).
    pub fn file_name(self) -> &'static str {
        match self {
            TemplateKind::Contract => "contract.md",
            TemplateKind::Status => "status.md",
            TemplateKind::Result => "result.md",
            TemplateKind::Questions => "questions.md",
        }
    }
}

/// The default template of a task file.
///
/// Taken from the techspec's appendix (section 12) with these changes, all needed so that
/// every struct field has a place and render → parse gives the same data:
/// - contract: `Delegated By | Oracle` became `{{delegated_by}}`; the five fixed
///   instructions became `{{instructions}}` (the defaults are [`crate::contracts::contract::DEFAULT_INSTRUCTIONS`]);
///   `{{extra_fields}}` and `{{extra_sections}}` were added.
/// - status: `{{PENDING | IN_PROGRESS | …}}` became `{{status}}`; a `Progress` field (from the
///   section 3.3 sample) and `{{extra_fields}}`/`{{extra_sections}}` were added.
/// - result: `{{COMPLETE | FAILED}}` became `{{status}}`; extras added.
/// - questions: `1. {{question_1}}` / `2. {{question_2}}` became one `{{questions}}` list;
///   extras added.
pub fn default_template(kind: TemplateKind) -> &'static str {
    match kind {
        TemplateKind::Contract => CONTRACT_TEMPLATE,
        TemplateKind::Status => STATUS_TEMPLATE,
        TemplateKind::Result => RESULT_TEMPLATE,
        TemplateKind::Questions => QUESTIONS_TEMPLATE,
    }
}

const CONTRACT_TEMPLATE: &str = "# Task Contract: {{task_id}}

| Field | Value |
|-------|-------|
| Agent | {{agent}} |
| Workflow | {{workflow}} |
| Phase | {{phase}} |
| Created | {{timestamp}} |
| Delegated By | {{delegated_by}} |

{{extra_fields}}

## Objective
{{objective}}

## Requirements
{{requirements_reference}}

## Success Criteria
{{criteria_list}}

## Context Files
{{file_list}}

## Instructions
{{instructions}}

{{extra_sections}}
";

const STATUS_TEMPLATE: &str = "# Task Status: {{task_id}}

- Status: {{status}}
- Last Update: {{timestamp}}
- Progress: {{progress}}
- Current Step: {{description}}
{{extra_fields}}

## Completed
{{completed_items}}

## Remaining
{{remaining_items}}

## Artifacts
{{files_created_or_modified}}

{{extra_sections}}
";

const RESULT_TEMPLATE: &str = "# Task Result: {{task_id}}

- Status: {{status}}
- Completed: {{timestamp}}
- Duration: {{duration}}
{{extra_fields}}

## Deliverables
{{file_list}}

## Validation
{{test_results}}

## Notes
{{any_notes_for_oracle}}

{{extra_sections}}
";

const QUESTIONS_TEMPLATE: &str = "# Questions: {{task_id}}

Agent {{agent}} needs clarification before proceeding.

{{extra_fields}}

## Questions
{{questions}}

## What I Understood
{{agent_understanding}}

## What Is Unclear
{{specific_ambiguity}}

{{extra_sections}}
";

/// A template problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TemplateError {
    /// Stable code: `template_unknown_variable`, `template_unclosed`, `template_bad_name`.
    pub code: &'static str,
    /// 1-based line of the placeholder in the template.
    pub line: usize,
    /// The variable or placeholder text concerned.
    pub name: String,
    /// Human-readable explanation.
    pub message: String,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "template line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TemplateError {}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Renders `template` with `vars` (rules in the module docs).
pub fn render(template: &str, vars: &Vars) -> Result<String, TemplateError> {
    let mut out = String::new();
    for piece in pieces(template, vars)? {
        match piece {
            Piece::Literal(s) => out.push_str(s),
            Piece::Value(v) => out.push_str(&v),
        }
    }
    Ok(out)
}

/// Like [`render`], then tidies the template's own layout without touching inserted values:
/// a line holding nothing but placeholders whose values are empty is dropped, runs of blank
/// lines are collapsed to one, trailing spaces are trimmed and the text ends with one newline.
/// The typed `render_*` functions of [`crate::contracts::contract`] use this.
pub fn render_compact(template: &str, vars: &Vars) -> Result<String, TemplateError> {
    const OPEN: char = '\u{E000}';
    const CLOSE: char = '\u{E001}';
    const EMPTY: char = '\u{E002}';
    let parts = pieces(template, vars)?;
    if template.contains([OPEN, CLOSE, EMPTY]) {
        let mut out = render(template, vars)?;
        out.push('\n');
        return Ok(out);
    }
    let mut values = Vec::new();
    let mut skeleton = String::new();
    for piece in parts {
        match piece {
            Piece::Literal(s) => skeleton.push_str(s),
            Piece::Value(v) if v.is_empty() => skeleton.push(EMPTY),
            Piece::Value(v) => {
                skeleton.push(OPEN);
                skeleton.push_str(&values.len().to_string());
                skeleton.push(CLOSE);
                values.push(v);
            }
        }
    }
    let mut lines: Vec<String> = Vec::new();
    let mut blank = true;
    for line in skeleton.split('\n') {
        let trimmed = line.trim();
        if !trimmed.is_empty() && trimmed.chars().all(|c| c == EMPTY || c == ' ') {
            continue;
        }
        let line = line.replace(EMPTY, "");
        let line = line.trim_end();
        if line.is_empty() {
            if blank {
                continue;
            }
            blank = true;
        } else {
            blank = false;
        }
        lines.push(line.to_string());
    }
    let skeleton = lines.join("\n");
    let mut out = String::with_capacity(skeleton.len() + 256);
    let mut rest = skeleton.as_str();
    while let Some(i) = rest.find(OPEN) {
        out.push_str(&rest[..i]);
        let after = &rest[i + OPEN.len_utf8()..];
        let Some(j) = after.find(CLOSE) else { break };
        if let Some(v) = after[..j].parse::<usize>().ok().and_then(|n| values.get(n)) {
            out.push_str(v);
        }
        rest = &after[j + CLOSE.len_utf8()..];
    }
    out.push_str(rest);
    let trimmed = out.trim_end();
    Ok(format!("{trimmed}\n"))
}

enum Piece<'t> {
    Literal(&'t str),
    Value(String),
}

fn pieces<'t>(template: &'t str, vars: &Vars) -> Result<Vec<Piece<'t>>, TemplateError> {
    let mut out = Vec::new();
    let mut rest = template;
    let mut line = 1usize;
    while let Some(open) = rest.find("{{") {
        let before = &rest[..open];
        out.push(Piece::Literal(before));
        line += before.matches('\n').count();
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            return Err(TemplateError {
                code: "template_unclosed",
                line,
                name: after.chars().take(30).collect(),
                message: "a `{{` placeholder is not closed with `}}`".to_string(),
            });
        };
        let inner = &after[..close];
        let name = inner.trim();
        if !valid_name(name) || inner.contains('\n') {
            return Err(TemplateError {
                code: "template_bad_name",
                line,
                name: inner.chars().take(60).collect(),
                message: format!(
                    "`{{{{{}}}}}` is not a variable name (use letters, digits and `_`)",
                    inner.chars().take(60).collect::<String>()
                ),
            });
        }
        let Some(value) = vars.get(name) else {
            let known: Vec<&str> = vars.keys().map(String::as_str).collect();
            return Err(TemplateError {
                code: "template_unknown_variable",
                line,
                name: name.to_string(),
                message: format!(
                    "unknown variable `{name}`; available: {}",
                    if known.is_empty() {
                        "(none)".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            });
        };
        out.push(Piece::Value(value.render()));
        rest = &after[close + 2..];
    }
    out.push(Piece::Literal(rest));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, TemplateValue)]) -> Vars {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn substitutes_text_and_lists() {
        let v = vars(&[
            ("a", TemplateValue::text("x")),
            (
                "l",
                TemplateValue::List(vec!["one".into(), "two\nmore".into()]),
            ),
            (
                "o",
                TemplateValue::OrderedList {
                    ordered: vec!["q1".into(), "q2".into()],
                },
            ),
        ]);
        assert_eq!(
            render("A={{a}} {{ a }}\n{{l}}\n{{o}}", &v).unwrap(),
            "A=x x\n- one\n- two\n  more\n1. q1\n2. q2"
        );
        assert_eq!(
            render("{{l}}", &vars(&[("l", TemplateValue::List(vec![]))])).unwrap(),
            ""
        );
    }

    #[test]
    fn errors_name_variable_and_line() {
        let e = render("x\n\n{{missing}}", &Vars::new()).unwrap_err();
        assert_eq!(
            (e.code, e.line, e.name.as_str()),
            ("template_unknown_variable", 3, "missing")
        );
        assert_eq!(
            e.to_string(),
            "template line 3: unknown variable `missing`; available: (none)"
        );
        let e = render("a\n{{PENDING | DONE}}", &Vars::new()).unwrap_err();
        assert_eq!((e.code, e.line), ("template_bad_name", 2));
        let e = render("{{x", &Vars::new()).unwrap_err();
        assert_eq!(e.code, "template_unclosed");
    }

    #[test]
    fn json_values() {
        let v: Vars = serde_json::from_str(r#"{"a":"t","b":["x"],"c":{"ordered":["y"]}}"#).unwrap();
        assert_eq!(render("{{a}}|{{b}}|{{c}}", &v).unwrap(), "t|- x|1. y");
    }

    #[test]
    fn every_default_template_uses_valid_placeholders() {
        for kind in [
            TemplateKind::Contract,
            TemplateKind::Status,
            TemplateKind::Result,
            TemplateKind::Questions,
        ] {
            let e = render(default_template(kind), &Vars::new()).unwrap_err();
            assert_eq!(e.code, "template_unknown_variable", "{kind:?}");
        }
    }
}
