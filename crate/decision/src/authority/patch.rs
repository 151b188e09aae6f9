//! `apply_patch` text: which files it touches, and applying its update hunks.
//!
//! Format: `*** Begin Patch`, then per file `*** Add File: p` (lines starting with `+`),
//! `*** Delete File: p`, or `*** Update File: p` (optional `*** Move to: q`, then hunks:
//! `@@` or `@@ context line`, lines starting with ` `, `-`, `+`, optional
//! `*** End of File`), then `*** End Patch`.
//!
//! Paths are found leniently: any line whose trimmed text starts with a file header counts,
//! wherever it is, so a malformed patch cannot hide a path. Content is computed only from a
//! well-formed patch; callers fail closed otherwise.

/// What the patch does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchAction {
    /// `*** Add File:`
    Add,
    /// `*** Update File:`
    Update,
    /// `*** Delete File:`
    Delete,
}

/// One line of an update hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HunkLine<'a> {
    /// ` line`: kept.
    Keep(&'a str),
    /// `-line`: removed.
    Remove(&'a str),
    /// `+line`: added.
    Add(&'a str),
}

/// One `@@` hunk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk<'a> {
    /// Text after `@@ `, a line to find before the hunk.
    pub context: Option<&'a str>,
    /// The hunk's lines.
    pub lines: Vec<HunkLine<'a>>,
    /// `*** End of File` followed: the hunk is anchored at the end.
    pub end_of_file: bool,
}

/// One file section of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchFile<'a> {
    /// What happens to the file.
    pub action: PatchAction,
    /// The path as written.
    pub path: &'a str,
    /// `*** Move to:` target of an update.
    pub move_to: Option<&'a str>,
    /// Lines of an added file (without the `+`).
    pub add_lines: Vec<&'a str>,
    /// Hunks of an update.
    pub hunks: Vec<Hunk<'a>>,
}

/// A parsed patch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Patch<'a> {
    /// Files in order of appearance.
    pub files: Vec<PatchFile<'a>>,
    /// True when every line was understood (markers, hunks) and the patch is closed.
    pub well_formed: bool,
}

const ADD: &str = "*** Add File:";
const UPDATE: &str = "*** Update File:";
const DELETE: &str = "*** Delete File:";
const MOVE: &str = "*** Move to:";

/// Parses an `apply_patch` text. Never fails: see [`Patch::well_formed`].
pub fn parse(text: &str) -> Patch<'_> {
    let mut files: Vec<PatchFile> = Vec::new();
    let mut ok = true;
    let mut begun = false;
    let mut ended = false;
    for raw in text.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let t = line.trim();
        if let Some(p) = t.strip_prefix(ADD) {
            files.push(file(PatchAction::Add, p.trim()));
            ok &= begun && !ended;
            continue;
        }
        if let Some(p) = t.strip_prefix(UPDATE) {
            files.push(file(PatchAction::Update, p.trim()));
            ok &= begun && !ended;
            continue;
        }
        if let Some(p) = t.strip_prefix(DELETE) {
            files.push(file(PatchAction::Delete, p.trim()));
            ok &= begun && !ended;
            continue;
        }
        if let Some(p) = t.strip_prefix(MOVE) {
            match files.last_mut() {
                Some(f)
                    if f.action == PatchAction::Update
                        && f.move_to.is_none()
                        && f.hunks.is_empty() =>
                {
                    f.move_to = Some(p.trim())
                }
                // A stray move still names a path: record it as an added file so that it
                // is checked, and mark the patch malformed.
                _ => {
                    files.push(file(PatchAction::Add, p.trim()));
                    ok = false;
                }
            }
            continue;
        }
        if t == "*** Begin Patch" {
            ok &= !begun;
            begun = true;
            continue;
        }
        if t == "*** End Patch" {
            ok &= begun && !ended;
            ended = true;
            continue;
        }
        if t == "*** End of File" {
            match files.last_mut().and_then(|f| f.hunks.last_mut()) {
                Some(h) => h.end_of_file = true,
                None => ok = false,
            }
            continue;
        }
        if ended || !begun {
            ok &= t.is_empty();
            continue;
        }
        let Some(f) = files.last_mut() else {
            ok &= t.is_empty();
            continue;
        };
        match f.action {
            PatchAction::Add => match line.strip_prefix('+') {
                Some(l) => f.add_lines.push(l),
                None => ok = false,
            },
            PatchAction::Delete => ok &= t.is_empty(),
            PatchAction::Update => {
                if let Some(rest) = line.strip_prefix("@@") {
                    let ctx = rest.trim();
                    f.hunks.push(Hunk {
                        context: (!ctx.is_empty()).then_some(ctx),
                        ..Hunk::default()
                    });
                    continue;
                }
                if f.hunks.is_empty() {
                    // Codex allows the first hunk without an `@@` line.
                    f.hunks.push(Hunk::default());
                }
                let h = f.hunks.last_mut().expect("just ensured");
                let l = match line.chars().next() {
                    Some(' ') => HunkLine::Keep(&line[1..]),
                    Some('-') => HunkLine::Remove(&line[1..]),
                    Some('+') => HunkLine::Add(&line[1..]),
                    None => HunkLine::Keep(""),
                    Some(_) => {
                        ok = false;
                        continue;
                    }
                };
                h.lines.push(l);
            }
        }
    }
    Patch {
        files,
        well_formed: ok && begun && ended,
    }
}

fn file(action: PatchAction, path: &str) -> PatchFile<'_> {
    PatchFile {
        action,
        path,
        move_to: None,
        add_lines: Vec::new(),
        hunks: Vec::new(),
    }
}

/// Content of an added file.
pub fn added_content(f: &PatchFile) -> String {
    let mut s = String::new();
    for l in &f.add_lines {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// Applies update hunks to `old` the way `apply_patch` does (sequential search from the
/// previous hunk, exact match first, then ignoring trailing and then surrounding
/// whitespace). Returns `None` when a hunk cannot be placed.
pub fn apply_update(old: &str, hunks: &[Hunk]) -> Option<String> {
    let mut lines: Vec<&str> = old.split('\n').collect();
    if old.ends_with('\n') {
        lines.pop();
    }
    if old.is_empty() {
        lines.clear();
    }
    let mut cursor = 0usize;
    let mut edits: Vec<(usize, usize, Vec<&str>)> = Vec::new();
    for h in hunks {
        if let Some(ctx) = h.context {
            let idx = find_seq(&lines, &[ctx], cursor, false)?;
            cursor = idx + 1;
        }
        let old_seq: Vec<&str> = h
            .lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Keep(s) | HunkLine::Remove(s) => Some(*s),
                HunkLine::Add(_) => None,
            })
            .collect();
        let new_seq: Vec<&str> = h
            .lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Keep(s) | HunkLine::Add(s) => Some(*s),
                HunkLine::Remove(_) => None,
            })
            .collect();
        if old_seq.is_empty() {
            edits.push((lines.len(), 0, new_seq));
            continue;
        }
        let mut idx = find_seq(&lines, &old_seq, cursor, h.end_of_file);
        if idx.is_none() && old_seq.last() == Some(&"") {
            // A trailing empty context line may stand for the final newline.
            idx = find_seq(&lines, &old_seq[..old_seq.len() - 1], cursor, h.end_of_file);
            if let Some(i) = idx {
                let n = old_seq.len() - 1;
                let mut ns = new_seq.clone();
                if ns.last() == Some(&"") {
                    ns.pop();
                }
                edits.push((i, n, ns));
                cursor = i + n;
                continue;
            }
        }
        let i = idx?;
        edits.push((i, old_seq.len(), new_seq));
        cursor = i + old_seq.len();
    }
    edits.sort_by_key(|e| e.0);
    for w in edits.windows(2) {
        if w[0].0 + w[0].1 > w[1].0 {
            return None;
        }
    }
    for (start, len, new) in edits.into_iter().rev() {
        lines.splice(start..start + len, new);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    Some(out)
}

fn find_seq(lines: &[&str], seq: &[&str], start: usize, at_end: bool) -> Option<usize> {
    if seq.len() > lines.len() {
        return None;
    }
    let last = lines.len() - seq.len();
    let compare = |f: &dyn Fn(&str, &str) -> bool| -> Option<usize> {
        if at_end && last >= start && seq.iter().zip(&lines[last..]).all(|(a, b)| f(a, b)) {
            return Some(last);
        }
        (start..=last).find(|&i| seq.iter().zip(&lines[i..]).all(|(a, b)| f(a, b)))
    };
    compare(&|a, b| a == b)
        .or_else(|| compare(&|a, b| a.trim_end() == b.trim_end()))
        .or_else(|| compare(&|a, b| a.trim() == b.trim()))
}

/// File paths named by a unified diff (`--- a/x` / `+++ b/y`), for the `patch` tool:
/// (path, action). `/dev/null` on one side means add or delete.
pub fn unified_diff_files(text: &str) -> Vec<(&str, PatchAction)> {
    let mut out = Vec::new();
    let mut minus: Option<&str> = None;
    for raw in text.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(p) = line.strip_prefix("--- ") {
            minus = Some(diff_path(p));
        } else if let Some(p) = line.strip_prefix("+++ ") {
            let plus = diff_path(p);
            match (minus.take(), plus) {
                (Some("/dev/null"), "/dev/null") | (None, "/dev/null") => {}
                (Some("/dev/null"), p) => out.push((p, PatchAction::Add)),
                (Some(m), "/dev/null") => out.push((m, PatchAction::Delete)),
                (Some(m), p) if m != p => {
                    out.push((m, PatchAction::Delete));
                    out.push((p, PatchAction::Add));
                }
                (_, p) => out.push((p, PatchAction::Update)),
            }
        } else if let Some(rest) = line.strip_prefix("diff --git ") {
            // Covers renames/mode changes without ---/+++ lines.
            for part in rest.split_whitespace() {
                out.push((strip_ab(part), PatchAction::Update));
            }
        }
    }
    out
}

fn diff_path(p: &str) -> &str {
    let p = p.split('\t').next().unwrap_or(p).trim();
    strip_ab(p)
}

fn strip_ab(p: &str) -> &str {
    p.strip_prefix("a/")
        .or_else(|| p.strip_prefix("b/"))
        .unwrap_or(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_headers() {
        let p = parse(
            "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: b.txt\n*** Move to: c.txt\n@@ fn x\n-old\n+new\n*** Delete File: d.txt\n*** End Patch\n",
        );
        assert!(p.well_formed);
        let names: Vec<_> = p
            .files
            .iter()
            .map(|f| (f.action, f.path, f.move_to))
            .collect();
        assert_eq!(
            names,
            vec![
                (PatchAction::Add, "a.txt", None),
                (PatchAction::Update, "b.txt", Some("c.txt")),
                (PatchAction::Delete, "d.txt", None)
            ]
        );
        assert_eq!(added_content(&p.files[0]), "hi\n");
    }

    #[test]
    fn malformed_still_finds_paths() {
        let p = parse("garbage\n   *** Update File: x.rs\n???\n*** Move to: y.rs");
        assert!(!p.well_formed);
        let paths: Vec<_> = p.files.iter().map(|f| f.path).collect();
        assert_eq!(paths, vec!["x.rs"]);
        assert_eq!(p.files[0].move_to, Some("y.rs"));
    }

    #[test]
    fn applies_hunks() {
        let old = "a\nb\nc\nd\n";
        let p = parse("*** Begin Patch\n*** Update File: f\n@@\n b\n-c\n+C\n d\n*** End Patch");
        assert_eq!(
            apply_update(old, &p.files[0].hunks).unwrap(),
            "a\nb\nC\nd\n"
        );
        let p = parse(
            "*** Begin Patch\n*** Update File: f\n@@\n d\n+e\n*** End of File\n*** End Patch",
        );
        assert_eq!(
            apply_update(old, &p.files[0].hunks).unwrap(),
            "a\nb\nc\nd\ne\n"
        );
        let p = parse("*** Begin Patch\n*** Update File: f\n@@\n-zzz\n+e\n*** End Patch");
        assert_eq!(apply_update(old, &p.files[0].hunks), None);
        // Fuzzy placement (trailing spaces); kept lines are written as the patch has them.
        let p = parse("*** Begin Patch\n*** Update File: f\n@@ c\n d  \n+e\n*** End Patch");
        assert_eq!(
            apply_update(old, &p.files[0].hunks).unwrap(),
            "a\nb\nc\nd  \ne\n"
        );
    }

    #[test]
    fn unified_diff() {
        let d = "--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1 +1 @@\n--- /dev/null\n+++ b/new.rs\n--- a/old.rs\n+++ /dev/null\n";
        assert_eq!(
            unified_diff_files(d),
            vec![
                ("src/x.rs", PatchAction::Update),
                ("new.rs", PatchAction::Add),
                ("old.rs", PatchAction::Delete)
            ]
        );
    }
}
