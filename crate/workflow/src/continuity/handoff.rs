//! Handoffs (seed 001 "Handoff Generator"): what a new context window needs to go on, within
//! a budget of lines and characters per line, in a fixed precedence of three layers:
//!
//! 1. `mem`, the decisions: the ledger's current view, newest first, one line each;
//! 2. `stm`, this session: task, status, claims held, files changed, tasks touched, the last
//!    ask, open questions, refusals (in that order);
//! 3. `mind`, the project: what Mind learned about the session's segments and tasks (as
//!    given), each memory file's first meaningful lines, then the recent sessions' one-line
//!    digests (as given, newest first).
//!
//! The text is Markdown: a first line (`## NSO handoff · session ses_abc · @build`, or
//! `## NSO handoff · project` without a session), then per layer a `###` heading and its
//! lines. Every layer always gets its heading and at least one line: content, or a marker in
//! parentheses saying what is missing.
//!
//! Allocation of the body lines `B = lines - 4` (the first line and three headings): each
//! layer is reserved `min(items, 2)` lines; then, in precedence order, `mem` may grow to
//! `max(2, ⌊2B/5⌋)`, `stm` to the same, `mind` to what is left of `B` after those two caps;
//! lines still unused go to the layers in precedence order again. A layer given fewer lines
//! than it has items shows one item fewer and ends with `… +N more (nso handoff --expand)`
//! (`… +N more` when expanded). Lines are cut to `width` characters: `width - 1` characters,
//! trailing spaces dropped, then `…`. The budget is clamped to [`MIN_LINES`]..=[`MAX_LINES`]
//! lines and [`MIN_WIDTH`]..=[`MAX_WIDTH`] characters.
//!
//! Deterministic: no clock; times come in the input (epoch ms, shown as `2026-11-23 12:00Z`).
//! Work is bounded by the budget, not by the input: long texts are read only as far as a line
//! can show (the ledger is read whole).

mod layers;

use super::ledger::{self, NO_DECISIONS};
use super::SessionDigest;
use crate::session::MemoryFile;
use layers::{decision_line, mind_items, stm_items, title_line};
use serde::{Deserialize, Serialize};

/// Fewest lines of a handoff: the first line, and per layer a heading, an item and an
/// overflow line.
pub const MIN_LINES: usize = 10;
/// Most lines of a handoff.
pub const MAX_LINES: usize = 100_000;
/// Narrowest line, in characters.
pub const MIN_WIDTH: usize = 40;
/// Widest line, in characters.
pub const MAX_WIDTH: usize = 10_000;

/// The size of a handoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Budget {
    /// Most lines (default 40).
    pub lines: usize,
    /// Most characters per line (default 160).
    pub width: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            lines: 40,
            width: 160,
        }
    }
}

/// What a handoff is made of, as the shim gathers it (JSON, camelCase).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HandoffInput {
    /// The ledger's text (`None`: no ledger file).
    pub ledger: Option<String>,
    /// The session handed off (`None`: none).
    pub session: Option<SessionDigest>,
    /// The session's task as registered (first ask or contract); else the digest's task.
    pub task: Option<String>,
    /// The task's status (`IN_PROGRESS`, `blocked: …`).
    pub status: Option<String>,
    /// Claims held (`None`: unknown, the Conductor is off; empty: none held).
    pub claims: Option<Vec<String>>,
    /// The project's memory files (content `None`: missing).
    pub memory: Vec<MemoryFile>,
    /// Recent sessions' digests, newest first.
    pub recent: Vec<SessionDigest>,
    /// Lines from the project's Mind for this session's segments and tasks (each citing its
    /// artifact), shown first in the mind layer.
    pub mind: Vec<String>,
    /// The size (the caller passes the expanded size with `expand`).
    pub budget: Budget,
    /// Whether this is the expanded handoff (only the overflow wording changes).
    pub expand: bool,
}

/// How one layer fared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerStatus {
    /// `mem`, `stm` or `mind`.
    pub name: &'static str,
    /// `ok`, `missing` (nothing but markers) or `truncated` (items left out).
    pub status: &'static str,
    /// Items shown (markers included, the overflow line not).
    pub shown: usize,
    /// Items there were.
    pub total: usize,
}

/// A composed handoff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Handoff {
    /// The Markdown text, each line ending in `\n`.
    pub text: String,
    /// Its number of lines.
    pub lines: usize,
    /// Whether some layer left items out.
    pub truncated: bool,
    /// The layers, in precedence order.
    pub layers: Vec<LayerStatus>,
}

/// One line of a layer; a marker says something is missing.
#[derive(Clone)]
struct Item {
    text: String,
    content: bool,
}

impl Item {
    fn content(text: String) -> Item {
        Item {
            text,
            content: true,
        }
    }

    fn marker(text: impl Into<String>) -> Item {
        Item {
            text: text.into(),
            content: false,
        }
    }
}

/// Composes the handoff of `input` within its budget (see the module documentation).
pub fn compose(input: &HandoffInput) -> Handoff {
    let lines_budget = input.budget.lines.clamp(MIN_LINES, MAX_LINES);
    let width = input.budget.width.clamp(MIN_WIDTH, MAX_WIDTH);
    let parsed = input.ledger.as_deref().map(ledger::parse);
    let views = parsed.as_ref().map(ledger::current).unwrap_or_default();
    let stm = stm_items(input, width);
    let mind = mind_items(input, width);
    let totals = [views.len().max(1), stm.len(), mind.len()];
    let alloc = allocate(lines_budget - 4, totals);

    let mut out: Vec<String> = vec![title_line(input.session.as_ref())];
    let mut layers = Vec::with_capacity(3);
    let headings = [
        "### Decisions (current, newest first)",
        "### This session",
        "### Memory and recent sessions",
    ];
    for (i, name) in ["mem", "stm", "mind"].into_iter().enumerate() {
        let total = totals[i];
        let shown = if alloc[i] < total {
            alloc[i].saturating_sub(1)
        } else {
            total
        };
        out.push(headings[i].to_string());
        let items: Vec<Item> = match i {
            0 if views.is_empty() => vec![Item::marker(NO_DECISIONS)],
            0 => views[..shown]
                .iter()
                .map(|v| Item::content(decision_line(v.decision, width)))
                .collect(),
            1 => stm[..shown].to_vec(),
            _ => mind[..shown].to_vec(),
        };
        out.extend(items.iter().map(|item| item.text.clone()));
        // A layer is missing when it has nothing but markers, shown or not.
        let any_content = match i {
            0 => !views.is_empty(),
            1 => stm.iter().any(|t| t.content),
            _ => mind.iter().any(|t| t.content),
        };
        if shown < total {
            let hint = if input.expand {
                ""
            } else {
                " (nso handoff --expand)"
            };
            out.push(format!("… +{} more{hint}", total - shown));
        }
        let status = if !any_content {
            "missing"
        } else if shown < total {
            "truncated"
        } else {
            "ok"
        };
        layers.push(LayerStatus {
            name,
            status,
            shown: items.len(),
            total,
        });
    }
    let mut text = String::new();
    for line in &out {
        text.push_str(clip(line, width).trim_end());
        text.push('\n');
    }
    Handoff {
        text,
        lines: out.len(),
        truncated: layers.iter().any(|l| l.shown < l.total),
        layers,
    }
}

/// Renders epoch milliseconds as UTC to the minute: `2026-11-23 12:00Z`.
pub fn utc_minute(ms: i64) -> String {
    let iso = nso_conductor::clock::iso_millis(ms);
    format!("{} {}Z", &iso[..10], &iso[11..16])
}

/// Lines per layer for `body` lines and the layers' item counts (each at least 1).
fn allocate(body: usize, totals: [usize; 3]) -> [usize; 3] {
    let mut alloc = totals.map(|n| n.min(2));
    let mut left = body.saturating_sub(alloc.iter().sum());
    let share = (body * 2 / 5).max(2);
    let caps = [share, share, body.saturating_sub(2 * share).max(2)];
    for i in 0..3 {
        let more = totals[i].min(caps[i]).saturating_sub(alloc[i]).min(left);
        alloc[i] += more;
        left -= more;
    }
    for i in 0..3 {
        let more = (totals[i] - alloc[i]).min(left);
        alloc[i] += more;
        left -= more;
    }
    alloc
}

/// `text` on one line (whitespace and control runs become one space, trimmed), read only up
/// to `max + 1` characters so that a cut still shows.
fn flat(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    let mut gap = false;
    for c in text.chars() {
        if c.is_whitespace() || c.is_control() {
            gap = !out.is_empty();
            continue;
        }
        if n > max {
            break;
        }
        if gap {
            out.push(' ');
            n += 1;
            gap = false;
        }
        out.push(c);
        n += 1;
    }
    out
}

/// `line` cut to `width` characters with `…`.
fn clip(line: &str, width: usize) -> String {
    if line.chars().count() <= width {
        return line.to_string();
    }
    let keep: String = line.chars().take(width.saturating_sub(1)).collect();
    format!("{}…", keep.trim_end())
}
