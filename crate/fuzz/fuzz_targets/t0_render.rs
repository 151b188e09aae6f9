//! `cargo +nightly fuzz run t0_render`: reading a raw lane or an export, rendering its T0
//! transcripts and redacting never panic; rendering is deterministic and redaction
//! idempotent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nso::continuity::events::{from_export, from_lane};
use nso::continuity::policy::T0Policy;
use nso::continuity::redact::redact;
use nso::continuity::t0::render;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let once = redact(text).into_owned();
    assert_eq!(redact(&once), once, "redaction is idempotent");
    let policy = T0Policy::from_json(&serde_json::json!({
        "snippets": {"bash": 64, "nso_*": 300},
        "reasoning": true,
        "redact": {"prefixes": ["acme_"], "keys": ["pin"]}
    }))
    .expect("a valid policy");
    for normalized in [from_lane(text), from_export(text)] {
        for session in &normalized.sessions {
            let a = render(session, &policy, Some("/p"));
            let b = render(session, &policy, Some("/p"));
            assert_eq!(a, b, "rendering is deterministic");
            let _ = render(session, &T0Policy::default(), None);
        }
    }
});
