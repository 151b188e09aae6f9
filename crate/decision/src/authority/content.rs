//! Content rules: append-only files and plan checkboxes, and computing a tool's new content.

use super::patch::{apply_update, Hunk};

/// One `edit`-style replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditSpec<'a> {
    /// Text to find (`""` = replace the whole file, as OpenCode's edit does).
    pub old: &'a str,
    /// Replacement.
    pub new: &'a str,
    /// Replace every occurrence.
    pub all: bool,
}

/// How a tool call changes one file's content, as far as NSO can compute it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change<'a> {
    /// No content change (reads, deletes, git).
    None,
    /// The whole new content (`write`).
    Full(&'a str),
    /// Replacements applied in order (`edit`, `multiedit`).
    Edits(Vec<EditSpec<'a>>),
    /// Content of a file added by `apply_patch`.
    Added(String),
    /// Update hunks of `apply_patch`; `from` is the source path of a move.
    Hunks {
        /// Source file of a `*** Move to:` (its content is patched), else `None`.
        from: Option<&'a str>,
        /// Hunks to apply.
        hunks: Vec<Hunk<'a>>,
        /// The patch was well formed.
        well_formed: bool,
    },
    /// Appends only (`>>`, `tee -a`).
    Append,
    /// Changes NSO cannot compute (shell writes, unified diffs, unknown tools).
    Unknown,
    /// A change whose text the shim did not pass in, because it is larger than
    /// `limits.contentBytes` (the size in bytes): rules that need the new content fail closed.
    Oversized(u64),
}

impl Change<'_> {
    /// Does computing the new content need the file's old content?
    pub fn needs_old(&self) -> bool {
        matches!(
            self,
            Change::Edits(_) | Change::Hunks { .. } | Change::Full(_) | Change::Added(_)
        )
    }
}

/// Computes the new content from the old one. `Err` says why it cannot be computed.
pub fn new_content(change: &Change, old: &str) -> Result<String, String> {
    match change {
        Change::Full(s) => Ok((*s).to_string()),
        Change::Added(s) => Ok(s.clone()),
        Change::Edits(edits) => {
            let mut cur = old.to_string();
            for (i, e) in edits.iter().enumerate() {
                cur = apply_edit(&cur, e).map_err(|m| {
                    if edits.len() > 1 {
                        format!("edit {}: {m}", i + 1)
                    } else {
                        m.to_string()
                    }
                })?;
            }
            Ok(cur)
        }
        Change::Hunks {
            hunks, well_formed, ..
        } => {
            if !well_formed {
                return Err("the patch is malformed".to_string());
            }
            apply_update(old, hunks)
                .ok_or_else(|| "a hunk of the patch does not match the file".to_string())
        }
        Change::Append => Err("appends only".to_string()),
        Change::None => Ok(old.to_string()),
        Change::Unknown => Err("NSO cannot see what this writes".to_string()),
        Change::Oversized(bytes) => Err(format!(
            "its text is {bytes} bytes, more than NSO reads to check a change (limits.contentBytes in .opencode/nso.json)"
        )),
    }
}

fn apply_edit(old: &str, e: &EditSpec) -> Result<String, &'static str> {
    if e.old.is_empty() {
        return Ok(e.new.to_string());
    }
    if !old.contains(e.old) {
        return Err("oldString does not occur exactly in the file");
    }
    Ok(if e.all {
        old.replace(e.old, e.new)
    } else {
        old.replacen(e.old, e.new, 1)
    })
}

/// Append-only check: the old content must be an exact prefix of the new one.
pub fn keeps_prefix(old: &str, new: &str) -> bool {
    new.starts_with(old)
}

/// Checkbox-ticking check: every line identical except `- [ ]` turned into `- [x]`
/// (also `*`, `+`, `1.` markers and `[X]`). Returns the 1-based number of the first line
/// that breaks the rule.
pub fn only_ticks(old: &str, new: &str) -> Result<(), usize> {
    let mut o = old.split('\n');
    let mut n = new.split('\n');
    let mut line = 0usize;
    loop {
        line += 1;
        match (o.next(), n.next()) {
            (None, None) => return Ok(()),
            (Some(a), Some(b)) if a == b || is_tick(a, b) => {}
            _ => return Err(line),
        }
    }
}

fn is_tick(old: &str, new: &str) -> bool {
    let Some(pos) = checkbox_pos(old) else {
        return false;
    };
    if old.len() != new.len() || &old.as_bytes()[pos..pos + 3] != b"[ ]" {
        return false;
    }
    let nb = new.as_bytes();
    old.as_bytes()[..pos] == nb[..pos]
        && nb[pos] == b'['
        && (nb[pos + 1] == b'x' || nb[pos + 1] == b'X')
        && nb[pos + 2] == b']'
        && old.as_bytes()[pos + 3..] == nb[pos + 3..]
}

/// Byte offset of `[` in a list-item checkbox line (`  - [ ] text`, `1. [ ] text`).
fn checkbox_pos(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t' || b[i] == b'>') {
        i += 1;
    }
    match b.get(i)? {
        b'-' | b'*' | b'+' => i += 1,
        b'0'..=b'9' => {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if !matches!(b.get(i)?, b'.' | b')') {
                return None;
            }
            i += 1;
        }
        _ => return None,
    }
    if *b.get(i)? != b' ' {
        return None;
    }
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    (b.len() >= i + 3 && b[i] == b'[').then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks() {
        let old = "# Plan\n- [ ] one\n  - [ ] two\n1. [ ] three\n";
        assert_eq!(
            only_ticks(old, "# Plan\n- [x] one\n  - [ ] two\n1. [X] three\n"),
            Ok(())
        );
        assert_eq!(only_ticks(old, old), Ok(()));
        assert_eq!(
            only_ticks(old, "# Plan!\n- [x] one\n  - [ ] two\n1. [ ] three\n"),
            Err(1)
        );
        assert_eq!(
            only_ticks(old, "# Plan\n- [x] one!\n  - [ ] two\n1. [ ] three\n"),
            Err(2)
        );
        assert_eq!(
            only_ticks("- [x] a", "- [ ] a"),
            Err(1),
            "unticking is not ticking"
        );
        assert_eq!(only_ticks(old, "# Plan\n- [x] one\n"), Err(3));
        assert_eq!(only_ticks("a", "a\nb"), Err(2));
        assert_eq!(only_ticks("text [ ] x", "text [x] x"), Err(1));
    }

    #[test]
    fn edits_and_prefix() {
        let c = Change::Edits(vec![EditSpec {
            old: "end\n",
            new: "end\nmore\n",
            all: false,
        }]);
        let new = new_content(&c, "start\nend\n").unwrap();
        assert!(keeps_prefix("start\nend\n", &new));
        let c = Change::Edits(vec![EditSpec {
            old: "start",
            new: "begin",
            all: false,
        }]);
        let new = new_content(&c, "start\nend\n").unwrap();
        assert!(!keeps_prefix("start\nend\n", &new));
        let c = Change::Edits(vec![EditSpec {
            old: "nope",
            new: "x",
            all: false,
        }]);
        assert!(new_content(&c, "start").is_err());
        let c = Change::Edits(vec![EditSpec {
            old: "",
            new: "whole",
            all: false,
        }]);
        assert_eq!(new_content(&c, "old").unwrap(), "whole");
    }
}
