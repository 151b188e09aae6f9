//! A JSON reader that keeps byte spans, and surgical edits that leave every other byte of
//! the text as it was (indentation, key order, spacing).

use super::text::{indent_at, TextEdit};

/// A JSON value with its byte span in the text.
#[derive(Debug, Clone)]
pub(crate) struct JNode {
    pub start: usize,
    pub end: usize,
    pub kind: JKind,
}

/// The value itself.
#[derive(Debug, Clone)]
pub(crate) enum JKind {
    Object(Vec<JMember>),
    Array(Vec<JNode>),
    String(String),
    Number(String),
    Bool(bool),
    Null,
}

/// An object member.
#[derive(Debug, Clone)]
pub(crate) struct JMember {
    pub key: String,
    pub key_start: usize,
    pub value: JNode,
}

/// A syntax error with its 1-based position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

const MAX_DEPTH: usize = 128;

/// Parses `text` (strict JSON, optional leading BOM).
pub(crate) fn parse(text: &str) -> Result<JNode, JsonError> {
    // serde_json gives the best messages; use it to validate first.
    if let Err(e) = serde_json::from_str::<serde_json::Value>(text.trim_start_matches('\u{feff}')) {
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        let bom = usize::from(text.starts_with('\u{feff}') && e.line() == 1);
        return Err(JsonError {
            line: e.line().max(1),
            column: e.column() + bom,
            message: msg,
        });
    }
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: if text.starts_with('\u{feff}') { 3 } else { 0 },
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.pos != p.s.len() {
        return Err(p.err("trailing characters"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, m: &str) -> JsonError {
        let before = &self.s[..self.pos.min(self.s.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        JsonError {
            line,
            column: col,
            message: m.to_string(),
        }
    }
    fn ws(&mut self) {
        while self.pos < self.s.len() && matches!(self.s[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }
    fn value(&mut self, depth: usize) -> Result<JNode, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        let start = self.pos;
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        let key_start = self.pos;
                        let key = self.string()?;
                        self.ws();
                        if self.peek() != Some(b':') {
                            return Err(self.err("expected `:`"));
                        }
                        self.pos += 1;
                        self.ws();
                        let value = self.value(depth + 1)?;
                        members.push(JMember {
                            key,
                            key_start,
                            value,
                        });
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.err("expected `,` or `}`")),
                        }
                    }
                }
                Ok(JNode {
                    start,
                    end: self.pos,
                    kind: JKind::Object(members),
                })
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.err("expected `,` or `]`")),
                        }
                    }
                }
                Ok(JNode {
                    start,
                    end: self.pos,
                    kind: JKind::Array(items),
                })
            }
            Some(b'"') => {
                let s = self.string()?;
                Ok(JNode {
                    start,
                    end: self.pos,
                    kind: JKind::String(s),
                })
            }
            Some(b't') | Some(b'f') | Some(b'n') => {
                for (word, kind) in [
                    ("true", JKind::Bool(true)),
                    ("false", JKind::Bool(false)),
                    ("null", JKind::Null),
                ] {
                    if self.s[self.pos..].starts_with(word.as_bytes()) {
                        self.pos += word.len();
                        return Ok(JNode {
                            start,
                            end: self.pos,
                            kind,
                        });
                    }
                }
                Err(self.err("unexpected word"))
            }
            Some(c) if c == b'-' || c.is_ascii_digit() => {
                while self.pos < self.s.len()
                    && matches!(
                        self.s[self.pos],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.pos += 1;
                }
                Ok(JNode {
                    start,
                    end: self.pos,
                    kind: JKind::Number(self.text[start..self.pos].to_string()),
                })
            }
            _ => Err(self.err("expected a value")),
        }
    }
    fn string(&mut self) -> Result<String, JsonError> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a string"));
        }
        let start = self.pos + 1;
        let mut i = start;
        while i < self.s.len() {
            match self.s[i] {
                b'"' => break,
                b'\\' => i += 2,
                _ => i += 1,
            }
        }
        if i >= self.s.len() {
            self.pos = self.s.len();
            return Err(self.err("unterminated string"));
        }
        let raw = &self.text[start..i];
        self.pos = i + 1;
        // Let serde_json decode the escapes of the (already validated) literal.
        let lit = &self.text[start - 1..=i];
        Ok(serde_json::from_str::<String>(lit).unwrap_or_else(|_| raw.to_string()))
    }
}

impl JNode {
    /// The member `key` of an object.
    pub(crate) fn get(&self, key: &str) -> Option<&JNode> {
        match &self.kind {
            JKind::Object(m) => m.iter().find(|m| m.key == key).map(|m| &m.value),
            _ => None,
        }
    }
    /// The members of an object (empty otherwise).
    pub(crate) fn members(&self) -> &[JMember] {
        match &self.kind {
            JKind::Object(m) => m,
            _ => &[],
        }
    }
    /// The items of an array (empty otherwise).
    pub(crate) fn items(&self) -> &[JNode] {
        match &self.kind {
            JKind::Array(v) => v,
            _ => &[],
        }
    }
    /// The string value.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.kind {
            JKind::String(s) => Some(s),
            _ => None,
        }
    }
    /// A non-negative integer from a number or a numeric string.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match &self.kind {
            JKind::Number(n) => n.parse::<u64>().ok(),
            JKind::String(s) => s.trim().parse::<u64>().ok(),
            _ => None,
        }
    }
    /// A short text form for comparisons and messages (strings unquoted).
    pub(crate) fn scalar_text(&self) -> Option<String> {
        match &self.kind {
            JKind::String(s) => Some(s.clone()),
            JKind::Number(n) => Some(n.clone()),
            JKind::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

/// Quotes a string as a JSON literal.
pub(crate) fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// The indentation unit used by the text: the smallest non-zero leading whitespace of a
/// line (2 spaces if none).
pub(crate) fn indent_unit(text: &str) -> String {
    let mut best: Option<String> = None;
    for line in text.lines() {
        let ws: String = line
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        if ws.is_empty() || ws.len() == line.len() {
            continue;
        }
        if best.as_ref().map(|b| ws.len() < b.len()).unwrap_or(true) {
            best = Some(ws);
        }
    }
    best.unwrap_or_else(|| "  ".to_string())
}

/// An edit replacing a value with new JSON text.
pub(crate) fn replace_value(node: &JNode, json: String) -> TextEdit {
    TextEdit::replace(node.start, node.end, json)
}

/// An edit that sets `key` of `obj` to `json`: replaces the value if the key exists, or adds
/// the member after the last one, in the object's layout.
pub(crate) fn set_member(text: &str, obj: &JNode, key: &str, json: String, nl: &str) -> TextEdit {
    if let Some(v) = obj.get(key) {
        return replace_value(v, json);
    }
    insert_member(text, obj, key, json, nl)
}

/// An edit adding a member `key: json` at the end of `obj`.
pub(crate) fn insert_member(
    text: &str,
    obj: &JNode,
    key: &str,
    json: String,
    nl: &str,
) -> TextEdit {
    let members = obj.members();
    match members.last() {
        Some(last) => {
            let (indent, own_line) = indent_at(text, last.key_start);
            if own_line {
                TextEdit::insert(
                    last.value.end,
                    format!(",{nl}{indent}{}: {json}", quote(key)),
                )
            } else {
                TextEdit::insert(last.value.end, format!(", {}: {json}", quote(key)))
            }
        }
        None => TextEdit::replace(obj.start, obj.end, format!("{{{}: {json}}}", quote(key))),
    }
}

/// An edit appending JSON texts to an array, in the array's layout.
pub(crate) fn append_items(
    text: &str,
    arr: &JNode,
    items: &[String],
    nl: &str,
) -> Option<TextEdit> {
    if items.is_empty() {
        return None;
    }
    let existing = arr.items();
    match existing.last() {
        Some(last) => {
            let (indent, own_line) = indent_at(text, last.start);
            let mut s = String::new();
            for it in items {
                if own_line {
                    s.push_str(&format!(",{nl}{indent}{}", reindent(it, &indent, nl)));
                } else {
                    s.push_str(&format!(", {it}"));
                }
            }
            Some(TextEdit::insert(last.end, s))
        }
        None => {
            let (base, _) = indent_at(text, arr.start);
            let unit = indent_unit(text);
            let inner = format!("{base}{unit}");
            let body: Vec<String> = items
                .iter()
                .map(|it| format!("{inner}{}", reindent(it, &inner, nl)))
                .collect();
            Some(TextEdit::replace(
                arr.start,
                arr.end,
                format!("[{nl}{}{nl}{base}]", body.join(&format!(",{nl}"))),
            ))
        }
    }
}

/// Prefixes every line after the first of a multi-line JSON text with `indent`.
fn reindent(json: &str, indent: &str, nl: &str) -> String {
    let mut out = String::new();
    for (i, line) in json.split('\n').enumerate() {
        if i > 0 {
            out.push_str(nl);
            out.push_str(indent);
        }
        out.push_str(line.trim_end_matches('\r'));
    }
    out
}

/// Edits removing the items at `indices` of an array (with their separating commas).
pub(crate) fn remove_item_set(arr: &JNode, indices: &[usize]) -> Vec<TextEdit> {
    let items = arr.items();
    let remove: Vec<bool> = (0..items.len()).map(|i| indices.contains(&i)).collect();
    if items.is_empty() || !remove.iter().any(|r| *r) {
        return Vec::new();
    }
    let Some(first_kept) = remove.iter().position(|r| !r) else {
        return vec![TextEdit::replace(arr.start, arr.end, "[]".to_string())];
    };
    let mut edits = Vec::new();
    if first_kept > 0 {
        edits.push(TextEdit::replace(
            items[0].start,
            items[first_kept].start,
            String::new(),
        ));
    }
    for i in first_kept + 1..items.len() {
        if remove[i] {
            edits.push(TextEdit::replace(
                items[i - 1].end,
                items[i].end,
                String::new(),
            ));
        }
    }
    edits
}

/// Renders a JSON object from ordered `(key, json)` pairs, one member per line, for insertion
/// at a position indented by `base` (the returned text starts with `{`, no leading indent).
pub(crate) fn render_object(
    pairs: &[(String, String)],
    base: &str,
    unit: &str,
    nl: &str,
) -> String {
    let inner = format!("{base}{unit}");
    let body: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{inner}{}: {}", quote(k), reindent(v, &inner, nl)))
        .collect();
    format!("{{{nl}{}{nl}{base}}}", body.join(&format!(",{nl}")))
}

#[cfg(test)]
mod tests {
    use super::super::text::apply_edits;
    use super::*;

    #[test]
    fn spans_and_edits() {
        let t =
            "{\n  \"a\": 1,\n  \"list\": [\n    \"x\"\n  ],\n  \"e\": [],\n  \"s\": \"q\\\"\"\n}\n";
        let root = parse(t).unwrap();
        assert_eq!(root.get("s").unwrap().as_str(), Some("q\""));
        let list = root.get("list").unwrap();
        let e1 = append_items(t, list, &["\"y\"".into()], "\n").unwrap();
        let e2 = append_items(t, root.get("e").unwrap(), &["\"z\"".into()], "\n").unwrap();
        let e3 = insert_member(t, &root, "new", "true".into(), "\n");
        let out = apply_edits(t, &[e1, e2, e3]).unwrap();
        assert_eq!(
            out,
            "{\n  \"a\": 1,\n  \"list\": [\n    \"x\",\n    \"y\"\n  ],\n  \"e\": [\n    \"z\"\n  ],\n  \"s\": \"q\\\"\",\n  \"new\": true\n}\n"
        );
        serde_json::from_str::<serde_json::Value>(&out).unwrap();
    }

    #[test]
    fn removal() {
        let t = "[1, 2, 3, 4]";
        let r = parse(t).unwrap();
        let rm = |idx: &[usize]| apply_edits(t, &remove_item_set(&r, idx)).unwrap();
        assert_eq!(rm(&[0]), "[2, 3, 4]");
        assert_eq!(rm(&[3]), "[1, 2, 3]");
        assert_eq!(rm(&[1]), "[1, 3, 4]");
        assert_eq!(rm(&[0, 1, 3]), "[3]");
        assert_eq!(rm(&[1, 2]), "[1, 4]");
        assert_eq!(rm(&[0, 1, 2, 3]), "[]");
        // every subset leaves valid JSON with the kept items in order
        for mask in 0u32..16 {
            let idx: Vec<usize> = (0..4).filter(|i| mask & (1 << i) != 0).collect();
            let v: Vec<u32> = serde_json::from_str(&rm(&idx)).unwrap();
            let want: Vec<u32> = (1..=4)
                .filter(|x| !idx.contains(&((x - 1) as usize)))
                .collect();
            assert_eq!(v, want);
        }
    }

    #[test]
    fn errors_have_positions() {
        let e = parse("{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(parse("[[[[").is_err());
        let deep = "[".repeat(500) + &"]".repeat(500);
        assert!(parse(&deep).is_err());
    }
}
