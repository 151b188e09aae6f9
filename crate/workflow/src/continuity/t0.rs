//! The T0 transcript: a deterministic, compact, redacted Markdown view of one session, with
//! its [`SessionDigest`]. Same session and policy, byte-identical text (no clock, no hash
//! map order); a live lane and the export of the same session give the same transcript.
//!
//! ```text
//! # T0 transcript ses_abc
//! policy: nso-t0 v1
//! session: ses_abc · parent ses_xyz · agent build · title "Fix the login"
//! ---
//! [system] a user message's system prompt, when it has one
//! [user] the person's text; further lines
//!   are indented two spaces (blank lines stay blank)
//! [user synthetic] text OpenCode added (synthetic or ignored parts)
//! [assistant @build] the model's text
//! [reasoning] only with the policy's `reasoning`
//! [tool] bash ok 120ms exit=0 out=2.3KB targets=- cmd="cargo test"
//! [tool] edit error 3ms out=0B targets=README.md error="NSO blocked edit for @build: …"
//! [tool] bash ok 1.2s exit=0 out=14.0KB targets=- cmd="ls"
//!   | a snippet line (tools the policy allows: at most N bytes of the output, cut at a
//!   | blank near the end so no token is split, then redacted)
//!   | … (+13.6KB)
//! [file] notes.png (image/png)   [agent] @plan   [subtask @explore] description
//! [retry] attempt 2: error       [compaction]    [error] an assistant message's error
//! ```
//!
//! One line per tool call: name, status (`ok`, `error`, `pending`, `running`), duration
//! (`ms` under a second, else seconds with one decimal; left out while unknown), `exit=` (a
//! shell exit code, when known), `out=` (output size: `B`, `KB`, `MB`, `GB`, one decimal,
//! 1024-based), `targets=` (paths, project-relative under the root, sorted, deduplicated,
//! comma-separated, at most [`MAX_TARGETS`]; `-` for none and for bash), then when they
//! apply: `cmd=` (bash), `pattern=` (glob/grep), `agent=@x child=ses_…` (task: the
//! subagent and its session), the scalar arguments of NSO tools (`status="DONE" task=258`,
//! sorted by key), `title=` (unless it repeats a target, the command or the pattern),
//! `error=` (first line, without an `Error: ` prefix) or `refused=` (an NSO tool's refusal).
//! Quoted values are one line, clipped, with `\` and `"` escaped.
//!
//! Dropped: step-start/step-finish/snapshot/patch parts, unknown part types, reasoning
//! (unless the policy keeps it), tool outputs (unless the policy keeps a snippet), empty
//! texts. Texts are clipped at [`TEXT_BYTES`] ([`SYNTHETIC_BYTES`] for synthetic ones) with
//! a `… (+N)` line. Everything shown is redacted ([`super::redact`]); control characters
//! become `�`, ANSI colour sequences are removed, line ends become `\n`.

mod digest;
mod text;

pub use text::{format_duration, format_size};

use super::events::{project_path, Message, PartBody, Role, SessionEvents, ToolCall, ToolStatus};
use super::policy::T0Policy;
use super::redact::Redactor;
use super::SessionDigest;
use serde::Serialize;
use std::fmt::Write as _;
use text::{clip, cut, one_line, push_block, quote, sanitize, strip_error_name};

/// Longest text part kept, in bytes.
pub const TEXT_BYTES: usize = 16 * 1024;
/// Longest synthetic text part kept, in bytes.
pub const SYNTHETIC_BYTES: usize = 2 * 1024;
/// Most targets on a tool line.
pub const MAX_TARGETS: usize = 20;
/// Longest error or refusal shown, in characters.
pub const ERROR_CHARS: usize = 300;
/// Longest `task`/`last_ask` of a digest, in characters.
pub const ASK_CHARS: usize = 500;
/// Longest open question, in characters.
pub const QUESTION_CHARS: usize = 200;
/// Most open questions.
pub const MAX_QUESTIONS: usize = 5;
/// Longest quoted tool value (`cmd=`, `title=`, …), in characters.
pub(crate) const VALUE_CHARS: usize = 200;
/// A snippet cut backs off to a blank within this many bytes (so no token is split).
const SNIPPET_BACKOFF: usize = 256;

/// Sizes of a transcript and of what it was made from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct T0Stats {
    /// Messages in the session.
    pub messages: usize,
    /// Parts in the session.
    pub parts: usize,
    /// Tool calls.
    pub tool_calls: usize,
    /// Tool calls that ended in an error.
    pub tool_errors: usize,
    /// Parts that produced no line (step markers, reasoning, empty texts, unknown types).
    pub dropped_parts: usize,
    /// Texts clipped.
    pub clipped_texts: usize,
    /// Tool snippets kept.
    pub snippets: usize,
    /// Bytes of tool output in the session (the full sizes, also when the lane cut them).
    pub output_bytes: u64,
    /// Bytes of the transcript.
    pub text_bytes: usize,
}

/// A session's T0 transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct T0 {
    /// The session id.
    pub session: String,
    /// The transcript (see the module doc).
    pub text: String,
    /// What a handoff needs to know.
    pub digest: SessionDigest,
    /// Sizes.
    pub stats: T0Stats,
}

/// The text of a refusal by NSO (or a project hook) in `call`, if it is one: an error
/// starting `NSO blocked` (after an `Error: ` prefix) or containing `NSO-BLOCK`, or an NSO
/// tool's output starting `NSO nso_… refused`.
pub fn refusal_text(call: &ToolCall) -> Option<&str> {
    match call.status {
        ToolStatus::Error => {
            let e = call.error.as_deref()?.trim_start();
            let bare = strip_error_name(e);
            (bare.starts_with("NSO blocked") || e.contains("NSO-BLOCK")).then_some(bare)
        }
        ToolStatus::Completed if call.tool.starts_with("nso_") => {
            let o = call.output.as_deref()?.trim_start();
            let first = o.lines().next().unwrap_or("");
            (o.starts_with("NSO nso_") && first.contains(" refused")).then_some(o)
        }
        _ => None,
    }
}

struct Renderer<'a> {
    policy: &'a T0Policy,
    redactor: Redactor,
    root: Option<&'a str>,
    out: String,
    stats: T0Stats,
}

impl Renderer<'_> {
    fn clean(&self, s: &str) -> String {
        sanitize(&self.redactor.redact(s))
    }

    /// A text part: redacted, clipped at `limit` bytes. False when it is empty.
    fn text(&mut self, label: &str, text: &str, limit: usize) -> bool {
        let clean = self.clean(text);
        let kept = cut(&clean, limit);
        let mut body = kept.to_string();
        if kept.len() < clean.len() {
            self.stats.clipped_texts += 1;
            let rest = format_size((clean.len() - kept.len()) as u64);
            let _ = write!(body, "\n… (+{rest})");
        }
        push_block(&mut self.out, label, &body)
    }

    fn targets(&self, call: &ToolCall) -> Vec<String> {
        let mut t: Vec<String> = call
            .paths()
            .into_iter()
            .map(|p| one_line(&project_path(p, self.root)))
            .collect();
        t.sort();
        t.dedup();
        t
    }

    fn tool(&mut self, call: &ToolCall) {
        let mut line = format!(
            "[tool] {} {}",
            clip(&one_line(&call.tool), 60),
            call.status.word()
        );
        if let (Some(s), Some(e)) = (call.start, call.end) {
            let _ = write!(line, " {}", format_duration(e.saturating_sub(s)));
        }
        if let Some(x) = call.exit {
            let _ = write!(line, " exit={x}");
        }
        let _ = write!(line, " out={}", format_size(call.output_bytes));
        let targets = self.targets(call);
        if targets.is_empty() {
            line.push_str(" targets=-");
        } else {
            let shown: Vec<&str> = targets
                .iter()
                .take(MAX_TARGETS)
                .map(String::as_str)
                .collect();
            let _ = write!(line, " targets={}", shown.join(","));
            if targets.len() > MAX_TARGETS {
                let _ = write!(line, ",+{}", targets.len() - MAX_TARGETS);
            }
        }
        self.arguments(call, &mut line);
        if let Some(title) = &call.title {
            // A title repeating a target, the command or the pattern says nothing new.
            let t = title.trim();
            let repeats = targets.contains(&project_path(t, self.root))
                || call.paths().contains(&t)
                || [call.input_str("command"), call.input_str("pattern")]
                    .iter()
                    .any(|v| v.map(str::trim) == Some(t));
            if !repeats {
                let _ = write!(line, " title={}", quote(&self.clean(title), VALUE_CHARS));
            }
        }
        let refusal = refusal_text(call);
        if call.status == ToolStatus::Error {
            let e =
                refusal.unwrap_or_else(|| strip_error_name(call.error.as_deref().unwrap_or("")));
            let first = e.trim().lines().next().unwrap_or("");
            let _ = write!(line, " error={}", quote(&self.clean(first), ERROR_CHARS));
        } else if let Some(r) = refusal {
            let first = r.lines().next().unwrap_or("");
            let _ = write!(line, " refused={}", quote(&self.clean(first), ERROR_CHARS));
        }
        // Values were redacted before clipping; the whole line again, so that `key="value"`
        // pairs of secret keys are caught too.
        let line = self.redactor.redact(&line);
        self.out.push_str(&line);
        self.out.push('\n');
        self.snippet(call);
    }

    /// `cmd=`, `pattern=`, `agent=`, and NSO tools' scalar arguments.
    fn arguments(&self, call: &ToolCall, line: &mut String) {
        let add = |line: &mut String, key: &str, value: &str| {
            let _ = write!(line, " {key}={}", quote(&self.clean(value), VALUE_CHARS));
        };
        match call.tool.as_str() {
            "bash" => {
                if let Some(c) = call.input_str("command") {
                    add(line, "cmd", c);
                }
            }
            "glob" | "grep" => {
                if let Some(p) = call.input_str("pattern") {
                    add(line, "pattern", p);
                }
            }
            "task" => {
                if let Some(a) = call.input_str("subagent_type") {
                    let _ = write!(line, " agent=@{}", clip(&one_line(a), 60).replace(' ', "_"));
                }
                if let Some(c) = &call.child_session {
                    let _ = write!(line, " child={}", clip(&one_line(c), 200).replace(' ', "_"));
                }
            }
            t if t.starts_with("nso_") => {
                let Some(input) = call.input.as_object() else {
                    return;
                };
                let mut keys: Vec<&String> = input.keys().collect();
                keys.sort();
                for key in keys.into_iter().take(8) {
                    let k: String = key
                        .chars()
                        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .take(40)
                        .collect();
                    match &input[key.as_str()] {
                        serde_json::Value::String(s) => add(line, &k, s),
                        v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_)) => {
                            let _ = write!(line, " {k}={v}");
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    fn snippet(&mut self, call: &ToolCall) {
        let Some(limit) = self.policy.snippet_bytes(&call.tool) else {
            return;
        };
        let Some(output) = call.output.as_deref().filter(|o| !o.trim().is_empty()) else {
            return;
        };
        let mut raw = cut(output, limit);
        if call.output_bytes > raw.len() as u64 {
            // Cut at a blank near the end, so no token or URL is split.
            let from = raw.len().saturating_sub(SNIPPET_BACKOFF);
            if let Some(k) = raw.as_bytes()[from..]
                .iter()
                .rposition(u8::is_ascii_whitespace)
            {
                raw = &raw[..from + k];
            }
        }
        let rest = call.output_bytes.saturating_sub(raw.len() as u64);
        let clean = self.clean(raw);
        let mut lines: Vec<&str> = clean.trim_end().lines().collect();
        while lines.first().is_some_and(|l| l.trim().is_empty()) {
            lines.remove(0);
        }
        for l in lines {
            let l = l.trim_end();
            self.out.push_str(if l.is_empty() { "  |" } else { "  | " });
            self.out.push_str(l);
            self.out.push('\n');
        }
        if rest > 0 {
            let _ = writeln!(self.out, "  | … (+{})", format_size(rest));
        }
        self.stats.snippets += 1;
    }

    fn message(&mut self, m: &Message) {
        if let Some(system) = &m.system {
            self.text("[system]", system, TEXT_BYTES);
        }
        let label = match (m.role, &m.agent) {
            (Role::User, _) => "[user]".to_string(),
            (Role::Assistant, Some(a)) => format!("[assistant @{}]", clip(&one_line(a), 60)),
            (Role::Assistant, None) => "[assistant]".to_string(),
            (Role::Unknown, _) => "[unknown]".to_string(),
        };
        for p in &m.parts {
            let shown = match &p.body {
                PartBody::Text {
                    text,
                    synthetic,
                    ignored,
                } => {
                    if (*synthetic || *ignored) && m.role == Role::User {
                        self.text("[user synthetic]", text, SYNTHETIC_BYTES)
                    } else {
                        self.text(&label, text, TEXT_BYTES)
                    }
                }
                PartBody::Reasoning { text } if self.policy.reasoning => {
                    self.text("[reasoning]", text, TEXT_BYTES)
                }
                PartBody::Tool(call) => {
                    self.tool(call);
                    true
                }
                PartBody::File { name, mime } => {
                    let mut l = clip(&one_line(name.as_deref().unwrap_or("-")), VALUE_CHARS);
                    if let Some(mime) = mime {
                        let _ = write!(l, " ({})", clip(&one_line(mime), 60));
                    }
                    let _ = writeln!(self.out, "[file] {}", self.clean(&l));
                    true
                }
                PartBody::Agent { name } => {
                    let name = one_line(name.as_deref().unwrap_or("?"));
                    let _ = writeln!(self.out, "[agent] @{}", clip(&name, 60));
                    true
                }
                PartBody::Subtask { agent, description } => {
                    let agent = one_line(agent.as_deref().unwrap_or("?"));
                    let d = one_line(&self.clean(description.as_deref().unwrap_or("")));
                    let _ = write!(self.out, "[subtask @{}]", clip(&agent, 60));
                    if !d.is_empty() {
                        let _ = write!(self.out, " {}", clip(&d, VALUE_CHARS));
                    }
                    self.out.push('\n');
                    true
                }
                PartBody::Retry { attempt, error } => {
                    let mut l = String::from("[retry]");
                    if let Some(a) = attempt {
                        let _ = write!(l, " attempt {a}");
                    }
                    if let Some(e) = error {
                        let first = e.lines().next().unwrap_or("");
                        let _ = write!(l, ": {}", clip(&one_line(&self.clean(first)), ERROR_CHARS));
                    }
                    self.out.push_str(&l);
                    self.out.push('\n');
                    true
                }
                PartBody::Compaction => {
                    self.out.push_str("[compaction]\n");
                    true
                }
                PartBody::Reasoning { .. } | PartBody::Other { .. } => false,
            };
            if !shown {
                self.stats.dropped_parts += 1;
            }
        }
        if let Some(e) = &m.error {
            let first = e.lines().next().unwrap_or("");
            let _ = writeln!(
                self.out,
                "[error] {}",
                clip(&one_line(&self.clean(first)), ERROR_CHARS)
            );
        }
    }
}

/// The T0 transcript and digest of `session` under `policy`; paths under `root` (the project
/// folder) are shown relative to it.
pub fn render(session: &SessionEvents, policy: &T0Policy, root: Option<&str>) -> T0 {
    let mut r = Renderer {
        policy,
        redactor: Redactor::from_policy(policy),
        root,
        out: String::new(),
        stats: T0Stats::default(),
    };
    let digest = digest::digest(session, policy, root, &r.redactor);
    let _ = writeln!(
        r.out,
        "# T0 transcript {}",
        clip(&one_line(&session.id), 200)
    );
    let _ = writeln!(r.out, "policy: {}", one_line(&policy.label()));
    let mut head = format!("session: {}", clip(&one_line(&session.id), 200));
    if let Some(p) = &session.parent {
        let _ = write!(head, " · parent {}", clip(&one_line(p), 200));
    }
    if let Some(a) = &digest.agent {
        let _ = write!(head, " · agent {a}");
    }
    if let Some(t) = &session.title {
        let _ = write!(head, " · title {}", quote(&r.clean(t), VALUE_CHARS));
    }
    r.out.push_str(&head);
    r.out.push_str("\n---\n");
    for m in &session.messages {
        r.message(m);
    }
    let mut stats = r.stats;
    stats.messages = session.messages.len();
    stats.parts = session.messages.iter().map(|m| m.parts.len()).sum();
    stats.tool_calls = digest.tool_calls;
    stats.tool_errors = digest.tool_errors;
    stats.output_bytes = digest::tools(session).map(|(_, c)| c.output_bytes).sum();
    stats.text_bytes = r.out.len();
    T0 {
        session: session.id.clone(),
        text: r.out,
        digest,
        stats,
    }
}
