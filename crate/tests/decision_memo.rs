//! The engine's memory of recent decisions (`Engine::answer`, `Engine::answer`):
//! a call answered from memory gets exactly the answer deciding it again gives, repeat counts
//! and messages included; what depends on more than the policy and the call is never
//! remembered; and a new policy forgets everything.

mod common;

use common::*;
use nso::authority::{Engine, Policy, Request};

/// Decides `r` three times with `memo` (remembered the second time, answered from memory the
/// third) and with `reference` through the full decision, which remembers nothing: the same
/// answers, repeats counted alike. Returns how many of the three were refusals.
fn same_answers(memo: &mut Engine, reference: &mut Engine, r: &Request) -> usize {
    let mut refused = 0;
    for _ in 0..3 {
        let full = reference.decide(r);
        let expected = Some(full).filter(|d| !d.is_plain());
        let got = memo.answer(r).expect("every lookup answered");
        assert_eq!(got, expected, "{r:?}");
        refused += usize::from(got.is_some_and(|d| d.message.is_some()));
    }
    refused
}

#[test]
fn answers_from_memory_are_the_decisions_on_every_corpus_command() {
    let mut refused = 0;
    for &(preset, agents) in PRESET_AGENTS {
        let (mut memo, mut reference) = (engine(preset), engine(preset));
        for command in corpus_commands() {
            for agent in agents {
                let r = answered(&memo, bash(agent, &command));
                refused += same_answers(&mut memo, &mut reference, &r);
            }
        }
    }
    // Refusals answered from memory still count their repeats ("already refused").
    assert!(refused > 1000, "{refused} refusals");
}

#[test]
fn answers_from_memory_are_the_decisions_on_file_operations() {
    let (mut memo, mut reference) = (engine("kord"), engine("kord"));
    for agent in ["dev", "qa", "plan", "nobody"] {
        for path in [
            "src/app.ts",
            "docs/kord/plans/p.md",
            ".opencode/nso.json",
            "/etc/passwd",
            "../x.ts",
        ] {
            let read = answered(
                &memo,
                req(agent, "read", serde_json::json!({ "filePath": path })),
            );
            same_answers(&mut memo, &mut reference, &read);
            let write = req(
                agent,
                "write",
                serde_json::json!({ "filePath": path, "content": "x\n" }),
            );
            let write = answered(&memo, write);
            same_answers(&mut memo, &mut reference, &write);
        }
    }
}

#[test]
fn a_call_that_looked_up_other_paths_is_a_different_call() {
    let mut e = engine("kord");
    let r = answered(&e, bash("dev", "echo x > src/out.txt"));
    for _ in 0..3 {
        assert_eq!(e.answer(&r), Ok(None));
    }
    // The same command, but src/out.txt turned out to be a link out of the project.
    let mut moved = r.clone();
    for real in moved.resolved.values_mut() {
        *real = "/etc/out.txt".to_string();
    }
    moved = answered(&e, moved);
    let d = e.answer(&moved).expect("answered").expect("refused");
    assert!(
        d.message.unwrap_or_default().contains("outside"),
        "a link out is refused"
    );
}

/// Answers every status change with `allowed`, counting the questions.
#[derive(Debug)]
struct CountingOracle {
    asked: std::cell::Cell<u32>,
}

impl nso::authority::StatusOracle for CountingOracle {
    fn check(&self, _: &nso::authority::StatusQuery) -> nso::authority::StatusAnswer {
        self.asked.set(self.asked.get() + 1);
        nso::authority::StatusAnswer {
            allowed: true,
            machine: Some("flow".to_string()),
            builtin: false,
            detail: "checked".to_string(),
        }
    }
}

#[test]
fn a_decision_that_asked_the_status_machines_is_not_remembered() {
    let mut e = engine("nso");
    e.set_status_scope(&["**/status.md".to_string()]);
    let oracle = std::rc::Rc::new(CountingOracle {
        asked: std::cell::Cell::new(0),
    });
    e.set_status_oracle(oracle.clone());
    // Without file contents, so only the oracle keeps it from being remembered.
    let mut r = edit("build", "t/status.md", "Status: A", "Status: B");
    let path = abs("t/status.md");
    r.resolved.insert(path.clone(), path.clone());
    r.exists.insert(path.clone(), true);
    r.contents.insert(path, Some("Status: A\n".to_string()));
    for n in 1..=3 {
        assert_eq!(e.answer(&r), Ok(None));
        assert_eq!(oracle.asked.get(), n, "asked again every time");
    }
}

#[test]
fn an_unrecorded_agents_refusal_names_its_own_session_every_time() {
    let mut e = engine("kord");
    let mut r = answered(
        &e,
        req(
            "",
            "write",
            serde_json::json!({ "filePath": "src/a.ts", "content": "x" }),
        ),
    );
    for session in ["ses_one", "ses_two", "ses_one", "ses_two", "ses_three"] {
        r.session_id = session.to_string();
        let message = e
            .answer(&r)
            .expect("answered")
            .expect("refused")
            .message
            .unwrap_or_default();
        assert!(message.contains(session), "{session}: {message}");
    }
}

#[test]
fn a_new_policy_forgets_what_was_remembered() {
    let mut e = engine("kord");
    let push = bash("devops", "git push origin main");
    for _ in 0..3 {
        assert_eq!(e.answer(&push), Ok(None));
    }
    // No agent is called devops in the nso preset: an unknown agent may only read.
    e.set_policy(Policy::preset("nso").expect("nso"));
    let d = e.answer(&push).expect("answered").expect("refused");
    assert!(d
        .message
        .unwrap_or_default()
        .contains("not an agent of this policy"));
}
