//! "Who may" in a refusal's message is kept per operation (`authority/who_may.rs`): an
//! engine that has answered it before gives the message an engine asked for the first time
//! gives, for every corpus command and file operation, and a new policy asks again.

mod common;

use common::*;
use nso::authority::{Engine, Policy, Request};

/// Decides `r` with `warm` (which keeps its "who may" answers across calls) and with an
/// engine new for this call: the same decision. Returns whether it was a refusal.
fn same_as_new(warm: &Engine, policy: &Policy, r: &Request) -> bool {
    let new = Engine::new(policy.clone()).evaluate(r);
    let kept = warm.evaluate(r);
    assert_eq!(kept, new, "{r:?}");
    kept.message
        .as_deref()
        .is_some_and(|m| m.contains("Who may"))
}

#[test]
fn kept_answers_are_the_new_ones_on_every_corpus_command() {
    let mut refused = 0;
    for &(preset, agents) in PRESET_AGENTS {
        let policy = Policy::preset(preset).expect("preset");
        let warm = Engine::new(policy.clone());
        // Twice: the second round asks nothing new.
        for _ in 0..2 {
            for command in corpus_commands() {
                for agent in agents {
                    let r = answered(&warm, bash(agent, &command));
                    refused += usize::from(same_as_new(&warm, &policy, &r));
                }
            }
        }
    }
    assert!(refused > 1000, "{refused} refusals naming who may");
}

#[test]
fn kept_answers_are_the_new_ones_on_file_operations() {
    let policy = Policy::preset("kord").expect("kord");
    let warm = Engine::new(policy.clone());
    let mut refused = 0;
    for _ in 0..2 {
        for agent in ["dev", "qa", "plan", "build", "nobody"] {
            for path in [
                "src/app.ts",
                "docs/kord/plans/p.md",
                "TODO.md",
                ".opencode/nso.json",
                "/etc/passwd",
                "../x.ts",
            ] {
                for op in ["read", "write", "create", "delete"] {
                    refused +=
                        usize::from(same_as_new(&warm, &policy, &op_request(agent, op, path)));
                }
                // A write of a file whose existence is known, and one whose is not.
                let write = req(
                    agent,
                    "write",
                    serde_json::json!({ "filePath": path, "content": "x\n" }),
                );
                same_as_new(&warm, &policy, &answered(&warm, write.clone()));
                same_as_new(&warm, &policy, &write);
            }
        }
    }
    assert!(refused > 20, "{refused} refusals naming who may");
}

#[test]
fn a_new_policy_asks_again() {
    let base = r#"{"preset": "kord"}"#;
    let more = r#"{"preset": "kord", "rules": [{"id": "acme.devops.src", "agents": ["devops"], "ops": ["write", "create"], "paths": ["src/**"], "effect": "allow"}]}"#;
    let mut e = engine_with(base);
    let r = op_request("qa", "write", "src/app.ts");
    let before = e.evaluate(&r).message.expect("refused");
    assert!(before.contains("Who may: @dev"), "{before}");
    assert!(!before.contains("@devops"), "{before}");
    e.set_policy(Policy::from_config_json(more, ".opencode/nso.json").expect("config"));
    let after = e.evaluate(&r).message.expect("refused");
    assert!(after.contains("@devops"), "{after}");
}
