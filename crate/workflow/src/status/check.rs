//! Consistency between TODO.md, state.json and a project's state.json: every disagreement,
//! with file and line (TODO.md entry/field lines; the line of the task's object in
//! state.json).
//!
//! Checked: tasks present in only one file; status (compared as machine states, so
//! `[NOT STARTED]` equals `not_started`); artifacts linked in one file but not the other;
//! language and priority (case-insensitive); duplicate task numbers; `next_project_number`
//! not above every used number, and differing from TODO.md's frontmatter copy; a project
//! state.json whose number, status or artifacts differ from the global state.json.

use super::machine::{Extractor, Machine, StatusConfig};
use super::state_json::{parse_state, EntryKey, StateDoc, StateTask};
use super::sync::{DEFAULT_STATE_PATH, DEFAULT_TODO_PATH};
use super::text::canon_state;
use super::todo::{parse_todo, same_path, TodoEntry};

/// One disagreement.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Disagreement {
    /// Stable code: `missing_in_state`, `missing_in_todo`, `status_mismatch`,
    /// `artifact_missing_in_state`, `artifact_missing_in_todo`, `field_mismatch`,
    /// `duplicate_number`, `next_number_stale`, `next_number_mismatch`, `no_status`,
    /// `unknown_status`, `unreadable`, `project_mismatch`.
    pub code: &'static str,
    /// The file the line refers to.
    pub file: String,
    /// 1-based line in `file`.
    pub line: usize,
    /// The task, if the disagreement is about one.
    pub task: Option<u64>,
    /// The field (`status`, `artifacts`, `language`, `priority`, `task`, `next_project_number`).
    pub field: String,
    /// The value in TODO.md.
    pub todo_value: Option<String>,
    /// The value in state.json (or the project state.json).
    pub state_value: Option<String>,
    /// The other file involved, if any.
    pub other_file: Option<String>,
    /// The line in the other file.
    pub other_line: Option<usize>,
    /// A sentence describing it.
    pub message: String,
}

/// Inputs of [`check_consistency_with`].
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ConsistencyInputs {
    /// Path of TODO.md (empty: default).
    pub todo_path: String,
    /// TODO.md text.
    pub todo_md: String,
    /// Path of state.json (empty: default).
    pub state_path: String,
    /// state.json text.
    pub state_json: String,
    /// Path of a project's state.json.
    pub project_state_path: Option<String>,
    /// A project's state.json text.
    pub project_state_json: Option<String>,
}

/// Checks the default paths with the default machines.
pub fn check_consistency(
    todo_md: &str,
    state_json: &str,
    project_state_json: Option<&str>,
) -> Vec<Disagreement> {
    check_consistency_with(
        &ConsistencyInputs {
            todo_md: todo_md.to_string(),
            state_json: state_json.to_string(),
            project_state_json: project_state_json.map(str::to_string),
            ..Default::default()
        },
        &StatusConfig::default(),
    )
}

struct D<'a> {
    out: Vec<Disagreement>,
    todo: &'a str,
    state: &'a str,
}

impl D<'_> {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        code: &'static str,
        in_todo: bool,
        line: usize,
        task: Option<u64>,
        field: &str,
        tv: Option<String>,
        sv: Option<String>,
        other_line: Option<usize>,
        message: String,
    ) {
        let (file, other) = if in_todo {
            (self.todo, self.state)
        } else {
            (self.state, self.todo)
        };
        self.out.push(Disagreement {
            code,
            file: file.to_string(),
            line,
            task,
            field: field.to_string(),
            todo_value: tv,
            state_value: sv,
            other_file: other_line.map(|_| other.to_string()),
            other_line,
            message,
        });
    }
}

fn same_state(m: &Machine, a: &str, b: &str) -> bool {
    match (m.state_of(a), m.state_of(b)) {
        (Some(x), Some(y)) => x == y,
        _ => canon_state(a) == canon_state(b),
    }
}

/// Every disagreement between TODO.md, state.json and (optionally) a project's state.json.
pub fn check_consistency_with(
    input: &ConsistencyInputs,
    config: &StatusConfig,
) -> Vec<Disagreement> {
    let todo_path = if input.todo_path.trim().is_empty() {
        DEFAULT_TODO_PATH.to_string()
    } else {
        input.todo_path.clone()
    };
    let state_path = if input.state_path.trim().is_empty() {
        DEFAULT_STATE_PATH.to_string()
    } else {
        input.state_path.clone()
    };
    let machine = config
        .resolve(&todo_path)
        .filter(|(_, b)| matches!(b.extract, Extractor::TodoEntries { .. }))
        .map(|(m, _)| m.clone())
        .or_else(|| config.machine("proofchecker").cloned())
        .or_else(|| {
            super::machine::default_machines()
                .into_iter()
                .find(|m| m.name == "proofchecker")
        });
    let Some(m) = machine else {
        return Vec::new();
    };
    let fields = match config.resolve(&todo_path).map(|(_, b)| b.extract.clone()) {
        Some(Extractor::TodoEntries { fields }) => fields,
        _ => vec!["status".to_string()],
    };
    let state_ex = m
        .binding_for(&state_path)
        .map(|b| b.extract.clone())
        .filter(|e| matches!(e, Extractor::JsonTasks { .. }))
        .unwrap_or_else(Extractor::default_json_tasks);
    let mut d = D {
        out: Vec::new(),
        todo: &todo_path,
        state: &state_path,
    };
    let todo = parse_todo(&input.todo_md, &fields);
    let state = match parse_state(&input.state_json, &state_ex) {
        Ok(s) => s,
        Err(e) => {
            d.push(
                "unreadable",
                false,
                e.line,
                None,
                "json",
                None,
                None,
                None,
                format!(
                    "{state_path} is not valid JSON (line {}, column {}: {}).",
                    e.line, e.column, e.message
                ),
            );
            return d.out;
        }
    };

    // Duplicates.
    let mut seen: Vec<u64> = Vec::new();
    for e in &todo.entries {
        if seen.contains(&e.number) {
            let first = todo
                .entries
                .iter()
                .find(|x| x.number == e.number)
                .map(|x| x.line);
            d.push(
                "duplicate_number",
                true,
                e.line,
                Some(e.number),
                "task",
                None,
                None,
                None,
                format!(
                    "task {} has a second entry at line {} (first at line {}).",
                    e.number,
                    e.line,
                    first.unwrap_or(0)
                ),
            );
        } else {
            seen.push(e.number);
        }
    }
    let mut seen_s: Vec<u64> = Vec::new();
    for t in &state.tasks {
        if let Some(n) = t.number() {
            if seen_s.contains(&n) {
                d.push(
                    "duplicate_number",
                    false,
                    t.line,
                    Some(n),
                    "task",
                    None,
                    None,
                    None,
                    format!("task {n} appears again at line {} of {state_path}.", t.line),
                );
            } else {
                seen_s.push(n);
            }
        }
    }

    // Per task.
    for e in dedup_entries(&todo.entries) {
        let n = e.number;
        let Some(t) = state.tasks.iter().find(|t| t.key == EntryKey::Task(n)) else {
            d.push(
                "missing_in_state",
                true,
                e.line,
                Some(n),
                "task",
                Some(e.title.clone()),
                None,
                None,
                format!(
                    "task {n} is in {todo_path} (line {}) but not in {state_path}.",
                    e.line
                ),
            );
            continue;
        };
        compare_task(&mut d, &m, e, t);
    }
    for t in &state.tasks {
        if let Some(n) = t.number() {
            if !todo.entries.iter().any(|e| e.number == n) && seen_first(&state, t) {
                d.push(
                    "missing_in_todo",
                    false,
                    t.line,
                    Some(n),
                    "task",
                    None,
                    t.name.clone(),
                    None,
                    format!(
                        "task {n} is in {state_path} (line {}) but has no entry in {todo_path}.",
                        t.line
                    ),
                );
            }
        }
    }

    // Numbers.
    let max_used = todo
        .entries
        .iter()
        .map(|e| e.number)
        .chain(state.tasks.iter().filter_map(|t| t.number()))
        .max();
    if let (Some(next), Some(max)) = (state.next_project_number, max_used) {
        let wraps = state
            .root
            .get("project_numbering")
            .and_then(|p| p.get("policy"))
            .and_then(|p| p.as_str())
            .map(|p| p.contains("modulo"))
            .unwrap_or(false);
        let used = todo.entries.iter().any(|e| e.number == next)
            || state.tasks.iter().any(|t| t.number() == Some(next));
        if (next <= max && !wraps) || used {
            d.push(
                "next_number_stale",
                false,
                state.next_number_line.unwrap_or(1),
                None,
                "next_project_number",
                None,
                Some(next.to_string()),
                None,
                format!(
                    "next_project_number is {next}, but task {max} exists{}; set it to {}.",
                    if used {
                        " and that number is taken"
                    } else {
                        ""
                    },
                    max + 1
                ),
            );
        }
    }
    if let (Some((tn, _, _, tl)), Some(sn)) = (todo.next_project_number, state.next_project_number)
    {
        if tn != sn {
            d.push(
                "next_number_mismatch",
                true,
                tl,
                None,
                "next_project_number",
                Some(tn.to_string()),
                Some(sn.to_string()),
                state.next_number_line,
                format!("next_project_number is {tn} in {todo_path} but {sn} in {state_path}."),
            );
        }
    }

    // Project state.json.
    if let Some(ptext) = &input.project_state_json {
        let ppath = input
            .project_state_path
            .clone()
            .unwrap_or_else(|| "(project state.json)".to_string());
        check_project(&mut d, &m, &state, &todo.entries, ptext, &ppath);
    }
    d.out
}

fn dedup_entries(entries: &[TodoEntry]) -> Vec<&TodoEntry> {
    let mut out: Vec<&TodoEntry> = Vec::new();
    for e in entries {
        if !out.iter().any(|x| x.number == e.number) {
            out.push(e);
        }
    }
    out
}

fn seen_first(state: &StateDoc, t: &StateTask) -> bool {
    state
        .tasks
        .iter()
        .find(|x| x.key == t.key)
        .map(|x| x.line == t.line)
        .unwrap_or(true)
}

fn compare_task(d: &mut D, m: &Machine, e: &TodoEntry, t: &StateTask) {
    let n = e.number;
    match (&e.status, &t.status) {
        (Some(ts), Some(ss)) => {
            if !same_state(m, &ts.raw, ss) {
                d.push(
                    "status_mismatch",
                    true,
                    ts.line,
                    Some(n),
                    "status",
                    Some(ts.raw.clone()),
                    Some(ss.clone()),
                    Some(t.status_line.unwrap_or(t.line)),
                    format!(
                        "task {n} is [{}] in TODO.md but \"{ss}\" in state.json (line {}).",
                        ts.raw,
                        t.status_line.unwrap_or(t.line)
                    ),
                );
            }
            for (raw, in_todo, line) in [
                (ts.raw.as_str(), true, ts.line),
                (ss.as_str(), false, t.status_line.unwrap_or(t.line)),
            ] {
                if m.state_of(raw).is_none() {
                    d.push(
                        "unknown_status",
                        in_todo,
                        line,
                        Some(n),
                        "status",
                        None,
                        None,
                        None,
                        format!(
                            "task {n} has status `{raw}`, which is not a state of {}.",
                            m.name
                        ),
                    );
                }
            }
        }
        (None, s) => d.push(
            "no_status",
            true,
            e.line,
            Some(n),
            "status",
            None,
            s.clone(),
            None,
            format!("task {n} has no `**Status**` line in TODO.md."),
        ),
        (Some(ts), None) => d.push(
            "no_status",
            false,
            t.line,
            Some(n),
            "status",
            Some(ts.raw.clone()),
            None,
            None,
            format!("task {n} has no `status` in state.json."),
        ),
    }
    let todo_arts = e.artifacts();
    for (a, line) in &todo_arts {
        if !t.artifacts.iter().any(|s| same_path(s, a)) {
            d.push(
                "artifact_missing_in_state",
                true,
                *line,
                Some(n),
                "artifacts",
                Some(a.clone()),
                None,
                Some(t.line),
                format!("task {n} links {a} in TODO.md but state.json's artifacts (task at line {}) lack it.", t.line),
            );
        }
    }
    for a in &t.artifacts {
        if !todo_arts.iter().any(|(x, _)| same_path(x, a)) {
            d.push(
                "artifact_missing_in_todo",
                false,
                t.line,
                Some(n),
                "artifacts",
                None,
                Some(a.clone()),
                Some(e.line),
                format!("task {n} lists {a} in state.json but its TODO.md entry (line {}) does not link it.", e.line),
            );
        }
    }
    for (field, names, sv) in [
        ("language", ["language", "lang"], &t.language),
        ("priority", ["priority", "prio"], &t.priority),
    ] {
        if let (Some(f), Some(sv)) = (e.field(&names), sv) {
            let tv = f.value.trim().trim_matches('*').trim();
            if !tv.is_empty() && !tv.eq_ignore_ascii_case(sv.trim()) {
                d.push(
                    "field_mismatch",
                    true,
                    f.line,
                    Some(n),
                    field,
                    Some(tv.to_string()),
                    Some(sv.clone()),
                    Some(t.line),
                    format!("task {n} has {field} `{tv}` in TODO.md but `{sv}` in state.json (task at line {}).", t.line),
                );
            }
        }
    }
}

fn check_project(
    d: &mut D,
    m: &Machine,
    state: &StateDoc,
    entries: &[TodoEntry],
    ptext: &str,
    ppath: &str,
) {
    let doc = match parse_state(ptext, &Extractor::default_json_tasks()) {
        Ok(p) => p,
        Err(e) => {
            d.out.push(Disagreement {
                code: "unreadable",
                file: ppath.to_string(),
                line: e.line,
                task: None,
                field: "json".into(),
                todo_value: None,
                state_value: None,
                other_file: None,
                other_line: None,
                message: format!(
                    "{ppath} is not valid JSON (line {}, column {}: {}).",
                    e.line, e.column, e.message
                ),
            });
            return;
        }
    };
    for pt in &doc.tasks {
        let number = pt.number().or_else(|| project_number_from_path(ppath));
        let Some(n) = number else { continue };
        let global = state.tasks.iter().find(|t| t.key == EntryKey::Task(n));
        let mut push = |code: &'static str,
                        field: &str,
                        sv: Option<String>,
                        other: Option<usize>,
                        message: String| {
            d.out.push(Disagreement {
                code,
                file: ppath.to_string(),
                line: pt.status_line.unwrap_or(pt.line),
                task: Some(n),
                field: field.to_string(),
                todo_value: entries
                    .iter()
                    .find(|e| e.number == n)
                    .and_then(|e| e.status.as_ref().map(|s| s.raw.clone())),
                state_value: sv,
                other_file: other.map(|_| d.state.to_string()),
                other_line: other,
                message,
            });
        };
        let Some(g) = global else {
            push(
                "project_mismatch",
                "task",
                None,
                None,
                format!("{ppath} is for task {n}, which is not in {}.", d.state),
            );
            continue;
        };
        if let (Some(ps), Some(gs)) = (&pt.status, &g.status) {
            if !same_state(m, ps, gs) {
                push(
                    "project_mismatch",
                    "status",
                    Some(ps.clone()),
                    Some(g.status_line.unwrap_or(g.line)),
                    format!(
                        "task {n} is \"{ps}\" in {ppath} but \"{gs}\" in {}.",
                        d.state
                    ),
                );
            }
        }
        for a in &pt.artifacts {
            if !g.artifacts.iter().any(|x| same_path(x, a)) {
                push(
                    "project_mismatch",
                    "artifacts",
                    Some(a.clone()),
                    Some(g.line),
                    format!("task {n} lists {a} in {ppath} but not in {}.", d.state),
                );
            }
        }
    }
}

/// `…/specs/258_name/state.json` → 258.
fn project_number_from_path(p: &str) -> Option<u64> {
    let dir = p.rsplit('/').nth(1)?;
    let digits = dir.bytes().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    dir[..digits].parse().ok()
}
