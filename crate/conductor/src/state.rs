//! `status.json`: reading (seed 1.0 and 2.0, tolerant) and writing (2.0, deterministic).
//!
//! Seed field names are kept so seed readers still work. Tolerance: unknown fields at the top,
//! in instances and in drift warnings are kept as they are; missing fields get defaults
//! (a missing heartbeat is the start time, or `now`). What cannot be read safely is
//! `state_corrupt`: bad JSON (with line and column), a wrong type, a timestamp that does not
//! parse, two instances with one id, sizes past the limits.
//!
//! `instances[].files_claimed` is the truth; `global_claims` (pattern -> holder) is derived
//! from it on every write. When reading, an entry of `global_claims` its holder does not list
//! is added to the holder (a seed writer may have died between the two updates): a claim is
//! never lost. Seed claims are relative to the instance's `working_directory`; they are made
//! absolute against it (or, without one, prefixed with `/**/`, which conflicts more rather
//! than less).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;
use serde_json::{Map, Value};

use super::clock::parse_iso;
use super::fields::Fields;
use super::glob::normalize;

/// The version written.
pub const VERSION: &str = "2.0";
/// Largest `status.json` read (bytes): past it the text is `state_corrupt`.
pub const MAX_STATE_BYTES: usize = 16 << 20;
/// Most instances in one state.
pub const MAX_INSTANCES: usize = 10_000;
/// Most claims in one state, all instances together.
pub const MAX_CLAIMS: usize = 200_000;
/// Longest claim pattern (bytes); Linux paths stop at 4096.
pub const MAX_PATTERN_BYTES: usize = 4096;
/// Drift warnings kept (the oldest are dropped first).
pub const MAX_DRIFT_WARNINGS: usize = 200;

/// The whole coordination state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct State {
    /// When the state last changed (as the shim's clock gave it).
    pub updated_at: Option<String>,
    /// Registered instances, in registration order.
    pub instances: Vec<Instance>,
    /// Priority-gate warnings, oldest first.
    pub drift_warnings: Vec<DriftWarning>,
    /// Top-level fields this version does not know, kept.
    pub extra: Map<String, Value>,
}

/// One registered agent instance (an OpenCode process working on a task).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Instance {
    /// `{source}-{random6}`.
    pub id: String,
    /// Where it runs (`opc` for OpenCode, seed: `itm`, `cur`, ...).
    pub source: String,
    /// Project name.
    pub project: String,
    /// What it works on.
    pub task: String,
    /// `P1` (most important) to `P4`.
    pub priority: String,
    /// Claim patterns: absolute, normalised.
    pub files_claimed: Vec<String>,
    /// Registration time.
    pub started_at: String,
    /// Last sign of life.
    pub last_heartbeat: String,
    /// Where it was started.
    pub working_directory: String,
    /// Canonical absolute path of the project.
    pub project_root: Option<String>,
    /// Process id, on `host`.
    pub pid: Option<u64>,
    /// Host name; liveness by pid applies only on the same host.
    pub host: Option<String>,
    /// Opaque process start token, compared by the shim to detect pid reuse.
    pub process_started: Option<String>,
    /// The agent that registered (e.g. `dev`).
    pub agent: Option<String>,
    /// Host sessions sharing this instance (subagents attach to their parent's).
    pub sessions: Vec<String>,
    /// Claims taken from this instance by force, not yet shown to it.
    pub forced: Vec<ForcedNotice>,
    /// Fields this version does not know, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A claim taken over by force, for the former holder to read (`notices`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ForcedNotice {
    /// The pattern the instance lost.
    pub pattern: String,
    /// Who forced (agent or person).
    pub by: String,
    /// The instance that took it.
    pub claimant: String,
    /// Why.
    pub justification: String,
    /// When.
    pub at: String,
}

/// A task that does not fit the sprint's priorities (seed fields, plus when and why).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DriftWarning {
    /// The instance concerned.
    pub instance_id: String,
    /// What does not fit, with the justification when one was given.
    pub reason: String,
    /// Whether a person has seen it.
    pub acknowledged: bool,
    /// When it was recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// The override justification, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub justification: Option<String>,
    /// Fields this version does not know, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why a state text cannot be used (becomes `error.code = "state_corrupt"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateError {
    /// What is wrong, naming the place.
    pub message: String,
}

fn corrupt(message: impl Into<String>) -> StateError {
    StateError {
        message: message.into(),
    }
}

impl State {
    /// Reads a `status.json` text; `now` fills in missing timestamps.
    pub fn parse(text: &str, now: &str) -> Result<State, StateError> {
        if text.len() > MAX_STATE_BYTES {
            return Err(corrupt(format!(
                "status.json is {} bytes, over the limit of {MAX_STATE_BYTES} bytes",
                text.len()
            )));
        }
        let value: Value = serde_json::from_str(text).map_err(|e| {
            corrupt(format!(
                "status.json is not valid JSON at line {}, column {}: {}",
                e.line(),
                e.column(),
                strip_position(&e.to_string())
            ))
        })?;
        let top = Fields::new(value, "").map_err(|_| {
            corrupt("status.json is not a conductor state: its top level is not an object")
        })?;
        read_state(top, now).map_err(corrupt)
    }

    /// The instance with `id`, if registered.
    pub fn find(&self, id: &str) -> Option<usize> {
        self.instances.iter().position(|i| i.id == id)
    }

    /// The state as `status.json` text (version 2.0, `global_claims` derived, stable order).
    pub fn to_text(&self) -> String {
        let mut global: BTreeMap<&str, &str> = BTreeMap::new();
        for instance in &self.instances {
            for pattern in &instance.files_claimed {
                global.entry(pattern).or_insert(&instance.id);
            }
        }
        let out = Written {
            version: VERSION,
            updated_at: self.updated_at.as_deref(),
            instances: &self.instances,
            global_claims: global,
            drift_warnings: &self.drift_warnings,
            extra: &self.extra,
        };
        // Serialising plain strings, numbers and maps cannot fail.
        let mut text = serde_json::to_string_pretty(&out).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Adds a drift warning, dropping the oldest past [`MAX_DRIFT_WARNINGS`].
    pub fn warn(&mut self, warning: DriftWarning) {
        self.drift_warnings.push(warning);
        let excess = self.drift_warnings.len().saturating_sub(MAX_DRIFT_WARNINGS);
        self.drift_warnings.drain(..excess);
    }
}

#[derive(Serialize)]
struct Written<'a> {
    version: &'a str,
    updated_at: Option<&'a str>,
    instances: &'a [Instance],
    global_claims: BTreeMap<&'a str, &'a str>,
    drift_warnings: &'a [DriftWarning],
    #[serde(flatten)]
    extra: &'a Map<String, Value>,
}

/// serde_json appends " at line L column C"; the message states the place once, up front.
fn strip_position(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |i| &message[..i])
}

fn read_state(mut top: Fields, now: &str) -> Result<State, String> {
    let version = match top.take("version") {
        None => "1.0".to_string(),
        Some(Value::String(s)) => s,
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => {
            return Err(format!(
                "version: expected a string, found {}",
                super::fields::kind(&other)
            ))
        }
    };
    let major = version.split('.').next().unwrap_or("");
    if major != "1" && major != "2" {
        return Err(format!(
            "version {version:?} is not one this NSO reads (1.x, 2.x): written by a newer \
             conductor, or not a conductor state"
        ));
    }
    let updated_at = top.string("updated_at")?;
    let raw_instances = top.list("instances")?;
    if raw_instances.len() > MAX_INSTANCES {
        return Err(format!(
            "instances: {} instances, over the limit of {MAX_INSTANCES}",
            raw_instances.len()
        ));
    }
    let mut instances = Vec::with_capacity(raw_instances.len());
    let mut ids = HashSet::new();
    for (i, raw) in raw_instances.into_iter().enumerate() {
        let instance = read_instance(raw, &format!("instances[{i}]"), now)?;
        if !ids.insert(instance.id.clone()) {
            return Err(format!(
                "instances[{i}].id: {:?} is registered twice",
                instance.id
            ));
        }
        instances.push(instance);
    }
    let global = top.object("global_claims")?.unwrap_or_default();
    merge_global_claims(&mut instances, global)?;
    let total: usize = instances.iter().map(|i| i.files_claimed.len()).sum();
    if total > MAX_CLAIMS {
        return Err(format!(
            "{total} claims in all, over the limit of {MAX_CLAIMS}"
        ));
    }
    let mut drift_warnings = Vec::new();
    for (i, raw) in top.list("drift_warnings")?.into_iter().enumerate() {
        drift_warnings.push(read_warning(raw, &format!("drift_warnings[{i}]"))?);
    }
    Ok(State {
        updated_at,
        instances,
        drift_warnings,
        extra: top.rest(),
    })
}

fn read_instance(raw: Value, path: &str, now: &str) -> Result<Instance, String> {
    let mut f = Fields::new(raw, path)?;
    let id = f.string("id")?.unwrap_or_default();
    if id.trim().is_empty() {
        return Err(format!("{path}.id: missing or empty"));
    }
    let started_at = f.string("started_at")?;
    let last_heartbeat = f.string("last_heartbeat")?;
    for (key, value) in [
        ("started_at", &started_at),
        ("last_heartbeat", &last_heartbeat),
    ] {
        if let Some(value) = value.as_deref().filter(|v| parse_iso(v).is_none()) {
            return Err(format!(
                "{path}.{key}: {value:?} is not an ISO 8601 time (e.g. 2026-01-17T10:30:00Z)"
            ));
        }
    }
    let started_at = started_at
        .or_else(|| last_heartbeat.clone())
        .unwrap_or_else(|| now.to_string());
    let last_heartbeat = last_heartbeat.unwrap_or_else(|| started_at.clone());
    let working_directory = f.string("working_directory")?.unwrap_or_default();
    let claims_path = f.child_path("files_claimed");
    let mut seen = HashSet::new();
    let mut files_claimed = Vec::new();
    for (i, pattern) in f.strings("files_claimed")?.into_iter().enumerate() {
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(format!(
                "{claims_path}[{i}]: a pattern of {} bytes, over the limit of {MAX_PATTERN_BYTES}",
                pattern.len()
            ));
        }
        let pattern = absolutize(&pattern, &working_directory);
        if seen.insert(pattern.clone()) {
            files_claimed.push(pattern);
        }
    }
    let source = f
        .string("source")?
        .unwrap_or_else(|| id.split('-').next().unwrap_or_default().to_string());
    let project_root = f
        .string("project_root")?
        .or_else(|| (!working_directory.is_empty()).then(|| working_directory.clone()));
    let mut forced = Vec::new();
    for (i, raw) in f.list("forced")?.into_iter().enumerate() {
        forced.push(read_notice(raw, &format!("{path}.forced[{i}]"))?);
    }
    Ok(Instance {
        source,
        project: f.string("project")?.unwrap_or_default(),
        task: f.string("task")?.unwrap_or_default(),
        priority: f.string("priority")?.unwrap_or_default(),
        files_claimed,
        started_at,
        last_heartbeat,
        working_directory,
        project_root,
        pid: f.count("pid")?,
        host: f.string("host")?,
        process_started: f.token("process_started")?,
        agent: f.string("agent")?,
        sessions: f.strings("sessions")?,
        forced,
        id,
        extra: f.rest(),
    })
}

fn read_notice(raw: Value, path: &str) -> Result<ForcedNotice, String> {
    let mut f = Fields::new(raw, path)?;
    Ok(ForcedNotice {
        pattern: f.string("pattern")?.unwrap_or_default(),
        by: f.string("by")?.unwrap_or_default(),
        claimant: f.string("claimant")?.unwrap_or_default(),
        justification: f.string("justification")?.unwrap_or_default(),
        at: f.string("at")?.unwrap_or_default(),
    })
}

fn read_warning(raw: Value, path: &str) -> Result<DriftWarning, String> {
    let mut f = Fields::new(raw, path)?;
    Ok(DriftWarning {
        instance_id: f.string("instance_id")?.unwrap_or_default(),
        reason: f.string("reason")?.unwrap_or_default(),
        acknowledged: f.boolean("acknowledged")?.unwrap_or(false),
        at: f.string("at")?,
        justification: f.string("justification")?,
        extra: f.rest(),
    })
}

/// Adds to each holder the `global_claims` entries it does not list (see the module doc).
fn merge_global_claims(
    instances: &mut [Instance],
    global: Map<String, Value>,
) -> Result<(), String> {
    let index: HashMap<String, usize> = instances
        .iter()
        .enumerate()
        .map(|(i, inst)| (inst.id.clone(), i))
        .collect();
    let mut missing: Vec<(usize, String)> = Vec::new();
    {
        let held: HashSet<(usize, &str)> = instances
            .iter()
            .enumerate()
            .flat_map(|(i, inst)| inst.files_claimed.iter().map(move |p| (i, p.as_str())))
            .collect();
        for (pattern, holder) in global {
            let Value::String(holder) = holder else {
                return Err(format!(
                    "global_claims[{pattern:?}]: expected an instance id (a string)"
                ));
            };
            let Some(&i) = index.get(&holder) else {
                // The holder is gone; its claim went with it.
                continue;
            };
            if pattern.len() > MAX_PATTERN_BYTES {
                return Err(format!(
                    "global_claims: a pattern of {} bytes, over the limit of {MAX_PATTERN_BYTES}",
                    pattern.len()
                ));
            }
            let pattern = absolutize(&pattern, &instances[i].working_directory);
            if !held.contains(&(i, pattern.as_str())) {
                missing.push((i, pattern));
            }
        }
    }
    let mut added = HashSet::new();
    for (i, pattern) in missing {
        if added.insert((i, pattern.clone())) {
            instances[i].files_claimed.push(pattern);
        }
    }
    Ok(())
}

/// A claim pattern made absolute and normalised (seed claims are relative to the working
/// directory, whose glob characters are escaped so they stay literal).
pub fn absolutize(pattern: &str, working_directory: &str) -> String {
    if pattern.starts_with('/') {
        normalize(pattern)
    } else if working_directory.starts_with('/') {
        normalize(&format!("{}/{pattern}", escape_literal(working_directory)))
    } else {
        normalize(&format!("/**/{pattern}"))
    }
}

/// A path written as a pattern that matches exactly it: `*?[]{}\` escaped with `\`.
pub fn escape_literal(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
