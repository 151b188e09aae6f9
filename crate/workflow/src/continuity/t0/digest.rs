//! The [`SessionDigest`] of a session: what a handoff needs to know about it.

use super::text::{clip, one_line};
use super::{refusal_text, ASK_CHARS, ERROR_CHARS, MAX_QUESTIONS, QUESTION_CHARS, VALUE_CHARS};
use crate::continuity::attribution::{attribute, WRITE_TOOLS};
use crate::continuity::events::{
    project_path, PartBody, Role, SessionEvents, ToolCall, ToolStatus,
};
use crate::continuity::policy::T0Policy;
use crate::continuity::redact::Redactor;
use crate::continuity::{Refusal, SessionDigest};

/// Every tool call with its position.
pub(super) fn tools(session: &SessionEvents) -> impl Iterator<Item = (usize, &ToolCall)> {
    session.positioned().filter_map(|(at, _, p)| match &p.body {
        PartBody::Tool(c) => Some((at, c)),
        _ => None,
    })
}

/// User texts typed by the person (not synthetic, not ignored), in order.
fn typed_texts(session: &SessionEvents) -> impl Iterator<Item = &str> {
    session
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .flat_map(|m| m.parts.iter())
        .filter_map(|p| match &p.body {
            PartBody::Text {
                text,
                synthetic: false,
                ignored: false,
            } if !text.trim().is_empty() => Some(text.as_str()),
            _ => None,
        })
}

pub(super) fn digest(
    session: &SessionEvents,
    policy: &T0Policy,
    root: Option<&str>,
    redactor: &Redactor,
) -> SessionDigest {
    let line = |s: &str, chars: usize| clip(&one_line(&redactor.redact(s)), chars);
    let last_assistant_text = session
        .messages
        .iter()
        .rev()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.parts.iter().rev())
        .find_map(|p| match &p.body {
            PartBody::Text { text, .. } if !text.trim().is_empty() => Some(text.as_str()),
            _ => None,
        });
    let open_questions = last_assistant_text
        .map(|t| {
            t.lines()
                .map(str::trim)
                .filter(|l| l.ends_with('?'))
                .take(MAX_QUESTIONS)
                .map(|l| line(l, QUESTION_CHARS))
                .collect()
        })
        .unwrap_or_default();
    let mut files_changed = Vec::new();
    let mut refusals = Vec::new();
    let (mut tool_calls, mut tool_errors) = (0, 0);
    for (at, call) in tools(session) {
        tool_calls += 1;
        if call.status == ToolStatus::Error {
            tool_errors += 1;
        }
        if call.status == ToolStatus::Completed && WRITE_TOOLS.contains(&call.tool.as_str()) {
            files_changed.extend(call.paths().into_iter().map(|p| project_path(p, root)));
        }
        if let Some(r) = refusal_text(call) {
            refusals.push(Refusal {
                tool: clip(&one_line(&call.tool), 60),
                message: line(r.lines().next().unwrap_or(""), ERROR_CHARS),
                at,
            });
        }
    }
    files_changed.sort();
    files_changed.dedup();
    let times = session.messages.iter();
    SessionDigest {
        session: session.id.clone(),
        parent: session.parent.clone(),
        agent: session
            .messages
            .iter()
            .find_map(|m| m.agent.as_deref())
            .map(|a| clip(&one_line(a), 60)),
        title: session.title.as_deref().map(|t| line(t, VALUE_CHARS)),
        started: times.clone().filter_map(|m| m.created).min(),
        ended: times.filter_map(|m| m.completed.max(m.created)).max(),
        messages: session.messages.len(),
        tool_calls,
        tool_errors,
        task: typed_texts(session).next().map(|t| line(t, ASK_CHARS)),
        last_ask: typed_texts(session).last().map(|t| line(t, ASK_CHARS)),
        open_questions,
        files_changed,
        refusals,
        tasks: attribute(session, policy, root),
    }
}
