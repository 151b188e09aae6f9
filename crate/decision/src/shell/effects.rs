//! What a bash command does, as far as authority is concerned.
//! Produced by `shell::analyze`, consumed by the authority engine.
//! Pure data: no I/O, no wasm.

/// The directory a step runs in, relative to the directory the whole command started in.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", content = "path", rename_all = "snake_case")]
pub enum Cwd {
    /// The starting directory (no `cd` in effect).
    Start,
    /// A literal directory: relative to the start, or absolute if it begins with `/`.
    Dir(String),
    /// Changed by something not statically known (`cd $X`, `cd -`, bare `cd`, `popd`).
    Unknown,
}

/// Kind of change to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileOp {
    /// Content of a (possibly existing) file is replaced or changed.
    Write,
    /// A new directory entry is made (mkdir, touch, ln, the destination of mv / git mv).
    Create,
    /// A directory entry is removed.
    Delete,
}

/// A git or gh operation that authority rules name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GitOp {
    /// `git push` (and `send-pack`, `http-push`, `lfs push`, `svn dcommit`).
    Push,
    /// `git merge`, `git mergetool`.
    Merge,
    /// `git rebase`.
    Rebase,
    /// `git pull --rebase` (or with `pull.rebase` configured on the command line).
    PullRebase,
    /// `git pull` without rebase.
    Pull,
    /// `git commit` (and `am`, `notes add`, `citool`).
    Commit,
    /// `git add` (and `stage`, `update-index`, `rm --cached`, `apply --cached`).
    Add,
    /// A branch is created or renamed (`branch NAME`, `checkout -b`, `switch -c`, `branch -m`).
    BranchCreate,
    /// `git branch -d/-D/--delete`.
    BranchDelete,
    /// A tag is created or deleted.
    Tag,
    /// `git reset` (soft/mixed/paths).
    Reset,
    /// Switching branches or restoring files (`checkout`, `switch`, `restore`).
    Checkout,
    /// `git stash` other than `list`/`show`.
    Stash,
    /// `git clean` other than `-n`.
    Clean,
    /// `git cherry-pick`.
    CherryPick,
    /// `git revert`.
    Revert,
    /// history rewriting: push --force/-f/--force-with-lease/+refspec, commit --amend, rebase -i,
    /// filter-branch, filter-repo, reset --hard, update-ref, replace
    HistoryRewrite,
    /// `gh pr create`.
    PrCreate,
    /// `gh pr merge`.
    PrMerge,
    /// `gh pr close`.
    PrClose,
    /// `gh release create` (and other release management).
    ReleaseCreate,
    /// read-only or harmless git (status, log, diff, show, fetch, blame, merge-base, prune, ...)
    Read,
}

/// Why a step cannot be resolved statically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpaqueReason {
    /// `eval`, or a nested shell script built from expansions, or git config that runs commands.
    Eval,
    /// The program name is an expansion (`$g push`, `$(echo git) push`).
    DynamicProgram,
    /// `python -c`, `node -e`, `perl -e`, awk programs that can run commands, ...
    InterpreterOneLiner,
    /// `source` / `.`.
    Source,
    /// The command could not be parsed.
    ParseError,
    /// The input (or the number of effects) exceeds the analyser's limits.
    TooLarge,
    /// Nested shells/wrappers deeper than the analyser follows.
    DepthLimit,
    /// A git/gh command the analyser does not know (alias, extension, mutating `gh api`).
    GitAlias,
    /// A shell or interpreter reads its program from a pipe, heredoc or here-string.
    ScriptFromStdin,
}

/// One thing the command does.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Effect {
    /// A file changed through the shell. `path` is the word as the shell would see it after
    /// quote removal; `dynamic` is true when it contains an expansion or glob that cannot be
    /// resolved statically (then `path` holds the literal prefix up to the first dynamic char).
    File {
        /// What happens to the file.
        op: FileOp,
        /// The path (or its literal prefix when `dynamic`).
        path: String,
        /// Whether the path is only known up to `path`.
        dynamic: bool,
        /// The program or mechanism (`redirect`, `rm`, `sed -i`, ...).
        via: String,
    },
    /// A git/gh operation.
    Git {
        /// The operation.
        op: GitOp,
        /// The subcommand as written (`push`, `pr merge`, ...).
        subcommand: String,
    },
    /// Something that could do anything; fail closed for agents lacking the right.
    Opaque {
        /// Why it is opaque.
        reason: OpaqueReason,
        /// Short human-readable detail.
        detail: String,
    },
}

/// In [`Step::snippet`], separates the command as written from what it resolved to, for a
/// step that came from indirection: `eval "git push" ⟶ git push`, `$g push ⟶ git push`,
/// `git -c alias.p=push p ⟶ git push`.
pub const RESOLVED_SEP: &str = " \u{27f6} ";

/// One effect with where it came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Step {
    /// The source text of the simple command (trimmed, at most 120 bytes) for messages.
    /// When the step came from indirection (`eval`, a variable, a git alias), the command as
    /// written, [`RESOLVED_SEP`], then what it resolved to.
    pub snippet: String,
    /// The directory in effect for this step.
    pub cwd: Cwd,
    /// What the step does.
    pub effect: Effect,
}

/// Everything a command does that authority cares about, in source order.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Analysis {
    /// The steps, in source order (substitutions before the command that uses them).
    pub steps: Vec<Step>,
}
