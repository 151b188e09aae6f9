//! cargo-fuzz target: `analyze` must never panic, and its output must stay bounded.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nso::shell::{analyze, summary};

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    let a = analyze(&input);
    assert!(a.steps.len() <= 1025);
    for s in &a.steps {
        assert!(s.snippet.len() <= 124);
    }
    let _ = summary(&a);
});
