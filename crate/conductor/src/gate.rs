//! The priority gate of seed 003, from `sprint.json`: does a new task fit the sprint?
//!
//! P1 always passes. A sprint whose `focus` is P1 refuses any other priority; a task that
//! matches an `explicitly_deferred` item (case-insensitive substring, either way) is refused.
//! The seed's north-star check reads files outside the conductor's home and is not done.
//! A `sprint.json` that cannot be read refuses non-P1 tasks (fail safe): the refusal names
//! the problem, and an override or a fix of the file gets past it.

use super::fields::Fields;

/// The optional `sprint.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sprint {
    /// E.g. `2026-W03`.
    pub sprint_name: Option<String>,
    /// The priority the sprint is about (`P1`).
    pub focus: Option<String>,
    /// What the sprint is for, most important first.
    pub priorities: Vec<String>,
    /// Work put off during the sprint.
    pub explicitly_deferred: Vec<String>,
}

/// The gate's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// The task fits.
    Pass,
    /// The task does not fit, and why (one sentence for the agent).
    Fail(String),
}

impl Sprint {
    /// Reads a `sprint.json` text.
    pub fn parse(text: &str) -> Result<Sprint, String> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            format!(
                "sprint.json is not valid JSON at line {}, column {}",
                e.line(),
                e.column()
            )
        })?;
        let mut f = Fields::new(value, "sprint.json")?;
        Ok(Sprint {
            sprint_name: f.string("sprint_name")?,
            focus: f.string("focus")?,
            priorities: f.strings("priorities")?,
            explicitly_deferred: f.strings("explicitly_deferred")?,
        })
    }
}

/// Is `priority` the top one (`P1`, any case, surrounding blanks ignored)?
pub fn is_p1(priority: &str) -> bool {
    priority.trim().eq_ignore_ascii_case("p1")
}

/// The gate for a task of `priority` under `sprint` (`None`: no sprint file; `Err`: a file
/// that cannot be read).
pub fn priority_gate(task: &str, priority: &str, sprint: Option<&Result<Sprint, String>>) -> Gate {
    if is_p1(priority) {
        return Gate::Pass;
    }
    let sprint = match sprint {
        None => return Gate::Pass,
        Some(Err(problem)) => {
            return Gate::Fail(format!(
                "{problem}, so the priority gate cannot confirm that a {priority} task fits the \
                 sprint"
            ))
        }
        Some(Ok(sprint)) => sprint,
    };
    if sprint.focus.as_deref().is_some_and(is_p1) {
        let name = sprint
            .sprint_name
            .as_deref()
            .map(|n| format!(" ({n})"))
            .unwrap_or_default();
        return Gate::Fail(format!(
            "Task priority {priority} doesn't align with current P1 sprint focus{name}."
        ));
    }
    if let Some(item) = deferred_match(task, &sprint.explicitly_deferred) {
        return Gate::Fail(format!(
            "Task matches {item:?}, which the sprint explicitly defers."
        ));
    }
    Gate::Pass
}

/// The first deferred item that the task contains or that contains the task.
fn deferred_match<'a>(task: &str, deferred: &'a [String]) -> Option<&'a str> {
    let task = task.trim().to_lowercase();
    if task.is_empty() {
        return None;
    }
    deferred.iter().map(String::as_str).find(|item| {
        let item = item.trim().to_lowercase();
        !item.is_empty() && (task.contains(&item) || item.contains(&task))
    })
}
