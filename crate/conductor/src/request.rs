//! The request of `conductorApply` and its response, as in docs/conductor-contract.md.
//! Requests are read field by field so a bad one is `bad_request` naming the field.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::clock::parse_iso;
use super::fields::Fields;
use super::{ConductorError, ErrorCode};

/// Largest request text (the state text travels inside it).
pub const MAX_REQUEST_BYTES: usize = super::state::MAX_STATE_BYTES + (4 << 20);
/// Heartbeat time-to-live when the request gives none (seconds).
pub const DEFAULT_TTL_SECONDS: u64 = 600;
/// Most patterns in one `claim` or `release`.
pub const MAX_FILES_PER_OP: usize = 1000;

/// One call: the state as read, the facts the shim gathered, and the operation.
#[derive(Debug, Clone)]
pub struct Request {
    /// `status.json` text; `None` when the file does not exist.
    pub state: Option<String>,
    /// `sprint.json` text, if the file exists.
    pub sprint: Option<String>,
    /// The shim's clock, ISO 8601.
    pub now: String,
    /// `now` in seconds since the epoch.
    pub now_secs: i64,
    /// Six characters `[a-z0-9]` for a new instance id.
    pub random: Option<String>,
    /// The shim's host name.
    pub host: String,
    /// Liveness of this host's instances, by id (pid and start time checked by the shim).
    pub alive: BTreeMap<String, bool>,
    /// Heartbeat time-to-live for instances whose process cannot be checked.
    pub ttl_seconds: u64,
    /// What to do.
    pub op: Op,
}

/// An operation with its fields (seed 003 names).
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Register a task.
    Start(Start),
    /// A session joins an instance.
    Attach {
        /// The instance.
        instance_id: String,
        /// The host session id.
        session: String,
    },
    /// Lock patterns before editing.
    Claim(Claim),
    /// Unlock patterns.
    Release(Release),
    /// Finish: history line, claims released, instance removed.
    Done(Done),
    /// A sign of life.
    Heartbeat {
        /// The instance.
        instance_id: String,
    },
    /// Remove orphans.
    Cleanup {
        /// Heartbeat age limit for this cleanup, instead of the request's TTL.
        max_age_minutes: Option<u64>,
    },
    /// Everything, read only.
    Status,
    /// Read and clear the forced-claim notices of an instance.
    Notices {
        /// The instance.
        instance_id: String,
    },
}

/// `start` fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Start {
    /// What the instance works on.
    pub task: String,
    /// Project name (default: the last segment of the project root).
    pub project: Option<String>,
    /// `P1`..`P4`.
    pub priority: String,
    /// Where it was started.
    pub working_directory: String,
    /// Id prefix, `[a-z0-9]{1,8}` (default `opc`).
    pub source: Option<String>,
    /// Canonical project path.
    pub project_root: Option<String>,
    /// Process id.
    pub pid: Option<u64>,
    /// Host name (default: the request's).
    pub host: Option<String>,
    /// Process start token.
    pub process_started: Option<String>,
    /// The registering agent.
    pub agent: Option<String>,
    /// The first session.
    pub session: Option<String>,
    /// A justification that passes a failing priority gate.
    pub override_justification: Option<String>,
    /// Registered by the plugin, not asked for: the gate never blocks it.
    pub automatic: bool,
}

/// `claim` fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Claim {
    /// The claiming instance.
    pub instance_id: String,
    /// Absolute canonical patterns.
    pub files: Vec<String>,
    /// A justification: take conflicting claims over.
    pub force: Option<String>,
    /// Who forces (default: the instance's agent, else its id).
    pub by: Option<String>,
}

/// `release` fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Release {
    /// The releasing instance.
    pub instance_id: String,
    /// Patterns to release (as claimed).
    pub files: Vec<String>,
    /// Release every claim.
    pub all: bool,
    /// Why (logged nowhere, kept for seed compatibility).
    pub reason: Option<String>,
}

/// `done` fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Done {
    /// The finishing instance.
    pub instance_id: String,
    /// `success` by default.
    pub outcome: String,
    /// What it changed.
    pub files_modified: Vec<String>,
}

/// What `conductorApply` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Response {
    /// New `status.json` text; `None` (null): nothing changed, do not write.
    pub state: Option<String>,
    /// The seed's output for the operation.
    pub result: Value,
    /// Lines to append to `history.jsonl`.
    pub history: Vec<String>,
    /// Lines to append to `conflicts.log`.
    pub conflicts: Vec<String>,
    /// Only on error (then `state` is null and `result.status` is `error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ConductorError>,
}

impl Response {
    /// The response for an error: nothing to write or log.
    pub fn failure(error: ConductorError) -> Response {
        Response {
            state: None,
            result: serde_json::json!({
                "status": "error",
                "reason": error.code,
                "message": error.message,
            }),
            history: Vec::new(),
            conflicts: Vec::new(),
            error: Some(error),
        }
    }

    /// The response as JSON text.
    pub fn to_json(&self) -> String {
        // Strings, lists and JSON values always serialise.
        serde_json::to_string(self).unwrap_or_default()
    }
}

fn bad(message: impl Into<String>, fix: &str) -> ConductorError {
    ConductorError::new(ErrorCode::BadRequest, message, fix)
}

const SEE_CONTRACT: &str = "see docs/conductor-contract.md for the request format";

impl Request {
    /// Reads a request text.
    pub fn parse(text: &str) -> Result<Request, ConductorError> {
        if text.len() > MAX_REQUEST_BYTES {
            return Err(bad(
                format!(
                    "the request is {} bytes, over the limit of {MAX_REQUEST_BYTES}",
                    text.len()
                ),
                "the state inside it is too large: move status.json aside",
            ));
        }
        let value: Value = serde_json::from_str(text).map_err(|e| {
            bad(
                format!(
                    "the request is not valid JSON at line {}, column {}",
                    e.line(),
                    e.column()
                ),
                SEE_CONTRACT,
            )
        })?;
        let mut f = Fields::new(value, "request").map_err(|m| bad(m, SEE_CONTRACT))?;
        Request::read(&mut f).map_err(|m| bad(m, SEE_CONTRACT))
    }

    fn read(f: &mut Fields) -> Result<Request, String> {
        let now = f
            .string("now")?
            .ok_or("request.now: missing (the shim's clock, ISO 8601)")?;
        let now_secs = parse_iso(&now)
            .ok_or_else(|| format!("request.now: {now:?} is not an ISO 8601 time"))?;
        let mut alive = BTreeMap::new();
        for (id, value) in f.object("alive")?.unwrap_or_default() {
            match value {
                Value::Bool(b) => {
                    alive.insert(id, b);
                }
                Value::Null => {}
                other => {
                    return Err(format!(
                        "request.alive[{id:?}]: expected true or false, found {}",
                        super::fields::kind(&other)
                    ))
                }
            }
        }
        let ttl_seconds = f.count("ttlSeconds")?.unwrap_or(DEFAULT_TTL_SECONDS);
        let op_value = f.take("op").ok_or("request.op: missing")?;
        let op = read_op(Fields::new(op_value, "op")?)?;
        Ok(Request {
            state: f.string("state")?,
            sprint: f.string("sprint")?,
            now,
            now_secs,
            random: f.string("random")?,
            host: f.string("host")?.unwrap_or_default(),
            alive,
            ttl_seconds,
            op,
        })
    }
}

fn required(f: &mut Fields, key: &str) -> Result<String, String> {
    match f.string(key)? {
        Some(s) if !s.trim().is_empty() => Ok(s),
        _ => Err(format!("op.{key}: missing or empty")),
    }
}

/// A free-text field that may be absent; a blank one counts as absent.
fn text(f: &mut Fields, key: &str) -> Result<Option<String>, String> {
    Ok(f.string(key)?.filter(|s| !s.trim().is_empty()))
}

fn read_op(mut f: Fields) -> Result<Op, String> {
    let operation = required(&mut f, "operation")?;
    Ok(match operation.as_str() {
        "start" => Op::Start(Start {
            task: f.string("task")?.unwrap_or_default(),
            project: text(&mut f, "project")?,
            priority: required(&mut f, "priority")?,
            working_directory: f.string("working_directory")?.unwrap_or_default(),
            source: text(&mut f, "source")?,
            project_root: text(&mut f, "project_root")?,
            pid: f.count("pid")?,
            host: text(&mut f, "host")?,
            process_started: f.token("process_started")?,
            agent: text(&mut f, "agent")?,
            session: text(&mut f, "session")?,
            override_justification: text(&mut f, "override")?,
            automatic: f.boolean("automatic")?.unwrap_or(false),
        }),
        "attach" => Op::Attach {
            instance_id: required(&mut f, "instance_id")?,
            session: required(&mut f, "session")?,
        },
        "claim" => {
            let force = match f.take("force") {
                None | Some(Value::Bool(false)) => None,
                Some(Value::String(s)) if !s.trim().is_empty() => Some(s),
                Some(_) => {
                    return Err(
                        "op.force: a justification is required (a non-empty string saying why)"
                            .to_string(),
                    )
                }
            };
            Op::Claim(Claim {
                instance_id: required(&mut f, "instance_id")?,
                files: files(&mut f, true)?,
                force,
                by: text(&mut f, "by")?,
            })
        }
        "release" => Op::Release(Release {
            instance_id: required(&mut f, "instance_id")?,
            files: files(&mut f, false)?,
            all: f.boolean("all")?.unwrap_or(false),
            reason: text(&mut f, "reason")?,
        }),
        "done" => Op::Done(Done {
            instance_id: required(&mut f, "instance_id")?,
            outcome: text(&mut f, "outcome")?.unwrap_or_else(|| "success".to_string()),
            files_modified: f.strings("files_modified")?,
        }),
        "heartbeat" => Op::Heartbeat {
            instance_id: required(&mut f, "instance_id")?,
        },
        "cleanup" => Op::Cleanup {
            max_age_minutes: f.count("max_age_minutes")?,
        },
        "status" => Op::Status,
        "notices" => Op::Notices {
            instance_id: required(&mut f, "instance_id")?,
        },
        other => {
            return Err(format!(
                "op.operation: {other:?} is not one of start, attach, claim, release, done, \
                 heartbeat, cleanup, status, notices"
            ))
        }
    })
}

fn files(f: &mut Fields, needed: bool) -> Result<Vec<String>, String> {
    let files = f.strings("files")?;
    if needed && files.is_empty() {
        return Err("op.files: missing or empty (the patterns to claim)".to_string());
    }
    if files.len() > MAX_FILES_PER_OP {
        return Err(format!(
            "op.files: {} patterns, over the limit of {MAX_FILES_PER_OP} per call",
            files.len()
        ));
    }
    Ok(files)
}
