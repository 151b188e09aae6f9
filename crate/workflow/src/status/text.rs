//! Small text helpers shared by the status modules: name normalisation, line numbers and
//! byte-exact text edits.

/// Normalises a field or section name: lowercase, every run of non-alphanumeric characters
/// becomes one `_`, no leading or trailing `_`. `Quality Gate`, `quality-gate` and
/// `quality_gate` all become `quality_gate`.
pub(crate) fn norm_key(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending = false;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if pending && !out.is_empty() {
                out.push('_');
            }
            pending = false;
            out.extend(c.to_lowercase());
        } else {
            pending = true;
        }
    }
    out
}

/// Canonical form of a state name used for comparisons: uppercase, runs of non-alphanumeric
/// characters become one `_`. `[NOT STARTED]`, `not_started` and `Not-Started` are equal.
pub(crate) fn canon_state(s: &str) -> String {
    norm_key(s).to_uppercase()
}

/// Normalises an agent name: trimmed, without leading `@`, lowercase.
pub(crate) fn norm_agent(s: &str) -> String {
    s.trim().trim_start_matches('@').trim().to_lowercase()
}

/// 1-based line number of a byte offset (offsets past the end count as the last line).
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Line starts of a text, for many offset → line lookups.
pub(crate) struct LineIndex(Vec<usize>);

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut v = vec![0];
        v.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex(v)
    }
    /// 1-based line of `offset`.
    pub(crate) fn line(&self, offset: usize) -> usize {
        match self.0.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }
}

/// The newline style of a text: `"\r\n"` when its first line break is CRLF, else `"\n"`.
pub(crate) fn newline_of(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// One replacement of the byte range `start..end` by `text`; `start == end` inserts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextEdit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl TextEdit {
    pub(crate) fn insert(at: usize, text: String) -> TextEdit {
        TextEdit {
            start: at,
            end: at,
            text,
        }
    }
    pub(crate) fn replace(start: usize, end: usize, text: String) -> TextEdit {
        TextEdit { start, end, text }
    }
}

/// Applies non-overlapping edits to `text`. Edits are ordered by position; insertions at the
/// same offset keep the order they were given in. Returns `None` when two edits overlap or an
/// edit lies outside the text or off a character boundary.
pub(crate) fn apply_edits(text: &str, edits: &[TextEdit]) -> Option<String> {
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].start, edits[i].end, i));
    let mut out = String::with_capacity(text.len() + 256);
    let mut pos = 0usize;
    for i in order {
        let e = &edits[i];
        if e.start < pos || e.end < e.start || e.end > text.len() {
            return None;
        }
        if !text.is_char_boundary(e.start) || !text.is_char_boundary(e.end) {
            return None;
        }
        out.push_str(&text[pos..e.start]);
        out.push_str(&e.text);
        pos = e.end;
    }
    out.push_str(&text[pos..]);
    Some(out)
}

/// Leading spaces and tabs of the line containing `offset`, and whether `offset` is the
/// first non-blank character of that line.
pub(crate) fn indent_at(text: &str, offset: usize) -> (String, bool) {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line = &text[line_start..];
    let ws: String = line
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    (ws.clone(), line_start + ws.len() == offset)
}

/// Formats agents for messages: `@sm or @po`, `@a, @b or @c`, `any agent`.
pub(crate) fn agents_phrase(agents: &[String]) -> String {
    if agents.iter().any(|a| a == "*") {
        return "any agent".to_string();
    }
    let names: Vec<String> = agents.iter().map(|a| format!("@{a}")).collect();
    join_or(&names, "or")
}

/// Joins words as `a`, `a or b`, `a, b or c` (with `word` in place of "or").
pub(crate) fn join_or(items: &[String], word: &str) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => format!("{} {word} {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

/// True when `s` is an ISO-8601 date (`YYYY-MM-DD`) optionally followed by `T` and a time.
pub(crate) fn is_iso_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 10 {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(|c| c.is_ascii_digit());
    if !(digits(0..4) && b[4] == b'-' && digits(5..7) && b[7] == b'-' && digits(8..10)) {
        return false;
    }
    let month = (b[5] - b'0') * 10 + (b[6] - b'0');
    let day = (b[8] - b'0') * 10 + (b[9] - b'0');
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return false;
    }
    if b.len() == 10 {
        return true;
    }
    if b[10] != b'T' && b[10] != b' ' {
        return false;
    }
    let rest = &s[11..];
    if rest.len() < 5 {
        return false;
    }
    let rb = rest.as_bytes();
    if !(rb[0].is_ascii_digit() && rb[1].is_ascii_digit() && rb[2] == b':') {
        return false;
    }
    rest.chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ':' | '.' | 'Z' | '+' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_states() {
        assert_eq!(norm_key("Quality Gate"), "quality_gate");
        assert_eq!(norm_key("**quality-gate**"), "quality_gate");
        assert_eq!(canon_state("[NOT STARTED]"), "NOT_STARTED");
        assert_eq!(canon_state("not_started"), "NOT_STARTED");
        assert_eq!(norm_agent(" @Dev-Junior "), "dev-junior");
    }

    #[test]
    fn edits_apply_in_order() {
        let t = "abcdef";
        let e = [
            TextEdit::insert(3, "Y".into()),
            TextEdit::replace(0, 1, "X".into()),
            TextEdit::insert(3, "Z".into()),
        ];
        assert_eq!(apply_edits(t, &e).unwrap(), "XbcYZdef");
        assert!(apply_edits(
            t,
            &[
                TextEdit::replace(0, 3, "".into()),
                TextEdit::replace(2, 4, "".into())
            ]
        )
        .is_none());
    }

    #[test]
    fn iso_times() {
        assert!(is_iso_time("2026-01-03"));
        assert!(is_iso_time("2026-01-03T18:18:35Z"));
        assert!(is_iso_time("2026-01-03T18:18:35.123+02:00"));
        assert!(!is_iso_time("2026-13-03"));
        assert!(!is_iso_time("yesterday"));
        assert!(!is_iso_time("2026-01-03Tnoon"));
    }
}

#[cfg(test)]
mod line_index_tests {
    use super::*;

    #[test]
    fn index_matches_line_of() {
        let t = "a\nbb\n\nccc\n";
        let ix = LineIndex::new(t);
        for o in 0..=t.len() + 2 {
            assert_eq!(ix.line(o), line_of(t, o), "{o}");
        }
    }
}
