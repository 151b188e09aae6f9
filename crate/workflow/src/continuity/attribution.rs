//! Task attribution (seed 001 "Task/Tag Attribution and Backfill"): which tasks a session
//! touched, how strongly, and the evidence.
//!
//! Tasks are contract task ids (`build_20260208_auth_abc123`, checked with
//! [`validate_task_id`]), TODO.md numbers (`todo:258`) and story files (`story:<path>`, paths
//! matching the policy's story globs). Evidence, weakest first:
//! - **mentioned**: named in a user or assistant text (`task 258`, `task #258`, `todo:258`, a
//!   contract id, a story path) or in a tool call's arguments (file contents excepted);
//! - **worked on**: a completed write/edit/apply_patch of the task's files (its contract
//!   folder `.opencode/context/active_tasks/<id>/`, a story file, a `### 258.` heading written
//!   into a `TODO.md`), or a status move by an NSO tool;
//! - **active**: a subagent session whose first user message (the delegation prompt) names a
//!   contract id, or a move into an in-progress state (`IN_PROGRESS`, `IMPLEMENTING`, …),
//!   by an NSO tool or a `Status:` written into the contract's `status.md`/`result.md`;
//! - **completed**: a move into a done state (`COMPLETE`, `COMPLETED`, `DONE`, …).
//!
//! A link's relation is the strongest of all its evidence, so late evidence upgrades it. One
//! piece of evidence is kept per task and position (the strongest); at most
//! [`MAX_EVIDENCE`] per task, in order, always including the first strongest. At most
//! [`MAX_TASKS`] links (the strongest, then the earliest), sorted by task.

use super::events::{project_path, PartBody, Role, SessionEvents, ToolCall, ToolStatus};
use super::policy::T0Policy;
use super::{Evidence, Relation, TaskLink};
use crate::contracts::task_id::validate_task_id;
use nso_decision::authority::Glob;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Most evidence kept per task.
pub const MAX_EVIDENCE: usize = 20;

/// Most tasks linked to one session (the strongest links are kept).
pub const MAX_TASKS: usize = 100;

/// Folder of the task contracts, relative to the project root.
pub const CONTRACTS_DIR: &str = ".opencode/context/active_tasks/";

/// Tools that change files.
pub const WRITE_TOOLS: [&str; 5] = ["write", "edit", "multiedit", "apply_patch", "patch"];

/// Input fields holding file contents: not scanned for mentions.
const CONTENT_KEYS: [&str; 5] = ["content", "oldString", "newString", "patchText", "edits"];

/// Longest word read as a contract id candidate.
const MAX_ID_LEN: usize = 120;

/// The relation a move into `status` means: done states → completed, in-progress states →
/// active, any other state → worked on.
pub fn status_relation(status: &str) -> Relation {
    let s: String = status
        .trim_matches(|c: char| !c.is_alphanumeric())
        .chars()
        .map(|c| match c {
            ' ' | '-' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect();
    const DONE: [&str; 8] = [
        "COMPLETE",
        "COMPLETED",
        "DONE",
        "FINISHED",
        "CLOSED",
        "RESOLVED",
        "MERGED",
        "SHIPPED",
    ];
    const ACTIVE: [&str; 7] = [
        "IN_PROGRESS",
        "INPROGRESS",
        "STARTED",
        "ACTIVE",
        "IN_REVIEW",
        "DOING",
        "WIP",
    ];
    const NOT_ACTIVE: [&str; 5] = ["PENDING", "WAITING", "BLOCKING", "MISSING", "FAILING"];
    if DONE.contains(&s.as_str()) {
        Relation::Completed
    } else if ACTIVE.contains(&s.as_str())
        || (s.ends_with("ING") && !NOT_ACTIVE.contains(&s.as_str()))
    {
        Relation::Active
    } else {
        Relation::WorkedOn
    }
}

/// Contract task ids named in `text` (valid ids only), in order, without repeats.
pub fn contract_ids(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out: Vec<&str> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut i = 0;
    while i < b.len() {
        if !is_id_byte(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_id_byte(b[i]) {
            i += 1;
        }
        let word = &text[start..i];
        let candidate = word.len() <= MAX_ID_LEN
            && word.bytes().filter(|c| *c == b'_').count() == 3
            && word
                .split('_')
                .nth(1)
                .is_some_and(|d| d.len() == 8 && d.bytes().all(|c| c.is_ascii_digit()));
        if candidate && !seen.contains(word) && validate_task_id(word).is_ok() {
            seen.insert(word);
            out.push(word);
        }
    }
    out
}

fn is_id_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// TODO.md task numbers named in `text`: `task 258`, `Task #258`, `todo:258`.
pub fn todo_mentions(text: &str) -> Vec<u32> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let mut i = 0;
    while i + 4 < b.len() {
        let boundary = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let word = &b[i..i + 4];
        let (is_task, is_todo) = (
            word.eq_ignore_ascii_case(b"task"),
            word.eq_ignore_ascii_case(b"todo"),
        );
        if !boundary || !(is_task || is_todo) {
            i += 1;
            continue;
        }
        let mut k = i + 4;
        if is_todo {
            if b.get(k) != Some(&b':') {
                i += 4;
                continue;
            }
            k += 1;
        } else {
            let spaces = k;
            while k < b.len() && k - spaces < 2 && b[k] == b' ' {
                k += 1;
            }
            if b.get(k) == Some(&b'#') {
                k += 1;
            } else if k == spaces {
                i += 4;
                continue;
            }
        }
        let digits = k;
        while k < b.len() && b[k].is_ascii_digit() && k - digits < 7 {
            k += 1;
        }
        let ends = b.get(k).is_none_or(|c| !c.is_ascii_alphanumeric());
        if k > digits && k - digits <= 6 && ends {
            if let Ok(n) = text[digits..k].parse::<u32>() {
                if n > 0 && seen.insert(n) {
                    out.push(n);
                }
            }
        }
        i = k.max(i + 4);
    }
    out
}

/// Task numbers of `### 258.` headings in `text`.
pub fn todo_headings(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("### ") else {
            continue;
        };
        let rest = rest.trim_start();
        let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
        if !digits.is_empty() && digits.len() <= 6 && rest[digits.len()..].starts_with('.') {
            if let Ok(n) = digits.parse::<u32>() {
                if n > 0 && seen.insert(n) {
                    out.push(n);
                }
            }
        }
    }
    out
}

/// The value of the first `Status:` field in `text` (`- Status: COMPLETE`, `**Status**: x`).
pub fn status_field(text: &str) -> Option<&str> {
    text.lines().find_map(|line| {
        let t = line.trim_start_matches(|c: char| c == '-' || c == '*' || c.is_whitespace());
        let rest = t.get(..6).filter(|h| h.eq_ignore_ascii_case("status"))?;
        let rest = t[rest.len()..].trim_start_matches('*').trim_start();
        let value = rest
            .strip_prefix(':')?
            .trim()
            .trim_start_matches('*')
            .trim();
        let value = value.split_whitespace().next()?;
        let value = value.trim_matches(|c: char| !c.is_alphanumeric() && c != '_' && c != '-');
        (!value.is_empty()).then_some(value)
    })
}

/// Collects evidence per task.
struct Links {
    stories: Vec<Glob>,
    root: Option<String>,
    /// task → (kind, evidence ordered by position).
    tasks: BTreeMap<String, (&'static str, Vec<Evidence>)>,
}

impl Links {
    fn add(
        &mut self,
        task: String,
        kind: &'static str,
        at: usize,
        relation: Relation,
        place: &str,
    ) {
        let (_, ev) = self.tasks.entry(task).or_insert((kind, Vec::new()));
        // Positions only grow: a piece at the same position is the last one.
        if let Some(e) = ev.last_mut().filter(|e| e.at == at) {
            if relation > e.relation {
                e.relation = relation;
                e.place = place.to_string();
            }
            return;
        }
        ev.push(Evidence {
            at,
            relation,
            place: place.to_string(),
        });
    }

    fn story(&self, path: &str) -> Option<String> {
        let p = project_path(path, self.root.as_deref());
        self.stories
            .iter()
            .any(|g| g.matches(&p, false))
            .then(|| format!("story:{p}"))
    }

    /// Mentions in free text (messages, tool arguments).
    fn mentions(&mut self, text: &str, at: usize, relation: Relation, place: &str) {
        for id in contract_ids(text) {
            self.add(id.to_string(), "contract", at, relation, place);
        }
        if relation == Relation::Mentioned {
            for n in todo_mentions(text) {
                self.add(format!("todo:{n}"), "todo", at, relation, place);
            }
            if !self.stories.is_empty() {
                for word in text.split(|c: char| c.is_whitespace() || "`'\"()[]<>,;:*".contains(c))
                {
                    let word = word.trim_end_matches('.');
                    if word.len() < 300 && word.contains('.') {
                        if let Some(s) = self.story(word) {
                            self.add(s, "story", at, relation, place);
                        }
                    }
                }
            }
        }
    }

    fn tool(&mut self, call: &ToolCall, at: usize) {
        let place = format!("tool {} ({})", call.tool, call.call_id);
        if let Some(input) = call.input.as_object() {
            for (key, value) in input {
                if let Some(s) = value
                    .as_str()
                    .filter(|_| !CONTENT_KEYS.contains(&key.as_str()))
                {
                    self.mentions(s, at, Relation::Mentioned, &place);
                }
            }
        }
        if call.status != ToolStatus::Completed {
            return;
        }
        if WRITE_TOOLS.contains(&call.tool.as_str()) {
            self.write(call, at, &place);
        }
        if call.tool.starts_with("nso_") && super::t0::refusal_text(call).is_none() {
            self.status_move(call, at);
        }
    }

    fn write(&mut self, call: &ToolCall, at: usize, place: &str) {
        let new_text = call
            .input_str("content")
            .or_else(|| call.input_str("newString"))
            .or_else(|| call.input_str("patchText"))
            .unwrap_or("");
        for path in call.paths() {
            let p = project_path(path, self.root.as_deref());
            if let Some(rest) = p.strip_prefix(CONTRACTS_DIR) {
                let (id, file) = rest.split_once('/').unwrap_or((rest, ""));
                if validate_task_id(id).is_ok() {
                    let relation = match status_field(new_text) {
                        Some(s) if file == "status.md" || file == "result.md" => {
                            status_relation(s).max(Relation::WorkedOn)
                        }
                        _ => Relation::WorkedOn,
                    };
                    self.add(id.to_string(), "contract", at, relation, place);
                }
            }
            if let Some(s) = self.story(&p) {
                self.add(s, "story", at, Relation::WorkedOn, place);
            }
            if p == "TODO.md" || p.ends_with("/TODO.md") {
                for n in todo_headings(new_text) {
                    self.add(format!("todo:{n}"), "todo", at, Relation::WorkedOn, place);
                }
            }
        }
    }

    fn status_move(&mut self, call: &ToolCall, at: usize) {
        let task = ["task", "task_id", "taskId"]
            .iter()
            .find_map(|k| call.input.get(*k))
            .and_then(|v| match v {
                Value::Number(n) => n.as_u64().map(|n| n.to_string()),
                Value::String(s) => Some(s.trim().trim_start_matches('#').to_string()),
                _ => None,
            });
        let Some(task) = task else { return };
        let status = ["status", "new_status", "newStatus"]
            .iter()
            .find_map(|k| call.input.get(*k).and_then(Value::as_str));
        let (relation, place) = match status {
            Some(s) => (
                status_relation(s).max(Relation::WorkedOn),
                format!("{} ({}) → {}", call.tool, call.call_id, clip(s.trim(), 40)),
            ),
            None => (
                Relation::Mentioned,
                format!("{} ({})", call.tool, call.call_id),
            ),
        };
        if !task.is_empty() && task.len() <= 6 && task.bytes().all(|c| c.is_ascii_digit()) {
            if let Ok(n) = task.parse::<u32>() {
                self.add(format!("todo:{n}"), "todo", at, relation, &place);
            }
        } else if validate_task_id(&task).is_ok() {
            self.add(task, "contract", at, relation, &place);
        }
    }
}

fn clip(s: &str, chars: usize) -> String {
    match s.char_indices().nth(chars) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The tasks `session` touched, sorted by task (see the module doc).
pub fn attribute(session: &SessionEvents, policy: &T0Policy, root: Option<&str>) -> Vec<TaskLink> {
    let mut links = Links {
        stories: policy.compiled_story_globs(),
        root: root.map(str::to_string),
        tasks: BTreeMap::new(),
    };
    let first_user = session
        .messages
        .iter()
        .find(|m| m.role == Role::User)
        .map(|m| m.id.as_str());
    let mut at = 0;
    for (k, m) in session.messages.iter().enumerate() {
        for p in &m.parts {
            match &p.body {
                PartBody::Text { text, .. } if m.role != Role::Unknown => {
                    let who = if m.role == Role::User {
                        "user"
                    } else {
                        "assistant"
                    };
                    let place = format!("{who} message {}", k + 1);
                    links.mentions(text, at, Relation::Mentioned, &place);
                    if session.parent.is_some() && Some(m.id.as_str()) == first_user {
                        links.mentions(text, at, Relation::Active, "delegation prompt");
                    }
                }
                PartBody::Tool(call) => links.tool(call, at),
                _ => {}
            }
            at += 1;
        }
    }
    let mut out: Vec<TaskLink> = links
        .tasks
        .into_iter()
        .map(|(task, (kind, evidence))| {
            let relation = evidence
                .iter()
                .map(|e| e.relation)
                .max()
                .unwrap_or(Relation::Mentioned);
            TaskLink {
                task,
                kind: kind.to_string(),
                relation,
                evidence: bounded(evidence, relation),
            }
        })
        .collect();
    if out.len() > MAX_TASKS {
        // The strongest links, then the earliest seen; then back in task order.
        out.sort_by(|a, b| {
            let first = |t: &TaskLink| t.evidence.first().map_or(0, |e| e.at);
            b.relation.cmp(&a.relation).then(first(a).cmp(&first(b)))
        });
        out.truncate(MAX_TASKS);
        out.sort_by(|a, b| a.task.cmp(&b.task));
    }
    out
}

/// The first [`MAX_EVIDENCE`] pieces, the first strongest one always among them.
fn bounded(mut evidence: Vec<Evidence>, strongest: Relation) -> Vec<Evidence> {
    if evidence.len() <= MAX_EVIDENCE {
        return evidence;
    }
    let best = evidence.iter().position(|e| e.relation == strongest);
    match best {
        Some(b) if b >= MAX_EVIDENCE => {
            let keep = evidence.swap_remove(b);
            evidence.truncate(MAX_EVIDENCE - 1);
            evidence.push(keep);
        }
        _ => evidence.truncate(MAX_EVIDENCE),
    }
    evidence
}
