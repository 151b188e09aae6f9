//! git and gh: global options, subcommand classification into [`GitOp`]s, and the file
//! effects of the subcommands that touch the work tree directly (`rm`, `mv`, `restore`...).
//!
//! A word that could expand to any option (unknown from its first character) is assumed to
//! be the most dangerous option of that subcommand (`git push $ARGS` may be `--force`).

use super::analyze::{Analyzer, Dir, Exec};
use super::args::{parse_opts, spec, Arg, Spec};
use super::effects::{Effect, FileOp, GitOp, OpaqueReason};

/// git builtins (and well-known companions) that are not aliases. Sorted by length, then
/// bytes ([`by_len`]), so the binary search mostly compares lengths.
#[rustfmt::skip]
const BUILTINS: &[&str] = &[
    "am", "gc", "mv", "p4", "rm", "add", "gui", "lfs", "log", "svn", "tag", "var", "diff",
    "fsck", "grep", "help", "hook", "init", "pull", "push", "show", "apply", "blame", "clean",
    "clone", "fetch", "merge", "mktag", "notes", "prune", "reset", "stage", "stash", "bisect",
    "branch", "bundle", "cherry", "citool", "column", "commit", "config", "daemon", "mktree",
    "rebase", "reflog", "remote", "repack", "replay", "rerere", "revert", "scalar", "status",
    "switch", "archive", "init-db", "ls-tree", "replace", "restore", "version", "annotate",
    "backfill", "cat-file", "checkout", "describe", "diagnose", "difftool", "instaweb",
    "ls-files", "mailinfo", "name-rev", "patch-id", "rev-list", "shortlog", "show-ref",
    "worktree", "bugreport", "diff-tree", "http-push", "imap-send", "ls-remote", "mailsplit",
    "mergetool", "pack-refs", "read-tree", "rev-parse", "send-pack", "submodule", "check-attr",
    "credential", "diff-files", "diff-index", "fetch-pack", "http-fetch", "index-pack",
    "merge-base", "merge-file", "merge-tree", "range-diff", "send-email", "show-index",
    "stripspace", "update-ref", "verify-tag", "write-tree", "cherry-pick", "commit-tree",
    "fast-export", "fast-import", "filter-repo", "hash-object", "maintenance", "merge-index",
    "quiltimport", "show-branch", "unpack-file", "upload-pack", "verify-pack", "whatchanged",
    "check-ignore", "commit-graph", "for-each-ref", "format-patch", "fsck-objects",
    "http-backend", "pack-objects", "prune-packed", "receive-pack", "request-pull",
    "symbolic-ref", "update-index", "check-mailmap", "count-objects", "filter-branch",
    "fmt-merge-msg", "for-each-repo", "verify-commit", "checkout-index", "merge-one-file",
    "pack-redundant", "unpack-objects", "upload-archive", "sparse-checkout", "check-ref-format",
    "credential-cache", "credential-store", "multi-pack-index", "get-tar-commit-id",
    "interpret-trailers", "update-server-info",
];

/// `--help` before any `--`: the command only prints its manual.
pub(crate) fn asks_help(rest: &[Arg<'_>]) -> bool {
    rest.iter()
        .take_while(|a| !a.is("--"))
        .any(|a| a.is("--help"))
}

/// Orders names by length, then bytes (cheap to compare: most comparisons stop at length).
fn by_len(a: &str, b: &str) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// A git command (or well-known companion): never an alias, since git ignores aliases that
/// hide its own commands.
pub(super) fn is_git_command(name: &str) -> bool {
    BUILTINS.binary_search_by(|b| by_len(b, name)).is_ok()
}

/// The directory of the repository named by `--git-dir`/`--work-tree`/`GIT_DIR`: the
/// parent of a `.git` directory, else the directory itself.
pub(crate) fn repo_dir(a: Arg<'_>) -> Arg<'_> {
    if a.is(".git") {
        return Arg::lit(".");
    }
    match a
        .s
        .strip_suffix("/.git")
        .or_else(|| a.s.strip_suffix("/.git/"))
    {
        Some(parent) if a.dyn_at.is_none_or(|d| d <= parent.len()) => Arg {
            s: if parent.is_empty() { "/" } else { parent },
            dyn_at: a.dyn_at,
        },
        _ => a,
    }
}

/// What setting a git config key can lead to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConfigRisk {
    /// Plain data.
    None,
    /// `alias.*`: defines a subcommand.
    Alias,
    /// The value is a command git runs through the shell (`core.pager`, `core.sshCommand`).
    Script,
    /// Runs code we cannot see (`core.hooksPath`, `include.path`, `protocol.*.allow`).
    Opaque,
}

fn config_risk(key: &str) -> ConfigRisk {
    const SCRIPT: &[&str] = &[
        "core.pager",
        "core.editor",
        "core.sshcommand",
        "core.askpass",
        "core.gitproxy",
        "core.fsmonitor",
        "diff.external",
        "sequence.editor",
        "gpg.program",
        "credential.helper",
        "uploadpack.packobjectshook",
        "web.browser",
        "gpg.ssh.program",
        "gpg.x509.program",
        "gpg.openpgp.program",
    ];
    let k = key.to_ascii_lowercase();
    let ends = |suffixes: &[&str]| suffixes.iter().any(|s| k.ends_with(s));
    if k.starts_with("alias.") {
        ConfigRisk::Alias
    } else if k == "core.hookspath"
        || k == "include.path"
        || k.starts_with("includeif.")
        || k.starts_with("protocol.")
    {
        ConfigRisk::Opaque
    } else if SCRIPT.contains(&k.as_str())
        || k.starts_with("pager.")
        || (k.starts_with("filter.") && ends(&[".clean", ".smudge", ".process"]))
        || (k.starts_with("diff.") && ends(&[".textconv", ".command"]))
        || (k.starts_with("merge.") && ends(&[".driver"]))
        || ((k.starts_with("mergetool.") || k.starts_with("difftool.")) && ends(&[".cmd"]))
        || (k.starts_with("remote.") && ends(&[".uploadpack", ".receivepack", ".proxy"]))
        || (k.starts_with("credential.") && ends(&[".helper"]))
    {
        ConfigRisk::Script
    } else {
        ConfigRisk::None
    }
}

const PUSH: Spec<'static> = spec(b"o", &["push-option", "repo", "receive-pack", "exec"]);
#[rustfmt::skip]
const COMMIT: Spec<'static> = spec(
    b"mFCct",
    &[
        "message", "file", "reuse-message", "reedit-message", "template", "author", "date",
        "fixup", "squash", "cleanup", "trailer", "pathspec-from-file",
    ],
);
const REBASE: Spec<'static> = spec(b"xsX", &["exec", "onto", "strategy", "strategy-option"]);
#[rustfmt::skip]
const PULL: Spec<'static> = spec(
    b"sXj",
    &["strategy", "strategy-option", "jobs", "depth", "upload-pack"],
);
const SWITCH: Spec<'static> = spec(b"cC", &["create", "force-create", "orphan"]);
const RESTORE: Spec<'static> = spec(b"s", &["source", "pathspec-from-file"]);
#[rustfmt::skip]
const TAG: Spec<'static> = spec(
    b"mFu",
    &[
        "message", "file", "local-user", "contains", "no-contains", "merged", "no-merged",
        "points-at", "sort", "format", "cleanup",
    ],
);
const CLEAN: Spec<'static> = spec(b"e", &["exclude"]);
const APPLY: Spec<'static> = spec(b"pC", &["directory", "exclude", "include", "whitespace"]);
const ARCHIVE: Spec<'static> = spec(b"o", &["output", "format", "prefix", "remote", "exec"]);
#[rustfmt::skip]
const FORMAT_PATCH: Spec<'static> = spec(
    b"ov",
    &["output-directory", "subject-prefix", "in-reply-to", "to", "cc", "from"],
);
#[rustfmt::skip]
const FILTER_BRANCH: Spec<'static> = spec(
    b"d",
    &[
        "env-filter", "tree-filter", "index-filter", "parent-filter", "msg-filter",
        "commit-filter", "tag-name-filter", "subdirectory-filter", "setup", "original",
        "state-branch",
    ],
);

impl Analyzer {
    pub(super) fn git_op(&mut self, ex: &Exec<'_>, op: GitOp, sub: &str) {
        let effect = Effect::Git {
            op,
            subcommand: sub.to_string(),
        };
        self.emit(ex.snippet, ex.cwd, effect);
    }

    /// A config `key` set to `value` (by `-c`, `clone -c` or `git config`): values that git
    /// runs as shell commands are analysed as scripts; other code-running keys are opaque.
    pub(super) fn config_value(&mut self, ex: &Exec<'_>, key: &str, value: Arg<'_>) {
        match config_risk(key) {
            ConfigRisk::None => {}
            ConfigRisk::Alias => {
                self.opaque(ex, OpaqueReason::GitAlias, &format!("git alias {key}"));
            }
            ConfigRisk::Opaque => {
                self.opaque(ex, OpaqueReason::Eval, &format!("git config {key}"));
            }
            ConfigRisk::Script => {
                // `!cmd` forms (credential helpers) are shell commands too.
                let v = if value.s.starts_with('!') {
                    value.tail(1)
                } else {
                    value
                };
                self.nested(ex, v.s, v.is_dynamic());
            }
        }
    }

    /// `git config`: setting a key whose value runs code is analysed like `-c`.
    fn git_config(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        const READS: &[&str] = &[
            "get",
            "get-all",
            "get-regexp",
            "get-urlmatch",
            "get-color",
            "get-colorbool",
            "list",
            "unset",
            "unset-all",
            "remove-section",
            "rename-section",
            "edit",
            "show-origin",
            "show-scope",
            "name-only",
        ];
        let o = parse_opts(
            rest,
            &spec(
                b"f",
                &["file", "blob", "type", "default", "comment", "value", "url"],
            ),
        );
        self.git_op(ex, GitOp::Read, "config");
        if o.has(b"le", READS) {
            return;
        }
        let setting = match o.operands.as_slice() {
            [first, key, value, ..] if first.is("set") => Some((*key, *value)),
            [first, ..] if READS.contains(&first.s) => None,
            [key, value, ..] => Some((*key, *value)),
            _ => None,
        };
        if let Some((key, value)) = setting {
            if key.is_dynamic() {
                self.opaque(ex, OpaqueReason::Eval, ex.snippet);
            } else {
                self.config_value(ex, key.s, value);
                // A file of the repository's or the user's configuration (not `--file`):
                // later `git NAME` in this command runs the alias.
                if !o.has(b"f", &["file", "blob"]) {
                    self.remember_alias(key.s, value);
                }
            }
        }
    }

    /// `git [global options] SUBCOMMAND ...` (args[0] is `git`).
    pub(crate) fn git(&mut self, args: &[Arg<'_>], ex: &mut Exec<'_>) {
        let mut i = 1;
        let mut aliases = Vec::new();
        let mut pull_rebase_cfg: Option<bool> = None;
        // `--git-dir`/`--work-tree` (or GIT_DIR/GIT_WORK_TREE) name the repository the
        // operation acts on; relative to the directory after any `-C`.
        let mut repo: Option<Arg<'_>> = None;
        let result = loop {
            let Some(a) = args.get(i) else {
                break None;
            };
            if a.dyn_start() {
                self.opaque(ex, OpaqueReason::DynamicProgram, ex.snippet);
                return;
            }
            let s = a.s;
            if !s.starts_with('-') {
                break Some(*a);
            }
            let (name, inline) = match s.split_once('=') {
                Some((n, _)) => (n, Some(a.tail(n.len() + 1))),
                None => (s, None),
            };
            let takes_value = matches!(
                name,
                "-C" | "-c"
                    | "--git-dir"
                    | "--work-tree"
                    | "--namespace"
                    | "--super-prefix"
                    | "--config-env"
                    | "--list-cmds"
                    | "--attr-source"
            );
            let value = if inline.is_some() || !takes_value {
                inline
            } else {
                i += 1;
                args.get(i).copied()
            };
            i += 1;
            match name {
                "-C" => {
                    if let Some(d) = value.filter(|d| !d.is("")) {
                        ex.cwd = self.join(ex.cwd, &d);
                    }
                }
                "--git-dir" | "--work-tree" => repo = value.or(repo),
                _ => {}
            }
            if !self.git_global(name, value, ex, &mut aliases, &mut pull_rebase_cfg) {
                return;
            }
        };
        if let Some(r) = repo {
            let dir = repo_dir(r);
            ex.cwd = self.join(ex.cwd, &dir);
        } else if let Some(d) = ex.git_repo {
            ex.cwd = d;
        }
        let Some(sub) = result else {
            self.git_op(ex, GitOp::Read, "");
            return;
        };
        let rest = args.get(i + 1..).unwrap_or(&[]);
        let cmd = super::git_alias::GitCmd {
            aliases: &aliases,
            pull_rebase_cfg,
        };
        self.git_command(sub, rest, ex, &cmd, 0);
    }

    /// A git command (after global options and alias expansion): `--help`, or classified.
    pub(super) fn git_builtin(
        &mut self,
        name: &str,
        rest: &[Arg<'_>],
        ex: &mut Exec<'_>,
        pull_rebase_cfg: Option<bool>,
    ) {
        if asks_help(rest) {
            self.git_op(ex, GitOp::Read, name); // `git push --help` only shows a manual
            return;
        }
        self.git_sub(name, rest, ex, pull_rebase_cfg);
    }

    /// Effects of one global option; false when the command is fully decided (opaque).
    /// `-c alias.NAME=VALUE` is collected into `aliases`.
    fn git_global<'x>(
        &mut self,
        name: &str,
        value: Option<Arg<'x>>,
        ex: &mut Exec<'_>,
        aliases: &mut Vec<(&'x str, Arg<'x>)>,
        pull_rebase_cfg: &mut Option<bool>,
    ) -> bool {
        match name {
            "-c" | "--config-env" => {
                let Some(kv) = value else { return true };
                let key = kv.s.split('=').next().unwrap_or("");
                let val = kv.s.find('=').map(|k| kv.tail(k + 1));
                if kv.dyn_at.is_some_and(|d| d <= key.len()) {
                    // the key itself is unknown
                    self.opaque(ex, OpaqueReason::Eval, &format!("git -c {}", kv.s));
                } else if name == "--config-env" {
                    // the value comes from the environment: unknown
                    if config_risk(key) != ConfigRisk::None {
                        let detail = format!("git --config-env {}", kv.s);
                        self.opaque(ex, OpaqueReason::Eval, &detail);
                    }
                } else if config_risk(key) == ConfigRisk::Alias {
                    let alias = key.get("alias.".len()..).unwrap_or("");
                    aliases.push((alias, val.unwrap_or(Arg::lit(""))));
                } else if key.eq_ignore_ascii_case("pull.rebase") {
                    let v = val.map_or("true", |v| v.s);
                    *pull_rebase_cfg = Some(!v.eq_ignore_ascii_case("false"));
                } else if let Some(v) = val {
                    self.config_value(ex, key, v);
                }
                true
            }
            "--exec-path" if value.is_some() => {
                // subcommands would run from another directory of programs
                self.opaque(ex, OpaqueReason::GitAlias, ex.snippet);
                false
            }
            _ => true,
        }
    }

    fn git_sub(
        &mut self,
        name: &str,
        rest: &[Arg<'_>],
        ex: &mut Exec<'_>,
        pull_rebase_cfg: Option<bool>,
    ) {
        use GitOp::*;
        let flags = || parse_opts(rest, &Spec::FLAGS);
        match name {
            "push" | "send-pack" => {
                let o = parse_opts(rest, &PUSH);
                self.git_op(ex, Push, name);
                let refspec_rewrites = o.operands.iter().any(|r| {
                    r.dyn_start() || r.s.starts_with('+') || (r.s.starts_with(':') && r.s.len() > 1)
                });
                let force = o.has(
                    b"fd",
                    &["force", "force-with-lease", "mirror", "delete", "prune"],
                );
                if force || refspec_rewrites || o.dyn_opt {
                    self.git_op(ex, HistoryRewrite, name);
                }
            }
            "http-push" => self.git_op(ex, Push, name),
            "merge" => self.git_op(ex, Merge, name),
            "mergetool" => self.git_op(ex, Merge, name),
            "rebase" => {
                let o = parse_opts(rest, &REBASE);
                self.git_op(ex, Rebase, name);
                if o.has(b"i", &["interactive"]) || o.dyn_opt {
                    self.git_op(ex, HistoryRewrite, name);
                }
                for cmd in o.values(b"x", &["exec"]) {
                    self.nested(ex, cmd.s, cmd.is_dynamic());
                }
            }
            "pull" => {
                let o = parse_opts(rest, &PULL);
                let mut rebase = pull_rebase_cfg.unwrap_or(false);
                for (n, v) in &o.opts {
                    match n {
                        super::args::OptName::Short(b'r') => rebase = true,
                        super::args::OptName::Long("rebase") => {
                            rebase = v.is_none_or(|v| !v.is("false"));
                        }
                        super::args::OptName::Long("no-rebase") => rebase = false,
                        _ => {}
                    }
                }
                let op = if rebase || o.dyn_opt {
                    PullRebase
                } else {
                    Pull
                };
                self.git_op(ex, op, name);
            }
            "commit" => {
                let o = parse_opts(rest, &COMMIT);
                self.git_op(ex, Commit, name);
                if o.has(b"", &["amend"]) || o.dyn_opt {
                    self.git_op(ex, HistoryRewrite, name);
                }
            }
            "am" => {
                self.git_op(ex, Commit, name);
                self.file(ex, FileOp::Write, Arg::UNKNOWN, "git am");
            }
            "citool" | "gui" => self.git_op(ex, Commit, name),
            "add" | "stage" | "update-index" => self.git_op(ex, Add, name),
            "branch" => self.git_branch(rest, ex),
            "checkout" => self.git_checkout(rest, ex),
            "switch" => {
                let o = parse_opts(rest, &SWITCH);
                let op = if o.has(b"cC", &["create", "force-create", "orphan"]) {
                    BranchCreate
                } else {
                    Checkout
                };
                self.git_op(ex, op, name);
            }
            "restore" => {
                let o = parse_opts(rest, &RESTORE);
                self.git_op(ex, Checkout, name);
                if !o.has(b"S", &["staged"]) || o.has(b"W", &["worktree"]) {
                    self.paths(ex, &o, FileOp::Write, "git restore");
                }
            }
            "rm" => {
                let o = parse_opts(rest, &spec(b"", &["pathspec-from-file"]));
                if o.has(b"", &["cached"]) {
                    self.git_op(ex, Add, name);
                } else {
                    self.paths(ex, &o, FileOp::Delete, "git rm");
                }
            }
            "mv" => {
                let o = flags();
                if let [sources @ .., dest] = o.operands.as_slice() {
                    if !sources.is_empty() {
                        for s in sources {
                            self.file(ex, FileOp::Delete, *s, "git mv");
                        }
                        self.file(ex, FileOp::Create, *dest, "git mv");
                    }
                }
            }
            "tag" => {
                let o = parse_opts(rest, &TAG);
                let listing = o.has(
                    b"lnv",
                    &[
                        "list",
                        "verify",
                        "contains",
                        "no-contains",
                        "merged",
                        "no-merged",
                        "points-at",
                    ],
                ) || (o.operands.is_empty() && !o.has(b"d", &["delete"]));
                let op = if listing && !o.dyn_opt && !o.has(b"d", &["delete"]) {
                    Read
                } else {
                    Tag
                };
                self.git_op(ex, op, name);
            }
            "reset" => {
                let o = flags();
                self.git_op(ex, Reset, name);
                if o.has(b"", &["hard"]) || o.dyn_opt {
                    self.git_op(ex, HistoryRewrite, name);
                }
            }
            "stash" => {
                let o = flags();
                let read = o
                    .operands
                    .first()
                    .is_some_and(|a| a.is("list") || a.is("show"));
                self.git_op(ex, if read { Read } else { Stash }, name);
            }
            "clean" => {
                let o = parse_opts(rest, &CLEAN);
                let dry = o.has(b"n", &["dry-run"]) && !o.has(b"f", &["force"]) && !o.dyn_opt;
                self.git_op(ex, if dry { Read } else { Clean }, name);
            }
            "cherry-pick" => self.git_op(ex, CherryPick, name),
            "revert" => self.git_op(ex, Revert, name),
            "filter-branch" => {
                self.git_op(ex, HistoryRewrite, name);
                let o = parse_opts(rest, &FILTER_BRANCH);
                for f in o.values(
                    b"",
                    &[
                        "env-filter",
                        "tree-filter",
                        "index-filter",
                        "parent-filter",
                        "msg-filter",
                        "commit-filter",
                        "tag-name-filter",
                        "setup",
                    ],
                ) {
                    self.nested(ex, f.s, f.is_dynamic());
                }
            }
            "filter-repo" | "update-ref" | "fast-import" | "replay" => {
                self.git_op(ex, HistoryRewrite, name)
            }
            "replace" => {
                let listing = flags().has(b"l", &["list"]) || rest.is_empty();
                self.git_op(ex, if listing { Read } else { HistoryRewrite }, name);
            }
            "reflog" => {
                let o = flags();
                let destructive = o
                    .operands
                    .first()
                    .is_some_and(|a| a.is("expire") || a.is("delete"));
                self.git_op(ex, if destructive { HistoryRewrite } else { Read }, name);
            }
            "worktree" => self.git_worktree(rest, ex),
            "config" => self.git_config(rest, ex),
            "clone" => self.git_clone(rest, ex),
            "init" | "init-db" => {
                self.git_op(ex, Read, name);
                if let Some(dir) = parse_opts(
                    rest,
                    &spec(
                        b"b",
                        &[
                            "template",
                            "separate-git-dir",
                            "initial-branch",
                            "object-format",
                            "shared",
                        ],
                    ),
                )
                .operands
                .first()
                {
                    self.file(ex, FileOp::Create, *dir, "git init");
                }
            }
            "submodule" => {
                let o = flags();
                match o.operands.first().map(|a| a.s) {
                    Some("foreach") => {
                        // the command runs in every submodule
                        let script = o
                            .operands
                            .get(1..)
                            .unwrap_or(&[])
                            .iter()
                            .map(|a| a.s)
                            .collect::<Vec<_>>()
                            .join(" ");
                        let mut sub = ex.clone();
                        sub.cwd = Dir::Unknown;
                        self.nested(&sub, &script, o.operands.iter().any(Arg::is_dynamic));
                    }
                    Some("update") => self.git_op(ex, Checkout, name),
                    Some("add") => self.git_op(ex, Add, name),
                    _ => self.git_op(ex, Read, name),
                }
            }
            "bisect" => {
                let first = rest.first();
                if first.is_some_and(|a| a.is("run")) {
                    // checks out revisions and runs the command on each
                    self.git_op(ex, Checkout, name);
                    let mut sub = ex.clone();
                    sub.direct = false;
                    let mut scratch = sub.cwd;
                    self.run(rest.get(1..).unwrap_or(&[]), &mut sub, &mut scratch);
                } else if first
                    .is_some_and(|a| matches!(a.s, "log" | "visualize" | "view" | "terms"))
                {
                    self.git_op(ex, Read, name);
                } else {
                    self.git_op(ex, Checkout, name);
                }
            }
            "apply" => {
                let o = parse_opts(rest, &APPLY);
                if o.has(b"", &["check", "stat", "numstat", "summary"]) && !o.has(b"", &["apply"]) {
                    self.git_op(ex, Read, name);
                    return;
                }
                if o.has(b"", &["cached", "index"]) {
                    self.git_op(ex, Add, name);
                }
                if !o.has(b"", &["cached"]) {
                    let dir = o.value(b"", &["directory"]);
                    let (path, _) = match dir {
                        Some(d) => (format!("{}/", d.s.trim_end_matches('/')), true),
                        None => (String::new(), true),
                    };
                    let arg = Arg {
                        s: &path,
                        dyn_at: Some(path.len()),
                    };
                    self.file(ex, FileOp::Write, arg, "git apply");
                }
            }
            "archive" => {
                self.git_op(ex, Read, name);
                if let Some(out) = parse_opts(rest, &ARCHIVE).value(b"o", &["output"]) {
                    self.file(ex, FileOp::Write, out, "git archive");
                }
            }
            "format-patch" => {
                self.git_op(ex, Read, name);
                let o = parse_opts(rest, &FORMAT_PATCH);
                if !o.has(b"", &["stdout"]) {
                    let dir = o.value(b"o", &["output-directory"]);
                    let path =
                        dir.map_or(String::new(), |d| format!("{}/", d.s.trim_end_matches('/')));
                    self.file(
                        ex,
                        FileOp::Write,
                        Arg {
                            s: &path,
                            dyn_at: Some(path.len()),
                        },
                        "git format-patch",
                    );
                }
            }
            "bundle" => {
                self.git_op(ex, Read, name);
                let o = flags();
                if o.operands.first().is_some_and(|a| a.is("create")) {
                    if let Some(f) = o.operands.get(1) {
                        self.file(ex, FileOp::Write, *f, "git bundle");
                    }
                }
            }
            "merge-file" => {
                self.git_op(ex, Read, name);
                let o = parse_opts(rest, &spec(b"L", &["marker-size"]));
                if !o.has(b"p", &["stdout"]) {
                    if let Some(f) = o.operands.first() {
                        self.file(ex, FileOp::Write, *f, "git merge-file");
                    }
                }
            }
            "notes" => {
                let o = flags();
                let read = o
                    .operands
                    .first()
                    .is_none_or(|a| matches!(a.s, "list" | "show" | "get-ref"));
                self.git_op(ex, if read { Read } else { Commit }, name);
            }
            "read-tree" | "sparse-checkout" => self.git_op(ex, Checkout, name),
            "checkout-index" => {
                self.git_op(ex, Checkout, name);
                self.file(ex, FileOp::Write, Arg::UNKNOWN, "git checkout-index");
            }
            "symbolic-ref" => {
                let op = if flags().operands.len() >= 2 {
                    Checkout
                } else {
                    Read
                };
                self.git_op(ex, op, name);
            }
            "svn" | "p4" => {
                let o = flags();
                let op = match o.operands.first().map(|a| a.s) {
                    Some("dcommit" | "submit") => Push,
                    Some("rebase") => Rebase,
                    _ => Read,
                };
                self.git_op(ex, op, name);
            }
            "lfs" => {
                let push = flags().operands.first().is_some_and(|a| a.is("push"));
                self.git_op(ex, if push { Push } else { Read }, name);
            }
            _ => self.git_op(ex, Read, name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_keys() {
        assert_eq!(config_risk("core.pager"), ConfigRisk::Script);
        assert_eq!(config_risk("core.sshCommand"), ConfigRisk::Script);
        assert_eq!(config_risk("filter.lfs.smudge"), ConfigRisk::Script);
        assert_eq!(config_risk("diff.foo.textconv"), ConfigRisk::Script);
        assert_eq!(config_risk("alias.p"), ConfigRisk::Alias);
        assert_eq!(config_risk("core.hooksPath"), ConfigRisk::Opaque);
        assert_eq!(config_risk("user.name"), ConfigRisk::None);
        assert_eq!(config_risk("pull.rebase"), ConfigRisk::None);
    }

    #[test]
    fn builtins_sorted_unique() {
        // binary_search needs strictly sorted input
        assert!(BUILTINS
            .windows(2)
            .all(|w| by_len(w[0], w[1]) == std::cmp::Ordering::Less));
    }
}
