//! NSO core: the decisions behind the NSO governance plugin for OpenCode.
//!
//! Pure logic: text and structures in, decisions out. No file, clock or process I/O happens
//! here; the JS shim (`plugin/nso-plugin.js`) does that and calls in through the one wasm
//! boundary module ([`wasm`], compiled only for wasm targets).

pub mod authority;
pub mod config;
pub mod contract;
pub mod delegation;
pub mod frontmatter;
pub mod language;
pub mod markdown;
pub mod router;
pub mod session;
pub mod shell;
pub mod status;
pub mod task_id;
pub mod template;

#[cfg(all(target_family = "wasm", not(feature = "workflow")))]
mod wasm;
#[cfg(target_family = "wasm")]
mod wasm_common;
#[cfg(all(target_family = "wasm", feature = "workflow"))]
mod wasm_workflow;

/// The version of this core, as shown in logs and the init marker.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
