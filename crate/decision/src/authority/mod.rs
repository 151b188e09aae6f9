//! NSO's authority engine: may this agent make this tool call?
//!
//! Pure: text and structs in, decisions out (no I/O, no clock). The JS shim resolves
//! symlinks, reads the few files the engine asks for, and turns a block into a thrown error.
//!
//! ```text
//! let policy = Policy::from_config_json(nso_json_policy_part, ".opencode/nso.json")?;
//! let mut engine = Engine::new(policy);
//! let needs = engine.required_content(&request);   // shim reads these files
//! let decision = engine.decide(&request_with_contents);
//! ```
//!
//! # How a call is decided
//!
//! A tool call is split into **operations** ([`classify`]): read, write, create or delete of a
//! path; a git/gh operation; or an **opaque** shell step (eval, a variable as the program,
//! an interpreter one-liner, anything unparseable). Each operation is decided on its own;
//! the call is blocked if any operation is blocked, and the message names the first.
//!
//! For one operation by agent *A* on target *T*:
//!
//! 1. **Identity.** *A* is matched by name, alias or display name (case-insensitive, leading
//!    `@` ignored; `"Name (Role)"` also tries `Name`). An unknown or missing agent may read
//!    (and run read-only git); anything else is blocked by `<policy>.unknown_agent`.
//! 2. **Target.** Paths are normalised lexically against the worktree (`.`, `..`, `//`,
//!    trailing `/`; `~` is outside); symlinks resolved by the shim are decided on their real
//!    target (a delete checks the link and the target). Relative globs match paths inside the
//!    project, absolute globs (`/tmp/**`) only paths outside it. A delete, and a shell path only
//!    known at run time (`rm src/$X`: its literal prefix folder), cover everything below the
//!    target: a blocking rule that matches anything below it applies (ranked as least
//!    specific), while an allow applies only if it matches the target and none of its `except`
//!    globs matches anything below it.
//! 3. **Matching rules** are the enabled rules that name *A* (or `*`, or an agent *A* is
//!    `like`), name the operation, match *T* (a pattern in `paths` and none in `except`), and,
//!    if they list `tools`, name this tool. Sacred areas (plan files) take part as rules: for
//!    everyone but their authors they are a block, except that a ticker's change that only
//!    turns `- [ ]` into `- [x]` counts as an allow. An `exclusive` allow rule ("only these
//!    agents") counts as a block for every agent it does not name.
//! 4. **Block wins.** If any matching rule blocks, the operation is blocked by it; if several
//!    do, by the most specific pattern (longest literal prefix), ties broken by rule id.
//! 5. **Else allow.** If any matching rule allows, the operation is allowed.
//! 6. **Else the default** for *A* and the operation kind: the agent's `defaults`, else those
//!    of an agent it is `like`, else the policy's `defaults`, else built in (read: allow;
//!    write, create, delete, git, opaque: block). Reported as `<policy>.default.<kind>`. A
//!    write, create or delete outside the project that no rule allows is blocked by
//!    `<policy>.outside_project` instead; an unusable path by `<policy>.invalid_path`.
//! 7. **Content.** If allowed and *T* is in an append-only area for *A*, the change must keep
//!    the old content as an exact prefix (appends only; deletes blocked); NSO computes the
//!    new content itself from `write`/`edit`/`multiedit`/`apply_patch` and the old content
//!    the shim sent, and fails closed when it cannot (shell writes other than `>>`, unified
//!    diffs, unknown tools, a missing old content).
//! 8. **Reminders.** If still allowed, matching `soft` rules make the verdict `soft` (their
//!    text is appended to the tool output) and matching `warn` rules make it `warn` (logged).
//!    `soft` and `warn` never grant anything by themselves.
//!
//! The order of rules in a file never matters. Deny beats allow, so adding an allow rule
//! cannot open a hole in a preset's block rule (or an `exclusive` rule): override that rule
//! by its id instead — with a narrower replacement, or `{"id": "...", "disabled": true}`.
//! Read-only git (status, log, diff, fetch, …) is always allowed.

mod bounds;
mod brief;
mod call;
mod config;
mod content;
mod engine;
mod evaluate;
mod facts;
mod fast_map;
mod lookups;
mod memo;
mod merge;
mod message;
mod names;
mod operation;
mod patch;
mod paths;
mod policy;
mod repeats;
mod request;
mod tools;
mod who_may;

pub use bounds::{bound_args, limit_of, oversized_marker, text_args, Limit, MAX_COMMAND_BYTES};
pub use brief::Brief;
pub use call::{call_target, AuditRecord, Call, CallAnswer, Explained, MAX_LOOKUP_ROUNDS};
pub use config::{
    codes, parse_raw, parse_raw_value, ConfigError, ConfigErrors, Effect, RawAgent, RawAppendOnly,
    RawDefaults, RawOp, RawOutside, RawPolicy, RawRule, RawSacred, RawTool, ToolClass,
    GIT_OP_NAMES,
};
pub use content::{keeps_prefix, new_content, only_ticks, Change, EditSpec};
pub use engine::Engine;
pub use facts::{Facts, FileText};
pub use fast_map::FastMap;
pub use message::not_enforcing;
pub use nso_text::glob::{Glob, GlobError};
pub use patch::{
    apply_update, parse as parse_patch, unified_diff_files, Hunk, HunkLine, Patch, PatchAction,
    PatchFile,
};
pub use paths::{absolute, Location, Roots};
pub use policy::{
    git_op_name, literal_glob, preset_json, Agent, AppendOnly, Policy, Rule, Sacred, ToolSpec,
    PRESETS,
};
pub use repeats::{call_hash, repeat_note};
pub use request::{
    CheckedOp, Decision, Lookups, Request, StatusAnswer, StatusOracle, StatusQuery, Verdict,
};
pub use tools::{
    classify, classify_with, is_read_tool, Classification, OpKind, StepInfo, Target, ToolKind,
    ToolOp, NSO_TOOLS, READ_TOOLS,
};

/// The JSON Schema (draft 2020-12) of the policy keys of `.opencode/nso.json`.
pub const POLICY_SCHEMA: &str = include_str!("../../../presets/policy.schema.json");
