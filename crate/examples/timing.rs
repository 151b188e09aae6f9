//! Native timing of typical decisions: `cargo run --release --example timing`.
use std::hint::black_box;
use std::time::Instant;

use nso::authority::{Engine, Policy, Request};
use serde_json::json;

fn req(agent: &str, tool: &str, args: serde_json::Value) -> Request {
    Request {
        session_id: "ses_1".into(),
        agent: Some(agent.into()),
        tool: tool.into(),
        args,
        directory: "/work/proj".into(),
        worktree: "/work/proj".into(),
        ..Request::default()
    }
}

fn main() {
    let t = Instant::now();
    let policy = Policy::preset("kord").unwrap();
    println!("compile kord preset: {:?}", t.elapsed());
    let mut engine = Engine::new(policy);
    let cases = [
        (
            "write allow (@dev src/app.ts)",
            req(
                "dev",
                "write",
                json!({"filePath": "src/components/Button.tsx", "content": "export {}"}),
            ),
        ),
        (
            "edit allow (@dev, absolute path)",
            req(
                "dev",
                "edit",
                json!({"filePath": "/work/proj/src/app.ts", "oldString": "a", "newString": "b"}),
            ),
        ),
        (
            "write block (@build src/app.ts)",
            req(
                "build",
                "write",
                json!({"filePath": "src/app.ts", "content": "x"}),
            ),
        ),
        (
            "read allow",
            req("qa", "read", json!({"filePath": "src/app.ts"})),
        ),
        (
            "bash allow (stub: git status && cargo test)",
            req(
                "dev",
                "bash",
                json!({"command": "git status && cargo test"}),
            ),
        ),
        (
            "bash block (stub: git push origin main)",
            req("dev", "bash", json!({"command": "git push origin main"})),
        ),
        (
            "bash allow (stub: echo >> notepad)",
            req(
                "dev",
                "bash",
                json!({"command": "echo x >> docs/kord/notepads/a/l.md"}),
            ),
        ),
    ];
    for (name, r) in &cases {
        let n = 50_000;
        // Best of 7 rounds: the machine is shared, the minimum is the stable number.
        let mut per = f64::MAX;
        for _ in 0..7 {
            let t = Instant::now();
            for _ in 0..n {
                black_box(engine.decide(black_box(r)));
            }
            per = per.min(t.elapsed().as_nanos() as f64 / n as f64);
        }
        println!(
            "{name:48} {:>8.0} ns/decision  ({:?})",
            per,
            engine.evaluate(r).verdict
        );
    }
}
