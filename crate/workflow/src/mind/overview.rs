//! Mind by segment, as Mission Control shows it: for each segment, its latest reflections
//! and its open questions (questions the agents asked that no answer followed), each with the
//! artifact and session it cites. Bounded: at most `limit` of each per segment.

use super::insight::{current_observations, read_moves, Corpus};
use super::reflect::Reflection;
use super::{read_jsonl, Kind};
use serde::Serialize;
use std::collections::BTreeMap;

/// What an unanswered question's observation starts with (see [`super::observe`]).
pub const OPEN_QUESTION: &str = "open question: ";

/// A reflection as the overview shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ReflectionView {
    /// Its id (the citation).
    pub id: String,
    /// Its task, if any.
    pub task: Option<String>,
    /// Its lines, each ending with the observations it cites.
    pub lines: Vec<String>,
    /// What produced it.
    pub producer: String,
}

/// An open question as the overview shows it.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionView {
    /// The observation's id (the citation).
    pub id: String,
    /// The session it was asked in.
    pub session: String,
    /// The question.
    pub text: String,
    /// The events cited.
    pub events: Vec<usize>,
    /// When it was asked (ms), if known.
    pub at: Option<i64>,
}

/// One segment of the overview.
#[derive(Debug, Clone, Serialize)]
pub struct SegmentView {
    /// The segment.
    pub name: String,
    /// Its current observations.
    pub observations: usize,
    /// Its latest reflections, latest first.
    pub reflections: Vec<ReflectionView>,
    /// Its open questions, latest first.
    pub questions: Vec<QuestionView>,
}

/// The overview: segments by name, then problems met reading the artifacts.
#[derive(Debug, Clone, Serialize)]
pub struct Overview {
    /// The segments that hold something.
    pub segments: Vec<SegmentView>,
    /// Lines skipped and why.
    pub warnings: Vec<String>,
}

/// The overview of `corpus`, at most `limit` reflections and questions per segment.
pub fn overview(corpus: &Corpus, limit: usize) -> Overview {
    let (moves, mut warnings) = read_moves(&corpus.moves);
    let (observations, w) = current_observations(&corpus.observations, &moves);
    warnings.extend(w.into_iter().map(|w| format!("observations {w}")));
    let (reflections, w) = read_jsonl::<Reflection>(&corpus.reflections, |r| &r.id);
    warnings.extend(w.into_iter().map(|w| format!("reflections {w}")));
    let mut segments: BTreeMap<String, SegmentView> = BTreeMap::new();
    let view = |name: &str| SegmentView {
        name: name.to_string(),
        observations: 0,
        reflections: Vec::new(),
        questions: Vec::new(),
    };
    for o in &observations {
        let s = segments
            .entry(o.place.segment.clone())
            .or_insert_with(|| view(&o.place.segment));
        s.observations += 1;
        if let (Kind::Question, Some(q)) = (o.kind, o.text.strip_prefix(OPEN_QUESTION)) {
            s.questions.push(QuestionView {
                id: o.id.clone(),
                session: o.session.clone(),
                text: q.to_string(),
                events: o.events.clone(),
                at: o.at,
            });
        }
    }
    // Records are appended as they are made: the last ones are the latest.
    for r in reflections.iter().rev() {
        let segment = moves
            .iter()
            .rev()
            .find(|m| m.id == r.id)
            .map_or(r.segment.as_str(), |m| m.segment.as_str());
        let s = segments
            .entry(segment.to_string())
            .or_insert_with(|| view(segment));
        s.reflections.push(ReflectionView {
            id: r.id.clone(),
            task: r.task.clone(),
            lines: r.lines.clone(),
            producer: r.producer.clone(),
        });
    }
    for s in segments.values_mut() {
        s.questions
            .sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.id.cmp(&b.id)));
        s.questions.truncate(limit);
        s.reflections.truncate(limit);
    }
    Overview {
        segments: segments.into_values().collect(),
        warnings,
    }
}
