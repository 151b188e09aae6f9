//! Orphans: dead instances on this host, stale heartbeats elsewhere, clock skew, cleanup.

mod conductor_common;

use conductor_common::*;
use serde_json::{json, Value};

const R: &str = "/r";

/// Rewrites one stored instance field, as another host's writer would have.
fn set_field(w: &mut World, id: &str, key: &str, value: Value) {
    let mut state = w.state_json();
    for instance in state["instances"].as_array_mut().unwrap() {
        if instance["id"] == id {
            instance[key] = value.clone();
        }
    }
    w.state = Some(state.to_string());
}

#[test]
fn a_dead_process_on_this_host_loses_its_claims_before_the_claim() {
    let mut w = World::default();
    let a = w.start("crashed", R);
    w.claim(&a, &["/r/src/**"]);
    let b = w.start("next", R);
    w.alive = json!({ a.as_str(): false, b.as_str(): true });
    let response =
        w.call(json!({"operation": "claim", "instance_id": b, "files": ["/r/src/a.ts"]}));
    assert_eq!(response["result"]["status"], "ok");
    assert!(w.instance(&a).is_null());
    let line: Value = serde_json::from_str(&w.history[0]).unwrap();
    assert_eq!(line["id"], a.as_str());
    assert_eq!(line["outcome"], "orphaned");
    assert_eq!(line["completed_at"], T0);
    assert_eq!(line["files_modified"], json!([]));
    assert!(line["reason"].as_str().unwrap().contains("is gone on here"));
}

#[test]
fn a_live_process_keeps_its_claims_whatever_its_heartbeat() {
    let mut w = World::default();
    let a = w.start("slow", R);
    w.claim(&a, &["/r/src/**"]);
    let b = w.start("next", R);
    w.at("2026-11-23T15:00:00Z");
    w.alive = json!({ a.as_str(): true, b.as_str(): true });
    assert_eq!(w.claim(&b, &["/r/src/a.ts"])["status"], "conflict");
    assert!(w.history.is_empty());
}

#[test]
fn the_caller_is_never_removed() {
    let mut w = World::default();
    let a = w.start("me", R);
    w.alive = json!({ a.as_str(): false });
    w.at("2026-11-23T15:00:00Z");
    assert_eq!(w.claim(&a, &["/r/a"])["status"], "ok");
    assert!(!w.instance(&a).is_null());
}

#[test]
fn other_hosts_expire_by_heartbeat_age() {
    let mut w = World::default();
    let a = w.start("remote", R);
    w.claim(&a, &["/r/src/**"]);
    set_field(&mut w, &a, "host", json!("elsewhere"));
    let b = w.start("local", R);
    w.alive = json!({ a.as_str(): false, b.as_str(): true });
    // `alive` speaks only for this host: the remote one is judged by its heartbeat.
    w.at("2026-11-23T10:09:59Z");
    assert_eq!(w.claim(&b, &["/r/src/a.ts"])["status"], "conflict");
    w.at("2026-11-23T10:10:01Z");
    assert_eq!(w.claim(&b, &["/r/src/a.ts"])["status"], "ok");
    let line: Value = serde_json::from_str(&w.history[0]).unwrap();
    assert_eq!(line["outcome"], "orphaned");
    assert_eq!(
        line["reason"],
        "no heartbeat for 10 minutes (limit 10 minutes)"
    );
}

#[test]
fn a_heartbeat_in_the_future_counts_as_now_and_then_expires() {
    let mut w = World::default();
    let a = w.start("skewed", R);
    w.claim(&a, &["/r/src/**"]);
    set_field(&mut w, &a, "host", json!("fast-clock"));
    set_field(&mut w, &a, "last_heartbeat", json!("2027-11-23T10:00:00Z"));
    let b = w.start("local", R);
    w.alive = json!({ b.as_str(): true });
    w.at("2026-11-23T10:01:00Z");
    let response =
        w.call(json!({"operation": "claim", "instance_id": b, "files": ["/r/src/a.ts"]}));
    assert_eq!(response["result"]["status"], "conflict");
    // The state was rewritten (the skewed heartbeat brought back to now) by the start.
    assert_eq!(w.instance(&a)["last_heartbeat"], T0);
    let status = w.ok(json!({"operation": "status"}));
    assert_eq!(status["instances"][0]["heartbeat_age_seconds"], 60);
    w.at("2026-11-23T10:10:01Z");
    assert_eq!(
        w.claim(&b, &["/r/src/a.ts"])["status"],
        "ok",
        "expired a ttl after now"
    );
    assert!(w.instance(&a).is_null());
}

#[test]
fn a_future_heartbeat_read_by_status_alone_still_ages_from_now() {
    let mut w = World::default();
    let a = w.start("skewed", R);
    set_field(&mut w, &a, "host", json!("fast-clock"));
    set_field(&mut w, &a, "last_heartbeat", json!("2099-01-01T00:00:00Z"));
    let status = w.ok(json!({"operation": "status"}));
    assert_eq!(status["instances"][0]["heartbeat_age_seconds"], 0);
    assert_eq!(status["instances"][0]["alive"], true);
}

#[test]
fn cleanup_removes_orphans_with_its_own_age_limit() {
    let mut w = World {
        ttl: 7200,
        ..World::default()
    };
    let a = w.start("old", R);
    let b = w.start("dead", R);
    let c = w.start("fresh", R);
    set_field(&mut w, &a, "host", json!("elsewhere"));
    w.at("2026-11-23T10:30:00Z");
    w.ok(json!({"operation": "heartbeat", "instance_id": c}));
    w.alive = json!({ b.as_str(): false });
    w.at("2026-11-23T10:40:00Z");
    let result = w.ok(json!({"operation": "cleanup", "max_age_minutes": 20}));
    assert_eq!(result["removed"], json!([a, b]));
    assert_eq!(w.history.len(), 2);
    assert!(!w.instance(&c).is_null());
}

#[test]
fn status_reports_the_dead_without_removing_them() {
    let mut w = World::default();
    let a = w.start("dead", R);
    w.alive = json!({ a.as_str(): false });
    let response = w.call(json!({"operation": "status"}));
    assert!(response["state"].is_null());
    assert_eq!(response["result"]["instances"][0]["alive"], false);
    assert_eq!(response["result"]["summary"]["active_count"], 0);
    assert_eq!(response["result"]["summary"]["instance_count"], 1);
}

#[test]
fn seed_instances_without_host_are_judged_by_heartbeat() {
    let mut w = World {
        state: Some(SEED_STATE.to_string()),
        now: "2026-01-17T10:39:00Z".to_string(),
        ..World::default()
    };
    w.alive = json!({"itm-a1b2c3": false});
    let b = w.start("next", "/Users/mariogiancini/Developer/pitchello");
    assert!(!w.instance("itm-a1b2c3").is_null(), "9 minutes old: alive");
    w.at("2026-01-17T10:41:00Z");
    let result = w.claim(
        &b,
        &["/Users/mariogiancini/Developer/pitchello/src/api/users.ts"],
    );
    assert_eq!(result["status"], "ok");
    assert!(w.instance("itm-a1b2c3").is_null());
}
