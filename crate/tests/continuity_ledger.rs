//! The decision ledger: hand-written fixtures (views, a hand-edited file read back), appends
//! that read back as written, the refusals, and random decisions and texts.

mod rng;

use nso::continuity::ledger::{
    self, append, current, parse, render_view, view, Appended, Decision, Ledger, NewDecision,
};
use rng::Rng;
use serde_json::Value;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../tests/fixtures/continuity/ledger/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn new(decision: &str, why: &str) -> NewDecision {
    NewDecision {
        decision: decision.to_string(),
        why: why.to_string(),
        agent: "planner".to_string(),
        session: Some("ses_abc".to_string()),
        supersedes: None,
        when_iso: "2026-11-23T12:00:00Z".to_string(),
    }
}

/// `text + append_text` reads as the old entries (but for the superseded mark) plus one.
fn appended(text: &str, entry: &NewDecision) -> (Appended, Ledger, Decision) {
    let before = parse(text);
    let out = append(text, entry).unwrap_or_else(|e| panic!("{e}"));
    let after = parse(&format!("{text}{}", out.append_text));
    assert_eq!(after.entries.len(), before.entries.len() + 1, "{text:?}");
    for (old, now) in before.entries.iter().zip(&after.entries) {
        let mut now = now.clone();
        if old.superseded_by.is_none() && now.superseded_by == Some(out.id.clone()) {
            now.superseded_by = None;
        }
        assert_eq!(old, &now);
    }
    let last = after.entries.last().cloned().unwrap_or_default();
    assert_eq!(last.id, out.id);
    assert!(!last.duplicate);
    (out, after, last)
}

#[test]
fn views_match_the_hand_written_fixtures() {
    for name in ["chains", "messy", "crlf", "truncated"] {
        let ledger = parse(&fixture(&format!("{name}.md")));
        let expected = fixture(&format!("{name}.current.txt"));
        assert_eq!(render_view(&ledger, false, None), expected, "{name}");
    }
    let chains = parse(&fixture("chains.md"));
    assert!(chains.warnings.is_empty(), "{:?}", chains.warnings);
    assert_eq!(render_view(&chains, true, None), fixture("chains.all.txt"));
    assert_eq!(
        render_view(&chains, false, Some(2)),
        fixture("chains.current-2.txt")
    );
    // A limit of 0 still shows one line.
    assert_eq!(render_view(&chains, false, Some(0)), "… +3 more\n");
}

#[test]
fn supersession_chains_leave_only_their_last_entry_current() {
    let ledger = parse(&fixture("chains.md"));
    let ids: Vec<&str> = current(&ledger)
        .iter()
        .map(|v| v.decision.id.as_str())
        .collect();
    assert_eq!(ids, ["D-0006", "D-0005", "D-0004"]);
    let all: Vec<(&str, Option<String>)> = view(&ledger, true)
        .into_iter()
        .map(|v| (v.decision.id.as_str(), v.superseded_by))
        .collect();
    assert_eq!(all[5], ("D-0001", Some("D-0002".to_string())));
    assert_eq!(all[4], ("D-0002", Some("D-0004".to_string())));
    let d4 = &ledger.entries[3];
    assert_eq!(
        d4.detail.as_deref(),
        Some("one database per team\nmigrations live in db/migrations")
    );
    let d2 = &ledger.entries[1];
    assert_eq!(
        d2.why.as_deref(),
        Some("several windows write at once; a JSON file loses updates\nmeasured: 3 lost claims in 200 concurrent writes")
    );
}

#[test]
fn a_hand_edited_ledger_reads_as_the_fixture_says() {
    let ledger = parse(&fixture("messy.md"));
    let got = serde_json::to_value(&ledger).unwrap();
    let expected: Value = serde_json::from_str(&fixture("messy.expected.json")).unwrap();
    assert_eq!(got, expected);
    assert_eq!(ledger.next_id(), "D-0008");
}

#[test]
fn crlf_reads_like_lf_and_appends_in_crlf() {
    let crlf = fixture("crlf.md");
    assert!(crlf.contains("\r\n"), "the fixture lost its CRLF line ends");
    let lf = crlf.replace("\r\n", "\n");
    assert_eq!(parse(&crlf), parse(&lf));
    let (out, _, last) = appended(&crlf, &new("Ship it", "it is ready"));
    assert_eq!(out.id, "D-0004");
    assert_eq!(
        out.append_text,
        "\r\n## D-0004 · Ship it\r\n- **When**: 2026-11-23T12:00:00Z\r\n- **Agent**: @planner\r\n\
         - **Session**: ses_abc\r\n- **Why**: it is ready\r\n"
    );
    assert_eq!(last.why.as_deref(), Some("it is ready"));
    let d2 = &parse(&crlf).entries[1];
    assert_eq!(
        d2.why.as_deref(),
        Some("latency matters more than size\n\nmeasured 19 -> 13 us per call")
    );
}

#[test]
fn a_truncated_last_entry_is_read_and_appended_after() {
    let text = fixture("truncated.md");
    let ledger = parse(&text);
    assert_eq!(ledger.entries.len(), 2);
    assert_eq!(ledger.entries[1].when.as_deref(), Some("2026-11-21T11:0"));
    let (out, _, _) = appended(&text, &new("Keep going", "it parses"));
    assert_eq!(out.id, "D-0003");
    assert!(out.append_text.starts_with("\n\n## D-0003 · Keep going\n"));
}

#[test]
fn the_first_entry_comes_with_the_header() {
    let expected =
        "# Decision ledger\n\nAppend-only: entries are never edited or removed; a later \
entry supersedes an earlier one. Add one with `nso decide` or the `nso_decide` tool.\n\n\
## D-0001 · Use PostgreSQL for the team claim store\n\
- **When**: 2026-11-23T12:00:00Z\n\
- **Agent**: @planner\n\
- **Session**: ses_abc\n\
- **Why**: teams already run it\n";
    for text in ["", "\n\n  \n"] {
        let (out, ledger, _) = appended(
            text,
            &new(
                "Use PostgreSQL for the team claim store",
                "teams already run it",
            ),
        );
        assert_eq!(out.id, "D-0001");
        assert_eq!(out.append_text, expected);
        assert!(ledger.warnings.is_empty(), "{:?}", ledger.warnings);
    }
}

#[test]
fn separation_depends_on_how_the_text_ends() {
    let entry = "## D-0002 · B\n- **When**: 2026-11-23T12:00:00Z\n- **Agent**: @planner\n\
                 - **Session**: ses_abc\n- **Why**: b\n";
    let base = "## D-0001 · A\n- **Why**: a";
    for (text, sep) in [
        (base.to_string(), "\n\n"),
        (format!("{base}\n"), "\n"),
        (format!("{base}\n\n"), ""),
        (format!("{base}\n  \n"), ""),
        (format!("{base}\n   "), "\n"),
    ] {
        let (out, _, _) = appended(&text, &new("B", "b"));
        assert_eq!(out.append_text, format!("{sep}{entry}"), "{text:?}");
    }
}

#[test]
fn multi_line_values_cannot_break_the_format() {
    let text = fixture("chains.md");
    let entry = NewDecision {
        decision: "  Use PostgreSQL 16 for the team claim store\r\nwith logical replication\n"
            .into(),
        why: "  16 has MERGE\n## D-0001 · not a heading\n```\n\n\tindented line  \n".into(),
        agent: "person (carol)".into(),
        session: None,
        supersedes: Some("d-4".into()),
        when_iso: "2026-11-26T09:00:00Z".into(),
    };
    let (out, ledger, last) = appended(&text, &entry);
    assert_eq!(
        out.append_text,
        "\n## D-0007 · Use PostgreSQL 16 for the team claim store\n\
         - **When**: 2026-11-26T09:00:00Z\n- **Agent**: person (carol)\n- **Session**: -\n\
         - **Supersedes**: D-0004\n- **Detail**: with logical replication\n\
         - **Why**: 16 has MERGE\n    ## D-0001 · not a heading\n    ```\n\n    \tindented line\n"
    );
    assert_eq!(last.title, "Use PostgreSQL 16 for the team claim store");
    assert_eq!(last.detail.as_deref(), Some("with logical replication"));
    assert_eq!(
        last.why.as_deref(),
        Some("16 has MERGE\n## D-0001 · not a heading\n```\n\n\tindented line")
    );
    assert_eq!(last.agent.as_deref(), Some("person (carol)"));
    assert_eq!(last.session, None);
    assert!(ledger.warnings.is_empty(), "{:?}", ledger.warnings);
    let ids: Vec<&str> = current(&ledger)
        .iter()
        .map(|v| v.decision.id.as_str())
        .collect();
    assert_eq!(ids, ["D-0007", "D-0006", "D-0005"]);
}

#[test]
fn an_unclosed_code_block_is_closed_before_the_entry() {
    let text =
        "# Decision ledger\n\n## D-0001 · A\n- **Why**: a\n\n````sh\n## D-0005 · in code\n```\n";
    let ledger = parse(text);
    assert_eq!(ledger.entries.len(), 1);
    assert!(ledger
        .warnings
        .iter()
        .any(|w| w.line == 6 && w.problem.contains("never closed")));
    let (out, _, last) = appended(text, &new("B", "b"));
    assert_eq!(out.id, "D-0002");
    assert!(out.append_text.starts_with("````\n\n## D-0002 · B\n"));
    assert_eq!(last.title, "B");
    // Without a final newline too.
    let (out, _, _) = appended(text.trim_end(), &new("B", "b"));
    assert!(out.append_text.starts_with("\n````\n\n## D-0002"));
}

#[test]
fn ids_grow_past_four_digits() {
    let text = "## D-9999 · Last four-digit one\n- **Why**: many\n";
    let (out, ledger, _) = appended(text, &new("Next", "more"));
    assert_eq!(out.id, "D-10000");
    assert_eq!(ledger.next_id(), "D-10001");
    assert_eq!(ledger::parse_id("D-10000"), Some(10_000));
    assert_eq!(ledger::parse_id("D-"), None);
    assert_eq!(ledger::parse_id("D-1234567890123456789"), None);
    assert_eq!(ledger::id_of(7), "D-0007");
}

fn refused(text: &str, entry: &NewDecision) -> ledger::LedgerError {
    match append(text, entry) {
        Ok(out) => panic!("accepted: {out:?}"),
        Err(e) => e,
    }
}

#[test]
fn bad_decisions_are_refused_with_a_code_and_a_fix() {
    let text = fixture("chains.md");
    assert_eq!(
        refused(&text, &new("  \n ", "w")).code,
        "ledger_empty_decision"
    );
    assert_eq!(refused(&text, &new("d", "\r\n")).code, "ledger_empty_why");
    let e = refused(&text, &new(&"x".repeat(2_001), "w"));
    assert_eq!(e.code, "ledger_too_long");
    assert!(
        e.message.contains("2001 characters") && e.message.contains("2000"),
        "{e}"
    );
    assert!(append(&text, &new(&"é".repeat(2_000), "w")).is_ok());
    let e = refused(&text, &new("d", &"y".repeat(4_001)));
    assert!(
        e.code == "ledger_too_long" && e.message.contains("4000"),
        "{e}"
    );

    let with = |s: &str| NewDecision {
        supersedes: Some(s.to_string()),
        ..new("d", "w")
    };
    let e = refused(&text, &with("7"));
    assert_eq!(e.code, "ledger_bad_supersedes");
    assert!(e.fix.contains("D-0007"));
    assert_eq!(refused(&text, &with("D-12x")).code, "ledger_bad_supersedes");
    let e = refused(&text, &with("D-0042"));
    assert_eq!(e.code, "ledger_unknown_supersedes");
    assert!(e.message.contains("D-0042"));
    let e = refused(&text, &with("D-2"));
    assert_eq!(e.code, "ledger_already_superseded");
    assert_eq!(
        e.message,
        "D-0002 is already superseded by D-0004; the current decision of its chain is D-0004."
    );
    let e = refused(&text, &with("D-0001"));
    assert_eq!(
        e.message,
        "D-0001 is already superseded by D-0002; the current decision of its chain is D-0004."
    );
    assert!(e.fix.contains("supersede D-0004"));
    assert!(append(&text, &with(" D-0005 ")).is_ok());
    assert!(append(&text, &with("")).is_ok());

    let mut bad = new("d", "w");
    bad.session = Some("ses a".into());
    assert_eq!(refused(&text, &bad).code, "ledger_bad_field");
    let mut bad = new("d", "w");
    bad.when_iso = " ".into();
    assert_eq!(refused(&text, &bad).code, "ledger_bad_field");
    let mut bad = new("d", "w");
    bad.agent = "a".repeat(201);
    assert_eq!(refused(&text, &bad).code, "ledger_bad_field");
    let e = refused(&text, &new("", "w"));
    assert!(e.to_string().starts_with("ledger_empty_decision: "));
}

#[test]
fn agents_are_written_with_an_at_sign() {
    for (given, written, read) in [
        ("build", "@build", "build"),
        ("@build", "@build", "build"),
        ("person", "person", "person"),
        ("person (alice)", "person (alice)", "person (alice)"),
        ("", "unknown", "unknown"),
        ("@", "unknown", "unknown"),
    ] {
        let mut entry = new("d", "w");
        entry.agent = given.to_string();
        let (out, _, last) = appended("", &entry);
        assert!(
            out.append_text
                .contains(&format!("- **Agent**: {written}\n")),
            "{given}"
        );
        assert_eq!(last.agent.as_deref(), Some(read));
    }
}

#[test]
fn entries_serialize_in_camel_case() {
    let ledger = parse(&fixture("chains.md"));
    let v = serde_json::to_value(view(&ledger, true)).unwrap();
    assert_eq!(v[5]["decision"]["id"], "D-0001");
    assert_eq!(v[5]["supersededBy"], "D-0002");
    assert_eq!(v[5]["decision"]["supersededBy"], "D-0002");
    assert_eq!(v[0]["decision"]["supersedes"], "D-0003");
    let input: NewDecision = serde_json::from_str(
        r#"{"decision":"d","why":"w","agent":"build","session":null,"supersedes":null,
            "whenIso":"2026-11-23T12:00:00Z"}"#,
    )
    .unwrap();
    let out = serde_json::to_value(append("", &input).unwrap()).unwrap();
    assert_eq!(out["id"], "D-0001");
    assert!(out["appendText"]
        .as_str()
        .unwrap()
        .contains("- **Session**: -\n"));
}

const PIECES: &[&str] = &[
    "word",
    "two words",
    "é",
    "—",
    "\u{a0}",
    "\t",
    "  ",
    "\n",
    "\n",
    "\r\n",
    "\r",
    "\n\n",
    "## D-0001 · heading",
    "# h",
    "```",
    "~~~~",
    "- **Why**: x",
    "* **When**: y",
    "    ",
    "D-0003",
    "**",
    ":",
    "·",
    "<!--",
    "\u{feff}",
    "\u{2028}",
    "x\u{0}y",
    "#",
];

fn random_text(rng: &mut Rng, max: usize) -> String {
    (0..rng.below(max) + 1).map(|_| *rng.pick(PIECES)).collect()
}

/// The stored form of a value, from the module's documentation.
fn stored(text: &str) -> String {
    let unified = text.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = unified.split('\n').map(str::trim_end).collect();
    lines.join("\n").trim().to_string()
}

#[test]
fn random_decisions_read_back_as_written() {
    let mut rng = Rng(0x5eed_1edc);
    let mut text = String::new();
    let agents = [
        "planner",
        "@build",
        "person",
        "person (bob)",
        "",
        " @ x  y ",
    ];
    for round in 0..400 {
        let mut entry = new(&random_text(&mut rng, 8), &random_text(&mut rng, 12));
        entry.agent = rng.pick(&agents).to_string();
        entry.session = rng.chance(50).then(|| format!("ses_{round}"));
        let before = parse(&text);
        if rng.chance(30) {
            if let Some(v) = current(&before).get(rng.below(3)) {
                entry.supersedes = Some(v.decision.id.clone());
            }
        }
        let decision = stored(&entry.decision);
        if decision.is_empty() || stored(&entry.why).is_empty() {
            assert!(append(&text, &entry).is_err());
            continue;
        }
        let (out, after, last) = appended(&text, &entry);
        let (title, detail) = match decision.split_once('\n') {
            Some((t, d)) => (t.to_string(), Some(d.trim().to_string())),
            None => (decision.clone(), None),
        };
        assert_eq!(last.title, title, "{entry:?}");
        assert_eq!(last.detail, detail.filter(|d| !d.is_empty()), "{entry:?}");
        assert_eq!(
            last.why.as_deref(),
            Some(stored(&entry.why).as_str()),
            "{entry:?}"
        );
        let agent = entry.agent.split_whitespace().collect::<Vec<_>>().join(" ");
        let agent = agent.strip_prefix('@').unwrap_or(&agent).trim().to_string();
        let agent = if agent.is_empty() {
            "unknown".to_string()
        } else {
            agent
        };
        assert_eq!(last.agent, Some(agent));
        assert_eq!(last.session, entry.session);
        assert_eq!(last.supersedes, entry.supersedes);
        assert_eq!(last.when.as_deref(), Some("2026-11-23T12:00:00Z"));
        assert!(after.warnings.is_empty(), "{:?}\n{text}", after.warnings);
        text.push_str(&out.append_text);
    }
    assert!(parse(&text).entries.len() > 300);
}

#[test]
fn random_texts_never_panic_and_still_take_an_entry() {
    let mut rng = Rng(0xdec1_5105);
    for _ in 0..3_000 {
        let text = random_text(&mut rng, 40);
        let ledger = parse(&text);
        let _ = render_view(&ledger, rng.chance(50), Some(rng.below(5)));
        appended(&text, &new("After garbage", "it still reads"));
    }
}
