//! NSO's log files as the plugin writes them (plugin/logs.js, plugin/decision.js
//! `decisionLogLines`, plugin/nso.js `auditRecord`): the same names, folders, stamps and line
//! formats, so `nso audit` and a person reading `nso.log` cannot tell which host decided.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use nso::authority::Decision;
use serde_json::Value;

/// Where the init marker and the alive log live (plugin/logs.js `INIT_DIR`).
pub const INIT_DIR: &str = ".opencode/logs";

/// The current time as the logs write it: JavaScript's `Date.prototype.toISOString`
/// (`2026-11-23T15:22:15.123Z`, UTC, milliseconds).
pub fn stamp() -> String {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    iso_millis(since.as_millis() as i64)
}

/// `ms` milliseconds after the epoch in `toISOString` form (the core's clock helper).
pub use nso::conductor::clock::iso_millis;

/// The logs of one project: `log_dir` is the configured folder (relative to `root`), `None`
/// while no config is loaded (then [`INIT_DIR`], as the plugin does).
pub struct Logs {
    dir: PathBuf,
}

impl Logs {
    /// The logs of the project at `root`.
    pub fn new(root: &Path, log_dir: Option<&str>) -> Logs {
        Logs {
            dir: root.join(log_dir.unwrap_or(INIT_DIR)),
        }
    }

    /// Appends `line` (a newline added when missing) to the log `name`. A log that cannot
    /// be written is reported on stderr and never stops a decision.
    pub fn append(&self, name: &str, line: &str) {
        let result = std::fs::create_dir_all(&self.dir).and_then(|()| {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.dir.join(name))?;
            // One write call per line, as Node's appendFileSync does: concurrent hooks
            // appending to the same log do not interleave inside a line.
            let mut text = String::with_capacity(line.len() + 1);
            text.push_str(line);
            if !line.ends_with('\n') {
                text.push('\n');
            }
            file.write_all(text.as_bytes())
        });
        if let Err(e) = result {
            // Not eprintln!: a closed stderr must not panic (panic = abort).
            let _ = writeln!(std::io::stderr(), "[nso] cannot write {name}: {e}");
        }
    }

    /// A line in `nso.log`, NSO's decisions.
    pub fn decision(&self, line: &str) {
        self.append("nso.log", line);
    }

    /// A time-stamped line in `nso-errors.log`, what went wrong inside NSO.
    pub fn error(&self, text: &str) {
        self.append("nso-errors.log", &format!("{} {text}", stamp()));
    }
}

/// The `nso.log` lines of a decision: the verdict line, then the core's extra lines
/// (plugin/decision.js `decisionLogLines`).
pub fn decision_lines(
    decision: &Decision,
    tool: &str,
    agent: Option<&str>,
    time: &str,
) -> Vec<String> {
    let verdict = serde_json::to_value(decision.verdict).unwrap_or(Value::Null);
    let mut line = format!(
        "{time} {} {tool} @{} {}",
        verdict.as_str().unwrap_or("?"),
        agent.unwrap_or("?"),
        decision.rule_id
    );
    if decision.unclassified {
        line.push_str(" (unclassified tool)");
    }
    if !decision.notices.is_empty() {
        line.push_str(" reminder: ");
        line.push_str(&decision.notices.join(" | "));
    }
    let mut lines = vec![line];
    lines.extend(decision.log.iter().map(|extra| format!("{time} {extra}")));
    lines
}

/// What `audit.jsonl` keeps of a call audit mode let through (plugin/nso.js `auditRecord`),
/// as one JSON line with the plugin's key order.
pub fn audit_record(
    time: &str,
    session: Option<&str>,
    agent: Option<&str>,
    tool: &str,
    args: &Value,
    decision: &Decision,
) -> String {
    let text = |v: Option<&str>| v.map_or(Value::Null, |s| Value::String(s.to_string()));
    let fields = [
        ("t", text(Some(time))),
        ("session", text(session)),
        ("agent", text(agent)),
        ("tool", text(Some(tool))),
        ("rule", text(Some(&decision.rule_id))),
        ("target", text(call_target(args))),
        ("message", text(decision.message.as_deref())),
    ];
    // serde_json's map sorts its keys; the plugin's record keeps this order.
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", body.join(","))
}

/// What a tool call is about: its path, command or pattern argument, else the first file of
/// a patch (plugin/activity.js `callTarget`).
pub fn call_target(args: &Value) -> Option<&str> {
    for key in [
        "filePath",
        "path",
        "command",
        "pattern",
        "url",
        "subagent_type",
    ] {
        if let Some(s) = args
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            return Some(s);
        }
    }
    let patch = args.get("patchText").and_then(Value::as_str)?;
    // The plugin's /\*\*\* (?:Add|Update|Delete) File: (.+)/: the first match, up to the
    // end of its line (JavaScript's `.` stops at \n, \r, U+2028 and U+2029).
    let mut rest = patch;
    while let Some(at) = rest.find("*** ") {
        let after = &rest[at + 4..];
        for verb in ["Add File: ", "Update File: ", "Delete File: "] {
            if let Some(name) = after.strip_prefix(verb) {
                let end = name
                    .find(['\n', '\r', '\u{2028}', '\u{2029}'])
                    .unwrap_or(name.len());
                if end > 0 {
                    return Some(&name[..end]);
                }
            }
        }
        rest = &rest[at + 1..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_like_to_iso_string() {
        // Values checked with node: new Date(ms).toISOString().
        assert_eq!(iso_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_millis(1_795_447_335_123), "2026-11-23T15:22:15.123Z");
        assert_eq!(iso_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn targets_like_the_activity_feed() {
        let args =
            serde_json::json!({"patchText": "*** Begin Patch\n*** Update File: a/b.txt\n@@"});
        assert_eq!(call_target(&args), Some("a/b.txt"));
        let args = serde_json::json!({"filePath": "", "command": "ls"});
        assert_eq!(call_target(&args), Some("ls"));
        assert_eq!(call_target(&serde_json::json!({"x": 1})), None);
    }
}
