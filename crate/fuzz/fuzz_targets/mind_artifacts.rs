//! `cargo +nightly fuzz run mind_artifacts`: reading Mind's artifacts (observations,
//! reflections, hand moves, settings) never panics, whatever the files hold, and every answer
//! stays within its bounds; a provider's answer to a reflection is merged or refused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nso::continuity::redact::Redactor;
use nso::mind::insight::{current_observations, read_moves, Corpus, Insight, MAX_CHARS};
use nso::mind::provider::refine_reflection;
use nso::mind::reflect::{reflect, Reflection};
use nso::mind::MindSettings;
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The input split into the three files (at form feeds), and whole as each of them.
    let mut parts = text.splitn(3, '\u{c}');
    let corpus = Corpus {
        observations: parts.next().unwrap_or("").to_string(),
        reflections: parts.next().unwrap_or(text).to_string(),
        moves: parts.next().unwrap_or(text).to_string(),
        ledger: Some(text.to_string()),
        handoffs: Vec::new(),
    };
    let whole = Corpus {
        observations: text.to_string(),
        reflections: text.to_string(),
        moves: text.to_string(),
        ..Corpus::default()
    };
    for c in [&corpus, &whole] {
        let insight = Insight::new(c);
        for mode in ["brief", "refs", "snips"] {
            let answer = insight.ask(text.get(..200).unwrap_or("login"), mode, None);
            assert!(answer.text.chars().count() <= MAX_CHARS, "answers are bounded");
        }
        let _ = insight.handoff_lines(&["auth".to_string()], &["todo:1".to_string()], None, 5);
        let _ = nso::mind::overview::overview(c, 3);
        let (moves, _) = read_moves(&c.moves);
        let (current, _) = current_observations(&c.observations, &moves);
        let _ = reflect(&current, &MindSettings::default());
    }
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        let _ = MindSettings::from_json(&value);
        let _ = MindSettings::from_json(&json!({ "provider": value }));
    }
    let settings = MindSettings::from_json(&json!({"provider": {"name": "fuzz", "command": ["x"]}})).unwrap();
    let r = Reflection {
        id: "r-auth-todo:1".into(),
        lines: vec!["fixed: x [o-1]".into()],
        cites: vec!["o-1".into(), "o-2".into()],
        ..Reflection::default()
    };
    let _ = refine_reflection(&r, text, &Redactor::default(), settings.provider.as_ref().unwrap());
});
