//! Other agent hosts' tool calls as NSO's engine knows them. OpenCode's calls are the
//! engine's own shape; Claude Code's ([`claude_code`]) are mapped onto it, so one policy gives
//! one verdict for one call in either host (the hook adapters, `nso replay` on Claude Code
//! transcripts, and the native hook all use this one mapping).

pub mod claude_code;
