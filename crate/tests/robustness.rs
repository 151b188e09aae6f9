//! Deterministic random inputs: parsers and the engine never panic.

mod common;

mod rng;

use common::*;
use nso::authority::{
    absolute, apply_update, classify, parse_patch, preset_json, Engine, Glob, Policy, Request,
    Roots,
};
use rng::Rng;
use serde_json::{json, Map, Value};

const WORDS: &[&str] = &[
    "preset",
    "kord",
    "nso",
    "none",
    "agents",
    "rules",
    "defaults",
    "appendOnly",
    "sacred",
    "outsideProject",
    "tools",
    "caseInsensitive",
    "id",
    "effect",
    "allow",
    "block",
    "soft",
    "warn",
    "ops",
    "read",
    "write",
    "create",
    "delete",
    "opaque",
    "git",
    "push",
    "merge",
    "paths",
    "except",
    "**",
    "src/**",
    "/tmp/**",
    "[",
    "{a,b",
    "*",
    "dev",
    "devops",
    "*",
    "like",
    "aliases",
    "displayNames",
    "exclusive",
    "disabled",
    "instead",
    "reason",
    "class",
    "pathArgs",
    "authors",
    "tickers",
    "kord.delete",
    "kord.git.push",
    "",
    "é",
    "@",
    "~",
    "..",
    "\u{0}",
];

fn random_value(r: &mut Rng, depth: usize) -> Value {
    match if depth > 3 { r.below(4) } else { r.below(7) } {
        0 => Value::Null,
        1 => json!(r.below(2) == 0),
        2 => json!(r.below(1000)),
        3 => json!(*r.pick(WORDS)),
        4 | 5 => {
            let mut m = Map::new();
            for _ in 0..r.below(5) {
                m.insert(r.pick(WORDS).to_string(), random_value(r, depth + 1));
            }
            Value::Object(m)
        }
        _ => Value::Array(
            (0..r.below(4))
                .map(|_| random_value(r, depth + 1))
                .collect(),
        ),
    }
}

#[test]
fn policy_parser_never_panics() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3000 {
        let v = random_value(&mut r, 0);
        let _ = Policy::from_config_json(&v.to_string(), "fuzz");
    }
    // Mutations of a real preset: byte flips, cuts and splices.
    let base = preset_json("kord").unwrap().as_bytes().to_vec();
    for _ in 0..1500 {
        let mut b = base.clone();
        for _ in 0..1 + r.below(4) {
            let i = r.below(b.len());
            match r.below(3) {
                0 => b[i] = *r.pick(b"{}[]\",:*/\\ ab0"),
                1 => {
                    b.remove(i);
                }
                _ => {
                    let j = r.below(b.len());
                    let chunk: Vec<u8> = b[i.min(j)..i.max(j).min(i.min(j) + 40)].to_vec();
                    let at = r.below(b.len());
                    b.splice(at..at, chunk);
                }
            }
        }
        let text = String::from_utf8_lossy(&b);
        let mut v: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(_) => continue,
        };
        if v.is_object() {
            v["preset"] = json!("none");
        }
        let _ = Policy::from_config_value(&v, "fuzz", "");
    }
}

const PATCH_LINES: &[&str] = &[
    "*** Begin Patch",
    "*** End Patch",
    "*** Add File: a.txt",
    "*** Update File: b.txt",
    "*** Delete File: c.txt",
    "*** Move to: d.txt",
    "*** End of File",
    "@@",
    "@@ fn main",
    " context",
    "-old",
    "+new",
    "",
    "garbage",
    " ",
    "-",
    "+",
    "*** Update File:",
    "é",
    "\r",
    "@@@",
    "*** Add File: ../../etc/x",
    "  *** Delete File: src/x",
];

#[test]
fn patch_parser_never_panics() {
    let mut r = Rng(12345);
    for _ in 0..5000 {
        let lines: Vec<&str> = (0..r.below(14)).map(|_| *r.pick(PATCH_LINES)).collect();
        let text = lines.join(if r.below(4) == 0 { "\r\n" } else { "\n" });
        let p = parse_patch(&text);
        let old: Vec<&str> = (0..r.below(6))
            .map(|_| *r.pick(&["old", "context", "", "é", "x"]))
            .collect();
        let old = old.join("\n");
        for f in &p.files {
            let _ = apply_update(&old, &f.hunks);
        }
        let args = json!({"patchText": text});
        let _ = classify("apply_patch", &args);
        let _ = classify("patch", &json!({"diff": text.replace("*** ", "--- ")}));
    }
}

#[test]
fn globs_never_panic_and_stay_fast() {
    let mut r = Rng(777);
    let alphabet = [
        "*", "?", "[", "]", "!", "^", "-", "{", "}", ",", "\\", "/", "a", "b", ".", "**", "é", "~",
    ];
    let paths = [
        "",
        "a",
        "a/b",
        ".a/b.c",
        "ab/ba/aab",
        "é/a",
        "a//b",
        "/a/b",
        "[",
        "*",
    ];
    for _ in 0..20000 {
        let p: String = (0..1 + r.below(10)).map(|_| *r.pick(&alphabet)).collect();
        for ci in [false, true] {
            if let Ok(g) = Glob::new(&p, ci) {
                for path in paths {
                    let _ = g.matches(path, ci);
                    let _ = g.matches_or_below(path, ci);
                }
            }
        }
    }
}

#[test]
fn engine_never_panics_on_random_requests() {
    let tools = [
        "write",
        "edit",
        "multiedit",
        "apply_patch",
        "patch",
        "bash",
        "read",
        "glob",
        "grep",
        "task",
        "mcp_x",
        "story_update",
        "WRITE",
        "",
    ];
    let path_words = [
        "src/a.ts",
        "../x",
        "/etc/p",
        "~/x",
        "",
        ".",
        "docs/kord/plans/a.md",
        "docs/kord/notepads/n.md",
        "a//b/../c",
        "é",
        "/work/proj",
        "\u{0}",
    ];
    let commands = [
        "git push",
        "rm -rf .",
        "echo x >> docs/kord/notepads/n.md",
        "cd $X && rm y",
        "eval x",
        "cd ~ && touch z",
        "",
        "&&",
        ";;",
        "> ",
        "git",
        "gh pr",
    ];
    let agents = [
        "dev",
        "build",
        "plan",
        "ghost",
        "",
        "@DEV",
        "Prometheus (Plan Builder)",
    ];
    for preset in ["kord", "nso"] {
        let mut e: Engine = engine(preset);
        let mut r = Rng(4242);
        for i in 0..3000 {
            let tool = *r.pick(&tools);
            let mut args = random_value(&mut r, 1);
            if let Value::Object(m) = &mut args {
                m.insert("filePath".into(), json!(*r.pick(&path_words)));
                m.insert("command".into(), json!(*r.pick(&commands)));
                if r.below(3) == 0 {
                    m.insert("oldString".into(), json!(*r.pick(&["", "x", "- [ ]"])));
                    m.insert("newString".into(), json!(*r.pick(&["", "x", "- [x]"])));
                }
            }
            let mut req = Request {
                session_id: format!("s{}", i % 7),
                agent: Some(r.pick(&agents).to_string()),
                tool: tool.to_string(),
                args,
                directory: r
                    .pick(&["/work/proj", "/work/proj/sub", "", "rel", "/"])
                    .to_string(),
                worktree: r.pick(&["/work/proj", "", "/", "/work/proj/"]).to_string(),
                ..Request::default()
            };
            if r.below(3) == 0 {
                req.resolved.insert(
                    r.pick(&path_words).to_string(),
                    r.pick(&path_words).to_string(),
                );
            }
            for p in e.required_content(&req) {
                req.contents.insert(
                    p,
                    if r.below(2) == 0 {
                        None
                    } else {
                        Some("x\n- [ ] a\n".into())
                    },
                );
            }
            let _ = e.required_exists(&req);
            let d = e.decide(&req);
            if d.verdict == nso::authority::Verdict::Block {
                assert!(d.message.is_some());
            }
            let _ = e.explain(&req);
        }
    }
}

#[test]
fn path_normalisation_never_panics() {
    let mut r = Rng(99);
    let parts = ["a", "..", ".", "", "/", "~", "é", "//", "\\", "\u{0}"];
    for _ in 0..20000 {
        let p: String = (0..r.below(8)).map(|_| *r.pick(&parts)).collect();
        let base: String = (0..r.below(5)).map(|_| *r.pick(&parts)).collect();
        let wt = format!("/{base}");
        let roots = Roots::new(&wt, &base, r.below(2) == 0);
        let loc = roots.locate(&p);
        let _ = roots.absolute_of(&loc);
        // The fast paths agree with plain join-and-normalise.
        if !p.is_empty() && !p.contains('\u{0}') && !p.starts_with('~') {
            if let Some(b) = roots.base.as_deref() {
                assert_eq!(loc, roots.place(absolute(b, &p)), "{p:?} from {base:?}");
            }
        }
        let _ = roots.with_base(&p).locate(&base);
    }
}
