//! NSO core: the decisions behind the NSO governance plugin for OpenCode, as one crate for the
//! tests, benchmarks and tools that span its parts. The parts are their own crates, along the
//! seams of the design:
//!
//! - `nso-text` (`crate/text`): Markdown, frontmatter, hashing.
//! - `nso-decision` (`crate/decision`): the decision of a tool call: authority, shell
//!   analysis, host tool mapping, the table of NSO's tools.
//! - `nso-conductor` (`crate/conductor`): claims across agent instances.
//! - `nso-workflow` (`crate/workflow`): configuration, routing, contracts, status machines,
//!   continuity, Mind, Kord.
//! - `nso-wasm` and `nso-wasm-workflow` (`crate/wasm*`): the thin wasm boundaries of the two
//!   packages in `pkg/`; no decisions there.
//!
//! Pure logic throughout: no file, clock or process I/O happens in the core.

pub use nso_conductor as conductor;
pub use nso_decision::{authority, hosts, shell};
pub use nso_text::{documents, hashing};
pub use nso_workflow::{
    config, continuity, contracts, kord, mind, routing, session, status, toolbox, VERSION,
};
