//! A small, tolerant document model over pulldown-cmark, shared by the task files
//! (`contract.md`, `status.md`, `result.md`, `questions.md`) and the TODO.md reader.
//!
//! All Markdown structure comes from pulldown-cmark (with GFM tables and task lists); this
//! module only groups its events into a title, a preamble, sections, lists, tables and
//! `Key: value` fields, and keeps 1-based line numbers for precise errors.
//!
//! Input is normalized first: a leading BOM is dropped, CRLF and lone CR become LF and
//! trailing spaces and tabs are removed from every line. Line numbers are those of the
//! original text (normalization never adds or removes a line).
//!
//! Never panics; nesting deeper than [`MAX_DEPTH`] lists is skipped rather than recursed into.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use std::ops::Range;

/// Lists nested deeper than this are skipped (bounded recursion on hostile input).
pub const MAX_DEPTH: usize = 16;

/// A parsed Markdown document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The normalized text the ranges and raw bodies refer to.
    pub text: String,
    /// The first heading, when it is a level-1 heading.
    pub title: Option<Heading>,
    /// Blocks before the first section heading (the title excluded).
    pub preamble: Vec<Block>,
    /// Sections, each started by a heading at the section level (see [`Document::parse`]).
    pub sections: Vec<Section>,
    /// Number of lines of the text.
    pub line_count: usize,
}

/// A heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// Plain text of the heading.
    pub text: String,
    /// 1 to 6.
    pub level: u8,
    /// 1-based line.
    pub line: usize,
}

/// A section: a heading and everything up to the next heading of the same or a higher level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The heading that starts the section.
    pub heading: Heading,
    /// The blocks of the body (deeper headings appear as [`Block::Heading`]).
    pub blocks: Vec<Block>,
    /// The body as Markdown source, trimmed.
    pub body: String,
    /// The last line of the section.
    pub end_line: usize,
}

/// A block-level element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A paragraph; soft line breaks are kept as `\n` in `text`.
    Paragraph {
        /// Plain text.
        text: String,
        /// First line.
        line: usize,
    },
    /// A bullet or ordered list.
    List {
        /// Whether it is an ordered (`1.`) list.
        ordered: bool,
        /// The items.
        items: Vec<ListItem>,
        /// First line.
        line: usize,
    },
    /// A GFM table.
    Table {
        /// Header cells (plain text).
        header: Vec<String>,
        /// Body rows.
        rows: Vec<TableRow>,
        /// Line of the header row.
        line: usize,
    },
    /// A heading below the section level, inside a section body.
    Heading(Heading),
    /// Anything else (code block, quote, HTML, rule).
    Other {
        /// First line.
        line: usize,
    },
}

/// One row of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRow {
    /// Cells as plain text.
    pub cells: Vec<String>,
    /// 1-based line.
    pub line: usize,
}

/// One list item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListItem {
    /// Plain text of the item's own content (markup removed, line breaks as spaces).
    pub text: String,
    /// The item's own content as Markdown source on one line (marker and checkbox removed).
    pub raw: String,
    /// `Some(true)` for `[x]`/`[X]`, `Some(false)` for `[ ]`, `None` without a checkbox.
    pub checked: Option<bool>,
    /// The content of an inline code span that starts the item, if any.
    pub code_prefix: Option<String>,
    /// Byte offset (in `raw`) just after that leading code span.
    pub code_prefix_end: usize,
    /// 1-based line.
    pub line: usize,
    /// Nested list items.
    pub children: Vec<ListItem>,
}

/// A `Key: value` field found in a list item, a paragraph line or a two-column table row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The key as written (plain text, trimmed).
    pub key: String,
    /// The key normalized by [`normalize_key`].
    pub norm: String,
    /// The value (plain text, trimmed).
    pub value: String,
    /// 1-based line.
    pub line: usize,
}

/// Lowercases and keeps only ASCII letters and digits: `**Last  Update**` → `lastupdate`.
pub fn normalize_key(key: &str) -> String {
    key.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Drops a BOM, turns CRLF and lone CR into LF and strips trailing spaces/tabs of each line.
pub fn normalize(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let unified = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(unified.len());
    for (i, line) in unified.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line.trim_end_matches([' ', '\t']));
    }
    out
}

struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { starts }
    }
    fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).max(1)
    }
}

type Ev<'a> = (Event<'a>, Range<usize>);

struct Walker<'a, I: Iterator<Item = Ev<'a>>> {
    events: std::iter::Peekable<I>,
    lines: &'a Lines,
    text: &'a str,
}

#[derive(Default)]
struct Inline {
    text: String,
    start: Option<usize>,
    end: usize,
    code_prefix: Option<(String, usize)>,
    checked: Option<bool>,
}

impl Inline {
    /// Adds an inline event; returns false when the event is not inline.
    fn push(&mut self, ev: &Event<'_>, range: &Range<usize>, depth: &mut usize) -> bool {
        let mut touch = true;
        match ev {
            Event::Text(t) => self.text.push_str(t),
            Event::Code(t) => {
                if self.start.is_none() && self.text.is_empty() {
                    self.code_prefix = Some((t.to_string(), range.end));
                }
                self.text.push_str(t);
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text.push_str(t),
            Event::Html(t) | Event::InlineHtml(t) => self.text.push_str(t),
            Event::FootnoteReference(t) => self.text.push_str(t),
            Event::SoftBreak | Event::HardBreak => self.text.push('\n'),
            Event::TaskListMarker(b) => {
                if self.start.is_none() && self.checked.is_none() {
                    self.checked = Some(*b);
                }
                touch = false;
            }
            Event::Start(tag) if is_inline_tag(tag) => *depth += 1,
            Event::End(tag) if is_inline_end(tag) => *depth = depth.saturating_sub(1),
            _ => return false,
        }
        if touch {
            if self.start.is_none() {
                self.start = Some(range.start);
            }
            self.end = self.end.max(range.end);
        }
        true
    }
}

fn is_inline_tag(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. }
    )
}

fn is_inline_end(tag: &TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image
    )
}

/// Collapses a raw multi-line source slice onto one line.
fn one_line(raw: &str) -> String {
    raw.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn plain_one_line(text: &str) -> String {
    one_line(text)
}

impl<'a, I: Iterator<Item = Ev<'a>>> Walker<'a, I> {
    /// Skips events until the End matching an already consumed Start (iteratively).
    fn skip_container(&mut self) {
        let mut depth = 1usize;
        for (ev, _) in self.events.by_ref() {
            match ev {
                Event::Start(_) => depth += 1,
                Event::End(_) => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// Collects inline content until the End of the current container.
    fn inline_until_end(&mut self) -> Inline {
        let mut inline = Inline::default();
        let mut depth = 0usize;
        while let Some((ev, range)) = self.events.next() {
            match &ev {
                Event::End(tag) if depth == 0 && !is_inline_end(tag) => return inline,
                _ => {
                    if !inline.push(&ev, &range, &mut depth) && matches!(ev, Event::Start(_)) {
                        self.skip_container();
                    }
                }
            }
        }
        inline
    }

    /// Reads top-level blocks until the iterator ends.
    fn blocks(&mut self) -> Vec<(Block, Range<usize>)> {
        let mut out = Vec::new();
        while let Some((ev, range)) = self.events.next() {
            let line = self.lines.line(range.start);
            match ev {
                Event::Start(Tag::Heading { level, .. }) => {
                    let inline = self.inline_until_end();
                    let heading = Heading {
                        text: plain_one_line(&inline.text),
                        level: level as u8,
                        line,
                    };
                    out.push((Block::Heading(heading), range));
                }
                Event::Start(Tag::Paragraph) => {
                    let inline = self.inline_until_end();
                    out.push((
                        Block::Paragraph {
                            text: inline.text,
                            line,
                        },
                        range,
                    ));
                }
                Event::Start(Tag::List(first)) => {
                    let items = self.list_items(0);
                    out.push((
                        Block::List {
                            ordered: first.is_some(),
                            items,
                            line,
                        },
                        range,
                    ));
                }
                Event::Start(Tag::Table(_)) => {
                    let (header, rows) = self.table();
                    out.push((Block::Table { header, rows, line }, range));
                }
                Event::Start(_) => {
                    self.skip_container();
                    out.push((Block::Other { line }, range));
                }
                Event::Rule => out.push((Block::Other { line }, range)),
                _ => {}
            }
        }
        out
    }

    /// Reads items after a consumed `Start(List)`, through its `End(List)`.
    fn list_items(&mut self, depth: usize) -> Vec<ListItem> {
        let mut items = Vec::new();
        while let Some((ev, range)) = self.events.next() {
            match ev {
                Event::Start(Tag::Item) => items.push(self.item(range, depth)),
                Event::End(_) => break,
                Event::Start(_) => self.skip_container(),
                _ => {}
            }
        }
        items
    }

    fn item(&mut self, range: Range<usize>, depth: usize) -> ListItem {
        let line = self.lines.line(range.start);
        let mut inline = Inline::default();
        let mut children = Vec::new();
        let mut inline_depth = 0usize;
        let mut paragraphs = 0usize;
        while let Some((ev, r)) = self.events.next() {
            match &ev {
                Event::End(TagEnd::Item) if inline_depth == 0 => break,
                Event::Start(Tag::List(_)) => {
                    if depth + 1 >= MAX_DEPTH {
                        self.skip_container();
                    } else {
                        children.extend(self.list_items(depth + 1));
                    }
                }
                Event::Start(Tag::Paragraph) => {
                    paragraphs += 1;
                    if paragraphs > 1 {
                        inline.text.push('\n');
                    }
                    let mut d = 0usize;
                    while let Some((pev, pr)) = self.events.next() {
                        match &pev {
                            Event::End(TagEnd::Paragraph) if d == 0 => break,
                            _ => {
                                if !inline.push(&pev, &pr, &mut d) && matches!(pev, Event::Start(_))
                                {
                                    self.skip_container();
                                }
                            }
                        }
                    }
                }
                _ => {
                    if !inline.push(&ev, &r, &mut inline_depth) {
                        match ev {
                            Event::Start(_) => self.skip_container(),
                            Event::End(_) => break,
                            _ => {}
                        }
                    }
                }
            }
        }
        let raw_src = match inline.start {
            Some(s) if s <= inline.end && inline.end <= self.text.len() => {
                self.text.get(s..inline.end).unwrap_or("")
            }
            _ => "",
        };
        let raw = one_line(raw_src);
        let (code_prefix, code_prefix_end) = match (&inline.code_prefix, inline.start) {
            (Some((code, end)), Some(s)) => {
                let prefix_src = self.text.get(s..*end).unwrap_or("");
                (
                    Some(code.clone()),
                    one_line(prefix_src).len().min(raw.len()),
                )
            }
            _ => (None, 0),
        };
        ListItem {
            text: plain_one_line(&inline.text),
            raw,
            checked: inline.checked,
            code_prefix,
            code_prefix_end,
            line,
            children,
        }
    }

    fn table(&mut self) -> (Vec<String>, Vec<TableRow>) {
        let mut header = Vec::new();
        let mut rows = Vec::new();
        let mut in_head = false;
        let mut current: Option<TableRow> = None;
        while let Some((ev, range)) = self.events.next() {
            match ev {
                Event::Start(Tag::TableHead) => in_head = true,
                Event::End(TagEnd::TableHead) => in_head = false,
                Event::Start(Tag::TableRow) => {
                    current = Some(TableRow {
                        cells: Vec::new(),
                        line: self.lines.line(range.start),
                    })
                }
                Event::End(TagEnd::TableRow) => {
                    if let Some(row) = current.take() {
                        rows.push(row);
                    }
                }
                Event::Start(Tag::TableCell) => {
                    let cell = plain_one_line(&self.inline_until_end().text);
                    match current.as_mut() {
                        Some(row) if !in_head => row.cells.push(cell),
                        _ => header.push(cell),
                    }
                }
                Event::End(TagEnd::Table) => break,
                Event::Start(_) => self.skip_container(),
                _ => {}
            }
        }
        (header, rows)
    }
}

impl Document {
    /// Parses Markdown text (GFM tables and task lists enabled).
    ///
    /// The title is the first heading if it is a level-1 heading. Sections are started by
    /// headings of level ≤ L, where L is the smallest level among the other headings but at
    /// least 2 (so `##` sections work, a stray `#` also starts one, and a file written with
    /// only `###` headings still has sections). Deeper headings stay inside the section body.
    pub fn parse(text: &str) -> Document {
        let text = normalize(text);
        let lines = Lines::new(&text);
        let options = Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS;
        let blocks = {
            let mut walker = Walker {
                events: Parser::new_ext(&text, options)
                    .into_offset_iter()
                    .peekable(),
                lines: &lines,
                text: &text,
            };
            walker.blocks()
        };
        let line_count = lines.starts.len();
        let mut title = None;
        let mut rest: &[(Block, Range<usize>)] = &blocks;
        if let Some((Block::Heading(h), _)) =
            blocks.iter().find(|(b, _)| matches!(b, Block::Heading(_)))
        {
            if h.level == 1 {
                title = Some(h.clone());
            }
        }
        let title_line = title.as_ref().map(|h| h.line);
        let min_level = blocks
            .iter()
            .filter_map(|(b, _)| match b {
                Block::Heading(h) if Some(h.line) != title_line => Some(h.level),
                _ => None,
            })
            .min()
            .unwrap_or(2)
            .max(2);
        let mut preamble = Vec::new();
        let mut sections: Vec<Section> = Vec::new();
        let mut open: Option<(Heading, Vec<Block>, usize)> = None;
        let close = |open: Option<(Heading, Vec<Block>, usize)>,
                     end: usize,
                     sections: &mut Vec<Section>| {
            if let Some((heading, blocks, body_start)) = open {
                let body = text.get(body_start..end.max(body_start)).unwrap_or("");
                let end_line = lines.line(end.saturating_sub(1).max(body_start));
                sections.push(Section {
                    heading,
                    blocks,
                    body: body.trim().to_string(),
                    end_line,
                });
            }
        };
        while let Some(((block, range), tail)) = rest.split_first() {
            rest = tail;
            match block {
                Block::Heading(h) if Some(h.line) == title_line && h.level == 1 => {}
                Block::Heading(h) if h.level <= min_level => {
                    close(open.take(), range.start, &mut sections);
                    open = Some((h.clone(), Vec::new(), range.end.min(text.len())));
                }
                other => match open.as_mut() {
                    Some((_, blocks, _)) => blocks.push(other.clone()),
                    None => preamble.push(other.clone()),
                },
            }
        }
        close(open.take(), text.len(), &mut sections);
        Document {
            text,
            title,
            preamble,
            sections,
            line_count,
        }
    }

    /// The sections whose normalized heading is one of `names` (see [`normalize_key`]).
    pub fn sections_named<'d>(&'d self, names: &[&str]) -> Vec<&'d Section> {
        self.sections
            .iter()
            .filter(|s| names.contains(&normalize_key(&s.heading.text).as_str()))
            .collect()
    }
}

/// Splits `Key: value` text at its first colon. The key must be 1 to 60 characters and must
/// not look like a URL scheme or a path (no `/`), so `http://x` or `src/a.ts: note` are not
/// fields.
pub fn split_field(text: &str) -> Option<(String, String)> {
    let (key, value) = text.split_once(':')?;
    let key = key.trim();
    if !valid_key(key) || value.starts_with("//") {
        return None;
    }
    Some((key.to_string(), value.trim().to_string()))
}

/// A field key: 1 to 60 characters, no `:` or `/`, at least one ASCII letter or digit.
fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.chars().count() <= 60
        && !key.contains([':', '/'])
        && !normalize_key(key).is_empty()
}

/// The `Key: value` fields among `blocks`: top-level list items, paragraph lines and the rows
/// of two-column tables (a header row of `Field | Value`, `Key | Value` or `Name | Value` is a
/// header, any other header row is a field too).
pub fn fields(blocks: &[Block]) -> Vec<Field> {
    let mut out = Vec::new();
    let mut push = |key: String, value: String, line: usize| {
        out.push(Field {
            norm: normalize_key(&key),
            key,
            value,
            line,
        })
    };
    for block in blocks {
        match block {
            Block::List { items, .. } => {
                for item in items {
                    if let Some((k, v)) = split_field(&item.text) {
                        push(k, v, item.line);
                    }
                }
            }
            Block::Paragraph { text, line } => {
                for (i, l) in text.split('\n').enumerate() {
                    if let Some((k, v)) = split_field(l) {
                        push(k, v, line + i);
                    }
                }
            }
            Block::Table { header, rows, line } if header.len() == 2 => {
                let head_key = normalize_key(&header[0]);
                let is_header = matches!(head_key.as_str(), "field" | "key" | "name" | "")
                    && matches!(normalize_key(&header[1]).as_str(), "value" | "");
                if !is_header && valid_key(header[0].trim()) {
                    push(
                        header[0].trim().to_string(),
                        header[1].trim().to_string(),
                        *line,
                    );
                }
                for row in rows {
                    if let (Some(k), Some(v)) = (row.cells.first(), row.cells.get(1)) {
                        if valid_key(k.trim()) {
                            push(k.trim().to_string(), v.trim().to_string(), row.line);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a one-line text placed after a list marker would be read as block syntax rather
/// than as the item's text: a checkbox (`[x] `), an ATX heading (`# `), a quote (`>`), a
/// nested list (`- `, `+ `, `* `, `1. `, `1) `), a thematic break (`***`), a code fence
/// (```` ``` ````, `~~~`), an HTML block start (`<` then a letter, `/`, `!` or `?`) or a
/// link reference definition (`[a]: b`). Such text is written with a leading backslash.
pub fn starts_like_block(text: &str) -> bool {
    let b = text.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    let space_or_end = |i: usize| b.get(i).is_none_or(|c| *c == b' ' || *c == b'\t');
    match first {
        b'[' => {
            (b.len() >= 3 && matches!(b[1], b' ' | b'x' | b'X') && b[2] == b']' && space_or_end(3))
                || text.contains("]:")
        }
        b'#' => {
            let n = b.iter().take_while(|c| **c == b'#').count();
            n <= 6 && space_or_end(n)
        }
        b'>' => true,
        b'-' | b'+' | b'*' | b'_' => {
            let rule = b.iter().filter(|c| **c == first).count() >= 3
                && b.iter().all(|c| *c == first || *c == b' ' || *c == b'\t');
            (first != b'_' && space_or_end(1)) || rule
        }
        b'`' | b'~' => b.iter().take_while(|c| **c == first).count() >= 3,
        b'<' => b
            .get(1)
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, b'/' | b'!' | b'?')),
        b'0'..=b'9' => {
            let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
            n <= 9 && matches!(b.get(n), Some(b'.') | Some(b')')) && space_or_end(n + 1)
        }
        _ => false,
    }
}

/// Escapes text that [`starts_like_block`] with a backslash: before the first character, or
/// for `1. `/`1) ` before the delimiter (a backslash only escapes punctuation).
pub fn escape_block_start(text: &str) -> String {
    if !starts_like_block(text) {
        return text.to_string();
    }
    let digits = text.bytes().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 {
        format!("{}\\{}", &text[..digits], &text[digits..])
    } else {
        format!("\\{text}")
    }
}

/// Undoes [`escape_block_start`] on Markdown source (a no-op on anything else).
pub fn unescape_block_start(raw: &str) -> String {
    let digits = raw.bytes().take_while(|c| c.is_ascii_digit()).count();
    let candidate = if digits > 0 {
        raw.get(digits..)
            .and_then(|rest| rest.strip_prefix('\\'))
            .map(|rest| format!("{}{rest}", &raw[..digits]))
    } else {
        raw.strip_prefix('\\').map(str::to_string)
    };
    match candidate {
        Some(c) if starts_like_block(&c) => c,
        _ => raw.to_string(),
    }
}

/// All top-level list items of the lists among `blocks`, in order.
pub fn list_items(blocks: &[Block]) -> Vec<&ListItem> {
    blocks
        .iter()
        .flat_map(|b| match b {
            Block::List { items, .. } => items.iter().collect::<Vec<_>>(),
            _ => Vec::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_preamble_sections_and_fields() {
        let doc = Document::parse(
            "# Task Status\r\n\r\n- Status: IN_PROGRESS  \r\n- **Last Update**: 2026\r\n\r\n## Completed Steps\r\n- [x] Read\r\n- [X] Wrote\r\n- [ ] Test\r\n",
        );
        assert_eq!(doc.title.as_ref().unwrap().text, "Task Status");
        let f = fields(&doc.preamble);
        assert_eq!(f.len(), 2);
        assert_eq!(
            (f[1].norm.as_str(), f[1].value.as_str(), f[1].line),
            ("lastupdate", "2026", 4)
        );
        assert_eq!(doc.sections.len(), 1);
        let items = list_items(&doc.sections[0].blocks);
        let checks: Vec<_> = items.iter().map(|i| i.checked).collect();
        assert_eq!(checks, vec![Some(true), Some(true), Some(false)]);
        assert_eq!(items[2].raw, "Test");
        assert_eq!(items[2].line, 9);
    }

    #[test]
    fn tables_and_raw_items() {
        let doc = Document::parse(
            "# T\n\n| Field | Value |\n|---|---|\n| Agent | Builder |\n\n## D\n- `a b.ts` (x)\n- **bold** tail\n  continued\n",
        );
        let f = fields(&doc.preamble);
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].key.as_str(), f[0].value.as_str(), f[0].line),
            ("Agent", "Builder", 5)
        );
        let items = list_items(&doc.sections[0].blocks);
        assert_eq!(items[0].code_prefix.as_deref(), Some("a b.ts"));
        assert_eq!(&items[0].raw[items[0].code_prefix_end..], " (x)");
        assert_eq!(items[1].raw, "**bold** tail continued");
        assert_eq!(items[1].text, "bold tail continued");
    }

    #[test]
    fn block_starts_are_escaped_and_survive_a_list_item() {
        for t in [
            "# x",
            "#",
            "> q",
            "- a",
            "+ a",
            "* a",
            "***",
            "_ _ _",
            "```js",
            "~~~",
            "<div>",
            "</p>",
            "<!-- c",
            "12. x",
            "3)",
            "[ ] x",
            "[x]",
            "[X] y",
            "[ref]: /url",
        ] {
            assert!(starts_like_block(t), "{t}");
            let escaped = escape_block_start(t);
            let doc = Document::parse(&format!("- {escaped}\n"));
            let items = list_items(&doc.preamble);
            assert_eq!(items.len(), 1, "{t}");
            assert_eq!(items[0].text, t, "{t}");
            assert_eq!(unescape_block_start(&items[0].raw), t, "{t}");
        }
        for t in [
            "#tag",
            "1.5",
            "-x",
            "**b**",
            "a",
            "<",
            "<1",
            "[link](u)",
            "12.x",
            "__init__",
        ] {
            assert!(!starts_like_block(t), "{t}");
            assert_eq!(escape_block_start(t), t);
            assert_eq!(unescape_block_start(t), t);
        }
        assert_eq!(unescape_block_start("\\#tag"), "\\#tag");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut s = String::new();
        for i in 0..200 {
            s.push_str(&" ".repeat(i * 2));
            s.push_str("- x\n");
        }
        let doc = Document::parse(&s);
        assert_eq!(list_items(&doc.preamble).len(), 1);
        let deep = "> ".repeat(5000) + "x";
        let _ = Document::parse(&deep);
    }
}
