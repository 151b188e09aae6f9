//! `nso-hook claude-code`: NSO's Claude Code hook, native. Claude Code starts a process for
//! every hook call, so a Node process loading the wasm core (60-80 ms) is paid on every tool
//! call; this binary runs the same Rust core natively for the common case, a PreToolUse
//! call, and hands everything else to the Node adapter (`node bin/nso.js hook claude-code`,
//! found through `--fallback <path to bin/nso.js>` or `$NSO_HOOK_FALLBACK`), passing the same
//! stdin bytes and relaying its stdout, stderr and exit code.
//!
//! It is the imperative shell: it reads stdin, the config and the files a decision needs,
//! and writes the logs; the core decides. Verdicts, messages and log lines are the plugin's
//! (see [`pretool`], [`decide`], [`logs`], [`activity`], [`project`]).
//!
//! # What is decided natively, and what is handed to Node
//!
//! Decided here: a PreToolUse call the engine refuses (always: a refusal needs nothing
//! else), and one it allows when nothing else would run in the plugin's PreToolUse path.
//! Handed to the Node adapter, before anything is logged (so nothing is logged twice):
//!
//! 1. every other event the adapter answers (PostToolUse, SessionStart, UserPromptSubmit,
//!    SubagentStart, SubagentStop, SessionEnd);
//! 2. an allowed write-class call that changes project files (the core's `write_targets`
//!    is not empty) while `conductor.mode` is not `off`, unless the live Conductor instance
//!    of this Claude Code process and session (the one the adapter's `recall` finds: same
//!    pid and host, the session among its `sessions`) already holds every one of them in
//!    the files store: claiming needs the store, and the adapter does it (a call that
//!    changes nothing, `ls` through bash, claims nothing and stays native; a PostgreSQL
//!    store is always left to the adapter);
//! 3. an allowed call while project pre hooks would run (`hooks.enabled` and an executable
//!    in `.opencode/hooks/pre_tool_use/`);
//! 4. an allowed `task` call (Task/Agent): delegation limits need the session's chain;
//! 5. a call whose lookups take more than three rounds, or that needs a file or path that
//!    cannot be examined for a reason other than not existing, or whose config file cannot
//!    be read for such a reason: the Node adapter gives its own verdict and wording;
//! 6. a project root that git would find differently than a walk up for `.git` (git's
//!    environment variables set, a repository owned by another user, a `.git` that does not
//!    look like one), a hook input `serde_json` does not accept (the adapter's JavaScript
//!    parser may: lone surrogates), a `session_id` that is not a string, or an `agent_type`
//!    named like a property of every JavaScript object (`constructor`), so Node gives its
//!    own answer.
//!
//! Events the adapter ignores are ignored here too (exit 0). Without a usable fallback a
//! handed PreToolUse call fails closed as the adapter fails on an error: write-class tools
//! refused ("NSO failed while deciding this call"), read-class tools allowed; other events
//! exit 1 with the reason on stderr.
//!
//! # Output (plugin/hosts/claude-code.js)
//!
//! A refusal: exit 0 and `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//! "permissionDecision": "deny", "permissionDecisionReason": <NSO's message>}}` on stdout. An
//! allow: exit 0, no output, or the reminders of a soft verdict as `additionalContext`. The
//! call is recorded in the activity feed and the logs as the adapter records it. Input that
//! is not a JSON object with a `hook_event_name`, or larger than 16 MiB: exit 2 (Claude Code
//! blocks the call) with a one-line reason on stderr.

/// `println!` to stdout or stderr without its panic when the stream is gone (Claude Code
/// closed the pipe): a panic aborts, and an aborted hook lets the call through.
macro_rules! say {
    ($stream:ident, $($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::$stream(), $($arg)*);
    }};
}

mod activity;
mod claims;
mod decide;
mod fallback;
mod logs;
mod paths;
mod pretool;
mod project;

use std::io::Read as _;

use pretool::{deny_json, pre_tool_use, Hand};
use serde_json::Value;

/// Largest hook input read; more is refused (exit 2).
const MAX_INPUT: u64 = 16 << 20;
/// The events the Node adapter answers (plugin/hosts/claude-code.js `HOOK_EVENTS`); others
/// are acknowledged and ignored.
const HOOK_EVENTS: [&str; 7] = [
    "PreToolUse",
    "PostToolUse",
    "SessionStart",
    "UserPromptSubmit",
    "SubagentStart",
    "SubagentStop",
    "SessionEnd",
];
/// The PreToolUse call being decided (Claude Code's tool name, write-class), for the
/// panic hook.
static DECIDING: std::sync::OnceLock<(String, bool)> = std::sync::OnceLock::new();

fn main() {
    // The core is written not to panic (its parsers are fuzzed), but panic = abort, and an
    // aborted hook is a non-blocking error to Claude Code: the call would run. So a panic
    // answers as the adapter answers a failure inside NSO before the abort: a write-class
    // call refused, a read-class call let through.
    std::panic::set_hook(Box::new(|info| {
        let what = info.to_string().replace('\n', " ");
        if let Some((tool_name, writes)) = DECIDING.get() {
            if *writes {
                let reason = format!(
                    "NSO blocked {tool_name}: NSO failed while deciding this call (the native \
                     hook panicked: {what}), so it refuses it (fail closed). Report this to the \
                     person running the session."
                );
                say!(stdout, "{}", deny_json(&reason));
            }
            say!(stderr, "NSO: the native hook panicked: {what}");
            std::process::exit(0);
        }
        say!(stderr, "NSO: the native hook panicked: {what}");
        std::process::exit(1);
    }));
    let args: Vec<String> = std::env::args().collect();
    std::process::exit(run(&args));
}

/// The adapter's refusal of an unusable input: exit 2 with this line on stderr.
fn unusable(reason: &str) -> i32 {
    say!(
        stderr,
        "NSO blocked this call: {reason}, so NSO cannot decide it (fail closed). Check that \
         the hook is `nso hook claude-code` on a Claude Code event."
    );
    2
}

fn run(args: &[String]) -> i32 {
    if args.get(1).map(String::as_str) != Some("claude-code") {
        say!(
            stderr,
            "usage: nso-hook claude-code [--fallback <path to bin/nso.js>] < hook input"
        );
        return 2;
    }
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().take(MAX_INPUT + 1).read_to_end(&mut bytes) {
        return unusable(&format!("the hook input cannot be read ({e})"));
    }
    // Node reads the input as UTF-8, replacing what is not; the size is then measured.
    let text = String::from_utf8_lossy(&bytes);
    if text.len() as u64 > MAX_INPUT {
        return unusable(&format!("the hook input is larger than {MAX_INPUT} bytes"));
    }
    let hook: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            return match fallback::script(args) {
                Some(script) => relay(&script, &bytes),
                None => unusable(&format!("the hook input is not JSON ({e})")),
            };
        }
    };
    if !hook.is_object() {
        return unusable("the hook input is not a JSON object");
    }
    let Some(event) = hook.get("hook_event_name").and_then(Value::as_str) else {
        return unusable("the hook input has no hook_event_name");
    };
    if !HOOK_EVENTS.contains(&event) {
        return 0;
    }
    if event != "PreToolUse" {
        return match fallback::script(args) {
            Some(script) => relay(&script, &bytes),
            None => {
                say!(
                    stderr,
                    "NSO: no Node adapter to hand {event} to: {}",
                    fix_fallback()
                );
                1
            }
        };
    }
    let native = match pre_tool_use(&hook) {
        Ok(native) => native,
        Err(hand) => {
            let why = match fallback::script(args).map(|s| fallback::run(&s, &bytes)) {
                Some(Ok(code)) => return code,
                Some(Err(why)) => why,
                None => format!("no Node adapter is configured: {}", fix_fallback()),
            };
            return failed(&hand, &why);
        }
    };
    native.finish()
}

fn relay(script: &str, bytes: &[u8]) -> i32 {
    match fallback::run(script, bytes) {
        Ok(code) => code,
        Err(why) => {
            say!(stderr, "NSO: {why}");
            1
        }
    }
}

fn fix_fallback() -> String {
    "run the hook as `nso-hook claude-code --fallback <path to bin/nso.js>` (or set \
     NSO_HOOK_FALLBACK), with `node` on the PATH"
        .to_string()
}

/// A call the Node adapter had to decide, without one: the adapter's answer to a failure
/// inside NSO (write-class refused, read-class allowed), the error in `nso-errors.log`.
fn failed(hand: &Hand, why: &str) -> i32 {
    let message = format!(
        "the native hook hands this call to Node ({}), but {why}",
        hand.reason
    );
    if let Some(logs) = &hand.logs {
        logs.error(&format!(
            "claude-code PreToolUse {}: {message}",
            hand.tool_name
        ));
    }
    if !decide::writes(&hand.tool) {
        return 0;
    }
    let reason = format!(
        "NSO blocked {}: NSO failed while deciding this call ({message}), so it refuses it \
         (fail closed). Report this to the person running the session.",
        hand.tool_name
    );
    say!(stdout, "{}", deny_json(&reason));
    0
}
