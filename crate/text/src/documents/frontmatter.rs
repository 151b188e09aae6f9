//! YAML frontmatter of `.opencode/command/*.md` files: finding it (pulldown-cmark's YAML
//! metadata block) and a small parser for the subset of YAML that routing tables need.
//!
//! # The YAML subset
//!
//! - Block mappings `key: value`, nested by indentation with spaces (any deeper indentation
//!   than the parent, the same within one mapping; 2 spaces is the convention). Tabs in
//!   indentation are an error, as in YAML.
//! - Keys: plain (`language_based`), or single/double quoted.
//! - Values: plain scalars (`lean-research-agent`, `true`), single-quoted (`'it''s'`) and
//!   double-quoted (`"a\"b"`, escapes `\" \\ \/ \n \t \r \0 \uXXXX`) scalars on one line;
//!   nothing (null, or a nested block on the following lines).
//! - Block sequences of scalars (`- item`), indented under their key or at its level.
//! - Comments: whole-line `# …` and ` # …` after a value.
//!
//! Not supported (an error naming the line, but only inside the entry that is actually read,
//! see [`parse_document`]): flow collections (`[a, b]`, `{a: 1}`), block scalars (`|`, `>`),
//! multi-line plain scalars, anchors/aliases/tags (`&a`, `*a`, `!!str`), complex keys (`? `),
//! sequences of mappings, directives.

use pulldown_cmark::{Event, MetadataBlockKind, Options, Parser, Tag, TagEnd};
use serde::Serialize;
use std::fmt;

/// A frontmatter or routing-table problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FrontmatterError {
    /// Stable code: `frontmatter_unclosed`, `frontmatter_syntax`, `frontmatter_unsupported`,
    /// or (from [`crate::routing::language`]) `routing_table_invalid`.
    pub code: &'static str,
    /// The file (as passed in).
    pub file: String,
    /// 1-based line in the file.
    pub line: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for FrontmatterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} line {}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for FrontmatterError {}

/// A parsed YAML value of the subset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Yaml {
    /// No value.
    Null,
    /// A scalar; `quoted` tells `"true"` (a string) from `true` (a boolean).
    Scalar {
        /// The text.
        text: String,
        /// Whether it was quoted.
        quoted: bool,
    },
    /// A block sequence.
    Seq(Vec<(usize, Yaml)>),
    /// A block mapping: entries (key, line, value) in file order.
    Map(Vec<(String, usize, Yaml)>),
}

/// The frontmatter of a Markdown file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontmatter {
    /// The YAML text between the `---` lines.
    pub yaml: String,
    /// File line of the first YAML line.
    pub first_line: usize,
}

fn err(code: &'static str, file: &str, line: usize, message: String) -> FrontmatterError {
    FrontmatterError {
        code,
        file: file.to_string(),
        line,
        message,
    }
}

/// Finds the frontmatter: a `---` line at the very start, YAML, then a `---` (or `...`)
/// line. `Ok(None)` when the file does not start with `---`.
pub fn extract(file: &str, text: &str) -> Result<Option<Frontmatter>, FrontmatterError> {
    let text = crate::documents::markdown::normalize(text);
    let first = text.split('\n').next().unwrap_or("");
    if first.trim_end() != "---" {
        return Ok(None);
    }
    let mut parser =
        Parser::new_ext(&text, Options::ENABLE_YAML_STYLE_METADATA_BLOCKS).into_offset_iter();
    let opened = matches!(
        parser.next(),
        Some((Event::Start(Tag::MetadataBlock(MetadataBlockKind::YamlStyle)), r)) if r.start == 0
    );
    if !opened {
        let second_blank = text.split('\n').nth(1).is_some_and(|l| l.trim().is_empty());
        let message = if second_blank {
            "the frontmatter's first line is blank; start the YAML right after the opening `---`"
        } else {
            "the frontmatter opened by `---` on line 1 is never closed; add a `---` line after the YAML"
        };
        return Err(err("frontmatter_unclosed", file, 1, message.to_string()));
    }
    let mut yaml = String::new();
    for (ev, _) in parser {
        match ev {
            Event::Text(t) => yaml.push_str(&t),
            Event::End(TagEnd::MetadataBlock(_)) => break,
            _ => {}
        }
    }
    Ok(Some(Frontmatter {
        yaml,
        first_line: 2,
    }))
}

struct Line<'a> {
    no: usize,
    indent: usize,
    content: &'a str,
}

struct YamlParser<'a> {
    file: &'a str,
    lines: Vec<Line<'a>>,
    pos: usize,
    depth: usize,
}

/// Deepest nesting of mappings read (bounded recursion on hostile input).
pub const MAX_NESTING: usize = 32;

/// Removes a ` #` comment from a plain scalar or key line (outside quotes).
fn strip_comment(s: &str) -> &str {
    let bytes = s.as_bytes();
    let mut in_single = false;
    let mut in_double = false;
    let mut prev_escape = false;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\\' if in_double => {
                prev_escape = !prev_escape;
                continue;
            }
            b'"' if !in_single && !prev_escape => in_double = !in_double,
            b'\'' if !in_double => in_single = !in_single,
            b'#' if !in_single
                && !in_double
                && (i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t') =>
            {
                return s[..i].trim_end();
            }
            _ => {}
        }
        prev_escape = false;
    }
    s.trim_end()
}

fn is_seq_item(content: &str) -> bool {
    content == "-" || content.starts_with("- ")
}

impl<'a> YamlParser<'a> {
    fn new(file: &'a str, yaml: &'a str, first_line: usize) -> Result<Self, FrontmatterError> {
        let mut lines = Vec::new();
        for (i, raw) in yaml.split('\n').enumerate() {
            let no = first_line + i;
            let trimmed = raw.trim_start_matches(' ');
            if trimmed.trim().is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if trimmed.starts_with('\t') {
                return Err(err(
                    "frontmatter_syntax",
                    file,
                    no,
                    "tab used for indentation; YAML indents with spaces".into(),
                ));
            }
            lines.push(Line {
                no,
                indent: raw.len() - trimmed.len(),
                content: trimmed.trim_end(),
            });
        }
        Ok(YamlParser {
            file,
            lines,
            pos: 0,
            depth: 0,
        })
    }

    fn e(&self, code: &'static str, line: usize, message: impl Into<String>) -> FrontmatterError {
        err(code, self.file, line, message.into())
    }

    fn block(&mut self, indent: usize) -> Result<Yaml, FrontmatterError> {
        self.depth += 1;
        let out = match self.lines.get(self.pos) {
            Some(l) if self.depth > MAX_NESTING => Err(self.e(
                "frontmatter_unsupported",
                l.no,
                format!("mappings nested deeper than {MAX_NESTING} levels are not supported"),
            )),
            Some(l) if is_seq_item(l.content) => self.seq(indent),
            Some(_) => self.map(indent),
            None => Ok(Yaml::Null),
        };
        self.depth -= 1;
        out
    }

    fn seq(&mut self, indent: usize) -> Result<Yaml, FrontmatterError> {
        let mut items = Vec::new();
        while let Some(l) = self.lines.get(self.pos) {
            if l.indent < indent || (l.indent == indent && !is_seq_item(l.content)) {
                break;
            }
            if l.indent > indent {
                return Err(self.e(
                    "frontmatter_syntax",
                    l.no,
                    "unexpected indentation inside a list",
                ));
            }
            let (no, rest) = (l.no, l.content[1..].trim_start());
            self.pos += 1;
            if rest.is_empty() {
                if matches!(self.lines.get(self.pos), Some(n) if n.indent > indent) {
                    return Err(self.e(
                        "frontmatter_unsupported",
                        no,
                        "nested blocks inside list items are not supported; put the value after `- `",
                    ));
                }
                items.push((no, Yaml::Null));
                continue;
            }
            if key_split(rest).is_some() && !rest.starts_with(['"', '\'']) {
                return Err(self.e(
                    "frontmatter_unsupported",
                    no,
                    "lists of mappings (`- key: value`) are not supported here",
                ));
            }
            let value = self.scalar(rest, no)?;
            self.no_continuation(indent, no)?;
            items.push((no, value));
        }
        Ok(Yaml::Seq(items))
    }

    fn no_continuation(&self, indent: usize, no: usize) -> Result<(), FrontmatterError> {
        match self.lines.get(self.pos) {
            Some(n) if n.indent > indent => Err(self.e(
                "frontmatter_unsupported",
                n.no,
                format!(
                    "unexpected indented line after the value on line {no}; multi-line values are not supported (quote the value on one line)"
                ),
            )),
            _ => Ok(()),
        }
    }

    fn map(&mut self, indent: usize) -> Result<Yaml, FrontmatterError> {
        let mut entries: Vec<(String, usize, Yaml)> = Vec::new();
        while let Some(l) = self.lines.get(self.pos) {
            if l.indent < indent {
                break;
            }
            if l.indent > indent {
                return Err(self.e(
                    "frontmatter_syntax",
                    l.no,
                    format!("unexpected indentation (expected {indent} spaces)"),
                ));
            }
            if is_seq_item(l.content) {
                return Err(self.e(
                    "frontmatter_syntax",
                    l.no,
                    "a list item where a `key: value` line was expected",
                ));
            }
            let (no, content) = (l.no, l.content);
            let (key, rest) = self.key(content, no)?;
            if let Some((_, prev, _)) = entries.iter().find(|(k, _, _)| *k == key) {
                return Err(self.e(
                    "frontmatter_syntax",
                    no,
                    format!("duplicate key `{key}` (first on line {prev})"),
                ));
            }
            self.pos += 1;
            let rest = strip_comment(rest).trim();
            let value = if rest.is_empty() {
                match self.lines.get(self.pos) {
                    Some(n) if n.indent > indent => {
                        let child = n.indent;
                        self.block(child)?
                    }
                    Some(n) if n.indent == indent && is_seq_item(n.content) => self.seq(indent)?,
                    _ => Yaml::Null,
                }
            } else {
                let v = self.scalar(rest, no)?;
                self.no_continuation(indent, no)?;
                v
            };
            entries.push((key, no, value));
        }
        Ok(Yaml::Map(entries))
    }

    fn key<'c>(&self, content: &'c str, no: usize) -> Result<(String, &'c str), FrontmatterError> {
        if content.starts_with("? ") || content == "?" {
            return Err(self.e(
                "frontmatter_unsupported",
                no,
                "complex keys (`? `) are not supported",
            ));
        }
        if content.starts_with(['"', '\'']) {
            let (key, after) = quoted(content).map_err(|m| self.e("frontmatter_syntax", no, m))?;
            let after = after.trim_start();
            return match after.strip_prefix(':') {
                Some(rest) if rest.is_empty() || rest.starts_with([' ', '\t']) => Ok((key, rest)),
                _ => Err(self.e(
                    "frontmatter_syntax",
                    no,
                    "expected `:` after the quoted key",
                )),
            };
        }
        match key_split(content) {
            Some((key, rest)) => {
                let key = key.trim();
                if key.starts_with(['&', '*', '!', '[', '{', '|', '>', '%', '@', '`']) {
                    return Err(self.e(
                        "frontmatter_unsupported",
                        no,
                        format!("key `{key}` uses YAML syntax that is not supported"),
                    ));
                }
                Ok((key.to_string(), rest))
            }
            None => Err(self.e(
                "frontmatter_syntax",
                no,
                format!("expected `key: value`, found `{}`", clip(content, 60)),
            )),
        }
    }

    fn scalar(&self, text: &str, no: usize) -> Result<Yaml, FrontmatterError> {
        let text = text.trim();
        if text.starts_with(['"', '\'']) {
            let (value, after) = quoted(text).map_err(|m| self.e("frontmatter_syntax", no, m))?;
            let after = after.trim();
            if !after.is_empty() && !after.starts_with('#') {
                return Err(self.e(
                    "frontmatter_syntax",
                    no,
                    format!("unexpected `{}` after the quoted value", clip(after, 30)),
                ));
            }
            return Ok(Yaml::Scalar {
                text: value,
                quoted: true,
            });
        }
        let text = strip_comment(text).trim();
        if let Some(c) = text.chars().next() {
            let what = match c {
                '[' | '{' => Some("flow collections (`[a, b]`, `{a: 1}`)"),
                '|' | '>' => Some("block scalars (`|`, `>`)"),
                '&' | '*' => Some("anchors and aliases"),
                '!' => Some("tags"),
                '%' | '@' | '`' => Some("values starting with `%`, `@` or a backtick (quote them)"),
                _ => None,
            };
            if let Some(what) = what {
                return Err(self.e(
                    "frontmatter_unsupported",
                    no,
                    format!("{what} are not supported; write a plain or quoted value"),
                ));
            }
        }
        if key_split(text).is_some() {
            return Err(self.e(
                "frontmatter_syntax",
                no,
                format!(
                    "value `{}` contains `: `; quote it or nest it on its own lines",
                    clip(text, 40)
                ),
            ));
        }
        if text.is_empty() || text == "~" || text == "null" {
            return Ok(Yaml::Null);
        }
        Ok(Yaml::Scalar {
            text: text.to_string(),
            quoted: false,
        })
    }
}

/// Splits `key: rest` at the first `:` followed by a space or the end of the line.
fn key_split(content: &str) -> Option<(&str, &str)> {
    let bytes = content.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'#' && (i == 0 || bytes[i - 1] == b' ') {
            return None;
        }
        if b == b':' && (i + 1 == bytes.len() || bytes[i + 1] == b' ' || bytes[i + 1] == b'\t') {
            if i == 0 {
                return None;
            }
            return Some((&content[..i], &content[i + 1..]));
        }
    }
    None
}

/// Parses a quoted scalar at the start of `s`; returns it and the rest of the line.
fn quoted(s: &str) -> Result<(String, &str), String> {
    let mut chars = s.char_indices();
    let Some((_, q)) = chars.next() else {
        return Err("empty value".into());
    };
    let mut out = String::new();
    while let Some((i, c)) = chars.next() {
        if q == '\'' {
            if c == '\'' {
                if s[i + 1..].starts_with('\'') {
                    chars.next();
                    out.push('\'');
                    continue;
                }
                return Ok((out, &s[i + 1..]));
            }
            out.push(c);
            continue;
        }
        match c {
            '"' => return Ok((out, &s[i + 1..])),
            '\\' => {
                let Some((_, e)) = chars.next() else { break };
                match e {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    '/' => out.push('/'),
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    'u' => {
                        let mut code = 0u32;
                        for _ in 0..4 {
                            let d = chars.next().and_then(|(_, h)| h.to_digit(16));
                            match d {
                                Some(d) => code = code * 16 + d,
                                None => return Err("`\\u` needs four hex digits".into()),
                            }
                        }
                        match char::from_u32(code) {
                            Some(ch) => out.push(ch),
                            None => return Err(format!("`\\u{code:04x}` is not a character")),
                        }
                    }
                    other => {
                        return Err(format!(
                            "unknown escape `\\{other}` in a double-quoted value"
                        ))
                    }
                }
            }
            _ => out.push(c),
        }
    }
    Err(format!(
        "the {} quote is not closed on this line",
        if q == '"' { "double" } else { "single" }
    ))
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

/// One top-level entry of a frontmatter: its key, line and value, or the error met while
/// reading its value (so a construct outside the subset only matters where it is read).
pub type TopEntry = (String, usize, Result<Yaml, FrontmatterError>);

/// Parses the top-level mapping of a frontmatter. A problem inside one entry's value is
/// kept in that entry, and parsing resumes at the next top-level key. A top-level line that
/// is not `key: …` is an error.
pub fn parse_document(file: &str, fm: &Frontmatter) -> Result<Vec<TopEntry>, FrontmatterError> {
    let mut p = YamlParser::new(file, &fm.yaml, fm.first_line)?;
    let mut out: Vec<TopEntry> = Vec::new();
    let base = p.lines.first().map_or(0, |l| l.indent);
    while let Some(l) = p.lines.get(p.pos) {
        let (no, content, indent) = (l.no, l.content, l.indent);
        if indent != base {
            // A stray line below an entry: the entry's value is broken, not the document.
            let e = p.e(
                "frontmatter_syntax",
                no,
                format!(
                    "unexpected indentation (top-level keys start in column {})",
                    base + 1
                ),
            );
            match out.last_mut() {
                Some(last) => {
                    if last.2.is_ok() {
                        last.2 = Err(e);
                    }
                    p.pos += 1;
                    while let Some(n) = p.lines.get(p.pos) {
                        if n.indent == base && !is_seq_item(n.content) {
                            break;
                        }
                        p.pos += 1;
                    }
                    continue;
                }
                None => return Err(e),
            }
        }
        let (key, rest) = p.key(content, no)?;
        p.pos += 1;
        let rest = strip_comment(rest).trim();
        let value = if rest.is_empty() {
            match p.lines.get(p.pos) {
                Some(n) if n.indent > base => {
                    let child = n.indent;
                    p.block(child)
                }
                Some(n) if n.indent == base && is_seq_item(n.content) => p.seq(base),
                _ => Ok(Yaml::Null),
            }
        } else {
            p.scalar(rest, no)
                .and_then(|v| p.no_continuation(base, no).map(|_| v))
        };
        if value.is_err() {
            // Resume at the next top-level key line.
            while let Some(n) = p.lines.get(p.pos) {
                if n.indent <= base && !is_seq_item(n.content) {
                    break;
                }
                p.pos += 1;
            }
        }
        if let Some((_, prev, _)) = out.iter().find(|(k, _, _)| *k == key) {
            return Err(p.e(
                "frontmatter_syntax",
                no,
                format!("duplicate key `{key}` (first on line {prev})"),
            ));
        }
        out.push((key, no, value));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Vec<TopEntry> {
        let fm = extract("x.md", text).unwrap().unwrap();
        parse_document("x.md", &fm).unwrap()
    }

    #[test]
    fn parses_the_seed_shape() {
        let d = doc("---\nname: research\nagent: orchestrator\ndescription: \"Conduct research\"\nrouting:\n  language_based: true   # on\n  lean: lean-research-agent\n  default: researcher\ncontext_loading:\n  strategy: lazy\n  required:\n    - \"core/standards/delegation.md\"\n    - core/system/state-management.md\n---\n# Body\n");
        assert_eq!(d.len(), 5);
        let (k, line, v) = &d[3];
        assert_eq!((k.as_str(), *line), ("routing", 5));
        let Ok(Yaml::Map(m)) = v else { panic!("{v:?}") };
        assert_eq!(
            m[0],
            (
                "language_based".into(),
                6,
                Yaml::Scalar {
                    text: "true".into(),
                    quoted: false
                }
            )
        );
        assert_eq!(m[2].0, "default");
        let Ok(Yaml::Map(cl)) = &d[4].2 else { panic!() };
        let Yaml::Seq(items) = &cl[1].2 else { panic!() };
        assert_eq!(items.len(), 2);
        assert_eq!(
            items[0].1,
            Yaml::Scalar {
                text: "core/standards/delegation.md".into(),
                quoted: true
            }
        );
    }

    #[test]
    fn errors_stay_in_their_entry() {
        let d = doc("---\ntools: [read, write]\nrouting:\n  default: a\n---\n");
        let e = d[0].2.as_ref().unwrap_err();
        assert_eq!((e.code, e.line), ("frontmatter_unsupported", 2));
        assert!(d[1].2.is_ok());
        let d = doc("---\ndescription: |\n  multi\n  line\nrouting:\n  default: a\n---\n");
        assert!(d[0].2.is_err());
        assert!(d[1].2.is_ok());
    }

    #[test]
    fn compact_sequences_and_quotes() {
        let d = doc("---\nrequired:\n- a\n- 'it''s'\nk: \"x\\\"y\\u0041\" # c\n---\n");
        let Ok(Yaml::Seq(items)) = &d[0].2 else {
            panic!()
        };
        assert_eq!(
            items[1].1,
            Yaml::Scalar {
                text: "it's".into(),
                quoted: true
            }
        );
        assert_eq!(
            d[1].2,
            Ok(Yaml::Scalar {
                text: "x\"yA".into(),
                quoted: true
            })
        );
    }

    #[test]
    fn unclosed_and_absent() {
        assert_eq!(extract("x.md", "# no frontmatter\n").unwrap(), None);
        assert_eq!(
            extract("x.md", "---\nname: a\n# never closed\n")
                .unwrap_err()
                .code,
            "frontmatter_unclosed"
        );
        assert_eq!(
            extract("x.md", "---\n\nname: a\n---\n").unwrap_err().code,
            "frontmatter_unclosed"
        );
        let fm = extract("x.md", "\u{feff}---\r\nname: a\r\n---\r\nbody")
            .unwrap()
            .unwrap();
        assert_eq!(fm.yaml, "name: a\n");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut text = String::from("---\nrouting:\n");
        for i in 1..5000 {
            text.push_str(&" ".repeat(i));
            text.push_str("k:\n");
        }
        text.push_str("---\n");
        let fm = extract("x.md", &text).unwrap().unwrap();
        let d = parse_document("x.md", &fm).unwrap();
        let e = d[0].2.as_ref().unwrap_err();
        assert_eq!((e.code, e.line), ("frontmatter_unsupported", 35));
    }

    #[test]
    fn syntax_errors_have_lines() {
        let fm = extract("x.md", "---\nrouting:\n  lean: a\n    deeper: b\n---\n")
            .unwrap()
            .unwrap();
        let d = parse_document("x.md", &fm).unwrap();
        let e = d[0].2.as_ref().unwrap_err();
        assert_eq!(e.line, 4);
        assert_eq!(e.to_string(), "x.md line 4: unexpected indented line after the value on line 3; multi-line values are not supported (quote the value on one line)");
        let fm = extract("x.md", "---\nrouting:\n\tlean: a\n---\n")
            .unwrap()
            .unwrap();
        assert_eq!(parse_document("x.md", &fm).unwrap_err().line, 3);
        let fm = extract("x.md", "---\njust text\n---\n").unwrap().unwrap();
        assert_eq!(
            parse_document("x.md", &fm).unwrap_err().code,
            "frontmatter_syntax"
        );
    }
}
