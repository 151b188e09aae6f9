//! Mind: what the project's agents learned, distilled from their sessions into durable
//! artifacts, and Insight, which answers questions from them. Deterministic and local: no
//! model, no key. The shim reads the lanes, keeps the artifacts (append-only JSONL) and the
//! checkpoints, and takes the lock; this module decides what the artifacts say.
//!
//! - [`observe`]: tier-1 observations of one session, in chunks of at most
//!   [`MindSettings::chunk_events`] events, never mixing two sessions;
//! - [`route`]: each observation's segment (paths, task ids and keywords of the config);
//! - [`reflect`]: tier-2 reflections per segment and task once their observations pass a budget;
//! - [`search`]: BM25 ranking over observations, reflections, decisions and handoffs;
//! - [`overview`]: Mind by segment for Mission Control (reflections, open questions);
//! - [`provider`]: an optional command that may reword a pass's records;
//! - [`insight`]: bounded answers (`brief`, `refs`, `snips`) with a citation on every line.

pub mod distill;
pub mod insight;
pub mod observe;
pub mod overview;
pub mod provider;
pub mod reflect;
pub mod route;
pub mod search;
mod settings;

pub use settings::{MindSettings, Segment, SettingsError};

use serde::{Deserialize, Serialize};

/// Version of the artifacts' records (`v`).
pub const ARTIFACT_VERSION: u32 = 1;

/// What an observation is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The session's task: what the person asked for.
    Task,
    /// A decision recorded with `nso_decide`.
    Decision,
    /// Files changed, and what for.
    Change,
    /// A command that failed and later passed, and what changed in between.
    Fix,
    /// A command that failed and did not pass again in the session.
    Error,
    /// A tool call NSO refused, and what the agent did instead.
    Refusal,
    /// A question asked and its answer.
    Question,
    /// A task's status moved.
    Status,
    /// A test or build command that worked.
    Command,
}

impl Kind {
    /// The kind's word in artifacts and answers.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Task => "task",
            Kind::Decision => "decision",
            Kind::Change => "change",
            Kind::Fix => "fix",
            Kind::Error => "error",
            Kind::Refusal => "refusal",
            Kind::Question => "question",
            Kind::Status => "status",
            Kind::Command => "command",
        }
    }
}

/// Where an observation belongs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Placement {
    /// The primary segment (`global`: nothing points anywhere; `uncertain`: the evidence
    /// matches no segment, or two equally).
    pub segment: String,
    /// Other segments the evidence also points to.
    pub also: Vec<String>,
    /// Share of the evidence pointing to the primary segment, in percent.
    pub confidence: u8,
    /// Set when a person moved it by hand (`nso mind move`).
    pub moved: bool,
}

/// One tier-1 observation (one JSON line of `observations.jsonl`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Observation {
    /// Record version.
    pub v: u32,
    /// Stable key: the same evidence gives the same id (`o-<session>-<kind>-<key>`).
    pub id: String,
    /// A hash of the content: a record whose id is known but whose rev differs supersedes it.
    pub rev: String,
    /// The id of the record this one supersedes (same id, earlier rev), if any.
    pub supersedes: Option<String>,
    /// The session it came from.
    pub session: String,
    /// The chunk of the session (0-based).
    pub chunk: usize,
    /// What it is about.
    pub kind: Kind,
    /// One line (redacted).
    pub text: String,
    /// A short snippet (redacted, bounded), if any.
    pub snippet: Option<String>,
    /// Project-relative files it concerns, sorted.
    pub files: Vec<String>,
    /// Tasks it concerns, with the session's relation (`todo:12 active`).
    pub tasks: Vec<String>,
    /// The events cited (positions in the normalized session).
    pub events: Vec<usize>,
    /// Time of the first cited event (ms since the epoch), if known.
    pub at: Option<i64>,
    /// Where it belongs.
    pub place: Placement,
    /// What produced it: `deterministic`, or the name of the provider that refined it.
    pub producer: String,
    /// For a refined record, the deterministic revision it was made from.
    pub basis: Option<String>,
}

impl Default for Observation {
    fn default() -> Self {
        Observation {
            v: ARTIFACT_VERSION,
            id: String::new(),
            rev: String::new(),
            supersedes: None,
            session: String::new(),
            chunk: 0,
            kind: Kind::Task,
            text: String::new(),
            snippet: None,
            files: Vec::new(),
            tasks: Vec::new(),
            events: Vec::new(),
            at: None,
            place: Placement::default(),
            producer: PRODUCER.to_string(),
            basis: None,
        }
    }
}

/// The deterministic producer's name, recorded in every artifact it makes.
pub const PRODUCER: &str = provider::DETERMINISTIC;

/// A hand move of an artifact to a segment (one line of `moves.jsonl`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    /// The artifact moved.
    pub id: String,
    /// Its new segment.
    pub segment: String,
}

/// Records of a JSONL artifact file, the last record of each id winning, in first-seen order;
/// unreadable lines are skipped and named (`line 7: …`).
pub fn read_jsonl<T: serde::de::DeserializeOwned>(
    text: &str,
    id_of: impl Fn(&T) -> &str,
) -> (Vec<T>, Vec<String>) {
    let mut out: Vec<T> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let mut warnings = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<T>(line) {
            Ok(record) => {
                let id = id_of(&record).to_string();
                match index.get(&id) {
                    Some(&i) => out[i] = record,
                    None => {
                        index.insert(id, out.len());
                        out.push(record);
                    }
                }
            }
            Err(e) => {
                if warnings.len() < crate::continuity::events::MAX_WARNINGS {
                    warnings.push(format!("line {}: {e} — skipped", n + 1));
                }
            }
        }
    }
    (out, warnings)
}

/// `text` on one line, at most `chars` characters (`…` when cut).
pub(crate) fn clip(text: &str, chars: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= chars {
        return flat;
    }
    let keep: String = flat.chars().take(chars.saturating_sub(1)).collect();
    format!("{}…", keep.trim_end())
}
