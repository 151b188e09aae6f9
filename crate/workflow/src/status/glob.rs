//! Path globs for mapping files to machines.
//!
//! Patterns are matched against the whole project-relative path (no basename magic):
//! The matcher is the one glob of NSO ([`Glob`]): `*` within one segment, `?` one
//! character, `**` any number of whole segments (including none), `{a,b}` alternatives.
//! Matching is case-sensitive.

use nso_text::glob::Glob;

/// Normalises a path for matching: `\` becomes `/`, leading `./` and duplicate or trailing
/// slashes are dropped, `.` segments are removed.
pub(crate) fn normalize_path(p: &str) -> String {
    let p = p.replace('\\', "/");
    let segs: Vec<&str> = p
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let joined = segs.join("/");
    if p.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Why `pattern` cannot map files to a machine, if it cannot: it must be a project-relative
/// glob that the authority engine's matcher compiles (`*`, `?`, `**`, `{a,b}`, `[...]`).
pub(crate) fn glob_problem(pattern: &str) -> Option<String> {
    if pattern.trim().is_empty() {
        return Some("the glob is empty".to_string());
    }
    if pattern.starts_with('/') {
        return Some("the glob is absolute; globs are relative to the project root".to_string());
    }
    if pattern.split('/').any(|s| s == "..") {
        return Some("the glob contains `..`".to_string());
    }
    Glob::new(pattern, false)
        .err()
        .map(|e| e.message.trim_end_matches('.').to_string())
}

/// Whether the project-relative `path` matches `pattern` (the same glob semantics as the
/// authority rules; an invalid pattern matches nothing).
pub(crate) fn glob_match(pattern: &str, path: &str) -> bool {
    Glob::new(pattern, false).is_ok_and(|g| g.matches(path, false))
}
