//! Word scanning: finds where a word ends, removes quotes, decodes `$'...'`, records the
//! first statically-unknown character (expansion, glob, tilde, brace expansion) and parses
//! the command substitutions it contains.
//!
//! The cooked value stays a borrowed slice of the source unless quoting actually changed it,
//! so most words cost no allocation.

use super::ast::{Sub, Word};
use super::parser::{PResult, ParseError, Parser};
use std::borrow::Cow;

/// Accumulates one word's cooked text, dynamic position and substitutions.
pub(super) struct Acc<'a> {
    start: usize,
    /// Start of the source run not yet copied into `owned`.
    run: usize,
    owned: Option<String>,
    /// Whether cooked text matters (false while scanning inside `${...}` or heredoc bodies).
    cook: bool,
    dyn_at: Option<usize>,
    pub(super) subs: Vec<Sub<'a>>,
}

impl<'a> Acc<'a> {
    fn new(start: usize) -> Self {
        Acc {
            start,
            run: start,
            owned: None,
            cook: true,
            dyn_at: None,
            subs: Vec::new(),
        }
    }

    /// An accumulator that only collects substitutions.
    pub(super) fn scratch(start: usize) -> Self {
        Acc {
            cook: false,
            ..Acc::new(start)
        }
    }

    /// Length the cooked text would have if the word ended at source position `pos`.
    fn cooked_len(&self, pos: usize) -> usize {
        self.owned.as_ref().map_or(0, String::len) + pos.saturating_sub(self.run)
    }

    fn mark_dyn(&mut self, pos: usize) {
        if self.dyn_at.is_none() {
            self.dyn_at = Some(self.cooked_len(pos));
        }
    }

    fn dyn_min(&mut self, at: usize) {
        self.dyn_at = Some(self.dyn_at.map_or(at, |d| d.min(at)));
    }

    /// Replaces source bytes `from..to` with `with` in the cooked text.
    fn replace(&mut self, src: &str, from: usize, to: usize, with: &str) {
        if !self.cook {
            return;
        }
        let s = self.owned.get_or_insert_with(String::new);
        s.push_str(src.get(self.run..from).unwrap_or(""));
        s.push_str(with);
        self.run = to;
    }

    fn skip(&mut self, src: &str, from: usize, to: usize) {
        self.replace(src, from, to, "");
    }

    #[inline(always)]
    fn finish(self, src: &'a str, end: usize) -> Word<'a> {
        let raw = src.get(self.start..end).unwrap_or("");
        let cooked = match self.owned {
            Some(mut s) => {
                s.push_str(src.get(self.run..end).unwrap_or(""));
                Cow::Owned(s)
            }
            None => Cow::Borrowed(raw),
        };
        Word {
            raw,
            cooked,
            dyn_at: self.dyn_at,
            subs: self.subs,
        }
    }
}

/// Bytes that end a word or need attention inside one; every other byte (including all
/// non-ASCII) is copied as is. Built by the compiler (the indexing runs at compile time, so
/// it cannot panic at run time).
#[allow(clippy::indexing_slicing)]
static SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut rest: &[u8] = b" \t\n;&|()<>\\'\"$`*?+@!~[]{},.";
    while let [c, tail @ ..] = rest {
        table[*c as usize] = true;
        rest = tail;
    }
    table
};

#[inline(always)]
fn is_special(b: u8) -> bool {
    // a u8 index into a 256-entry table: the bounds check is optimised away
    SPECIAL.get(usize::from(b)).copied().unwrap_or(false)
}

/// Length of the UTF-8 character whose first byte is `b`.
fn char_len(b: u8) -> usize {
    match b {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

impl<'a> Parser<'a> {
    /// Scans an unquoted word starting at `self.pos`; leaves `self.pos` after it.
    pub(super) fn scan_word(&mut self) -> PResult<Word<'a>> {
        let start = self.pos;
        let src = self.src;
        let mut acc = Acc::new(start);
        let mut p = start;
        // Brace expansion `{a,b}` / `{1..3}` and bracket globs `[ab]` are only dynamic once
        // closed, so remember where they opened.
        let (mut brace_depth, mut brace_open, mut brace_sep) = (0u32, 0usize, false);
        let mut bracket_open: Option<usize> = None;
        loop {
            // Skip ordinary bytes in one tight loop.
            if let Some(rest) = self.bytes.get(p..) {
                p += rest
                    .iter()
                    .position(|&c| is_special(c))
                    .unwrap_or(rest.len());
            }
            let Some(b) = self.byte(p) else {
                break;
            };
            match b {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b')' => break,
                b'<' | b'>' => {
                    if self.byte(p + 1) != Some(b'(') {
                        break;
                    }
                    acc.mark_dyn(p);
                    let (list, q) = self.parse_comsub(p + 2)?;
                    acc.subs.push(Sub::Parsed(list));
                    p = q;
                }
                b'(' => {
                    let prefix = src.get(start..p).unwrap_or("");
                    if super::parser::assignment_name_len(prefix) != Some(prefix.len()) {
                        break;
                    }
                    // `name=(a b c)` array assignment.
                    acc.mark_dyn(p);
                    p = self.balanced(&mut acc, p)?;
                }
                b'\\' => match self.byte(p + 1) {
                    Some(b'\n') => {
                        acc.skip(src, p, p + 2);
                        p += 2;
                    }
                    Some(c) => {
                        acc.skip(src, p, p + 1);
                        p = (p + 1 + char_len(c)).min(self.end);
                    }
                    None => p += 1,
                },
                b'\'' => {
                    let close = self.find_byte(p + 1, b'\'').ok_or(ParseError)?;
                    acc.skip(src, p, p + 1);
                    acc.skip(src, close, close + 1);
                    p = close + 1;
                }
                b'"' => {
                    acc.skip(src, p, p + 1);
                    let close = self.dquote(&mut acc, p + 1)?;
                    acc.skip(src, close, close + 1);
                    p = close + 1;
                }
                b'$' => p = self.dollar(&mut acc, p, false)?,
                b'`' => {
                    acc.mark_dyn(p);
                    let (text, q) = self.backtick(p + 1, false)?;
                    acc.subs.push(Sub::Backtick(text));
                    p = q;
                }
                b'*' | b'?' | b'+' | b'@' | b'!'
                    if self.byte(p + 1) == Some(b'(') && !(b == b'!' && p == start) =>
                {
                    // extglob pattern `@(a|b)`
                    acc.mark_dyn(p);
                    p = self.balanced(&mut acc, p + 1)?;
                }
                b'*' | b'?' => {
                    acc.mark_dyn(p);
                    p += 1;
                }
                b'~' if p == start => {
                    acc.mark_dyn(p);
                    p += 1;
                }
                b'[' => {
                    bracket_open.get_or_insert(acc.cooked_len(p));
                    p += 1;
                }
                b']' => {
                    if let Some(at) = bracket_open {
                        acc.dyn_min(at);
                    }
                    p += 1;
                }
                b'{' => {
                    if brace_depth == 0 {
                        brace_open = acc.cooked_len(p);
                        brace_sep = false;
                    }
                    brace_depth = brace_depth.saturating_add(1);
                    p += 1;
                }
                b',' => {
                    brace_sep |= brace_depth > 0;
                    p += 1;
                }
                b'.' => {
                    brace_sep |= brace_depth > 0 && self.byte(p + 1) == Some(b'.');
                    p += 1;
                }
                b'}' => {
                    if brace_depth > 0 {
                        brace_depth -= 1;
                        if brace_depth == 0 && brace_sep {
                            acc.dyn_min(brace_open);
                        }
                    }
                    p += 1;
                }
                _ => p += 1,
            }
        }
        self.pos = p;
        Ok(acc.finish(src, p))
    }

    fn find_byte(&self, from: usize, needle: u8) -> Option<usize> {
        let hay = self.bytes.get(from..)?;
        hay.iter().position(|&c| c == needle).map(|k| from + k)
    }

    /// Inside `"..."` from `p`; returns the position of the closing quote.
    fn dquote(&mut self, acc: &mut Acc<'a>, mut p: usize) -> PResult<usize> {
        let src = self.src;
        loop {
            match self.byte(p) {
                None => return Err(ParseError),
                Some(b'"') => return Ok(p),
                Some(b'\\') => match self.byte(p + 1) {
                    Some(b'\n') => {
                        acc.skip(src, p, p + 2);
                        p += 2;
                    }
                    Some(b'$' | b'`' | b'"' | b'\\') => {
                        acc.skip(src, p, p + 1);
                        p += 2;
                    }
                    Some(_) => p += 1,
                    None => return Err(ParseError),
                },
                Some(b'$') => p = self.dollar(acc, p, true)?,
                Some(b'`') => {
                    acc.mark_dyn(p);
                    let (text, q) = self.backtick(p + 1, true)?;
                    acc.subs.push(Sub::Backtick(text));
                    p = q;
                }
                Some(_) => p += 1,
            }
        }
    }

    /// At a `$`: expansions, `$'...'`, `$"..."`; returns the position after it.
    pub(super) fn dollar(&mut self, acc: &mut Acc<'a>, p: usize, in_dq: bool) -> PResult<usize> {
        let src = self.src;
        match self.byte(p + 1) {
            Some(b'\'') if !in_dq => {
                let (text, q) = self.ansi_c(p + 2)?;
                acc.replace(src, p, q, &text);
                Ok(q)
            }
            Some(b'"') if !in_dq => {
                acc.skip(src, p, p + 2);
                let close = self.dquote(acc, p + 2)?;
                acc.skip(src, close, close + 1);
                Ok(close + 1)
            }
            Some(b'(') => {
                acc.mark_dyn(p);
                if self.byte(p + 2) == Some(b'(') {
                    if let Some(end) = self.arith_end(p + 3) {
                        let w = self.arith_word(p + 3, end)?;
                        acc.subs.extend(w.subs);
                        return Ok(end);
                    }
                }
                let (list, q) = self.parse_comsub(p + 2)?;
                acc.subs.push(Sub::Parsed(list));
                Ok(q)
            }
            Some(b'{') => {
                acc.mark_dyn(p);
                self.param(acc, p + 2, in_dq)
            }
            Some(b'[') => {
                // obsolete `$[ arithmetic ]`
                acc.mark_dyn(p);
                Ok(self.find_byte(p + 2, b']').ok_or(ParseError)? + 1)
            }
            Some(c) if c.is_ascii_digit() => {
                acc.mark_dyn(p);
                Ok(p + 2)
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                acc.mark_dyn(p);
                let mut q = p + 1;
                while self
                    .byte(q)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                {
                    q += 1;
                }
                Ok(q)
            }
            Some(b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') => {
                acc.mark_dyn(p);
                Ok(p + 2)
            }
            _ => Ok(p + 1),
        }
    }

    /// `${...}` body from `p` (after `${`); returns the position after the closing `}`.
    /// Its text stays verbatim in the cooked word; only substitutions inside matter.
    fn param(&mut self, acc: &mut Acc<'a>, mut p: usize, in_dq: bool) -> PResult<usize> {
        self.enter()?;
        let mut inner = Acc::scratch(p);
        let mut depth = 1u32;
        let end = loop {
            match self.byte(p) {
                None => return Err(ParseError),
                Some(b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        break p + 1;
                    }
                    p += 1;
                }
                Some(b'{') => {
                    depth = depth.saturating_add(1);
                    p += 1;
                }
                Some(b'\\') => p += 2,
                Some(b'\'') if !in_dq => p = self.find_byte(p + 1, b'\'').ok_or(ParseError)? + 1,
                Some(b'"') => p = self.dquote(&mut inner, p + 1)? + 1,
                Some(b'$') => p = self.dollar(&mut inner, p, in_dq)?,
                Some(b'`') => {
                    let (text, q) = self.backtick(p + 1, in_dq)?;
                    inner.subs.push(Sub::Backtick(text));
                    p = q;
                }
                Some(_) => p += 1,
            }
        };
        self.leave();
        acc.subs.append(&mut inner.subs);
        Ok(end)
    }

    /// Backtick body from `p` (after the opening backtick): unescaped text and the position
    /// after the closing backtick.
    pub(super) fn backtick(&self, mut p: usize, in_dq: bool) -> PResult<(String, usize)> {
        let src = self.src;
        let mut out = String::new();
        let mut run = p;
        loop {
            match self.byte(p) {
                None => return Err(ParseError),
                Some(b'`') => {
                    out.push_str(src.get(run..p).unwrap_or(""));
                    return Ok((out, p + 1));
                }
                Some(b'\\') => match self.byte(p + 1) {
                    Some(b'$' | b'`' | b'\\') => {
                        out.push_str(src.get(run..p).unwrap_or(""));
                        run = p + 1;
                        p += 2;
                    }
                    Some(b'"') if in_dq => {
                        out.push_str(src.get(run..p).unwrap_or(""));
                        run = p + 1;
                        p += 2;
                    }
                    Some(_) => p += 1,
                    None => return Err(ParseError),
                },
                Some(_) => p += 1,
            }
        }
    }

    /// Decodes `$'...'` from `p` (after `$'`): text and the position after the closing quote.
    fn ansi_c(&self, mut p: usize) -> PResult<(String, usize)> {
        let mut out = String::new();
        loop {
            match self.byte(p) {
                None => return Err(ParseError),
                Some(b'\'') => return Ok((out, p + 1)),
                Some(b'\\') => {
                    let c = self.byte(p + 1).ok_or(ParseError)?;
                    p += 2;
                    let simple = match c {
                        b'n' => Some('\n'),
                        b't' => Some('\t'),
                        b'r' => Some('\r'),
                        b'a' => Some('\x07'),
                        b'b' => Some('\x08'),
                        b'e' | b'E' => Some('\x1b'),
                        b'f' => Some('\x0c'),
                        b'v' => Some('\x0b'),
                        b'\\' | b'\'' | b'"' | b'?' => Some(char::from(c)),
                        _ => None,
                    };
                    if let Some(ch) = simple {
                        out.push(ch);
                        continue;
                    }
                    let (radix, max, start) = match c {
                        b'x' => (16, 2, p),
                        b'u' => (16, 4, p),
                        b'U' => (16, 8, p),
                        b'0'..=b'7' => (8, 3, p - 1),
                        b'c' => {
                            let k = self.byte(p).ok_or(ParseError)?;
                            out.push(char::from(k & 0x1f));
                            p += 1;
                            continue;
                        }
                        _ => {
                            // Unknown escape: kept as written.
                            out.push('\\');
                            p -= 1;
                            continue;
                        }
                    };
                    let mut value: u32 = 0;
                    let mut q = start;
                    while q < start + max {
                        match self.byte(q).and_then(|d| char::from(d).to_digit(radix)) {
                            Some(d) => value = value.saturating_mul(radix).saturating_add(d),
                            None => break,
                        }
                        q += 1;
                    }
                    if q == start {
                        out.push('\\');
                        out.push(char::from(c));
                    } else if matches!(c, b'u' | b'U') {
                        out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
                    } else {
                        out.push(char::from((value & 0xff) as u8));
                    }
                    p = q;
                }
                Some(b) => {
                    let n = char_len(b);
                    match self.src.get(p..p + n) {
                        Some(s) => out.push_str(s),
                        None => out.push('\u{fffd}'),
                    }
                    p += n;
                }
            }
        }
    }

    /// Skips a parenthesised region starting at the `(` at `p` (extglob, array values),
    /// collecting substitutions; returns the position after the matching `)`.
    fn balanced(&mut self, acc: &mut Acc<'a>, mut p: usize) -> PResult<usize> {
        self.enter()?;
        let mut inner = Acc::scratch(p);
        let mut depth = 0u32;
        let end = loop {
            match self.byte(p) {
                None => return Err(ParseError),
                Some(b'(') => {
                    depth = depth.saturating_add(1);
                    p += 1;
                }
                Some(b')') => {
                    depth = depth.saturating_sub(1);
                    p += 1;
                    if depth == 0 {
                        break p;
                    }
                }
                Some(b'\\') => p += 2,
                Some(b'\'') => p = self.find_byte(p + 1, b'\'').ok_or(ParseError)? + 1,
                Some(b'"') => p = self.dquote(&mut inner, p + 1)? + 1,
                Some(b'$') => p = self.dollar(&mut inner, p, false)?,
                Some(b'`') => {
                    let (text, q) = self.backtick(p + 1, false)?;
                    inner.subs.push(Sub::Backtick(text));
                    p = q;
                }
                Some(_) => p += 1,
            }
        };
        self.leave();
        acc.subs.append(&mut inner.subs);
        Ok(end)
    }

    /// If the text from `p` (just after `((` or `$((`) closes with `))` before any unmatched
    /// `)`, returns the position after `))`: it is arithmetic, not nested subshells.
    /// Purely lexical so that deciding never re-parses.
    pub(super) fn arith_end(&self, mut p: usize) -> Option<usize> {
        let mut depth = 0u32;
        loop {
            match self.byte(p)? {
                b'(' => depth = depth.saturating_add(1),
                b')' if depth == 0 => {
                    return (self.byte(p + 1)? == b')').then_some(p + 2);
                }
                b')' => depth -= 1,
                b'\\' => p += 1,
                b'\'' => p = self.find_byte(p + 1, b'\'')?,
                b'"' => {
                    p += 1;
                    loop {
                        match self.byte(p)? {
                            b'\\' => p += 1,
                            b'"' => break,
                            _ => {}
                        }
                        p += 1;
                    }
                }
                _ => {}
            }
            p += 1;
        }
    }

    /// The arithmetic text `from..end-2` as a word, with the substitutions it contains.
    pub(super) fn arith_word(&mut self, from: usize, end: usize) -> PResult<Word<'a>> {
        let inner_end = end.saturating_sub(2).max(from);
        let (saved_pos, saved_end) = (self.pos, self.end);
        self.enter()?;
        self.set_end(inner_end);
        let mut acc = Acc::scratch(from);
        let result = self.scan_subs(&mut acc, from);
        self.set_end(saved_end);
        self.pos = end.max(saved_pos);
        self.leave();
        result?;
        let raw = self.src.get(from..inner_end).unwrap_or("");
        Ok(Word {
            raw,
            cooked: Cow::Borrowed(raw),
            dyn_at: Some(0),
            subs: acc.subs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::ast::{Kind, Word};
    use super::super::parser::{parse, Parsed};

    fn words<'a>(p: &'a Parsed<'a>) -> &'a [Word<'a>] {
        match &p.list.items[0].first.head.as_ref().unwrap().kind {
            Kind::Simple { words, .. } => words,
            _ => panic!("not simple"),
        }
    }

    fn cooked(src: &str) -> Vec<(String, Option<usize>)> {
        let p = parse(src, 0).unwrap();
        words(&p)
            .iter()
            .map(|w| (w.cooked.to_string(), w.dyn_at))
            .collect()
    }

    #[test]
    fn quote_removal() {
        let c = cooked(r#"'git' \git g"i"t $'\x67it' "a b" 'c'"d"e $"loc" a\ b"#);
        let names: Vec<_> = c.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(
            names,
            ["git", "git", "git", "git", "a b", "cde", "loc", "a b"]
        );
        assert!(c.iter().all(|(_, d)| d.is_none()));
    }

    #[test]
    fn ansi_c_escapes() {
        let c = cooked(r"$'a\nb\t\\\'\101\u00e9\cA\q'");
        assert_eq!(c[0].0, "a\nb\t\\'Aé\u{1}\\q");
    }

    #[test]
    fn dynamic_positions() {
        let c =
            cooked(r#"$X a$X "a$(b)" '*' *.rs ~/x a{b,c} {} a[bc] [ x"$y" `d` ${a:-b} $((1+2))"#);
        let d: Vec<_> = c.iter().map(|(_, d)| *d).collect();
        assert_eq!(
            d,
            [
                Some(0),
                Some(1),
                Some(1),
                None,
                Some(0),
                Some(0),
                Some(1),
                None,
                Some(1),
                None,
                Some(1),
                Some(0),
                Some(0),
                Some(0)
            ]
        );
    }

    #[test]
    fn substitutions_collected() {
        let p = parse(
            r#"echo "$(git push)" `rm x` <(a) ${x:-$(b)} $(( $(c) + 1 )) a=(x $(d))"#,
            0,
        )
        .unwrap();
        let n: usize = words(&p).iter().map(|w| w.subs.len()).sum();
        assert_eq!(n, 6);
    }

    #[test]
    fn nested_quotes_in_comsub() {
        let p = parse(r#"echo "$(echo ")" "x")" done"#, 0).unwrap();
        assert_eq!(words(&p).len(), 3);
        let p = parse("echo $(case x in a) echo;; esac) z", 0).unwrap();
        assert_eq!(words(&p).len(), 3);
    }

    #[test]
    fn backtick_unescape() {
        let p = parse(r#"echo `echo \`x\` \$y`"#, 0).unwrap();
        match &words(&p)[1].subs[0] {
            super::Sub::Backtick(t) => assert_eq!(t, "echo `x` $y"),
            _ => panic!(),
        }
    }
}
