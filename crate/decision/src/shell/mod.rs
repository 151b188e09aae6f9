//! Static analysis of bash commands for NSO's authority engine: what a command *does*
//! (file writes/deletes, git/gh operations, and what cannot be resolved statically).
//!
//! [`analyze`] parses the command with a hand-written, panic-free parser (`parser`,
//! `compound`, `lexer`, `word` → `ast`), walks it in execution order tracking the working
//! directory (`analyze`), unwraps wrappers like `env`/`sudo`/`xargs`/`find -exec`
//! (`wrappers`) and classifies each program (`command`, `git`, `git_tree`, `gh`, `files`,
//! `interpreters`). Nested shell scripts (`sh -c`, heredocs fed to a shell, `watch`,
//! `trap`/`alias` bodies, git config values that are commands) are analysed recursively up
//! to [`MAX_DEPTH`].
//!
//! Indirection written out in the command is code, not opaque: variables the command
//! assigns a literal (`vars`, `assigns`) are substituted where used (`expand`, `simple`),
//! with the shell's scoping; `eval` with known arguments is analysed like `sh -c` but in
//! the same shell; git aliases defined by `-c alias.X=...` or an earlier `git config
//! alias.X ...` are expanded (`git_alias`); a `for` variable over words or globs is the set
//! of its values. Such steps show the command as written and what it resolved to
//! ([`RESOLVED_SEP`]).
//!
//! Guarantees: never panics; input over [`MAX_INPUT`] bytes is a single `TooLarge` step;
//! nesting, wrapper hops, path lengths and the number of steps are bounded, so time, stack
//! and output are bounded too. Anything the analyser cannot see through becomes an `Opaque`
//! step (fail closed).
//!
//! Conventions worth knowing when writing rules:
//! * steps come in execution order: substitutions, then redirections, then the program;
//! * a dynamic path keeps its literal prefix (`rm "$D"/x` → `""`, `tar -x -C out` → `out/`);
//! * a word that is unknown from its first character and could be an option is assumed to be
//!   the worst option (`git push $ARGS` → also `HistoryRewrite`; `sed $FLAGS` → `-i`);
//! * a shell script built from expansions (`bash -c "$X"`) is analysed as far as it is known
//!   and also reported as `Opaque Eval`;
//! * a mutating `gh api` call is `Opaque GitAlias` (an unknown hosting operation);
//! * functions are analysed where they are defined; calling one whose body may `cd` makes the
//!   directory unknown, and calling one makes every variable unknown;
//! * a variable is known only from an assignment in the command itself; anything the shell
//!   cannot know statically (`$(...)`, `read`, a branch that may not run, a subshell's
//!   assignment) leaves it unknown, and an unknown variable is what it was before: dynamic.
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::string_slice,
        clippy::unreachable,
        clippy::todo
    )
)]
#![warn(missing_docs)]

mod analyze;
mod args;
mod assigns;
mod ast;
mod command;
mod compound;
pub mod effects;
mod expand;
mod files;
mod flow;
mod gh;
mod git;
mod git_alias;
mod git_tree;
mod interpreters;
mod lexer;
mod parser;
mod simple;
mod summary;
mod vars;
mod word;
mod wrappers;

pub use effects::{Analysis, Cwd, Effect, FileOp, GitOp, OpaqueReason, Step, RESOLVED_SEP};
pub use summary::summary;

/// How many `sh -c` / heredoc-to-shell levels are analysed; deeper ones are
/// `Opaque DepthLimit`.
pub const MAX_DEPTH: usize = 3;

/// Largest input analysed, in bytes; larger input is a single `Opaque TooLarge` step.
pub const MAX_INPUT: usize = 64 * 1024;

/// Analyses a bash command line. Never panics; bounded time and output on any input.
pub fn analyze(command: &str) -> Analysis {
    let mut a = analyze::Analyzer::new();
    let mut cwd = analyze::Dir::Start;
    a.script(command, &mut cwd, 0);
    Analysis { steps: a.steps }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(cmd: &str) -> Vec<Step> {
        analyze(cmd).steps
    }

    #[test]
    fn snippets_are_the_simple_command() {
        let s = steps("cd sub && VAR=1 git push origin main 2>/dev/null; echo done");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].snippet, "VAR=1 git push origin main 2>/dev/null");
        assert_eq!(s[0].cwd, Cwd::Dir("sub".into()));
        let long = format!("rm {}", "x".repeat(300));
        assert!(steps(&long)[0].snippet.chars().count() <= 120);
    }

    #[test]
    fn file_effect_fields() {
        let s = steps("rm -rf \"$DIR\"/tmp build");
        assert_eq!(
            s[0].effect,
            Effect::File {
                op: FileOp::Delete,
                path: String::new(),
                dynamic: true,
                via: "rm".into()
            }
        );
        assert_eq!(
            s[1].effect,
            Effect::File {
                op: FileOp::Delete,
                path: "build".into(),
                dynamic: false,
                via: "rm".into()
            }
        );
        let s = steps("echo x > out.txt");
        assert!(matches!(&s[0].effect, Effect::File { via, .. } if via == "redirect"));
    }

    #[test]
    fn git_effect_names_subcommand() {
        let s = steps("git -C x push -f");
        assert_eq!(
            s[1].effect,
            Effect::Git {
                op: GitOp::HistoryRewrite,
                subcommand: "push".into()
            }
        );
        let s = steps("gh pr merge 3");
        assert!(matches!(&s[0].effect, Effect::Git { subcommand, .. } if subcommand == "pr merge"));
    }

    #[test]
    fn depth_limit() {
        let mut cmd = "git push".to_string();
        for _ in 0..MAX_DEPTH {
            cmd = format!("sh -c {}", quote(&cmd));
        }
        assert_eq!(summary(&analyze(&cmd)), "git:push");
        let deeper = format!("sh -c {}", quote(&cmd));
        assert_eq!(summary(&analyze(&deeper)), "opaque:depth_limit");
    }

    /// Single-quotes `s` for the shell.
    fn quote(s: &str) -> String {
        format!("'{}'", s.replace('\'', r"'\''"))
    }

    #[test]
    fn too_large_is_one_step() {
        let s = steps(&"a".repeat(MAX_INPUT + 1));
        assert_eq!(s.len(), 1);
        assert!(matches!(
            s[0].effect,
            Effect::Opaque {
                reason: OpaqueReason::TooLarge,
                ..
            }
        ));
        // exactly at the limit is analysed
        assert!(steps(&"a".repeat(MAX_INPUT)).is_empty());
    }

    #[test]
    fn parse_error_is_one_step() {
        let s = steps("git push; echo 'oops");
        assert_eq!(s.len(), 1);
        assert!(matches!(
            s[0].effect,
            Effect::Opaque {
                reason: OpaqueReason::ParseError,
                ..
            }
        ));
    }

    #[test]
    fn step_count_is_capped() {
        let cmd = "rm a; ".repeat(5000);
        let s = steps(&cmd);
        assert_eq!(s.len(), analyze::MAX_STEPS + 1);
        assert!(matches!(
            s.last().map(|s| &s.effect),
            Some(Effect::Opaque {
                reason: OpaqueReason::TooLarge,
                ..
            })
        ));
    }

    #[test]
    fn long_paths_are_cut() {
        let cmd = format!("rm {}", "p".repeat(analyze::MAX_PATH + 10));
        let s = steps(&cmd);
        assert!(
            matches!(&s[0].effect, Effect::File { path, dynamic: true, .. } if path.len() == analyze::MAX_PATH)
        );
        let cmd = format!("cd {} && rm x", "d".repeat(analyze::MAX_PATH + 10));
        assert_eq!(steps(&cmd)[0].cwd, Cwd::Unknown);
    }

    #[test]
    fn serializes_for_the_engine() {
        let json = serde_json::to_string(&analyze("cd s && rm x")).unwrap_or_default();
        assert_eq!(
            json,
            r#"{"steps":[{"snippet":"rm x","cwd":{"kind":"dir","path":"s"},"effect":{"type":"file","op":"delete","path":"x","dynamic":false,"via":"rm"}}]}"#
        );
    }

    #[test]
    fn the_memo_gives_what_analysis_gives() {
        // More commands than the memo holds, visited twice in a mixed order: every answer,
        // remembered, evicted or new, is the command's own analysis.
        let commands: Vec<String> = (0..super::MEMO_ENTRIES + 8)
            .map(|i| format!("cd d{i} && echo {i} > f{i}; git push origin b{i}"))
            .collect();
        for round in 0..2 {
            for (i, c) in commands.iter().enumerate() {
                let c = if (i + round) % 3 == 0 {
                    &commands[0]
                } else {
                    c
                };
                assert_eq!(*analyze_memo(c), analyze(c), "{c}");
            }
        }
        let long = format!("echo {} > x", "y".repeat(super::MEMO_MAX_COMMAND));
        assert_eq!(*analyze_memo(&long), analyze(&long));
    }
}

use std::rc::Rc;

/// How many recent commands [`analyze_memo`] remembers, and the longest it keeps.
const MEMO_ENTRIES: usize = 32;
const MEMO_MAX_COMMAND: usize = 4096;

thread_local! {
    static RECENT: std::cell::RefCell<std::collections::VecDeque<(u64, String, Rc<Analysis>)>> =
        const { std::cell::RefCell::new(std::collections::VecDeque::new()) };
}

/// [`analyze`], remembering the analyses of the last 32 commands (the most
/// recently used first). The engine sees a command twice in a row whenever it must first ask
/// the shim where the paths it writes really are, and agents run the same few commands again
/// and again (`npm test`, `git status`); an analysis depends on nothing but the command's
/// text, so it is shared, not parsed again.
pub fn analyze_memo(command: &str) -> Rc<Analysis> {
    if command.len() > MEMO_MAX_COMMAND {
        return Rc::new(analyze(command));
    }
    RECENT.with(|cell| {
        let Ok(mut recent) = cell.try_borrow_mut() else {
            return Rc::new(analyze(command));
        };
        // The hash first: comparing the texts of commands that share a long prefix costs
        // more than analysing a short one.
        let hash = nso_text::hashing::WordHash::of(command.as_bytes());
        let found = recent
            .iter()
            .position(|(h, c, _)| *h == hash && c == command);
        if let Some(hit) = found.and_then(|i| recent.remove(i)) {
            let analysis = Rc::clone(&hit.2);
            recent.push_front(hit);
            return analysis;
        }
        let analysis = Rc::new(analyze(command));
        if recent.len() == MEMO_ENTRIES {
            recent.pop_back();
        }
        recent.push_front((hash, command.to_string(), Rc::clone(&analysis)));
        analysis
    })
}
