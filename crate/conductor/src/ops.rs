//! The operations: one function each, over a [`Ctx`] holding the state being changed and
//! the lines to log. [`run`] reads the state, removes orphans, dispatches, and writes the
//! state back only when it changed.

use serde_json::{json, Value};

use super::claim;
use super::gate::{priority_gate, Gate, Sprint};
use super::liveness::{reap, HistoryLine};
use super::report;
use super::request::{Done, Op, Release, Request, Response, Start};
use super::state::{DriftWarning, Instance, State};
use super::{ConductorError, ErrorCode};

/// Longest task text kept (characters); automatic registrations may pass a whole message.
const MAX_TASK_CHARS: usize = 500;
/// Longest other free text kept (names, justifications, reasons).
const MAX_TEXT_CHARS: usize = 1000;
/// Most sessions remembered per instance (the oldest are dropped).
const MAX_SESSIONS: usize = 256;

/// An operation in progress.
pub(crate) struct Ctx<'a> {
    pub(crate) req: &'a Request,
    pub(crate) state: State,
    pub(crate) changed: bool,
    pub(crate) history: Vec<String>,
    pub(crate) conflicts: Vec<String>,
}

impl Ctx<'_> {
    /// The index of a registered instance, or `unknown_instance`.
    pub(crate) fn index(&self, id: &str) -> Result<usize, ConductorError> {
        self.state.find(id).ok_or_else(|| {
            ConductorError::new(
                ErrorCode::UnknownInstance,
                format!(
                    "No conductor instance {id:?} is registered: it finished (done), or was \
                     removed as an orphan (its process was gone or its heartbeat too old)."
                ),
                "Register again with the start operation, then claim the files again.",
            )
        })
    }

    /// A conflicts.log line (`ISO | KIND | text`), on one line whatever the text holds.
    pub(crate) fn log(&mut self, kind: &str, text: &str) {
        let line = format!("{} | {kind} | {}", self.req.now, one_line(text));
        self.conflicts.push(line);
    }

    /// Marks an instance as just seen.
    pub(crate) fn touch(&mut self, index: usize) {
        let instance = &mut self.state.instances[index];
        if instance.last_heartbeat != self.req.now {
            instance.last_heartbeat = self.req.now.clone();
            self.changed = true;
        }
    }
}

/// Control characters (newlines above all) become spaces: one log entry, one line.
pub(crate) fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// At most `max` characters of `text`, with `…` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

/// Runs a parsed request.
pub fn run(req: &Request) -> Response {
    match run_checked(req) {
        Ok(response) => response,
        Err(error) => Response::failure(error),
    }
}

fn run_checked(req: &Request) -> Result<Response, ConductorError> {
    let state = match &req.state {
        None => State::default(),
        Some(text) => State::parse(text, &req.now).map_err(|e| {
            ConductorError::new(
                ErrorCode::StateCorrupt,
                e.message,
                "Move status.json aside (keep it for inspection) and restore \
                 status.json.last-good; the NSO shim does this by itself. Without a last-good \
                 copy, a missing status.json starts an empty state (every claim released).",
            )
        })?,
    };
    let mut ctx = Ctx {
        req,
        state,
        changed: false,
        history: Vec::new(),
        conflicts: Vec::new(),
    };
    let result = dispatch(&mut ctx)?;
    let state = ctx.changed.then(|| {
        ctx.state.updated_at = Some(req.now.clone());
        ctx.state.to_text()
    });
    Ok(Response {
        state,
        result,
        history: ctx.history,
        conflicts: ctx.conflicts,
        error: None,
    })
}

fn dispatch(ctx: &mut Ctx) -> Result<Value, ConductorError> {
    let ttl = ctx.req.ttl_seconds;
    let caller = match &ctx.req.op {
        Op::Attach { instance_id, .. }
        | Op::Heartbeat { instance_id }
        | Op::Notices { instance_id } => Some(instance_id.as_str()),
        Op::Claim(c) => Some(c.instance_id.as_str()),
        Op::Release(r) => Some(r.instance_id.as_str()),
        Op::Done(d) => Some(d.instance_id.as_str()),
        Op::Start(_) | Op::Cleanup { .. } | Op::Status => None,
    };
    let op = ctx.req.op.clone();
    if let Op::Status = op {
        return Ok(report::status(&ctx.state, ctx.req));
    }
    if let Op::Start(start_op) = &op {
        // A blocked start changes nothing, orphans included: decide the gate first.
        if let Some(blocked) = gate_refusal(ctx.req, start_op) {
            return Ok(blocked);
        }
    }
    let threshold = match op {
        Op::Cleanup {
            max_age_minutes: Some(m),
        } => m.saturating_mul(60),
        _ => ttl,
    };
    let reaped = reap(&mut ctx.state, ctx.req, threshold, caller);
    ctx.changed |= reaped.changed;
    ctx.history.extend(reaped.history);
    match op {
        Op::Status => Ok(report::status(&ctx.state, ctx.req)),
        Op::Start(start_op) => start(ctx, &start_op),
        Op::Attach {
            instance_id,
            session,
        } => attach(ctx, &instance_id, &session),
        Op::Claim(claim_op) => claim::claim(ctx, &claim_op),
        Op::Release(release_op) => release(ctx, &release_op),
        Op::Done(done_op) => done(ctx, &done_op),
        Op::Heartbeat { instance_id } => {
            let i = ctx.index(&instance_id)?;
            ctx.touch(i);
            Ok(json!({"status": "ok", "instance_id": instance_id, "last_heartbeat": ctx.req.now}))
        }
        Op::Cleanup { .. } => {
            let n = reaped.removed.len();
            Ok(json!({
                "status": "ok",
                "removed": reaped.removed,
                "message": format!("{n} orphaned instance(s) removed, their claims released."),
            }))
        }
        Op::Notices { instance_id } => {
            let i = ctx.index(&instance_id)?;
            let notices = std::mem::take(&mut ctx.state.instances[i].forced);
            ctx.changed |= !notices.is_empty();
            Ok(json!({"status": "ok", "instance_id": instance_id, "notices": notices}))
        }
    }
}

/// The seed's `blocked` output when the gate fails with neither override nor `automatic`.
fn gate_refusal(req: &Request, op: &Start) -> Option<Value> {
    if op.override_justification.is_some() || op.automatic {
        return None;
    }
    let sprint = req.sprint.as_deref().map(Sprint::parse);
    match priority_gate(&op.task, &op.priority, sprint.as_ref()) {
        Gate::Pass => None,
        Gate::Fail(reason) => Some(json!({
            "status": "blocked",
            "reason": "priority_gate",
            "message": reason,
            "options": [
                "Use --override 'justification' to proceed anyway",
                "Change to a P1 task instead",
            ],
        })),
    }
}

fn start(ctx: &mut Ctx, op: &Start) -> Result<Value, ConductorError> {
    let bad = |m: String, fix: &str| ConductorError::new(ErrorCode::BadRequest, m, fix);
    let random = ctx.req.random.as_deref().unwrap_or_default();
    if random.len() != 6
        || !random
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        return Err(bad(
            format!("request.random: {random:?} is not 6 characters [a-z0-9]"),
            "pass 6 random characters from [a-z0-9] for the new instance id",
        ));
    }
    let source = op.source.as_deref().unwrap_or("opc");
    let source_ok = (1..=8).contains(&source.len())
        && source
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if !source_ok {
        return Err(bad(
            format!("op.source: {source:?} is not 1 to 8 characters [a-z0-9]"),
            "use a short source name such as opc, itm, cur, vsc, web or cow",
        ));
    }
    let priority = op.priority.trim().to_ascii_uppercase();
    if priority.chars().count() > 16 {
        return Err(bad(
            format!("op.priority: {priority:?} is too long"),
            "use P1, P2, P3 or P4",
        ));
    }
    let id = format!("{source}-{random}");
    if ctx.state.find(&id).is_some() {
        return Err(bad(
            format!("instance id {id} is already registered"),
            "call again with other random characters",
        ));
    }
    let root = op
        .project_root
        .clone()
        .or_else(|| (!op.working_directory.is_empty()).then(|| op.working_directory.clone()));
    let project = op.project.clone().unwrap_or_else(|| {
        root.as_deref()
            .and_then(|r| r.rsplit('/').find(|s| !s.is_empty()))
            .unwrap_or_default()
            .to_string()
    });
    let task = clip(&op.task, MAX_TASK_CHARS);
    let instance = Instance {
        id: id.clone(),
        source: source.to_string(),
        project: clip(&project, MAX_TEXT_CHARS),
        task: task.clone(),
        priority: priority.clone(),
        files_claimed: Vec::new(),
        started_at: ctx.req.now.clone(),
        last_heartbeat: ctx.req.now.clone(),
        working_directory: op.working_directory.clone(),
        project_root: root,
        pid: op.pid,
        host: op.host.clone().or_else(|| Some(ctx.req.host.clone())),
        process_started: op.process_started.clone(),
        agent: op.agent.as_deref().map(|a| clip(a, MAX_TEXT_CHARS)),
        sessions: op.session.iter().cloned().collect(),
        forced: Vec::new(),
        extra: Default::default(),
    };
    let mut result = json!({
        "status": "ok",
        "instance_id": id,
        "message": "Registered. Use /conductor claim to lock files before editing.",
    });
    let sprint = ctx.req.sprint.as_deref().map(Sprint::parse);
    if let Gate::Fail(reason) = priority_gate(&op.task, &priority, sprint.as_ref()) {
        let justification = op
            .override_justification
            .as_deref()
            .map(|j| clip(j, MAX_TEXT_CHARS));
        let (kind, reason) = match &justification {
            Some(j) => ("OVERRIDE", format!("{reason} Override: {j}")),
            None => ("DRIFT", format!("{reason} Registered automatically.")),
        };
        ctx.log(kind, &format!("{id} ({priority}) {task:?}: {reason}"));
        ctx.state.warn(DriftWarning {
            instance_id: id.clone(),
            reason: reason.clone(),
            acknowledged: false,
            at: Some(ctx.req.now.clone()),
            justification,
            extra: Default::default(),
        });
        result["drift_warning"] = Value::String(reason);
    }
    ctx.state.instances.push(instance);
    ctx.changed = true;
    Ok(result)
}

fn attach(ctx: &mut Ctx, id: &str, session: &str) -> Result<Value, ConductorError> {
    let i = ctx.index(id)?;
    ctx.touch(i);
    let sessions = &mut ctx.state.instances[i].sessions;
    if !sessions.iter().any(|s| s == session) {
        sessions.push(clip(session, MAX_TEXT_CHARS));
        let excess = sessions.len().saturating_sub(MAX_SESSIONS);
        sessions.drain(..excess);
        ctx.changed = true;
    }
    Ok(json!({"status": "ok", "instance_id": id, "sessions": ctx.state.instances[i].sessions}))
}

fn release(ctx: &mut Ctx, op: &Release) -> Result<Value, ConductorError> {
    let i = ctx.index(&op.instance_id)?;
    if !op.all && op.files.is_empty() {
        return Err(ConductorError::new(
            ErrorCode::BadRequest,
            "release needs files (the patterns to release) or all: true",
            "pass the patterns as claimed, or all: true",
        ));
    }
    let held = std::mem::take(&mut ctx.state.instances[i].files_claimed);
    let (released, kept, not_held) = if op.all {
        (held, Vec::new(), Vec::new())
    } else {
        let wanted: Vec<String> = op.files.iter().map(|f| super::glob::normalize(f)).collect();
        let wanted_set: std::collections::HashSet<&str> =
            wanted.iter().map(String::as_str).collect();
        let held_set: std::collections::HashSet<&str> = held.iter().map(String::as_str).collect();
        let not_held: Vec<String> = wanted
            .iter()
            .filter(|w| !held_set.contains(w.as_str()))
            .cloned()
            .collect();
        let (released, kept): (Vec<String>, Vec<String>) = held
            .iter()
            .cloned()
            .partition(|h| wanted_set.contains(h.as_str()));
        (released, kept, not_held)
    };
    ctx.state.instances[i].files_claimed = kept;
    ctx.touch(i);
    ctx.changed |= !released.is_empty();
    let message = format!("{} claim(s) released.", released.len());
    Ok(json!({
        "status": "ok",
        "instance_id": op.instance_id,
        "released": released,
        "not_held": not_held,
        "message": message,
    }))
}

fn done(ctx: &mut Ctx, op: &Done) -> Result<Value, ConductorError> {
    let i = ctx.index(&op.instance_id)?;
    let instance = ctx.state.instances.remove(i);
    let outcome = clip(&op.outcome, MAX_TEXT_CHARS);
    ctx.history.push(
        HistoryLine {
            id: &instance.id,
            project: &instance.project,
            task: &instance.task,
            priority: &instance.priority,
            started_at: &instance.started_at,
            completed_at: &ctx.req.now,
            files_modified: &op.files_modified,
            outcome: &outcome,
            reason: None,
        }
        .to_json(),
    );
    ctx.changed = true;
    let n = instance.files_claimed.len();
    Ok(json!({
        "status": "ok",
        "instance_id": instance.id,
        "released": instance.files_claimed,
        "message": format!("Task completed; {n} claim(s) released."),
    }))
}
