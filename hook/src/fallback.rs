//! The hand-over to the Node adapter (`node bin/nso.js hook claude-code`): the same stdin
//! bytes in, its stdout, stderr and exit code out, as if Claude Code had called it.

use std::io::Write;
use std::process::{Command, Stdio};

/// How the fallback is found: `--fallback <path to bin/nso.js>`, else `$NSO_HOOK_FALLBACK`.
pub fn script(args: &[String]) -> Option<String> {
    let given = args
        .windows(2)
        .find(|w| w[0] == "--fallback")
        .map(|w| w[1].clone())
        .or_else(|| std::env::var("NSO_HOOK_FALLBACK").ok());
    given.filter(|s| !s.is_empty())
}

/// Runs `node <script> hook claude-code` with `input` on its stdin; its stdout and stderr
/// are this process's own. Returns its exit code (a signal: 128 + its number, as shells
/// report it), or why it could not run.
pub fn run(script: &str, input: &[u8]) -> Result<i32, String> {
    let mut child = Command::new("node")
        .arg(script)
        .args(["hook", "claude-code"])
        .stdin(Stdio::piped())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start `node {script} hook claude-code`: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // An adapter that exits without reading all of its input is no failure of ours:
        // its exit code says what happened.
        let _ = stdin.write_all(input);
    }
    let status = child
        .wait()
        .map_err(|e| format!("`node {script} hook claude-code` was lost: {e}"))?;
    if let Some(code) = status.code() {
        return Ok(code);
    }
    use std::os::unix::process::ExitStatusExt;
    Ok(128 + status.signal().unwrap_or(0))
}
