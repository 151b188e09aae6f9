//! `cargo +nightly fuzz run conductor_apply`: the conductor never panics, whatever the request,
//! the state text or the patterns.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nso::conductor::{apply, covers, intersects};
use serde_json::json;

/// A valid state: one instance holding a folder claim, and a second to claim against it.
const STATE: &str = r#"{"version":"2.0","instances":[{"id":"opc-aaaaaa","files_claimed":["/r/src/**"],
"started_at":"2026-11-23T10:00:00Z","host":"h"},{"id":"opc-bbbbbb"}]}"#;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The whole input as a request.
    let _ = apply(text);
    // The input as a state, under a few operations.
    let ops = [
        json!({"operation": "status"}),
        json!({"operation": "claim", "instance_id": "opc-aaaaaa", "files": ["/r/src/a.ts"]}),
        json!({"operation": "cleanup", "max_age_minutes": 1}),
    ];
    for op in &ops {
        let request = json!({"state": text, "now": "2026-11-23T10:00:00Z", "random": "abc123",
                             "host": "h", "alive": {"opc-aaaaaa": false}, "op": op});
        let _ = apply(&request.to_string());
    }
    // The input as two patterns: intersection, coverage, and a claim against a holder.
    let (a, b) = text.split_once('\n').unwrap_or((text, "/r/**"));
    let _ = intersects(a, b);
    let _ = covers(&[a.to_string()], b);
    let claim = json!({"operation": "claim", "instance_id": "opc-bbbbbb", "files": [a, b],
                       "force": "fuzz"});
    let start = json!({"operation": "start", "task": b, "priority": a, "automatic": true});
    for op in [claim, start] {
        let request = json!({"state": STATE,
                             "sprint": a, "now": "2026-11-23T10:00:00Z", "random": "abc123",
                             "host": "h", "alive": {}, "op": op});
        let _ = apply(&request.to_string());
    }
});
