//! Which instances are alive, and the removal of the others (orphans) before claims are
//! decided, so a crashed agent's claims do not block everyone forever.
//!
//! On the shim's own host the process is checked (`alive[id]`: pid exists and its start time
//! is the one registered); elsewhere only the heartbeat can tell, with a time-to-live. A
//! heartbeat in the future (another host's clock runs ahead) counts as `now`, and is stored
//! as `now` when the state is written, so it expires a TTL after now rather than never.

use serde::Serialize;

use super::clock::parse_iso;
use super::request::Request;
use super::state::{Instance, State};

/// Whether an instance is alive, and if not, why (for the history line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Life {
    /// Its process runs, or its heartbeat is recent enough.
    Alive,
    /// Gone: the reason, in words.
    Dead(String),
}

/// Seconds since the instance's last heartbeat (0 for one in the future).
pub fn heartbeat_age(instance: &Instance, now: i64) -> u64 {
    parse_iso(&instance.last_heartbeat).map_or(0, |hb| now.saturating_sub(hb).max(0) as u64)
}

/// Whole minutes since the instance started (0 for a start in the future).
pub fn age_minutes(instance: &Instance, now: i64) -> u64 {
    parse_iso(&instance.started_at).map_or(0, |t| now.saturating_sub(t).max(0) as u64 / 60)
}

/// The life of `instance` as seen by `req`, with `ttl` seconds for heartbeat ages.
pub fn life(instance: &Instance, req: &Request, ttl: u64) -> Life {
    let same_host = !req.host.is_empty() && instance.host.as_deref() == Some(req.host.as_str());
    if same_host {
        match req.alive.get(&instance.id) {
            Some(true) => return Life::Alive,
            Some(false) => {
                let pid = instance.pid.map(|p| format!(" {p}")).unwrap_or_default();
                return Life::Dead(format!("its process{pid} is gone on {}", req.host));
            }
            None => {}
        }
    }
    let age = heartbeat_age(instance, req.now_secs);
    if age > ttl {
        Life::Dead(format!(
            "no heartbeat for {} minutes (limit {} minutes)",
            age / 60,
            ttl.div_ceil(60)
        ))
    } else {
        Life::Alive
    }
}

/// One removed instance, for the history file (seed fields, plus why).
#[derive(Debug, Serialize)]
pub struct HistoryLine<'a> {
    /// Instance id.
    pub id: &'a str,
    /// Project name.
    pub project: &'a str,
    /// Task.
    pub task: &'a str,
    /// Priority.
    pub priority: &'a str,
    /// Registration time.
    pub started_at: &'a str,
    /// When it was removed.
    pub completed_at: &'a str,
    /// Files changed (as reported by `done`; empty for orphans).
    pub files_modified: &'a [String],
    /// `success`, `orphaned`, ...
    pub outcome: &'a str,
    /// Why an orphan was removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
}

impl HistoryLine<'_> {
    /// The line as JSON (one line, no newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// What a reaping did.
#[derive(Debug, Default)]
pub struct Reaped {
    /// Ids removed, in state order.
    pub removed: Vec<String>,
    /// History lines for them.
    pub history: Vec<String>,
    /// Whether the state changed (removals, or future heartbeats brought back to now).
    pub changed: bool,
}

/// Removes dead instances (never `keep`, the caller: it is evidently alive) and brings
/// future heartbeats back to `now`.
pub fn reap(state: &mut State, req: &Request, ttl: u64, keep: Option<&str>) -> Reaped {
    let mut reaped = Reaped::default();
    let mut survivors = Vec::with_capacity(state.instances.len());
    for mut instance in std::mem::take(&mut state.instances) {
        let exempt = keep == Some(instance.id.as_str());
        if let (false, Life::Dead(reason)) = (exempt, life(&instance, req, ttl)) {
            reaped.history.push(
                HistoryLine {
                    id: &instance.id,
                    project: &instance.project,
                    task: &instance.task,
                    priority: &instance.priority,
                    started_at: &instance.started_at,
                    completed_at: &req.now,
                    files_modified: &[],
                    outcome: "orphaned",
                    reason: Some(&reason),
                }
                .to_json(),
            );
            reaped.removed.push(instance.id);
            reaped.changed = true;
            continue;
        }
        if parse_iso(&instance.last_heartbeat).is_some_and(|hb| hb > req.now_secs) {
            instance.last_heartbeat = req.now.clone();
            reaped.changed = true;
        }
        survivors.push(instance);
    }
    state.instances = survivors;
    reaped
}
