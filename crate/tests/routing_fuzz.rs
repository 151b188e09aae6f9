//! Deterministic pseudo-random inputs (xorshift64*, fixed seed) for every parser: nothing may
//! panic, whatever parses renders with the default template, and the render parses again
//! (exact round trips are checked on generated structs in tests/property.rs; arbitrary
//! fragments can put Markdown syntax into plain-text fields, where it is not kept).

use nso::contracts::{contract, delegation, template};
use nso::documents::{frontmatter, markdown};
use nso::routing::{language, router};
use std::collections::BTreeMap;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const FRAGMENTS: &[&str] = &[
    "# ",
    "## ",
    "### ",
    "\n",
    "\n",
    "\n",
    "\r\n",
    "\r",
    "- ",
    "* ",
    "1. ",
    "- [ ] ",
    "- [x] ",
    "- [X] ",
    "  ",
    "    ",
    "\t",
    "|",
    "| a | b |\n|---|---|\n",
    "---",
    "...",
    ":",
    ": ",
    "**",
    "*",
    "_",
    "__",
    "`",
    "```",
    "```json\n",
    "~~~",
    ">",
    "<!--",
    "-->",
    "<b>",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "\"",
    "'",
    "\\",
    "Status",
    "status: ",
    "COMPLETE",
    "FAILED",
    "IN_PROGRESS",
    "Task Contract",
    "Task Result",
    "Task Status",
    "Questions",
    "Agent",
    "Workflow",
    "Objective",
    "Deliverables",
    "Validation",
    "Notes",
    "Success Criteria",
    "Context Files",
    "Completed",
    "Language",
    "**Language**: ",
    "258",
    "### 258. ",
    "routing:",
    "language_based: true",
    "default: ",
    "lean: ",
    "  lean: x\n",
    "#",
    " # c",
    "&a",
    "*a",
    "!!",
    "? ",
    "[a, b]",
    "|\n",
    "\"status\": \"completed\"",
    "\"artifacts\": [",
    "\"path\": \"a.md\"",
    "\"summary\": \"s\"",
    ",",
    "é",
    "✅",
    "🙂",
    "\u{0}",
    "\u{feff}",
    "\u{E000}",
    "\u{E002}",
    "{{",
    "}}",
    "{{x}}",
    "{{ task_id }}",
    "src/a.ts",
    "../x",
    "/abs",
    "fix",
    "build",
    "implement*",
    "review",
    "hello",
    "x",
    "word",
    " ",
    "0",
    "9999999999999999999999",
    "# Task Contract: t\n",
    "- Agent: a\n",
    "- Workflow: w\n",
    "## Objective\n",
    "| Agent | a |\n",
    "- Status: COMPLETE\n",
    "## Questions\n",
];

const SEEDS: &[&str] = &[
    include_str!("fixtures/seed_contract.md"),
    include_str!("fixtures/golden_contract.md"),
    include_str!("fixtures/seed_status.md"),
    include_str!("fixtures/seed_result.md"),
    include_str!("fixtures/golden_questions.md"),
    include_str!("fixtures/seed_command_research.md"),
    include_str!("fixtures/seed_todo.md"),
    include_str!("fixtures/seed_return_implement.json"),
];

/// Half the cases: random fragments; the other half: a real file with a few fragments
/// inserted and a few byte ranges (at character boundaries) removed.
fn random_text(rng: &mut Rng) -> String {
    if rng.next() & 1 == 0 {
        let n = rng.below(60);
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(FRAGMENTS[rng.below(FRAGMENTS.len())]);
        }
        return s;
    }
    let mut s = SEEDS[rng.below(SEEDS.len())].to_string();
    for _ in 0..rng.below(4) {
        let mut at = rng.below(s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        if rng.next() & 1 == 0 {
            s.insert_str(at, FRAGMENTS[rng.below(FRAGMENTS.len())]);
        } else {
            let mut end = (at + 1 + rng.below(8)).min(s.len());
            while !s.is_char_boundary(end) {
                end += 1;
            }
            s.replace_range(at..end, "");
        }
    }
    s
}

#[test]
fn parsers_never_panic_and_round_trip() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let config = router::RoutingConfig::default();
    let router = router::Router::new(config.clone());
    let mut vars = template::Vars::new();
    vars.insert(
        "x".into(),
        template::TemplateValue::List(vec!["a\nb".into()]),
    );
    vars.insert("task_id".into(), template::TemplateValue::text("t"));
    let mut parsed = [0usize; 4];
    for case in 0..50_000 {
        let text = random_text(&mut rng);
        let doc = markdown::Document::parse(&text);
        let _ = markdown::fields(&doc.preamble);
        if let Ok(c) = contract::parse_contract(&text) {
            parsed[0] += 1;
            let rendered = contract::render_contract(&c, None).unwrap();
            assert!(
                contract::parse_contract(&rendered).is_ok(),
                "case {case}: {text:?}"
            );
        }
        if let Ok(s) = contract::parse_status(&text) {
            parsed[1] += 1;
            let rendered = contract::render_status(&s, None).unwrap();
            assert!(
                contract::parse_status(&rendered).is_ok(),
                "case {case}: {text:?}"
            );
        }
        if let Ok(r) = contract::parse_result(&text) {
            parsed[2] += 1;
            let rendered = contract::render_result(&r, None).unwrap();
            assert!(
                contract::parse_result(&rendered).is_ok(),
                "case {case}: {text:?}"
            );
        }
        if let Ok(q) = contract::parse_questions(&text) {
            parsed[3] += 1;
            let rendered = contract::render_questions(&q, None).unwrap();
            assert!(
                contract::parse_questions(&rendered).is_ok(),
                "case {case}: {text:?}"
            );
        }
        let _ = frontmatter::extract("f.md", &text);
        let _ = language::parse_command_routing("f.md", &text);
        let _ = language::detect_language(Some(&text), Some(&text), "258");
        let d = router.route(&text, "user", "oracle", &router::RouterState::default());
        if case % 100 == 0 {
            let slow = router::should_route(
                &text,
                "user",
                "oracle",
                &router::RouterState::default(),
                &config,
            );
            assert_eq!(d, slow);
        }
        let _ = template::render(&text, &vars);
        let _ = template::render_compact(&text, &vars);
        let _ = contract::validate_task_id(&text);
        let _ = delegation::required_paths(&text);
        let facts: BTreeMap<String, delegation::FileFact> = BTreeMap::new();
        let _ = delegation::validate_json_return(&text, &facts, Some("s"));
        let listing = delegation::TaskDirListing {
            has_questions: case % 2 == 0,
            questions_text: Some(text.clone()),
            has_result: true,
            result_text: Some(text.clone()),
        };
        let _ = delegation::check_delegation(&listing, &facts, (case % 5) as u32);
    }
    // The generator must reach the interesting paths, not only errors.
    assert!(parsed.iter().all(|&n| n > 20), "{parsed:?}");
}

#[test]
fn yaml_lines_never_panic() {
    let mut rng = Rng(42);
    const LINES: &[&str] = &[
        "routing:",
        "  language_based: true",
        "  language_based: maybe",
        "  lean: a",
        "  default: b",
        "    deeper: c",
        "- item",
        "  - item",
        "name: \"q\\\"x\"",
        "k: 'it''s'",
        "k: \"\\u00e9\"",
        "k: \"\\uZZ\"",
        "\tk: v",
        "k: [a]",
        "k: |",
        "? k",
        "k: v # c",
        "  #c",
        "",
        "key",
        ":",
        "'k': v",
        "\"k\" v",
        "k: a: b",
        "  default:",
        "  lean:",
        "  - x: y",
        " odd: 1",
    ];
    for _ in 0..20_000 {
        let n = rng.below(12);
        let mut s = String::from("---\n");
        for _ in 0..n {
            s.push_str(LINES[rng.below(LINES.len())]);
            s.push('\n');
        }
        s.push_str("---\n");
        let _ = language::parse_command_routing("f.md", &s);
    }
}
