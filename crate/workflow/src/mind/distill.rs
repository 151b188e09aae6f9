//! One ingestion step: a lane's sessions distilled into the observation records to append,
//! given the revisions already kept. A record is appended when its id is new, or when its
//! content changed (it then names the revision it supersedes); an unchanged one is not
//! written again, so re-reading a lane (after a kill, or as it grows) never duplicates.

use super::observe::{observe, stamp};
use super::route::place;
use super::{MindSettings, Observation};
use crate::continuity::events::{from_export, from_lane};
use serde::Serialize;
use std::collections::HashMap;

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
}

/// Distills `text` (a raw lane, or `opencode export` JSON when `export`), `root` making paths
/// project-relative; `known` maps kept ids to their latest revision.
pub fn distill(
    text: &str,
    export: bool,
    root: Option<&str>,
    settings: &MindSettings,
    known: &HashMap<String, String>,
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
    for session in &input.sessions {
        events += session
            .messages
            .iter()
            .map(|m| m.parts.len())
            .sum::<usize>();
        sessions.push(session.id.clone());
        for mut o in observe(session, root, settings) {
            o.place = place(&o, &settings.segments);
            stamp(&mut o);
            observations += 1;
            match known.get(&o.id) {
                Some(rev) if *rev == o.rev => {}
                Some(rev) => {
                    o.supersedes = Some(format!("{}@{rev}", o.id));
                    append.push(o);
                }
                None => append.push(o),
            }
        }
    }
    Distilled {
        append,
        observations,
        sessions,
        events,
        warnings: input.warnings,
    }
}
