//! A tolerant, line-based Markdown scanner: lines with byte offsets, YAML frontmatter,
//! fenced code blocks, ATX headings, `key: value` fields in their usual spellings, sections
//! and task checkboxes. Only what the status rules need; it never fails.

use super::text::norm_key;

/// What a line is, structurally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineKind {
    /// A line of the leading `---` frontmatter block (including the delimiters).
    Frontmatter,
    /// A fence line or a line inside a fenced code block.
    Code,
    /// Anything else.
    Normal,
}

/// One line of the text.
#[derive(Debug, Clone)]
pub(crate) struct MdLine<'a> {
    /// Byte offset of the line's first character.
    pub start: usize,
    /// Byte offset of the next line (after the line break).
    pub next: usize,
    /// The content without the line break.
    pub text: &'a str,
    /// Structural kind.
    pub kind: LineKind,
}

/// Where a field was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldSource {
    Frontmatter,
    Line,
    Table,
    Section,
}

/// A `key: value` field.
#[derive(Debug, Clone)]
pub(crate) struct MdField {
    /// Normalised key (see [`norm_key`]).
    pub key: String,
    /// The value, cleaned of emphasis, code ticks and quotes.
    pub value: String,
    /// Absolute byte range of the raw (uncleaned, trimmed) value.
    pub value_start: usize,
    /// End of the raw value.
    pub value_end: usize,
    /// Where the field was found.
    pub source: FieldSource,
}

/// An ATX heading.
#[derive(Debug, Clone)]
pub(crate) struct Heading {
    /// Index into [`MdDoc::lines`].
    pub line: usize,
    /// 1..=6.
    pub level: usize,
    /// The heading text, trimmed, without closing `#`s.
    pub title: String,
}

/// A scanned Markdown document.
#[derive(Debug, Clone)]
pub(crate) struct MdDoc<'a> {
    pub lines: Vec<MdLine<'a>>,
    pub headings: Vec<Heading>,
    pub fields: Vec<MdField>,
}

/// Splits into lines and classifies frontmatter and fenced code.
pub(crate) fn split_lines(text: &str) -> Vec<MdLine<'_>> {
    let mut lines = Vec::new();
    let mut pos = 0usize;
    while pos < text.len() {
        let rest = &text[pos..];
        let (content_len, brk) = match rest.find('\n') {
            Some(i) => (i, 1),
            None => (rest.len(), 0),
        };
        let mut end = pos + content_len;
        if brk == 1 && content_len > 0 && text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        lines.push(MdLine {
            start: pos,
            next: pos + content_len + brk,
            text: &text[pos..end],
            kind: LineKind::Normal,
        });
        pos += content_len + brk;
    }
    // Frontmatter: first line `---`, closed by `---` or `...`.
    if lines
        .first()
        .map(|l| l.text.trim_end() == "---" || l.text.trim_end() == "\u{feff}---")
        .unwrap_or(false)
    {
        if let Some(close) = lines
            .iter()
            .skip(1)
            .position(|l| matches!(l.text.trim_end(), "---" | "..."))
        {
            for l in lines.iter_mut().take(close + 2) {
                l.kind = LineKind::Frontmatter;
            }
        }
    }
    // Fenced code blocks.
    let mut fence: Option<(u8, usize)> = None;
    for l in lines.iter_mut() {
        if l.kind == LineKind::Frontmatter {
            continue;
        }
        let t = l.text;
        let indent = t.len() - t.trim_start_matches(' ').len();
        let body = t.trim_start_matches(' ');
        let fence_char = body.as_bytes().first().copied();
        let run = match fence_char {
            Some(c @ (b'`' | b'~')) if indent <= 3 => body.bytes().take_while(|&b| b == c).count(),
            _ => 0,
        };
        match fence {
            Some((c, n)) => {
                l.kind = LineKind::Code;
                if run >= n && fence_char == Some(c) && body[run..].trim().is_empty() {
                    fence = None;
                }
            }
            None => {
                if run >= 3 {
                    let c = fence_char.unwrap_or(b'`');
                    // A backtick fence's info string may not contain backticks.
                    if !(c == b'`' && body[run..].contains('`')) {
                        l.kind = LineKind::Code;
                        fence = Some((c, run));
                    }
                }
            }
        }
    }
    lines
}

/// 1-based line of a code fence that is never closed (it swallows the rest of the text).
pub(crate) fn unclosed_fence(text: &str) -> Option<usize> {
    let lines = split_lines(text);
    let last = lines.last()?;
    if last.kind != LineKind::Code {
        return None;
    }
    // Walk back to the opening line of the final code block.
    let mut i = lines.len() - 1;
    while i > 0 && lines[i - 1].kind == LineKind::Code {
        i -= 1;
    }
    let t = lines[i].text.trim_start();
    let closed_at_end = lines.len() - i > 1 && {
        let l = last.text.trim();
        !l.is_empty()
            && l.chars().all(|c| c == '`' || c == '~')
            && l.len() >= 3
            && l.starts_with(t.get(..3).unwrap_or(t))
    };
    if closed_at_end {
        return None;
    }
    Some(super::text::line_of(text, lines[i].start))
}

/// Parses an ATX heading line.
pub(crate) fn parse_heading(t: &str) -> Option<(usize, String)> {
    let indent = t.len() - t.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let body = &t[indent..];
    let level = body.bytes().take_while(|&b| b == b'#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &body[level..];
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    let mut title = rest.trim();
    // Optional closing sequence: spaces then #s.
    let trimmed = title.trim_end_matches('#');
    if trimmed.len() != title.len() && (trimmed.is_empty() || trimmed.ends_with(' ')) {
        title = trimmed.trim_end();
    }
    Some((level, title.to_string()))
}

/// A field found on one line: normalised key, and the raw value's byte range within the line.
#[derive(Debug, Clone)]
pub(crate) struct LineField {
    pub key: String,
    pub value_start: usize,
    pub value_end: usize,
    pub table: bool,
}

/// Strips a list marker (`- `, `* `, `+ `, `1. `, `1) `) with its indentation; returns the
/// byte offset where the item's content starts, or `None` if the line is not a list item.
pub(crate) fn list_item_content(t: &str) -> Option<usize> {
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    if i < b.len() && matches!(b[i], b'-' | b'*' | b'+') {
        if i + 1 == b.len() || b[i + 1] == b' ' || b[i + 1] == b'\t' {
            let mut j = i + 1;
            while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                j += 1;
            }
            return Some(j);
        }
        return None;
    }
    let d = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if d > 0 && d <= 9 && i + d < b.len() && matches!(b[i + d], b'.' | b')') {
        let k = i + d + 1;
        if k == b.len() || b[k] == b' ' || b[k] == b'\t' {
            let mut j = k;
            while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                j += 1;
            }
            return Some(j);
        }
    }
    None
}

/// Parses a field line: `- Key: value`, `- **Key**: value`, `**Key:** value`, `Key: value`
/// or a two-cell table row `| Key | value |`.
pub(crate) fn parse_field_line(t: &str) -> Option<LineField> {
    let trimmed = t.trim_start();
    if trimmed.starts_with('|') {
        return parse_table_row(t);
    }
    let start = list_item_content(t).unwrap_or(t.len() - trimmed.len());
    let s = &t[start..];
    for delim in ["**", "__"] {
        if let Some(inner) = s.strip_prefix(delim) {
            let close = inner.find(delim)?;
            let key_part = &inner[..close];
            let after_rel = start + delim.len() + close + delim.len();
            let (key, value_from) = if let Some(k) = key_part.strip_suffix(':') {
                (k, after_rel)
            } else {
                let rest = &t[after_rel..];
                let lead = rest.len() - rest.trim_start().len();
                if !rest.trim_start().starts_with(':') {
                    return None;
                }
                (key_part, after_rel + lead + 1)
            };
            return make_field(t, key, value_from, false);
        }
    }
    // Plain `Key: value`.
    let colon = s.find(':')?;
    let key = &s[..colon];
    if key.is_empty() || key.len() > 48 {
        return None;
    }
    let first = key.chars().next()?;
    if !first.is_alphabetic() {
        return None;
    }
    if !key
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.' | '/' | '(' | ')'))
    {
        return None;
    }
    let after = start + colon + 1;
    let next = t[after..].chars().next();
    if !(next.is_none() || next == Some(' ') || next == Some('\t')) {
        return None;
    }
    make_field(t, key, after, false)
}

fn make_field(t: &str, key: &str, value_from: usize, table: bool) -> Option<LineField> {
    let k = norm_key(key);
    if k.is_empty() {
        return None;
    }
    let raw = &t[value_from..];
    let lead = raw.len() - raw.trim_start().len();
    let value_start = value_from + lead;
    let value_end = value_from + raw.trim_end().len();
    Some(LineField {
        key: k,
        value_start,
        value_end: value_end.max(value_start),
        table,
    })
}

fn parse_table_row(t: &str) -> Option<LineField> {
    // Cell boundaries by unescaped `|`.
    let mut bars = Vec::new();
    let b = t.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'|' && (i == 0 || b[i - 1] != b'\\') {
            bars.push(i);
        }
    }
    let mut cells: Vec<(usize, usize)> = bars.windows(2).map(|w| (w[0] + 1, w[1])).collect();
    if let Some(&last) = bars.last() {
        if !t[last + 1..].trim().is_empty() {
            cells.push((last + 1, t.len()));
        }
    }
    if cells.len() != 2 {
        return None;
    }
    let key = t[cells[0].0..cells[0].1].trim();
    if key.is_empty() || key.chars().all(|c| matches!(c, '-' | ':' | ' ')) {
        return None;
    }
    let key = key.trim_matches('*').trim_matches('_');
    make_field(&t[..cells[1].1], key, cells[1].0, true)
}

/// Removes emphasis, code ticks, quotes, trailing HTML comments and surrounding blanks.
pub(crate) fn clean_value(v: &str) -> String {
    let mut s = v.trim();
    if let Some(i) = s.find("<!--") {
        s = s[..i].trim();
    }
    loop {
        let before = s;
        for (a, b) in [
            ("**", "**"),
            ("__", "__"),
            ("`", "`"),
            ("\"", "\""),
            ("'", "'"),
            ("*", "*"),
            ("_", "_"),
        ] {
            if s.len() >= a.len() + b.len() && s.starts_with(a) && s.ends_with(b) {
                s = s[a.len()..s.len() - b.len()].trim();
            }
        }
        if s == before {
            break;
        }
    }
    s.to_string()
}

/// True for values that say nothing: empty, `TBD`, `TODO`, `N/A`, `...`, `-`, `{{x}}`, `<x>`.
pub(crate) fn is_placeholder(v: &str) -> bool {
    let c = clean_value(v);
    let l = c.to_lowercase();
    l.is_empty()
        || matches!(
            l.as_str(),
            "tbd" | "todo" | "n/a" | "na" | "none" | "-" | "..." | "…" | "?" | "null"
        )
        || (l.starts_with("{{") && l.ends_with("}}"))
        || (l.starts_with('<') && l.ends_with('>') && !l.contains(' '))
        || (l.starts_with('[') && l.ends_with(']') && l[1..l.len() - 1].trim().is_empty())
}

/// A checkbox list item: `Some(true)` when ticked.
pub(crate) fn checkbox(t: &str) -> Option<bool> {
    let c = list_item_content(t)?;
    let s = &t[c..];
    let b = s.as_bytes();
    if b.len() >= 3
        && b[0] == b'['
        && b[2] == b']'
        && (b.len() == 3 || b[3] == b' ' || b[3] == b'\t')
    {
        return match b[1] {
            b' ' => Some(false),
            b'x' | b'X' => Some(true),
            _ => None,
        };
    }
    None
}

impl<'a> MdDoc<'a> {
    /// Scans `text`.
    pub(crate) fn parse(text: &'a str) -> MdDoc<'a> {
        let lines = split_lines(text);
        let mut headings = Vec::new();
        let mut fields = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            match l.kind {
                LineKind::Frontmatter => {
                    let t = l.text;
                    if t.starts_with(' ')
                        || t.starts_with('\t')
                        || t.starts_with('-')
                        || t.starts_with('#')
                    {
                        continue;
                    }
                    if let Some(colon) = t.find(':') {
                        let key = norm_key(&t[..colon]);
                        if key.is_empty() {
                            continue;
                        }
                        let raw = &t[colon + 1..];
                        let lead = raw.len() - raw.trim_start().len();
                        let vs = l.start + colon + 1 + lead;
                        let ve = l.start + colon + 1 + raw.trim_end().len();
                        fields.push(MdField {
                            key,
                            value: clean_value(raw),
                            value_start: vs,
                            value_end: ve.max(vs),
                            source: FieldSource::Frontmatter,
                        });
                    }
                }
                LineKind::Code => {}
                LineKind::Normal => {
                    if let Some((level, title)) = parse_heading(l.text) {
                        headings.push(Heading {
                            line: i,
                            level,
                            title,
                        });
                        continue;
                    }
                    if let Some(f) = parse_field_line(l.text) {
                        fields.push(MdField {
                            key: f.key,
                            value: clean_value(&l.text[f.value_start..f.value_end]),
                            value_start: l.start + f.value_start,
                            value_end: l.start + f.value_end,
                            source: if f.table {
                                FieldSource::Table
                            } else {
                                FieldSource::Line
                            },
                        });
                    }
                }
            }
        }
        // Section pseudo-fields: `## Status` followed by `Draft`.
        for (hi, h) in headings.iter().enumerate() {
            let end = headings.get(hi + 1).map(|n| n.line).unwrap_or(lines.len());
            if let Some(l) = lines
                .iter()
                .take(end)
                .skip(h.line + 1)
                .find(|l| l.kind == LineKind::Normal && !l.text.trim().is_empty())
            {
                let content =
                    list_item_content(l.text).unwrap_or(l.text.len() - l.text.trim_start().len());
                let raw = &l.text[content..];
                if raw.trim_start().starts_with("<!--") {
                    continue;
                }
                fields.push(MdField {
                    key: norm_key(&h.title),
                    value: clean_value(raw),
                    value_start: l.start + content,
                    value_end: l.start + content + raw.trim_end().len(),
                    source: FieldSource::Section,
                });
            }
        }
        MdDoc {
            lines,
            headings,
            fields,
        }
    }

    /// Values of the first kind of source that has any of `names`: frontmatter and field lines
    /// first (document order), section pseudo-fields only if nothing else matched. `title`
    /// falls back to the first level-1 heading.
    pub(crate) fn field_values(&self, names: &[String]) -> Vec<&MdField> {
        let wanted: Vec<String> = names.iter().map(|n| norm_key(n)).collect();
        let direct: Vec<&MdField> = self
            .fields
            .iter()
            .filter(|f| f.source != FieldSource::Section && wanted.contains(&f.key))
            .collect();
        if !direct.is_empty() {
            return direct;
        }
        self.fields
            .iter()
            .filter(|f| f.source == FieldSource::Section && wanted.contains(&f.key))
            .collect()
    }

    /// The title: a `title` field, else the first level-1 heading.
    pub(crate) fn title(&self) -> Option<String> {
        if let Some(f) = self.field_values(&["title".to_string()]).first() {
            if !is_placeholder(&f.value) {
                return Some(f.value.clone());
            }
        }
        self.headings
            .iter()
            .find(|h| h.level == 1)
            .map(|h| h.title.clone())
            .filter(|t| !is_placeholder(t))
    }

    /// Line range (indices, end exclusive) of the first section whose heading matches one of
    /// `names` (normalised equality, or the heading starting with the name and `_`).
    pub(crate) fn section(&self, names: &[String]) -> Option<(usize, usize)> {
        let wanted: Vec<String> = names.iter().map(|n| norm_key(n)).collect();
        for (hi, h) in self.headings.iter().enumerate() {
            let t = norm_key(&h.title);
            if wanted
                .iter()
                .any(|w| !w.is_empty() && (t == *w || t.starts_with(&format!("{w}_"))))
            {
                let end = self.headings[hi + 1..]
                    .iter()
                    .find(|n| n.level <= h.level)
                    .map(|n| n.line)
                    .unwrap_or(self.lines.len());
                return Some((h.line + 1, end));
            }
        }
        None
    }

    /// True when the line range holds real content (not blanks, comments or placeholders).
    pub(crate) fn has_content(&self, range: (usize, usize)) -> bool {
        let mut in_comment = false;
        for l in self.lines.iter().take(range.1).skip(range.0) {
            let t = l.text.trim();
            if in_comment {
                if t.contains("-->") {
                    in_comment = false;
                }
                continue;
            }
            if t.starts_with("<!--") {
                in_comment = !t.contains("-->");
                continue;
            }
            if l.kind == LineKind::Code && (t.starts_with("```") || t.starts_with("~~~")) {
                continue;
            }
            if let Some((_, title)) = parse_heading(l.text).filter(|_| l.kind == LineKind::Normal) {
                if !is_placeholder(&title) {
                    return true;
                }
                continue;
            }
            let content = list_item_content(l.text).map(|c| &l.text[c..]).unwrap_or(t);
            let content = content.trim_start_matches("[ ]").trim_start_matches("[x]");
            if !is_placeholder(content) {
                return true;
            }
        }
        false
    }

    /// (checkboxes, ticked) within the line range.
    pub(crate) fn checkboxes(&self, range: (usize, usize)) -> (usize, usize) {
        let mut total = 0;
        let mut ticked = 0;
        for l in self.lines.iter().take(range.1).skip(range.0) {
            if l.kind != LineKind::Normal {
                continue;
            }
            if let Some(t) = checkbox(l.text) {
                total += 1;
                if t {
                    ticked += 1;
                }
            }
        }
        (total, ticked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_in_all_spellings() {
        let text = "---\nstatus: \"DRAFT\"\nexecutor: dev\n---\n# Story S1: Login\n\n- Status: READY\n- **Quality Gate**: @qa\n**Effort:** 2h\n| Agent | Builder |\n|---|---|\nPlain: value here\n```\n- Status: DONE\n```\n## Status\n\nDraft\n";
        let d = MdDoc::parse(text);
        let keys: Vec<(&str, &str)> = d
            .fields
            .iter()
            .map(|f| (f.key.as_str(), f.value.as_str()))
            .collect();
        assert!(keys.contains(&("status", "DRAFT")));
        assert!(keys.contains(&("status", "READY")));
        assert!(keys.contains(&("quality_gate", "@qa")));
        assert!(keys.contains(&("effort", "2h")));
        assert!(keys.contains(&("agent", "Builder")));
        assert!(keys.contains(&("plain", "value here")));
        assert!(!keys.contains(&("status", "DONE")));
        assert_eq!(d.field_values(&["status".into()])[0].value, "DRAFT");
        assert_eq!(d.title().unwrap(), "Story S1: Login");
    }

    #[test]
    fn sections_and_checkboxes() {
        let text = "# T\n## Tasks / Subtasks\n- [x] a\n  - [ ] b\n1. [X] c\n## Acceptance Criteria\n<!-- fill -->\nTBD\n## Notes\ntext\n";
        let d = MdDoc::parse(text);
        let tasks = d.section(&["tasks".into()]).unwrap();
        assert_eq!(d.checkboxes(tasks), (3, 2));
        let ac = d.section(&["Acceptance Criteria".into()]).unwrap();
        assert!(!d.has_content(ac));
        assert!(d.has_content(d.section(&["notes".into()]).unwrap()));
    }

    #[test]
    fn non_fields() {
        assert!(parse_field_line("- https://example.com").is_none());
        assert!(parse_field_line("- [ ] Do it: now").is_none());
        assert!(parse_field_line("12:30 meeting").is_none());
        assert!(parse_field_line("|---|---|").is_none());
    }
}
