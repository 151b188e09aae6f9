//! Continuity (seed 001 "AOC Mem" and "AOC Mind", the deterministic parts): the decision
//! ledger ([`ledger`]), the T0 compact transcript of a session ([`t0`], from OpenCode's
//! events or `opencode export`, with [`redact`] and task [`attribution`]), and handoffs that
//! compose the ledger, the session and the project's memory within a budget ([`handoff`]).
//!
//! Pure like the rest of the core: the shim passes the texts, the time and the policy in,
//! writes what comes out, and computes hashes of the outputs.

pub mod attribution;
pub mod events;
pub mod handoff;
pub mod ledger;
pub mod policy;
pub mod redact;
pub mod t0;

use serde::{Deserialize, Serialize};

/// How strongly a session is linked to a task, weakest first: a later, stronger piece of
/// evidence raises the link ("evidence that appears late updates earlier links").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// Named in a message or a tool argument.
    Mentioned,
    /// Its files were changed, or its status moved, by the session.
    WorkedOn,
    /// The session's own task (its contract, or a move into an in-progress state).
    Active,
    /// The session moved it to a done state.
    Completed,
}

/// Where a piece of task evidence was seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// Position of the event in the normalized session (0-based, message/part order).
    pub at: usize,
    /// What the evidence says.
    pub relation: Relation,
    /// Human-readable place: `user message 3`, `tool edit (call_x)`, `nso_status_set`.
    #[serde(rename = "where")]
    pub place: String,
}

/// One task a session touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskLink {
    /// The task: a contract task id (`build_20260208_auth_abc123`), a TODO.md number
    /// (`todo:258`) or a story file path (`story:docs/stories/login.md`).
    pub task: String,
    /// `contract`, `todo` or `story`.
    pub kind: String,
    /// The strongest relation seen.
    pub relation: Relation,
    /// Every piece of evidence, in order (bounded by the producer).
    pub evidence: Vec<Evidence>,
}

/// A tool call NSO (or a project hook) refused in the session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// The tool refused.
    pub tool: String,
    /// The first line of the refusal, clipped.
    pub message: String,
    /// Position of the event in the normalized session.
    pub at: usize,
}

/// What a handoff needs to know about one session; produced with its T0 transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionDigest {
    /// The session id.
    pub session: String,
    /// The parent session (a subagent's), if any.
    pub parent: Option<String>,
    /// The agent of the session (from its messages).
    pub agent: Option<String>,
    /// The session title, if known.
    pub title: Option<String>,
    /// Time of the first and last message (ms since the epoch), if known.
    pub started: Option<i64>,
    /// See `started`.
    pub ended: Option<i64>,
    /// Messages kept.
    pub messages: usize,
    /// Tool calls seen.
    pub tool_calls: usize,
    /// Tool calls that ended in an error (refusals included).
    pub tool_errors: usize,
    /// The session's task: its first user text (redacted, clipped; for a subagent, the
    /// delegation prompt).
    pub task: Option<String>,
    /// The last text the person typed (redacted, clipped).
    pub last_ask: Option<String>,
    /// Questions left open in the last assistant text (redacted, clipped).
    pub open_questions: Vec<String>,
    /// Project-relative paths changed by completed write-class tool calls, sorted.
    pub files_changed: Vec<String>,
    /// Tool calls refused by NSO or a project hook.
    pub refusals: Vec<Refusal>,
    /// Tasks touched, sorted by task.
    pub tasks: Vec<TaskLink>,
}

/// Id of the append-only area NSO adds on the decision ledger (`continuity.ledger`).
pub const LEDGER_AREA: &str = "nso.continuity.ledger";

/// Id of the rule NSO adds so that every agent may record decisions with `nso_decide`.
pub const LEDGER_RULE: &str = "nso.continuity.ledger.record";

/// The project's policy with the decision ledger's guarantees added, from the `authority`
/// section of the config (`ledger`: the ledger's project-relative path):
///
/// - a rule allowing every agent to write and create the ledger through `nso_decide` (so a
///   planner that may write nothing else can still record a decision; a rule of the policy
///   that blocks an agent there still wins: block beats allow);
/// - an append-only area on it for every agent and tool ([`LEDGER_AREA`]), bash included.
///
/// `source` names the config file in messages.
pub fn policy_with_ledger(
    authority: &serde_json::Value,
    source: &str,
    ledger: &str,
) -> Result<nso_decision::authority::Policy, nso_decision::authority::ConfigErrors> {
    let mut section = authority.clone();
    if let Some(obj) = section.as_object_mut() {
        let rule = serde_json::json!({
            "id": LEDGER_RULE,
            "description": "every agent records decisions in the ledger with nso_decide",
            "agents": ["*"],
            "ops": ["write", "create"],
            "paths": [nso_decision::authority::literal_glob(ledger)],
            "tools": ["nso_decide"],
            "effect": "allow",
        });
        let rules = obj
            .entry("rules")
            .or_insert_with(|| serde_json::Value::Array(Vec::new()));
        if let Some(list) = rules.as_array_mut() {
            list.push(rule);
        }
    }
    let mut policy =
        nso_decision::authority::Policy::from_config_value(&section, source, "authority")?;
    let instead = "record a decision with the nso_decide tool (or a person with `nso decide`); \
                   to revise one, record a new decision that supersedes it";
    policy
        .add_append_only(
            LEDGER_AREA,
            &format!("{source} continuity.ledger"),
            ledger,
            instead,
        )
        .map_err(|problem| {
            nso_decision::authority::ConfigErrors(vec![nso_decision::authority::ConfigError {
                code: "config_value",
                source: source.to_string(),
                path: "continuity.ledger".to_string(),
                message: problem,
                hint: "name a plain file path for the ledger.".to_string(),
            }])
        })?;
    Ok(policy)
}
