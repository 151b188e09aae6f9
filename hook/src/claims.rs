//! Whether the Conductor already holds what an allowed write changes, for this session's
//! instance: then the Node adapter would claim nothing (plugin/claims.js `beforeWrite`:
//! "already held: no lock, no rewrite") and the call is decided here. Read-only: the claim
//! store's state file is read, never written; anything unusual means "not known to be held",
//! and the call goes to the Node adapter, which claims.

use nso_workflow::config::Config;
use serde_json::Value;

use crate::activity;
use crate::paths::RealPaths;

/// The state file of the files store (plugin/conductor/home.js `STATUS_FILE`).
const STATUS_FILE: &str = "status.json";
/// The core refuses a larger state (plugin/conductor/home.js `MAX_STATE_BYTES`).
const MAX_STATE_BYTES: u64 = 16 << 20;

/// Whether every target (`[(project-relative path, below)]`, the core's `write_targets`) is
/// covered by the claims of the live instance that the Claude Code process behind this hook
/// registered for session `owner`, in the files store at `home`.
pub fn held(
    config: &Config,
    home: &str,
    root: &str,
    owner: &str,
    targets: &[(String, bool)],
    real: &mut RealPaths,
) -> bool {
    // A store shared by several machines is trusted only after it confirms (Node does that).
    if config.conductor.store.is_some() {
        return false;
    }
    let file = format!("{home}/{STATUS_FILE}");
    let small = std::fs::metadata(&file).is_ok_and(|m| m.is_file() && m.len() <= MAX_STATE_BYTES);
    let Some(state) = small
        .then(|| std::fs::read(&file).ok())
        .flatten()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
    else {
        return false;
    };
    let pid = activity::host_pid();
    let host = activity::hostname();
    let instances = state.get("instances").and_then(Value::as_array);
    // The instance `recall` finds: this host process's, serving `owner`, still alive.
    let mine = instances.into_iter().flatten().find(|i| {
        i.get("pid").and_then(Value::as_u64) == Some(u64::from(pid))
            && i.get("host").and_then(Value::as_str) == Some(host.as_str())
            && i.get("sessions")
                .and_then(Value::as_array)
                .is_some_and(|s| s.iter().any(|x| x.as_str() == Some(owner)))
    });
    let Some(mine) = mine else {
        return false;
    };
    if !alive(pid, mine.get("process_started")) {
        return false;
    }
    let claimed: Vec<String> = mine
        .get("files_claimed")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str().map(str::to_string))
        .collect();
    let covered = targets.iter().all(|(rel, below)| {
        let pattern = target_pattern(root, rel, *below, real);
        nso_conductor::covers(&claimed, &pattern)
    });
    covered
}

/// plugin/conductor/liveness.js `isProcessAlive`: the process exists, is no zombie, and is
/// the one that registered (its start token, when one was recorded).
fn alive(pid: u32, started: Option<&Value>) -> bool {
    let Some((state, token)) = activity::process_state(pid) else {
        return false;
    };
    if state == "Z" || state == "X" {
        return false;
    }
    match started {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => token.as_deref() == Some(s.as_str()),
        Some(_) => false,
    }
}

/// The claim pattern of a target (plugin/claims.js `targetPattern`, conductor/paths.js
/// `literalClaim`): its real location, glob characters escaped, `/**` for a folder.
fn target_pattern(root: &str, rel: &str, below: bool, real: &mut RealPaths) -> String {
    let abs = if rel.is_empty() {
        root.to_string()
    } else {
        format!("{root}/{rel}")
    };
    let located = real.info(&abs).0;
    let mut pattern = String::with_capacity(located.len() + 3);
    for c in located.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    if below {
        pattern.push_str(if pattern == "/" { "**" } else { "/**" });
    }
    pattern
}
