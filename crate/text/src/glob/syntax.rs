//! The syntax of NSO's globs: `{a,b}` expansion (bounded), segments, and their tokens.
//! Reading is total or checked (see [`super`]): in a checked reading every mistake is a
//! [`GlobError`]; in a total one the same text is read as bash would (an unclosed `[` or `{`,
//! a stray `}` and a lone trailing `\` are literal characters).

use super::GlobError;

/// Most alternatives one pattern's `{a,b}` groups may expand to.
pub const MAX_ALTERNATIVES: usize = 64;
/// Deepest chain of nested or successive `{}` groups expanded (also keeps recursion shallow).
const MAX_BRACE_GROUPS: usize = 32;
/// The characters a path segment can hold: every scalar value but NUL and `/`.
const UNIVERSE: [(u32, u32); 3] = [(1, 0x2E), (0x30, 0xD7FF), (0xE000, 0x10FFFF)];

/// One path segment of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// `**`: zero or more whole segments.
    AnySegs,
    /// A segment without wildcards.
    Lit(Box<str>),
    /// A segment with wildcards.
    Pat(Vec<Tok>),
}

/// One element of a segment with wildcards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// `*`: any run of characters, possibly empty.
    Star,
    /// A literal character (folded to lower case when the glob ignores case).
    Char(char),
    /// `?`: any one character.
    One,
    /// `[...]`: one character of a set, kept as sorted disjoint ranges of the scalar values a
    /// path segment can hold; a negated class is stored as its complement, and a class of a
    /// glob that ignores case holds both cases.
    Class(Vec<(u32, u32)>),
}

impl Seg {
    /// The segment as tokens (a literal segment becomes one `Char` per character).
    pub fn toks(&self) -> std::borrow::Cow<'_, [Tok]> {
        use std::borrow::Cow;
        match self {
            Seg::Lit(l) => Cow::Owned(l.chars().map(Tok::Char).collect()),
            Seg::Pat(toks) => Cow::Borrowed(toks),
            Seg::AnySegs => Cow::Owned(Vec::new()),
        }
    }
}

impl Tok {
    /// Does this (non-`*`) token accept `c` (already folded when the glob ignores case)?
    pub fn accepts(&self, c: char) -> bool {
        match self {
            Tok::Star => false,
            Tok::Char(x) => *x == c,
            Tok::One => c != '/',
            Tok::Class(ranges) => ranges_contain(ranges, c as u32),
        }
    }
}

/// Is `c` in the set?
pub fn ranges_contain(ranges: &[(u32, u32)], c: u32) -> bool {
    ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
}

/// The segments of a path or pattern text: split on `/`, empty and `.` segments dropped.
pub fn path_segments(text: &str) -> impl Iterator<Item = &str> {
    text.split('/').filter(|s| !s.is_empty() && *s != ".")
}

pub(super) fn fold(c: char, ci: bool) -> char {
    if ci {
        c.to_ascii_lowercase()
    } else {
        c
    }
}

/// The tokens of one segment (not `**`). Checked: an unclosed `[` or a lone trailing `\` is
/// an error; total: they are literal characters.
pub(super) fn parse_segment(raw: &str, ci: bool, checked: bool) -> Result<Vec<Tok>, GlobError> {
    let chars: Vec<char> = raw.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '*' => {
                while chars.get(i) == Some(&'*') {
                    i += 1;
                }
                toks.push(Tok::Star);
            }
            '?' => toks.push(Tok::One),
            '\\' => match chars.get(i) {
                Some(&e) => {
                    toks.push(Tok::Char(fold(e, ci)));
                    i += 1;
                }
                None if checked => {
                    return Err(GlobError::new(
                        "the pattern ends with a lone `\\`",
                        "write `\\\\` for a literal backslash",
                    ))
                }
                None => toks.push(Tok::Char('\\')),
            },
            '[' => match parse_class(&chars[i..], ci) {
                Some((ranges, used)) => {
                    toks.push(Tok::Class(ranges));
                    i += used;
                }
                None if checked => {
                    return Err(GlobError::new(
                        &format!("unclosed `[` in `{raw}`"),
                        "close the class with `]`, or write `\\[` for a literal bracket",
                    ))
                }
                None => toks.push(Tok::Char('[')),
            },
            _ => toks.push(Tok::Char(fold(c, ci))),
        }
    }
    Ok(toks)
}

/// A class body after `[`: its set and the characters used (through `]`), or `None` when it
/// is not closed. `]` first is a member; `!` or `^` first negates; `\x` is `x`.
fn parse_class(chars: &[char], ci: bool) -> Option<(Vec<(u32, u32)>, usize)> {
    let mut i = 0;
    let negated = matches!(chars.first(), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    while i < chars.len() {
        let mut c = chars[i];
        i += 1;
        if c == ']' && !first {
            return Some((class_set(ranges, negated, ci), i));
        }
        first = false;
        if c == '\\' {
            if let Some(&e) = chars.get(i) {
                c = e;
                i += 1;
            }
        }
        if chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|&h| h != ']') {
            let hi = chars[i + 1];
            i += 2;
            let (lo, hi) = (c as u32, hi as u32);
            ranges.push((lo.min(hi), lo.max(hi)));
        } else {
            ranges.push((c as u32, c as u32));
        }
    }
    None
}

/// Sorted, merged ranges clipped to [`UNIVERSE`]; with `ci` both cases of every ASCII letter
/// in it; a negated class becomes its complement.
fn class_set(mut ranges: Vec<(u32, u32)>, negated: bool, ci: bool) -> Vec<(u32, u32)> {
    if ci {
        let mut other = Vec::new();
        for &(lo, hi) in &ranges {
            for (from, to, shift) in [(b'a', b'z', -32i32), (b'A', b'Z', 32)] {
                let (a, b) = (lo.max(from as u32), hi.min(to as u32));
                if a <= b {
                    other.push(((a as i32 + shift) as u32, (b as i32 + shift) as u32));
                }
            }
        }
        ranges.extend(other);
    }
    // Classes are short: an insertion sort, rather than the general sort's code size in wasm.
    for i in 1..ranges.len() {
        let mut j = i;
        while j > 0 && ranges[j - 1] > ranges[j] {
            ranges.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (lo, hi) in ranges {
        match merged.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    let mut out = Vec::new();
    for (ulo, uhi) in UNIVERSE {
        if negated {
            let mut from = ulo;
            for &(lo, hi) in &merged {
                if hi < from || lo > uhi {
                    continue;
                }
                if lo > from {
                    out.push((from, lo - 1));
                }
                from = hi.saturating_add(1);
            }
            if from <= uhi {
                out.push((from, uhi));
            }
        } else {
            for &(lo, hi) in &merged {
                let (lo, hi) = (lo.max(ulo), hi.min(uhi));
                if lo <= hi {
                    out.push((lo, hi));
                }
            }
        }
    }
    out
}

/// The `{a,b}` expansions of `text`. Checked: an unclosed `{`, a stray `}` or too many
/// alternatives is an error. Total: unmatched braces are literal, and `None` stands for too
/// many alternatives (the caller approximates, see [`approximation`]).
pub(super) fn expand_braces(text: &str, checked: bool) -> Result<Option<Vec<String>>, GlobError> {
    let mut out = Vec::new();
    let fits = expand_into(text, &mut out, 0, checked)?;
    Ok(fits.then_some(out))
}

fn expand_into(
    text: &str,
    out: &mut Vec<String>,
    depth: usize,
    checked: bool,
) -> Result<bool, GlobError> {
    let Some((open, close, parts)) = first_group(text, checked)? else {
        if out.len() >= MAX_ALTERNATIVES {
            return too_many(checked);
        }
        out.push(text.to_string());
        return Ok(true);
    };
    if depth >= MAX_BRACE_GROUPS {
        return too_many(checked);
    }
    for part in parts {
        let expanded = format!("{}{}{}", &text[..open], part, &text[close + 1..]);
        if !expand_into(&expanded, out, depth + 1, checked)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn too_many(checked: bool) -> Result<bool, GlobError> {
    if checked {
        return Err(GlobError::new(
            &format!("the pattern expands to more than {MAX_ALTERNATIVES} alternatives"),
            "split it into several patterns",
        ));
    }
    Ok(false)
}

/// A `{a,b}` group: the offset of its `{`, of its `}`, and its top-level parts.
type Group<'a> = (usize, usize, Vec<&'a str>);

/// The first `{` with a matching `}` (escapes respected): its offset, the offset of its `}`,
/// and its top-level comma-separated parts. Checked, an unmatched brace is an error.
fn first_group(text: &str, checked: bool) -> Result<Option<Group<'_>>, GlobError> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'{' => match group_at(text, i) {
                Some(found) => return Ok(Some(found)),
                None if checked => {
                    return Err(GlobError::new(
                        &format!("unclosed `{{` in `{text}`"),
                        "close the alternatives with `}`, or write `\\{` for a literal brace",
                    ))
                }
                None => {}
            },
            b'}' if checked => {
                return Err(GlobError::new(
                    &format!("unbalanced `}}` in `{text}`"),
                    "write `\\}` for a literal brace",
                ))
            }
            _ => {}
        }
        i += 1;
    }
    Ok(None)
}

fn group_at(text: &str, open: usize) -> Option<Group<'_>> {
    let bytes = text.as_bytes();
    let mut level = 0usize;
    let mut parts = Vec::new();
    let mut part_start = open + 1;
    let mut j = open;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 1,
            b'{' => level += 1,
            b'}' => {
                level -= 1;
                if level == 0 {
                    parts.push(&text[part_start..j]);
                    return Some((open, j, parts));
                }
            }
            b',' if level == 1 => {
                parts.push(&text[part_start..j]);
                part_start = j + 1;
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// The over-approximation of a pattern that expands too far: its whole segments before the
/// first group, then `**` (every expansion starts with those segments).
pub fn approximation(text: &str) -> String {
    let open = first_group(text, false)
        .ok()
        .flatten()
        .map_or(text.len(), |(open, _, _)| open);
    let before = &text[..open];
    let keep = before.rfind('/').map_or("", |slash| &before[..slash]);
    if keep.is_empty() && !text.starts_with('/') {
        "**".to_string()
    } else {
        format!("{keep}/**")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approximation_keeps_leading_segments() {
        assert_eq!(approximation("/r/src/x{a,b}"), "/r/src/**");
        assert_eq!(approximation("/{a,b}"), "/**");
        assert_eq!(approximation("{a,b}/c"), "**");
    }

    #[test]
    fn classes() {
        assert_eq!(class_set(vec![(97, 99)], false, false), vec![(97, 99)]);
        let not_a = class_set(vec![(97, 97)], true, false);
        assert!(!ranges_contain(&not_a, 97) && ranges_contain(&not_a, 98));
        assert!(!ranges_contain(&not_a, '/' as u32) && !ranges_contain(&not_a, 0xD800));
        let not_a_any_case = class_set(vec![(97, 97)], true, true);
        assert!(!ranges_contain(&not_a_any_case, 'A' as u32));
        let upper = class_set(vec![('A' as u32, 'C' as u32)], false, true);
        assert!(ranges_contain(&upper, 'b' as u32) && !ranges_contain(&upper, 'd' as u32));
    }

    #[test]
    fn total_reading_keeps_stray_characters() {
        assert_eq!(
            expand_braces("a{b", false).unwrap(),
            Some(vec!["a{b".to_string()])
        );
        assert_eq!(
            expand_braces("a}b", false).unwrap(),
            Some(vec!["a}b".to_string()])
        );
        assert!(expand_braces("a{b", true).is_err() && expand_braces("a}b", true).is_err());
        let toks = parse_segment("[ab", false, false).unwrap();
        assert_eq!(toks[0], Tok::Char('['));
        assert!(parse_segment("[ab", false, true).is_err());
        assert_eq!(
            parse_segment("x\\", false, false).unwrap()[1],
            Tok::Char('\\')
        );
    }
}
