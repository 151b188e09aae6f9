//! Claim patterns: parsing, normalisation, matching a path, and coverage of one pattern by
//! another. Intersection of two patterns lives in [`super::intersect`].
//!
//! The syntax is NSO's one glob syntax ([`nso_text::glob`]), read totally and
//! case-sensitively (the file systems the shim canonicalises on are): parsing never fails,
//! because a pattern read from a hand-edited state must still take part in conflict
//! decisions. A pattern past the glob's limits (alternatives, segments) stands for a wider one
//! (its segments before the first group, then `**`): it may conflict more often than written,
//! never less; so does a pattern longer than 4096 bytes (its literal start, then `**`), which
//! bounds the work on one pattern.

use nso_text::glob::{Glob, Seg};

pub use nso_text::glob::{path_segments, seg_match, Alt, Tok, MAX_ALTERNATIVES};

/// Longest pattern text parsed as written (the claim limit); a longer one is approximated.
const MAX_PATTERN_TEXT: usize = 4096;

/// A parsed claim pattern (or a plain path, which is a pattern without wildcards): the one
/// glob syntax of NSO, read totally and case-sensitively.
#[derive(Debug, Clone)]
pub struct Pattern {
    glob: Glob,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.glob.is_absolute() == other.glob.is_absolute()
            && self.glob.is_approximate() == other.glob.is_approximate()
            && self.glob.alts() == other.glob.alts()
    }
}

impl Eq for Pattern {}

impl Pattern {
    /// Parses `text` (total: every text is a pattern, see the module doc).
    pub fn parse(text: &str) -> Pattern {
        if text.len() > MAX_PATTERN_TEXT {
            // Bounds the work on one pattern; claims and stored patterns never get here.
            let wider = format!("{}/**", literal_head(text));
            return Pattern {
                glob: Glob::standing_for(text, &wider),
            };
        }
        Pattern {
            glob: Glob::total(text),
        }
    }

    /// True for patterns starting with `/`; an absolute and a relative pattern never meet.
    pub fn is_absolute(&self) -> bool {
        self.glob.is_absolute()
    }

    /// True when the pattern stands for a wider one (too many `{a,b}` alternatives, too many
    /// segments, or too long a text).
    pub fn is_approximate(&self) -> bool {
        self.glob.is_approximate()
    }

    pub(crate) fn alts(&self) -> &[Alt] {
        self.glob.alts()
    }

    /// Does the pattern match `path` (a path, not a pattern: `*` in it is a character)?
    /// An approximate pattern matches nothing, so "already covered" is never claimed wrongly.
    pub fn matches(&self, path: &str) -> bool {
        if self.is_approximate() || path.starts_with('/') != self.is_absolute() {
            return false;
        }
        self.glob.matches(path, false)
    }

    /// Is every path `other` matches also matched by `self`? Conservative: `false` when it
    /// cannot tell cheaply (equal alternatives, a path, or a folder claim `<prefix>/**` whose
    /// prefix covers the other's leading segments).
    pub fn covers(&self, other: &Pattern) -> bool {
        if self.is_approximate()
            || other.is_approximate()
            || self.is_absolute() != other.is_absolute()
        {
            return false;
        }
        other
            .alts()
            .iter()
            .all(|q| self.alts().iter().any(|p| covers(p, q)))
    }
}

fn covers(p: &Alt, q: &Alt) -> bool {
    if p == q {
        return true;
    }
    if let Some(path) = q.literal() {
        return p.matches_normalized(path, false);
    }
    // A folder claim `s0/../sk-1/**` covers `q` when q's first k segments are each
    // either the same as s_i or a literal that s_i matches: the rest falls under `**`.
    let Some((Seg::AnySegs, prefix)) = p.segs().split_last() else {
        return false;
    };
    prefix.len() <= q.segs().len()
        && prefix.iter().zip(q.segs()).all(|(s, t)| match (s, t) {
            (Seg::AnySegs, _) | (_, Seg::AnySegs) => false,
            (s, t) if s == t => true,
            (Seg::Lit(a), Seg::Lit(b)) => a == b,
            (Seg::Pat(toks), Seg::Lit(b)) => seg_match(toks, b, false),
            _ => false,
        })
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
