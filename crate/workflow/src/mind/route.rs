//! Routing: each observation's segment. Evidence, strongest first: its tasks matching a
//! segment's `tasks` globs (3 points each), its files matching `paths` globs (2 points
//! each), words of its text matching `keywords` (1 point each). The segment with most points
//! is primary, with the share of all points as confidence; other segments with points are
//! secondary. Nothing matched: `global` when the observation names no file (a decision or a
//! question about the whole project), else `uncertain`; a tie for first is `uncertain` too,
//! with the tied segments as secondaries. A hand move (`moves.jsonl`) wins over all of it.

use super::{Move, Observation, Placement, Segment};
use nso_text::glob::Glob;

/// The segment of observations that point nowhere in particular.
pub const GLOBAL: &str = "global";
/// The segment of observations whose evidence matches no segment, or two equally.
pub const UNCERTAIN: &str = "uncertain";

fn task_id(task: &str) -> &str {
    task.split_whitespace().next().unwrap_or(task)
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// Whether `text` (a path, a task id) matches the segment's glob `pattern` (NSO's one glob
/// syntax, read totally: a segment's pattern never fails to route).
fn text_matches(pattern: &str, text: &str) -> bool {
    Glob::total(pattern).matches(text, false)
}

/// Points of each segment for `o`, in config order.
fn points(o: &Observation, segments: &[Segment]) -> Vec<u32> {
    let text_words: Vec<String> = words(&o.text).collect();
    segments
        .iter()
        .map(|s| {
            let tasks = o
                .tasks
                .iter()
                .filter(|t| {
                    s.tasks
                        .iter()
                        .any(|g| text_matches(g, task_id(t)) || task_id(t).contains(g.as_str()))
                })
                .count() as u32;
            let files = o
                .files
                .iter()
                .filter(|f| s.paths.iter().any(|g| text_matches(g, f)))
                .count() as u32;
            let keywords = s
                .keywords
                .iter()
                .filter(|k| text_words.iter().any(|w| w == *k))
                .count() as u32;
            3 * tasks + 2 * files + keywords
        })
        .collect()
}

/// Where `o` belongs among `segments` (see the module doc), before hand moves.
pub fn place(o: &Observation, segments: &[Segment]) -> Placement {
    let pts = points(o, segments);
    let total: u32 = pts.iter().sum();
    let best = pts.iter().copied().max().unwrap_or(0);
    if total == 0 {
        let segment = if o.files.is_empty() {
            GLOBAL
        } else {
            UNCERTAIN
        };
        return Placement {
            segment: segment.to_string(),
            also: Vec::new(),
            confidence: 0,
            moved: false,
        };
    }
    let top: Vec<usize> = (0..pts.len()).filter(|&i| pts[i] == best).collect();
    if top.len() > 1 {
        return Placement {
            segment: UNCERTAIN.to_string(),
            also: top.iter().map(|&i| segments[i].name.clone()).collect(),
            confidence: (best * 100 / total) as u8,
            moved: false,
        };
    }
    Placement {
        segment: segments[top[0]].name.clone(),
        also: (0..pts.len())
            .filter(|&i| pts[i] > 0 && i != top[0])
            .map(|i| segments[i].name.clone())
            .collect(),
        confidence: (best * 100 / total) as u8,
        moved: false,
    }
}

/// Applies hand moves (the last move of an id wins) to `placement` of artifact `id`.
pub fn apply_moves(id: &str, placement: &mut Placement, moves: &[Move]) {
    if let Some(m) = moves.iter().rev().find(|m| m.id == id) {
        placement.segment = m.segment.clone();
        placement.also.retain(|s| s != &m.segment);
        placement.confidence = 100;
        placement.moved = true;
    }
}
