//! Native timing of the conductor: `cargo run --release --example conductor_timing`.
//!
//! A `claim` through [`nso::conductor::apply`] (request parse, state parse, decision, state
//! written) with 100, 1,000 and 10,000 existing claims held by other instances, and `covers`
//! on 10 patterns. A new claim must cost time linear in the number of existing claims.

use std::hint::black_box;
use std::time::{Duration, Instant};

use nso::conductor::{apply, covers};
use serde_json::{json, Value};

/// A state of 10 instances holding `claims` claims in all: mostly files, some folders, and
/// every tenth a glob that starts wide (`src/**/...`), so the full intersection runs too.
fn state_with(claims: usize) -> String {
    let per = claims / 10;
    let instances: Vec<Value> = (0..10)
        .map(|k| {
            let files: Vec<String> = (0..per)
                .map(|i| match i % 10 {
                    0 => format!("/home/u/proj/src/**/*.gen{k}x{i}.ts"),
                    1 => format!("/home/u/proj/src/mod{k}/part{i}/**"),
                    _ => format!("/home/u/proj/src/mod{k}/part{}/file{i}.ts", i / 10),
                })
                .collect();
            json!({
                "id": format!("opc-{k:06}"), "source": "opc", "project": "proj",
                "task": "work", "priority": "P1", "files_claimed": files,
                "started_at": "2026-11-23T10:00:00Z", "last_heartbeat": "2026-11-23T10:00:00Z",
                "working_directory": "/home/u/proj", "host": "here", "pid": 100 + k,
            })
        })
        .chain(std::iter::once(json!({
            "id": "opc-claimr", "started_at": "2026-11-23T10:00:00Z", "host": "here",
        })))
        .collect();
    json!({"version": "2.0", "instances": instances}).to_string()
}

fn time<F: FnMut()>(mut f: F) -> Duration {
    // Warm up, then take the best of a few runs of a batch.
    f();
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..5 {
            f();
        }
        best = best.min(t.elapsed() / 5);
    }
    best
}

fn main() {
    let alive: serde_json::Map<String, Value> = (0..10)
        .map(|k| (format!("opc-{k:06}"), json!(true)))
        .chain(std::iter::once(("opc-claimr".to_string(), json!(true))))
        .collect();
    let mut per_claim = Vec::new();
    for n in [100usize, 1_000, 10_000] {
        let state = state_with(n);
        let request = json!({
            "state": state, "now": "2026-11-23T10:01:00Z", "host": "here", "alive": alive,
            "op": {"operation": "claim", "instance_id": "opc-claimr",
                   "files": ["/home/u/proj/src/new/feature.ts", "/home/u/proj/docs/new/**"]},
        })
        .to_string();
        let response: Value = serde_json::from_str(&apply(&request)).unwrap();
        assert_eq!(response["result"]["status"], "ok", "{}", response["result"]);
        let conflicting = request.replace("src/new/feature.ts", "src/mod3/part0/file5.ts");
        let response: Value = serde_json::from_str(&apply(&conflicting)).unwrap();
        assert_eq!(response["result"]["status"], "conflict");
        let ok = time(|| {
            black_box(apply(black_box(&request)));
        });
        let refused = time(|| {
            black_box(apply(black_box(&conflicting)));
        });
        println!(
            "claim with {n:>6} existing claims ({:>7} bytes of state): granted {:>9.3?}, refused {:>9.3?}",
            state.len(),
            ok,
            refused
        );
        per_claim.push(ok.as_secs_f64() / n as f64);
    }
    println!(
        "time per existing claim: {:.0} ns (100), {:.0} ns (1,000), {:.0} ns (10,000)",
        per_claim[0] * 1e9,
        per_claim[1] * 1e9,
        per_claim[2] * 1e9
    );
    let patterns: Vec<String> = (0..10)
        .map(|i| match i % 3 {
            0 => format!("/home/u/proj/src/mod{i}/**"),
            1 => format!("/home/u/proj/src/**/*.gen{i}.ts"),
            _ => format!("/home/u/proj/src/mod{i}/file.ts"),
        })
        .collect();
    let hit = "/home/u/proj/src/mod9/x/y.ts";
    assert!(covers(&patterns, hit));
    let miss = "/home/u/proj/lib/a.ts";
    assert!(!covers(&patterns, miss));
    for (name, path) in [("hit (last pattern)", hit), ("miss", miss)] {
        let once = time(|| {
            for _ in 0..1000 {
                black_box(covers(black_box(&patterns), black_box(path)));
            }
        }) / 1000;
        println!("covers on 10 patterns, {name}: {once:.2?}");
    }
}
