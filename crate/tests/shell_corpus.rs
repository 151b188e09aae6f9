//! Runs `tests/shell_corpus.tsv`: every command's analysis, rendered with
//! `shell::summary`, must equal the hand-written expectation.

use nso::shell::{analyze, summary};

struct Case {
    line: usize,
    command: String,
    expected: String,
    category: String,
}

fn cases() -> Vec<Case> {
    let text = include_str!("shell_corpus.tsv");
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        // Comment lines start with `#` and have no TAB; a case's command may start with `#`.
        if line.trim().is_empty() || (line.starts_with('#') && !line.contains('\t')) {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            cols.len(),
            3,
            "line {}: expected 3 columns: {line:?}",
            i + 1
        );
        out.push(Case {
            line: i + 1,
            command: cols[0].replace('↵', "\n").replace('⇥', "\t"),
            expected: cols[1].to_string(),
            category: cols[2].to_string(),
        });
    }
    out
}

#[test]
fn corpus_matches() {
    let cases = cases();
    let mut failures = Vec::new();
    for c in &cases {
        let got = summary(&analyze(&c.command));
        if got != c.expected {
            failures.push(format!(
                "line {}: {:?}\n    expected: {}\n    got:      {}",
                c.line, c.command, c.expected, got
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_is_large_and_categorised() {
    let cases = cases();
    assert!(cases.len() >= 220, "only {} cases", cases.len());
    for cat in ["block", "allow", "lookalike"] {
        let n = cases.iter().filter(|c| c.category == cat).count();
        assert!(n >= 20, "category {cat} has only {n} cases");
    }
    assert!(cases
        .iter()
        .all(|c| matches!(c.category.as_str(), "block" | "allow" | "lookalike")));
}

/// Lookalikes and harmless commands must never produce a push, delete or opaque step.
#[test]
fn lookalikes_have_no_dangerous_steps() {
    for c in cases().iter().filter(|c| c.category != "block") {
        let s = summary(&analyze(&c.command));
        for bad in ["git:push", "delete:", "opaque:", "history_rewrite", "pr_"] {
            assert!(!s.contains(bad), "line {}: {:?} -> {s}", c.line, c.command);
        }
    }
}
