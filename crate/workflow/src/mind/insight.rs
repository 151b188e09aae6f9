//! Insight: answers from Mind's artifacts, in two stages. Retrieve ranks observations,
//! reflections, decisions and kept handoffs ([`super::search`]); compose writes a bounded
//! answer where every line cites what it came from. Modes, each with a hard bound:
//!
//! - `brief` (default): up to [`BRIEF_LINES`] bullets, then what to read next (files);
//! - `refs`: only references: artifacts, decisions, files ([`REFS_LINES`] lines);
//! - `snips`: up to [`SNIPS`] small snippets of [`SNIP_CHARS`] characters.
//!
//! Every line is at most [`WIDTH`] characters; a whole answer at most [`MAX_CHARS`].

use super::reflect::Reflection;
use super::route::apply_moves;
use super::search::{kind_weights, terms, Index};
use super::{clip, read_jsonl, Move, Observation};
use crate::continuity::ledger;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most bullets of a brief answer.
pub const BRIEF_LINES: usize = 8;
/// Most lines of a `refs` answer.
pub const REFS_LINES: usize = 15;
/// Most snippets of a `snips` answer.
pub const SNIPS: usize = 5;
/// Longest snippet.
pub const SNIP_CHARS: usize = 400;
/// Longest line.
pub const WIDTH: usize = 220;
/// Longest answer.
pub const MAX_CHARS: usize = 4000;

/// What Insight reads, as the shim gathers it (JSON, camelCase).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Corpus {
    /// `observations.jsonl`.
    pub observations: String,
    /// `reflections.jsonl`.
    pub reflections: String,
    /// `moves.jsonl`.
    pub moves: String,
    /// The decision ledger, if any.
    pub ledger: Option<String>,
    /// Kept handoffs: `{name, text}`.
    pub handoffs: Vec<NamedText>,
}

/// A named text.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct NamedText {
    /// Its name (a file name).
    pub name: String,
    /// Its text.
    pub text: String,
}

/// One searchable document.
#[derive(Debug, Clone, Serialize)]
pub struct Doc {
    /// What it cites (`ses_x/fix-12`, `D-0003`, `r-auth-todo:4`, `handoff:latest.md`).
    pub cite: String,
    /// `observation` kinds (`decision`, `change`, ...), `reflection`, `ledger` or `handoff`.
    pub kind: String,
    /// Its segment.
    pub segment: String,
    /// Its session, if any.
    pub session: Option<String>,
    /// One line.
    pub line: String,
    /// A snippet.
    pub snippet: String,
    /// Files it names.
    pub files: Vec<String>,
    /// When (ms), if known.
    pub at: Option<i64>,
}

/// One ranked document in an answer.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// The document.
    #[serde(flatten)]
    pub doc: Doc,
    /// Its score (rounded to 3 decimals).
    pub score: f64,
}

/// An answer.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    /// The question.
    pub question: String,
    /// `brief`, `refs` or `snips`.
    pub mode: String,
    /// The answer as text (bounded).
    pub text: String,
    /// The ranked documents behind it (at most 10).
    pub hits: Vec<Hit>,
    /// Problems met reading the artifacts.
    pub warnings: Vec<String>,
}

/// The documents of a corpus, indexed.
pub struct Insight {
    docs: Vec<Doc>,
    index: Index,
    /// Problems met reading the artifacts.
    pub warnings: Vec<String>,
}

/// Current observations of `text` with hand moves applied.
pub fn current_observations(text: &str, moves: &[Move]) -> (Vec<Observation>, Vec<String>) {
    let (mut list, warnings) = read_jsonl::<Observation>(text, |o| &o.id);
    for o in &mut list {
        apply_moves(&o.id, &mut o.place, moves);
    }
    (list, warnings)
}

/// Hand moves of `moves.jsonl`.
pub fn read_moves(text: &str) -> (Vec<Move>, Vec<String>) {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        match serde_json::from_str::<Move>(line) {
            Ok(m) => out.push(m),
            Err(e) => warnings.push(format!("moves line {}: {e} — skipped", n + 1)),
        }
    }
    (out, warnings)
}

impl Insight {
    /// Reads and indexes `corpus`.
    pub fn new(corpus: &Corpus) -> Insight {
        let (moves, mut warnings) = read_moves(&corpus.moves);
        let (observations, w) = current_observations(&corpus.observations, &moves);
        warnings.extend(w.into_iter().map(|w| format!("observations {w}")));
        let (reflections, w) = read_jsonl::<Reflection>(&corpus.reflections, |r| &r.id);
        warnings.extend(w.into_iter().map(|w| format!("reflections {w}")));
        let mut docs = Vec::new();
        let mut texts = Vec::new();
        for o in observations {
            texts.push(terms(&format!(
                "{} {} {} {}",
                o.text,
                o.files.join(" "),
                o.tasks.join(" "),
                o.snippet.as_deref().unwrap_or("")
            )));
            docs.push(Doc {
                cite: o.id.clone(),
                kind: o.kind.word().to_string(),
                segment: o.place.segment.clone(),
                session: Some(o.session.clone()),
                line: o.text.clone(),
                snippet: o.snippet.clone().unwrap_or_else(|| o.text.clone()),
                files: o.files.clone(),
                at: o.at,
            });
        }
        for mut r in reflections {
            if let Some(m) = moves.iter().rev().find(|m| m.id == r.id) {
                r.segment = m.segment.clone();
            }
            let body = r.lines.join("\n");
            texts.push(terms(&format!(
                "{} {} {body}",
                r.segment,
                r.task.as_deref().unwrap_or("")
            )));
            docs.push(Doc {
                cite: r.id.clone(),
                kind: "reflection".to_string(),
                segment: r.segment.clone(),
                session: None,
                line: format!(
                    "{} ({}): {}",
                    r.segment,
                    r.task.as_deref().unwrap_or("no task"),
                    r.lines.first().map_or("", String::as_str)
                ),
                snippet: body,
                files: Vec::new(),
                at: None,
            });
        }
        if let Some(text) = &corpus.ledger {
            let parsed = ledger::parse(text);
            for d in ledger::current(&parsed) {
                let d = d.decision;
                let why = d.why.as_deref().unwrap_or("");
                texts.push(terms(&format!(
                    "{} {} {why} decision",
                    d.title,
                    d.detail.as_deref().unwrap_or("")
                )));
                docs.push(Doc {
                    cite: d.id.clone(),
                    kind: "decision".to_string(),
                    segment: super::route::GLOBAL.to_string(),
                    session: d.session.clone(),
                    line: format!("{}: {} — why: {why}", d.id, d.title),
                    snippet: format!("{}\nwhy: {why}", d.title),
                    files: Vec::new(),
                    at: None,
                });
            }
        }
        for h in &corpus.handoffs {
            texts.push(terms(&h.text));
            docs.push(Doc {
                cite: format!("handoff:{}", h.name),
                kind: "handoff".to_string(),
                segment: super::route::GLOBAL.to_string(),
                session: None,
                line: format!("handoff {}", h.name),
                snippet: h.text.chars().take(SNIP_CHARS).collect(),
                files: Vec::new(),
                at: None,
            });
        }
        Insight {
            index: Index::new(&texts),
            docs,
            warnings,
        }
    }

    /// The documents, in index order.
    pub fn docs(&self) -> &[Doc] {
        &self.docs
    }

    /// Ranked documents for `question` (restricted to `segment` when given).
    pub fn retrieve(&self, question: &str, segment: Option<&str>) -> Vec<(usize, f64)> {
        let q = terms(question);
        let weights = kind_weights(&q);
        let docs = &self.docs;
        self.index
            .rank(&q, |d| {
                let doc = &docs[d];
                let w = weights.get(doc.kind.as_str()).copied().unwrap_or(1.0);
                // A handoff repeats what the artifacts say: it ranks after them.
                if doc.kind == "handoff" {
                    w * 0.5
                } else {
                    w
                }
            })
            .into_iter()
            .filter(|(d, _)| segment.is_none_or(|s| docs[*d].segment == s))
            .collect()
    }

    /// The answer to `question` in `mode` (`brief`, `refs`, `snips`).
    pub fn ask(&self, question: &str, mode: &str, segment: Option<&str>) -> Answer {
        let ranked = self.retrieve(question, segment);
        let top = ranked.first().map_or(0.0, |r| r.1);
        let relevant: Vec<(usize, f64)> = ranked
            .into_iter()
            .filter(|r| r.1 >= top * 0.2)
            .take(12)
            .collect();
        let mut text = match mode {
            "refs" => self.refs(&relevant),
            "snips" => self.snips(&relevant),
            _ => self.brief(&relevant),
        };
        if relevant.is_empty() {
            text = "(nothing in the project's Mind matches; try other words, or run `nso mind ingest`)\n".to_string();
        }
        if text.len() > MAX_CHARS {
            let mut cut = MAX_CHARS;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(text[..cut].rfind('\n').map_or(cut, |n| n + 1));
        }
        Answer {
            question: question.to_string(),
            mode: if matches!(mode, "refs" | "snips") {
                mode.to_string()
            } else {
                "brief".to_string()
            },
            text,
            hits: relevant
                .iter()
                .take(10)
                .map(|&(d, s)| Hit {
                    doc: self.docs[d].clone(),
                    score: (s * 1000.0).round() / 1000.0,
                })
                .collect(),
            warnings: self.warnings.clone(),
        }
    }

    fn files(&self, relevant: &[(usize, f64)]) -> Vec<String> {
        let mut files: BTreeMap<&str, f64> = BTreeMap::new();
        for &(d, s) in relevant {
            for f in &self.docs[d].files {
                *files.entry(f).or_default() += s;
            }
        }
        let mut ranked: Vec<_> = files.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        ranked.into_iter().map(|(f, _)| f.to_string()).collect()
    }

    fn brief(&self, relevant: &[(usize, f64)]) -> String {
        let mut out = String::new();
        for &(d, _) in relevant.iter().take(BRIEF_LINES) {
            let doc = &self.docs[d];
            let cite = format!(" [{}]", doc.cite);
            let room = WIDTH.saturating_sub(cite.chars().count() + 2);
            out.push_str(&format!("- {}{cite}\n", clip(&doc.line, room)));
        }
        let files = self.files(relevant);
        if !files.is_empty() {
            let list: Vec<&str> = files.iter().take(5).map(String::as_str).collect();
            out.push_str(&clip(&format!("- read next: {}", list.join(", ")), WIDTH));
            out.push('\n');
        }
        out
    }

    fn refs(&self, relevant: &[(usize, f64)]) -> String {
        let mut lines = Vec::new();
        for &(d, _) in relevant.iter().take(10) {
            let doc = &self.docs[d];
            lines.push(format!("{} {}", doc.kind, doc.cite));
        }
        for f in self.files(relevant).into_iter().take(5) {
            lines.push(format!("file {f}"));
        }
        lines.truncate(REFS_LINES);
        lines
            .into_iter()
            .map(|l| format!("{}\n", clip(&l, WIDTH)))
            .collect()
    }

    fn snips(&self, relevant: &[(usize, f64)]) -> String {
        let mut out = String::new();
        for &(d, _) in relevant.iter().take(SNIPS) {
            let doc = &self.docs[d];
            out.push_str(&format!(
                "[{}] {}\n",
                doc.cite,
                clip(&doc.line, WIDTH.saturating_sub(doc.cite.len() + 3))
            ));
            if doc.snippet == doc.line {
                continue;
            }
            let snippet: String = doc.snippet.chars().take(SNIP_CHARS).collect();
            for line in snippet.lines().filter(|l| !l.trim().is_empty()).take(6) {
                out.push_str(&format!("  > {}\n", clip(line, WIDTH - 4)));
            }
        }
        out
    }

    /// Lines for a handoff's mind layer: the reflections of `segments`, then the decisions,
    /// fixes, open errors and questions of those segments or `tasks` from sessions other than
    /// `except`, newest first; at most `limit`, each citing its artifact.
    pub fn handoff_lines(
        &self,
        segments: &[String],
        tasks: &[String],
        except: Option<&str>,
        limit: usize,
    ) -> Vec<String> {
        let wanted = |d: &Doc| segments.iter().any(|s| s == &d.segment);
        let mut out: Vec<String> = self
            .docs
            .iter()
            .filter(|d| {
                d.kind == "reflection"
                    && (wanted(d) || tasks.iter().any(|t| d.cite.ends_with(&format!("-{t}"))))
            })
            .map(|d| format!("- {} [{}]", clip(&d.line, 160), d.cite))
            .collect();
        let mut picked: Vec<&Doc> = self
            .docs
            .iter()
            .filter(|d| {
                matches!(
                    d.kind.as_str(),
                    "decision" | "fix" | "error" | "question" | "refusal"
                ) && d.session.is_some()
            })
            .filter(|d| d.session.as_deref() != except && (wanted(d) || d.kind == "decision"))
            .collect();
        picked.sort_by(|a, b| b.at.cmp(&a.at).then(a.cite.cmp(&b.cite)));
        out.extend(
            picked
                .into_iter()
                .map(|d| format!("- {}: {} [{}]", d.kind, clip(&d.line, 160), d.cite)),
        );
        out.truncate(limit);
        out
    }
}
