//! NSO core: the decisions behind the NSO governance plugin for OpenCode.
//!
//! Pure logic: text and structures in, decisions out. No file, clock or process I/O happens
//! here; the JS shim (`plugin/nso-plugin.js`) does that and calls in through one thin
//! boundary per wasm package ([`boundary`], compiled only for wasm targets). The modules are
//! the capabilities: [`authority`] (who may do what, with [`shell`] reading bash commands),
//! [`routing`], [`contracts`] (task contracts and delegations), [`status`] (status machines and
//! the atomic TODO.md/state.json sync), [`session`] (session start), over [`config`] and
//! [`documents`] (Markdown and frontmatter). [`conductor`] coordinates several agent
//! instances through claims on files in a shared state (seed 003).

pub mod authority;
pub mod boundary;
pub mod conductor;
pub mod config;
pub mod continuity;
pub mod contracts;
pub mod documents;
pub mod hashing;
pub mod hosts;
pub mod kord;
pub mod mind;
pub mod routing;
pub mod session;
pub mod shell;
pub mod status;
pub mod toolbox;

/// The version of this core, as shown in logs and the init marker.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
