//! One PreToolUse call as the Node adapter takes it (plugin/hosts/claude-code.js
//! `preToolUse`, `callerOf`, `nsoFor`): the project, the caller, the engine's outcome, and
//! the answer with its logs and activity-feed record; or why the Node adapter must take it.

use std::path::Path;

use serde_json::Value;

use crate::activity;
use crate::decide::{self, Call, Outcome, Seen};
use crate::logs::{self, Logs};
use crate::paths;
use crate::project;

/// The properties every JavaScript object has (`Object.prototype`).
const OBJECT_PROPERTIES: [&str; 12] = [
    "constructor",
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toString",
    "toLocaleString",
    "valueOf",
];

/// Claude Code's refusal of a PreToolUse call, NSO's message as the reason the model reads.
pub fn deny_json(reason: &str) -> Value {
    serde_json::json!({ "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }})
}

/// A call handed to Node: why, and what is needed to fail closed without it.
pub struct Hand {
    /// Why.
    pub reason: &'static str,
    /// The engine's tool name (write-class or not).
    pub tool: String,
    /// Claude Code's tool name, as the adapter's messages write it.
    pub tool_name: String,
    /// The project's logs, when the project is known.
    pub logs: Option<Logs>,
}

/// A PreToolUse call decided here, and what is needed to act on it.
pub struct Native {
    logs: Logs,
    call: Call,
    outcome: Outcome,
    /// The load failure's line for `nso-errors.log` (and stderr), as the plugin's `fail`.
    errors: Vec<String>,
    /// The activity feed: home, file name, the `call` record's fixed fields.
    feed: Feed,
}

struct Feed {
    home: String,
    name: String,
    call_id: String,
    target: Option<String>,
    instance: activity::Instance,
}

impl Native {
    /// Writes the logs, the feed and the answer; the exit code.
    pub fn finish(mut self) -> i32 {
        for line in &self.errors {
            say!(stderr, "[nso] {line}");
            self.logs.append("nso-errors.log", line);
        }
        let outcome = std::mem::replace(&mut self.outcome, Outcome::Hand(""));
        let (answer, seen) = match outcome {
            Outcome::Deny {
                message,
                lines,
                seen,
            } => {
                self.write_lines(&lines);
                (Some(deny_json(&message).to_string()), seen)
            }
            Outcome::Allow {
                lines,
                audit,
                notices,
                seen,
            } => {
                self.write_lines(&lines);
                if let Some(record) = audit {
                    self.logs.append("audit.jsonl", &record);
                }
                (context_json(&notices), seen)
            }
            Outcome::Hand(_) => (None, Seen::default()), // never: handed before
        };
        self.record(&seen);
        if let Some(answer) = answer {
            say!(stdout, "{answer}");
        }
        0
    }

    fn write_lines(&self, lines: &[String]) {
        for line in lines {
            self.logs.decision(line);
        }
    }

    /// The `call` record of the activity feed (plugin/nso.js `beforeTool`).
    fn record(&self, seen: &Seen) {
        use activity::Field::{Null, Text};
        let text = |v: Option<&str>| v.map_or(Null, |s| Text(s.to_string()));
        let f = &self.feed;
        let line = activity::record_line(
            activity::now_ms(),
            "call",
            &[
                ("session", Text(self.call.session.clone())),
                ("agent", text(self.call.agent.as_deref())),
                ("tool", Text(self.call.tool.clone())),
                ("callID", Text(f.call_id.clone())),
                ("phase", Text("start".to_string())),
                ("verdict", Text(seen.verdict.clone())),
                ("rule", text(seen.rule.as_deref())),
                ("target", text(f.target.as_deref())),
                ("message", text(seen.message.as_deref())),
            ],
        );
        if let Err(e) = activity::append(&f.home, &f.name, &line, &f.instance) {
            self.logs.error(&format!("activity feed not written: {e}"));
        }
    }
}

/// The reminders of a soft verdict as the hook's added context (the adapter's
/// `contextOutput`), in its key order; `None` without reminders.
fn context_json(notices: &[String]) -> Option<String> {
    if notices.is_empty() {
        return None;
    }
    let context: Vec<String> = notices.iter().map(|n| format!("[{n}]")).collect();
    let context = Value::String(context.join("\n"));
    Some(format!(
        "{{\"hookSpecificOutput\":{{\"hookEventName\":\"PreToolUse\",\"additionalContext\":{context}}}}}"
    ))
}

/// The outcome of a PreToolUse hook input (see the module docs), or why Node must decide.
pub fn pre_tool_use(hook: &Value) -> Result<Native, Hand> {
    let started = activity::now_ms();
    let text = |key: &str| {
        hook.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let tool_name = text("tool_name").unwrap_or("");
    let empty = Value::Null;
    let mapped = nso_decision::hosts::claude_code::tool_call(
        tool_name,
        hook.get("tool_input").unwrap_or(&empty),
    );
    let _ = crate::DECIDING.set((tool_name_text(hook), decide::writes(&mapped.tool)));
    // Tests check the panic hook's answer (as the wasm build has `trapForTest`).
    if std::env::var_os("NSO_HOOK_TEST_PANIC").is_some() {
        panic!("panic requested by a test");
    }
    let mut hand = Hand {
        reason: "",
        tool: mapped.tool.clone(),
        tool_name: tool_name_text(hook),
        logs: None,
    };
    let process_dir = std::env::current_dir()
        .ok()
        .and_then(|d| d.to_str().map(str::to_string))
        .unwrap_or_else(|| "/".to_string());
    // The adapter: an absolute `cwd`, else the process's; the project is
    // $CLAUDE_PROJECT_DIR, else git's root of `cwd`, else `cwd` (plugin/decision/files.js projectRoot).
    let cwd = text("cwd")
        .filter(|c| c.starts_with('/'))
        .unwrap_or(&process_dir)
        .to_string();
    let worktree = match std::env::var("CLAUDE_PROJECT_DIR")
        .ok()
        .filter(|d| !d.is_empty())
    {
        Some(dir) => dir,
        None => match project::git_root(&cwd) {
            Ok(root) => root,
            Err(reason) => {
                hand.reason = reason;
                return Err(hand);
            }
        },
    };
    let root = if worktree != "/" && Path::new(&worktree).exists() {
        paths::resolve(&process_dir, &worktree)
    } else {
        paths::resolve(&process_dir, &cwd)
    };
    let directory = paths::resolve(&process_dir, &cwd);
    let config_text = match project::read_config(&root) {
        Ok(t) => t,
        Err(()) => {
            hand.reason = "the config file cannot be read";
            hand.logs = Some(Logs::new(Path::new(&root), None));
            return Err(hand);
        }
    };
    let loaded = project::load(config_text.as_deref());
    let config = match &loaded {
        Ok(l) => Some(&l.config),
        Err((_, c)) => c.as_deref(),
    };
    let logs = Logs::new(Path::new(&root), config.map(|c| c.log_dir.as_str()));
    let hooks_on = config.is_none_or(|c| c.hooks.enabled);
    let feed = Feed {
        home: activity::home(
            &root,
            config.and_then(|c| c.conductor.home.as_deref()),
            &process_dir,
        ),
        name: activity::feed_name(hook.get("session_id").and_then(Value::as_str)),
        call_id: text("tool_use_id")
            .map_or_else(|| format!("claude-{}", activity::now_ms()), str::to_string),
        target: nso_decision::authority::call_target(&mapped.args).map(str::to_string),
        instance: activity::Instance {
            project: activity::project_name(&root),
            root: root.clone(),
            started,
        },
    };
    // Inputs on which the adapter's JavaScript behaves in its own way: a session id that is
    // not a string (`String(id)` names the feed), and a subagent type that is a property of
    // every JavaScript object (`agents["constructor"]` is a function there).
    let odd_session = hook
        .get("session_id")
        .is_some_and(|v| !v.is_string() && !v.is_null());
    let odd_type = text("agent_type").is_some_and(|t| {
        OBJECT_PROPERTIES.contains(&t)
            && !config.is_some_and(|c| c.claude_code.agents.contains_key(t))
    });
    if odd_session || odd_type {
        hand.reason = "the adapter reads this input in its own way";
        hand.logs = Some(logs);
        return Err(hand);
    }
    let mut call = Call {
        session: text("agent_id")
            .or(text("session_id"))
            .unwrap_or("claude-code")
            .to_string(),
        agent: caller(hook, config),
        delegated_by: (text("agent_type").is_some() || text("agent_id").is_some()).then(|| {
            config
                .and_then(|c| c.claude_code.main_agent.clone())
                .unwrap_or_default()
        }),
        tool: mapped.tool,
        args: mapped.args,
        directory,
        root: root.clone(),
        owner: text("session_id")
            .or(text("agent_id"))
            .unwrap_or("claude-code")
            .to_string(),
        conductor_home: feed.home.clone(),
    };
    let time = logs::stamp();
    let (outcome, errors) = match loaded {
        Ok(mut loaded) => (decide::decide(&mut loaded, &mut call, &time), Vec::new()),
        Err((failure, _)) => {
            let line = format!(
                "{time} NSO NOT ENFORCING ({}): {} Fix: {}",
                failure.code, failure.message, failure.fix
            );
            (decide::not_enforcing(&call, &failure, &time), vec![line])
        }
    };
    let reason = match outcome {
        Outcome::Hand(reason) => Some(reason),
        Outcome::Allow { .. } if hooks_on && project::has_pre_hooks(&root) => {
            Some("project pre hooks run before the call")
        }
        _ => None,
    };
    if let Some(reason) = reason {
        hand.reason = reason;
        hand.logs = Some(logs);
        return Err(hand);
    }
    Ok(Native {
        logs,
        call,
        outcome,
        errors,
        feed,
    })
}

/// The tool's name as the adapter writes it into a message (`${input.tool_name}`).
pub fn tool_name_text(hook: &Value) -> String {
    match hook.get("tool_name") {
        None => "undefined".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Who makes the call (plugin/hosts/claude-code.js `callerOf`): inside a subagent (an
/// `agent_type` or an `agent_id`) its type, through `claudeCode.agents`; else the main agent.
fn caller(hook: &Value, config: Option<&nso_workflow::config::Config>) -> Option<String> {
    let text = |key: &str| {
        hook.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let cc = config.map(|c| &c.claude_code);
    match (text("agent_type"), text("agent_id")) {
        (Some(kind), _) => Some(
            cc.and_then(|c| c.agents.get(kind))
                .map_or(kind, String::as_str)
                .to_string(),
        ),
        (None, Some(_)) => None,
        (None, None) => cc.and_then(|c| c.main_agent.clone()),
    }
}
