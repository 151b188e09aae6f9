//! `cargo +nightly fuzz run mind_ingest`: distilling a raw lane or an export into Mind's
//! observations never panics, is deterministic and idempotent (what was kept is not appended
//! again), and a provider's answer, whatever it is, is merged or refused without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nso::continuity::redact::Redactor;
use nso::mind::distill::{distill, Kept};
use nso::mind::provider::refine_observations;
use nso::mind::MindSettings;
use serde_json::json;
use std::collections::HashMap;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let settings = MindSettings::from_json(&json!({
        "segments": {"auth": {"paths": ["src/auth/**"], "tasks": ["todo:1*"], "keywords": ["login"]}},
        "chunkEvents": 7,
        "reflectAfter": 2,
        "provider": {"name": "fuzz", "command": ["x"], "maxInputBytes": 4096, "maxOutputBytes": 4096}
    }))
    .expect("valid settings");
    let redactor = Redactor::new(&["acme_".to_string()], &["pin".to_string()]);
    for export in [false, true] {
        let a = distill(text, export, Some("/p"), &settings, &HashMap::new(), &redactor);
        let b = distill(text, export, Some("/p"), &settings, &HashMap::new(), &redactor);
        assert_eq!(
            serde_json::to_string(&a.append).unwrap(),
            serde_json::to_string(&b.append).unwrap(),
            "distilling is deterministic"
        );
        let known: HashMap<String, Kept> = a
            .append
            .iter()
            .map(|o| (o.id.clone(), Kept { rev: o.rev.clone(), basis: None }))
            .collect();
        let again = distill(text, export, Some("/p"), &settings, &known, &redactor);
        assert!(again.append.is_empty(), "nothing kept is appended again");
        let _ = nso::mind::reflect::reflect(&a.append, &settings);
        // The input as a provider's answer to each pass.
        let provider = settings.provider.as_ref().unwrap();
        for pass in &a.passes {
            let records: Vec<_> = a.append.iter().filter(|o| pass.ids.contains(&o.id)).cloned().collect();
            if let Ok(out) = refine_observations(&records, text, &redactor, provider) {
                assert_eq!(out.len(), records.len(), "an answer never adds or drops records");
            }
        }
    }
});
