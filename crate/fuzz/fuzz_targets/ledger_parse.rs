//! `cargo +nightly fuzz run ledger_parse`: the ledger reader, its views, the append and a
//! handoff over the ledger never panic; an accepted append reads back as the old entries plus
//! the new one; the handoff stays within its budget.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nso::continuity::handoff::{compose, Budget, HandoffInput};
use nso::continuity::ledger::{append, current, parse, render_view, NewDecision};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ledger = parse(text);
    let _ = render_view(&ledger, true, Some(5));
    let _ = render_view(&ledger, false, None);
    // The input also gives the decision: its last line is the why, the rest the decision.
    let (decision, why) = text.rsplit_once('\n').unwrap_or((text, "because"));
    let supersedes = current(&ledger).first().map(|v| v.decision.id.clone());
    for (d, w, s) in [
        ("A decision", "a reason", None),
        (decision, why, None),
        ("Supersede", "newer", supersedes),
    ] {
        let new = NewDecision {
            decision: d.into(),
            why: w.into(),
            agent: "fuzz".into(),
            session: None,
            supersedes: s,
            when_iso: "2026-11-23T12:00:00Z".into(),
        };
        if let Ok(out) = append(text, &new) {
            let after = parse(&format!("{text}{}", out.append_text));
            assert_eq!(after.entries.len(), ledger.entries.len() + 1);
            for (old, now) in ledger.entries.iter().zip(&after.entries) {
                assert_eq!(
                    (&old.id, &old.title, &old.why),
                    (&now.id, &now.title, &now.why)
                );
                assert_eq!((&old.notes, &old.detail), (&now.notes, &now.detail));
            }
            assert_eq!(after.entries.last().map(|e| &e.id), Some(&out.id));
        }
    }
    let input = HandoffInput {
        ledger: Some(text.to_string()),
        task: Some(text.to_string()),
        budget: Budget {
            lines: data.len() % 50,
            width: data.len() % 200,
        },
        ..HandoffInput::default()
    };
    let h = compose(&input);
    assert!(h.lines <= input.budget.lines.max(10));
    assert!(h
        .text
        .lines()
        .all(|l| l.chars().count() <= input.budget.width.max(40)));
});
