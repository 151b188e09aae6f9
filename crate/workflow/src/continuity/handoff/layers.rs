//! The lines of each layer of a handoff, from its input: every text is put on one line and
//! read only as far as a line can show.

use super::{flat, utc_minute, HandoffInput, Item, MAX_WIDTH};
use crate::continuity::ledger::Decision;
use crate::continuity::{Relation, SessionDigest};

pub(super) fn title_line(session: Option<&SessionDigest>) -> String {
    match session {
        None => "## NSO handoff · project".to_string(),
        Some(s) => {
            let mut line = format!("## NSO handoff · session {}", flat(&s.session, MAX_WIDTH));
            if let Some(agent) = s.agent.as_deref().filter(|a| !a.trim().is_empty()) {
                line.push_str(" · ");
                line.push_str(&at_agent(agent));
            }
            line
        }
    }
}

fn at_agent(agent: &str) -> String {
    let a = flat(agent, MAX_WIDTH);
    if a.starts_with('@') {
        a
    } else {
        format!("@{a}")
    }
}

pub(super) fn decision_line(d: &Decision, width: usize) -> String {
    let mut line = format!("- {} · {}", d.id, flat(&d.title, width));
    if let Some(why) = &d.why {
        line.push_str(" — ");
        line.push_str(&flat(why, width));
    }
    line
}

pub(super) fn stm_items(input: &HandoffInput, width: usize) -> Vec<Item> {
    let s = input.session.as_ref();
    let task = input
        .task
        .as_deref()
        .or_else(|| s.and_then(|s| s.task.as_deref()))
        .filter(|t| !t.trim().is_empty());
    let status = input.status.as_deref().filter(|t| !t.trim().is_empty());
    if s.is_none() && task.is_none() && status.is_none() {
        return vec![Item::marker("(no session to hand off)")];
    }
    let mut items = Vec::new();
    if let Some(t) = task {
        items.push(Item::content(format!("- task: {}", flat(t, width))));
    }
    if let Some(t) = status {
        items.push(Item::content(format!("- status: {}", flat(t, width))));
    }
    items.push(match &input.claims {
        None => Item::marker("(claims: unknown — the Conductor is off)"),
        Some(c) if c.is_empty() => Item::content("(claims: none held)".to_string()),
        Some(c) => Item::content(format!(
            "- claims held ({}): {}",
            c.len(),
            list(c.iter().map(String::as_str), width)
        )),
    });
    let Some(s) = s else { return items };
    if !s.files_changed.is_empty() {
        items.push(Item::content(format!(
            "- files changed ({}): {}",
            s.files_changed.len(),
            list(s.files_changed.iter().map(String::as_str), width)
        )));
    }
    if !s.tasks.is_empty() {
        items.push(Item::content(format!("- tasks: {}", tasks(s, width))));
    }
    if let Some(ask) = s.last_ask.as_deref().filter(|t| !t.trim().is_empty()) {
        items.push(Item::content(format!("- last ask: {}", flat(ask, width))));
    }
    for q in &s.open_questions {
        items.push(Item::content(format!(
            "- open question: {}",
            flat(q, width)
        )));
    }
    for r in &s.refusals {
        items.push(Item::content(format!(
            "- refused: {} — {}",
            flat(&r.tool, width),
            flat(&r.message, width)
        )));
    }
    items
}

pub(super) fn mind_items(input: &HandoffInput, width: usize) -> Vec<Item> {
    // Each line is a bullet, whatever it was given as (never a heading of its own).
    let mut items: Vec<Item> = input
        .mind
        .iter()
        .map(|l| flat(l, width))
        .filter(|l| !l.is_empty())
        .map(|l| {
            Item::content(if l.starts_with("- ") {
                l
            } else {
                format!("- {l}")
            })
        })
        .collect();
    for file in &input.memory {
        let path = flat(&file.path, width);
        items.push(match &file.content {
            None => Item::marker(format!("(memory file missing: {path})")),
            Some(text) => match meaningful(text, width) {
                Some(gist) => Item::content(format!("- {path}: {gist}")),
                None => Item::marker(format!("(memory file empty: {path})")),
            },
        });
    }
    for d in &input.recent {
        items.push(Item::content(digest_line(d, width)));
    }
    if items.is_empty() {
        items.push(Item::marker("(no memory files or recent sessions)"));
    }
    items
}

/// `- ses_x · @plan · 2026-11-23 12:00Z · 12 tool calls · 3 files changed · tasks: … — title`.
fn digest_line(d: &SessionDigest, width: usize) -> String {
    let mut parts = vec![format!("- {}", flat(&d.session, width))];
    if let Some(a) = d.agent.as_deref().filter(|a| !a.trim().is_empty()) {
        parts.push(at_agent(a));
    }
    if let Some(ms) = d.ended.or(d.started) {
        parts.push(utc_minute(ms));
    }
    parts.push(count(d.tool_calls, "tool call", "tool calls"));
    parts.push(count(
        d.files_changed.len(),
        "file changed",
        "files changed",
    ));
    if !d.tasks.is_empty() {
        parts.push(format!("tasks: {}", tasks(d, width)));
    }
    let mut line = parts.join(" · ");
    let about = d.title.as_deref().or(d.task.as_deref());
    if let Some(t) = about.filter(|t| !t.trim().is_empty()) {
        line.push_str(" — ");
        line.push_str(&flat(t, width));
    }
    line
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn tasks(d: &SessionDigest, width: usize) -> String {
    let words = d.tasks.iter().map(|t| {
        let rel = match t.relation {
            Relation::Mentioned => "mentioned",
            Relation::WorkedOn => "worked on",
            Relation::Active => "active",
            Relation::Completed => "completed",
        };
        format!("{} ({rel})", t.task)
    });
    let mut out = String::new();
    for (i, w) in words.enumerate() {
        if out.chars().count() > width {
            break;
        }
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&flat(&w, width));
    }
    out
}

/// `items` joined with `, `, read only as far as a line can show.
fn list<'a>(items: impl Iterator<Item = &'a str>, width: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    for (i, item) in items.enumerate() {
        if n > width {
            break;
        }
        if i > 0 {
            out.push_str(", ");
            n += 2;
        }
        let part = flat(item, width);
        n += part.chars().count();
        out.push_str(&part);
    }
    out
}

/// A memory file's first meaningful lines joined with ` / `, read as far as a line can show:
/// no front matter, blank lines, headings, fences, HTML comments or rules; list markers
/// (`- `, `* `, `+ `) dropped.
fn meaningful(text: &str, width: usize) -> Option<String> {
    let mut body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(rest) = body
        .strip_prefix("---\n")
        .or_else(|| body.strip_prefix("---\r\n"))
    {
        if let Some(end) = rest.find("\n---") {
            let after = &rest[end + 4..];
            body = after.split_once('\n').map_or("", |(_, b)| b);
        }
    }
    let mut out = String::new();
    let mut n = 0;
    let mut in_comment = false;
    for line in body.lines() {
        let t = line.trim();
        if in_comment {
            in_comment = !t.contains("-->");
            continue;
        }
        if t.starts_with("<!--") {
            in_comment = !t.contains("-->");
            continue;
        }
        let skip = t.is_empty()
            || t.starts_with('#')
            || t.starts_with("```")
            || t.starts_with("~~~")
            || t.chars().all(|c| "-*_=|: ".contains(c));
        if skip {
            continue;
        }
        let t = ["- ", "* ", "+ "]
            .iter()
            .find_map(|m| t.strip_prefix(m))
            .unwrap_or(t);
        let part = flat(t, width);
        if part.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str(" / ");
            n += 3;
        }
        n += part.chars().count();
        out.push_str(&part);
        if n > width {
            break;
        }
    }
    (!out.is_empty()).then_some(out)
}
