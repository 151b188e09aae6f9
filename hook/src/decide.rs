//! The decision path of one PreToolUse call, as the plugin takes it (plugin/nso.js
//! `decideTool`, plugin/decision.js `decideWithLookups`/`preResolve`, plugin/files.js
//! `gatherLookups`, plugin/bounds.js `boundArgs`): the request, its bounds, the lookups the
//! core asks for, and the outcome. Nothing is written here: the caller acts on the
//! [`Outcome`], so a call handed to the Node adapter leaves no trace of this attempt.

use nso::authority::{Decision, Lookups, Request, Verdict};
use serde_json::{json, Value};

use crate::claims;
use crate::logs;
use crate::paths::{self, Read, RealPaths};
use crate::project::{Failure, Loaded};

/// Tools that only read (plugin/decision.js `READ_TOOLS`); every other tool is
/// write-class: refused while NSO is not enforcing, and claimed by the Conductor.
pub const READ_TOOLS: [&str; 13] = [
    "read",
    "glob",
    "grep",
    "list",
    "webfetch",
    "websearch",
    "codesearch",
    "todoread",
    "todowrite",
    "skill",
    "question",
    "lsp",
    "invalid",
];
/// The shell analyser's limit (crate/src/shell `MAX_INPUT`, plugin/bounds.js).
const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// Arguments of the common file tools whose real path is resolved before asking.
const PATH_ARGS: [&str; 2] = ["filePath", "path"];
/// Rounds of lookups before the plugin gives up (plugin/decision.js `MAX_LOOKUP_ROUNDS`).
const MAX_LOOKUP_ROUNDS: usize = 3;

/// One call in the engine's form, with who makes it and where.
pub struct Call {
    /// The session key (`agent_id` inside a subagent, else `session_id`, else
    /// `claude-code`).
    pub session: String,
    /// The NSO agent deciding the call (`None`: unidentified).
    pub agent: Option<String>,
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

/// Whether `tool` is write-class.
pub fn writes(tool: &str) -> bool {
    !READ_TOOLS.contains(&tool)
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
/// arguments move into the request (a write's text may be megabytes).
pub fn decide(loaded: &mut Loaded, call: &mut Call, time: &str) -> Outcome {
    let content_bytes = loaded.config.limits.content_bytes;
    let args = bound_args(&call.tool, std::mem::take(&mut call.args), content_bytes);
    let mut request = Request {
        session_id: call.session.clone(),
        agent: call.agent.clone(),
        tool: call.tool.clone(),
        args,
        directory: call.directory.clone(),
        worktree: call.root.clone(),
        ..Request::default()
    };
    let mut real = RealPaths::default();
    pre_resolve(&mut request, &call.directory, &mut real);
    let mut decision = None;
    for _ in 0..MAX_LOOKUP_ROUNDS {
        if real.odd {
            return Outcome::Hand("a path could not be examined");
        }
        match loaded.engine.decide_or_lookups(&request) {
            Ok(d) => {
                decision = Some(d);
                break;
            }
            Err(need) => {
                if gather(&mut request, &need, content_bytes, &mut real).is_err() {
                    return Outcome::Hand("a file the decision needs could not be read");
                }
            }
        }
    }
    let Some(decision) = decision else {
        return Outcome::Hand("the core asked for lookups more than three times");
    };
    outcome(loaded, call, &request, &decision, time, &mut real)
}

fn outcome(
    loaded: &Loaded,
    call: &Call,
    request: &Request,
    d: &Decision,
    time: &str,
    real: &mut RealPaths,
) -> Outcome {
    let agent = call.agent.as_deref();
    let plain =
        d.verdict == Verdict::Allow && d.notices.is_empty() && d.log.is_empty() && !d.unclassified;
    let (lines, seen) = if plain {
        let seen = Seen {
            verdict: "allow".to_string(),
            ..Seen::default()
        };
        (Vec::new(), seen)
    } else {
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
        (logs::decision_lines(d, &call.tool, agent, time), seen)
    };
    if d.verdict == Verdict::Block {
        let message = d.message.clone().unwrap_or_default();
        return Outcome::Deny {
            message,
            lines,
            seen,
        };
    }
    // The Conductor claims the files an allowed write-class call changes; a call that
    // changes none (`ls` through bash) claims nothing, and neither does one whose files the
    // session's instance holds already (plugin/claims.js `beforeWrite`).
    if writes(&call.tool) && loaded.config.conductor.mode != "off" {
        let targets = loaded.engine.write_targets(request);
        let config = &loaded.config;
        let (home, root, owner) = (&call.conductor_home, &call.root, &call.owner);
        if !targets.is_empty() && !claims::held(config, home, root, owner, &targets, real) {
            return Outcome::Hand("the Conductor claims what an allowed write changes");
        }
    }
    if call.tool == "task" {
        return Outcome::Hand("a delegation is checked against the session's chain");
    }
    let audit = (d.verdict == Verdict::Audit).then(|| {
        let session = Some(call.session.as_str());
        logs::audit_record(time, session, agent, &call.tool, &request.args, d)
    });
    Outcome::Allow {
        lines,
        audit,
        notices: d.notices.clone(),
        seen,
    }
}

/// The arguments as they cross into the core (plugin/bounds.js `boundArgs`): the bash
/// command cut past the analyser's limit, texts over `content_bytes` replaced by
/// `{nsoOversized: bytes}`, so each check that needs them fails closed.
pub fn bound_args(tool: &str, mut args: Value, content_bytes: u64) -> Value {
    if tool == "bash" {
        if let Some(Value::String(command)) = args.get_mut("command") {
            if let Some(cut) = crossing_prefix(command, MAX_COMMAND_BYTES) {
                command.truncate(cut);
            }
        }
    }
    let texts: &[&str] = match tool {
        "write" => &["content"],
        "edit" => &["oldString", "newString"],
        "apply_patch" => &["patchText"],
        _ => &[],
    };
    for key in texts {
        if let Some(value) = args.get_mut(*key) {
            // The plugin compares UTF-8 bytes, which is `str::len`.
            let bytes = value.as_str().map_or(0, str::len) as u64;
            if bytes > content_bytes {
                *value = json!({ "nsoOversized": bytes });
            }
        }
    }
    args
}

/// Where the plugin's `crossingPrefix(text, bytes)` cuts `text` (None: it keeps it whole).
/// The plugin counts UTF-16 units: it keeps `bytes + 2` of them, one fewer when the last
/// kept one would be the first half of a surrogate pair, i.e. the longest prefix of whole
/// characters within `bytes + 2` units.
fn crossing_prefix(text: &str, bytes: usize) -> Option<usize> {
    let n = bytes + 2;
    let mut units = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > n {
            return Some(at);
        }
    }
    None
}

/// Real paths and existence of the usual path arguments, keyed as written
/// (plugin/decision.js `preResolve`).
fn pre_resolve(request: &mut Request, base: &str, real: &mut RealPaths) {
    for key in PATH_ARGS {
        let Some(given) = request.args.get(key).and_then(Value::as_str) else {
            continue;
        };
        if given.is_empty() || given.starts_with('~') {
            continue;
        }
        let abs = if given.starts_with('/') {
            given.to_string()
        } else {
            format!("{base}/{given}")
        };
        let (path, exists) = real.info(&abs);
        let given = given.to_string();
        request.resolved.insert(given.clone(), path);
        request.exists.insert(given, exists);
    }
}

/// Answers the core's lookups (plugin/files.js `gatherLookups`); `Err` when a file could
/// not be read for a reason other than not existing.
fn gather(
    request: &mut Request,
    need: &Lookups,
    content_bytes: u64,
    real: &mut RealPaths,
) -> Result<(), ()> {
    for p in &need.resolve {
        let path = real.info(p).0;
        request.resolved.insert(p.clone(), path);
    }
    for p in &need.content {
        match paths::read_bounded(p, content_bytes) {
            Ok(text) => {
                request.contents.insert(p.clone(), text);
            }
            Err(Read::Oversized(size)) => {
                request.oversized.insert(p.clone(), size);
            }
            Err(Read::Failed) => return Err(()),
        }
    }
    for p in &need.exists {
        request
            .exists
            .insert(p.clone(), std::path::Path::new(p).exists());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_commands_as_the_plugin_does() {
        // Expected cuts worked out by hand from bounds.js: 65538 UTF-16 units are kept.
        let long = "a".repeat(70_000);
        assert_eq!(crossing_prefix(&long, MAX_COMMAND_BYTES), Some(65_538));
        assert_eq!(
            crossing_prefix(&"a".repeat(65_538), MAX_COMMAND_BYTES),
            None
        );
        // A pair straddling the cut is left out whole.
        let s = format!("{}😀b", "a".repeat(65_537));
        assert_eq!(crossing_prefix(&s, MAX_COMMAND_BYTES), Some(65_537));
    }

    #[test]
    fn oversized_texts_do_not_cross() {
        let args = json!({"filePath": "a", "content": "é".repeat(6)});
        let out = bound_args("write", args.clone(), 11);
        assert_eq!(out["content"], json!({"nsoOversized": 12}));
        assert_eq!(bound_args("write", args.clone(), 12), args);
        assert_eq!(bound_args("read", args.clone(), 1), args);
    }
}
