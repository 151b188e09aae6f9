//! Native timing of the boundary's work for one call: parse the request JSON, look up what
//! the shim must answer, decide. `cargo run --release --example decide_timing`.
use nso::authority::{Engine, Policy, Request};
use std::time::Instant;

fn main() {
    let mut engine = Engine::new(Policy::preset("nso").expect("preset"));
    let base = r#""sessionId":"s","agent":"build","directory":"/tmp/p1","worktree":"/tmp/p1","contents":{},"exists":{"src/app.ts":true}"#;
    let write = format!(
        r#"{{{base},"tool":"write","args":{{"filePath":"src/app.ts","content":"{}"}},"resolved":{{"src/app.ts":"/tmp/p1/src/app.ts"}}}}"#,
        "x".repeat(200)
    );
    let bash = format!(
        r#"{{{base},"tool":"bash","args":{{"command":"cd src && git -C .. status --short | tee ../out.txt && VAR=1 bash -lc \"git log -1\" 2>/dev/null"}},"resolved":{{"/tmp/p1/out.txt":"/tmp/p1/out.txt"}}}}"#
    );
    for (name, json) in [("write", &write), ("bash", &bash)] {
        let n = 200_000;
        let mut parse = 0u128;
        let mut look = 0u128;
        let mut dec = 0u128;
        for _ in 0..n {
            let t0 = Instant::now();
            let req: Request = serde_json::from_str(json).expect("request");
            let t1 = Instant::now();
            let l = engine.lookups(&req);
            let t2 = Instant::now();
            let d = engine.decide_or_lookups(&req).expect("no lookups");
            let t3 = Instant::now();
            std::hint::black_box((l, d));
            parse += (t1 - t0).as_nanos();
            look += (t2 - t1).as_nanos();
            dec += (t3 - t2).as_nanos();
        }
        let per = |x: u128| x / n as u128;
        println!(
            "{name}: parse {} ns, lookups alone {} ns, decide_or_lookups {} ns",
            per(parse),
            per(look),
            per(dec)
        );
    }
}
