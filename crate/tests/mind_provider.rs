//! Mind's optional providers: the settings, the pass's input (redacted with the project's
//! rules, bounded), and the merge of an answer, which may reword records but never change what
//! they cite; a refused answer leaves the deterministic record.

mod mind_lanes;

use mind_lanes::{bash, lane, text};
use nso::continuity::redact::Redactor;
use nso::mind::distill::{distill, Kept};
use nso::mind::provider::{refine_observations, refine_reflection};
use nso::mind::reflect::Reflection;
use nso::mind::{Kind, MindSettings};
use serde_json::json;
use std::collections::HashMap;

fn settings(provider: serde_json::Value) -> MindSettings {
    MindSettings::from_json(&json!({ "provider": provider })).expect("valid settings")
}

fn with_provider() -> MindSettings {
    settings(
        json!({"name": "local-model", "command": ["refine"], "maxInputBytes": 4096, "maxOutputBytes": 512}),
    )
}

fn steps() -> Vec<(&'static str, &'static str, serde_json::Value)> {
    vec![
        (
            "ses_1",
            "user",
            text("make the login work; the db password=hunter22 is in .env"),
        ),
        (
            "ses_1",
            "assistant",
            bash("cargo test", "error[E0425]: cannot find value", 101),
        ),
    ]
}

#[test]
fn the_provider_is_off_by_default_and_its_settings_are_checked() {
    assert_eq!(MindSettings::default().provider, None);
    let d = distill(
        &lane(&steps()),
        false,
        None,
        &MindSettings::default(),
        &HashMap::new(),
        &Redactor::default(),
    );
    assert!(d.passes.is_empty(), "no provider, no passes");
    let p = with_provider().provider.unwrap();
    assert_eq!(
        (p.name.as_str(), p.timeout_ms, p.observations, p.reflections),
        ("local-model", 30_000, true, true)
    );
    for (bad, path) in [
        (json!({"name": "x"}), "provider"),
        (json!({"name": "x", "command": []}), "provider.command"),
        (
            json!({"name": "deterministic", "command": ["a"]}),
            "provider.name",
        ),
        (
            json!({"name": "x", "command": ["a"], "timeoutMs": 5}),
            "provider.timeoutMs",
        ),
        (
            json!({"name": "x", "command": ["a"], "passes": ["dreams"]}),
            "provider.passes",
        ),
        (
            json!({"name": "x", "command": ["a"], "model": "big"}),
            "provider.model",
        ),
    ] {
        let e = MindSettings::from_json(&json!({ "provider": bad })).unwrap_err();
        assert_eq!(e.path, path, "{e:?}");
    }
}

#[test]
fn a_pass_input_is_redacted_with_the_projects_rules_and_bounded() {
    let mut s = steps();
    s.push((
        "ses_1",
        "assistant",
        text("I will use the token ACME-abcdef123456 from the vault"),
    ));
    let redactor = Redactor::new(&["ACME-".to_string()], &[]);
    let d = distill(
        &lane(&s),
        false,
        Some("/p"),
        &with_provider(),
        &HashMap::new(),
        &redactor,
    );
    assert_eq!(d.passes.len(), 1, "one chunk, one pass");
    let pass = &d.passes[0];
    let input = pass.pass.input.as_deref().expect("fits the budget");
    assert!(
        !input.contains("hunter22") && !input.contains("abcdef123456"),
        "{input}"
    );
    assert!(input.contains("[REDACTED]"));
    let v: serde_json::Value = serde_json::from_str(input).unwrap();
    assert_eq!(v["pass"], "observations");
    assert_eq!(v["events"].as_array().unwrap().len(), 3);
    assert_eq!(pass.ids.len(), d.append.len());
    let small = settings(json!({"name": "m", "command": ["r"], "maxInputBytes": 1024}));
    let mut long = steps();
    for n in 0..20 {
        long.push((
            "ses_1",
            "assistant",
            text(&format!("step {n}: {}", "words ".repeat(60))),
        ));
    }
    let d = distill(
        &lane(&long),
        false,
        None,
        &small,
        &HashMap::new(),
        &redactor,
    );
    assert!(
        d.passes[0].pass.input.is_none() && d.passes[0].pass.bytes > 1024,
        "over budget: not sent"
    );
}

#[test]
fn an_answer_rewords_records_but_keeps_their_citations_and_names_its_producer() {
    let s = with_provider();
    let p = s.provider.clone().unwrap();
    let d = distill(
        &lane(&steps()),
        false,
        None,
        &s,
        &HashMap::new(),
        &Redactor::default(),
    );
    let task = d
        .append
        .iter()
        .find(|o| o.kind == Kind::Task)
        .unwrap()
        .clone();
    let answer = json!({"observations": [{"id": task.id, "text": "task: get login working (secret=opensesame1)", "files": ["x"], "events": [99]}]}).to_string();
    let out = refine_observations(&d.append, &answer, &Redactor::default(), &p).unwrap();
    let refined = out.iter().find(|o| o.id == task.id).unwrap();
    assert_eq!(refined.text, "task: get login working (secret=[REDACTED])");
    assert_eq!(
        (refined.producer.as_str(), refined.basis.as_deref()),
        ("local-model", Some(task.rev.as_str()))
    );
    assert_eq!(
        (&refined.events, &refined.files),
        (&task.events, &task.files),
        "citations stay"
    );
    assert_ne!(refined.rev, task.rev);
    let others: Vec<_> = out.iter().filter(|o| o.id != task.id).collect();
    assert!(others
        .iter()
        .all(|o| o.producer == "deterministic" && o.basis.is_none()));

    // Kept as refined, the same lane appends nothing; a grown one supersedes the refined rev.
    let known: HashMap<String, Kept> = out
        .iter()
        .map(|o| {
            (
                o.id.clone(),
                Kept {
                    rev: o.rev.clone(),
                    basis: o.basis.clone(),
                },
            )
        })
        .collect();
    assert!(distill(
        &lane(&steps()),
        false,
        None,
        &s,
        &known,
        &Redactor::default()
    )
    .append
    .is_empty());

    for bad in [
        "not json".to_string(),
        json!({"lines": []}).to_string(),
        json!({"observations": [{"id": "o-elsewhere", "text": "x"}]}).to_string(),
        json!({"observations": [{"id": task.id, "text": 7}]}).to_string(),
        // over maxOutputBytes (512)
        json!({"observations": [{"id": task.id, "text": "y".repeat(600)}]}).to_string(),
    ] {
        assert!(
            refine_observations(&d.append, &bad, &Redactor::default(), &p).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn a_refined_reflection_cites_only_what_it_merged() {
    let p = with_provider().provider.unwrap();
    let r = Reflection {
        v: 1,
        id: "r-auth-todo:1".into(),
        rev: "abc".into(),
        segment: "auth".into(),
        lines: vec!["fixed: cargo test [o-1]".into()],
        cites: vec!["o-1".into(), "o-2".into()],
        producer: "deterministic".into(),
        ..Reflection::default()
    };
    let good =
        json!({"lines": ["the login test passes since the session fix [o-1, o-2]"]}).to_string();
    let out = refine_reflection(&r, &good, &Redactor::default(), &p).unwrap();
    assert_eq!(
        out.lines,
        ["the login test passes since the session fix [o-1, o-2]"]
    );
    assert_eq!(
        (out.producer.as_str(), out.basis.as_deref()),
        ("local-model", Some("abc"))
    );
    for bad in [
        json!({"lines": ["no citation here"]}),
        json!({"lines": ["cites what it did not merge [o-9]"]}),
        json!({"lines": []}),
        json!({"text": "x"}),
    ] {
        assert!(
            refine_reflection(&r, &bad.to_string(), &Redactor::default(), &p).is_err(),
            "{bad}"
        );
    }
}
