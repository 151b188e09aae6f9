//! The syntax of claim patterns: `{a,b}` expansion (bounded), segments, `[...]` classes, and
//! the over-approximation of a pattern that expands too far. Total: every text parses (see
//! [`super::glob`] for the syntax and why).

use super::glob::{path_segments, Alt, Seg, Tok, MAX_ALTERNATIVES};

/// Deepest chain of nested or successive `{}` groups expanded (also keeps recursion shallow).
const MAX_BRACE_GROUPS: usize = 32;

/// The characters a path segment can hold: every scalar value but NUL and `/`.
const UNIVERSE: [(u32, u32); 3] = [(1, 0x2E), (0x30, 0xD7FF), (0xE000, 0x10FFFF)];

/// The segments of one alternative (after expansion).
pub(crate) fn parse_alt(text: &str) -> Alt {
    let mut segs: Vec<Seg> = path_segments(text).map(parse_segment).collect();
    if text.ends_with('/') && !segs.is_empty() && segs.last() != Some(&Seg::AnySegs) {
        segs.push(Seg::AnySegs);
    }
    Alt { segs }
}

fn parse_segment(raw: &str) -> Seg {
    if raw == "**" {
        return Seg::AnySegs;
    }
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
            '?' => toks.push(Tok::Any),
            '\\' => match chars.get(i) {
                Some(&e) => {
                    toks.push(Tok::Char(e));
                    i += 1;
                }
                None => toks.push(Tok::Char('\\')),
            },
            '[' => match parse_class(&chars[i..]) {
                Some((ranges, used)) => {
                    toks.push(Tok::Class(ranges));
                    i += used;
                }
                None => toks.push(Tok::Char('[')),
            },
            _ => toks.push(Tok::Char(c)),
        }
    }
    if toks.iter().all(|t| matches!(t, Tok::Char(_))) {
        let lit: String = toks
            .iter()
            .filter_map(|t| match t {
                Tok::Char(c) => Some(*c),
                _ => None,
            })
            .collect();
        Seg::Lit(lit.into_boxed_str())
    } else {
        Seg::Pat(toks)
    }
}

/// Parses a class body after `[`; returns its set and the characters used (through `]`), or
/// `None` when it is not closed (the `[` is then literal).
fn parse_class(chars: &[char]) -> Option<(Vec<(u32, u32)>, usize)> {
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
            return Some((class_set(ranges, negated), i));
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

/// Sorted, merged ranges clipped to [`UNIVERSE`]; a negated class becomes its complement.
fn class_set(mut ranges: Vec<(u32, u32)>, negated: bool) -> Vec<(u32, u32)> {
    // Classes are short: an insertion sort, rather than the general sort's ~8 KB of wasm.
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

/// Expands `{a,b}` groups; `None` past [`MAX_ALTERNATIVES`] alternatives or
/// [`MAX_BRACE_GROUPS`] successive groups.
pub(crate) fn expand_braces(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    expand_into(text, &mut out, 0).then_some(out)
}

fn expand_into(text: &str, out: &mut Vec<String>, depth: usize) -> bool {
    let Some((open, close, parts)) = first_group(text) else {
        if out.len() >= MAX_ALTERNATIVES {
            return false;
        }
        out.push(text.to_string());
        return true;
    };
    if depth >= MAX_BRACE_GROUPS {
        return false;
    }
    parts.iter().all(|part| {
        let expanded = format!("{}{}{}", &text[..open], part, &text[close + 1..]);
        expand_into(&expanded, out, depth + 1)
    })
}

/// The first `{` that has a matching `}` (escapes respected): its offset, the offset of its
/// `}`, and its top-level comma-separated parts.
fn first_group(text: &str) -> Option<(usize, usize, Vec<&str>)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'{' => {
                if let Some(found) = group_at(text, i) {
                    return Some(found);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn group_at(text: &str, open: usize) -> Option<(usize, usize, Vec<&str>)> {
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
pub(crate) fn approximation(text: &str) -> String {
    let open = first_group(text).map_or(text.len(), |(open, _, _)| open);
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
    use crate::conductor::glob::ranges_contain;

    #[test]
    fn approximation_keeps_leading_segments() {
        assert_eq!(approximation("/r/src/x{a,b}"), "/r/src/**");
        assert_eq!(approximation("/{a,b}"), "/**");
        assert_eq!(approximation("{a,b}/c"), "**");
    }

    #[test]
    fn classes() {
        assert_eq!(class_set(vec![(97, 99)], false), vec![(97, 99)]);
        let not_a = class_set(vec![(97, 97)], true);
        assert!(!ranges_contain(&not_a, 97) && ranges_contain(&not_a, 98));
        assert!(!ranges_contain(&not_a, '/' as u32) && !ranges_contain(&not_a, 0xD800));
    }
}
