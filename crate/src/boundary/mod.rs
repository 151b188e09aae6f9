//! The wasm boundaries: one thin module per wasm package. `wasm` is the main package
//! (authority, session start), `workflow` the lazily loaded one (routing, contracts, status
//! machines; its continuity exports in `continuity`), built with the `workflow` feature;
//! `common` is what both share.

#[cfg(target_family = "wasm")]
mod common;
/// The workflow package's continuity exports (ledger, T0 transcripts, handoffs).
#[cfg(all(target_family = "wasm", feature = "workflow"))]
mod continuity;
/// The workflow package's Kord exports (squads, plans, the orchestrator's rules).
#[cfg(all(target_family = "wasm", feature = "workflow"))]
mod kord;
/// The workflow package's Mind exports (distilling lanes, Insight).
#[cfg(all(target_family = "wasm", feature = "workflow"))]
mod mind;
#[cfg(all(target_family = "wasm", not(feature = "workflow")))]
mod wasm;
#[cfg(all(target_family = "wasm", feature = "workflow"))]
mod workflow;
