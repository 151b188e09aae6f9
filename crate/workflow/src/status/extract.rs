//! Finding the status (or the statuses, one per task) in a governed file's text.
//!
//! * `markdownField`: the first status field of the file (frontmatter `status:`, then
//!   `- Status:` / `**Status**:` / `Status:` / `| Status | X |` lines outside code blocks,
//!   then the first line of a `## Status` section). The value is matched to a state as a
//!   whole, then up to a delimiter (`IN_PROGRESS (since …)`), then by its first word.
//! * `todoEntries`: per `### NNN. Title` entry, the `[MARKER]` of its `**Status**` field.
//! * `jsonTasks`: per task object, its `status` string.

use super::conditions::{Facts, JsonFacts, MdFacts};
use super::json_text::JNode;
use super::machine::{Extractor, Machine, StatusConfig};
use super::markdown::MdDoc;
use super::state_json::{parse_state, EntryKey};
use super::text::line_of;
use super::todo::parse_todo;

/// A status value found in a file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RawStatus {
    /// The value as written (marker text without brackets, field value up to a delimiter).
    pub raw: String,
    /// The machine state it names, if any.
    pub state: Option<usize>,
}

/// One status-bearing entry of a file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FoundEntry {
    /// `Single` for one-status files, `Task(n)` for entries of multi-task files.
    pub key: EntryKey,
    /// 1-based line of the status (or of the entry when it has no status).
    pub line: usize,
    /// The status, if the entry has one.
    pub status: Option<RawStatus>,
    #[serde(skip)]
    pub(crate) start: usize,
    #[serde(skip)]
    pub(crate) end: usize,
    #[serde(skip)]
    pub(crate) node: Option<JNode>,
}

/// All statuses of a file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Extraction {
    /// Entries in document order (duplicates included).
    pub entries: Vec<FoundEntry>,
    /// Why the file could not be read (invalid JSON): (line, column, message).
    pub unreadable: Option<(usize, usize, String)>,
}

const DELIMS: [&str; 9] = [" (", " - ", " — ", " – ", ",", ";", " |", " since ", "  "];

/// Matches a free-form value to a state: whole value, bracket content, up to a delimiter,
/// first word. Returns the matched text (or the best raw form) and the state.
pub(crate) fn match_state(machine: &Machine, value: &str) -> RawStatus {
    let v = value.trim();
    let mut cands: Vec<String> = vec![v.to_string()];
    if let (Some(o), Some(c)) = (v.find('['), v.find(']')) {
        if o < c {
            cands.push(v[o + 1..c].to_string());
        }
    }
    let cut = DELIMS
        .iter()
        .filter_map(|d| v.find(d))
        .min()
        .unwrap_or(v.len());
    let head = v[..cut].trim().to_string();
    cands.push(head.clone());
    if let Some(w) = v.split_whitespace().next() {
        cands.push(w.to_string());
    }
    for c in &cands {
        let c = c.trim_matches(|ch: char| {
            ch == '*' || ch == '`' || ch == '"' || ch == '\'' || ch == '[' || ch == ']'
        });
        // Only plain names: `{{DONE}}` or `DONE?` are not a state.
        if !c
            .chars()
            .all(|ch| ch.is_alphanumeric() || matches!(ch, ' ' | '_' | '-'))
        {
            continue;
        }
        if let Some(i) = machine.state_of(c) {
            return RawStatus {
                raw: c.to_string(),
                state: Some(i),
            };
        }
    }
    let raw = head
        .trim_matches(|ch: char| ch == '[' || ch == ']')
        .to_string();
    RawStatus {
        raw: if raw.is_empty() { v.to_string() } else { raw },
        state: None,
    }
}

/// Extracts the statuses of `text` with `extractor`, naming states of `machine`.
pub fn extract(machine: &Machine, extractor: &Extractor, text: &str) -> Extraction {
    match extractor {
        Extractor::MarkdownField { fields } => {
            let doc = MdDoc::parse(text);
            let entries = doc
                .field_values(fields)
                .first()
                .map(|f| FoundEntry {
                    key: EntryKey::Single,
                    line: line_of(text, f.value_start),
                    status: Some(match_state(machine, &f.value)),
                    start: 0,
                    end: text.len(),
                    node: None,
                })
                .into_iter()
                .collect();
            Extraction {
                entries,
                unreadable: None,
            }
        }
        Extractor::TodoEntries { fields } => {
            let doc = parse_todo(text, fields);
            let entries = doc
                .entries
                .iter()
                .map(|e| FoundEntry {
                    key: EntryKey::Task(e.number),
                    line: e.status.as_ref().map(|s| s.line).unwrap_or(e.line),
                    status: e.status.as_ref().map(|s| RawStatus {
                        raw: s.raw.clone(),
                        state: machine.state_of(&s.raw),
                    }),
                    start: e.start,
                    end: e.end,
                    node: None,
                })
                .collect();
            Extraction {
                entries,
                unreadable: None,
            }
        }
        Extractor::JsonTasks { .. } => match parse_state(text, extractor) {
            Err(e) => Extraction {
                entries: Vec::new(),
                unreadable: Some((e.line, e.column, e.message)),
            },
            Ok(doc) => Extraction {
                entries: doc
                    .tasks
                    .into_iter()
                    .map(|t| FoundEntry {
                        key: t.key.clone(),
                        line: t.status_line.unwrap_or(t.line),
                        status: t.status.as_ref().map(|s| RawStatus {
                            raw: s.clone(),
                            state: machine.state_of(s),
                        }),
                        start: t.node.start,
                        end: t.node.end,
                        node: Some(t.node),
                    })
                    .collect(),
                unreadable: None,
            },
        },
    }
}

/// The facts of one entry, for conditions and counters.
pub(crate) fn facts_of<'a>(
    extractor: &Extractor,
    text: &'a str,
    entry: &FoundEntry,
) -> Box<dyn Facts + 'a> {
    match extractor {
        Extractor::MarkdownField { .. } => Box::new(MdFacts(MdDoc::parse(text))),
        Extractor::TodoEntries { .. } => {
            let s = entry.start.min(text.len());
            let e = entry.end.clamp(s, text.len());
            let slice = text.get(s..e).unwrap_or("");
            Box::new(MdFacts(MdDoc::parse(slice)))
        }
        Extractor::JsonTasks { .. } => Box::new(JsonFacts(entry.node.clone().unwrap_or(JNode {
            start: 0,
            end: 0,
            kind: super::json_text::JKind::Null,
        }))),
    }
}

/// The governing machine's name and the statuses of a file, or `None` when no machine
/// governs `path`.
pub fn status_of(path: &str, text: &str, config: &StatusConfig) -> Option<(String, Extraction)> {
    let (m, b) = config.resolve(path)?;
    Some((m.name.clone(), extract(m, &b.extract, text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerant_matching() {
        let c = StatusConfig::default();
        let k = c.machine("kord-story").unwrap();
        assert_eq!(
            match_state(k, "IN_PROGRESS (since 2026-02-08)").state,
            k.state_of("IN_PROGRESS")
        );
        assert_eq!(match_state(k, "**Ready**").state, k.state_of("READY"));
        assert_eq!(match_state(k, "[Draft]").state, k.state_of("DRAFT"));
        let u = match_state(k, "{{PENDING | IN_PROGRESS}}");
        assert_eq!(u.state, None);
        let p = c.machine("proofchecker").unwrap();
        assert_eq!(
            match_state(p, "NOT STARTED").state,
            p.state_of("not_started")
        );
    }
}
