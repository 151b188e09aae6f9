//! state.json as ProofChecker writes it: `next_project_number`, task objects in
//! `active_projects` / `completed_projects` (or `tasks`, `projects`) with `project_number`,
//! `status` (lowercase snake case: `not_started`, `researched`), timestamps and `artifacts`.
//! A project's own state.json is a single object with `status` (and optionally its number).
//!
//! Task objects are located with byte spans, so edits change only the bytes they must.

use super::conditions::json_artifacts;
use super::json_text::{parse, JNode};
use super::machine::{default_arrays, default_number_keys, default_status_key, Extractor};
use super::text::LineIndex;

/// Where an entry is keyed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "number")]
pub enum EntryKey {
    /// The file holds one status (a story, a status.md, a project state.json).
    Single,
    /// A task of a multi-task file, by number.
    Task(u64),
}

/// One task object of a state.json.
#[derive(Debug, Clone)]
pub struct StateTask {
    /// The task's key.
    pub key: EntryKey,
    /// The array holding it (`active_projects`), empty for the root object.
    pub container: String,
    /// Index within the array.
    pub index: usize,
    /// 1-based line of the object's `{`.
    pub line: usize,
    /// The status value, if the key is present and a string.
    pub status: Option<String>,
    /// 1-based line of the status value.
    pub status_line: Option<usize>,
    /// `project_name` / `name` / `title`.
    pub name: Option<String>,
    /// `language`.
    pub language: Option<String>,
    /// `priority`.
    pub priority: Option<String>,
    /// Artifact paths.
    pub artifacts: Vec<String>,
    pub(crate) node: JNode,
}

impl StateTask {
    /// The task number (None for a root entry without a number).
    pub fn number(&self) -> Option<u64> {
        match self.key {
            EntryKey::Task(n) => Some(n),
            EntryKey::Single => None,
        }
    }
}

/// A parsed state.json.
#[derive(Debug, Clone)]
pub struct StateDoc {
    /// Task objects in document order (duplicates included).
    pub tasks: Vec<StateTask>,
    /// `next_project_number`, if present and a non-negative integer.
    pub next_project_number: Option<u64>,
    /// 1-based line of `next_project_number`.
    pub next_number_line: Option<usize>,
    pub(crate) root: JNode,
}

/// A state.json syntax error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateJsonError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses a state.json with the given `jsonTasks` extractor (other extractors: defaults).
pub fn parse_state(text: &str, extractor: &Extractor) -> Result<StateDoc, StateJsonError> {
    let root = parse(text).map_err(|e| StateJsonError {
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let (arrays, number_keys, status_key) = match extractor {
        Extractor::JsonTasks {
            arrays,
            number_keys,
            status_key,
        } => (arrays.clone(), number_keys.clone(), status_key.clone()),
        _ => (
            default_arrays(),
            default_number_keys(),
            default_status_key(),
        ),
    };
    let lines = LineIndex::new(text);
    let number_of = |o: &JNode| {
        number_keys
            .iter()
            .find_map(|k| o.get(k).and_then(JNode::as_u64))
    };
    let mut tasks = Vec::new();
    for m in root.members() {
        if !arrays.iter().any(|a| a == &m.key) {
            continue;
        }
        for (i, it) in m.value.items().iter().enumerate() {
            if !it.members().is_empty() {
                if let Some(n) = number_of(it) {
                    tasks.push(task_of(
                        &lines,
                        it,
                        EntryKey::Task(n),
                        &m.key,
                        i,
                        &status_key,
                    ));
                }
            }
        }
    }
    if tasks.is_empty() && root.get(&status_key).is_some() {
        let key = number_of(&root)
            .map(EntryKey::Task)
            .unwrap_or(EntryKey::Single);
        tasks.push(task_of(&lines, &root, key, "", 0, &status_key));
    }
    let nn = root.get("next_project_number");
    Ok(StateDoc {
        tasks,
        next_project_number: nn.and_then(JNode::as_u64),
        next_number_line: nn.map(|n| lines.line(n.start)),
        root,
    })
}

fn task_of(
    lines: &LineIndex,
    o: &JNode,
    key: EntryKey,
    container: &str,
    index: usize,
    status_key: &str,
) -> StateTask {
    let s = o.get(status_key);
    let str_of = |k: &[&str]| {
        k.iter()
            .find_map(|k| o.get(k).and_then(JNode::as_str).map(str::to_string))
    };
    StateTask {
        key,
        container: container.to_string(),
        index,
        line: lines.line(o.start),
        status: s.and_then(JNode::as_str).map(str::to_string),
        status_line: s.map(|s| lines.line(s.start)),
        name: str_of(&["project_name", "name", "title"]),
        language: str_of(&["language"]),
        priority: str_of(&["priority"]),
        artifacts: json_artifacts(o),
        node: o.clone(),
    }
}

/// The JSON spelling of a state: lowercase snake case (`NOT STARTED` → `not_started`), or
/// uppercase snake case when `like` (the value being replaced) is uppercase.
pub(crate) fn json_state(name: &str, like: Option<&str>) -> String {
    let snake = super::text::norm_key(name);
    match like {
        Some(l) if l.chars().any(|c| c.is_alphabetic()) && !l.chars().any(|c| c.is_lowercase()) => {
            snake.to_uppercase()
        }
        _ => snake,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_and_root() {
        let t = "{\n  \"next_project_number\": 271,\n  \"active_projects\": [\n    {\n      \"project_number\": 258,\n      \"status\": \"researched\",\n      \"artifacts\": [\"a/b.md\"]\n    }\n  ],\n  \"completed_projects\": [{\"project_number\": \"12\", \"status\": \"completed\"}]\n}\n";
        let d = parse_state(t, &Extractor::default_json_tasks()).unwrap();
        assert_eq!(d.next_project_number, Some(271));
        assert_eq!(d.next_number_line, Some(2));
        assert_eq!(d.tasks.len(), 2);
        assert_eq!(
            (
                d.tasks[0].key.clone(),
                d.tasks[0].line,
                d.tasks[0].status_line
            ),
            (EntryKey::Task(258), 4, Some(6))
        );
        assert_eq!(d.tasks[0].artifacts, vec!["a/b.md".to_string()]);
        assert_eq!(d.tasks[1].key, EntryKey::Task(12));
        let p = parse_state(
            "{\"status\": \"planned\"}",
            &Extractor::default_json_tasks(),
        )
        .unwrap();
        assert_eq!(p.tasks[0].key, EntryKey::Single);
        assert_eq!(json_state("NOT STARTED", Some("researched")), "not_started");
        assert_eq!(json_state("NOT STARTED", Some("RESEARCHED")), "NOT_STARTED");
    }
}
