//! A call the engine decides ([`Request`]), what it answers ([`Decision`], or the
//! [`Lookups`] it needs first), and the status machines' side of it ([`StatusOracle`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fast_map::FastMap;

/// One tool call to decide.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Request {
    /// OpenCode session id (repeat counting is per session).
    pub session_id: String,
    /// Agent name as OpenCode reports it (name or display name); `None` when unknown.
    pub agent: Option<String>,
    /// Tool id, e.g. `write`, `bash`, `apply_patch`.
    pub tool: String,
    /// Tool arguments as the model sent them.
    pub args: Value,
    /// OpenCode's `directory` (absolute; relative paths are resolved against it).
    pub directory: String,
    /// OpenCode's `worktree` (absolute project root).
    pub worktree: String,
    /// Symlinks resolved by the shim: path as given in the args, or its normalised absolute
    /// form → real absolute path.
    pub resolved: FastMap<String, String>,
    /// Current content of files the engine asked for ([`Engine::required_content`](super::Engine::required_content)),
    /// keyed by absolute path; `null` = the file does not exist (empty old content).
    pub contents: FastMap<String, Option<String>>,
    /// Files whose current content the shim did not send because it is larger than
    /// `limits.contentBytes`, keyed like [`Request::contents`], with their size in bytes:
    /// checks that need the content fail closed and say why.
    pub oversized: FastMap<String, u64>,
    /// Whether files exist, keyed by absolute path ([`Engine::required_exists`](super::Engine::required_exists)).
    pub exists: FastMap<String, bool>,
    /// Who the agent works for: `None` for a primary agent (the person), `Some(name)` for a
    /// subagent started by agent `name` (empty when the host does not know which). Refusals
    /// tell a primary agent to ask the person, a subagent to report to its caller.
    pub delegated_by: Option<String>,
    /// The NSO tool that makes this write on the agent's behalf (`nso_status_set` when the
    /// atomic status sync checks one of its planned writes as a `write` call). Set by the
    /// shim only, never taken from a model's arguments: rules' `tools` and `exceptTools`
    /// match it instead of [`Request::tool`], so a policy can reserve files for NSO's tools.
    pub via: Option<String>,
}

impl Request {
    /// The tool name rules' `tools` / `exceptTools` filters see: [`Request::via`] if set,
    /// else [`Request::tool`].
    pub fn rule_tool(&self) -> &str {
        self.via
            .as_deref()
            .filter(|v| !v.is_empty())
            .unwrap_or(&self.tool)
    }
}

/// A status change to check: the file, its text before (`None`: created) and after, and the
/// agent's names (its own first, then those it is `like`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusQuery {
    /// Project-relative path.
    pub file: String,
    /// Text before the edit (`None`: the file is created).
    pub old: Option<String>,
    /// Text after the edit.
    pub new: String,
    /// The agent's name, then the agents it is `like`, nearest first.
    pub agents: Vec<String>,
    /// The tool's new text is unknown (a shell write): describe the current state and the
    /// legal moves instead of checking one.
    #[serde(default)]
    pub unseen: bool,
}

/// The answer to a [`StatusQuery`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusAnswer {
    /// The edit may proceed.
    pub allowed: bool,
    /// The governing machine (`None`: no machine governs the file).
    pub machine: Option<String>,
    /// The machine is a shipped one.
    pub builtin: bool,
    /// Refused: why, with the legal next states and who may make them; allowed: the moves.
    pub detail: String,
}

/// Checks status changes against the status machines (`crate::status` natively; the wasm
/// boundary asks the lazily loaded workflow package through JS).
pub trait StatusOracle: std::fmt::Debug {
    /// The verdict on one status change.
    fn check(&self, query: &StatusQuery) -> StatusAnswer;
}

/// Outcome of a decision or of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Runs.
    Allow,
    /// Does not run; `message` goes to the agent.
    Block,
    /// Runs; `notices` are appended to the tool output.
    Soft,
    /// Runs; `log` lines are written.
    Warn,
    /// Runs, though it would have been refused (audit mode: the policy's or the rule's
    /// `mode`): `message` is what NSO would have told the agent, for the log only.
    Audit,
}

/// One operation that was checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckedOp {
    /// `read`, `write`, `create`, `delete`, `git` or `opaque`.
    pub op: &'static str,
    /// The git operation (snake_case) for `git`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_op: Option<&'static str>,
    /// Path (relative inside the project, absolute outside), git subcommand, or opaque detail.
    pub target: String,
    /// The path as given, when a symlink was resolved to `target`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via_symlink: Option<String>,
    /// The bash step it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    /// Outcome for this operation.
    pub verdict: Verdict,
    /// Rule that decided it.
    pub rule_id: String,
    /// Where that rule is defined.
    pub rule_source: String,
}

/// The engine's answer for one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// Overall outcome: block if any operation is blocked.
    pub verdict: Verdict,
    /// Rule behind the verdict (the first blocked operation's, for a block).
    pub rule_id: String,
    /// Where that rule is defined.
    pub rule_source: String,
    /// Canonical agent name, or the name as given when the agent is unknown.
    pub agent: Option<String>,
    /// Tool id.
    pub tool: String,
    /// Every operation checked.
    pub operations: Vec<CheckedOp>,
    /// Message for the agent (block only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Reminders to append to the tool output (soft).
    pub notices: Vec<String>,
    /// Log lines (warn, and unclassified tools).
    pub log: Vec<String>,
    /// The tool is unknown and has no path-like arguments: allowed, but reported.
    pub unclassified: bool,
    /// How many times this exact call was refused before in this session.
    pub repeats: u32,
}

/// What the shim must look up before the engine can decide: real locations (symlinks),
/// current contents and existence of absolute paths.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Lookups {
    /// Paths whose real location is not in [`Request::resolved`].
    pub resolve: Vec<String>,
    /// Paths whose content is needed (append-only and sacred files).
    pub content: Vec<String>,
    /// Paths whose existence decides between write and create rights.
    pub exists: Vec<String>,
}

impl Decision {
    /// A plain allow: allowed, with no reminder, no log line and nothing to report, so the
    /// shim has nothing to do.
    pub fn is_plain(&self) -> bool {
        self.verdict == Verdict::Allow
            && self.notices.is_empty()
            && self.log.is_empty()
            && !self.unclassified
    }
}

impl Lookups {
    /// Nothing to look up.
    pub fn is_empty(&self) -> bool {
        self.resolve.is_empty() && self.content.is_empty() && self.exists.is_empty()
    }
}

pub(crate) fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Allow => "allow",
        Verdict::Block => "block",
        Verdict::Soft => "soft",
        Verdict::Warn => "warn",
        Verdict::Audit => "audit",
    }
}
