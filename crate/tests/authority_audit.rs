//! Audit mode: `mode: "audit"` on the policy or on one rule. Nothing audited is refused; the
//! decision says what would have been refused, by which rule, with the message the agent
//! would have read. An enforced refusal still wins over an audited one in the same call.

mod common;

use common::*;
use nso::authority::Verdict;
use serde_json::json;

fn kord_with(extra: serde_json::Value) -> nso::authority::Engine {
    let mut config = json!({ "preset": "kord" });
    for (k, v) in extra.as_object().unwrap() {
        config[k] = v.clone();
    }
    engine_with(&config.to_string())
}

#[test]
fn policy_audit_lets_everything_run_and_keeps_the_refusal() {
    let enforce = engine("kord");
    let mut audit = kord_with(json!({ "mode": "audit" }));
    for r in [
        bash("dev", "git push origin main"),
        bash("dev", "cd sub && git push --force"),
        req(
            "plan",
            "write",
            json!({"filePath": "src/a.ts", "content": "x"}),
        ),
        req(
            "intruder",
            "write",
            json!({"filePath": "src/a.ts", "content": "x"}),
        ),
        bash("dev", "rm -rf docs"),
    ] {
        let e = enforce.evaluate(&r);
        assert_eq!(e.verdict, Verdict::Block, "{:?}", r.args);
        let a = decide(&mut audit, &r);
        assert_eq!(a.verdict, Verdict::Audit, "{:?}", r.args);
        assert_eq!(a.rule_id, e.rule_id, "the same rule");
        assert_eq!(
            a.message, e.message,
            "the message the agent would have read"
        );
        // Audited calls are not counted as repeated refusals.
        assert_eq!(decide(&mut audit, &r).repeats, 0);
    }
    // Allowed calls stay plain allows.
    let ok = bash("devops", "git push origin main");
    assert_eq!(decide(&mut audit, &ok).verdict, Verdict::Allow);
}

#[test]
fn a_rule_in_audit_mode_audits_only_its_own_refusals() {
    let config = json!({
        "rules": [{
            "id": "team.no_push", "agents": ["devops"], "git": ["push"], "effect": "block", "mode": "audit",
            "reason": "pushes wait for the release train"
        }]
    });
    let mut e = kord_with(config);
    let push = decide(&mut e, &bash("devops", "git push origin main"));
    assert_eq!(
        (push.verdict, push.rule_id.as_str()),
        (Verdict::Audit, "team.no_push")
    );
    assert!(push.message.unwrap().contains("release train"));
    // @dev's push is refused by kord's own (enforced) rule.
    let dev = decide(&mut e, &bash("dev", "git push origin main"));
    assert_eq!(dev.verdict, Verdict::Block);
    // One call, two refusals: the enforced one decides and is the one reported.
    let both = decide(
        &mut e,
        &bash("devops", "git push origin main && rm -rf docs"),
    );
    assert_eq!(both.verdict, Verdict::Block);
    assert_ne!(both.rule_id, "team.no_push");
    let audited_op = both
        .operations
        .iter()
        .find(|o| o.rule_id == "team.no_push")
        .unwrap();
    assert_eq!(audited_op.verdict, Verdict::Audit);
}

#[test]
fn mode_is_validated() {
    let bad = nso::authority::Policy::from_config_json(r#"{"mode": "log"}"#, ".opencode/nso.json");
    let errors = bad.unwrap_err();
    assert!(errors.0.iter().any(|e| e.path == "mode"), "{errors:?}");
    let bad_rule = nso::authority::Policy::from_config_json(
        r#"{"rules": [{"id": "x", "agents": ["*"], "paths": ["a"], "effect": "block", "mode": "quiet"}]}"#,
        ".opencode/nso.json",
    );
    assert!(bad_rule
        .unwrap_err()
        .0
        .iter()
        .any(|e| e.path.ends_with("mode")));
}
