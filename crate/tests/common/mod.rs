//! Helpers shared by the integration tests.
#![allow(dead_code)]

use nso::authority::{Decision, Engine, Policy, Request, Verdict};
use serde_json::{json, Value};

pub const WT: &str = "/work/proj";

/// Presets and agents to decide every corpus command for: each preset's own agents, and one
/// no policy knows.
pub const PRESET_AGENTS: &[(&str, &[&str])] = &[
    ("kord", &["dev", "devops", "qa", "plan", "build", "nobody"]),
    ("nso", &["build", "janitor", "plan"]),
];

/// The commands of `shell_corpus.tsv` and `bash_policy_cases.tsv`.
pub fn corpus_commands() -> Vec<String> {
    let corpus = include_str!("../shell_corpus.tsv")
        .lines()
        // Cases have TAB-separated columns; comment lines have none.
        .filter(|l| l.contains('\t'))
        .filter_map(|l| l.split('\t').next())
        .map(|c| c.replace('↵', "\n").replace('⇥', "\t"));
    let cases = include_str!("../bash_policy_cases.tsv")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split('\t').nth(1))
        .map(|c| c.replace("\\n", "\n").replace("\\t", "\t"));
    corpus.chain(cases).collect()
}

pub fn engine(preset: &str) -> Engine {
    Engine::new(Policy::preset(preset).expect("preset compiles"))
}

pub fn engine_with(config: &str) -> Engine {
    Engine::new(Policy::from_config_json(config, ".opencode/nso.json").expect("config compiles"))
}

pub fn req(agent: &str, tool: &str, args: Value) -> Request {
    Request {
        session_id: "ses_test".to_string(),
        agent: if agent.is_empty() {
            None
        } else {
            Some(agent.to_string())
        },
        tool: tool.to_string(),
        args,
        directory: WT.to_string(),
        worktree: WT.to_string(),
        ..Request::default()
    }
}

pub fn abs(path: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{WT}/{path}")
    }
}

/// A request for one path operation through the native tools:
/// read → `read`; write → `edit` of an existing file (appending to it);
/// create → `write` of a missing file; delete → `apply_patch` Delete File.
pub fn op_request(agent: &str, op: &str, path: &str) -> Request {
    let mut contents = nso::authority::FastMap::default();
    let r = match op {
        "read" => req(agent, "read", json!({ "filePath": path })),
        "write" => {
            contents.insert(abs(path), Some("old line\n".to_string()));
            req(
                agent,
                "edit",
                json!({ "filePath": path, "oldString": "old line\n", "newString": "old line\nnew line\n" }),
            )
        }
        "create" => {
            contents.insert(abs(path), None);
            req(
                agent,
                "write",
                json!({ "filePath": path, "content": "new file\n" }),
            )
        }
        "delete" => {
            contents.insert(abs(path), Some("old line\n".to_string()));
            req(
                agent,
                "apply_patch",
                json!({ "patchText": format!("*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n") }),
            )
        }
        other => panic!("unknown op {other}"),
    };
    Request { contents, ..r }
}

/// `r` with every lookup the engine asks for answered (the paths exist where given), as the
/// shim's second round sends it.
pub fn answered(e: &Engine, mut r: Request) -> Request {
    let need = e.lookups(&r);
    for p in need.resolve {
        r.resolved.insert(p.clone(), p);
    }
    for p in need.exists {
        r.exists.insert(p, true);
    }
    r
}

pub fn bash(agent: &str, command: &str) -> Request {
    req(agent, "bash", json!({ "command": command }))
}

pub fn decide(e: &mut Engine, r: &Request) -> Decision {
    check_plain(e, r);
    e.decide(r)
}

pub fn verdict(e: &Engine, r: &Request) -> Verdict {
    check_plain(e, r);
    e.evaluate(r).verdict
}

/// The fast path that decides plain allows without explaining them agrees with the full
/// decision: every test deciding through these helpers checks it.
pub fn check_plain(e: &Engine, r: &Request) {
    let full = e.evaluate(r);
    assert_eq!(
        e.is_plain_allow(r),
        full.is_plain(),
        "fast path and full decision disagree on {r:?}: {full:?}"
    );
}

pub fn allowed(v: Verdict) -> bool {
    v != Verdict::Block
}

/// `r` with the current content of `path` (`None`: the file does not exist).
pub fn with_content(mut r: Request, path: &str, content: Option<&str>) -> Request {
    r.contents.insert(abs(path), content.map(str::to_string));
    r
}

/// An `edit` call replacing `old` with `new` in `path`.
pub fn edit(agent: &str, path: &str, old: &str, new: &str) -> Request {
    req(
        agent,
        "edit",
        json!({"filePath": path, "oldString": old, "newString": new}),
    )
}
