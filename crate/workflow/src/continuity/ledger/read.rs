//! Reading the ledger: a line scanner that tolerates hand edits (see the parent module), then
//! the supersessions over the whole file.

use super::{collapse, id_of, parse_id, Decision, Ledger, LedgerWarning};
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    When,
    Agent,
    Session,
    Supersedes,
    Detail,
    Why,
    Notes,
    Ignored,
}

const FIELD_NAMES: [(&str, Field); 6] = [
    ("when", Field::When),
    ("agent", Field::Agent),
    ("session", Field::Session),
    ("supersedes", Field::Supersedes),
    ("detail", Field::Detail),
    ("why", Field::Why),
];

/// An entry being read: raw values by field.
struct Open {
    decision: Decision,
    values: [Option<String>; 7],
    field: Field,
    blanks: usize,
}

impl Open {
    fn slot(field: Field) -> Option<usize> {
        match field {
            Field::When => Some(0),
            Field::Agent => Some(1),
            Field::Session => Some(2),
            Field::Supersedes => Some(3),
            Field::Detail => Some(4),
            Field::Why => Some(5),
            Field::Notes => Some(6),
            Field::Ignored => None,
        }
    }

    /// Adds a line to `field` (after the blank lines seen since the last line).
    fn push(&mut self, field: Field, line: &str) {
        let blanks = std::mem::take(&mut self.blanks);
        let Some(i) = Open::slot(field) else { return };
        let v = self.values[i].get_or_insert_with(String::new);
        if !v.is_empty() {
            for _ in 0..=blanks {
                v.push('\n');
            }
        }
        v.push_str(line);
    }
}

/// Reads the text; also gives the fence to close when the text ends inside a code block.
pub(super) fn scan(text: &str) -> (Ledger, Option<String>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut ledger = Ledger::default();
    let mut first_lines: HashMap<u64, usize> = HashMap::new(); // id number → its first line
    let mut open: Option<Open> = None;
    let mut fence: Option<(char, usize, usize)> = None; // char, length, line
    let mut lines = text.split('\n').peekable();
    let mut no = 0;
    while let Some(raw) = lines.next() {
        no += 1;
        if raw.is_empty() && lines.peek().is_none() {
            break; // after the final newline
        }
        let line = raw.strip_suffix('\r').unwrap_or(raw).trim_end();
        let marker = fence_marker(line);
        if let Some((c, n, _)) = fence {
            if marker.is_some_and(|(mc, mn, rest)| mc == c && mn >= n && rest.trim().is_empty()) {
                fence = None;
            }
            if let Some(o) = open.as_mut() {
                o.push(Field::Notes, line);
            }
            continue;
        }
        if let Some((c, n, _)) = marker {
            fence = Some((c, n, no));
            if let Some(o) = open.as_mut() {
                o.field = Field::Notes;
                o.push(Field::Notes, line);
            }
            continue;
        }
        if let Some(level_rest) = heading(line) {
            if let Some(o) = open.take() {
                finish(&mut ledger, &mut first_lines, o);
            }
            open = decision_heading(level_rest, line, no, &mut ledger.warnings);
            continue;
        }
        let Some(o) = open.as_mut() else { continue };
        if line.is_empty() {
            o.blanks += 1;
        } else if line.starts_with(' ') || line.starts_with('\t') {
            let body = match line.strip_prefix('\t') {
                Some(b) => b,
                None => {
                    let spaces = line.len() - line.trim_start_matches(' ').len();
                    &line[spaces.min(4)..]
                }
            };
            // Notes keep their indentation; a field's value loses the continuation indent.
            let field = o.field;
            o.push(field, if field == Field::Notes { line } else { body });
        } else if let Some((field, value)) = field_line(line) {
            let Some(i) = Open::slot(field) else { continue };
            if o.values[i].is_some() {
                ledger.warnings.push(LedgerWarning {
                    line: no,
                    problem: format!(
                        "{} has a second {} field; the first is kept",
                        o.decision.id,
                        label(field)
                    ),
                });
                o.field = Field::Ignored;
                o.blanks = 0;
            } else {
                o.blanks = 0;
                o.values[i] = Some(value.to_string());
                o.field = field;
            }
        } else {
            o.field = Field::Notes;
            o.push(Field::Notes, line);
        }
    }
    let closing = fence.map(|(c, n, at)| {
        ledger.warnings.push(LedgerWarning {
            line: at,
            problem: "a code block opened here is never closed; headings after it are not read"
                .to_string(),
        });
        c.to_string().repeat(n)
    });
    if let Some(mut o) = open.take() {
        // Notes read as if the block were closed, as `append` will close it: the entry reads
        // the same before and after the append.
        if let Some(close) = &closing {
            o.push(Field::Notes, close);
        }
        finish(&mut ledger, &mut first_lines, o);
    }
    supersessions(&mut ledger);
    ledger.warnings.sort_by_key(|w| w.line);
    (ledger, closing)
}

fn label(field: Field) -> &'static str {
    match field {
        Field::When => "**When**",
        Field::Agent => "**Agent**",
        Field::Session => "**Session**",
        Field::Supersedes => "**Supersedes**",
        Field::Detail => "**Detail**",
        Field::Why => "**Why**",
        Field::Notes | Field::Ignored => "text",
    }
}

/// A code fence opening or closing line: its character, length and the rest.
fn fence_marker(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &line[indent..];
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.len() - t.trim_start_matches(c).len();
    (n >= 3).then(|| (c, n, &t[n..]))
}

/// An ATX heading at the start of the line: `Some(Some(text after "##"))` for level 2,
/// `Some(None)` for the other levels (they only end the current entry), `None` for no heading.
fn heading(line: &str) -> Option<Option<&str>> {
    let hashes = line.len() - line.trim_start_matches('#').len();
    if hashes == 0 || hashes > 6 {
        return None;
    }
    let rest = &line[hashes..];
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    Some((hashes == 2).then_some(rest))
}

/// An entry opened by a `## D-NNNN · title` heading; other headings give `None`.
fn decision_heading(
    rest: Option<&str>,
    line: &str,
    no: usize,
    warnings: &mut Vec<LedgerWarning>,
) -> Option<Open> {
    let rest = rest?.trim_start();
    let after = rest.strip_prefix("D-")?;
    let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let tail = &after[digits..];
    let separated =
        tail.is_empty() || tail.starts_with(|c: char| c.is_whitespace() || "·-–—:.".contains(c));
    let number = parse_id(&rest[..2 + digits]).filter(|_| separated);
    let Some(number) = number else {
        warnings.push(LedgerWarning {
            line: no,
            problem: format!(
                "\"{}\" looks like a decision but has no readable id",
                collapse(line)
            ),
        });
        return None;
    };
    let title = tail
        .trim_start()
        .trim_start_matches(|c: char| "·-–—:.".contains(c))
        .trim()
        .to_string();
    Some(Open {
        decision: Decision {
            id: id_of(number),
            number,
            title,
            line: no,
            ..Decision::default()
        },
        values: Default::default(),
        field: Field::Notes,
        blanks: 0,
    })
}

/// A `- **Name**: value` line of a known field (also `**Name:**`, `* `, no bold).
fn field_line(line: &str) -> Option<(Field, &str)> {
    let rest = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))?
        .trim_start();
    let (name, value) = match rest.strip_prefix("**") {
        Some(r) => {
            let end = r.find("**")?;
            let (inner, after) = (&r[..end], &r[end + 2..]);
            match inner.strip_suffix(':') {
                Some(n) => (n, after),
                None => (inner, after.trim_start().strip_prefix(':')?),
            }
        }
        None => rest.split_once(':')?,
    };
    let name = name.trim();
    let field = FIELD_NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))?
        .1;
    Some((field, value.trim()))
}

fn finish(ledger: &mut Ledger, first_lines: &mut HashMap<u64, usize>, open: Open) {
    let Open {
        mut decision,
        values,
        ..
    } = open;
    let [when, agent, session, supersedes, detail, why, notes] = values;
    let line = decision.line;
    let id = decision.id.clone();
    let mut warn = |problem: String| ledger.warnings.push(LedgerWarning { line, problem });
    let multi = |v: Option<String>| v.map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    let single = |v: Option<String>| v.map(|v| collapse(&v)).filter(|v| !v.is_empty());
    if decision.title.is_empty() {
        warn(format!("{id} has no title"));
    }
    decision.when = single(when);
    decision.agent = single(agent).map(|a| a.strip_prefix('@').unwrap_or(&a).to_string());
    decision.session = single(session).filter(|s| s != "-");
    decision.detail = multi(detail);
    decision.why = multi(why);
    decision.notes = multi(notes);
    if let Some(s) = single(supersedes) {
        match parse_id(&s) {
            Some(n) => decision.supersedes = Some(id_of(n)),
            None => warn(format!(
                "{id} supersedes \"{s}\", which is not a decision id"
            )),
        }
    }
    for (missing, name) in [
        (decision.when.is_none(), "**When**"),
        (decision.agent.is_none(), "**Agent**"),
        (decision.why.is_none(), "**Why**"),
    ] {
        if missing {
            warn(format!("{id} has no {name}"));
        }
    }
    if let Some(&at) = first_lines.get(&decision.number) {
        decision.duplicate = true;
        ledger.warnings.push(LedgerWarning {
            line,
            problem: format!("{id} is already used by the entry at line {at}; both are kept"),
        });
    }
    first_lines.entry(decision.number).or_insert(line);
    ledger.entries.push(decision);
}

/// Marks superseded entries; a supersedes naming no earlier entry is a warning.
fn supersessions(ledger: &mut Ledger) {
    let mut earlier: HashMap<u64, Vec<usize>> = HashMap::new();
    for j in 0..ledger.entries.len() {
        let e = &ledger.entries[j];
        let (id, line, number) = (e.id.clone(), e.line, e.number);
        if let Some(target) = e.supersedes.as_deref().and_then(parse_id) {
            let problem = if target == number {
                Some(format!("{id} supersedes itself; ignored"))
            } else if let Some(indices) = earlier.get(&target) {
                let mut problem = None;
                for &i in indices {
                    match &ledger.entries[i].superseded_by {
                        Some(by) => {
                            problem = Some(format!(
                                "{id} supersedes {}, already superseded by {by}",
                                id_of(target)
                            ))
                        }
                        None => ledger.entries[i].superseded_by = Some(id.clone()),
                    }
                }
                problem
            } else {
                Some(format!(
                    "{id} supersedes {}, which is not an earlier entry; ignored",
                    id_of(target)
                ))
            };
            if let Some(problem) = problem {
                ledger.warnings.push(LedgerWarning { line, problem });
            }
        }
        earlier.entry(number).or_default().push(j);
    }
}
