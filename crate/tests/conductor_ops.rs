//! The conductor's operations, with the seed's inputs and outputs: start, claim (conflicts,
//! all or nothing, same instance, force), attach, release, done, heartbeat, notices, status,
//! errors, determinism.

mod conductor_common;

use conductor_common::*;
use serde_json::{json, Value};

const R: &str = "/home/u/pitchello";

fn files(result: &Value) -> Vec<String> {
    result
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn start_then_claim_as_in_the_seed() {
    let mut w = World::default();
    let result = w.ok(json!({
        "operation": "start", "task": "Fix authentication bug", "project": "pitchello",
        "priority": "P1", "working_directory": R, "source": "itm",
    }));
    assert_eq!(
        result,
        json!({
            "status": "ok",
            "instance_id": "itm-000001",
            "message": "Registered. Use /conductor claim to lock files before editing.",
        })
    );
    let result = w.claim(
        "itm-000001",
        &[
            "/home/u/pitchello/src/api/users.ts",
            "/home/u/pitchello/src/lib/auth.ts",
        ],
    );
    assert_eq!(result["status"], "ok");
    assert_eq!(result["message"], "Files claimed. Safe to edit.");
    let state = w.state_json();
    assert_eq!(state["version"], "2.0");
    assert_eq!(
        state["global_claims"],
        json!({
            "/home/u/pitchello/src/api/users.ts": "itm-000001",
            "/home/u/pitchello/src/lib/auth.ts": "itm-000001",
        })
    );
    let me = w.instance("itm-000001");
    assert_eq!(me["project"], "pitchello");
    assert_eq!(me["project_root"], R, "defaults to the working directory");
    assert_eq!(me["host"], "here");
}

#[test]
fn a_conflict_claims_nothing_and_is_logged() {
    let mut w = World::default();
    let a = w.start("Refactoring user service", R);
    w.claim(&a, &["/home/u/pitchello/src/api/users.ts"]);
    let b = w.start("Fix auth", R);
    let before = w.state.clone();
    let response = w.call(json!({
        "operation": "claim", "instance_id": b,
        "files": ["/home/u/pitchello/src/lib/auth.ts", "/home/u/pitchello/src/api/users.ts"],
    }));
    assert!(
        response["state"].is_null(),
        "a refused claim writes nothing"
    );
    assert_eq!(w.state, before);
    let result = &response["result"];
    assert_eq!(result["status"], "conflict");
    assert_eq!(result["claimed"], json!([]), "all or nothing");
    let conflict = &result["conflicts"][0];
    assert_eq!(conflict["file"], "/home/u/pitchello/src/api/users.ts");
    assert_eq!(conflict["held_by"], a.as_str());
    assert_eq!(conflict["holder_task"], "Refactoring user service");
    assert_eq!(conflict["holder_started"], T0);
    assert_eq!(conflict["holder_agent"], "dev");
    assert_eq!(conflict["holder_project"], "pitchello");
    assert_eq!(conflict["holder_age_minutes"], 0);
    assert_eq!(result["conflicts"].as_array().unwrap().len(), 1);
    assert!(result["message"].as_str().unwrap().starts_with(&format!(
        "1 conflict(s) detected. Coordinate with {a} or wait"
    )));
    assert_eq!(result["options"].as_array().unwrap().len(), 3);
    assert_eq!(
        response["conflicts"],
        json!([format!(
            "{T0} | CONFLICT | {b} tried to claim /home/u/pitchello/src/api/users.ts already held by {a}"
        )])
    );
    // The free file alone is fine.
    let ok = w.claim(&b, &["/home/u/pitchello/src/lib/auth.ts"]);
    assert_eq!(ok["status"], "ok");
}

#[test]
fn glob_claims_conflict_by_intersection() {
    let mut w = World::default();
    let a = w.start("api", R);
    w.claim(&a, &["/home/u/pitchello/src/api/**"]);
    let b = w.start("types", R);
    let result = w.claim(&b, &["/home/u/pitchello/src/**/*.ts"]);
    assert_eq!(result["status"], "conflict");
    let c = &result["conflicts"][0];
    assert_eq!(c["pattern"], "/home/u/pitchello/src/api/**");
    assert_eq!(
        c["example"], "/home/u/pitchello/src/api/.ts",
        "a shortest path both match"
    );
    assert!(w.log[0].ends_with(&format!(
        "{b} tried to claim /home/u/pitchello/src/**/*.ts already held by {a} (as /home/u/pitchello/src/api/**)"
    )));
    // Disjoint globs and other projects do not conflict.
    assert_eq!(w.claim(&b, &["/home/u/pitchello/src/*.ts"])["status"], "ok");
    assert_eq!(w.claim(&b, &["/home/u/other/src/api/**"])["status"], "ok");
    // A folder claim conflicts with the folder itself.
    assert_eq!(
        w.claim(&b, &["/home/u/pitchello/src/api"])["status"],
        "conflict"
    );
}

#[test]
fn an_instance_never_conflicts_with_itself() {
    let mut w = World::default();
    let a = w.start("api", R);
    w.claim(&a, &["/home/u/pitchello/src/**"]);
    let response = w.call(json!({
        "operation": "claim", "instance_id": a,
        "files": ["/home/u/pitchello/src/api/users.ts", "/home/u/pitchello/src/**"],
    }));
    assert_eq!(response["result"]["status"], "ok");
    assert!(
        response["state"].is_null(),
        "already covered: nothing to write"
    );
    assert_eq!(
        w.instance(&a)["files_claimed"],
        json!(["/home/u/pitchello/src/**"])
    );
    // A pattern that overlaps without being covered is added, still without conflict.
    w.claim(&a, &["/home/u/pitchello/**/*.md"]);
    assert_eq!(w.instance(&a)["files_claimed"].as_array().unwrap().len(), 2);
}

#[test]
fn subagent_sessions_attach_to_their_parent() {
    let mut w = World::default();
    let a = w.start("api", R);
    let result = w.ok(json!({"operation": "attach", "instance_id": a, "session": "ses_child"}));
    assert_eq!(result["sessions"], json!(["ses_child"]));
    w.ok(json!({"operation": "attach", "instance_id": a, "session": "ses_child"}));
    assert_eq!(w.instance(&a)["sessions"], json!(["ses_child"]));
}

#[test]
fn force_takes_claims_over_and_tells_the_holder() {
    let mut w = World::default();
    let a = w.start("api", R);
    w.claim(
        &a,
        &[
            "/home/u/pitchello/src/api/**",
            "/home/u/pitchello/README.md",
        ],
    );
    let b = w.start("hotfix", R);
    let result = w.ok(json!({
        "operation": "claim", "instance_id": b, "files": ["/home/u/pitchello/src/api/users.ts"],
        "force": "Talked to other instance, taking over", "by": "mario",
    }));
    assert_eq!(result["status"], "ok");
    assert_eq!(
        result["forced"],
        json!([{"pattern": "/home/u/pitchello/src/api/**", "held_by": a}])
    );
    assert_eq!(
        w.log,
        vec![format!(
            "{T0} | FORCE | mario ({b}) took /home/u/pitchello/src/api/** from {a} to claim \
             /home/u/pitchello/src/api/users.ts: Talked to other instance, taking over"
        )]
    );
    assert_eq!(
        w.instance(&a)["files_claimed"],
        json!(["/home/u/pitchello/README.md"])
    );
    let notices = w.ok(json!({"operation": "notices", "instance_id": a}));
    assert_eq!(
        notices["notices"],
        json!([{
            "pattern": "/home/u/pitchello/src/api/**", "by": "mario", "claimant": b,
            "justification": "Talked to other instance, taking over", "at": T0,
        }])
    );
    let again = w.call(json!({"operation": "notices", "instance_id": a}));
    assert_eq!(again["result"]["notices"], json!([]));
    assert!(again["state"].is_null(), "notices are cleared once read");
}

#[test]
fn force_needs_a_justification() {
    let mut w = World::default();
    let a = w.start("api", R);
    let response = w.call(json!({
        "operation": "claim", "instance_id": a, "files": ["/home/u/pitchello/a"], "force": true,
    }));
    assert_eq!(response["error"]["code"], "bad_request");
    assert!(response["error"]["message"]
        .as_str()
        .unwrap()
        .contains("justification"));
}

#[test]
fn release_and_done_free_the_files() {
    let mut w = World::default();
    let a = w.start("api", R);
    w.claim(
        &a,
        &["/home/u/pitchello/src/a.ts", "/home/u/pitchello/src/b.ts"],
    );
    let result = w.ok(json!({
        "operation": "release", "instance_id": a,
        "files": ["/home/u/pitchello/src/a.ts", "/home/u/pitchello/src/zzz.ts"],
        "reason": "Switching to higher priority task",
    }));
    assert_eq!(
        files(&result["released"]),
        vec!["/home/u/pitchello/src/a.ts"]
    );
    assert_eq!(
        files(&result["not_held"]),
        vec!["/home/u/pitchello/src/zzz.ts"]
    );
    let b = w.start("other", R);
    assert_eq!(w.claim(&b, &["/home/u/pitchello/src/a.ts"])["status"], "ok");
    assert_eq!(
        w.claim(&b, &["/home/u/pitchello/src/b.ts"])["status"],
        "conflict"
    );
    w.ttl = 7200;
    w.at("2026-11-23T10:45:00Z");
    let result = w.ok(json!({
        "operation": "done", "instance_id": a, "outcome": "success",
        "files_modified": ["/home/u/pitchello/src/b.ts"],
    }));
    assert_eq!(
        files(&result["released"]),
        vec!["/home/u/pitchello/src/b.ts"]
    );
    assert_eq!(w.history.len(), 1);
    let line: Value = serde_json::from_str(&w.history[0]).unwrap();
    assert_eq!(
        line,
        json!({
            "id": a, "project": "pitchello", "task": "api", "priority": "P1",
            "started_at": T0, "completed_at": "2026-11-23T10:45:00Z",
            "files_modified": ["/home/u/pitchello/src/b.ts"], "outcome": "success",
        })
    );
    assert!(w.instance(&a).is_null());
    assert_eq!(w.claim(&b, &["/home/u/pitchello/src/b.ts"])["status"], "ok");
    let all = w.ok(json!({"operation": "release", "instance_id": b, "all": true}));
    assert_eq!(all["released"].as_array().unwrap().len(), 2);
    assert_eq!(w.state_json()["global_claims"], json!({}));
}

#[test]
fn heartbeat_moves_the_last_sign_of_life() {
    let mut w = World::default();
    let a = w.start("api", R);
    w.at("2026-11-23T10:05:00Z");
    let result = w.ok(json!({"operation": "heartbeat", "instance_id": a}));
    assert_eq!(result["last_heartbeat"], "2026-11-23T10:05:00Z");
    assert_eq!(w.instance(&a)["last_heartbeat"], "2026-11-23T10:05:00Z");
    assert_eq!(w.instance(&a)["started_at"], T0);
}

#[test]
fn status_reports_instances_with_ages_and_claims() {
    let mut w = World::default();
    let a = w.start("api", R);
    w.claim(&a, &["/home/u/pitchello/src/**"]);
    w.at("2026-11-23T10:07:30Z");
    let response = w.call(json!({"operation": "status"}));
    assert!(response["state"].is_null(), "status only reads");
    let result = &response["result"];
    let me = &result["instances"][0];
    assert_eq!(me["id"], a.as_str());
    assert_eq!(me["alive"], true);
    assert_eq!(me["age_minutes"], 7);
    assert_eq!(me["heartbeat_age_seconds"], 450);
    assert_eq!(me["claims"], json!(["/home/u/pitchello/src/**"]));
    assert_eq!(me["task"], "api");
    assert_eq!(me["priority"], "P1");
    assert_eq!(me["agent"], "dev");
    assert_eq!(me["project"], "pitchello");
    assert_eq!(result["conflicts"], json!([]));
    assert_eq!(
        result["summary"],
        json!({
            "active_count": 1, "instance_count": 1, "total_files_claimed": 1,
            "oldest_instance_age_minutes": 7,
        })
    );
}

#[test]
fn errors_have_codes_and_fixes() {
    let mut w = World::default();
    let a = w.start("api", R);
    let cases = [
        (
            json!({"operation": "claim", "instance_id": "opc-nope00", "files": ["/x"]}),
            "unknown_instance",
        ),
        (
            json!({"operation": "heartbeat", "instance_id": "opc-nope00"}),
            "unknown_instance",
        ),
        (
            json!({"operation": "claim", "instance_id": a, "files": ["src/a.ts"]}),
            "bad_request",
        ),
        (
            json!({"operation": "claim", "instance_id": a, "files": ["/r/../etc"]}),
            "bad_request",
        ),
        (
            json!({"operation": "claim", "instance_id": a, "files": []}),
            "bad_request",
        ),
        (
            json!({"operation": "claim", "instance_id": a, "files": "/r/a"}),
            "bad_request",
        ),
        (
            json!({"operation": "release", "instance_id": a}),
            "bad_request",
        ),
        (json!({"operation": "start", "task": "x"}), "bad_request"),
        (
            json!({"operation": "start", "task": "x", "priority": "P1", "source": "Bad!"}),
            "bad_request",
        ),
        (json!({"operation": "fly"}), "bad_request"),
        (json!({}), "bad_request"),
    ];
    for (op, code) in cases {
        let before = w.state.clone();
        let response = w.call(op.clone());
        assert_eq!(response["error"]["code"], code, "{op}: {response}");
        assert!(!response["error"]["fix"].as_str().unwrap().is_empty());
        assert_eq!(response["result"]["status"], "error");
        assert!(response["state"].is_null());
        assert_eq!(w.state, before);
    }
    for request in ["", "[]", "{\"now\": 5}", "{\"now\": \"soon\", \"op\": {}}"] {
        let response: Value = serde_json::from_str(&nso::conductor::apply(request)).unwrap();
        assert_eq!(response["error"]["code"], "bad_request", "{request}");
    }
    // The id must be new: same random twice.
    let mut w2 = World::default();
    w2.start("one", R);
    w2.next_random -= 1;
    let response = w2.call(json!({"operation": "start", "task": "two", "priority": "P1"}));
    assert_eq!(response["error"]["code"], "bad_request");
}

#[test]
fn the_seed_state_is_read_and_its_claims_hold() {
    let mut w = World {
        state: Some(SEED_STATE.to_string()),
        now: "2026-01-17T10:35:00Z".to_string(),
        ..World::default()
    };
    let b = w.start(
        "Add lead endpoint",
        "/Users/mariogiancini/Developer/pitchello",
    );
    let result = w.claim(
        &b,
        &["/Users/mariogiancini/Developer/pitchello/src/api/users.ts"],
    );
    assert_eq!(result["status"], "conflict");
    assert_eq!(result["conflicts"][0]["held_by"], "itm-a1b2c3");
    assert_eq!(
        result["conflicts"][0]["holder_task"],
        "Fix authentication bug in user service"
    );
    let state = w.state_json();
    assert_eq!(state["version"], "2.0");
    assert_eq!(
        state["instances"][0]["files_claimed"],
        json!([
            "/Users/mariogiancini/Developer/pitchello/src/api/users.ts",
            "/Users/mariogiancini/Developer/pitchello/src/lib/auth.ts",
        ])
    );
    assert_eq!(
        state["drift_warnings"][0]["reason"],
        "P3 task during P1 sprint focus"
    );
}

#[test]
fn same_inputs_give_the_same_bytes() {
    let run = || {
        let mut w = World::default();
        let a = w.start("api", R);
        w.claim(
            &a,
            &[
                "/home/u/pitchello/src/**",
                "/home/u/pitchello/b",
                "/home/u/pitchello/a",
            ],
        );
        let b = w.start("web", R);
        let mut outputs = Vec::new();
        for op in [
            json!({"operation": "claim", "instance_id": b, "files": ["/home/u/pitchello/src/x/**"]}),
            json!({"operation": "status"}),
            json!({"operation": "claim", "instance_id": b, "files": ["/home/u/pitchello/**"], "force": "why"}),
            json!({"operation": "notices", "instance_id": a}),
        ] {
            outputs.push(nso::conductor::apply(&w.request(&op)));
            w.call(op);
        }
        (outputs, w.state)
    };
    assert_eq!(run(), run());
    let (outputs, state) = run();
    assert!(outputs[1].contains("\"summary\""));
    // Keys of global_claims are sorted.
    let state: Value = serde_json::from_str(&state.unwrap()).unwrap();
    let keys: Vec<&String> = state["global_claims"].as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn claims_survive_a_write_and_read_cycle_byte_for_byte() {
    let mut w = World::default();
    let a = w.start("api", R);
    w.claim(&a, &["/home/u/pitchello/src/**"]);
    let text = w.state.clone().unwrap();
    let state = nso::conductor::state::State::parse(&text, T0).unwrap();
    assert_eq!(state.to_text(), text);
}
