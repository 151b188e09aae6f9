//! Views of the ledger: the current decisions (or all, superseded ones marked), newest
//! first, as entries or as text.

use super::{Ledger, View, NO_DECISIONS};

/// The decisions to show, newest (bottom of the file) first: the current ones, and with
/// `all` the superseded ones too.
pub fn view(ledger: &Ledger, all: bool) -> Vec<View<'_>> {
    ledger
        .entries
        .iter()
        .rev()
        .filter(|e| all || e.superseded_by.is_none())
        .map(|e| View {
            decision: e,
            superseded_by: e.superseded_by.clone(),
        })
        .collect()
}

/// The current decisions (not superseded), newest first.
pub fn current(ledger: &Ledger) -> Vec<View<'_>> {
    view(ledger, false)
}

/// The view as text, one line per decision:
/// `- D-0012 · title — why's first line (when, @agent)`, a superseded one (with `all`) ending
/// in ` (superseded by D-0013)`; a why of several lines ends in ` …`. With `max_lines`, at
/// most that many lines (at least one): the last shown line says `… +N more`. A last line
/// counts the ledger's warnings when there is room.
pub fn render_view(ledger: &Ledger, all: bool, max_lines: Option<usize>) -> String {
    let views = view(ledger, all);
    let max = max_lines.map_or(usize::MAX, |m| m.max(1));
    let mut lines: Vec<String> = Vec::new();
    if views.is_empty() {
        lines.push(NO_DECISIONS.to_string());
    } else {
        let shown = if views.len() > max {
            max - 1
        } else {
            views.len()
        };
        for v in &views[..shown] {
            lines.push(view_line(v));
        }
        if shown < views.len() {
            lines.push(format!("… +{} more", views.len() - shown));
        }
    }
    if let Some(w) = ledger.warnings.first() {
        if lines.len() < max {
            let n = ledger.warnings.len();
            let s = if n == 1 { "" } else { "s" };
            lines.push(format!(
                "(ledger: {n} warning{s}; first at line {}: {}; nso decisions --json lists all)",
                w.line, w.problem
            ));
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// `agent` as the ledger shows it: `@name` for an agent, as is for a person or `unknown`.
pub fn agent_display(agent: &str) -> String {
    if agent.contains(char::is_whitespace) || agent == "person" || agent == "unknown" {
        agent.to_string()
    } else {
        format!("@{agent}")
    }
}

fn view_line(v: &View<'_>) -> String {
    let d = v.decision;
    let mut line = format!("- {} · {}", d.id, d.title);
    if let Some(why) = &d.why {
        let (first, more) = match why.split_once('\n') {
            Some((f, _)) => (f, true),
            None => (why.as_str(), false),
        };
        line.push_str(" — ");
        line.push_str(first.trim());
        if more {
            line.push_str(" …");
        }
    }
    let meta: Vec<String> = [d.when.clone(), d.agent.as_deref().map(agent_display)]
        .into_iter()
        .flatten()
        .collect();
    if !meta.is_empty() {
        line.push_str(&format!(" ({})", meta.join(", ")));
    }
    if let Some(by) = &v.superseded_by {
        line.push_str(&format!(" (superseded by {by})"));
    }
    line
}
