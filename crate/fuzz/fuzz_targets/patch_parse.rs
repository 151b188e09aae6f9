//! `cargo +nightly fuzz run patch_parse`: patch parsing and hunk application never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nso::authority::{apply_update, parse_patch, unified_diff_files};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (patch, old) = text.split_once('\u{0}').unwrap_or((text, "a\nb\nc\n"));
    let parsed = parse_patch(patch);
    for f in &parsed.files {
        let _ = apply_update(old, &f.hunks);
    }
    let _ = unified_diff_files(patch);
});
