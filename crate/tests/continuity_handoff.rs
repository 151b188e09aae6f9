//! Handoffs: hand-written golden cases, a huge input within budget and time, random inputs
//! and budgets that never exceed the budget, and the time format.

mod rng;

use nso::continuity::handoff::{compose, utc_minute, Budget, Handoff, HandoffInput};
use nso::continuity::{Refusal, Relation, SessionDigest, TaskLink};
use nso::session::MemoryFile;
use rng::Rng;
use serde_json::Value;
use std::time::Instant;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../tests/fixtures/continuity/handoff/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The budget rules every handoff keeps, whatever the input.
fn check_bounds(h: &Handoff, budget: Budget) {
    let lines = budget.lines.clamp(10, 100_000);
    let width = budget.width.clamp(40, 10_000);
    assert!(h.text.ends_with('\n'));
    let text_lines: Vec<&str> = h.text.lines().collect();
    assert_eq!(text_lines.len(), h.lines);
    assert_eq!(h.text.matches('\n').count(), h.lines);
    assert!(h.lines <= lines, "{} lines > {lines}", h.lines);
    for line in &text_lines {
        assert!(
            line.chars().count() <= width,
            "{} > {width}: {line}",
            line.chars().count()
        );
        assert!(!line.contains('\r'));
    }
    assert!(text_lines[0].starts_with("## NSO handoff · "));
    let headings: Vec<usize> = text_lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("### "))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(headings.len(), 3, "{}", h.text);
    // Every layer has at least one line under its heading.
    assert!(headings[1] > headings[0] + 1 && headings[2] > headings[1] + 1);
    assert!(text_lines.len() > headings[2] + 1);
    let names: Vec<&str> = h.layers.iter().map(|l| l.name).collect();
    assert_eq!(names, ["mem", "stm", "mind"]);
    for l in &h.layers {
        assert!(l.shown >= 1 && l.shown <= l.total, "{l:?}");
        assert_eq!(l.status == "truncated", l.shown < l.total, "{l:?}");
    }
    assert_eq!(h.truncated, h.layers.iter().any(|l| l.shown < l.total));
}

#[test]
fn golden_cases_match_the_hand_written_handoffs() {
    let cases: Value = serde_json::from_str(&fixture("cases.json")).unwrap();
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let mut input: Value =
            serde_json::from_str(&fixture(case["input"].as_str().unwrap())).unwrap();
        for key in ["budget", "expand"] {
            if let Some(v) = case.get(key) {
                input[key] = v.clone();
            }
        }
        let input: HandoffInput = serde_json::from_value(input).unwrap();
        let h = compose(&input);
        assert_eq!(
            h.text,
            fixture(case["expected"].as_str().unwrap()),
            "case {name}"
        );
        assert_eq!(
            h.truncated,
            case["truncated"].as_bool().unwrap(),
            "case {name}"
        );
        let layers = serde_json::to_value(&h.layers).unwrap();
        assert_eq!(layers, case["layers"], "case {name}");
        check_bounds(&h, input.budget);
        assert_eq!(compose(&input), h, "case {name}: not deterministic");
    }
}

#[test]
fn the_input_has_defaults_and_the_output_is_json() {
    let input: HandoffInput = serde_json::from_str("{}").unwrap();
    assert_eq!(
        input.budget,
        Budget {
            lines: 40,
            width: 160
        }
    );
    assert!(!input.expand && input.memory.is_empty() && input.claims.is_none());
    let partial: HandoffInput = serde_json::from_str(r#"{"budget":{"lines":12}}"#).unwrap();
    assert_eq!(
        partial.budget,
        Budget {
            lines: 12,
            width: 160
        }
    );
    let out = serde_json::to_value(compose(&input)).unwrap();
    assert_eq!(out["lines"], 7);
    assert_eq!(out["truncated"], false);
    assert_eq!(out["layers"][0]["status"], "missing");
}

#[test]
fn claims_unknown_and_none_are_told_apart() {
    let session = SessionDigest {
        session: "ses_1".into(),
        agent: Some("@build".into()),
        ..SessionDigest::default()
    };
    let mut input = HandoffInput {
        session: Some(session),
        ..HandoffInput::default()
    };
    let text = compose(&input).text;
    assert!(text.starts_with("## NSO handoff · session ses_1 · @build\n"));
    assert!(text.contains("\n(claims: unknown — the Conductor is off)\n"));
    input.claims = Some(vec![]);
    assert!(compose(&input).text.contains("\n(claims: none held)\n"));
}

/// 10,000 decisions, newest last, in the ledger's format.
fn big_ledger(n: usize) -> String {
    let mut text = String::from("# Decision ledger\n\n");
    for i in 1..=n {
        text.push_str(&format!(
            "## D-{i:04} · Decision number {i} about component {}\n- **When**: 2026-11-23T12:00:00Z\n\
             - **Agent**: @build\n- **Session**: ses_{i}\n- **Why**: reason {i}, {}\n\n",
            i % 97,
            "because ".repeat(i % 7)
        ));
    }
    text
}

/// A digest with every list long and every text `long`.
fn digest(i: usize, long: &str) -> SessionDigest {
    SessionDigest {
        session: format!("ses_{i:03}"),
        agent: Some(format!("agent{}", i % 5)),
        title: Some(format!("Session {i} {long}")),
        started: Some(1_795_435_200_000 + i as i64 * 60_000),
        ended: Some(1_795_439_459_000 + i as i64 * 60_000),
        tool_calls: i * 3,
        task: Some(long.to_string()),
        last_ask: Some(long.to_string()),
        open_questions: vec![long.to_string(); 20],
        files_changed: (0..500)
            .map(|f| format!("src/module_{f}/file_{i}.rs"))
            .collect(),
        refusals: (0..30)
            .map(|r| Refusal {
                tool: "edit".into(),
                message: format!("refused {r} {long}"),
                at: r,
            })
            .collect(),
        tasks: (0..40)
            .map(|t| TaskLink {
                task: format!("todo:{t}"),
                kind: "todo".into(),
                relation: Relation::WorkedOn,
                evidence: vec![],
            })
            .collect(),
        ..SessionDigest::default()
    }
}

fn huge_input() -> HandoffInput {
    let ask = (0..50_000)
        .map(|i| format!("line {i} of the ask\n"))
        .collect::<String>();
    let memory = "- a memory line that goes on and on\n".repeat(1_000_000 / 36);
    HandoffInput {
        ledger: Some(big_ledger(10_000)),
        session: Some(digest(0, &ask)),
        task: Some(ask.clone()),
        status: Some(ask.clone()),
        claims: Some((0..10_000).map(|c| format!("src/claimed_{c}/**")).collect()),
        mind: Vec::new(),
        memory: vec![
            MemoryFile {
                path: ".opencode/context/01_memory/active_context.md".into(),
                content: Some(memory),
            },
            MemoryFile {
                path: "blank.md".into(),
                content: Some("\n".repeat(1_000_000)),
            },
        ],
        recent: (1..=50)
            .map(|i| digest(i, &"a long title ".repeat(1_000)))
            .collect(),
        budget: Budget::default(),
        expand: false,
    }
}

#[test]
fn a_huge_input_stays_within_budget_and_fast() {
    let input = huge_input();
    let start = Instant::now();
    let h = compose(&input);
    let took = start.elapsed();
    println!(
        "handoff of 10,000 decisions + 1 MB memory + 50,000-line ask + 50 digests: {:.2} ms ({})",
        took.as_secs_f64() * 1e3,
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    );
    if !cfg!(debug_assertions) {
        assert!(took.as_millis() < 50, "{took:?}");
    }
    check_bounds(&h, input.budget);
    assert_eq!(h.lines, 40);
    // 36 body lines: mem and stm up to 14 each, mind the other 8.
    let shown: Vec<(usize, usize)> = h.layers.iter().map(|l| (l.shown, l.total)).collect();
    assert_eq!(shown, [(13, 10_000), (13, 56), (7, 52)]);
    let lines: Vec<&str> = h.text.lines().collect();
    assert!(
        lines[2].starts_with("- D-10000 · Decision number 10000 about component 9 — reason 10000")
    );
    assert!(lines[14].starts_with("- D-9988 · "));
    assert_eq!(lines[15], "… +9987 more (nso handoff --expand)");
    assert!(lines[17].starts_with("- task: line 0 of the ask line 1 of the ask"));
    assert!(lines[17].ends_with('…'));
    assert!(lines[19].starts_with("- claims held (10000): src/claimed_0/**, src/claimed_1/**"));
    assert_eq!(lines[30], "… +43 more (nso handoff --expand)");
    assert!(lines[32].starts_with(
        "- .opencode/context/01_memory/active_context.md: a memory line that goes on and on / a memory"
    ));
    assert_eq!(lines[33], "(memory file empty: blank.md)");
    assert!(lines[34].starts_with("- ses_001 · @agent1 · 2026-11-23 13:11Z · 3 tool calls · 500 files changed · tasks: todo:0 (worked on)"));
    assert_eq!(lines[39], "… +45 more (nso handoff --expand)");

    let mut expanded = input.clone();
    expanded.budget.lines = 400;
    expanded.expand = true;
    let e = compose(&expanded);
    check_bounds(&e, expanded.budget);
    assert_eq!(e.lines, 400);
    assert!(e
        .text
        .lines()
        .any(|l| l.starts_with("… +") && l.ends_with(" more")));
    assert!(!e.text.contains("--expand"));
}

const WORDS: &[&str] = &[
    "word",
    "é",
    "—",
    " ",
    "\n",
    "\r\n",
    "\t",
    "## D-0001 · x",
    "```",
    "- ",
    "#",
    "<!--",
    "-->",
    "---",
    "\u{0}",
    "\u{2028}",
    "a_long_path/with/segments.rs",
    "…",
];

fn text(rng: &mut Rng, max: usize) -> String {
    (0..rng.below(max)).map(|_| *rng.pick(WORDS)).collect()
}

fn opt_text(rng: &mut Rng, max: usize) -> Option<String> {
    rng.chance(70).then(|| text(rng, max))
}

fn random_digest(rng: &mut Rng) -> SessionDigest {
    let relations = [
        Relation::Mentioned,
        Relation::WorkedOn,
        Relation::Active,
        Relation::Completed,
    ];
    SessionDigest {
        session: text(rng, 4),
        agent: opt_text(rng, 3),
        title: opt_text(rng, 10),
        started: rng.chance(50).then(|| rng.next() as i64),
        ended: rng
            .chance(50)
            .then(|| (rng.next() % 4_000_000_000_000) as i64),
        tool_calls: rng.below(1000),
        task: opt_text(rng, 30),
        last_ask: opt_text(rng, 30),
        open_questions: (0..rng.below(4)).map(|_| text(rng, 10)).collect(),
        files_changed: (0..rng.below(30)).map(|_| text(rng, 5)).collect(),
        refusals: (0..rng.below(4))
            .map(|at| Refusal {
                tool: text(rng, 2),
                message: text(rng, 20),
                at,
            })
            .collect(),
        tasks: (0..rng.below(4))
            .map(|_| TaskLink {
                task: text(rng, 3),
                kind: "todo".into(),
                relation: *rng.pick(&relations),
                evidence: vec![],
            })
            .collect(),
        ..SessionDigest::default()
    }
}

fn random_ledger(rng: &mut Rng) -> String {
    let mut out = String::new();
    for i in 1..=rng.below(60) {
        out.push_str(&format!(
            "## D-{i:04} · {}\n- **Why**: {}\n",
            text(rng, 6),
            text(rng, 10)
        ));
        if rng.chance(30) {
            out.push_str(&format!("- **Supersedes**: D-{:04}\n", rng.below(i) + 1));
        }
        if rng.chance(10) {
            out.push_str(&text(rng, 10));
        }
    }
    out
}

#[test]
fn random_inputs_never_exceed_the_budget_and_are_deterministic() {
    let mut rng = Rng(0x4a4d_0ff5);
    for _ in 0..1_500 {
        let input = HandoffInput {
            ledger: rng.chance(80).then(|| random_ledger(&mut rng)),
            session: rng.chance(70).then(|| random_digest(&mut rng)),
            task: opt_text(&mut rng, 40),
            status: opt_text(&mut rng, 5),
            claims: rng
                .chance(70)
                .then(|| (0..rng.below(20)).map(|_| text(&mut rng, 4)).collect()),
            mind: (0..rng.below(6)).map(|_| text(&mut rng, 8)).collect(),
            memory: (0..rng.below(5))
                .map(|_| MemoryFile {
                    path: text(&mut rng, 4),
                    content: opt_text(&mut rng, 60),
                })
                .collect(),
            recent: (0..rng.below(12))
                .map(|_| random_digest(&mut rng))
                .collect(),
            budget: Budget {
                lines: *rng.pick(&[0, 1, 7, 9, 10, 11, 13, 17, 25, 40, 41, 80, 400]),
                width: *rng.pick(&[0, 1, 39, 40, 41, 60, 80, 160, 1000]),
            },
            expand: rng.chance(30),
        };
        let h = compose(&input);
        check_bounds(&h, input.budget);
        assert_eq!(compose(&input), h);
        if input.expand {
            assert!(!h.text.contains("--expand"));
        }
        // Unused lines are given away: a handoff is short only when everything is shown.
        if h.lines < input.budget.lines.clamp(10, 100_000) {
            assert!(!h.truncated, "{}", h.text);
        }
    }
}

#[test]
fn times_are_utc_to_the_minute() {
    assert_eq!(utc_minute(0), "1970-01-01 00:00Z");
    assert_eq!(utc_minute(1_795_367_142_000), "2026-11-22 17:05Z");
    assert_eq!(utc_minute(1_795_435_200_000), "2026-11-23 12:00Z");
    assert_eq!(utc_minute(951_782_400_000), "2000-02-29 00:00Z");
    assert_eq!(utc_minute(-60_000), "1969-12-31 23:59Z");
    assert_eq!(utc_minute(-1), "1969-12-31 23:59Z");
    // Extremes do not panic.
    let _ = utc_minute(i64::MIN);
    let _ = utc_minute(i64::MAX);
}
