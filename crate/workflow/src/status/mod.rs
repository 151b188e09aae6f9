//! Status governance: status state machines as data, role-gated transition checks on edits
//! of status-bearing files, planning of atomic TODO.md + state.json status syncs, and a
//! consistency check between the two.
//!
//! Pure logic: texts in, verdicts and new texts out. No I/O and no clock (times come in as
//! ISO strings); the JS shim reads files, writes through temp files + rename, and verifies.
//!
//! * [`machine`] — machines as data, the shipped defaults, `.opencode/nso.json` parsing.
//! * [`extract`] — finding the status (or per-task statuses) in a file's text.
//! * [`transition`] — [`check_edit`]: old text vs new text → allow or block.
//! * [`todo`](mod@todo), [`state_json`] — the TODO.md and state.json models.
//! * [`sync`] — [`plan_status_sync`], [`plan_new_task`], [`plan_archive`], [`verify_sync`].
//! * [`check`] — [`check_consistency`].
//!
//! # Shipped machines
//!
//! `nso-task` (`.opencode/context/active_tasks/*/status.md` and `result.md`, `- Status:`):
//!
//! | from → to | who | why |
//! |---|---|---|
//! | PENDING → IN_PROGRESS | executor | the executor starts after reading its contract |
//! | PENDING → BLOCKED | executor | pre-flight: contract unclear, questions.md written |
//! | IN_PROGRESS → BLOCKED | executor | a blocker during the work |
//! | BLOCKED → IN_PROGRESS | executor, delegator | answers arrived (re-delegation) |
//! | IN_PROGRESS → COMPLETE | executor | success criteria met |
//! | IN_PROGRESS → FAILED | executor | cannot finish |
//! | BLOCKED → FAILED | delegator | the delegator gives up |
//! | FAILED → PENDING | delegator | retry (re-delegation) |
//!
//! Executors: builder (the `nso` preset; `build` and `general` are `like` it), dev and
//! dev-junior (the `kord` preset). Delegators: oracle, build (OpenCode's native primary
//! agent orchestrates too) and kord.
//!
//! PENDING is initial, COMPLETE terminal. status.md is created in PENDING; result.md is
//! written once, at the end, so it is created in COMPLETE or FAILED (`createIn`). The
//! executor moves its own task; only the delegator retries or abandons.
//!
//! `kord-story` (`docs/kord/**/stories/*.md`): DRAFT → READY (sm, po; title, acceptance
//! criteria, tasks, executor, quality gate, quality gate ≠ executor) → IN_PROGRESS (build)
//! → REVIEW (dev, dev-junior; every task and DoD checkbox ticked, quality gate ≠ executor)
//! → DONE (qa; latest verdict APPROVED). IN_PROGRESS → BLOCKED (dev, dev-junior; blocker
//! documented), BLOCKED → IN_PROGRESS (po), REVIEW → IN_PROGRESS (qa; latest verdict
//! NEEDS_WORK; at most 2 iterations, then escalate), REVIEW → ABORTED (qa; latest verdict
//! REJECT). DONE and ABORTED are terminal.
//!
//! `proofchecker` (TODO.md markers per `### NNN.` entry, `status` per task in
//! `specs/state.json` and `specs/NNN_x/state.json`): the seed's diagram —
//! NOT STARTED → RESEARCHING → RESEARCHED → PLANNING → PLANNED → IMPLEMENTING → COMPLETED,
//! RESEARCHING/IMPLEMENTING → BLOCKED → ABANDONED, PLANNED → REVISING → REVISED →
//! IMPLEMENTING, IMPLEMENTING → PARTIAL — plus resumes (PARTIAL → IMPLEMENTING,
//! BLOCKED → RESEARCHING / IMPLEMENTING), REVISED → REVISING and NOT STARTED → PLANNING.
//! Research moves by researcher / lean-research-agent, planning and revising by planner /
//! lean-planner, implementation by implementer / lean-implementation-agent, abandoning by
//! orchestrator; → RESEARCHED / PLANNED / REVISED need a linked artifact.
//!
//! # Story file format (kord-story)
//!
//! Tolerant: fields may be YAML frontmatter (`status: DRAFT`), list fields
//! (`- Status: DRAFT`, `- **Executor**: @dev`), bold fields (`**Status:** Draft`), plain
//! `Key: value` lines, two-cell table rows (`| Status | Draft |`) or a `## Status` section
//! whose first line is the value. Names are compared normalised (`Quality Gate` =
//! `quality_gate`), states case- and separator-insensitively (`In Progress` = `IN_PROGRESS`).
//! Code blocks are ignored.
//!
//! ```markdown
//! ---
//! title: Login endpoint
//! status: DRAFT
//! executor: dev-junior
//! quality_gate: qa
//! ---
//! # Story S1: Login endpoint
//!
//! ## Acceptance Criteria
//! - Given valid credentials, when I POST /login, then I receive a session cookie.
//!
//! ## Tasks
//! - [ ] Write failing tests
//! - [x] Implement the handler
//!
//! ## Definition of Done          (optional; if present, every box must be ticked for REVIEW)
//! - [ ] Tests pass
//!
//! ## Blockers                    (or a `blocker:` field; needed for → BLOCKED)
//!
//! ## QA Review                   (QA appends one record per review; records are append-only)
//! ### Review 1 (2026-02-11)
//! - Verdict: NEEDS_WORK          (APPROVED | NEEDS_WORK | REJECT)
//! ```
//!
//! The NEEDS_WORK iteration count is the number of `Verdict: NEEDS_WORK` records (or a
//! `review_iterations:` field if larger) in the old or the new text, whichever is larger;
//! REVIEW → IN_PROGRESS is refused once that count would exceed 2.

pub mod check;
mod conditions;
mod defaults;
pub mod extract;
mod glob;
mod json_text;
pub mod machine;
mod markdown;
pub mod oracle;
pub mod state_json;
pub mod sync;
mod text;
pub mod todo;
pub mod transition;

pub use check::{check_consistency, Disagreement};
pub use defaults::DEFAULT_MACHINES_JSON;
pub use machine::{
    parse_nso_json, parse_status_section, StatusConfig, StatusConfigError, DEFAULT_BINDING_GLOBS,
};
pub use sync::{
    plan_archive, plan_new_task, plan_status_sync, verify_sync, SyncError, SyncInputs, SyncPlan,
};
pub use transition::{check_edit, BlockCode, EditVerdict};

/// Lets `engine` check status changes in-process against `status` (`None`: the shipped
/// machines): the files the machines govern, and the machines as its oracle. The wasm build
/// instead asks the lazily loaded workflow package, so the machines do not weigh on the
/// plugin's start. Status depends on authority, never the other way round.
pub fn govern(engine: &mut nso_decision::authority::Engine, status: Option<StatusConfig>) {
    let config = status.unwrap_or_default();
    let globs: Vec<String> = if config.enabled {
        config
            .machines
            .iter()
            .flat_map(|m| m.def.files.iter().flat_map(|b| b.globs.iter().cloned()))
            .collect()
    } else {
        Vec::new()
    };
    engine.set_status_scope(&globs);
    engine.set_status_oracle(std::rc::Rc::new(config));
}
