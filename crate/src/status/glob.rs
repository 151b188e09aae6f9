//! Path globs for mapping files to machines.
//!
//! Patterns are matched against the whole project-relative path (no basename magic):
//! `*` matches within one segment, `?` one character, `**` any number of whole segments
//! (including none), `{a,b}` alternatives. Matching is case-sensitive.

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

/// Why a glob is rejected.
pub(crate) fn glob_problem(pattern: &str) -> Option<&'static str> {
    if pattern.trim().is_empty() {
        return Some("the glob is empty");
    }
    if pattern.starts_with('/') {
        return Some("the glob is absolute; globs are relative to the project root");
    }
    if pattern.split('/').any(|s| s == "..") {
        return Some("the glob contains `..`");
    }
    let mut depth = 0i32;
    for c in pattern.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if !(0..=1).contains(&depth) {
            return Some("the glob has unbalanced or nested `{}`");
        }
    }
    if depth != 0 {
        return Some("the glob has unbalanced `{}`");
    }
    if expand_braces(pattern).len() > 64 {
        return Some("the glob expands to more than 64 alternatives");
    }
    None
}

/// Expands one level of `{a,b}` alternatives (at most 64 results).
fn expand_braces(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else {
        return vec![pattern.to_string()];
    };
    let Some(close_rel) = pattern[open..].find('}') else {
        return vec![pattern.to_string()];
    };
    let close = open + close_rel;
    let head = &pattern[..open];
    let tail = &pattern[close + 1..];
    let mut out = Vec::new();
    for alt in pattern[open + 1..close].split(',') {
        for rest in expand_braces(tail) {
            out.push(format!("{head}{alt}{rest}"));
            if out.len() > 64 {
                return out;
            }
        }
    }
    out
}

/// True when the normalised `path` matches `pattern`.
pub(crate) fn glob_match(pattern: &str, path: &str) -> bool {
    let path = normalize_path(path);
    let segs: Vec<&str> = path.split('/').collect();
    expand_braces(pattern).iter().take(65).any(|p| {
        let pat = normalize_path(p);
        let psegs: Vec<&str> = pat.split('/').collect();
        match_segments(&psegs, &segs)
    })
}

fn match_segments(pat: &[&str], path: &[&str]) -> bool {
    // dp[j] = pattern prefix (current i) matches path prefix of length j.
    let mut dp = vec![false; path.len() + 1];
    dp[0] = true;
    for p in pat {
        let mut next = vec![false; path.len() + 1];
        if *p == "**" {
            let mut any = false;
            for j in 0..=path.len() {
                any |= dp[j];
                next[j] = any;
            }
        } else {
            for j in 0..path.len() {
                if dp[j] && match_segment(p.as_bytes(), path[j].as_bytes()) {
                    next[j + 1] = true;
                }
            }
        }
        dp = next;
    }
    dp[path.len()]
}

fn match_segment(p: &[u8], s: &[u8]) -> bool {
    // Classic wildcard matching with backtracking on the last `*`.
    let (mut pi, mut si) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == s[si]) && p[pi] != b'*' {
            if p[pi] == b'?' {
                // `?` matches one whole UTF-8 character.
                si += utf8_len(s[si]);
            } else {
                si += 1;
            }
            pi += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, si));
            pi += 1;
        } else if let Some((sp, ss)) = star {
            let ns = ss + utf8_len(s[ss]);
            star = Some((sp, ns));
            pi = sp + 1;
            si = ns;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len() && si == s.len()
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match(
            "docs/kord/**/stories/*.md",
            "docs/kord/stories/s1.md"
        ));
        assert!(glob_match(
            "docs/kord/**/stories/*.md",
            "docs/kord/plans/x/stories/s1.md"
        ));
        assert!(!glob_match(
            "docs/kord/**/stories/*.md",
            "docs/kord/plans/x/stories/a/s1.md"
        ));
        assert!(glob_match("**/state.json", "state.json"));
        assert!(glob_match(
            "**/state.json",
            ".opencode/specs/1_x/state.json"
        ));
        assert!(glob_match("TODO.md", "./TODO.md"));
        assert!(!glob_match("TODO.md", "docs/TODO.md"));
        assert!(glob_match(
            "{specs,.opencode/specs}/TODO.md",
            ".opencode/specs/TODO.md"
        ));
        assert!(glob_match(
            ".opencode/context/active_tasks/*/status.md",
            ".opencode\\context\\active_tasks\\t1\\status.md"
        ));
        assert!(glob_match("a/?.md", "a/é.md"));
        assert!(glob_match("a/*x*y", "a/zzxzzy"));
        assert!(!glob_match("a/*x*y", "a/zzxzz"));
    }

    #[test]
    fn problems() {
        assert!(glob_problem("").is_some());
        assert!(glob_problem("/abs").is_some());
        assert!(glob_problem("a/../b").is_some());
        assert!(glob_problem("a/{b").is_some());
        assert!(glob_problem("a/{b,c}/*.md").is_none());
    }
}
