//! Claim patterns: parsing, normalisation, matching a path, and coverage of one pattern by
//! another. Intersection of two patterns lives in [`super::intersect`].
//!
//! Syntax: `*` any run of characters inside one segment (never `/`), `?` one character,
//! `[abc]`, `[a-z]`, `[!a]`/`[^a]` classes, `\x` a literal `x`, `**` as a whole segment: zero
//! or more segments, `{a,b}` alternatives (nesting allowed). A trailing `/` means the folder
//! and everything below (`/r/src/` = `/r/src/**`); empty and `.` segments are dropped.
//! Matching is case-sensitive (the file systems the shim canonicalises on are).
//!
//! Parsing never fails, because a pattern read from a hand-edited state must still take part
//! in conflict decisions: an unclosed `[` or `{` and a lone trailing `\` are literal
//! characters (as in bash). A pattern whose `{a,b}` groups expand past
//! [`MAX_ALTERNATIVES`] is replaced by an over-approximation (its segments before the first
//! group, then `**`): it may conflict more often than written, never less; so is a pattern
//! longer than 4096 bytes (its literal start, then `**`), which bounds the work on one pattern.

use std::borrow::Cow;

use super::glob_syntax::{approximation, expand_braces, parse_alt};

/// Most alternatives one pattern's `{a,b}` groups may expand to before it is approximated.
pub const MAX_ALTERNATIVES: usize = 64;
/// Longest pattern text parsed as written (the claim limit); a longer one is approximated.
const MAX_PATTERN_TEXT: usize = 4096;

/// A parsed claim pattern (or a plain path, which is a pattern without wildcards).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    absolute: bool,
    alts: Vec<Alt>,
    approximate: bool,
}

/// One `{a,b}` alternative of a pattern: its segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Alt {
    pub(crate) segs: Vec<Seg>,
}

/// One path segment of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    /// `**`: zero or more whole segments.
    AnySegs,
    /// A segment without wildcards.
    Lit(Box<str>),
    /// A segment with wildcards.
    Pat(Vec<Tok>),
}

/// One element of a segment with wildcards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// `*`: any run of characters, possibly empty.
    Star,
    /// A literal character.
    Char(char),
    /// `?`: any one character.
    Any,
    /// `[...]`: one character of a set, kept as sorted disjoint ranges of scalar values that
    /// a path segment can hold (not NUL, not `/`); a negated class is stored as its complement.
    Class(Vec<(u32, u32)>),
}

impl Pattern {
    /// Parses `text` (total: every text is a pattern, see the module doc).
    pub fn parse(text: &str) -> Pattern {
        let absolute = text.starts_with('/');
        if text.len() > MAX_PATTERN_TEXT {
            // Bounds the work on one pattern; claims and stored patterns never get here.
            return Pattern {
                absolute,
                alts: vec![parse_alt(&format!("{}/**", literal_head(text)))],
                approximate: true,
            };
        }
        match expand_braces(text) {
            Some(expanded) => Pattern {
                absolute,
                alts: expanded.iter().map(|t| parse_alt(t)).collect(),
                approximate: false,
            },
            None => Pattern {
                absolute,
                alts: vec![parse_alt(&approximation(text))],
                approximate: true,
            },
        }
    }

    /// True for patterns starting with `/`; an absolute and a relative pattern never meet.
    pub fn is_absolute(&self) -> bool {
        self.absolute
    }

    /// True when the pattern expanded past [`MAX_ALTERNATIVES`] and stands for a wider one.
    pub fn is_approximate(&self) -> bool {
        self.approximate
    }

    pub(crate) fn alts(&self) -> &[Alt] {
        &self.alts
    }

    /// Does the pattern match `path` (a path, not a pattern: `*` in it is a character)?
    /// An approximate pattern matches nothing, so "already covered" is never claimed wrongly.
    pub fn matches(&self, path: &str) -> bool {
        if self.approximate || path.starts_with('/') != self.absolute {
            return false;
        }
        let segs: Vec<&str> = path_segments(path).collect();
        self.alts.iter().any(|alt| alt.matches(&segs))
    }

    /// Is every path `other` matches also matched by `self`? Conservative: `false` when it
    /// cannot tell cheaply (equal alternatives, a path, or a folder claim `<prefix>/**` whose
    /// prefix covers the other's leading segments).
    pub fn covers(&self, other: &Pattern) -> bool {
        if self.approximate || other.approximate || self.absolute != other.absolute {
            return false;
        }
        other
            .alts
            .iter()
            .all(|q| self.alts.iter().any(|p| p.covers(q)))
    }
}

impl Alt {
    fn matches(&self, path: &[&str]) -> bool {
        let n = self.segs.len();
        let mut states = vec![false; n + 1];
        let mut next = vec![false; n + 1];
        states[0] = true;
        self.closure(&mut states);
        for seg in path {
            next.fill(false);
            let mut any = false;
            for (i, live) in states.iter().enumerate().take(n) {
                if !live {
                    continue;
                }
                let (to, hit) = match &self.segs[i] {
                    Seg::AnySegs => (i, true),
                    Seg::Lit(l) => (i + 1, **l == **seg),
                    Seg::Pat(toks) => (i + 1, segment_matches(toks, seg)),
                };
                if hit {
                    next[to] = true;
                    any = true;
                }
            }
            if !any {
                return false;
            }
            std::mem::swap(&mut states, &mut next);
            self.closure(&mut states);
        }
        states[n]
    }

    /// Adds the states reached by letting `**` match zero segments.
    fn closure(&self, states: &mut [bool]) {
        for i in 0..self.segs.len() {
            if states[i] && matches!(self.segs[i], Seg::AnySegs) {
                states[i + 1] = true;
            }
        }
    }

    fn literal(&self) -> Option<Vec<&str>> {
        self.segs
            .iter()
            .map(|s| match s {
                Seg::Lit(l) => Some(&**l),
                _ => None,
            })
            .collect()
    }

    fn covers(&self, q: &Alt) -> bool {
        if self == q {
            return true;
        }
        if let Some(path) = q.literal() {
            return self.matches(&path);
        }
        // A folder claim `s0/../sk-1/**` covers `q` when q's first k segments are each
        // either the same as s_i or a literal that s_i matches: the rest falls under `**`.
        let Some((Seg::AnySegs, prefix)) = self.segs.split_last() else {
            return false;
        };
        prefix.len() <= q.segs.len()
            && prefix.iter().zip(&q.segs).all(|(s, t)| match (s, t) {
                (Seg::AnySegs, _) | (_, Seg::AnySegs) => false,
                (s, t) if s == t => true,
                (Seg::Lit(a), Seg::Lit(b)) => a == b,
                (Seg::Pat(toks), Seg::Lit(b)) => segment_matches(toks, b),
                _ => false,
            })
    }
}

impl Seg {
    /// The segment as tokens (a literal segment becomes one `Char` per character).
    pub(crate) fn toks(&self) -> Cow<'_, [Tok]> {
        match self {
            Seg::Lit(l) => Cow::Owned(l.chars().map(Tok::Char).collect()),
            Seg::Pat(toks) => Cow::Borrowed(toks),
            Seg::AnySegs => Cow::Owned(Vec::new()),
        }
    }
}

impl Tok {
    /// Does this (non-`*`) token accept `c`?
    pub(crate) fn accepts(&self, c: char) -> bool {
        match self {
            Tok::Star => false,
            Tok::Char(x) => *x == c,
            Tok::Any => c != '/',
            Tok::Class(ranges) => ranges_contain(ranges, c as u32),
        }
    }
}

/// The segments of a path or pattern text: split on `/`, empty and `.` segments dropped.
pub(crate) fn path_segments(text: &str) -> impl Iterator<Item = &str> {
    text.split('/').filter(|s| !s.is_empty() && *s != ".")
}

/// The canonical text of a pattern: `//` and `/./` collapsed, a trailing `/` written `/**`.
/// Parsing the result gives the same pattern.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 3);
    if text.starts_with('/') {
        out.push('/');
    }
    let mut first = true;
    for seg in path_segments(text) {
        if !first {
            out.push('/');
        }
        out.push_str(seg);
        first = false;
    }
    let folder = text.ends_with('/') && out != "/" && !out.is_empty() && !ends_with_any(&out);
    if folder {
        out.push_str("/**");
    }
    out
}

/// The canonical text of a path (not a pattern): `//`, `/./` and a trailing `/` dropped.
pub fn normalize_path(text: &str) -> String {
    let joined = path_segments(text).collect::<Vec<_>>().join("/");
    if text.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

fn ends_with_any(text: &str) -> bool {
    text == "**" || text.ends_with("/**")
}

/// Does the pattern text match the normalised `path`? The common claim shapes (a path, a
/// folder `<path>/**`) are decided on the text, without parsing: this is the shim's hot path.
pub fn text_matches(pattern: &str, path: &str) -> bool {
    let plain = |t: &str| {
        !t.contains(['*', '?', '[', '{', '\\'])
            && !t.contains("//")
            && (t == "/" || !t.ends_with('/'))
            && t.split('/').all(|s| s != ".")
    };
    if plain(pattern) {
        return pattern == path;
    }
    if let Some(folder) = pattern
        .strip_suffix("/**")
        .filter(|f| plain(f) && !f.is_empty())
    {
        return path == folder
            || (path.starts_with(folder) && path.as_bytes().get(folder.len()) == Some(&b'/'));
    }
    heads_meet(&normalize(pattern), path) && Pattern::parse(pattern).matches(path)
}

/// The literal start every path matching a normalised pattern begins with, cut at a segment
/// boundary: a matching path is the head itself or continues with `/` (see [`heads_meet`]).
pub(crate) fn literal_head(text: &str) -> &str {
    match text.find(['*', '?', '[', '{', '\\']) {
        None => text,
        Some(special) => match text[..special].rfind('/') {
            Some(slash) => &text[..slash],
            None => "",
        },
    }
}

/// A quick test on two normalised pattern texts, no parsing: `false` means they are
/// certainly disjoint (their literal heads part ways), `true` that they may meet.
pub fn heads_meet(a: &str, b: &str) -> bool {
    if a.starts_with('/') != b.starts_with('/') {
        return false;
    }
    let (ha, hb) = (literal_head(a), literal_head(b));
    let (short, long) = if ha.len() <= hb.len() {
        (ha, hb)
    } else {
        (hb, ha)
    };
    // An empty head is the start of a (relative) path: a boundary like any `/`.
    long.starts_with(short)
        && (short.is_empty() || long.len() == short.len() || long.as_bytes()[short.len()] == b'/')
}

/// One-segment match by a set-of-positions simulation: O(tokens × characters), no blow-up.
pub(crate) fn segment_matches(toks: &[Tok], s: &str) -> bool {
    let n = toks.len();
    let mut states = vec![false; n + 1];
    let mut next = vec![false; n + 1];
    states[0] = true;
    star_closure(toks, &mut states);
    for c in s.chars() {
        next.fill(false);
        let mut any = false;
        for i in 0..n {
            if !states[i] {
                continue;
            }
            let to = match &toks[i] {
                Tok::Star => Some(i),
                tok => tok.accepts(c).then_some(i + 1),
            };
            if let Some(to) = to {
                next[to] = true;
                any = true;
            }
        }
        if !any {
            return false;
        }
        std::mem::swap(&mut states, &mut next);
        star_closure(toks, &mut states);
    }
    states[n]
}

fn star_closure(toks: &[Tok], states: &mut [bool]) {
    for i in 0..toks.len() {
        if states[i] && matches!(toks[i], Tok::Star) {
            states[i + 1] = true;
        }
    }
}

/// Is `c` in the set?
pub(crate) fn ranges_contain(ranges: &[(u32, u32)], c: u32) -> bool {
    ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_forms() {
        assert_eq!(normalize("/r//src/./a.ts"), "/r/src/a.ts");
        assert_eq!(normalize("/r/src/"), "/r/src/**");
        assert_eq!(normalize("/"), "/");
        assert_eq!(normalize("src/**"), "src/**");
    }

    #[test]
    fn heads() {
        assert_eq!(literal_head("/r/src/*.ts"), "/r/src");
        assert_eq!(literal_head("/r/src/a.ts"), "/r/src/a.ts");
        assert_eq!(literal_head("/*.ts"), "");
        assert!(heads_meet("/r/src/**", "/r/src"));
        assert!(!heads_meet("/r/s/**", "/r/src/a"));
        assert!(!heads_meet("/r/**", "r/**"));
        assert!(heads_meet("**", "a/b") && heads_meet("*.ts", "src/a.ts"));
    }
}
