//! status.json reading and writing: seed 1.0 tolerance, unknown fields kept, corrupt and
//! huge texts refused with the place named.

mod conductor_common;

use conductor_common::*;
use nso::conductor::state::{State, MAX_STATE_BYTES};
use serde_json::{json, Value};

fn corrupt_message(state: &str) -> String {
    let w = World {
        state: Some(state.to_string()),
        ..World::default()
    };
    let response: Value = serde_json::from_str(&nso::conductor::apply(
        &w.request(&json!({"operation": "status"})),
    ))
    .unwrap();
    assert_eq!(response["error"]["code"], "state_corrupt", "{state:.200}");
    assert!(response["state"].is_null());
    assert!(response["error"]["fix"]
        .as_str()
        .unwrap()
        .contains("last-good"));
    response["error"]["message"].as_str().unwrap().to_string()
}

#[test]
fn bad_json_names_line_and_column() {
    let message = corrupt_message("{\n  \"version\": \"2.0\",\n  \"instances\": [,]\n}");
    assert!(
        message.starts_with("status.json is not valid JSON at line 3, column 17"),
        "{message}"
    );
    assert!(corrupt_message("").contains("line 1, column 0"));
    assert!(corrupt_message("{\"instances\": [").contains("line 1"));
}

#[test]
fn texts_that_are_not_a_conductor_state() {
    let cases = [
        ("[]", "top level is not an object"),
        (
            "{\"instances\": {}}",
            "instances: expected a list, found an object",
        ),
        (
            "{\"instances\": [5]}",
            "instances[0]: expected an object, found a number",
        ),
        ("{\"instances\": [{}]}", "instances[0].id: missing or empty"),
        (
            "{\"instances\": [{\"id\": \"a\", \"pid\": \"12\"}]}",
            "instances[0].pid: expected a number, found a string",
        ),
        (
            "{\"instances\": [{\"id\": \"a\", \"files_claimed\": [\"/x\", 3]}]}",
            "instances[0].files_claimed[1]: expected a string, found a number",
        ),
        (
            "{\"instances\": [{\"id\": \"a\", \"last_heartbeat\": \"yesterday\"}]}",
            "instances[0].last_heartbeat: \"yesterday\" is not an ISO 8601 time",
        ),
        (
            "{\"instances\": [{\"id\": \"a\"}, {\"id\": \"a\"}]}",
            "instances[1].id: \"a\" is registered twice",
        ),
        (
            "{\"version\": \"3.0\"}",
            "version \"3.0\" is not one this NSO reads",
        ),
        ("{\"global_claims\": {\"/x\": 5}}", "global_claims[\"/x\"]"),
        (
            "{\"drift_warnings\": [{\"acknowledged\": \"no\"}]}",
            "drift_warnings[0].acknowledged: expected true or false",
        ),
    ];
    for (text, want) in cases {
        let message = corrupt_message(text);
        assert!(message.contains(want), "{text}: {message}");
    }
}

#[test]
fn huge_texts_are_refused_without_parsing() {
    let huge = format!("{{\"x\": \"{}\"}}", "a".repeat(MAX_STATE_BYTES));
    let message = corrupt_message(&huge);
    assert!(message.contains("over the limit"), "{message}");
    let deep = "[".repeat(100_000);
    assert!(corrupt_message(&deep).contains("not valid JSON"));
}

#[test]
fn a_pattern_too_long_is_refused() {
    let long = format!("/{}", "a".repeat(5000));
    let text = json!({"instances": [{"id": "a", "files_claimed": [long]}]}).to_string();
    assert!(corrupt_message(&text).contains("over the limit of 4096"));
}

#[test]
fn seed_files_are_read_with_defaults_and_absolute_claims() {
    let state = State::parse(SEED_STATE, T0).unwrap();
    let i = &state.instances[0];
    assert_eq!(
        i.files_claimed,
        vec![
            "/Users/mariogiancini/Developer/pitchello/src/api/users.ts",
            "/Users/mariogiancini/Developer/pitchello/src/lib/auth.ts",
        ]
    );
    assert_eq!(
        i.project_root.as_deref(),
        Some("/Users/mariogiancini/Developer/pitchello")
    );
    assert_eq!(i.host, None);
    assert!(i.sessions.is_empty() && i.forced.is_empty());
    let written: Value = serde_json::from_str(&state.to_text()).unwrap();
    assert_eq!(written["version"], "2.0");
    assert_eq!(written["instances"][0]["id"], "itm-a1b2c3");
    assert_eq!(
        written["global_claims"]["/Users/mariogiancini/Developer/pitchello/src/lib/auth.ts"],
        "itm-a1b2c3"
    );
}

#[test]
fn minimal_and_partial_seed_files() {
    let state = State::parse("{}", T0).unwrap();
    assert!(state.instances.is_empty());
    // No heartbeat: the start time; neither: now. No working directory: `/**/` prefix.
    let text = r#"{"instances": [
        {"id": "itm-1", "started_at": "2026-01-01T00:00:00Z", "files_claimed": ["a.ts"]},
        {"id": "cur-2", "working_directory": "/w/[x]", "files_claimed": ["b.ts", "b.ts"]}
    ]}"#;
    let state = State::parse(text, T0).unwrap();
    assert_eq!(state.instances[0].last_heartbeat, "2026-01-01T00:00:00Z");
    assert_eq!(state.instances[0].source, "itm");
    assert_eq!(state.instances[0].files_claimed, vec!["/**/a.ts"]);
    assert_eq!(state.instances[1].started_at, T0);
    assert_eq!(
        state.instances[1].files_claimed,
        vec!["/w/\\[x\\]/b.ts"],
        "the working directory is literal, duplicates dropped"
    );
}

#[test]
fn global_claims_missing_from_their_holder_are_kept() {
    let text = r#"{
      "instances": [{"id": "itm-1", "working_directory": "/w", "files_claimed": ["a.ts"]}],
      "global_claims": {"a.ts": "itm-1", "b.ts": "itm-1", "c.ts": "gone-0"}
    }"#;
    let state = State::parse(text, T0).unwrap();
    assert_eq!(state.instances[0].files_claimed, vec!["/w/a.ts", "/w/b.ts"]);
}

#[test]
fn unknown_fields_survive_a_write() {
    let text = r#"{
      "version": "2.0",
      "webhooks": {"on_start": "https://example.org"},
      "instances": [{"id": "opc-1", "started_at": "2026-11-23T10:00:00Z",
                     "color": "blue", "files_claimed": ["/r/a"]}],
      "drift_warnings": [{"instance_id": "opc-1", "reason": "r", "acknowledged": true,
                          "seen_by": "mario"}]
    }"#;
    let mut w = World {
        state: Some(text.to_string()),
        ..World::default()
    };
    w.at("2026-11-23T10:01:00Z");
    w.ok(json!({"operation": "heartbeat", "instance_id": "opc-1"}));
    let state = w.state_json();
    assert_eq!(state["webhooks"]["on_start"], "https://example.org");
    assert_eq!(state["instances"][0]["color"], "blue");
    assert_eq!(state["drift_warnings"][0]["seen_by"], "mario");
    assert_eq!(state["drift_warnings"][0]["acknowledged"], true);
    assert_eq!(state["updated_at"], "2026-11-23T10:01:00Z");
}

#[test]
fn a_missing_file_is_an_empty_state_and_stays_unwritten_when_only_read() {
    let mut w = World::default();
    let response = w.call(json!({"operation": "status"}));
    assert!(response["state"].is_null());
    assert_eq!(response["result"]["instances"], json!([]));
    let response = w.call(json!({"operation": "cleanup"}));
    assert!(
        response["state"].is_null(),
        "nothing removed: nothing to write"
    );
}
