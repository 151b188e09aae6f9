//! A plain allow of a `write` or `edit` that holds for any text (`Lasting::AnyText`, which a
//! shim may remember for the same call with other texts): deciding the call with each other
//! text of its shape (an empty `oldString` staying empty) gives the same plain allow, asking
//! for nothing more; and the calls whose text a check reads (append-only, sacred and status
//! files) are never answered so.

mod common;

use common::*;
use nso::authority::{Engine, Lasting, Request};
use serde_json::json;

/// Texts a call may write: plain, status words, checkboxes, a large one.
fn texts() -> Vec<String> {
    [
        "x",
        "a = 1\n",
        "- [x] done\n",
        "- [ ] todo\n",
        "[COMPLETED]\n",
        "**Status:** Done\n",
        "Status: Approved\n",
        "## Tasks\n- [x] 1\n",
    ]
    .into_iter()
    .map(str::to_string)
    .chain([format!("{}\n", "y".repeat(6000))])
    .collect()
}

const PATHS: &[&str] = &[
    "src/app.ts",
    "README.md",
    "docs/kord/plans/p.md",
    "docs/kord/plans/auth/plan.md",
    "docs/kord/plans/p.ts",
    "docs/kord/notepads/auth/learnings.md",
    "docs/kord/runs/r1.md",
    "docs/stories/1.1.story.md",
    ".opencode/specs/TODO.md",
    ".opencode/specs/state.json",
    ".opencode/specs/001_x/state.json",
    ".opencode/specs/001_x/reports/r.md",
    ".opencode/context/01_memory/decisions.md",
    ".opencode/context/active_tasks/t1/status.md",
    ".opencode/nso.json",
    ".github/workflows/ci.yml",
    "supabase/migrations/1.sql",
    "/etc/passwd",
    "../x.ts",
];

const PRESETS: &[(&str, &[&str])] = &[
    (
        "kord",
        &["dev", "plan", "build", "qa", "sm", "devops", "nobody"],
    ),
    ("nso", &["builder", "oracle", "build", "janitor"]),
    (
        "proofchecker",
        &["implementer", "planner", "orchestrator", "reviewer", "meta"],
    ),
];

/// A write (`old` None) or an edit of `path` by `agent` with `text`.
fn call(agent: &str, path: &str, old: Option<&str>, text: &str) -> Request {
    match old {
        None => req(agent, "write", json!({ "filePath": path, "content": text })),
        Some(old) => edit(agent, path, old, text),
    }
}

/// The engine's answer to `r` once the shim has looked up what it asks for (real paths as
/// given, the file existing when `exists`, its content `old content\n`), and the request
/// with those lookups.
fn answer(e: &mut Engine, mut r: Request, exists: bool) -> (Option<bool>, Lasting, Request) {
    for _ in 0..4 {
        match e.answer_lasting(&r) {
            (Err(need), _) => {
                for p in need.resolve {
                    r.resolved.insert(p.clone(), p);
                }
                for p in need.exists {
                    r.exists.insert(p, exists);
                }
                for p in need.content {
                    r.contents
                        .insert(p, exists.then(|| "old content\n".to_string()));
                }
            }
            (Ok(d), lasting) => return (Some(d.is_none()), lasting, r),
        }
    }
    panic!("lookups do not converge: {r:?}");
}

#[test]
fn an_any_text_allow_is_the_answer_for_every_text_of_its_shape() {
    let mut any_text = 0;
    let mut kept_to_its_text = 0;
    for &(preset, agents) in PRESETS {
        let mut e = engine(preset);
        e.set_status(None);
        for agent in agents {
            for path in PATHS {
                for exists in [true, false] {
                    for old in [None, Some(""), Some("old content")] {
                        let texts = texts();
                        let (plain, lasting, first) =
                            answer(&mut e, call(agent, path, old, &texts[0]), exists);
                        if lasting != Lasting::AnyText {
                            // An allow whose check read the text: kept to it.
                            if plain == Some(true) && !first.contents.is_empty() {
                                kept_to_its_text += 1;
                            }
                            continue;
                        }
                        any_text += 1;
                        assert_eq!(plain, Some(true), "{first:?}");
                        assert!(first.contents.is_empty(), "{first:?}");
                        for text in &texts[1..] {
                            // The call with another text, its lookups as the shim would keep
                            // them: a fresh engine (no memory) decides it in full.
                            let mut other = call(agent, path, old, text);
                            other.resolved = first.resolved.clone();
                            other.exists = first.exists.clone();
                            let mut fresh = engine(preset);
                            fresh.set_status(None);
                            assert!(fresh.lookups(&other).is_empty(), "{other:?}");
                            let full = fresh.decide(&other);
                            assert!(full.is_plain(), "{other:?}: {full:?}");
                            let (answer, lasting) = fresh.answer_lasting(&other);
                            assert_eq!(answer, Ok(None), "{other:?}");
                            // Arguments over the memory's bound never last; the rest hold for
                            // any text again.
                            if text.len() < 4000 {
                                assert_eq!(lasting, Lasting::AnyText, "{other:?}");
                            }
                        }
                    }
                }
            }
        }
    }
    // Neither side is empty: many allows hold for any text, and the allows whose checks read
    // the text (a sacred plan ticked, a notepad appended to, a status moved) are kept to it.
    assert!(any_text > 100, "{any_text} any-text allows");
    assert!(
        kept_to_its_text > 0,
        "{kept_to_its_text} kept to their text"
    );
}

#[test]
fn calls_whose_text_a_check_reads_are_kept_to_it() {
    // Each decided with the file's content looked up, or by the status machines.
    let cases = [
        ("kord", "dev", "docs/kord/notepads/auth/learnings.md"),
        ("kord", "build", "docs/kord/plans/p.md"),
        ("kord", "sm", "docs/stories/1.1.story.md"),
        (
            "proofchecker",
            "planner",
            ".opencode/specs/001_x/reports/r.md",
        ),
        ("nso", "builder", ".opencode/context/01_memory/decisions.md"),
    ];
    for (preset, agent, path) in cases {
        let mut e = engine(preset);
        e.set_status(None);
        for exists in [true, false] {
            for old in [None, Some("old content")] {
                let (_, lasting, r) =
                    answer(&mut e, call(agent, path, old, "- [x] done\n"), exists);
                let reads_text = !r.contents.is_empty();
                assert!(
                    lasting != Lasting::AnyText || !reads_text,
                    "{r:?} answered for any text"
                );
            }
        }
    }
    // A write that a check reads: the file's content was asked for, so never any text.
    let mut e = engine("kord");
    let (plain, lasting, r) = answer(
        &mut e,
        call(
            "dev",
            "docs/kord/notepads/auth/learnings.md",
            Some("old content\n"),
            "old content\nmore\n",
        ),
        true,
    );
    assert_eq!(plain, Some(true), "{r:?}");
    assert_ne!(lasting, Lasting::AnyText, "{r:?}");
    // A plain write of source: any text.
    let (plain, lasting, _) = answer(&mut e, call("dev", "src/app.ts", None, "x"), true);
    assert_eq!((plain, lasting), (Some(true), Lasting::AnyText));
    // An edit creating a file (empty oldString) and one changing it are told apart by shape:
    // each holds for its own.
    let (_, lasting, _) = answer(&mut e, call("dev", "src/new.ts", Some(""), "x"), false);
    assert_eq!(lasting, Lasting::AnyText);
}
