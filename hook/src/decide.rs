//! The decision on one PreToolUse call: the call handed to the core's decision loop
//! (`authority::Engine::decide_call`, the same every host uses) with the file system as
//! facts, and the outcome. Nothing is written here: the caller acts on the [`Outcome`], so a
//! call handed to the Node adapter leaves no trace of this attempt.

use nso_decision::authority::{is_read_tool, CallAnswer, Verdict};
use serde_json::Value;

use crate::claims;
use crate::logs;
use crate::paths::RealPaths;
use crate::project::{Failure, Loaded};

/// One call in the engine's form, with who makes it and where.
pub struct Call {
    /// The session key (`agent_id` inside a subagent, else `session_id`, else
    /// `claude-code`).
    pub session: String,
    /// The NSO agent deciding the call (`None`: unidentified).
    pub agent: Option<String>,
    /// Who the agent works for: `None` for the main agent, the main agent (`""` when none is
    /// configured) for a subagent.
    pub delegated_by: Option<String>,
    /// The engine's tool name.
    pub tool: String,
    /// The engine's arguments.
    pub args: Value,
    /// Where relative paths are taken from (the hook's `cwd`).
    pub directory: String,
    /// The project root.
    pub root: String,
    /// The main session whose Conductor instance claims for this call (a subagent's calls
    /// are its parent session's: plugin/claims.js `ownerOf`).
    pub owner: String,
    /// The Conductor's home (the files store's folder).
    pub conductor_home: String,
}

/// What the activity feed records of a decided call: its verdict, rule and message.
#[derive(Debug, Default)]
pub struct Seen {
    /// `allow`, `block`, `audit`, ...
    pub verdict: String,
    /// The rule behind it (`None` for a plain allow).
    pub rule: Option<String>,
    /// NSO's message (`None` when there is none).
    pub message: Option<String>,
}

/// What to do with a call.
#[derive(Debug)]
pub enum Outcome {
    /// Refuse with NSO's message, after writing the log lines.
    Deny {
        /// What the agent reads.
        message: String,
        /// `nso.log` lines.
        lines: Vec<String>,
        /// For the activity feed.
        seen: Seen,
    },
    /// Let it run, after writing the log lines and the audit record (if any).
    Allow {
        /// `nso.log` lines (none for a plain allow).
        lines: Vec<String>,
        /// An `audit.jsonl` line (audit verdicts only).
        audit: Option<String>,
        /// Reminders for the model (soft verdicts), sent as the hook's added context.
        notices: Vec<String>,
        /// For the activity feed.
        seen: Seen,
    },
    /// Hand the whole call to the Node adapter, for this reason (logged nowhere).
    Hand(&'static str),
}

/// Whether `tool` is write-class (the core's tool list).
pub fn writes(tool: &str) -> bool {
    !is_read_tool(tool)
}

/// The outcome while NSO is not enforcing (plugin/nso.js `decideTool` without an engine).
pub fn not_enforcing(call: &Call, failure: &Failure, time: &str) -> Outcome {
    if !writes(&call.tool) {
        return Outcome::Allow {
            lines: Vec::new(),
            audit: None,
            notices: Vec::new(),
            seen: Seen {
                verdict: "allow".to_string(),
                ..Seen::default()
            },
        };
    }
    let agent = call.agent.as_deref();
    let lines = vec![format!(
        "{time} block {} @{}: NSO not enforcing ({})",
        call.tool,
        agent.unwrap_or("?"),
        failure.code
    )];
    let message = format!(
        "NSO blocked {}{}: {}",
        call.tool,
        for_agent(agent),
        failure.text()
    );
    let seen = Seen {
        verdict: "block".to_string(),
        rule: Some("nso.not_enforcing".to_string()),
        message: Some(message.clone()),
    };
    Outcome::Deny {
        message,
        lines,
        seen,
    }
}

fn for_agent(agent: Option<&str>) -> String {
    agent
        .filter(|a| !a.is_empty())
        .map_or(String::new(), |a| format!(" for @{a}"))
}

/// The engine's outcome on `call` (plugin/nso.js `decideTool` with an engine). The call's
/// arguments move into the core (a write's text may be megabytes).
pub fn decide(loaded: &mut Loaded, call: &mut Call, time: &str) -> Outcome {
    let content_bytes = loaded.config.limits.content_bytes;
    let mut real = RealPaths::default();
    let engine_call = nso_decision::authority::Call {
        session_id: call.session.clone(),
        agent: call.agent.clone(),
        delegated_by: call.delegated_by.clone(),
        tool: call.tool.clone(),
        args: std::mem::take(&mut call.args),
        via: None,
        directory: call.directory.clone(),
        worktree: call.root.clone(),
        origin: None,
    };
    let answer = loaded
        .engine
        .decide_call(engine_call, content_bytes, &mut real);
    outcome(loaded, call, &answer, time, &mut real)
}

fn outcome(
    loaded: &Loaded,
    call: &Call,
    answer: &CallAnswer,
    time: &str,
    real: &mut RealPaths,
) -> Outcome {
    let agent = call.agent.as_deref();
    let (lines, seen) = match &answer.decision {
        None => {
            let seen = Seen {
                verdict: "allow".to_string(),
                ..Seen::default()
            };
            (Vec::new(), seen)
        }
        Some(d) => {
            let verdict = serde_json::to_value(d.verdict).ok();
            let seen = Seen {
                verdict: verdict
                    .as_ref()
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string(),
                rule: Some(d.rule_id.clone()),
                message: d.message.clone(),
            };
            let lines = d.log_lines(&call.tool, agent);
            (
                lines.into_iter().map(|l| format!("{time} {l}")).collect(),
                seen,
            )
        }
    };
    if let Some(d) = answer
        .decision
        .as_ref()
        .filter(|d| d.verdict == Verdict::Block)
    {
        return Outcome::Deny {
            message: d.message.clone().unwrap_or_default(),
            lines,
            seen,
        };
    }
    // The Conductor claims the files an allowed write-class call changes; a call that
    // changes none (`ls` through bash) claims nothing, and neither does one whose files the
    // session's instance holds already (plugin/claims.js `beforeWrite`).
    if loaded.config.conductor.mode != "off" && !answer.targets.is_empty() {
        let config = &loaded.config;
        let (home, root, owner) = (&call.conductor_home, &call.root, &call.owner);
        if !claims::held(config, home, root, owner, &answer.targets, real) {
            return Outcome::Hand("the Conductor claims what an allowed write changes");
        }
    }
    if call.tool == "task" {
        return Outcome::Hand("a delegation is checked against the session's chain");
    }
    let audit = answer
        .audit
        .as_ref()
        .map(|record| logs::audit_line(time, record));
    Outcome::Allow {
        lines,
        audit,
        notices: answer
            .decision
            .as_ref()
            .map(|d| d.notices.clone())
            .unwrap_or_default(),
        seen,
    }
}
