//! Tier-2 reflections: once the observations of one segment and task (or of one segment
//! without a task) reach `reflect_after`, they are merged into one reflection that keeps the
//! decisions, fixes, open errors and questions, status moves and the files changed most, each
//! line citing its observations. Observations of different segments are never merged unless
//! `crossSegments` allows it (then the group is the task alone, segment `*`).

use super::{clip, Kind, MindSettings, Observation, PRODUCER};
use nso_text::hashing::WordHash;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most lines of a reflection.
pub const MAX_LINES: usize = 12;

/// One reflection (one JSON line of `reflections.jsonl`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reflection {
    /// Record version.
    pub v: u32,
    /// `r-<segment>-<task>` (`-`: no task).
    pub id: String,
    /// Hash of the content.
    pub rev: String,
    /// The earlier revision this one supersedes (`<id>@<rev>`).
    pub supersedes: Option<String>,
    /// The segment (`*` when merged across segments).
    pub segment: String,
    /// The task, if any.
    pub task: Option<String>,
    /// The lines, each with its citations in brackets.
    pub lines: Vec<String>,
    /// Every observation merged.
    pub cites: Vec<String>,
    /// What produced it: `deterministic`, or the name of the provider that refined it.
    pub producer: String,
    /// For a refined reflection, the deterministic revision it was made from.
    pub basis: Option<String>,
}

/// The task an observation is mainly about: the first with a strong relation.
pub fn main_task(o: &Observation) -> Option<String> {
    o.tasks
        .iter()
        .find(|t| !t.ends_with(" mentioned"))
        .map(|t| t.split_whitespace().next().unwrap_or(t).to_string())
}

/// The reflections of the current `observations` (placed; hand moves applied).
pub fn reflect(observations: &[Observation], settings: &MindSettings) -> Vec<Reflection> {
    let mut groups: BTreeMap<(String, String), Vec<&Observation>> = BTreeMap::new();
    for o in observations {
        let segment = if settings.cross_segments {
            "*".to_string()
        } else {
            o.place.segment.clone()
        };
        let task = main_task(o).unwrap_or_else(|| "-".to_string());
        groups.entry((segment, task)).or_default().push(o);
    }
    let mut out = Vec::new();
    for ((segment, task), list) in groups {
        if list.len() < settings.reflect_after {
            continue;
        }
        let mut lines = Vec::new();
        for (kind, label) in [
            (Kind::Decision, "decided"),
            (Kind::Fix, "fixed"),
            (Kind::Error, "still failing"),
            (Kind::Refusal, "refused"),
            (Kind::Question, "asked"),
            (Kind::Status, "moved"),
        ] {
            for o in list.iter().filter(|o| o.kind == kind).rev().take(2) {
                let text = o.text.split_once(": ").map_or(o.text.as_str(), |(_, t)| t);
                lines.push(format!("{label}: {} [{}]", clip(text, 160), o.id));
            }
        }
        let mut files: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for o in list.iter().filter(|o| o.kind == Kind::Change) {
            for f in &o.files {
                files.entry(f).or_default().push(&o.id);
            }
        }
        let mut ranked: Vec<_> = files.into_iter().collect();
        ranked.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
        if !ranked.is_empty() {
            let names: Vec<String> = ranked
                .iter()
                .take(5)
                .map(|(f, ids)| format!("{f} ({})", ids.len()))
                .collect();
            let cites: Vec<&str> = ranked
                .iter()
                .take(5)
                .filter_map(|(_, ids)| ids.last().copied())
                .collect();
            lines.insert(
                0,
                format!(
                    "files changed most: {} [{}]",
                    names.join(", "),
                    cites.join(", ")
                ),
            );
        }
        lines.truncate(MAX_LINES);
        let mut r = Reflection {
            v: super::ARTIFACT_VERSION,
            id: format!("r-{segment}-{task}"),
            segment,
            task: (task != "-").then_some(task),
            lines,
            cites: list.iter().map(|o| o.id.clone()).collect(),
            producer: PRODUCER.to_string(),
            ..Reflection::default()
        };
        let text = serde_json::to_string(&r).unwrap_or_default();
        r.rev = format!("{:016x}", WordHash::of(text.as_bytes()));
        out.push(r);
    }
    out
}
