//! Block messages, repeats, reminders, explain.

mod common;

use common::*;
use nso::authority::Verdict;
use serde_json::json;

fn assert_no_retry_invitation(m: &str) {
    let lower = m.to_lowercase();
    for bad in [
        "try again",
        "retry this",
        "please retry",
        "re-run the same",
        "run it again",
    ] {
        assert!(!lower.contains(bad), "message invites a retry: {m}");
    }
}

#[test]
fn push_message_matches_the_house_format() {
    let mut e = engine("kord");
    let d = e.decide(&bash("dev", "git push origin main"));
    assert_eq!(
        d.message.as_deref().unwrap(),
        "NSO blocked bash for @dev: \"git push origin main\" is a push. Rule kord.git.push (preset kord): only @devops may push. Who may: @devops. Instead: finish your task and leave the push to @devops. If the work needs this, ask the person."
    );
}

#[test]
fn every_block_names_agent_action_rule_source_who_and_instead() {
    let mut e = engine("kord");
    let cases = [
        op_request("build", "write", "src/app.ts"),
        op_request("plan", "create", "src/new.ts"),
        op_request("qa", "delete", "src/old.ts"),
        op_request("devops", "write", "src/app.ts"),
        op_request("dev", "write", "/etc/hosts"),
        op_request("dev", "write", ".opencode/nso.json"),
        op_request("ghost", "write", "src/a.ts"),
        bash("qa", "git commit -m 'about git push'"),
        bash("plan", "eval \"$CMD\""),
        bash("sm", "gh pr merge 3"),
    ];
    for r in cases {
        let d = e.decide(&r);
        assert_eq!(d.verdict, Verdict::Block, "{:?}", r.args);
        let m = d.message.unwrap();
        assert!(
            m.starts_with(&format!("NSO blocked {} for ", r.tool)),
            "{m}"
        );
        assert!(m.contains(&format!("Rule {} (", d.rule_id)), "{m}");
        assert!(m.contains(&d.rule_source), "{m}");
        assert!(m.contains("Instead: "), "{m}");
        if d.rule_id != "kord.outside_project" {
            assert!(m.contains("Who may: "), "{m}");
        }
        let agent = r.agent.as_deref().unwrap();
        assert!(
            m.contains(&format!("@{agent}")) || m.contains(&format!("\"{agent}\"")),
            "{m}"
        );
        assert_no_retry_invitation(&m);
    }
}

#[test]
fn who_may_is_computed_and_capped() {
    let mut e = engine("kord");
    let d = e.decide(&op_request("build", "write", "src/app.ts"));
    assert!(d
        .message
        .unwrap()
        .contains("Who may: @dev, @dev-junior, @kord."));
    let d = e.decide(&op_request("qa", "delete", "src/old.ts"));
    assert!(d
        .message
        .unwrap()
        .contains("Who may: no agent of this project."));
    let d = e.decide(&op_request(
        "explore",
        "write",
        "docs/kord/notepads/auth/drafts/q.md",
    ));
    assert!(d
        .message
        .unwrap()
        .contains("Who may: @build, @dev, @dev-junior, @plan."));
    let many = engine_with(
        r#"{"preset": "kord", "rules": [{"id": "p.wide", "agents": ["dev", "qa", "sm", "pm", "po", "analyst", "architect", "vision"], "ops": ["write"], "paths": ["notes/**"], "effect": "allow"}]}"#,
    );
    let d = many.evaluate(&op_request("explore", "write", "notes/a.md"));
    let m = d.message.unwrap();
    assert!(
        m.contains("Who may: @analyst, @architect, @dev, @dev-junior, @kord and 5 more."),
        "{m}"
    );
}

#[test]
fn repeats_are_counted_per_session_and_identical_call() {
    let mut e = engine("kord");
    let r = bash("dev", "git push origin main");
    let first = e.decide(&r);
    assert_eq!(first.repeats, 0);
    assert!(!first.message.unwrap().contains("already refused"));
    let second = e.decide(&r);
    assert_eq!(second.repeats, 1);
    assert!(second.message.unwrap().ends_with(
        "This exact call was already refused 1 time in this session: stop retrying, and ask the person."
    ));
    let third = e.decide(&r);
    assert!(third.message.unwrap().contains("already refused 2 times"));
    // A different call, a different session: counted apart.
    let other = e.decide(&bash("dev", "git push origin dev"));
    assert_eq!(other.repeats, 0);
    let mut r2 = r.clone();
    r2.session_id = "ses_other".into();
    assert_eq!(e.decide(&r2).repeats, 0);
    // Allowed calls are not counted; forgetting a session resets it.
    e.decide(&bash("devops", "git push origin main"));
    e.forget_session("ses_test");
    assert_eq!(e.decide(&r).repeats, 0);
    // evaluate() never counts; a policy reload keeps the counters.
    assert_eq!(e.evaluate(&r).repeats, 0);
    e.set_policy(nso::authority::Policy::preset("kord").unwrap());
    assert_eq!(e.decide(&r).repeats, 1);
}

#[test]
fn outside_message_is_specific() {
    let mut e = engine("kord");
    let mut r = op_request("dev", "create", "../../shared/config.yml");
    r.directory = "/work/proj/app".into();
    let d = e.decide(&r);
    assert_eq!(d.rule_id, "kord.outside_project");
    let m = d.message.unwrap();
    assert!(
        m.contains("writing /work/shared/config.yml, outside the project (/work/proj)"),
        "{m}"
    );
    assert!(m.contains("/dev/null"), "{m}");
    assert!(
        m.contains("outsideProject.allow in .opencode/nso.json"),
        "{m}"
    );
}

#[test]
fn append_only_and_unknown_agent_messages() {
    let mut e = engine("kord");
    let d = e.decide(&bash("dev", "echo x > docs/kord/notepads/auth/l.md"));
    let m = d.message.unwrap();
    assert!(
        m.contains("is append-only (notepads are appended, never overwritten)"),
        "{m}"
    );
    assert!(m.contains("only appends (`>>`, `tee -a`)"), "{m}");
    // "Prometheus (Plan Builder)" is not declared in kord, and "Prometheus" is no agent either.
    let d = e.decide(&op_request(
        "Prometheus (Plan Builder)",
        "write",
        "docs/kord/plans/a.md",
    ));
    assert_eq!(d.rule_id, "kord.unknown_agent");
    assert!(d
        .message
        .unwrap()
        .contains("unknown agent \"Prometheus (Plan Builder)\""));
}

#[test]
fn soft_reminder_and_explain() {
    let e = engine("kord");
    let d = e.evaluate(&bash("dev", "python3 -c 'import os'"));
    assert_eq!(d.verdict, Verdict::Soft);
    assert!(d.notices[0].starts_with("NSO reminder (kord.shell.opaque_reminder, preset kord): "));
    let text = e.explain(&bash("qa", "git add . && git push"));
    for needle in [
        "agent: \"qa\" is @qa",
        "operation: git add",
        "rule kord.git.add (preset kord): exclusive to",
        "=> block by kord.git.push",
        "decision: block by kord.git.add",
        "message: NSO blocked bash for @qa",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    let text = e.explain(&op_request("dev", "write", "src/app.ts"));
    assert!(
        text.contains("rule kord.src.write (preset kord): matches, allow"),
        "{text}"
    );
    assert!(
        text.contains("rule kord.governance.protect (preset kord): no path matches"),
        "{text}"
    );
}

#[test]
fn decision_serialises_in_camel_case() {
    let e = engine("kord");
    let d = e.evaluate(&bash("dev", "git push origin main && rm x"));
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(v["verdict"], json!("block"));
    assert_eq!(v["ruleId"], json!("kord.git.push"));
    assert_eq!(v["ruleSource"], json!("preset kord"));
    assert_eq!(v["operations"][0]["gitOp"], json!("push"));
    assert_eq!(v["operations"][1]["op"], json!("delete"));
    assert_eq!(v["operations"][1]["ruleId"], json!("kord.delete"));
    assert_eq!(v["unclassified"], json!(false));
    assert!(v["message"]
        .as_str()
        .unwrap()
        .contains("(1 other operation of this call is blocked too.)"));
}
