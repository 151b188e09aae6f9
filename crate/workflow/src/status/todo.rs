//! TODO.md as ProofChecker writes it: one `### NNN. Title` heading per task, followed by a
//! list of `- **Field**: value` lines (`**Status**: [MARKER]`, `**Started**`, `**Completed**`,
//! `**Priority**`, `**Language**`, artifact fields with indented sub-items) and free text.
//!
//! ```markdown
//! ### 258. Resolve Truth.lean Sorries
//! - **Effort**: 10-20 hours
//! - **Status**: [RESEARCHED]
//! - **Started**: 2026-01-03
//! - **Priority**: Medium
//! - **Language**: lean
//! - **Research Artifacts**:
//!   - Main Report: .opencode/specs/258_resolve_truth_lean_sorries/reports/research-001.md
//!
//! **Description**: Resolve 3 remaining sorry placeholders in Truth.lean...
//! ```
//!
//! An entry runs from its heading to the next heading of the same or a higher level, or the
//! next task heading. Headings inside fenced code blocks are ignored. Tolerated heading
//! forms: `### 258. Title`, `## 258: Title`, `#### Task 258) Title`.

use super::markdown::{list_item_content, parse_field_line, FieldSource, LineKind, MdDoc};
use super::text::{line_of, norm_key, TextEdit};

/// A `- **Field**: value` line of a TODO.md entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoField {
    /// Normalised field name (`research_artifacts`).
    pub key: String,
    /// The value as written (trimmed).
    pub value: String,
    /// 1-based line number.
    pub line: usize,
    /// Byte offset of the line start.
    pub line_start: usize,
    /// Byte offset of the raw value.
    pub value_start: usize,
    /// Byte offset after the raw value.
    pub value_end: usize,
    /// Byte offset after the field's last line (its own line or its last indented sub-item).
    pub block_end: usize,
    /// Text before the field name on its line (indentation and list marker, e.g. `- `).
    pub prefix: String,
    /// Whether the name is written in bold (`**Status**:`).
    pub bold: bool,
    /// Indented sub-items (`  - Main Report: path`): (item text, 1-based line, line start offset).
    pub items: Vec<(String, usize, usize)>,
}

/// The status of a TODO.md entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoStatus {
    /// The marker text without brackets (`NOT STARTED`).
    pub raw: String,
    /// 1-based line number.
    pub line: usize,
    /// Byte range of the marker text (inside the brackets when bracketed).
    pub start: usize,
    /// End of the marker text.
    pub end: usize,
    /// Whether the marker is written `[LIKE THIS]`.
    pub bracketed: bool,
}

/// One task entry of TODO.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoEntry {
    /// The task number.
    pub number: u64,
    /// The heading text after the number.
    pub title: String,
    /// 1-based line of the heading.
    pub line: usize,
    /// Heading level (number of `#`).
    pub level: usize,
    /// Byte offset of the heading line.
    pub start: usize,
    /// Byte offset where the entry ends (next heading or end of text).
    pub end: usize,
    /// The `**Status**` marker, if any.
    pub status: Option<TodoStatus>,
    /// All field lines, in order.
    pub fields: Vec<TodoField>,
    /// Byte offset after the entry's first contiguous block of field lines.
    pub meta_end: usize,
}

/// A parsed TODO.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TodoDoc {
    /// Task entries in document order (duplicates included).
    pub entries: Vec<TodoEntry>,
    /// `next_project_number` from YAML frontmatter, with its value's byte range and line.
    pub next_project_number: Option<(u64, usize, usize, usize)>,
    /// Section headings outside entries: (level, title, line start offset, end offset of the section).
    pub sections: Vec<(usize, String, usize, usize)>,
}

/// Parses a task heading's text: `258. Title`, `258: Title`, `Task 258) Title`.
pub(crate) fn parse_task_heading(title: &str) -> Option<(u64, String)> {
    let mut t = title.trim();
    for p in ["Task ", "task ", "TASK ", "Task #", "#"] {
        if let Some(r) = t.strip_prefix(p) {
            t = r.trim_start();
            break;
        }
    }
    let digits = t.bytes().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let n: u64 = t[..digits].parse().ok()?;
    let rest = &t[digits..];
    let rest = if let Some(r) = rest.strip_prefix(['.', ':', ')']) {
        if !(r.is_empty() || r.starts_with(' ') || r.starts_with('\t')) {
            return None;
        }
        r
    } else if rest.starts_with(" - ") || rest.starts_with(" — ") || rest.starts_with(" – ") {
        rest.trim_start().trim_start_matches(['-', '—', '–'])
    } else {
        return None;
    };
    Some((n, rest.trim().to_string()))
}

/// Finds the status marker inside a field value: `[X]` (first bracketed text) or else the
/// leading word(s) up to a delimiter.
fn marker_in(value: &str, value_start: usize) -> (String, usize, usize, bool) {
    if let Some(open) = value.find('[') {
        if let Some(close_rel) = value[open + 1..].find(']') {
            let inner = &value[open + 1..open + 1 + close_rel];
            let lead = inner.len() - inner.trim_start().len();
            let s = value_start + open + 1 + lead;
            return (inner.trim().to_string(), s, s + inner.trim().len(), true);
        }
    }
    let cut = [" (", " - ", " — ", " – ", ",", ";", " |", "  "]
        .iter()
        .filter_map(|d| value.find(d))
        .min()
        .unwrap_or(value.len());
    let raw = value[..cut].trim_end();
    let raw_clean = raw.trim_matches(|c| c == '*' || c == '`' || c == '_');
    let lead = raw.find(raw_clean).unwrap_or(0);
    let s = value_start + lead;
    (raw_clean.to_string(), s, s + raw_clean.len(), false)
}

/// Extracts a path from an artifact item: a link target `[x](path)`, the text after
/// `Label: `, or the item itself; `None` when it does not look like a path.
pub(crate) fn artifact_path(item: &str) -> Option<String> {
    let s = item.trim();
    let cand = if let Some(i) = s.find("](") {
        let rest = &s[i + 2..];
        rest[..rest.find(')').unwrap_or(rest.len())].to_string()
    } else if let Some(i) = s.rfind(": ") {
        let label = &s[..i];
        if label.contains('/') {
            s.to_string()
        } else {
            s[i + 2..].to_string()
        }
    } else {
        s.to_string()
    };
    let c = cand
        .trim()
        .trim_matches(|c| c == '`' || c == '<' || c == '>' || c == '"')
        .trim();
    let c = c.trim_end_matches(['.', ',', ';']);
    if c.is_empty() || c.contains(char::is_whitespace) || !(c.contains('/') || c.contains('.')) {
        return None;
    }
    if matches!(c.to_lowercase().as_str(), "n/a" | "none" | "tbd") {
        return None;
    }
    Some(c.to_string())
}

/// True for field names that hold artifacts.
pub(crate) fn is_artifact_key(key: &str) -> bool {
    key.contains("artifact")
        || matches!(
            key,
            "research"
                | "plan"
                | "plans"
                | "report"
                | "reports"
                | "summary"
                | "summaries"
                | "implementation_plan"
                | "implementation_summary"
                | "research_report"
                | "research_reports"
                | "implementation"
        )
}

/// Fields of a line range of a scanned document, with indented sub-items attached.
fn fields_in(doc: &MdDoc, from: usize, to: usize) -> (Vec<TodoField>, Option<usize>) {
    let mut fields: Vec<TodoField> = Vec::new();
    let mut meta_end = None;
    let mut i = from;
    while i < to {
        let l = &doc.lines[i];
        let parsed = if l.kind == LineKind::Normal && !l.text.trim().is_empty() {
            parse_field_line(l.text).filter(|f| !f.table)
        } else {
            None
        };
        let Some(f) = parsed else {
            if meta_end.is_none() {
                meta_end = fields.last().map(|f| f.block_end);
            }
            i += 1;
            continue;
        };
        let key_from =
            list_item_content(l.text).unwrap_or(l.text.len() - l.text.trim_start().len());
        let indent = l.text.len() - l.text.trim_start().len();
        let mut items = Vec::new();
        let mut j = i + 1;
        let mut block_end = l.next;
        while j < to {
            let s = &doc.lines[j];
            let ind = s.text.len() - s.text.trim_start().len();
            if s.kind != LineKind::Normal || s.text.trim().is_empty() || ind <= indent {
                break;
            }
            let content = list_item_content(s.text).unwrap_or(ind);
            items.push((s.text[content..].trim().to_string(), j + 1, s.start));
            block_end = s.next;
            j += 1;
        }
        fields.push(TodoField {
            key: f.key,
            value: l.text[f.value_start..f.value_end].to_string(),
            line: i + 1,
            line_start: l.start,
            value_start: l.start + f.value_start,
            value_end: l.start + f.value_end,
            block_end,
            prefix: l.text[..key_from].to_string(),
            bold: l.text[key_from..].starts_with("**") || l.text[key_from..].starts_with("__"),
            items,
        });
        i = j;
    }
    if meta_end.is_none() {
        meta_end = fields.last().map(|f| f.block_end);
    }
    (fields, meta_end)
}

/// Artifact paths of a document's artifact fields (inline values and sub-items), with lines.
pub(crate) fn artifacts_of_doc(doc: &MdDoc) -> Vec<(String, usize)> {
    let (fields, _) = fields_in(doc, 0, doc.lines.len());
    artifacts_of_fields(&fields)
}

fn artifacts_of_fields(fields: &[TodoField]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for f in fields.iter().filter(|f| is_artifact_key(&f.key)) {
        let mut add = |p: Option<String>, line: usize| {
            if let Some(p) = p {
                if !out.iter().any(|(q, _)| same_path(q, &p)) {
                    out.push((p, line));
                }
            }
        };
        add(artifact_path(&f.value), f.line);
        for (it, line, _) in &f.items {
            add(artifact_path(it), *line);
        }
    }
    out
}

/// Path equality ignoring a leading `./`.
pub(crate) fn same_path(a: &str, b: &str) -> bool {
    a.trim_start_matches("./") == b.trim_start_matches("./")
}

impl TodoEntry {
    /// The first field named like one of `names` (normalised).
    pub fn field(&self, names: &[&str]) -> Option<&TodoField> {
        self.fields
            .iter()
            .find(|f| names.iter().any(|n| norm_key(n) == f.key))
    }
    /// Artifact paths linked by the entry, with their lines.
    pub fn artifacts(&self) -> Vec<(String, usize)> {
        artifacts_of_fields(&self.fields)
    }
}

/// Parses TODO.md. `status_fields` are the accepted status field names (`["status"]`).
pub fn parse_todo(text: &str, status_fields: &[String]) -> TodoDoc {
    let doc = MdDoc::parse(text);
    let wanted: Vec<String> = status_fields.iter().map(|s| norm_key(s)).collect();
    let mut entries = Vec::new();
    let hs = &doc.headings;
    for (hi, h) in hs.iter().enumerate() {
        let Some((number, title)) = parse_task_heading(&h.title) else {
            continue;
        };
        let end_line = hs[hi + 1..]
            .iter()
            .find(|n| n.level <= h.level || parse_task_heading(&n.title).is_some())
            .map(|n| n.line)
            .unwrap_or(doc.lines.len());
        let start = doc.lines[h.line].start;
        let end = doc
            .lines
            .get(end_line)
            .map(|l| l.start)
            .unwrap_or(text.len());
        let (fields, meta_end) = fields_in(&doc, h.line + 1, end_line);
        let status = fields.iter().find(|f| wanted.contains(&f.key)).map(|f| {
            let (raw, s, e, bracketed) = marker_in(&f.value, f.value_start);
            TodoStatus {
                raw,
                line: f.line,
                start: s,
                end: e,
                bracketed,
            }
        });
        let heading_line = &doc.lines[h.line];
        entries.push(TodoEntry {
            number,
            title,
            line: h.line + 1,
            level: h.level,
            start,
            end,
            status,
            meta_end: meta_end.unwrap_or(heading_line.next),
            fields,
        });
    }
    let next_project_number = doc
        .fields
        .iter()
        .find(|f| f.source == FieldSource::Frontmatter && f.key == "next_project_number")
        .and_then(|f| {
            f.value
                .parse::<u64>()
                .ok()
                .map(|n| (n, f.value_start, f.value_end, line_of(text, f.value_start)))
        });
    let mut sections = Vec::new();
    for (hi, h) in hs.iter().enumerate() {
        if parse_task_heading(&h.title).is_some() {
            continue;
        }
        let end_line = hs[hi + 1..]
            .iter()
            .find(|n| n.level <= h.level)
            .map(|n| n.line)
            .unwrap_or(doc.lines.len());
        let end = doc
            .lines
            .get(end_line)
            .map(|l| l.start)
            .unwrap_or(text.len());
        sections.push((h.level, h.title.clone(), doc.lines[h.line].start, end));
    }
    TodoDoc {
        entries,
        next_project_number,
        sections,
    }
}

/// Inserts `lines` (each without line break) after the line ending at `at` (a line start
/// offset or the text end), handling a last line without a line break.
pub(crate) fn insert_lines(text: &str, at: usize, lines: &[String], nl: &str) -> TextEdit {
    let body: String = lines.iter().map(|l| format!("{l}{nl}")).collect();
    if at >= text.len() && !text.is_empty() && !text.ends_with('\n') {
        let body = body.strip_suffix(nl).unwrap_or(&body).to_string();
        TextEdit::insert(text.len(), format!("{nl}{body}"))
    } else {
        TextEdit::insert(at.min(text.len()), body)
    }
}

/// A field line in the style of `like`: same prefix and emphasis.
pub(crate) fn field_line(like: &TodoField, name: &str, value: &str) -> String {
    let sep = if value.is_empty() { "" } else { " " };
    if like.bold {
        format!("{}**{name}**:{sep}{value}", like.prefix)
    } else {
        format!("{}{name}:{sep}{value}", like.prefix)
    }
}

/// Edits linking `paths` under the field `field_name` of `entry` (created after the entry's
/// field block if missing, in the style of `like`). Paths already linked anywhere in the
/// entry are skipped. Returns no edit when nothing is new.
pub(crate) fn add_artifacts(
    text: &str,
    entry: &TodoEntry,
    field_name: &str,
    paths: &[String],
    like: &TodoField,
    nl: &str,
) -> Option<TextEdit> {
    let have = entry.artifacts();
    let mut new: Vec<&String> = Vec::new();
    for p in paths {
        if !have.iter().any(|(h, _)| same_path(h, p)) && !new.iter().any(|q| same_path(q, p)) {
            new.push(p);
        }
    }
    if new.is_empty() {
        return None;
    }
    let key = norm_key(field_name);
    if let Some(f) = entry.fields.iter().find(|f| f.key == key) {
        let item_prefix = match f.items.first() {
            Some((_, _, start)) => {
                let line = &text[*start..];
                let line = &line[..line.find('\n').unwrap_or(line.len())];
                let c = list_item_content(line).unwrap_or(0);
                line[..c].to_string()
            }
            None => format!(
                "{}  - ",
                " ".repeat(f.prefix.len() - f.prefix.trim_start().len())
            ),
        };
        let lines: Vec<String> = new.iter().map(|p| format!("{item_prefix}{p}")).collect();
        return Some(insert_lines(text, f.block_end, &lines, nl));
    }
    let indent = " ".repeat(like.prefix.len() - like.prefix.trim_start().len());
    let mut lines = vec![field_line(like, field_name, "")];
    lines.extend(new.iter().map(|p| format!("{indent}  - {p}")));
    Some(insert_lines(text, entry.meta_end, &lines, nl))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TODO: &str = "# TODO\n\n## High Priority\n\n### 258. Resolve Truth.lean Sorries\n- **Effort**: 10-20 hours\n- **Status**: [RESEARCHED]\n- **Started**: 2026-01-03\n- **Priority**: Medium\n- **Language**: lean\n- **Research Artifacts**:\n  - Main Report: .opencode/specs/258_resolve/reports/research-001.md\n  - Summary: [summary](.opencode/specs/258_resolve/summaries/research-summary.md)\n\n**Description**: Resolve 3 remaining sorry placeholders.\n\n---\n\n### 259. Other\n- **Status**: NOT STARTED (queued)\n```\n### 999. not an entry\n```\n";

    #[test]
    fn entries() {
        let d = parse_todo(TODO, &["status".into()]);
        assert_eq!(d.entries.len(), 2);
        let e = &d.entries[0];
        assert_eq!(
            (e.number, e.line, e.title.as_str()),
            (258, 5, "Resolve Truth.lean Sorries")
        );
        let s = e.status.as_ref().unwrap();
        assert_eq!(
            (s.raw.as_str(), s.line, s.bracketed),
            ("RESEARCHED", 7, true)
        );
        assert_eq!(&TODO[s.start..s.end], "RESEARCHED");
        assert_eq!(e.artifacts().len(), 2);
        assert_eq!(
            e.artifacts()[1].0,
            ".opencode/specs/258_resolve/summaries/research-summary.md"
        );
        assert_eq!(&TODO[e.meta_end..e.meta_end + 1], "\n");
        let s2 = d.entries[1].status.as_ref().unwrap();
        assert_eq!((s2.raw.as_str(), s2.bracketed), ("NOT STARTED", false));
        assert_eq!(d.entries[1].end, TODO.len());
    }

    #[test]
    fn headings() {
        assert_eq!(
            parse_task_heading("258. Title"),
            Some((258, "Title".into()))
        );
        assert_eq!(parse_task_heading("Task 7: x"), Some((7, "x".into())));
        assert_eq!(parse_task_heading("2025 Roadmap"), None);
        assert_eq!(parse_task_heading("1.5 release"), None);
    }
}
