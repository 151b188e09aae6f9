//! Planning of atomic status updates across TODO.md, state.json and a project's state.json
//! (ProofChecker's status-sync-manager, phase 1 "prepare"): read and validate everything,
//! compute every new text, or fail without computing any. The shim (`plugin/status-sync.js`)
//! then commits them: temp files, a journal as the commit point, renames in the order given,
//! then a re-read compared with the plan (as [`verify_sync`] does). A mismatch after the
//! commit is reported, not undone: it means another writer changed the file meanwhile.
//!
//! * [`plan_status_sync`]: a task's new status, its timestamps and artifact links.
//! * [`plan_new_task`]: a new task numbered `next_project_number` (which is incremented).
//! * [`plan_archive`]: completed and abandoned tasks move out of TODO.md and state.json into
//!   `specs/archive/state.json`; their project directories move to `specs/archive/`.
//!
//! Edits are surgical: every byte outside the changed values and inserted lines is kept.

use super::conditions::MdFacts;
use super::json_text::{
    append_items, indent_unit, insert_member, parse as parse_json, quote, remove_item_set,
    render_object, replace_value, set_member, JKind, JNode,
};
use super::machine::{default_machines, Extractor, Machine, StatusConfig};
use super::markdown::{unclosed_fence, MdDoc};
use super::state_json::{json_state, parse_state, EntryKey, StateDoc, StateTask};
use super::text::{
    apply_edits, canon_state, is_iso_time, newline_of, norm_agent, norm_key, TextEdit,
};
use super::todo::{
    add_artifacts, field_line, insert_lines, parse_todo, same_path, TodoDoc, TodoEntry, TodoField,
};
use super::transition::{check_move, move_problem_sentence};
use std::fmt;

/// Default path of TODO.md.
pub const DEFAULT_TODO_PATH: &str = ".opencode/specs/TODO.md";
/// Default path of the global state.json.
pub const DEFAULT_STATE_PATH: &str = ".opencode/specs/state.json";
/// Default path of the archive state.json.
pub const DEFAULT_ARCHIVE_STATE_PATH: &str = ".opencode/specs/archive/state.json";

/// Which file a planned write is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKey {
    /// TODO.md.
    TodoMd,
    /// The global state.json.
    StateJson,
    /// The project's own state.json.
    ProjectStateJson,
    /// specs/archive/state.json.
    ArchiveStateJson,
}

impl FileKey {
    /// The key as a string (`todo_md`).
    pub fn as_str(self) -> &'static str {
        match self {
            FileKey::TodoMd => "todo_md",
            FileKey::StateJson => "state_json",
            FileKey::ProjectStateJson => "project_state_json",
            FileKey::ArchiveStateJson => "archive_state_json",
        }
    }
}

/// One file to write.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PlannedWrite {
    /// Which file.
    pub key: FileKey,
    /// Its path, as given in the inputs.
    pub path: String,
    /// The complete new text.
    pub text: String,
    /// True when the file does not exist yet.
    pub created: bool,
}

/// A directory to move (archiving); the shim moves it only if it exists.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DirMove {
    /// Current path.
    pub from: String,
    /// New path.
    pub to: String,
}

/// Everything to write, in write order. Files whose text does not change are left out.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SyncPlan {
    /// Files to write, in order.
    pub files: Vec<PlannedWrite>,
    /// Directories to move after the files are written (archiving only).
    pub moves: Vec<DirMove>,
    /// The task number allocated (new tasks) or changed.
    pub task_number: Option<u64>,
    /// One line describing the update.
    pub summary: String,
    /// Remarks (tasks skipped by archiving, project state left unchanged, ...).
    pub notes: Vec<String>,
}

/// Stable codes of sync planning errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncErrorCode {
    /// An input is malformed (time, artifact path, title, status name).
    SyncBadInput,
    /// A JSON file is not valid JSON.
    SyncInvalidJson,
    /// The task is not in the file.
    SyncTaskNotFound,
    /// The task number appears more than once in the file.
    SyncDuplicateTask,
    /// The task has no status.
    SyncMissingStatus,
    /// A status names no state of the machine.
    SyncUnknownState,
    /// TODO.md and state.json disagree in a way the update cannot resolve.
    SyncInconsistent,
    /// The status change is refused by the machine (transition, agent, condition, limit).
    SyncTransition,
    /// The number for a new task is already used.
    SyncNumberTaken,
    /// state.json has no usable `next_project_number`.
    SyncNoNextNumber,
    /// TODO.md's structure prevents the update (an unclosed code fence, a broken heading).
    SyncTodoStructure,
    /// An internal inconsistency (a bug); nothing should be written.
    SyncInternal,
}

impl SyncErrorCode {
    /// The code as a string (`sync_task_not_found`).
    pub fn as_str(self) -> &'static str {
        match self {
            SyncErrorCode::SyncBadInput => "sync_bad_input",
            SyncErrorCode::SyncInvalidJson => "sync_invalid_json",
            SyncErrorCode::SyncTaskNotFound => "sync_task_not_found",
            SyncErrorCode::SyncDuplicateTask => "sync_duplicate_task",
            SyncErrorCode::SyncMissingStatus => "sync_missing_status",
            SyncErrorCode::SyncUnknownState => "sync_unknown_state",
            SyncErrorCode::SyncInconsistent => "sync_inconsistent",
            SyncErrorCode::SyncTransition => "sync_transition",
            SyncErrorCode::SyncNumberTaken => "sync_number_taken",
            SyncErrorCode::SyncNoNextNumber => "sync_no_next_number",
            SyncErrorCode::SyncTodoStructure => "sync_todo_structure",
            SyncErrorCode::SyncInternal => "sync_internal",
        }
    }
}

/// A planning error: nothing may be written.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SyncError {
    /// Stable code.
    pub code: SyncErrorCode,
    /// The file the problem is in (`(input)` for bad arguments).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for SyncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for SyncError {}

fn err(code: SyncErrorCode, file: &str, line: Option<usize>, message: String) -> SyncError {
    SyncError {
        code,
        file: file.to_string(),
        line,
        message,
    }
}

fn default_todo_path() -> String {
    DEFAULT_TODO_PATH.to_string()
}
fn default_state_path() -> String {
    DEFAULT_STATE_PATH.to_string()
}
fn default_archive_path() -> String {
    DEFAULT_ARCHIVE_STATE_PATH.to_string()
}

/// Inputs of [`plan_status_sync`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncInputs {
    /// Path of TODO.md (default `.opencode/specs/TODO.md`), used for messages and machine lookup.
    #[serde(default = "default_todo_path")]
    pub todo_path: String,
    /// Current TODO.md text.
    pub todo_md: String,
    /// Path of state.json (default `.opencode/specs/state.json`).
    #[serde(default = "default_state_path")]
    pub state_path: String,
    /// Current state.json text.
    pub state_json: String,
    /// Path of the project's state.json, if it exists.
    #[serde(default)]
    pub project_state_path: Option<String>,
    /// Current text of the project's state.json, if it exists.
    #[serde(default)]
    pub project_state_json: Option<String>,
    /// The task.
    pub task_number: u64,
    /// The new status (`RESEARCHED`, `[RESEARCHED]` or `researched`).
    pub new_status: String,
    /// The agent asking for the change.
    pub agent: String,
    /// Agents whose moves `agent` may make too (those it is `like` in the policy).
    #[serde(default)]
    pub like: Vec<String>,
    /// The current time, ISO 8601 (`2026-01-03T18:18:35Z`).
    pub now_iso: String,
    /// Artifact paths to link.
    #[serde(default)]
    pub artifacts: Vec<String>,
}

impl Default for SyncInputs {
    fn default() -> Self {
        SyncInputs {
            todo_path: default_todo_path(),
            todo_md: String::new(),
            state_path: default_state_path(),
            state_json: String::new(),
            project_state_path: None,
            project_state_json: None,
            task_number: 0,
            new_status: String::new(),
            agent: String::new(),
            like: Vec::new(),
            now_iso: String::new(),
            artifacts: Vec::new(),
        }
    }
}

/// Inputs of [`plan_new_task`].
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct NewTaskInputs {
    /// Path of TODO.md (empty: default).
    pub todo_path: String,
    /// Current TODO.md text.
    pub todo_md: String,
    /// Path of state.json (empty: default).
    pub state_path: String,
    /// Current state.json text.
    pub state_json: String,
    /// One-line title.
    pub title: String,
    /// Description (may span lines).
    pub description: String,
    /// Priority (`High`, `Medium`, `Low`; default `Medium`).
    pub priority: Option<String>,
    /// Language (`lean`, `markdown`, `python`, `general`; default `general`).
    pub language: Option<String>,
    /// Effort estimate (default `TBD`).
    pub effort: Option<String>,
    /// Task numbers or names this task depends on.
    pub dependencies: Vec<String>,
    /// state.json `type` (default `task`).
    pub task_type: Option<String>,
    /// The agent creating the task.
    pub agent: String,
    /// The current time, ISO 8601.
    pub now_iso: String,
}

/// Inputs of [`plan_archive`].
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ArchiveInputs {
    /// Path of TODO.md (empty: default).
    pub todo_path: String,
    /// Current TODO.md text.
    pub todo_md: String,
    /// Path of state.json (empty: default).
    pub state_path: String,
    /// Current state.json text.
    pub state_json: String,
    /// Path of the archive state.json (empty: default `.opencode/specs/archive/state.json`).
    pub archive_state_path: String,
    /// Current archive state.json text (None: it does not exist yet).
    pub archive_state_json: Option<String>,
    /// The current time, ISO 8601.
    pub now_iso: String,
}

fn or_default(p: &str, d: &str) -> String {
    if p.trim().is_empty() {
        d.to_string()
    } else {
        p.to_string()
    }
}

/// The machine, TODO status field names and state.json extractor used for a sync.
struct Ctx {
    machine: Machine,
    todo_fields: Vec<String>,
    state_ex: Extractor,
}

fn ctx(config: &StatusConfig, todo_path: &str, state_path: &str) -> Result<Ctx, SyncError> {
    let from_config = config
        .resolve(todo_path)
        .filter(|(_, b)| matches!(b.extract, Extractor::TodoEntries { .. }))
        .map(|(m, b)| (m.clone(), b.extract.clone()));
    let (machine, todo_ex) = match from_config {
        Some(x) => x,
        None => {
            let m = config
                .machine("proofchecker")
                .cloned()
                .or_else(|| {
                    default_machines()
                        .into_iter()
                        .find(|m| m.name == "proofchecker")
                })
                .ok_or_else(|| {
                    err(
                        SyncErrorCode::SyncInternal,
                        "(config)",
                        None,
                        "no proofchecker machine is available.".into(),
                    )
                })?;
            (m, Extractor::default_todo())
        }
    };
    let todo_fields = match todo_ex {
        Extractor::TodoEntries { fields } => fields,
        _ => vec!["status".to_string()],
    };
    let state_ex = machine
        .binding_for(state_path)
        .map(|b| b.extract.clone())
        .filter(|e| matches!(e, Extractor::JsonTasks { .. }))
        .unwrap_or_else(Extractor::default_json_tasks);
    Ok(Ctx {
        machine,
        todo_fields,
        state_ex,
    })
}

fn check_time(now: &str) -> Result<(), SyncError> {
    if is_iso_time(now) {
        Ok(())
    } else {
        Err(err(
            SyncErrorCode::SyncBadInput,
            "(input)",
            None,
            format!("`{now}` is not an ISO 8601 time; pass the current time like `2026-01-03T18:18:35Z`."),
        ))
    }
}

fn check_artifacts(paths: &[String]) -> Result<(), SyncError> {
    for p in paths {
        if p.trim().is_empty()
            || p.chars().any(|c| c.is_control() || c.is_whitespace())
            || p.starts_with('-')
        {
            return Err(err(
                SyncErrorCode::SyncBadInput,
                "(input)",
                None,
                format!("artifact path {p:?} is empty or contains spaces or control characters; pass project-relative paths."),
            ));
        }
    }
    Ok(())
}

fn find_entry<'a>(todo: &'a TodoDoc, n: u64, path: &str) -> Result<&'a TodoEntry, SyncError> {
    let found: Vec<&TodoEntry> = todo.entries.iter().filter(|e| e.number == n).collect();
    match found.len() {
        0 => Err(err(
            SyncErrorCode::SyncTaskNotFound,
            path,
            None,
            format!(
                "task {n} has no entry (a `### {n}. Title` heading); create it with /task first."
            ),
        )),
        1 => Ok(found[0]),
        _ => Err(err(
            SyncErrorCode::SyncDuplicateTask,
            path,
            Some(found[1].line),
            format!(
                "task {n} has {} entries (lines {}); keep one.",
                found.len(),
                found
                    .iter()
                    .map(|e| e.line.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

fn find_task<'a>(doc: &'a StateDoc, n: u64, path: &str) -> Result<&'a StateTask, SyncError> {
    let found: Vec<&StateTask> = doc
        .tasks
        .iter()
        .filter(|t| t.key == EntryKey::Task(n))
        .collect();
    match found.len() {
        0 => Err(err(
            SyncErrorCode::SyncTaskNotFound,
            path,
            None,
            format!("task {n} has no object with `project_number: {n}`; add it (or recreate the task with /task)."),
        )),
        1 => Ok(found[0]),
        _ => Err(err(
            SyncErrorCode::SyncDuplicateTask,
            path,
            Some(found[1].line),
            format!(
                "task {n} appears {} times (lines {}); keep one.",
                found.len(),
                found.iter().map(|t| t.line.to_string()).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

fn state_names(m: &Machine) -> String {
    m.def
        .states
        .iter()
        .map(|s| s.name.clone())
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_json_file(text: &str, path: &str, ex: &Extractor) -> Result<StateDoc, SyncError> {
    parse_state(text, ex).map_err(|e| {
        err(
            SyncErrorCode::SyncInvalidJson,
            path,
            Some(e.line),
            format!(
                "not valid JSON (column {}: {}); fix the syntax first.",
                e.column, e.message
            ),
        )
    })
}

/// The state.json edits for one task object: status (+ mirrored `phase`), `updated_at`,
/// `started_at`, the stamp (`completed_at`), artifacts; plus the root's `_last_updated`.
#[allow(clippy::too_many_arguments)]
fn json_task_edits(
    text: &str,
    root: &JNode,
    task: &StateTask,
    m: &Machine,
    target: usize,
    status_changes: bool,
    touched: bool,
    now: &str,
    started: &str,
    artifacts: &[String],
    status_key: &str,
) -> Vec<TextEdit> {
    let nl = newline_of(text);
    let obj = &task.node;
    let mut edits = Vec::new();
    let target_name = m.state_name(target);
    if status_changes {
        let new_json = quote(&json_state(target_name, task.status.as_deref()));
        match obj.get(status_key) {
            Some(v) => edits.push(replace_value(v, new_json)),
            None => edits.push(insert_member(text, obj, status_key, new_json, nl)),
        }
        if let (Some(phase), Some(old)) = (obj.get("phase"), task.status.as_deref()) {
            if let Some(p) = phase.as_str() {
                if canon_state(p) == canon_state(old) {
                    edits.push(replace_value(
                        phase,
                        quote(&json_state(target_name, Some(p))),
                    ));
                }
            }
        }
    }
    let new_artifacts: Vec<&String> = artifacts
        .iter()
        .filter(|a| !task.artifacts.iter().any(|h| same_path(h, a)))
        .fold(Vec::new(), |mut acc, a| {
            if !acc.iter().any(|x: &&String| same_path(x, a)) {
                acc.push(a);
            }
            acc
        });
    if !touched && new_artifacts.is_empty() {
        return edits;
    }
    let mut inserted: Vec<(String, String)> = Vec::new();
    let mut set = |key: &str, json: String, only_if_absent: bool, edits: &mut Vec<TextEdit>| {
        if let Some(v) = obj.get(key) {
            if !only_if_absent {
                edits.push(replace_value(v, json));
            }
        } else {
            inserted.push((key.to_string(), json));
        }
    };
    set("updated_at", quote(now), false, &mut edits);
    if status_changes && !m.initial_states().contains(&target) {
        set("started_at", quote(started), true, &mut edits);
    }
    if status_changes {
        if let Some(stamp) = m.state(target).and_then(|s| s.stamp.clone()) {
            set(
                &format!("{}_at", norm_key(&stamp)),
                quote(now),
                false,
                &mut edits,
            );
        }
    }
    if !new_artifacts.is_empty() {
        match obj.get("artifacts") {
            Some(arr) if matches!(arr.kind, JKind::Array(_)) => {
                let objects = arr
                    .items()
                    .first()
                    .map(|i| matches!(i.kind, JKind::Object(_)))
                    .unwrap_or(false);
                let items: Vec<String> = new_artifacts
                    .iter()
                    .map(|a| {
                        if objects {
                            format!("{{\"path\": {}}}", quote(a))
                        } else {
                            quote(a)
                        }
                    })
                    .collect();
                if let Some(e) = append_items(text, arr, &items, nl) {
                    edits.push(e);
                }
            }
            Some(_) => {}
            None => {
                let items: Vec<String> = new_artifacts.iter().map(|a| quote(a)).collect();
                inserted.push(("artifacts".to_string(), format!("[{}]", items.join(", "))));
            }
        }
    }
    for (k, v) in inserted {
        edits.push(insert_member(text, obj, &k, v, nl));
    }
    if root.start != obj.start {
        for k in ["_last_updated", "last_updated"] {
            if let Some(v) = root.get(k) {
                if v.as_str().is_some() {
                    edits.push(replace_value(v, quote(now)));
                }
            }
        }
    }
    edits
}

fn apply(text: &str, edits: &[TextEdit], path: &str) -> Result<String, SyncError> {
    apply_edits(text, edits).ok_or_else(|| {
        err(
            SyncErrorCode::SyncInternal,
            path,
            None,
            "computed edits overlap (a bug in NSO); nothing was written.".to_string(),
        )
    })
}

fn status_key_of(ex: &Extractor) -> String {
    match ex {
        Extractor::JsonTasks { status_key, .. } => status_key.clone(),
        _ => "status".to_string(),
    }
}

/// Plans a status change of task `task_number` across TODO.md, state.json and (if given)
/// the project's state.json.
///
/// Validation (any failure aborts the whole plan): the time and artifact paths are well
/// formed; the task has exactly one TODO.md entry with a known status, and exactly one
/// state.json object with a known status; the two statuses agree (or one of them already
/// has the new status — a half-finished earlier sync is completed); the move is a transition
/// of the machine governing `todo_path` (default `proofchecker`) that `agent` may make, and
/// its conditions hold on the updated TODO.md entry.
///
/// Changes: TODO.md — the `[MARKER]`, `**Started**` (added once, when leaving the initial
/// state), the state's stamp field (`**Completed**`), artifact links under the state's
/// `artifactsField`; state.json — `status` (and `phase` when it mirrors the status),
/// `updated_at`, `started_at`, `<stamp>_at`, `artifacts`, the root `_last_updated`. Dates in
/// TODO.md are `YYYY-MM-DD`; state.json gets `now_iso` as given.
pub fn plan_status_sync(inputs: &SyncInputs, config: &StatusConfig) -> Result<SyncPlan, SyncError> {
    let todo_path = or_default(&inputs.todo_path, DEFAULT_TODO_PATH);
    let state_path = or_default(&inputs.state_path, DEFAULT_STATE_PATH);
    check_time(&inputs.now_iso)?;
    check_artifacts(&inputs.artifacts)?;
    let c = ctx(config, &todo_path, &state_path)?;
    let m = &c.machine;
    let n = inputs.task_number;
    let target = m.state_of(&inputs.new_status).ok_or_else(|| {
        err(
            SyncErrorCode::SyncUnknownState,
            "(input)",
            None,
            format!(
                "`{}` is not a state of {}; use one of: {}.",
                inputs.new_status,
                m.name,
                state_names(m)
            ),
        )
    })?;

    // TODO.md
    let todo_text = &inputs.todo_md;
    let todo = parse_todo(todo_text, &c.todo_fields);
    let entry = find_entry(&todo, n, &todo_path)?;
    let ts = entry.status.as_ref().ok_or_else(|| {
        err(
            SyncErrorCode::SyncMissingStatus,
            &todo_path,
            Some(entry.line),
            format!("task {n} has no `- **Status**: [...]` line; add one."),
        )
    })?;
    let tstate = m.state_of(&ts.raw).ok_or_else(|| {
        err(
            SyncErrorCode::SyncUnknownState,
            &todo_path,
            Some(ts.line),
            format!(
                "task {n} has status [{}], which is not a state of {}; use one of: {}.",
                ts.raw,
                m.name,
                state_names(m)
            ),
        )
    })?;

    // state.json
    let state = parse_json_file(&inputs.state_json, &state_path, &c.state_ex)?;
    let task = find_task(&state, n, &state_path)?;
    let sraw = task.status.clone().ok_or_else(|| {
        err(
            SyncErrorCode::SyncMissingStatus,
            &state_path,
            Some(task.line),
            format!("task {n} has no `status` string; add one."),
        )
    })?;
    let sstate = m.state_of(&sraw).ok_or_else(|| {
        err(
            SyncErrorCode::SyncUnknownState,
            &state_path,
            task.status_line,
            format!(
                "task {n} has status \"{sraw}\", which is not a state of {}; use one of: {}.",
                m.name,
                state_names(m)
            ),
        )
    })?;
    let from = if tstate == sstate || sstate == target {
        tstate
    } else if tstate == target {
        sstate
    } else {
        return Err(err(
            SyncErrorCode::SyncInconsistent,
            &state_path,
            task.status_line,
            format!(
                "task {n} is [{}] in {todo_path} (line {}) but \"{sraw}\" here; make them agree before changing the status (see the consistency check).",
                ts.raw, ts.line
            ),
        ));
    };

    // Project state.json
    let mut notes = Vec::new();
    let project = match (&inputs.project_state_json, &inputs.project_state_path) {
        (Some(text), path) => {
            let path = path
                .clone()
                .unwrap_or_else(|| "(project state.json)".to_string());
            let doc = parse_json_file(text, &path, &Extractor::default_json_tasks())?;
            let idx = doc
                .tasks
                .iter()
                .position(|t| t.key == EntryKey::Task(n))
                .or_else(|| doc.tasks.iter().position(|t| t.key == EntryKey::Single));
            if idx.is_none() {
                notes.push(format!(
                    "{path} has no status for task {n}; left unchanged."
                ));
            }
            Some((text, path, doc, idx))
        }
        _ => None,
    };

    let now = inputs.now_iso.as_str();
    let date = &now[..10];
    let changes = from != target;

    // TODO.md edits
    let nl = newline_of(todo_text);
    let mut te = Vec::new();
    let status_field: &TodoField =
        entry
            .fields
            .iter()
            .find(|f| f.line == ts.line)
            .ok_or_else(|| {
                err(
                    SyncErrorCode::SyncInternal,
                    &todo_path,
                    Some(ts.line),
                    "status field not found.".into(),
                )
            })?;
    if tstate != target {
        te.push(TextEdit::replace(
            ts.start,
            ts.end,
            m.state_name(target).to_string(),
        ));
    }
    let mut anchor = status_field.block_end;
    if let Some(st) = entry.field(&["started"]) {
        anchor = st.block_end.max(anchor);
    } else if changes && !m.initial_states().contains(&target) {
        te.push(insert_lines(
            todo_text,
            anchor,
            &[field_line(status_field, "Started", date)],
            nl,
        ));
    }
    if changes {
        if let Some(stamp) = m.state(target).and_then(|s| s.stamp.clone()) {
            match entry.field(&[stamp.as_str()]) {
                Some(f) => te.push(TextEdit::replace(
                    f.value_start,
                    f.value_end,
                    date.to_string(),
                )),
                None => te.push(insert_lines(
                    todo_text,
                    anchor,
                    &[field_line(status_field, &stamp, date)],
                    nl,
                )),
            }
        }
    }
    let art_field = m
        .state(target)
        .and_then(|s| s.artifacts_field.clone())
        .unwrap_or_else(|| "Artifacts".to_string());
    let linked_before = entry.artifacts().len();
    if let Some(e) = add_artifacts(
        todo_text,
        entry,
        &art_field,
        &inputs.artifacts,
        status_field,
        nl,
    ) {
        te.push(e);
    }
    let new_todo = apply(todo_text, &te, &todo_path)?;

    // Transition check on the updated entry.
    let new_doc = parse_todo(&new_todo, &c.todo_fields);
    let new_entry = new_doc
        .entries
        .iter()
        .find(|e| e.number == n)
        .ok_or_else(|| {
            err(
                SyncErrorCode::SyncTodoStructure,
                &todo_path,
                Some(entry.line),
                format!("task {n}'s entry would not read back; check its heading."),
            )
        })?;
    if new_entry.status.as_ref().and_then(|s| m.state_of(&s.raw)) != Some(target) {
        return Err(err(
            SyncErrorCode::SyncTodoStructure,
            &todo_path,
            Some(ts.line),
            format!("the updated status of task {n} would not read back as [{}]; check the status line.", m.state_name(target)),
        ));
    }
    let linked_after = new_entry.artifacts().len();
    if changes {
        let old_facts = MdFacts(MdDoc::parse(&todo_text[entry.start..entry.end]));
        let new_facts = MdFacts(MdDoc::parse(&new_todo[new_entry.start..new_entry.end]));
        // The agent's own role first; else one it is `like` (as for an edit of the file).
        // A refusal names the agent's own problem.
        let moved = check_move(m, from, target, &inputs.agent, Some(&old_facts), &new_facts)
            .map(|_| ())
            .or_else(|p| {
                let like =
                    |a: &String| check_move(m, from, target, a, Some(&old_facts), &new_facts);
                if inputs.like.iter().any(|a| like(a).is_ok()) {
                    Ok(())
                } else {
                    Err(p)
                }
            });
        if let Err(p) = moved {
            let (_, sentence) = move_problem_sentence(
                m,
                &Extractor::default_todo(),
                &todo_path,
                &format!("{} {n}", m.def.noun),
                from,
                target,
                &p,
                &std::iter::once(inputs.agent.as_str())
                    .chain(inputs.like.iter().map(String::as_str))
                    .collect::<Vec<_>>(),
            );
            let a = norm_agent(&inputs.agent);
            return Err(err(
                SyncErrorCode::SyncTransition,
                &todo_path,
                Some(ts.line),
                format!("NSO refused status sync for @{a}: {sentence}"),
            ));
        }
    }

    // state.json edits; a start date TODO.md already records is kept in state.json too.
    let todo_started = entry
        .field(&["started"])
        .map(|f| todo_text[f.value_start..f.value_end].trim())
        .filter(|v| !v.is_empty() && !v.eq_ignore_ascii_case("tbd"));
    let started = todo_started.unwrap_or(now);
    let status_key = status_key_of(&c.state_ex);
    let se = json_task_edits(
        &inputs.state_json,
        &state.root,
        task,
        m,
        target,
        sstate != target,
        changes || linked_after > linked_before,
        now,
        started,
        &inputs.artifacts,
        &status_key,
    );
    let new_state = apply(&inputs.state_json, &se, &state_path)?;

    let mut files = Vec::new();
    if new_todo != *todo_text {
        files.push(PlannedWrite {
            key: FileKey::TodoMd,
            path: todo_path.clone(),
            text: new_todo,
            created: false,
        });
    }
    if new_state != inputs.state_json {
        files.push(PlannedWrite {
            key: FileKey::StateJson,
            path: state_path.clone(),
            text: new_state,
            created: false,
        });
    }
    if let Some((text, path, doc, Some(idx))) = &project {
        let t = &doc.tasks[*idx];
        let pstate = t.status.as_deref().and_then(|s| m.state_of(s));
        if let (Some(p), true) = (pstate, pstate != Some(from) && pstate != Some(target)) {
            notes.push(format!(
                "{path} had status {} for task {n}; overwritten.",
                m.state_name(p)
            ));
        }
        let pe = json_task_edits(
            text,
            &doc.root,
            t,
            m,
            target,
            pstate != Some(target),
            changes,
            now,
            started,
            &inputs.artifacts,
            "status",
        );
        let new_p = apply(text, &pe, path)?;
        if new_p != **text {
            files.push(PlannedWrite {
                key: FileKey::ProjectStateJson,
                path: path.clone(),
                text: new_p,
                created: false,
            });
        }
    }
    let shown = |s: usize| format!("[{}]", m.state_name(s));
    let added = linked_after.saturating_sub(linked_before);
    let summary = format!(
        "task {n}: {} by @{}{}; {}",
        if changes {
            format!("{} → {}", shown(from), shown(target))
        } else {
            format!("stays {}", shown(target))
        },
        norm_agent(&inputs.agent),
        if added > 0 {
            format!(", {added} artifact(s) linked")
        } else {
            String::new()
        },
        if files.is_empty() {
            "nothing to write".to_string()
        } else {
            format!(
                "writes {}",
                files
                    .iter()
                    .map(|f| f.path.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    Ok(SyncPlan {
        files,
        moves: Vec::new(),
        task_number: Some(n),
        summary,
        notes,
    })
}

/// True when every planned file was re-read with exactly the planned text. `reread` pairs
/// a file's key (`todo_md`, ...) or path with the text read back after the rename.
pub fn verify_sync(plan: &SyncPlan, reread: &[(String, String)]) -> bool {
    plan.files.iter().all(|w| {
        reread
            .iter()
            .find(|(k, _)| k == w.key.as_str() || *k == w.path)
            .map(|(_, t)| *t == w.text)
            .unwrap_or(false)
    })
}

/// A project-directory-style name: lowercase words joined by `_` (at most 50 characters).
fn slug(title: &str) -> String {
    let mut s = norm_key(title);
    if s.len() > 50 {
        let mut cut = 50;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s = s.trim_end_matches('_').to_string();
    }
    if s.is_empty() {
        "task".to_string()
    } else {
        s
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.trim().chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + &c.as_str().to_lowercase(),
        None => String::new(),
    }
}

/// Plans a new task: number `next_project_number` (then incremented, wrapping to
/// `project_numbering.min` past `project_numbering.max` when its `policy` says modulo), a
/// TODO.md entry in the initial state (in the `## <Priority> Priority` section if there is
/// one, else at the end), and a state.json object in `active_projects`. TODO.md frontmatter
/// `next_project_number`, if present, is updated too.
pub fn plan_new_task(inputs: &NewTaskInputs, config: &StatusConfig) -> Result<SyncPlan, SyncError> {
    let todo_path = or_default(&inputs.todo_path, DEFAULT_TODO_PATH);
    let state_path = or_default(&inputs.state_path, DEFAULT_STATE_PATH);
    check_time(&inputs.now_iso)?;
    let title = inputs.title.trim();
    if title.is_empty() || title.contains('\n') || title.contains('\r') {
        return Err(err(
            SyncErrorCode::SyncBadInput,
            "(input)",
            None,
            "the title must be one non-empty line.".into(),
        ));
    }
    let c = ctx(config, &todo_path, &state_path)?;
    let m = &c.machine;
    let initial = *m.initial_states().first().ok_or_else(|| {
        err(
            SyncErrorCode::SyncInternal,
            "(config)",
            None,
            "the machine has no initial state.".into(),
        )
    })?;
    let todo_text = &inputs.todo_md;
    let todo = parse_todo(todo_text, &c.todo_fields);
    let state = parse_json_file(&inputs.state_json, &state_path, &c.state_ex)?;
    let nn = state.root.get("next_project_number");
    let n = state.next_project_number.ok_or_else(|| {
        err(
            SyncErrorCode::SyncNoNextNumber,
            &state_path,
            state.next_number_line,
            "there is no non-negative integer `next_project_number`; add one (one more than the highest task number).".into(),
        )
    })?;
    if let Some(e) = todo.entries.iter().find(|e| e.number == n) {
        return Err(err(
            SyncErrorCode::SyncNumberTaken,
            &todo_path,
            Some(e.line),
            format!("next_project_number is {n}, but task {n} already exists here; raise next_project_number in {state_path}."),
        ));
    }
    if let Some(t) = state.tasks.iter().find(|t| t.key == EntryKey::Task(n)) {
        return Err(err(
            SyncErrorCode::SyncNumberTaken,
            &state_path,
            Some(t.line),
            format!("next_project_number is {n}, but task {n} already exists; raise next_project_number."),
        ));
    }
    let numbering = state.root.get("project_numbering");
    let min = numbering
        .and_then(|p| p.get("min"))
        .and_then(JNode::as_u64)
        .unwrap_or(0);
    let max = numbering.and_then(|p| p.get("max")).and_then(JNode::as_u64);
    let modulo = numbering
        .and_then(|p| p.get("policy"))
        .and_then(JNode::as_str)
        .map(|p| p.contains("modulo"))
        .unwrap_or(false);
    let next = match max {
        Some(max) if modulo && n >= max => min,
        _ => n.saturating_add(1),
    };

    // TODO.md entry
    let nl = newline_of(todo_text);
    let level = todo.entries.first().map(|e| e.level).unwrap_or(3);
    let priority = capitalize(inputs.priority.as_deref().unwrap_or("Medium"));
    let language = inputs
        .language
        .clone()
        .unwrap_or_else(|| "general".to_string())
        .trim()
        .to_lowercase();
    let deps = if inputs.dependencies.is_empty() {
        "None".to_string()
    } else {
        inputs.dependencies.join(", ")
    };
    let effort = inputs
        .effort
        .clone()
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "TBD".to_string());
    let one_line = |s: &str| s.replace(['\r', '\n'], " ");
    let mut lines = vec![
        format!("{} {n}. {title}", "#".repeat(level)),
        format!("- **Effort**: {}", one_line(&effort)),
        format!("- **Status**: [{}]", m.state_name(initial)),
        format!("- **Priority**: {}", one_line(&priority)),
        format!("- **Language**: {}", one_line(&language)),
        format!("- **Dependencies**: {}", one_line(&deps)),
        String::new(),
    ];
    let desc = if inputs.description.trim().is_empty() {
        title.to_string()
    } else {
        inputs.description.trim().to_string()
    };
    for (i, l) in desc.lines().enumerate() {
        let l = if l.trim_start().starts_with('#') {
            format!("\\{}", l.trim_start())
        } else {
            l.to_string()
        };
        lines.push(if i == 0 {
            format!("**Description**: {l}")
        } else {
            l
        });
    }
    let pkey = norm_key(&priority);
    let at = todo
        .sections
        .iter()
        .find(|(lv, t, _, _)| {
            *lv < level && {
                let k = norm_key(t);
                k.contains("priority") && k.split('_').any(|w| w == pkey)
            }
        })
        .map(|(_, _, _, end)| *end)
        .unwrap_or(todo_text.len());
    let separators = todo
        .entries
        .iter()
        .any(|e| todo_text[e.start..e.end].trim_end().ends_with("---"));
    let before = &todo_text[..at];
    let mut block = String::new();
    if !before.is_empty() {
        if !before.ends_with('\n') {
            block.push_str(nl);
        }
        let prev = before.trim_end();
        if separators
            && !prev.ends_with("---")
            && todo.entries.iter().any(|e| e.end <= at && e.end > 0)
        {
            if !before.ends_with(&format!("{nl}{nl}")) && !before.ends_with("\n\n") {
                block.push_str(nl);
            }
            block.push_str("---");
            block.push_str(nl);
            block.push_str(nl);
        } else if !before.ends_with("\n\n") && !prev.is_empty() {
            block.push_str(nl);
        }
    }
    for l in &lines {
        block.push_str(l);
        block.push_str(nl);
    }
    if at < todo_text.len() {
        block.push_str(nl);
        if separators
            && todo
                .entries
                .iter()
                .any(|e| e.start >= at && todo_text[at..e.start].trim().is_empty())
        {
            block.push_str("---");
            block.push_str(nl);
            block.push_str(nl);
        }
    }
    let mut te = vec![TextEdit::insert(at, block)];
    if let Some((_, s, e, _)) = todo.next_project_number {
        te.push(TextEdit::replace(s, e, next.to_string()));
    }
    let new_todo = apply(todo_text, &te, &todo_path)?;
    let reads_back = parse_todo(&new_todo, &c.todo_fields)
        .entries
        .iter()
        .filter(|e| {
            e.number == n && e.status.as_ref().and_then(|s| m.state_of(&s.raw)) == Some(initial)
        })
        .count()
        == 1;
    if !reads_back {
        let (line, why) = match unclosed_fence(todo_text) {
            Some(l) => (Some(l), format!("the code fence opened at line {l} is never closed, so the new entry would be inside it; close it first.")),
            None => (None, "the new entry would not read back as a task (check the file's headings and fences).".to_string()),
        };
        return Err(err(SyncErrorCode::SyncTodoStructure, &todo_path, line, why));
    }

    // state.json
    let st = &inputs.state_json;
    let snl = newline_of(st);
    let unit = indent_unit(st);
    let mut pairs: Vec<(String, String)> = vec![
        ("project_number".into(), n.to_string()),
        ("project_name".into(), quote(&slug(title))),
        (
            "type".into(),
            quote(inputs.task_type.as_deref().unwrap_or("task")),
        ),
        (
            "status".into(),
            quote(&json_state(m.state_name(initial), None)),
        ),
        ("priority".into(), quote(&priority.to_lowercase())),
        ("language".into(), quote(&language)),
        ("created_at".into(), quote(&inputs.now_iso)),
        ("updated_at".into(), quote(&inputs.now_iso)),
    ];
    if !inputs.dependencies.is_empty() {
        let d: Vec<String> = inputs.dependencies.iter().map(|d| quote(d)).collect();
        pairs.push(("dependencies".into(), format!("[{}]", d.join(", "))));
    }
    pairs.push(("artifacts".into(), "[]".into()));
    let obj = render_object(&pairs, "", &unit, snl);
    let mut se = Vec::new();
    let arrays = match &c.state_ex {
        Extractor::JsonTasks { arrays, .. } => arrays.clone(),
        _ => vec!["active_projects".into()],
    };
    let container = arrays.iter().find_map(|a| {
        state
            .root
            .get(a)
            .filter(|v| matches!(v.kind, JKind::Array(_)))
    });
    match container {
        Some(arr) => {
            if let Some(e) = append_items(st, arr, &[obj], snl) {
                se.push(e);
            }
        }
        None => {
            let base = state
                .root
                .members()
                .last()
                .map(|l| super::text::indent_at(st, l.key_start).0)
                .unwrap_or_else(|| unit.clone());
            let arr = render_array(&[obj], &base, &unit, snl);
            se.push(insert_member(st, &state.root, "active_projects", arr, snl));
        }
    }
    if let Some(v) = nn {
        se.push(replace_value(v, next.to_string()));
    }
    for k in ["_last_updated", "last_updated"] {
        if let Some(v) = state.root.get(k).filter(|v| v.as_str().is_some()) {
            se.push(replace_value(v, quote(&inputs.now_iso)));
        }
    }
    let new_state = apply(st, &se, &state_path)?;
    if parse_json(&new_state).is_err() {
        return Err(err(
            SyncErrorCode::SyncInternal,
            &state_path,
            None,
            "the planned state.json is not valid JSON.".into(),
        ));
    }
    Ok(SyncPlan {
        files: vec![
            PlannedWrite {
                key: FileKey::TodoMd,
                path: todo_path.clone(),
                text: new_todo,
                created: false,
            },
            PlannedWrite {
                key: FileKey::StateJson,
                path: state_path.clone(),
                text: new_state,
                created: false,
            },
        ],
        moves: Vec::new(),
        task_number: Some(n),
        summary: format!(
            "task {n} \"{title}\" created in [{}] by @{}; next_project_number {n} → {next}",
            m.state_name(initial),
            norm_agent(&inputs.agent)
        ),
        notes: Vec::new(),
    })
}

/// Renders a JSON array of already-rendered items (multi-line items are re-indented).
fn render_array(items: &[String], base: &str, unit: &str, nl: &str) -> String {
    if items.is_empty() {
        return "[]".to_string();
    }
    let inner = format!("{base}{unit}");
    let body: Vec<String> = items
        .iter()
        .map(|it| {
            let mut out = inner.clone();
            for (i, l) in it.split('\n').enumerate() {
                if i > 0 {
                    out.push_str(nl);
                    out.push_str(&inner);
                }
                out.push_str(l.trim_end_matches('\r'));
            }
            out
        })
        .collect();
    format!("[{nl}{}{nl}{base}]", body.join(&format!(",{nl}")))
}

/// Re-bases the indentation of a multi-line JSON slice: lines after the first lose
/// `old_base` (the original indentation of the slice's first line).
fn strip_base(slice: &str, old_base: &str) -> String {
    let mut out = String::new();
    for (i, l) in slice.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(l.strip_prefix(old_base).unwrap_or(l));
        } else {
            out.push_str(l);
        }
    }
    out
}

fn parent_dir(p: &str) -> String {
    match p.rfind('/') {
        Some(i) => p[..i].to_string(),
        None => String::new(),
    }
}

/// The project directory of task `n`: the artifact path prefix ending in a `NNN_name`
/// segment, else `<specs>/<NNN>_<project_name>`.
fn project_dir(n: u64, artifacts: &[String], name: Option<&str>, specs: &str) -> Option<String> {
    for a in artifacts {
        let segs: Vec<&str> = a.split('/').collect();
        for (i, s) in segs.iter().enumerate() {
            let digits = s.bytes().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0
                && s[digits..].starts_with('_')
                && s[..digits].parse::<u64>().ok() == Some(n)
                && i + 1 < segs.len()
            {
                return Some(segs[..=i].join("/"));
            }
        }
    }
    let name = name?;
    let dir = format!("{n:03}_{name}");
    Some(if specs.is_empty() {
        dir
    } else {
        format!("{specs}/{dir}")
    })
}

/// Plans archiving (`/todo`): every task whose status is terminal (`COMPLETED`,
/// `ABANDONED`) in both TODO.md and state.json (or terminal in one and absent from the other)
/// is removed from TODO.md and from state.json's arrays, and appended, with `archived_at`,
/// to `archived_projects` of the archive state.json (created if absent). Tasks terminal in
/// one file but not the other are skipped and named in `notes`. Project directories found
/// from artifact paths (or `<specs>/<NNN>_<project_name>`) are listed in `moves`, to
/// `<specs>/archive/`.
pub fn plan_archive(inputs: &ArchiveInputs, config: &StatusConfig) -> Result<SyncPlan, SyncError> {
    let todo_path = or_default(&inputs.todo_path, DEFAULT_TODO_PATH);
    let state_path = or_default(&inputs.state_path, DEFAULT_STATE_PATH);
    let archive_path = or_default(&inputs.archive_state_path, &default_archive_path());
    check_time(&inputs.now_iso)?;
    let c = ctx(config, &todo_path, &state_path)?;
    let m = &c.machine;
    let todo_text = &inputs.todo_md;
    let todo = parse_todo(todo_text, &c.todo_fields);
    let st = &inputs.state_json;
    let state = parse_json_file(st, &state_path, &c.state_ex)?;
    let terminal = |raw: Option<&str>| raw.and_then(|r| m.state_of(r)).map(|s| m.is_terminal(s));
    let mut numbers: Vec<u64> = todo.entries.iter().map(|e| e.number).collect();
    numbers.extend(state.tasks.iter().filter_map(|t| t.number()));
    numbers.sort_unstable();
    numbers.dedup();
    let mut notes = Vec::new();
    let mut chosen = Vec::new();
    for n in numbers {
        let ts: Vec<&TodoEntry> = todo.entries.iter().filter(|e| e.number == n).collect();
        let ss: Vec<&StateTask> = state
            .tasks
            .iter()
            .filter(|t| t.key == EntryKey::Task(n))
            .collect();
        let tt: Vec<Option<bool>> = ts
            .iter()
            .map(|e| terminal(e.status.as_ref().map(|s| s.raw.as_str())))
            .collect();
        let sts: Vec<Option<bool>> = ss.iter().map(|t| terminal(t.status.as_deref())).collect();
        let any_terminal = tt.iter().chain(sts.iter()).any(|x| *x == Some(true));
        if !any_terminal {
            continue;
        }
        if tt.iter().chain(sts.iter()).all(|x| *x == Some(true)) {
            chosen.push((n, ts, ss));
        } else {
            notes.push(format!("task {n} skipped: it is final in one file but not in the other (run the consistency check)."));
        }
    }
    let nl = newline_of(st);
    let unit = indent_unit(st);
    let now = inputs.now_iso.as_str();
    let specs = parent_dir(&state_path);
    let mut te = Vec::new();
    let mut archived_objs = Vec::new();
    let mut moves = Vec::new();
    let mut removals: Vec<(String, usize)> = Vec::new();
    for (n, ts, ss) in &chosen {
        for e in ts {
            te.push(TextEdit::replace(e.start, e.end, String::new()));
        }
        let mut artifacts: Vec<String> = ts
            .iter()
            .flat_map(|e| e.artifacts().into_iter().map(|a| a.0))
            .collect();
        for t in ss {
            artifacts.extend(t.artifacts.iter().cloned());
            if !t.container.is_empty() {
                removals.push((t.container.clone(), t.index));
            }
        }
        match ss.first() {
            Some(t) => {
                let slice = &st[t.node.start..t.node.end];
                let (base, _) = super::text::indent_at(st, t.node.start);
                let obj_text = match parse_json(slice) {
                    Ok(root) => {
                        let e = set_member(slice, &root, "archived_at", quote(now), nl);
                        apply_edits(slice, &[e]).unwrap_or_else(|| slice.to_string())
                    }
                    Err(_) => slice.to_string(),
                };
                archived_objs.push(strip_base(&obj_text, &base));
            }
            None => {
                let e = ts[0];
                let status = e
                    .status
                    .as_ref()
                    .and_then(|s| m.state_of(&s.raw))
                    .map(|s| m.state_name(s))
                    .unwrap_or("completed");
                archived_objs.push(render_object(
                    &[
                        ("project_number".into(), n.to_string()),
                        ("project_name".into(), quote(&slug(&e.title))),
                        ("status".into(), quote(&json_state(status, None))),
                        ("archived_at".into(), quote(now)),
                    ],
                    "",
                    &unit,
                    nl,
                ));
            }
        }
        let name = ss.first().and_then(|t| t.name.clone());
        if let Some(dir) = project_dir(*n, &artifacts, name.as_deref(), &specs) {
            let last = dir.rsplit('/').next().unwrap_or(&dir).to_string();
            let to = if specs.is_empty() {
                format!("archive/{last}")
            } else {
                format!("{specs}/archive/{last}")
            };
            if dir != to {
                moves.push(DirMove { from: dir, to });
            }
        }
    }
    if chosen.is_empty() {
        return Ok(SyncPlan {
            files: Vec::new(),
            moves: Vec::new(),
            task_number: None,
            summary: "no completed or abandoned tasks to archive".to_string(),
            notes,
        });
    }
    // state.json removals, per array.
    let mut se = Vec::new();
    let mut containers: Vec<String> = removals.iter().map(|r| r.0.clone()).collect();
    containers.dedup();
    containers.sort();
    containers.dedup();
    for cname in containers {
        if let Some(arr) = state.root.get(&cname) {
            let idx: Vec<usize> = removals
                .iter()
                .filter(|r| r.0 == cname)
                .map(|r| r.1)
                .collect();
            se.extend(remove_item_set(arr, &idx));
        }
    }
    if !se.is_empty() {
        for k in ["_last_updated", "last_updated"] {
            if let Some(v) = state.root.get(k).filter(|v| v.as_str().is_some()) {
                se.push(replace_value(v, quote(now)));
            }
        }
    }
    let new_todo = apply(todo_text, &te, &todo_path)?;
    let new_state = apply(st, &se, &state_path)?;
    // Archive state.json
    let (new_archive, created) = match &inputs.archive_state_json {
        Some(text) if !text.trim().is_empty() => {
            let root = parse_json(text).map_err(|e| {
                err(
                    SyncErrorCode::SyncInvalidJson,
                    &archive_path,
                    Some(e.line),
                    format!(
                        "not valid JSON (column {}: {}); fix the syntax first.",
                        e.column, e.message
                    ),
                )
            })?;
            let anl = newline_of(text);
            let aunit = indent_unit(text);
            let mut ae = Vec::new();
            match root.get("archived_projects").filter(|v| matches!(v.kind, JKind::Array(_))) {
                Some(arr) => {
                    if let Some(e) = append_items(text, arr, &archived_objs, anl) {
                        ae.push(e);
                    }
                }
                None if matches!(root.kind, JKind::Object(_)) => {
                    let base = root.members().last().map(|l| super::text::indent_at(text, l.key_start).0).unwrap_or_default();
                    ae.push(insert_member(text, &root, "archived_projects", render_array(&archived_objs, &base, &aunit, anl), anl));
                }
                None => {
                    return Err(err(
                        SyncErrorCode::SyncInvalidJson,
                        &archive_path,
                        Some(1),
                        "the archive state.json is not a JSON object; make it `{\"archived_projects\": []}`.".into(),
                    ))
                }
            }
            for k in ["_last_updated", "last_updated"] {
                if let Some(v) = root.get(k).filter(|v| v.as_str().is_some()) {
                    ae.push(replace_value(v, quote(now)));
                }
            }
            (apply(text, &ae, &archive_path)?, false)
        }
        _ => {
            let pairs = vec![
                ("_schema_version".to_string(), quote("1.0.0")),
                ("_last_updated".to_string(), quote(now)),
                (
                    "archived_projects".to_string(),
                    render_array(&archived_objs, "", &unit, nl),
                ),
            ];
            (
                format!("{}{nl}", render_object(&pairs, "", &unit, nl)),
                true,
            )
        }
    };
    for (t, p) in [(&new_state, &state_path), (&new_archive, &archive_path)] {
        if parse_json(t).is_err() {
            return Err(err(
                SyncErrorCode::SyncInternal,
                p,
                None,
                "the planned JSON is not valid (a bug in NSO); nothing was written.".into(),
            ));
        }
    }
    let nums: Vec<String> = chosen.iter().map(|c| c.0.to_string()).collect();
    let mut files = vec![PlannedWrite {
        key: FileKey::ArchiveStateJson,
        path: archive_path.clone(),
        text: new_archive,
        created,
    }];
    if new_state != *st {
        files.push(PlannedWrite {
            key: FileKey::StateJson,
            path: state_path.clone(),
            text: new_state,
            created: false,
        });
    }
    if new_todo != *todo_text {
        files.push(PlannedWrite {
            key: FileKey::TodoMd,
            path: todo_path.clone(),
            text: new_todo,
            created: false,
        });
    }
    Ok(SyncPlan {
        files,
        moves,
        task_number: None,
        summary: format!("archives task(s) {} into {archive_path}", nums.join(", ")),
        notes,
    })
}
