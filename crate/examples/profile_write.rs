//! One write decision in a loop, for `valgrind --tool=callgrind` (instruction counts).
use nso::authority::{Engine, Policy, Request};

fn main() {
    let mut engine = Engine::new(Policy::preset("nso").expect("preset"));
    let json = format!(
        r#"{{"sessionId":"s","agent":"build","directory":"/tmp/p1","worktree":"/tmp/p1","tool":"write","args":{{"filePath":"src/app.ts","content":"{}"}},"resolved":{{"src/app.ts":"/tmp/p1/src/app.ts"}},"exists":{{"src/app.ts":true}}}}"#,
        "x".repeat(200)
    );
    for _ in 0..20_000 {
        let req: Request = serde_json::from_str(&json).expect("request");
        std::hint::black_box(engine.decide_or_lookups(&req).expect("decided"));
    }
}
