//! Runs `tests/bash_policy_cases.tsv` (agent, command, verdict, rule) against the kord preset.

mod common;

use common::*;
use nso::authority::Verdict;

struct Case {
    line: usize,
    agent: String,
    command: String,
    verdict: String,
    rule: String,
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.clone().next() {
                Some('n') => {
                    chars.next();
                    out.push('\n');
                }
                Some('t') => {
                    chars.next();
                    out.push('\t');
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn cases() -> Vec<Case> {
    include_str!("bash_policy_cases.tsv")
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 4, "line {}: {l:?}", i + 1);
            assert!(
                ["allow", "soft", "block"].contains(&cols[2]),
                "line {}",
                i + 1
            );
            Case {
                line: i + 1,
                agent: cols[0].to_string(),
                command: unescape(cols[1]),
                verdict: cols[2].to_string(),
                rule: cols[3].to_string(),
            }
        })
        .collect()
}

#[test]
fn tsv_is_well_formed() {
    let c = cases();
    assert!(c.len() >= 60, "{}", c.len());
    let p = nso::authority::Policy::preset("kord").unwrap();
    for case in &c {
        assert!(
            p.resolve_agent(&case.agent).is_some(),
            "line {}: {}",
            case.line,
            case.agent
        );
    }
}

#[test]
fn bash_policy_cases() {
    let e = engine("kord");
    let mut failures = Vec::new();
    let all = cases();
    for c in &all {
        check_plain(&e, &bash(&c.agent, &c.command));
        let d = e.evaluate(&bash(&c.agent, &c.command));
        let got = match d.verdict {
            Verdict::Block => "block",
            Verdict::Soft => "soft",
            _ => "allow",
        };
        if got != c.verdict || d.rule_id != c.rule {
            failures.push(format!(
                "line {}: @{} {:?}: want {} {}, got {} {}",
                c.line, c.agent, c.command, c.verdict, c.rule, got, d.rule_id
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}/{} cases fail:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}
