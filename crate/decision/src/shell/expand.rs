//! Expanding a word with the variables the command set itself (`g=git; $g push`).
//!
//! The parser keeps expansions verbatim in a word's cooked text; when some variable is
//! known, the word's source text is scanned again here with the shell's rules: quote removal,
//! `$NAME`/`${NAME}` replaced by the known value, field splitting of unquoted values at
//! blanks (`c="git push"; $c` is two words, `"$c"` one), and globbing of unquoted values
//! (`f='*.ts'; rm $f` is dynamic from the `*`). Anything unknown stays verbatim and dynamic
//! from its first character, exactly as the parser would have left it.
//!
//! Words this scanner does not handle (command substitutions, backticks, `$'...'`,
//! extglobs, array values) are left to the parser's result: the caller keeps the original
//! word, which is already dynamic where the expansion starts (fail closed).

use super::vars::{name_len, Field, Value, Vars};

/// How a word is expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A command argument or a `for` word: split into fields and globbed.
    Args,
    /// A redirection target: globbed, not split.
    Redirect,
    /// An assignment value: neither split nor globbed; `~` after `=` or `:` expands.
    Assign,
}

/// A word after expansion.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Expanded {
    /// The fields (none when an unquoted empty value was the whole word).
    pub fields: Vec<Field>,
    /// A known variable was substituted (the word reads differently from its source).
    pub changed: bool,
}

/// Accumulates fields while scanning.
struct Out<'v> {
    vars: &'v Vars,
    mode: Mode,
    fields: Vec<Field>,
    cur: String,
    dyn_at: Option<usize>,
    /// The current field exists even if empty (a quote or a character was seen).
    started: bool,
    changed: bool,
    /// Bytes that may still be produced (bounds `$X$X$X...` with a long `X`).
    room: usize,
}

impl Out<'_> {
    fn mark(&mut self) {
        self.dyn_at.get_or_insert(self.cur.len());
    }

    fn mark_at(&mut self, at: usize) {
        self.dyn_at = Some(self.dyn_at.map_or(at, |d| d.min(at)));
    }

    fn push(&mut self, s: &str) {
        self.started = true;
        if s.len() <= self.room {
            self.room -= s.len();
            self.cur.push_str(s);
            return;
        }
        // Out of room: keep what fits and leave the rest unknown.
        let mut cut = self.room;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.cur.push_str(s.get(..cut).unwrap_or(""));
        self.room = 0;
        self.mark();
    }

    fn end_field(&mut self) {
        if self.started {
            self.fields.push(Field {
                text: std::mem::take(&mut self.cur),
                dyn_at: self.dyn_at.take(),
            });
            self.started = false;
        }
    }

    /// A glob character outside quotes makes the rest of the field a pattern.
    fn glob(&mut self) {
        if self.mode != Mode::Assign {
            self.mark();
        }
    }

    /// `$NAME` (`verbatim` is its source text, kept when the value is unknown).
    fn param(&mut self, name: &str, quoted: bool, verbatim: &str) {
        match self.vars.get(name).map(Value::as_one) {
            None => {
                self.mark();
                self.push(verbatim);
            }
            Some(f) => {
                self.changed = true;
                self.insert(&f, quoted);
            }
        }
    }

    fn insert(&mut self, f: &Field, quoted: bool) {
        let known_len = f.dyn_at.unwrap_or(f.text.len());
        let known = f.text.get(..known_len).unwrap_or("");
        if quoted || self.mode == Mode::Assign {
            let base = self.cur.len();
            self.push(&f.text);
            if let Some(d) = f.dyn_at {
                self.mark_at(base + d);
            }
            return;
        }
        // Unquoted: split at blanks (Args only) and glob.
        let split = self.mode == Mode::Args;
        let mut run = 0;
        for (i, c) in known.char_indices() {
            let blank = matches!(c, ' ' | '\t' | '\n');
            let globbing = matches!(c, '*' | '?')
                || (c == '[' && known.get(i..).is_some_and(|r| r.contains(']')));
            if !blank && !globbing {
                continue;
            }
            self.push_run(known.get(run..i).unwrap_or(""));
            run = i + c.len_utf8();
            if blank && split {
                self.end_field();
            } else if blank {
                self.push(" ");
            } else {
                self.glob();
                let mut b = [0u8; 4];
                self.push(c.encode_utf8(&mut b));
            }
        }
        self.push_run(known.get(run..).unwrap_or(""));
        if f.dyn_at.is_some() {
            self.mark();
            self.push(f.text.get(known_len..).unwrap_or(""));
        }
    }

    /// Text that does not by itself start a field (an empty run inside a split value).
    fn push_run(&mut self, s: &str) {
        if !s.is_empty() {
            self.push(s);
        }
    }
}

/// Expands `raw` (a word's source text; for an assignment, the value after `=`) with the
/// known `vars`. `None` when the word uses syntax this scanner leaves to the parser. `room`
/// is the number of bytes the expansion may still produce; it is decreased by what it used.
pub(crate) fn expand(raw: &str, vars: &Vars, mode: Mode, room: &mut usize) -> Option<Expanded> {
    if raw.contains('`') || raw.contains("$(") || raw.contains("$'") || raw.contains("$[") {
        return None;
    }
    let mut o = Out {
        vars,
        mode,
        fields: Vec::new(),
        cur: String::new(),
        dyn_at: None,
        started: false,
        changed: false,
        room: *room,
    };
    let b = raw.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => match raw.get(i + 1..).and_then(|r| r.chars().next()) {
                Some('\n') => i += 2,
                Some(ch) => {
                    o.push(raw.get(i + 1..i + 1 + ch.len_utf8()).unwrap_or(""));
                    i += 1 + ch.len_utf8();
                }
                None => {
                    o.push("\\");
                    i += 1;
                }
            },
            b'\'' => {
                let close = raw.get(i + 1..)?.find('\'')?;
                o.push(raw.get(i + 1..i + 1 + close)?);
                i += close + 2;
            }
            b'"' => {
                o.started = true;
                i = dquote(&mut o, raw, i + 1)?;
            }
            b'$' => i = dollar(&mut o, raw, i, false)?,
            b'*' | b'?' => {
                o.glob();
                o.push(if c == b'*' { "*" } else { "?" });
                i += 1;
            }
            b'[' => {
                if raw.get(i..).is_some_and(|r| r.contains(']')) {
                    o.glob();
                }
                o.push("[");
                i += 1;
            }
            b'{' => {
                if mode == Mode::Args && brace_expands(raw.get(i..).unwrap_or("")) {
                    o.mark();
                }
                o.push("{");
                i += 1;
            }
            b'~' if i == 0 || (mode == Mode::Assign && b.get(i - 1) == Some(&b':')) => {
                o.mark();
                o.push("~");
                i += 1;
            }
            b'(' | b')' | b'<' | b'>' => return None, // extglob, arrays, process substitution
            _ => {
                let end = b
                    .iter()
                    .skip(i + 1)
                    .position(|c| b"\\'\"$*?[{~()<>".contains(c))
                    .map_or(b.len(), |k| i + 1 + k);
                o.push(raw.get(i..end)?);
                i = end;
            }
        }
    }
    if mode == Mode::Args {
        o.end_field();
    } else {
        o.started = true;
        o.end_field();
    }
    *room = o.room;
    Some(Expanded {
        fields: o.fields,
        changed: o.changed,
    })
}

/// `{a,b}` / `{1..3}` from here: brace expansion (dynamic), not a literal brace.
fn brace_expands(from_brace: &str) -> bool {
    match from_brace.find('}') {
        Some(close) => from_brace
            .get(..close)
            .is_some_and(|inner| inner.contains(',') || inner.contains("..")),
        None => false,
    }
}

/// Inside `"..."` from `i`; returns the index after the closing quote.
fn dquote(o: &mut Out<'_>, raw: &str, mut i: usize) -> Option<usize> {
    let b = raw.as_bytes();
    loop {
        match *b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => match b.get(i + 1) {
                Some(b'\n') => i += 2,
                Some(&(b'$' | b'"' | b'\\')) => {
                    o.push(raw.get(i + 1..i + 2)?);
                    i += 2;
                }
                _ => {
                    o.push("\\");
                    i += 1;
                }
            },
            b'$' => i = dollar(o, raw, i, true)?,
            _ => {
                let end = b
                    .iter()
                    .skip(i + 1)
                    .position(|c| matches!(c, b'"' | b'\\' | b'$'))
                    .map_or(b.len(), |k| i + 1 + k);
                o.push(raw.get(i..end)?);
                i = end;
            }
        }
    }
}

/// At a `$` at `i`; returns the index after the expansion.
fn dollar(o: &mut Out<'_>, raw: &str, i: usize, quoted: bool) -> Option<usize> {
    let after = raw.get(i + 1..)?;
    match after.bytes().next() {
        Some(b'{') => {
            let close = after.find('}')?;
            let inner = after.get(1..close)?;
            let verbatim = raw.get(i..i + 2 + close)?;
            if inner.contains(['\'', '"', '$', '\\', '{']) {
                return None;
            }
            let n = name_len(inner);
            let name = inner.get(..n).unwrap_or("");
            let op = inner.get(n..).unwrap_or("");
            let defaulting = matches!(op.get(..1), Some("-" | "=")) || op.starts_with(":-");
            let defaulting = defaulting || op.starts_with(":=");
            match o.vars.get(name) {
                _ if n == 0 => {
                    o.mark();
                    o.push(verbatim);
                }
                _ if op.is_empty() => o.param(name, quoted, verbatim),
                // `${X:-d}`, `${X=d}`...: X's value when X is known and not empty.
                Some(Value::One(f)) if defaulting && f.dyn_at.is_none() && !f.text.is_empty() => {
                    o.param(name, quoted, verbatim);
                }
                _ => {
                    o.mark();
                    o.push(verbatim);
                }
            }
            Some(i + 2 + close)
        }
        Some(b'"') if !quoted => {
            o.started = true;
            dquote(o, raw, i + 2)
        }
        Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
            let n = name_len(after);
            o.param(after.get(..n)?, quoted, raw.get(i..i + 1 + n)?);
            Some(i + 1 + n)
        }
        Some(c) if c.is_ascii_digit() || b"@*#?-$!".contains(&c) => {
            o.mark();
            o.push(raw.get(i..i + 2)?);
            Some(i + 2)
        }
        _ => {
            o.push("$");
            Some(i + 1)
        }
    }
}

/// Whether `raw` mentions `$name` or `${name...}`.
pub(crate) fn mentions(raw: &str, name: &str) -> bool {
    let mut rest = raw;
    while let Some(k) = rest.find('$') {
        let after = rest.get(k + 1..).unwrap_or("");
        let after = after.strip_prefix('{').unwrap_or(after);
        if after.starts_with(name) && name_len(after) == name.len() {
            return true;
        }
        rest = rest.get(k + 1..).unwrap_or("");
    }
    false
}

/// Appends `s` as a shell word a reader can copy: bare when it is plain, else in single
/// quotes. A dynamic word is shown as it is (it still contains its `$X`).
pub(crate) fn render(out: &mut String, s: &str, dynamic: bool) {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"_./:=@%+,-^".contains(&c) || !c.is_ascii());
    if plain || dynamic {
        out.push_str(s);
        return;
    }
    out.push('\'');
    out.push_str(&s.replace('\'', r"'\''"));
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::vars::MAX_VALUE;

    fn vars(pairs: &[(&str, &str)]) -> Vars {
        let mut v = Vars::default();
        for (n, val) in pairs {
            v.set(n, Some(Value::One(Field::lit(val))), false);
        }
        v
    }

    fn fields(raw: &str, v: &Vars, mode: Mode) -> Vec<(String, Option<usize>)> {
        let mut room = 1 << 16;
        expand(raw, v, mode, &mut room)
            .map(|e| e.fields.into_iter().map(|f| (f.text, f.dyn_at)).collect())
            .unwrap_or_default()
    }

    fn f(s: &str) -> (String, Option<usize>) {
        (s.to_string(), None)
    }

    #[test]
    fn splits_unquoted_values_only() {
        let v = vars(&[("c", "git  push"), ("e", "")]);
        assert_eq!(fields("$c", &v, Mode::Args), [f("git"), f("push")]);
        assert_eq!(fields("\"$c\"", &v, Mode::Args), [f("git  push")]);
        assert_eq!(fields("${c}", &v, Mode::Args), [f("git"), f("push")]);
        assert_eq!(fields("a$c", &v, Mode::Args), [f("agit"), f("push")]);
        assert!(fields("$e", &v, Mode::Args).is_empty());
        assert_eq!(fields("\"$e\"", &v, Mode::Args), [f("")]);
        assert_eq!(fields("$c", &v, Mode::Assign), [f("git  push")]);
        assert_eq!(fields("$c", &v, Mode::Redirect), [f("git  push")]);
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        let v = vars(&[("x", "X")]);
        assert_eq!(
            fields(r#"'$x'"$x"\$x$"x"a\ b"#, &v, Mode::Args),
            [f("$xX$xxa b")]
        );
        assert_eq!(fields(r#""a\"b\q""#, &v, Mode::Args), [f(r#"a"b\q"#)]);
    }

    #[test]
    fn unknown_parts_stay_verbatim_and_dynamic() {
        let v = vars(&[("d", "src")]);
        assert_eq!(
            fields("$d/$N/x", &v, Mode::Args),
            [("src/$N/x".to_string(), Some(4))]
        );
        assert_eq!(
            fields("${d}/${N:-y}", &v, Mode::Args),
            [("src/${N:-y}".to_string(), Some(4))]
        );
        assert_eq!(fields("${d:-y}", &v, Mode::Args), [f("src")]);
        assert_eq!(
            fields("$1$d", &v, Mode::Args),
            [("$1src".to_string(), Some(0))]
        );
        assert_eq!(fields("$(x)$d", &v, Mode::Args), []);
        assert!(expand("`x`$d", &v, Mode::Args, &mut 100).is_none());
    }

    #[test]
    fn globs_in_unquoted_values_are_patterns() {
        let v = vars(&[("p", "src/*.ts")]);
        assert_eq!(
            fields("$p", &v, Mode::Args),
            [("src/*.ts".to_string(), Some(4))]
        );
        assert_eq!(fields("\"$p\"", &v, Mode::Args), [f("src/*.ts")]);
        assert_eq!(fields("$p", &v, Mode::Assign), [f("src/*.ts")]);
        assert_eq!(fields("*.md", &v, Mode::Assign), [f("*.md")]);
        assert_eq!(
            fields("a{b,c}", &v, Mode::Args),
            [("a{b,c}".to_string(), Some(1))]
        );
        assert_eq!(fields("{}", &v, Mode::Args), [f("{}")]);
        assert_eq!(fields("[", &v, Mode::Args), [f("[")]);
        assert_eq!(
            fields("~/x", &v, Mode::Args),
            [("~/x".to_string(), Some(0))]
        );
    }

    #[test]
    fn partly_known_values_keep_their_prefix() {
        let mut v = Vars::default();
        let dir = Field {
            text: "src/$X".into(),
            dyn_at: Some(4),
        };
        v.set("d", Some(Value::One(dir)), false);
        assert_eq!(
            fields("\"$d\"/a", &v, Mode::Args),
            [("src/$X/a".to_string(), Some(4))]
        );
        assert_eq!(
            fields("$d", &v, Mode::Args),
            [("src/$X".to_string(), Some(4))]
        );
    }

    #[test]
    fn output_is_bounded() {
        let v = vars(&[("x", &"a".repeat(MAX_VALUE))]);
        let mut room = 10_000;
        let e = expand(&"$x".repeat(100), &v, Mode::Args, &mut room).unwrap();
        assert_eq!(room, 0);
        assert_eq!(e.fields[0].text.len(), 10_000);
        assert_eq!(e.fields[0].dyn_at, Some(10_000));
    }

    #[test]
    fn mentions_names() {
        assert!(mentions("a$f", "f") && mentions("\"${f}\"", "f") && mentions("${f:-x}", "f"));
        assert!(!mentions("$fx", "f") && !mentions("f", "f"));
    }

    #[test]
    fn renders_copyable_words() {
        let mut s = String::new();
        render(&mut s, "git", false);
        s.push(' ');
        render(&mut s, "a b", false);
        s.push(' ');
        render(&mut s, "it's", false);
        s.push(' ');
        render(&mut s, "", false);
        s.push(' ');
        render(&mut s, "$X y", true);
        assert_eq!(s, r"git 'a b' 'it'\''s' '' $X y");
    }
}
