//! NSO's workflow half and the project's configuration: [`config`] reads `.opencode/nso.json`
//! (and builds the project's decision engine from it), [`routing`] routes messages to
//! commands, [`contracts`] checks task contracts and delegations, [`status`] runs the status
//! machines and the atomic TODO.md/state.json sync, [`continuity`] keeps the decision
//! ledger, T0 transcripts and handoffs, [`mind`] distills sessions and answers Insight,
//! [`kord`] runs Kord's squads and plans, [`session`] starts a session, and [`toolbox`]
//! chooses which of NSO's tools a project and each agent get. Pure, like the decision core it
//! builds on.

pub mod config;
pub mod continuity;
pub mod contracts;
pub mod kord;
pub mod mind;
pub mod routing;
pub mod session;
pub mod status;
pub mod toolbox;

/// The version of this core, as shown in logs and the init marker.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
