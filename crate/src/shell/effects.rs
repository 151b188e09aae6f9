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
    /// Changed by something not statically known (`cd $X`, `cd -`, `cd` with no args → $HOME is Dir("~")? no: Unknown).
    Unknown,
}

/// Kind of change to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileOp {
    Write,
    Create,
    Delete,
}

/// A git or gh operation that authority rules name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GitOp {
    Push,
    Merge,
    Rebase,
    PullRebase,
    Pull,
    Commit,
    Add,
    BranchCreate,
    BranchDelete,
    Tag,
    Reset,
    Checkout,
    Stash,
    Clean,
    CherryPick,
    Revert,
    /// history rewriting: push --force/-f/--force-with-lease/+refspec, commit --amend, rebase -i,
    /// filter-branch, filter-repo, reset --hard, update-ref, replace
    HistoryRewrite,
    PrCreate,
    PrMerge,
    PrClose,
    ReleaseCreate,
    /// read-only or harmless git (status, log, diff, show, fetch, blame, merge-base, prune, ...)
    Read,
}

/// Why a step cannot be resolved statically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpaqueReason {
    Eval,
    DynamicProgram,
    InterpreterOneLiner,
    Source,
    ParseError,
    TooLarge,
    DepthLimit,
    GitAlias,
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
        op: FileOp,
        path: String,
        dynamic: bool,
        via: String,
    },
    /// A git/gh operation. `args` are the words after the subcommand (for messages).
    Git { op: GitOp, subcommand: String },
    /// Something that could do anything; fail closed for agents lacking the right.
    Opaque {
        reason: OpaqueReason,
        detail: String,
    },
}

/// One effect with where it came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Step {
    /// The source text of the simple command (trimmed, at most ~120 chars) for messages.
    pub snippet: String,
    /// The directory in effect for this step.
    pub cwd: Cwd,
    pub effect: Effect,
}

/// Everything a command does that authority cares about, in source order.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Analysis {
    pub steps: Vec<Step>,
}
