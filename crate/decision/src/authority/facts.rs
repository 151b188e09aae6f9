//! What a decision needs to know about the file system, asked of the host: where a path
//! really lands (symlinks), whether it exists, and a file's current text. The core never
//! touches the disk; each host answers through [`Facts`] (the OpenCode shim and the Node
//! Claude Code hook with a JS object, the native hook with `std::fs`, `nso replay` with a
//! recorded session's files). Answers are asked fresh for every call: nothing the file system
//! says is kept beyond the call that asked.

use super::fast_map::FastMap;
use super::request::{Lookups, Request};

/// A file's text as the host read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileText {
    /// No such file.
    Missing,
    /// Its whole text.
    Text(String),
    /// Larger than the bound asked for: its size in bytes, not read.
    TooLarge(u64),
}

/// The host's answers about the file system. An `Err` says why a fact could not be found
/// out; the call is then refused (fail closed), naming the path and the reason.
pub trait Facts {
    /// The real location of the absolute path `abs`: every symlink on the way and in its
    /// last part followed (a dangling link gives where a write would land), parts that do not
    /// exist kept as written; and whether it exists.
    fn real_path(&mut self, abs: &str) -> Result<(String, bool), String>;

    /// The text of the file at `abs`, unless it is larger than `max_bytes`.
    fn read(&mut self, abs: &str, max_bytes: u64) -> Result<FileText, String>;
}

/// The real paths a call's facts gave so far (each path is asked once per call).
pub(crate) type Known = FastMap<String, (String, bool)>;

/// [`Facts::real_path`] of `abs`, asked once per call (`known`). `Err` names what could not
/// be found out.
pub(crate) fn real_path(
    facts: &mut dyn Facts,
    known: &mut Known,
    abs: &str,
) -> Result<(String, bool), String> {
    if let Some(info) = known.get(abs) {
        return Ok(info.clone());
    }
    let info = facts
        .real_path(abs)
        .map_err(|why| format!("NSO could not find where {abs} leads ({why})"))?;
    known.insert(abs.to_string(), info.clone());
    Ok(info)
}

/// Answers `need` into `req`'s maps through `facts`. `Err` names what could not be found out.
pub(crate) fn gather(
    req: &mut Request,
    need: &Lookups,
    content_bytes: u64,
    facts: &mut dyn Facts,
    known: &mut Known,
) -> Result<(), String> {
    for p in &need.resolve {
        let (path, _) = real_path(facts, known, p)?;
        req.resolved.insert(p.clone(), path);
    }
    for p in &need.exists {
        let (_, exists) = real_path(facts, known, p)?;
        req.exists.insert(p.clone(), exists);
    }
    for p in &need.content {
        match facts
            .read(p, content_bytes)
            .map_err(|why| format!("NSO could not read {p} ({why})"))?
        {
            FileText::Missing => {
                req.contents.insert(p.clone(), None);
            }
            FileText::Text(text) => {
                req.contents.insert(p.clone(), Some(text));
            }
            FileText::TooLarge(size) => {
                req.oversized.insert(p.clone(), size);
            }
        }
    }
    Ok(())
}
