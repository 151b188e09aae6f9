//! `cargo +nightly fuzz run policy_parse`: the policy parser and compiler never panic, and a
//! policy that compiles can decide a few calls.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nso::authority::{Engine, Policy, Request};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(policy) = Policy::from_config_json(text, "fuzz") {
        let mut engine = Engine::new(policy);
        for (tool, args) in [
            (
                "write",
                serde_json::json!({"filePath": "src/a.ts", "content": "x"}),
            ),
            (
                "bash",
                serde_json::json!({"command": "git push && rm -rf ."}),
            ),
        ] {
            let req = Request {
                session_id: "fuzz".into(),
                agent: Some("dev".into()),
                tool: tool.into(),
                args,
                directory: "/p".into(),
                worktree: "/p".into(),
                ..Request::default()
            };
            let _ = engine.decide(&req);
        }
    }
});
