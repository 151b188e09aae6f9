//! Native timing of the boundary's work for one call: parse the request JSON, look up what
//! the shim must answer, decide. `cargo run --release --example decide_timing`.
//!
//! Decisions reuse the last bash analysis (`analyze_memo`), so the bash analysis itself is
//! timed separately at the end: the command above, and commands with indirection written
//! out (variables, a loop over a glob, `eval`, a git alias) that are resolved statically.
use nso::authority::{Engine, Policy, Request};
use std::time::Instant;

/// Commands whose analysis is timed without the memo.
const ANALYZED: &[(&str, &str)] = &[
    (
        "plain",
        r#"cd src && git -C .. status --short | tee ../out.txt && VAR=1 bash -lc "git log -1" 2>/dev/null"#,
    ),
    (
        "variable",
        "g=git; cd src && $g status --short | tee ../out.txt",
    ),
    (
        "for-glob",
        r#"for f in src/*.ts; do sed -i 's/var /let /g' "$f"; done"#,
    ),
    (
        "eval",
        r#"eval "git status --short" && git -c alias.st=status st"#,
    ),
];

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
    for (name, cmd) in ANALYZED {
        let n = 200_000;
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(nso::shell::analyze(std::hint::black_box(cmd)));
        }
        println!("analyze {name}: {} ns", t.elapsed().as_nanos() / n as u128);
    }
}
