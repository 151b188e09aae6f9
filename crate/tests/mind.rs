//! Mind: observations from hand-made lanes (expected texts written by hand), sessions kept
//! apart, chunking, revisions that supersede, routing, Insight's bounds, and the parsers
//! under random damage (no panic, every bad line counted).

mod mind_lanes;
mod rng;

use mind_lanes::{bash, edit, lane, text};

use nso::continuity::events::from_lane;
use nso::continuity::redact::Redactor;
use nso::mind::distill::{distill, Kept};
use nso::mind::insight::{Corpus, Insight, MAX_CHARS, WIDTH};
use nso::mind::observe::observe;
use nso::mind::route::place;
use nso::mind::{Kind, MindSettings, Observation};
use rng::Rng;
use serde_json::json;
use std::collections::HashMap;

fn observations(lane_text: &str, settings: &MindSettings) -> Vec<Observation> {
    let n = from_lane(lane_text);
    n.sessions
        .iter()
        .flat_map(|s| observe(s, Some("/p"), settings))
        .collect()
}

fn texts(list: &[Observation], kind: Kind) -> Vec<String> {
    list.iter()
        .filter(|o| o.kind == kind)
        .map(|o| o.text.clone())
        .collect()
}

#[test]
fn a_failing_command_that_passes_later_is_a_fix_naming_the_files_between() {
    let l = lane(&[
        ("ses_1", "user", text("make the tests pass")),
        (
            "ses_1",
            "assistant",
            bash("npm test", "FAIL x\nTypeError: boom", 1),
        ),
        ("ses_1", "assistant", text("Guard the null token.")),
        ("ses_1", "assistant", edit("/p/src/a.ts")),
        ("ses_1", "assistant", bash("npm  test", "ok", 0)),
    ]);
    let list = observations(&l, &MindSettings::default());
    assert_eq!(
        texts(&list, Kind::Fix),
        ["`npm test` failed (TypeError: boom) and passed after changes to src/a.ts"]
    );
    assert_eq!(
        texts(&list, Kind::Change),
        ["changed src/a.ts (1 edit, edit): Guard the null token."]
    );
    assert_eq!(texts(&list, Kind::Task), ["asked: make the tests pass"]);
    let fix = list.iter().find(|o| o.kind == Kind::Fix).unwrap();
    assert_eq!(fix.events, [1, 4], "the failure and the pass are cited");
    assert!(texts(&list, Kind::Error).is_empty());
}

#[test]
fn refusals_questions_decisions_and_status_moves() {
    let l = lane(&[
        ("ses_1", "user", text("go")),
        (
            "ses_1",
            "assistant",
            json!({"type":"tool","tool":"edit","callID":"c","state":{"status":"error","input":{"filePath":"/p/.opencode/nso.json"},"error":"Error: NSO blocked edit of .opencode/nso.json: config is the person's."}}),
        ),
        ("ses_1", "assistant", edit("/p/src/config.ts")),
        ("ses_1", "assistant", text("Should we keep guest checkout?")),
        ("ses_1", "user", text("Yes, keep it.")),
        (
            "ses_1",
            "assistant",
            json!({"type":"tool","tool":"nso_decide","callID":"c","state":{"status":"completed","input":{"decision":"Keep guest checkout","why":"fewer drop-outs"},"output":"Recorded D-0001."}}),
        ),
        (
            "ses_1",
            "assistant",
            json!({"type":"tool","tool":"nso_status_set","callID":"c","state":{"status":"completed","input":{"task":7,"status":"COMPLETED"},"output":"moved"}}),
        ),
    ]);
    let list = observations(&l, &MindSettings::default());
    assert_eq!(
        texts(&list, Kind::Refusal),
        ["refused edit .opencode/nso.json: NSO blocked edit of .opencode/nso.json: config is the person's.; then edit src/config.ts"]
    );
    assert_eq!(
        texts(&list, Kind::Question),
        ["asked: Should we keep guest checkout? — answer: Yes, keep it."]
    );
    assert_eq!(
        texts(&list, Kind::Decision),
        ["decided: Keep guest checkout — why: fewer drop-outs"]
    );
    assert_eq!(texts(&list, Kind::Status), ["task 7 moved to COMPLETED"]);
}

#[test]
fn two_sessions_in_one_lane_never_mix() {
    let l = lane(&[
        ("ses_a", "assistant", bash("make check", "error: x", 1)),
        ("ses_b", "assistant", bash("make check", "ok", 0)),
    ]);
    let list = observations(&l, &MindSettings::default());
    assert!(
        texts(&list, Kind::Fix).is_empty(),
        "a pass in another session fixes nothing"
    );
    assert_eq!(texts(&list, Kind::Error).len(), 1);
    assert_eq!(
        list.iter().find(|o| o.kind == Kind::Error).unwrap().session,
        "ses_a"
    );
    assert_eq!(
        list.iter()
            .find(|o| o.kind == Kind::Command)
            .unwrap()
            .session,
        "ses_b"
    );
}

#[test]
fn a_long_session_is_read_in_chunks() {
    let mut steps = vec![("ses_1", "user", text("start"))];
    for _ in 0..25 {
        steps.push(("ses_1", "assistant", edit("/p/src/a.ts")));
    }
    let settings = MindSettings {
        chunk_events: 10,
        ..MindSettings::default()
    };
    let list = observations(&lane(&steps), &settings);
    let changes: Vec<_> = list.iter().filter(|o| o.kind == Kind::Change).collect();
    assert_eq!(changes.len(), 3, "26 events in chunks of 10");
    assert_eq!(
        changes.iter().map(|o| o.chunk).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    assert!(changes
        .iter()
        .all(|o| o.events.iter().all(|&e| e / 10 == o.chunk)));
}

#[test]
fn the_same_lane_gives_the_same_records_and_a_longer_one_supersedes() {
    let mut steps = vec![
        ("ses_1", "user", text("fix it")),
        (
            "ses_1",
            "assistant",
            bash("cargo test", "error[E0425]", 101),
        ),
    ];
    let settings = MindSettings::default();
    let first = distill(
        &lane(&steps),
        false,
        Some("/p"),
        &settings,
        &HashMap::new(),
        &Redactor::default(),
    );
    let again = distill(
        &lane(&steps),
        false,
        Some("/p"),
        &settings,
        &HashMap::new(),
        &Redactor::default(),
    );
    assert_eq!(
        serde_json::to_string(&first.append).unwrap(),
        serde_json::to_string(&again.append).unwrap()
    );
    let known: HashMap<String, Kept> = first
        .append
        .iter()
        .map(|o| {
            (
                o.id.clone(),
                Kept {
                    rev: o.rev.clone(),
                    basis: None,
                },
            )
        })
        .collect();
    assert!(
        distill(
            &lane(&steps),
            false,
            Some("/p"),
            &settings,
            &known,
            &Redactor::default()
        )
        .append
        .is_empty(),
        "nothing is appended twice"
    );
    steps.push(("ses_1", "assistant", edit("/p/src/lib.rs")));
    steps.push(("ses_1", "assistant", bash("cargo test", "ok", 0)));
    let grown = distill(
        &lane(&steps),
        false,
        Some("/p"),
        &settings,
        &known,
        &Redactor::default(),
    );
    let fix = grown
        .append
        .iter()
        .find(|o| o.kind == Kind::Fix)
        .expect("the error became a fix");
    let error = first.append.iter().find(|o| o.kind == Kind::Error).unwrap();
    assert_eq!(fix.id, error.id);
    assert_eq!(
        fix.supersedes.as_deref(),
        Some(format!("{}@{}", error.id, error.rev).as_str())
    );
}

#[test]
fn routing_by_tasks_paths_and_keywords() {
    let settings = MindSettings::from_json(&json!({"segments":{
        "auth":{"paths":["src/auth/**"],"keywords":["login"]},
        "pay":{"paths":["src/pay/**"],"tasks":["todo:14"]}}}))
    .unwrap();
    let mk = |files: &[&str], tasks: &[&str], text: &str| Observation {
        files: files.iter().map(|s| s.to_string()).collect(),
        tasks: tasks.iter().map(|s| s.to_string()).collect(),
        text: text.to_string(),
        ..Observation::default()
    };
    let p = place(&mk(&["src/auth/a.ts"], &[], "x"), &settings.segments);
    assert_eq!((p.segment.as_str(), p.confidence), ("auth", 100));
    let p = place(
        &mk(&["src/auth/a.ts"], &["todo:14 worked_on"], "x"),
        &settings.segments,
    );
    assert_eq!(
        (p.segment.as_str(), p.also.clone(), p.confidence),
        ("pay", vec!["auth".to_string()], 60)
    );
    assert_eq!(
        place(&mk(&[], &[], "the login page"), &settings.segments).segment,
        "auth"
    );
    assert_eq!(
        place(&mk(&[], &[], "a decision"), &settings.segments).segment,
        "global"
    );
    assert_eq!(
        place(&mk(&["lib/x.rs"], &[], "x"), &settings.segments).segment,
        "uncertain"
    );
    let tie = place(
        &mk(&["src/auth/a.ts", "src/pay/b.ts"], &[], "x"),
        &settings.segments,
    );
    assert_eq!((tie.segment.as_str(), tie.also.len()), ("uncertain", 2));
    for bad in [
        json!({"segments":{"global":{}}}),
        json!({"segments":{"a":{"paths":"x"}}}),
        json!({"chunkEvents":0}),
        json!({"segmnts":{}}),
    ] {
        assert!(MindSettings::from_json(&bad).is_err(), "{bad}");
    }
}

#[test]
fn every_answer_is_bounded_and_cites_every_line() {
    let mut obs = String::new();
    for i in 0..500 {
        let o = Observation {
            id: format!("ses_1/cmd-{i}"),
            session: "ses_1".into(),
            kind: Kind::Fix,
            text: format!(
                "`npm test` failed (token {i} {}) and passed",
                "very long words ".repeat(40)
            ),
            snippet: Some("line\n".repeat(200)),
            files: vec![format!("src/f{i}.ts")],
            ..Observation::default()
        };
        obs += &serde_json::to_string(&o).unwrap();
        obs.push('\n');
    }
    let insight = Insight::new(&Corpus {
        observations: obs,
        ..Corpus::default()
    });
    for mode in ["brief", "refs", "snips"] {
        let a = insight.ask("why did npm test fail for the token?", mode, None);
        assert!(a.text.len() <= MAX_CHARS, "{mode}");
        assert!(a.text.lines().count() <= 36, "{mode}");
        for line in a.text.lines() {
            assert!(line.chars().count() <= WIDTH, "{mode}: {line}");
        }
        if mode == "brief" {
            assert!(
                a.text
                    .lines()
                    .all(|l| l.contains("[ses_1/") || l.starts_with("- read next:")),
                "{}",
                a.text
            );
        }
    }
    assert!(insight.ask("zebra", "brief", None).text.contains("nothing"));
}

#[test]
fn damaged_lanes_and_artifacts_never_panic_and_are_counted() {
    let base = lane(&[
        ("ses_1", "user", text("go")),
        ("ses_1", "assistant", bash("npm test", "FAIL", 1)),
        ("ses_1", "assistant", edit("/p/src/a.ts")),
        ("ses_1", "assistant", bash("npm test", "ok", 0)),
    ]);
    let mut rng = Rng(0x5eed_0042);
    let settings = MindSettings::default();
    for _ in 0..300 {
        let mut bytes = base.clone().into_bytes();
        for _ in 0..rng.below(6) + 1 {
            if bytes.is_empty() {
                break;
            }
            let i = rng.below(bytes.len());
            match rng.below(3) {
                0 => bytes[i] = b"{}[]\",:\n x"[rng.below(10)],
                1 => bytes.truncate(i),
                _ => bytes.insert(i, b'"'),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let d = distill(
            &text,
            false,
            Some("/p"),
            &settings,
            &HashMap::new(),
            &Redactor::default(),
        );
        let out = serde_json::to_string(&d.append).unwrap();
        let _ = distill(
            &text,
            true,
            None,
            &settings,
            &HashMap::new(),
            &Redactor::default(),
        );
        let insight = Insight::new(&Corpus {
            observations: text.to_string(),
            reflections: out.clone(),
            moves: text.to_string(),
            ledger: Some(text.to_string()),
            ..Corpus::default()
        });
        let _ = insight.ask("npm test", "snips", None);
    }
    let torn = format!("{base}{{\"v\":1,\"kind\":\"part\",\"part\":{{\"id\"");
    let d = distill(
        &torn,
        false,
        Some("/p"),
        &settings,
        &HashMap::new(),
        &Redactor::default(),
    );
    assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
    assert!(d.warnings[0].starts_with("line 7"), "{:?}", d.warnings);
}

#[test]
fn the_overview_shows_each_segments_open_questions_and_latest_reflections() {
    let steps = vec![
        ("ses_1", "user", text("make the login work")),
        ("ses_1", "assistant", edit("/p/src/auth/login.ts")),
        (
            "ses_1",
            "assistant",
            text("Should the cookie be SameSite=Strict?"),
        ),
        ("ses_2", "user", text("tidy the docs")),
        ("ses_2", "assistant", text("Which style guide applies?")),
        ("ses_2", "user", text("Ours.")),
    ];
    let settings = MindSettings::from_json(&json!({
        "segments": {"auth": {"paths": ["src/auth/**"], "keywords": ["login", "cookie"]}},
        "reflectAfter": 1
    }))
    .unwrap();
    let d = distill(
        &lane(&steps),
        false,
        Some("/p"),
        &settings,
        &HashMap::new(),
        &Redactor::default(),
    );
    let observations: String = d
        .append
        .iter()
        .map(|o| serde_json::to_string(o).unwrap() + "\n")
        .collect();
    let reflections: String = nso::mind::reflect::reflect(&d.append, &settings)
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
    let corpus = Corpus {
        observations,
        reflections,
        ..Corpus::default()
    };
    let view = nso::mind::overview::overview(&corpus, 5);
    let auth = view
        .segments
        .iter()
        .find(|s| s.name == "auth")
        .expect("auth segment");
    let questions: Vec<_> = auth
        .questions
        .iter()
        .map(|q| (q.text.as_str(), q.session.as_str()))
        .collect();
    assert_eq!(
        questions,
        [("Should the cookie be SameSite=Strict?", "ses_1")],
        "the answered question is not open"
    );
    assert!(
        !auth.reflections.is_empty()
            && auth.reflections.iter().all(|r| r.id.starts_with("r-auth-"))
    );
    assert!(view
        .segments
        .iter()
        .all(|s| s.questions.iter().all(|q| !q.text.contains("style guide"))));
    let small = nso::mind::overview::overview(&corpus, 0);
    assert!(
        small
            .segments
            .iter()
            .all(|s| s.questions.is_empty() && s.reflections.is_empty()),
        "bounded"
    );
}
