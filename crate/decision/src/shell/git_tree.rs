//! git subcommands whose effects depend on their arguments: branches, checkouts and
//! restores (which overwrite work-tree files), worktrees and clones (which create
//! directories).

use super::analyze::{Analyzer, Exec};
use super::args::{parse_opts, spec, Arg, Opts, Spec};
use super::effects::{FileOp, GitOp};

#[rustfmt::skip]
const BRANCH: Spec<'static> = spec(
    b"u",
    &[
        "set-upstream-to", "contains", "no-contains", "merged", "no-merged", "points-at", "sort",
        "format",
    ],
);
const CHECKOUT: Spec<'static> = spec(b"bB", &["orphan", "pathspec-from-file"]);
const WORKTREE: Spec<'static> = spec(b"bB", &["reason"]);
#[rustfmt::skip]
const CLONE: Spec<'static> = spec(
    b"obucj",
    &[
        "origin", "branch", "upload-pack", "reference", "separate-git-dir", "depth",
        "shallow-since", "shallow-exclude", "config", "template", "jobs", "filter", "bundle-uri",
        "server-option", "reference-if-able",
    ],
);

/// A `git checkout X` argument that can only be a path.
fn looks_like_path(a: &Arg<'_>) -> bool {
    let s = a.s;
    a.dyn_start()
        || matches!(s, "." | "..")
        || s.starts_with("./")
        || s.starts_with("../")
        || s.starts_with(":/")
        || s.contains(['*', '?'])
}

impl Analyzer {
    /// File steps for pathspec operands (or an unknown set from `--pathspec-from-file`).
    pub(super) fn paths(&mut self, ex: &Exec<'_>, o: &Opts<'_>, op: FileOp, via: &str) {
        let from_file = o.has(b"", &["pathspec-from-file"]);
        for p in &o.operands {
            self.file(ex, op, *p, via);
        }
        if from_file {
            self.file(ex, op, Arg::UNKNOWN, via);
        }
    }

    pub(super) fn git_branch(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        use GitOp::*;
        let o = parse_opts(rest, &BRANCH);
        let delete = o.has(b"dD", &["delete"]);
        let rename = o.has(b"mMcC", &["move", "copy"]);
        let upstream = o.has(
            b"u",
            &[
                "set-upstream-to",
                "unset-upstream",
                "edit-description",
                "set-upstream",
            ],
        );
        let listing = o.has(
            b"arlv",
            &[
                "all",
                "remotes",
                "list",
                "verbose",
                "show-current",
                "contains",
                "no-contains",
                "merged",
                "no-merged",
                "points-at",
                "sort",
                "format",
            ],
        );
        if delete {
            self.git_op(ex, BranchDelete, "branch");
        } else if rename {
            self.git_op(ex, BranchCreate, "branch");
        } else if upstream || listing || o.operands.is_empty() {
            self.git_op(ex, Read, "branch");
        } else {
            self.git_op(ex, BranchCreate, "branch");
            if o.has(b"f", &["force"]) {
                self.git_op(ex, HistoryRewrite, "branch");
            }
        }
        if o.dyn_opt && !delete {
            self.git_op(ex, BranchDelete, "branch");
        }
    }

    pub(super) fn git_checkout(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let o = parse_opts(rest, &CHECKOUT);
        if o.has(b"bB", &["orphan"]) {
            self.git_op(ex, GitOp::BranchCreate, "checkout");
            return;
        }
        self.git_op(ex, GitOp::Checkout, "checkout");
        // `checkout [rev] -- paths`; without `--`, `checkout rev paths...`, and a single
        // argument is a path only when it cannot be a revision.
        let paths: &[Arg<'_>] = if o.dd {
            o.operands.get(o.after_dd..).unwrap_or(&[])
        } else {
            match o.operands.as_slice() {
                [one] if looks_like_path(one) => &o.operands[..],
                [_, paths @ ..] => paths,
                [] => &[],
            }
        };
        for p in paths {
            self.file(ex, FileOp::Write, *p, "git checkout");
        }
        if o.has(b"", &["pathspec-from-file"]) {
            self.file(ex, FileOp::Write, Arg::UNKNOWN, "git checkout");
        }
    }

    pub(super) fn git_worktree(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let Some(action) = rest.first() else {
            self.git_op(ex, GitOp::Read, "worktree");
            return;
        };
        let o = parse_opts(rest.get(1..).unwrap_or(&[]), &WORKTREE);
        match action.s {
            "add" => {
                if o.has(b"bB", &[]) {
                    self.git_op(ex, GitOp::BranchCreate, "worktree");
                }
                if let Some(p) = o.operands.first() {
                    self.file(ex, FileOp::Create, *p, "git worktree");
                }
            }
            "remove" => {
                if let Some(p) = o.operands.first() {
                    self.file(ex, FileOp::Delete, *p, "git worktree");
                }
            }
            "move" => {
                if let [from, to, ..] = o.operands.as_slice() {
                    self.file(ex, FileOp::Delete, *from, "git worktree");
                    self.file(ex, FileOp::Create, *to, "git worktree");
                }
            }
            _ => self.git_op(ex, GitOp::Read, "worktree"),
        }
    }

    pub(super) fn git_clone(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let o = parse_opts(rest, &CLONE);
        for kv in o.values(b"c", &["config"]) {
            let key = kv.s.split('=').next().unwrap_or("");
            if let Some(k) = kv.s.find('=') {
                self.config_value(ex, key, kv.tail(k + 1));
            }
        }
        self.git_op(ex, GitOp::Read, "clone");
        match o.operands.as_slice() {
            [_, dir, ..] => self.file(ex, FileOp::Create, *dir, "git clone"),
            [url] => {
                let trimmed = url.prefix().trim_end_matches('/');
                let base = trimmed.rsplit(['/', ':']).next().unwrap_or("");
                let base = base.strip_suffix(".git").unwrap_or(base);
                let arg = if url.is_dynamic() || base.is_empty() {
                    Arg::UNKNOWN
                } else {
                    Arg::lit(base)
                };
                self.file(ex, FileOp::Create, arg, "git clone");
            }
            [] => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkout_paths() {
        assert!(looks_like_path(&Arg::lit(".")));
        assert!(looks_like_path(&Arg::lit("./src/a.rs")));
        assert!(!looks_like_path(&Arg::lit("main")));
        assert!(!looks_like_path(&Arg::lit("feature/x")));
    }
}
