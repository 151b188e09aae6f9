//! The priority gate (seed 003) through `start`: sprint focus, deferred work, override,
//! automatic registrations, unreadable sprint files.

mod conductor_common;

use conductor_common::*;
use nso::conductor::gate::{priority_gate, Gate, Sprint};
use serde_json::{json, Value};

const SPRINT: &str = r#"{
  "sprint_name": "2026-W03",
  "focus": "P1",
  "priorities": ["Pitchello revenue features", "Mission Control lead scoring"],
  "explicitly_deferred": ["Documentation improvements", "Refactoring"]
}"#;

fn start(w: &mut World, task: &str, priority: &str, extra: Value) -> Value {
    let mut op = json!({
        "operation": "start", "task": task, "priority": priority, "working_directory": "/r",
    });
    for (k, v) in extra.as_object().unwrap() {
        op[k] = v.clone();
    }
    w.call(op)
}

fn sprint_world(sprint: &str) -> World {
    World {
        sprint: Some(sprint.to_string()),
        ..World::default()
    }
}

#[test]
fn p1_always_passes() {
    let mut w = sprint_world(SPRINT);
    let response = start(&mut w, "Refactoring everything", "p1", json!({}));
    assert_eq!(response["result"]["status"], "ok");
    assert!(response["result"].get("drift_warning").is_none());
    assert_eq!(w.state_json()["instances"][0]["priority"], "P1");
}

#[test]
fn a_p1_focus_blocks_other_priorities() {
    let mut w = sprint_world(SPRINT);
    let response = start(&mut w, "Polish the footer", "P3", json!({}));
    assert!(
        response["state"].is_null(),
        "a blocked start changes nothing"
    );
    assert_eq!(
        response["result"],
        json!({
            "status": "blocked",
            "reason": "priority_gate",
            "message": "Task priority P3 doesn't align with current P1 sprint focus (2026-W03).",
            "options": [
                "Use --override 'justification' to proceed anyway",
                "Change to a P1 task instead",
            ],
        })
    );
    assert!(w.log.is_empty());
}

#[test]
fn deferred_work_is_blocked_either_way_round() {
    let sprint = r#"{"focus": "P2", "explicitly_deferred": ["Documentation improvements", "Refactoring", "  "]}"#;
    let mut w = sprint_world(sprint);
    for task in [
        "refactoring the user service",
        "Documentation",
        "DOCUMENTATION IMPROVEMENTS",
    ] {
        let response = start(&mut w, task, "P2", json!({}));
        assert_eq!(response["result"]["status"], "blocked", "{task}");
        assert!(response["result"]["message"]
            .as_str()
            .unwrap()
            .contains("explicitly defers"));
    }
    let response = start(&mut w, "Lead scoring", "P2", json!({}));
    assert_eq!(response["result"]["status"], "ok");
}

#[test]
fn an_override_passes_and_is_recorded() {
    let mut w = sprint_world(SPRINT);
    let response = start(
        &mut w,
        "Docs for the launch",
        "P3",
        json!({"override": "Launch blocker: the docs are the deliverable"}),
    );
    assert_eq!(response["result"]["status"], "ok");
    let id = response["result"]["instance_id"].as_str().unwrap();
    let warning = &w.state_json()["drift_warnings"][0];
    assert_eq!(warning["instance_id"], id);
    assert_eq!(warning["acknowledged"], false);
    assert_eq!(warning["at"], T0);
    assert_eq!(
        warning["justification"],
        "Launch blocker: the docs are the deliverable"
    );
    assert!(warning["reason"]
        .as_str()
        .unwrap()
        .ends_with("Override: Launch blocker: the docs are the deliverable"));
    assert_eq!(w.log.len(), 1);
    assert!(w.log[0].starts_with(&format!(
        "{T0} | OVERRIDE | {id} (P3) \"Docs for the launch\""
    )));
}

#[test]
fn an_automatic_registration_never_blocks() {
    let mut w = sprint_world(SPRINT);
    let response = start(
        &mut w,
        "Polish the footer",
        "P3",
        json!({"automatic": true}),
    );
    let result = &response["result"];
    assert_eq!(result["status"], "ok");
    let text = result["drift_warning"].as_str().unwrap();
    assert!(text.starts_with("Task priority P3 doesn't align with current P1 sprint focus"));
    assert_eq!(w.state_json()["drift_warnings"][0]["reason"], text);
    assert!(w.log[0].contains(" | DRIFT | "));
}

#[test]
fn an_unreadable_sprint_file_blocks_all_but_p1() {
    let mut w = sprint_world("{ \"focus\": ");
    let response = start(&mut w, "Polish", "P2", json!({}));
    assert_eq!(response["result"]["status"], "blocked");
    assert!(response["result"]["message"]
        .as_str()
        .unwrap()
        .contains("sprint.json is not valid JSON at line 1"));
    assert_eq!(
        start(&mut w, "Polish", "P1", json!({}))["result"]["status"],
        "ok"
    );
}

#[test]
fn the_gate_function() {
    let sprint = Sprint::parse(SPRINT);
    assert_eq!(priority_gate("x", "P2", None), Gate::Pass);
    assert_eq!(priority_gate("x", "P1", Some(&sprint)), Gate::Pass);
    assert!(matches!(
        priority_gate("x", "P2", Some(&sprint)),
        Gate::Fail(_)
    ));
    let relaxed = Sprint::parse(r#"{"focus": "P2"}"#);
    assert_eq!(priority_gate("x", "P3", Some(&relaxed)), Gate::Pass);
    assert!(Sprint::parse(r#"{"focus": 1}"#).is_err());
    assert!(Sprint::parse("[]").is_err());
}
