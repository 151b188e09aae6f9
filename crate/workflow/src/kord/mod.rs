//! Kord's workflow contracts beyond who may write what: squads and their settings
//! ([`squad`]), plans of waves and work items ([`plan`]), checks when a plan or a story is
//! written ([`gates`]), and the orchestrator's delegation rules, wave checkpoints and crash
//! recovery ([`orchestrator`]).
//!
//! Pure: texts in, verdicts and new texts out. The JS shell reads the squads, the plan, the
//! story and the state file, takes the lock and writes what a verdict says.

pub mod calls;
pub mod gates;
pub mod orchestrator;
pub mod outcome;
pub mod plan;
pub mod squad;

pub use gates::{check_plan_write, story_gates, Squads};
pub use orchestrator::{
    after_delegation, before_delegation, resume_text, Context, Delegation, State, Verdict,
};
pub use plan::{parse_plan, Plan};
pub use squad::{parse_squad, Squad, SquadError};
