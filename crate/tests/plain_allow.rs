//! The fast path that decides plain allows without building any explanation
//! (`Engine::answer`) agrees with the full decision on every command of the shell
//! corpus and of the kord policy cases, for agents of each preset, with the paths the shim
//! would report resolved and without them, and on every file operation of the kord matrix.

mod common;

use common::*;
use nso::authority::Engine;

/// Checks one request as it first arrives, then with every lookup the engine asks for
/// answered (real paths as given, files present), as the shim's second round sends it.
fn check_both(e: &mut Engine, mut r: nso::authority::Request) -> bool {
    check_plain(e, &r);
    let need = e.lookups(&r);
    for p in need.resolve {
        r.resolved.insert(p.clone(), p);
    }
    for p in need.exists {
        r.exists.insert(p, true);
    }
    for p in need.content {
        r.contents.insert(p, Some("old line\n".to_string()));
    }
    check_plain(e, &r);
    matches!(e.answer(&r), Ok(None))
}

#[test]
fn fast_path_agrees_on_every_corpus_command() {
    let mut plain = 0;
    let mut total = 0;
    for (preset, agents) in [
        (
            "kord",
            &["dev", "devops", "qa", "plan", "build", "kord", "nobody", ""][..],
        ),
        ("nso", &["build", "janitor", "plan", "explore"][..]),
    ] {
        let mut e = engine(preset);
        for command in corpus_commands() {
            for agent in agents {
                total += 1;
                if check_both(&mut e, bash(agent, &command)) {
                    plain += 1;
                }
            }
        }
    }
    // Both kinds of decisions are exercised.
    assert!(
        plain > 1000 && total - plain > 1000,
        "{plain} plain of {total}"
    );
}

#[test]
fn fast_path_agrees_on_file_operations() {
    let mut e = engine("kord");
    let paths = [
        "src/app.ts",
        "docs/kord/plans/p.md",
        "docs/kord/notepads/n.md",
        ".opencode/nso.json",
        ".github/workflows/ci.yml",
        "migrations/001.sql",
        "/etc/passwd",
        "/tmp/x",
        "../outside.ts",
    ];
    for agent in [
        "dev",
        "devops",
        "qa",
        "plan",
        "build",
        "data-engineer",
        "nobody",
        "",
    ] {
        for op in ["read", "write", "create", "delete"] {
            for path in paths {
                check_both(&mut e, op_request(agent, op, path));
            }
        }
    }
}

/// Answers every status change with `allowed`, counting the questions.
#[derive(Debug)]
struct CountingOracle {
    allowed: bool,
    asked: std::cell::Cell<u32>,
}

impl nso::authority::StatusOracle for CountingOracle {
    fn check(&self, _: &nso::authority::StatusQuery) -> nso::authority::StatusAnswer {
        self.asked.set(self.asked.get() + 1);
        nso::authority::StatusAnswer {
            allowed: self.allowed,
            machine: Some("flow".to_string()),
            builtin: false,
            detail: "checked".to_string(),
        }
    }
}

#[test]
fn a_status_machine_is_asked_once_per_decision() {
    for allowed in [true, false] {
        let mut e = engine("nso");
        e.set_status_scope(&["**/status.md".to_string()]);
        let oracle = std::rc::Rc::new(CountingOracle {
            allowed,
            asked: std::cell::Cell::new(0),
        });
        e.set_status_oracle(oracle.clone());
        let mut r = edit("build", "t/status.md", "Status: A", "Status: B");
        r = with_content(r, "t/status.md", Some("Status: A\n"));
        let path = abs("t/status.md");
        r.resolved.insert(path.clone(), path.clone());
        r.exists.insert(path, true);
        let decided = e.answer(&r).expect("nothing to look up");
        assert_eq!(oracle.asked.get(), 1, "allowed: {allowed}");
        assert_eq!(decided.is_none(), allowed);
    }
}
