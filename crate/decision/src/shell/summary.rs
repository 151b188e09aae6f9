//! A compact one-line rendering of an [`Analysis`], used by the test corpus and handy in
//! logs: steps joined by `, `; `none` when there are none.
//!
//! * file steps: `write:PATH`, `create:PATH`, `delete:PATH`; a dynamic path is its literal
//!   prefix followed by `*` (`delete:./*`);
//! * git steps: `git:OP` with the snake_case op name (`git:history_rewrite`);
//! * opaque steps: `opaque:REASON` (`opaque:dynamic_program`);
//! * a step not in the starting directory gets `@DIR`, or `@?` when unknown.

use super::effects::{Analysis, Cwd, Effect, FileOp, GitOp, OpaqueReason};
use std::fmt::Write;

fn git_name(op: GitOp) -> &'static str {
    use GitOp::*;
    match op {
        Push => "push",
        Merge => "merge",
        Rebase => "rebase",
        PullRebase => "pull_rebase",
        Pull => "pull",
        Commit => "commit",
        Add => "add",
        BranchCreate => "branch_create",
        BranchDelete => "branch_delete",
        Tag => "tag",
        Reset => "reset",
        Checkout => "checkout",
        Stash => "stash",
        Clean => "clean",
        CherryPick => "cherry_pick",
        Revert => "revert",
        HistoryRewrite => "history_rewrite",
        PrCreate => "pr_create",
        PrMerge => "pr_merge",
        PrClose => "pr_close",
        ReleaseCreate => "release_create",
        Read => "read",
    }
}

fn opaque_name(r: OpaqueReason) -> &'static str {
    use OpaqueReason::*;
    match r {
        Eval => "eval",
        DynamicProgram => "dynamic_program",
        InterpreterOneLiner => "interpreter_one_liner",
        Source => "source",
        ParseError => "parse_error",
        TooLarge => "too_large",
        DepthLimit => "depth_limit",
        GitAlias => "git_alias",
        ScriptFromStdin => "script_from_stdin",
    }
}

/// Renders `a` in the compact form described in the module docs.
pub fn summary(a: &Analysis) -> String {
    if a.steps.is_empty() {
        return "none".to_string();
    }
    let mut out = String::new();
    for (n, step) in a.steps.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        match &step.effect {
            Effect::File {
                op, path, dynamic, ..
            } => {
                let op = match op {
                    FileOp::Write => "write",
                    FileOp::Create => "create",
                    FileOp::Delete => "delete",
                };
                let star = if *dynamic { "*" } else { "" };
                let _ = write!(out, "{op}:{path}{star}");
            }
            Effect::Git { op, .. } => {
                let _ = write!(out, "git:{}", git_name(*op));
            }
            Effect::Opaque { reason, .. } => {
                let _ = write!(out, "opaque:{}", opaque_name(*reason));
            }
        }
        match &step.cwd {
            Cwd::Start => {}
            Cwd::Dir(d) => {
                let _ = write!(out, "@{d}");
            }
            Cwd::Unknown => out.push_str("@?"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::effects::Step;

    fn step(cwd: Cwd, effect: Effect) -> Step {
        Step {
            snippet: String::new(),
            cwd,
            effect,
        }
    }

    #[test]
    fn renders_every_kind() {
        assert_eq!(summary(&Analysis::default()), "none");
        let a = Analysis {
            steps: vec![
                step(
                    Cwd::Start,
                    Effect::File {
                        op: FileOp::Delete,
                        path: "./".into(),
                        dynamic: true,
                        via: "find".into(),
                    },
                ),
                step(
                    Cwd::Dir("sub".into()),
                    Effect::Git {
                        op: GitOp::HistoryRewrite,
                        subcommand: "push".into(),
                    },
                ),
                step(
                    Cwd::Unknown,
                    Effect::Opaque {
                        reason: OpaqueReason::ScriptFromStdin,
                        detail: String::new(),
                    },
                ),
            ],
        };
        assert_eq!(
            summary(&a),
            "delete:./*, git:history_rewrite@sub, opaque:script_from_stdin@?"
        );
    }
}
