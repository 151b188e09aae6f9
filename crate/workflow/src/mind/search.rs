//! Full-text ranking (Okapi BM25, k1 = 1.2, b = 0.75) over Mind's documents. Terms are
//! lowercase words with a light suffix stemming; a path also gives its parts and its file
//! name without extension, so `login` finds `src/auth/login.ts`. A question's intent
//! (deciding, failing, files, refusals, status, questions, commands) weighs the kinds of
//! documents that answer it.

use std::collections::HashMap;

/// Words that say nothing about what is asked.
const STOP: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "is", "are", "was",
    "were", "be", "been", "it", "its", "this", "that", "these", "those", "what", "which", "who",
    "whom", "how", "when", "where", "do", "does", "did", "we", "i", "you", "our", "my", "me", "us",
    "should", "can", "could", "would", "will", "about", "from", "by", "at", "as", "any", "there",
    "have", "has", "had", "show", "tell", "next", "so", "far", "all", "not", "no", "into", "why",
    "read", "matter", "matters", "relevant", "snippet", "made",
];

/// `word` with a common English suffix taken off (`changes`, `changed`, `changing` → `chang`).
fn stem(word: &str) -> String {
    for suffix in [
        "ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "s", "e",
    ] {
        if let Some(base) = word.strip_suffix(suffix) {
            if base.chars().count() >= 3 {
                return base.to_string();
            }
        }
    }
    word.to_string()
}

/// The terms of `text`, in order, repeats kept.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for token in text.split(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '[' | ']' | '`' | '"' | '\'')
    }) {
        let token = token.trim_matches(|c: char| !c.is_alphanumeric());
        if token.is_empty() {
            continue;
        }
        let lower = token.to_lowercase();
        if lower.contains('/') {
            if let Some(name) = lower.rsplit('/').next() {
                if let Some((base, _)) = name.rsplit_once('.') {
                    out.push(base.to_string());
                }
            }
        }
        for word in lower.split(|c: char| !c.is_alphanumeric()) {
            if word.is_empty() || STOP.contains(&word) {
                continue;
            }
            out.push(stem(word));
        }
    }
    out
}

/// An inverted index over documents given as term lists.
#[derive(Debug, Default)]
pub struct Index {
    postings: HashMap<String, Vec<(u32, u32)>>,
    lengths: Vec<u32>,
    average: f64,
}

impl Index {
    /// Indexes the documents' terms (document `i` is `docs[i]`).
    pub fn new(docs: &[Vec<String>]) -> Index {
        let mut postings: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut lengths = Vec::with_capacity(docs.len());
        for (i, terms) in docs.iter().enumerate() {
            let mut tf: HashMap<&str, u32> = HashMap::new();
            for t in terms {
                *tf.entry(t.as_str()).or_default() += 1;
            }
            let mut tf: Vec<_> = tf.into_iter().collect();
            tf.sort_unstable();
            for (t, n) in tf {
                postings
                    .entry(t.to_string())
                    .or_default()
                    .push((i as u32, n));
            }
            lengths.push(terms.len() as u32);
        }
        let average = if lengths.is_empty() {
            1.0
        } else {
            lengths.iter().map(|&l| l as f64).sum::<f64>() / lengths.len() as f64
        };
        Index {
            postings,
            lengths,
            average: average.max(1.0),
        }
    }

    /// BM25 scores of the documents matching some of `query`'s terms (`weight(doc)`
    /// multiplies each), best first, ties by document order.
    pub fn rank(&self, query: &[String], weight: impl Fn(usize) -> f64) -> Vec<(usize, f64)> {
        let n = self.lengths.len() as f64;
        let mut scores: HashMap<u32, f64> = HashMap::new();
        let mut seen = Vec::new();
        for term in query {
            if seen.contains(&term) {
                continue;
            }
            seen.push(term);
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let df = list.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(doc, tf) in list {
                let len = self.lengths[doc as usize] as f64;
                let tf = tf as f64;
                let s = idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / self.average));
                *scores.entry(doc).or_default() += s;
            }
        }
        let mut out: Vec<(usize, f64)> = scores
            .into_iter()
            .map(|(d, s)| (d as usize, s * weight(d as usize)))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// One intent of a question: its trigger words, and the kinds it favours (×weight).
pub type Intent = (&'static [&'static str], &'static [(&'static str, f64)]);

/// What a question asks for.
pub const INTENTS: &[Intent] = &[
    (
        &[
            "decid", "decision", "chose", "choos", "agre", "why", "reason",
        ],
        &[("decision", 2.5), ("reflection", 1.3)],
    ),
    (
        &[
            "fail", "error", "broke", "break", "fix", "bug", "crash", "resolv",
        ],
        &[("fix", 2.0), ("error", 1.8)],
    ),
    (
        &["file", "chang", "touch", "edit", "modifi", "where", "code"],
        &[("change", 1.6), ("reflection", 1.2)],
    ),
    (
        &["refus", "block", "deni", "allow", "forbid", "permission"],
        &[("refusal", 2.5)],
    ),
    (
        &["status", "done", "complet", "progress", "finish", "mov"],
        &[("status", 2.0)],
    ),
    (
        &["ask", "question", "answer", "clarifi"],
        &[("question", 2.2)],
    ),
    (
        &["test", "build", "command", "run", "lint"],
        &[("command", 1.6), ("fix", 1.3)],
    ),
];

/// The weight of each document kind for `query`'s terms (1 for kinds no intent favours).
pub fn kind_weights(query: &[String]) -> HashMap<&'static str, f64> {
    let mut w: HashMap<&'static str, f64> = HashMap::new();
    for (triggers, kinds) in INTENTS {
        if query
            .iter()
            .any(|t| triggers.iter().any(|g| t.starts_with(g)))
        {
            for (kind, f) in kinds.iter() {
                let e = w.entry(kind).or_insert(1.0);
                *e = e.max(*f);
            }
        }
    }
    w
}
