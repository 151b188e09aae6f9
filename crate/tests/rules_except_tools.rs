//! `exceptTools` on a rule, and writes NSO's own tools make on an agent's behalf
//! (`Request::via`): how a policy reserves files for NSO's tools.

mod common;

use common::*;
use nso::authority::{Policy, Request, Verdict};
use serde_json::json;

const CONFIG: &str = r#"{
  "preset": "nso",
  "rules": [
    { "id": "acme.board.direct", "agents": ["*"], "ops": ["write", "create"], "paths": ["BOARD.md"],
      "exceptTools": ["nso_status_set"], "effect": "block",
      "reason": "the board changes through nso_status_set", "instead": "use nso_status_set" },
    { "id": "acme.board.sync", "agents": ["builder"], "ops": ["write", "create"], "paths": ["BOARD.md"],
      "tools": ["nso_status_set"], "effect": "allow" }
  ]
}"#;

fn write_via(agent: &str, via: Option<&str>) -> Request {
    let mut r = req(
        agent,
        "write",
        json!({"filePath": "BOARD.md", "content": "x"}),
    );
    r.exists.insert(abs("BOARD.md"), true);
    r.via = via.map(str::to_string);
    r
}

#[test]
fn except_tools_spares_the_named_tools_writes_only() {
    let e = engine_with(CONFIG);
    let d = e.evaluate(&write_via("builder", None));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Block, "acme.board.direct")
    );
    assert!(d.message.unwrap().contains("Instead: use nso_status_set"));
    for tool in ["edit", "apply_patch", "bash"] {
        let mut r = write_via("builder", None);
        r.tool = tool.to_string();
        r.args = match tool {
            "edit" => json!({"filePath": "BOARD.md", "oldString": "a", "newString": "b"}),
            "apply_patch" => {
                json!({"patchText": "*** Begin Patch\n*** Add File: BOARD.md\n+x\n*** End Patch\n"})
            }
            _ => json!({"command": "echo x > BOARD.md"}),
        };
        assert_eq!(e.evaluate(&r).rule_id, "acme.board.direct", "{tool}");
    }
    // Via nso_status_set: the block is off, and the tools-limited allow decides.
    let d = e.evaluate(&write_via("builder", Some("nso_status_set")));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Allow, "acme.board.sync")
    );
    // @janitor is read-only in nso: nothing allows it even through the tool.
    let d = e.evaluate(&write_via("janitor", Some("nso_status_set")));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Block, "nso.default.write")
    );
    // Another NSO tool is not the one excepted.
    let d = e.evaluate(&write_via("builder", Some("nso_task_new")));
    assert_eq!(d.rule_id, "acme.board.direct");
    // Tool names compare case-insensitively, as `tools` does.
    let d = e.evaluate(&write_via("builder", Some("NSO_Status_Set")));
    assert_eq!(d.verdict, Verdict::Allow);
}

#[test]
fn via_replaces_the_tool_for_tools_filters_and_shows_in_explain() {
    let e = engine_with(CONFIG);
    let text = e.explain(&write_via("builder", Some("nso_status_set")));
    assert!(
        text.contains("tool: write on behalf of nso_status_set (write-class), 1 operation"),
        "{text}"
    );
    assert!(
        text.contains("rule acme.board.direct (.opencode/nso.json): not for tools nso_status_set"),
        "{text}"
    );
    let text = e.explain(&write_via("builder", None));
    assert!(
        text.contains("rule acme.board.sync (.opencode/nso.json): only for tools nso_status_set"),
        "{text}"
    );
    // An empty via is no via.
    assert_eq!(
        e.evaluate(&write_via("builder", Some(""))).rule_id,
        "acme.board.direct"
    );
}

#[test]
fn a_repeat_through_the_tool_is_not_the_repeat_of_a_direct_call() {
    let mut e = engine_with(CONFIG);
    let direct = write_via("janitor", None);
    let synced = write_via("janitor", Some("nso_status_set"));
    assert_eq!(e.decide(&direct).repeats, 0);
    assert_eq!(e.decide(&synced).repeats, 0);
    assert_eq!(e.decide(&direct).repeats, 1);
}

#[test]
fn except_tools_is_validated_like_tools() {
    let err = Policy::from_config_json(
        r#"{"rules": [{"id": "x", "agents": ["*"], "ops": ["write"], "paths": ["a"], "effect": "block", "exceptTools": "nso_status_set"}]}"#,
        ".opencode/nso.json",
    )
    .unwrap_err();
    assert_eq!(err.0[0].path, "rules[0].exceptTools");
    let err = Policy::from_config_json(
        r#"{"rules": [{"id": "x", "agents": ["*"], "ops": ["write"], "paths": ["a"], "effect": "block", "exceptTool": ["a"]}]}"#,
        ".opencode/nso.json",
    )
    .unwrap_err();
    assert!(err.0[0].hint.contains("exceptTools"), "{:?}", err.0[0]);
}
