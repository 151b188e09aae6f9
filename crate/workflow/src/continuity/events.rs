//! OpenCode's session events, normalized: the same model from `opencode export <id>` JSON
//! ([`from_export`]) and from NSO's raw lane ([`from_lane`]).
//!
//! The raw lane is JSONL, one record per line, appended by the plugin as OpenCode reports
//! events: `{"v":1,"seq":N,"t":ms,"kind":"session","info":{…}}`, `kind` `message` with
//! `info`, and `kind` `part` with `part`. A later record of the same session, message or part
//! replaces an earlier one (the last line in the file wins). Unusable lines are skipped with a
//! warning naming the line; records of different sessions are kept apart.
//!
//! Normalization makes both sources give the same [`SessionEvents`] for the same data:
//! messages are ordered by (created time, id), with messages of unknown time last; parts
//! within a message by id (OpenCode ids ascend). Unknown part types and fields are ignored.

mod parse;

pub use parse::{from_export, from_lane, MAX_WARNINGS};

use serde_json::Value;

/// Sessions read from one input, with what was skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Normalized {
    /// The sessions, in order of first appearance.
    pub sessions: Vec<SessionEvents>,
    /// What was skipped and why (`line 7: not JSON (truncated?) — skipped`).
    pub warnings: Vec<String>,
}

/// One session: its info and its messages in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionEvents {
    /// The session id (`ses_…`).
    pub id: String,
    /// The parent session of a subagent session.
    pub parent: Option<String>,
    /// The session title.
    pub title: Option<String>,
    /// The folder the session ran in.
    pub directory: Option<String>,
    /// Creation time (ms since the epoch).
    pub created: Option<i64>,
    /// Last update time (ms since the epoch).
    pub updated: Option<i64>,
    /// Messages ordered by (created, id).
    pub messages: Vec<Message>,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The person (or a delegating agent, for a subagent session).
    User,
    /// The model.
    Assistant,
    /// Parts seen without their message's info.
    Unknown,
}

/// One message and its parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The message id (`msg_…`).
    pub id: String,
    /// Who wrote it.
    pub role: Role,
    /// Creation time (ms since the epoch).
    pub created: Option<i64>,
    /// Completion time of an assistant message.
    pub completed: Option<i64>,
    /// The agent (`agent`, or an assistant message's `mode`).
    pub agent: Option<String>,
    /// `provider/model`.
    pub model: Option<String>,
    /// A user message's system prompt override.
    pub system: Option<String>,
    /// An assistant message's error: `Name: message`.
    pub error: Option<String>,
    /// Parts ordered by id.
    pub parts: Vec<Part>,
}

/// One part of a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The part id (`prt_…`).
    pub id: String,
    /// What it holds.
    pub body: PartBody,
}

/// The content of a part (only what a transcript uses).
#[derive(Debug, Clone, PartialEq)]
pub enum PartBody {
    /// Text of the person or the model.
    Text {
        /// The text.
        text: String,
        /// Added by OpenCode rather than typed (file contents, reminders).
        synthetic: bool,
        /// Marked ignored by OpenCode.
        ignored: bool,
    },
    /// The model's reasoning.
    Reasoning {
        /// The text.
        text: String,
    },
    /// A tool call.
    Tool(ToolCall),
    /// An attached file.
    File {
        /// Its file name, or its URL when it is not a `data:` URL.
        name: Option<String>,
        /// Its MIME type.
        mime: Option<String>,
    },
    /// An `@agent` mention.
    Agent {
        /// The agent named.
        name: Option<String>,
    },
    /// A subtask handed to an agent.
    Subtask {
        /// The agent.
        agent: Option<String>,
        /// Its description.
        description: Option<String>,
    },
    /// A retry of a failed request.
    Retry {
        /// The attempt number.
        attempt: Option<i64>,
        /// The error retried.
        error: Option<String>,
    },
    /// A compaction marker.
    Compaction,
    /// Anything else (`step-start`, `step-finish`, `snapshot`, `patch`, unknown types).
    Other {
        /// The part's `type`.
        kind: String,
    },
}

/// State of a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    /// Not started.
    Pending,
    /// Running.
    Running,
    /// Finished with an output.
    Completed,
    /// Finished with an error (refusals included).
    Error,
    /// A state NSO does not know.
    Unknown,
}

impl ToolStatus {
    /// `ok`, `error`, `pending`, `running` or `unknown`, as a transcript writes it.
    pub fn word(self) -> &'static str {
        match self {
            ToolStatus::Pending => "pending",
            ToolStatus::Running => "running",
            ToolStatus::Completed => "ok",
            ToolStatus::Error => "error",
            ToolStatus::Unknown => "unknown",
        }
    }
}

/// A tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call id.
    pub call_id: String,
    /// The tool name.
    pub tool: String,
    /// Its state.
    pub status: ToolStatus,
    /// Its input (an object, or `null`).
    pub input: Value,
    /// Its output (possibly cut by the lane).
    pub output: Option<String>,
    /// The output's full size in bytes (`nsoOutputBytes` when the lane cut it).
    pub output_bytes: u64,
    /// Its error text.
    pub error: Option<String>,
    /// Its title.
    pub title: Option<String>,
    /// A shell exit code from the metadata (`exit` or `exitCode`).
    pub exit: Option<i64>,
    /// Start time (ms).
    pub start: Option<i64>,
    /// End time (ms).
    pub end: Option<i64>,
    /// The child session of a `task` call (`metadata.sessionId`).
    pub child_session: Option<String>,
}

impl ToolCall {
    /// A string field of the input.
    pub fn input_str(&self, key: &str) -> Option<&str> {
        self.input.get(key).and_then(Value::as_str)
    }

    /// The paths the call names, as written, in input order: `filePath`/`file_path`/`path`,
    /// and the files of an `apply_patch` text (moves included). None for `bash`.
    pub fn paths(&self) -> Vec<&str> {
        let mut out = Vec::new();
        if self.tool == "bash" {
            return out;
        }
        for key in ["filePath", "file_path", "path"] {
            if let Some(p) = self.input_str(key).filter(|p| !p.trim().is_empty()) {
                out.push(p.trim());
            }
        }
        if let Some(text) = self.input_str("patchText") {
            for line in text.lines() {
                let t = line.trim();
                for marker in [
                    "*** Add File:",
                    "*** Update File:",
                    "*** Delete File:",
                    "*** Move to:",
                ] {
                    if let Some(p) = t.strip_prefix(marker).map(str::trim) {
                        if !p.is_empty() {
                            out.push(p);
                        }
                    }
                }
            }
        }
        out
    }
}

/// `path` relative to `root` when it lies under it (`.` for the root itself), else as written
/// (a leading `./` dropped).
pub fn project_path(path: &str, root: Option<&str>) -> String {
    let path = path.trim();
    if let Some(root) = root
        .map(|r| r.trim_end_matches('/'))
        .filter(|r| !r.is_empty())
    {
        if path == root {
            return ".".to_string();
        }
        if let Some(rest) = path.strip_prefix(root).and_then(|r| r.strip_prefix('/')) {
            return rest.trim_start_matches('/').to_string();
        }
    }
    path.strip_prefix("./").unwrap_or(path).to_string()
}

impl SessionEvents {
    /// Every part with its position (0-based, message then part order) and its message.
    pub fn positioned(&self) -> impl Iterator<Item = (usize, &Message, &Part)> {
        self.messages
            .iter()
            .flat_map(|m| m.parts.iter().map(move |p| (m, p)))
            .enumerate()
            .map(|(at, (m, p))| (at, m, p))
    }
}
