//! One ingestion step: a lane's sessions distilled into the observation records to append,
//! given the revisions already kept. A record is appended when its id is new, or when its
//! content changed (it then names the revision it supersedes); an unchanged one is not
//! written again, so re-reading a lane (after a kill, or as it grows) never duplicates.

use super::observe::{observe, stamp};
use super::provider::{observation_pass, ProviderPass};
use super::route::place;
use super::{MindSettings, Observation};
use crate::continuity::events::{from_export, from_lane};
use crate::continuity::redact::Redactor;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What is kept of an id: its latest revision and, when a provider refined it, the
/// deterministic revision it was made from (what a new distillation is compared with).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Kept {
    /// The latest record's revision.
    pub rev: String,
    /// Its `basis`, if refined.
    pub basis: Option<String>,
}

/// A pass a provider may refine: its input and the ids of the records appended from it.
#[derive(Debug, Clone, Serialize)]
pub struct Pass {
    /// Its input (see [`ProviderPass`]).
    #[serde(flatten)]
    pub pass: ProviderPass,
    /// The ids of the records it may reword.
    pub ids: Vec<String>,
}

/// What one lane gave.
#[derive(Debug, Clone, Serialize)]
pub struct Distilled {
    /// Records to append, in order.
    pub append: Vec<Observation>,
    /// Current observations of the lane (appended or already kept).
    pub observations: usize,
    /// Sessions read, in order.
    pub sessions: Vec<String>,
    /// Events read.
    pub events: usize,
    /// Lines skipped and why (`line 7: not JSON (truncated?) — skipped`).
    pub warnings: Vec<String>,
    /// With a provider for observations: one pass per chunk that appends records.
    pub passes: Vec<Pass>,
}

/// Distills `text` (a raw lane, or `opencode export` JSON when `export`), `root` making paths
/// project-relative; `known` maps kept ids to what is kept of them; `redactor` applies the
/// project's redaction rules to a provider's input.
pub fn distill(
    text: &str,
    export: bool,
    root: Option<&str>,
    settings: &MindSettings,
    known: &HashMap<String, Kept>,
    redactor: &Redactor,
) -> Distilled {
    let input = if export {
        from_export(text)
    } else {
        from_lane(text)
    };
    let mut append = Vec::new();
    let mut observations = 0;
    let mut events = 0;
    let mut sessions = Vec::new();
    let mut passes = Vec::new();
    for session in &input.sessions {
        events += session
            .messages
            .iter()
            .map(|m| m.parts.len())
            .sum::<usize>();
        sessions.push(session.id.clone());
        let from = append.len();
        for mut o in observe(session, root, settings) {
            o.place = place(&o, &settings.segments);
            stamp(&mut o);
            observations += 1;
            match known.get(&o.id) {
                Some(k) if *k.basis.as_ref().unwrap_or(&k.rev) == o.rev => {}
                Some(k) => {
                    o.supersedes = Some(format!("{}@{}", o.id, k.rev));
                    append.push(o);
                }
                None => append.push(o),
            }
        }
        if let Some(p) = settings.provider.as_ref().filter(|p| p.observations) {
            let size = settings.chunk_events.max(1);
            let mut chunks: Vec<usize> = append[from..].iter().map(|o| o.chunk).collect();
            chunks.dedup();
            for chunk in chunks {
                let records: Vec<&Observation> =
                    append[from..].iter().filter(|o| o.chunk == chunk).collect();
                let span = (chunk * size, (chunk + 1) * size - 1);
                passes.push(Pass {
                    pass: observation_pass(session, root, span, &records, redactor, p),
                    ids: records.iter().map(|o| o.id.clone()).collect(),
                });
            }
        }
    }
    Distilled {
        append,
        observations,
        sessions,
        events,
        warnings: input.warnings,
        passes,
    }
}
