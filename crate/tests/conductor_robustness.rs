//! Deterministic random inputs: `conductor::apply` never panics, always answers well-formed
//! JSON, and no sequence of operations ever leaves two instances holding intersecting claims.

mod rng;

use nso::conductor::{apply, intersects};
use rng::Rng;
use serde_json::{json, Value};

const PATTERNS: &[&str] = &[
    "/r/src/api/**",
    "/r/src/api/users.ts",
    "/r/src/**/*.ts",
    "/r/src/*.ts",
    "/r/src/a/b.ts",
    "/r/src/",
    "/r/README.md",
    "/r/{src,lib}/*.rs",
    "/r/lib/[a-m]*.rs",
    "/r/**",
    "/s/src/api/**",
    "/r/src/a?.ts",
    "/r/x[",
    "relative/a.ts",
    "/r/../etc",
    "",
];

const TIMES: &[&str] = &[
    "2026-11-23T10:00:00Z",
    "2026-11-23T10:00:00Z",
    "2026-11-23T10:01:00Z",
    "2026-11-23T10:02:00Z",
    "2026-11-23T10:05:00Z",
    "2026-11-23T10:20:00Z",
    "2026-11-23T09:00:00Z",
    "2026-11-23T12:00:00.5+01:00",
    "not a time",
];

fn random_op(rng: &mut Rng, ids: &[String]) -> Value {
    let id = if ids.is_empty() || rng.chance(10) {
        json!(format!("opc-{:06}", rng.below(1000)))
    } else {
        json!(rng.pick(ids))
    };
    let files: Vec<&str> = (0..1 + rng.below(3)).map(|_| *rng.pick(PATTERNS)).collect();
    let mut op = match rng.below(11) {
        0 | 1 => json!({
            "operation": "start", "task": *rng.pick(&["Fix auth", "Refactoring", "Docs\nmore"]),
            "priority": *rng.pick(&["P1", "P2", "P3", "p1", ""]),
            "working_directory": "/r", "project_root": "/r", "pid": rng.below(5),
            "host": *rng.pick(&["here", "there"]), "agent": "dev",
            "automatic": rng.chance(30),
        }),
        2..=4 => json!({"operation": "claim", "instance_id": id, "files": files}),
        5 => json!({"operation": "claim", "instance_id": id, "files": files,
                     "force": "taking over\nnow", "by": "mario"}),
        6 => json!({"operation": "release", "instance_id": id, "files": files,
                     "all": rng.chance(30)}),
        7 => json!({"operation": "done", "instance_id": id, "files_modified": files}),
        8 => json!({"operation": *rng.pick(&["heartbeat", "notices", "attach"]),
                     "instance_id": id, "session": "ses_x"}),
        9 => json!({"operation": "cleanup", "max_age_minutes": rng.below(30)}),
        _ => json!({"operation": *rng.pick(&["status", "fly", ""])}),
    };
    // Now and then a field of the wrong type.
    if rng.chance(5) {
        let key = *rng.pick(&[
            "files",
            "instance_id",
            "force",
            "pid",
            "priority",
            "operation",
        ]);
        op[key] = json!([1, {"x": null}]);
    }
    op
}

fn check_response(text: &str) -> Value {
    let response: Value = serde_json::from_str(text).expect("responses are JSON");
    for key in ["state", "result", "history", "conflicts"] {
        assert!(response.get(key).is_some(), "missing {key}: {text:.300}");
    }
    if response.get("error").is_some() {
        assert!(response["state"].is_null());
        let code = response["error"]["code"].as_str().unwrap();
        assert!(["state_corrupt", "bad_request", "unknown_instance"].contains(&code));
    }
    for line in response["history"].as_array().unwrap() {
        serde_json::from_str::<Value>(line.as_str().unwrap()).expect("history lines are JSON");
    }
    for line in response["conflicts"].as_array().unwrap() {
        assert!(!line.as_str().unwrap().contains('\n'), "one line per entry");
    }
    response
}

/// No two instances hold intersecting claims.
fn assert_exclusive(state: &Value) {
    let instances = state["instances"].as_array().unwrap();
    for (i, a) in instances.iter().enumerate() {
        for b in instances.iter().skip(i + 1) {
            for pa in a["files_claimed"].as_array().unwrap() {
                for pb in b["files_claimed"].as_array().unwrap() {
                    let (pa, pb) = (pa.as_str().unwrap(), pb.as_str().unwrap());
                    assert!(
                        !intersects(pa, pb),
                        "{} holds {pa} and {} holds {pb}",
                        a["id"],
                        b["id"]
                    );
                }
            }
        }
    }
}

#[test]
fn random_operation_sequences_keep_claims_exclusive() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut granted, mut refused, mut forced) = (0, 0, 0);
    for _round in 0..100 {
        let mut state: Option<String> = None;
        let mut ids: Vec<String> = Vec::new();
        for step in 0..60 {
            let op = random_op(&mut rng, &ids);
            let alive: serde_json::Map<String, Value> = ids
                .iter()
                .map(|id| (id.clone(), json!(rng.chance(98))))
                .collect();
            let request = json!({
                "state": state, "now": *rng.pick(TIMES), "random": format!("{:06}", step),
                "host": "here", "alive": alive, "ttlSeconds": 900,
                "sprint": if rng.chance(30) { json!("{\"focus\": \"P1\"}") } else { Value::Null },
                "op": op,
            });
            let response = check_response(&apply(&request.to_string()));
            let result = &response["result"];
            if op_is_claim(&request) {
                match result["status"].as_str() {
                    Some("ok") if result.get("forced").is_some() => forced += 1,
                    Some("ok") => granted += 1,
                    Some("conflict") => refused += 1,
                    _ => {}
                }
            }
            if let Some(id) = response["result"]["instance_id"].as_str() {
                if !ids.iter().any(|i| i == id) {
                    ids.push(id.to_string());
                }
            }
            if let Some(text) = response["state"].as_str() {
                let parsed: Value = serde_json::from_str(text).unwrap();
                assert_exclusive(&parsed);
                state = Some(text.to_string());
            }
        }
    }
    assert!(
        granted > 150 && refused > 25 && forced > 10,
        "claims exercised: {granted} granted, {refused} refused, {forced} forced"
    );
}

fn op_is_claim(request: &Value) -> bool {
    request["op"]["operation"] == "claim"
}

#[test]
fn mangled_states_and_requests_never_panic() {
    let mut rng = Rng(0xDEAD_BEEF_CAFE_F00D);
    let good = json!({
        "version": "2.0",
        "instances": [{"id": "opc-000001", "files_claimed": ["/r/src/**", "src/a.ts"],
                       "started_at": "2026-11-23T10:00:00Z", "host": "here", "pid": 3,
                       "forced": [{"pattern": "/r/x"}], "sessions": ["s"]}],
        "global_claims": {"/r/src/**": "opc-000001", "b": "opc-000001"},
        "drift_warnings": [{"instance_id": "opc-000001", "reason": "r"}],
    })
    .to_string();
    let pieces = [
        "{", "}", "[", "]", ",", ":", "\"", "null", "1e999", "-1", "\\u0000", "\"/**\"",
    ];
    for _ in 0..3000 {
        let mut text = good.clone().into_bytes();
        for _ in 0..1 + rng.below(4) {
            match rng.below(3) {
                0 if !text.is_empty() => {
                    let at = rng.below(text.len());
                    text[at] = rng.next() as u8;
                }
                1 if !text.is_empty() => {
                    let at = rng.below(text.len());
                    text.truncate(at);
                }
                _ => {
                    let at = rng.below(text.len() + 1);
                    let piece = rng.pick(&pieces).as_bytes().to_vec();
                    text.splice(at..at, piece);
                }
            }
        }
        let state = String::from_utf8_lossy(&text).into_owned();
        let op = random_op(&mut rng, &["opc-000001".to_string()]);
        let request = json!({
            "state": state, "now": "2026-11-23T10:00:00Z", "random": "abc123",
            "host": "here", "alive": {"opc-000001": rng.chance(50)}, "op": op,
        });
        check_response(&apply(&request.to_string()));
        // The request itself mangled.
        let mut raw = request.to_string().into_bytes();
        let at = rng.below(raw.len());
        raw[at] = *rng.pick(b"{}[],:\"x0");
        check_response(&apply(&String::from_utf8_lossy(&raw)));
    }
}
