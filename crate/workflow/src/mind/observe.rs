//! Tier-1 observations of one session. A pass reads one chunk of one session (at most
//! `chunk_events` events) and never another session's events. What it notes, each citing the
//! events it came from:
//!
//! - the session's task (the person's first words);
//! - decisions recorded with `nso_decide`, with their reason;
//! - files changed, one observation per file and chunk, with the text the agent wrote just
//!   before (what the change was for);
//! - commands that failed: a later pass of the same command makes it a `fix` that names the
//!   files changed in between; otherwise it stays an `error`;
//! - refusals, and the agent's next call (what it did instead);
//! - questions the agent asked and the person's answer;
//! - task status moves (`nso_status_set`);
//! - test and build commands that worked.
//!
//! Ids are stable (the session, a family and the position of the first event), so reading a
//! longer lane gives the same ids with new content, which supersedes the old by reference.
//! Task links come from the whole session, so a task completed late is backfilled.

use super::{clip, Kind, MindSettings, Observation, PRODUCER};
use crate::continuity::attribution::{attribute, WRITE_TOOLS};
use crate::continuity::events::{
    project_path, PartBody, Role, SessionEvents, ToolCall, ToolStatus,
};
use crate::continuity::policy::T0Policy;
use crate::continuity::redact::redact;
use crate::continuity::t0::refusal_text;
use crate::continuity::Relation;
use nso_text::hashing::WordHash;
use std::collections::BTreeMap;

/// Longest line of an observation.
pub const TEXT_CHARS: usize = 240;
/// Longest snippet.
pub const SNIPPET_CHARS: usize = 400;

/// Words of a command that make it a test or build worth remembering when it works.
const CHECK_WORDS: &[&str] = &[
    "test", "tests", "build", "check", "lint", "clippy", "pytest", "jest", "vitest", "tsc", "make",
    "eslint", "mocha", "ctest", "lake",
];

fn short(text: &str, chars: usize) -> String {
    clip(&redact(text), chars)
}

/// The first line of `text` that says something.
fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

fn is_check(command: &str) -> bool {
    command
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| CHECK_WORDS.contains(&w))
}

fn failed(call: &ToolCall) -> bool {
    call.status == ToolStatus::Error || call.exit.is_some_and(|e| e != 0)
}

/// What a call did, in a few words (`edit src/a.ts`, `bash: npm test`).
pub(super) fn describe(call: &ToolCall, root: Option<&str>) -> String {
    if let Some(cmd) = call.input_str("command") {
        return format!("{}: {}", call.tool, short(cmd, 120));
    }
    let paths: Vec<String> = call.paths().iter().map(|p| project_path(p, root)).collect();
    if paths.is_empty() {
        call.tool.clone()
    } else {
        format!("{} {}", call.tool, paths.join(", "))
    }
}

/// One session's chunk being read.
struct Pass<'a> {
    session: &'a SessionEvents,
    root: Option<&'a str>,
    chunk: usize,
    out: Vec<Observation>,
    /// The agent's latest words: what the next change is for.
    purpose: Option<(usize, String)>,
    changes: BTreeMap<String, Change>,
    /// Failing commands by their text: (position, time, first error line, files changed since).
    failing: BTreeMap<String, (usize, Option<i64>, String, Vec<String>)>,
    passed: BTreeMap<String, ()>,
    question: Option<(usize, Option<i64>, String)>,
    refusal: Option<(usize, Option<i64>, String, String)>,
}

struct Change {
    first: usize,
    at: Option<i64>,
    edits: usize,
    tools: Vec<String>,
    purpose: Option<String>,
    events: Vec<usize>,
}

impl<'a> Pass<'a> {
    #[allow(clippy::too_many_arguments)] // one observation's fields, named at each call
    fn note(
        &mut self,
        kind: Kind,
        key: String,
        text: String,
        snippet: Option<String>,
        files: Vec<String>,
        events: Vec<usize>,
        at: Option<i64>,
    ) {
        self.out.push(Observation {
            id: format!("{}/{key}", self.session.id),
            session: self.session.id.clone(),
            chunk: self.chunk,
            kind,
            text: clip(&text, TEXT_CHARS),
            snippet: snippet
                .map(|s| clip(&s, SNIPPET_CHARS))
                .filter(|s| !s.is_empty()),
            files,
            events,
            at,
            producer: PRODUCER.to_string(),
            ..Observation::default()
        });
    }

    fn text(&mut self, at: usize, time: Option<i64>, role: Role, text: &str, first_ask: bool) {
        if role == Role::User {
            if first_ask {
                let ask = short(text, TEXT_CHARS);
                self.note(
                    Kind::Task,
                    format!("task-{at}"),
                    format!("asked: {ask}"),
                    Some(short(text, SNIPPET_CHARS)),
                    Vec::new(),
                    vec![at],
                    time,
                );
            }
            if let Some((q_at, q_time, q)) = self.question.take() {
                let answer = short(text, 160);
                self.note(
                    Kind::Question,
                    format!("question-{q_at}"),
                    format!("asked: {q} — answer: {answer}"),
                    None,
                    Vec::new(),
                    vec![q_at, at],
                    q_time,
                );
            }
        } else if role == Role::Assistant {
            self.purpose = Some((at, short(first_line(text), 160)));
            if let Some(q) = text
                .lines()
                .map(str::trim)
                .find(|l| l.ends_with('?') && l.len() > 8)
            {
                self.question = Some((at, time, short(q, 160)));
            }
        }
    }

    fn call(&mut self, at: usize, time: Option<i64>, call: &ToolCall) {
        if let Some(refused) = refusal_text(call) {
            self.end_refusal(None);
            let what = describe(call, self.root);
            self.refusal = Some((at, time, what, short(first_line(refused), 200)));
            return;
        }
        if call.status == ToolStatus::Pending || call.status == ToolStatus::Running {
            return;
        }
        self.end_refusal(Some((at, describe(call, self.root))));
        let ok = call.status == ToolStatus::Completed;
        match call.tool.as_str() {
            "nso_decide" if ok => {
                let decision = short(call.input_str("decision").unwrap_or(""), 160);
                let why = short(call.input_str("why").unwrap_or(""), 160);
                let recorded = call.output.as_deref().map(|o| short(first_line(o), 120));
                self.note(
                    Kind::Decision,
                    format!("decision-{at}"),
                    format!("decided: {decision} — why: {why}"),
                    recorded,
                    Vec::new(),
                    vec![at],
                    time,
                );
            }
            "nso_status_set" if ok => {
                let task = call
                    .input
                    .get("task")
                    .map(|t| t.to_string().trim_matches('"').to_string())
                    .unwrap_or_default();
                let status = short(call.input_str("status").unwrap_or("?"), 40);
                self.note(
                    Kind::Status,
                    format!("status-{at}"),
                    format!("task {task} moved to {status}"),
                    call.output.as_deref().map(|o| short(first_line(o), 160)),
                    Vec::new(),
                    vec![at],
                    time,
                );
            }
            "bash" => self.command(at, time, call),
            tool if ok && WRITE_TOOLS.contains(&tool) => {
                let purpose = self.purpose.as_ref().map(|(_, p)| p.clone());
                let purpose_at = self.purpose.as_ref().map(|(a, _)| *a);
                for path in call.paths() {
                    let file = project_path(path, self.root);
                    for (_, _, _, since) in self.failing.values_mut() {
                        if !since.contains(&file) {
                            since.push(file.clone());
                        }
                    }
                    let c = self.changes.entry(file).or_insert_with(|| Change {
                        first: at,
                        at: time,
                        edits: 0,
                        tools: Vec::new(),
                        purpose: purpose.clone(),
                        events: purpose_at.into_iter().collect(),
                    });
                    c.edits += 1;
                    if !c.tools.iter().any(|t| t == tool) {
                        c.tools.push(tool.to_string());
                    }
                    if c.events.len() < 8 && !c.events.contains(&at) {
                        c.events.push(at);
                    }
                }
            }
            _ => {}
        }
    }

    fn command(&mut self, at: usize, time: Option<i64>, call: &ToolCall) {
        let Some(cmd) = call.input_str("command") else {
            return;
        };
        let key = cmd.split_whitespace().collect::<Vec<_>>().join(" ");
        if key.is_empty() {
            return;
        }
        if failed(call) {
            self.failing.entry(key).or_insert_with(|| {
                let why = call
                    .error
                    .as_deref()
                    .or(call.output.as_deref())
                    .map(error_line)
                    .unwrap_or_default();
                (at, time, why, Vec::new())
            });
            return;
        }
        if let Some((f_at, f_time, why, files)) = self.failing.remove(&key) {
            let after = if files.is_empty() {
                "with no file changed in between".to_string()
            } else {
                format!("after changes to {}", files.join(", "))
            };
            self.note(
                Kind::Fix,
                format!("cmd-{f_at}"),
                format!("`{}` failed ({why}) and passed {after}", short(&key, 120)),
                call.output.as_deref().map(|o| short(o, SNIPPET_CHARS)),
                files,
                vec![f_at, at],
                f_time,
            );
            self.passed.insert(key, ());
        } else if is_check(&key) && !self.passed.contains_key(&key) {
            self.note(
                Kind::Command,
                format!("cmd-{at}"),
                format!("`{}` worked", short(&key, 160)),
                call.output.as_deref().map(|o| short(o, SNIPPET_CHARS)),
                Vec::new(),
                vec![at],
                time,
            );
            self.passed.insert(key, ());
        }
    }

    /// Closes a pending refusal with the call made next (None: the chunk ended first).
    fn end_refusal(&mut self, next: Option<(usize, String)>) {
        if let Some((r_at, r_time, what, why)) = self.refusal.take() {
            let (instead, mut events) = match next {
                Some((n_at, d)) => (format!("then {d}"), vec![r_at, n_at]),
                None => ("no other call followed".to_string(), vec![r_at]),
            };
            events.dedup();
            self.note(
                Kind::Refusal,
                format!("refusal-{r_at}"),
                format!("refused {what}: {why}; {instead}"),
                None,
                Vec::new(),
                events,
                r_time,
            );
        }
    }

    /// The chunk's observations; failures still open are handed to the session's next
    /// chunk (`last`: none follows, they are noted as errors).
    #[allow(clippy::type_complexity)]
    fn finish(
        mut self,
        last: bool,
    ) -> (
        Vec<Observation>,
        BTreeMap<String, (usize, Option<i64>, String, Vec<String>)>,
    ) {
        let open = if last {
            BTreeMap::new()
        } else {
            std::mem::take(&mut self.failing)
        };
        self.end_refusal(None);
        if let Some((q_at, q_time, q)) = self.question.take() {
            self.note(
                Kind::Question,
                format!("question-{q_at}"),
                format!("{}{q}", super::overview::OPEN_QUESTION),
                None,
                Vec::new(),
                vec![q_at],
                q_time,
            );
        }
        for (key, (f_at, f_time, why, files)) in std::mem::take(&mut self.failing) {
            self.note(
                Kind::Error,
                format!("cmd-{f_at}"),
                format!(
                    "`{}` failed ({why}) and did not pass again",
                    short(&key, 120)
                ),
                None,
                files,
                vec![f_at],
                f_time,
            );
        }
        for (file, c) in std::mem::take(&mut self.changes) {
            let edits = if c.edits == 1 {
                "1 edit".to_string()
            } else {
                format!("{} edits", c.edits)
            };
            let text = match &c.purpose {
                Some(p) if !p.is_empty() => {
                    format!("changed {file} ({edits}, {}): {p}", c.tools.join("/"))
                }
                _ => format!("changed {file} ({edits}, {})", c.tools.join("/")),
            };
            let key = format!(
                "change-{}-{:08x}",
                self.chunk,
                WordHash::of(file.as_bytes()) as u32
            );
            let mut events = c.events;
            events.sort_unstable();
            let _ = c.first;
            self.note(Kind::Change, key, text, None, vec![file], events, c.at);
        }
        (self.out, open)
    }
}

/// The first meaningful line of an error output, clipped.
fn error_line(text: &str) -> String {
    let lines = || text.lines().map(str::trim);
    let has = |l: &str, words: &[&str]| {
        let l = l.to_lowercase();
        words.iter().any(|w| l.contains(w))
    };
    let line = lines()
        .find(|l| has(l, &["error", "panic", "assert", "expected", "exception"]))
        .or_else(|| lines().find(|l| has(l, &["fail"])))
        .unwrap_or_else(|| first_line(text));
    short(line, 140)
}

/// The observations of `session` (see the module doc), sorted by (chunk, first event, id),
/// with their task links and revisions; placement is left to [`super::route`].
pub fn observe(
    session: &SessionEvents,
    root: Option<&str>,
    settings: &MindSettings,
) -> Vec<Observation> {
    let links = attribute(session, &T0Policy::default(), root);
    let events: Vec<_> = session.positioned().collect();
    let first_ask = events.iter().find_map(|(at, m, p)| match &p.body {
        PartBody::Text {
            synthetic: false,
            ignored: false,
            text,
        } if m.role == Role::User && !text.trim().is_empty() => Some(*at),
        _ => None,
    });
    let mut out = Vec::new();
    let mut open = BTreeMap::new();
    let chunks = events.len().div_ceil(settings.chunk_events.max(1));
    for (chunk, slice) in events.chunks(settings.chunk_events.max(1)).enumerate() {
        let mut pass = Pass {
            session,
            root,
            chunk,
            out: Vec::new(),
            purpose: None,
            changes: BTreeMap::new(),
            failing: std::mem::take(&mut open),
            passed: BTreeMap::new(),
            question: None,
            refusal: None,
        };
        for (at, message, part) in slice {
            let time = message.created;
            match &part.body {
                PartBody::Text {
                    text,
                    synthetic: false,
                    ignored: false,
                } if !text.trim().is_empty() => {
                    pass.text(*at, time, message.role, text, Some(*at) == first_ask)
                }
                PartBody::Tool(call) => pass.call(*at, time, call),
                _ => {}
            }
        }
        let (lo, hi) = (
            slice.first().map_or(0, |e| e.0),
            slice.last().map_or(0, |e| e.0),
        );
        let (list, still_open) = pass.finish(chunk + 1 == chunks);
        open = still_open;
        for mut o in list {
            o.tasks = links
                .iter()
                .filter(|l| {
                    l.relation >= Relation::WorkedOn
                        || l.evidence.iter().any(|e| e.at >= lo && e.at <= hi)
                })
                .map(|l| format!("{} {}", l.task, relation_word(l.relation)))
                .collect();
            out.push(o);
        }
    }
    out.sort_by(|a, b| (a.chunk, a.events.first(), &a.id).cmp(&(b.chunk, b.events.first(), &b.id)));
    out
}

/// The relation's word in an observation's task list.
pub fn relation_word(r: Relation) -> &'static str {
    match r {
        Relation::Mentioned => "mentioned",
        Relation::WorkedOn => "worked_on",
        Relation::Active => "active",
        Relation::Completed => "completed",
    }
}

/// Sets `rev` from the content (everything but `rev` and `supersedes`).
pub fn stamp(o: &mut Observation) {
    o.rev.clear();
    o.supersedes = None;
    let text = serde_json::to_string(&*o).unwrap_or_default();
    o.rev = format!("{:016x}", WordHash::of(text.as_bytes()));
}
