//! Tokens: operators, words, descriptor numbers, newlines; comments and line continuations
//! are skipped here, and heredoc bodies are read when the newline that ends their command
//! line is lexed (which is when bash reads them too).

use super::ast::{Heredoc, Sub};
use super::parser::{Op, PResult, ParseError, Parser, Tok, TokKind};
use super::word::Acc;

impl<'a> Parser<'a> {
    /// The byte at `i` if it lies inside the region being parsed.
    #[inline(always)]
    pub(super) fn byte(&self, i: usize) -> Option<u8> {
        self.bytes.get(i).copied()
    }

    /// Skips blanks, `\`-newline continuations and comments (a `#` starting a token).
    fn skip_blanks(&mut self) {
        loop {
            match self.byte(self.pos) {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.byte(self.pos + 1) == Some(b'\n') => self.pos += 2,
                Some(b'#') => {
                    while self.byte(self.pos).is_some_and(|b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    /// Produces the next token. Always advances or returns `Eof`, so callers terminate.
    pub(super) fn lex(&mut self) -> PResult<Tok<'a>> {
        self.skip_blanks();
        let start = self.pos;
        let Some(b) = self.byte(start) else {
            return Ok(Tok {
                kind: TokKind::Eof,
                start,
                end: start,
            });
        };
        let b1 = self.byte(start + 1);
        let b2 = self.byte(start + 2);
        let (op, len) = match b {
            b'\n' => {
                self.pos += 1;
                self.read_heredocs()?;
                return Ok(Tok {
                    kind: TokKind::Newline,
                    start,
                    end: start + 1,
                });
            }
            b';' => match (b1, b2) {
                (Some(b';'), Some(b'&')) => (Op::DSemiAnd, 3),
                (Some(b';'), _) => (Op::DSemi, 2),
                (Some(b'&'), _) => (Op::SemiAnd, 2),
                _ => (Op::Semi, 1),
            },
            b'&' => match (b1, b2) {
                (Some(b'&'), _) => (Op::AndIf, 2),
                (Some(b'>'), Some(b'>')) => (Op::AndDGreat, 3),
                (Some(b'>'), _) => (Op::AndGreat, 2),
                _ => (Op::Amp, 1),
            },
            b'|' => match b1 {
                Some(b'|') => (Op::OrIf, 2),
                Some(b'&') => (Op::PipeAmp, 2),
                _ => (Op::Pipe, 1),
            },
            b'(' if b1 == Some(b'(') => (Op::DLParen, 2),
            b'(' => (Op::LParen, 1),
            b')' => (Op::RParen, 1),
            // `<(`/`>(` start a process-substitution word instead.
            b'<' if b1 != Some(b'(') => match (b1, b2) {
                (Some(b'<'), Some(b'<')) => (Op::TLess, 3),
                (Some(b'<'), Some(b'-')) => (Op::DLessDash, 3),
                (Some(b'<'), _) => (Op::DLess, 2),
                (Some(b'&'), _) => (Op::LessAnd, 2),
                (Some(b'>'), _) => (Op::LessGreat, 2),
                _ => (Op::Less, 1),
            },
            b'>' if b1 != Some(b'(') => match b1 {
                Some(b'>') => (Op::DGreat, 2),
                Some(b'&') => (Op::GreatAnd, 2),
                Some(b'|') => (Op::Clobber, 2),
                _ => (Op::Great, 1),
            },
            _ => return self.lex_word(start),
        };
        self.pos = start + len;
        Ok(Tok {
            kind: TokKind::Op(op),
            start,
            end: self.pos,
        })
    }

    fn lex_word(&mut self, start: usize) -> PResult<Tok<'a>> {
        if let Some(end) = self.brace_fd(start) {
            self.pos = end;
            return Ok(Tok {
                kind: TokKind::IoNum(u16::MAX),
                start,
                end,
            });
        }
        let w = self.scan_word()?;
        let end = self.pos;
        if end <= start {
            // Defensive: a word must consume input, or lexing could loop.
            return Err(ParseError);
        }
        if matches!(self.byte(end), Some(b'<' | b'>')) && w.raw.bytes().all(|c| c.is_ascii_digit())
        {
            let n = w.raw.parse::<u16>().unwrap_or(u16::MAX);
            return Ok(Tok {
                kind: TokKind::IoNum(n),
                start,
                end,
            });
        }
        Ok(Tok {
            kind: TokKind::Word(w),
            start,
            end,
        })
    }

    /// `{name}` directly followed by `<` or `>`: a named descriptor redirection.
    fn brace_fd(&self, start: usize) -> Option<usize> {
        if self.byte(start)? != b'{' {
            return None;
        }
        let mut i = start + 1;
        let first = self.byte(i)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        while self
            .byte(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            i += 1;
        }
        if self.byte(i)? == b'}' && matches!(self.byte(i + 1)?, b'<' | b'>') {
            Some(i + 1)
        } else {
            None
        }
    }

    /// Reads the bodies of heredocs whose command line just ended (at `self.pos`).
    pub(super) fn read_heredocs(&mut self) -> PResult<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let bytes = self.src.as_bytes();
        for p in pending {
            let body_start = self.pos;
            let mut line_start = self.pos;
            let (body_end, next) = loop {
                if line_start >= self.end {
                    break (self.end, self.end);
                }
                let rest = bytes.get(line_start..self.end).unwrap_or(&[]);
                let line_end = rest
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(self.end, |k| line_start + k);
                let line = self.src.get(line_start..line_end).unwrap_or("");
                let cmp = if p.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if cmp == p.delim {
                    break (line_start, (line_end + 1).min(self.end));
                }
                line_start = line_end + 1;
            };
            self.pos = next;
            let body = self.src.get(body_start..body_end).unwrap_or("");
            let subs = if p.quoted {
                Vec::new()
            } else {
                self.heredoc_subs(body_start, body_end)?
            };
            if let Some(h) = self.heredocs.get_mut(p.idx) {
                *h = Heredoc {
                    body,
                    quoted: p.quoted,
                    subs,
                };
            }
        }
        Ok(())
    }

    /// Collects the `$...` and backtick substitutions from `start` to the current end into
    /// `acc`, with quotes taken literally (heredoc bodies, arithmetic).
    pub(super) fn scan_subs(&mut self, acc: &mut Acc<'a>, start: usize) -> PResult<()> {
        let mut p = start;
        loop {
            match self.byte(p) {
                None => return Ok(()),
                Some(b'\\') => p += 2,
                Some(b'$') => p = self.dollar(acc, p, true)?,
                Some(b'`') => {
                    let (text, q) = self.backtick(p + 1, true)?;
                    acc.subs.push(Sub::Backtick(text));
                    p = q;
                }
                Some(_) => p += 1,
            }
        }
    }

    /// Substitutions in an unquoted heredoc body (`$(...)`, backticks; quotes are literal).
    fn heredoc_subs(&mut self, start: usize, end: usize) -> PResult<Vec<Sub<'a>>> {
        let (saved_pos, saved_end) = (self.pos, self.end);
        self.set_end(end);
        let mut acc = Acc::scratch(start);
        let result = self.scan_subs(&mut acc, start);
        self.pos = saved_pos;
        self.set_end(saved_end);
        result.map(|()| acc.subs)
    }
}

#[cfg(test)]
mod tests {
    use super::super::parser::parse;

    #[test]
    fn operators_and_words() {
        let p = parse("a&&b||c;d&e|f|&g >o 2>>e &>x &>>y <i <>rw 3<&0 >&2 >|c", 0).unwrap();
        assert_eq!(p.list.items.len(), 3);
    }

    #[test]
    fn comments_and_continuations() {
        let p = parse("echo a # git push\n# rm -rf /\necho \\\n b", 0).unwrap();
        assert_eq!(p.list.items.len(), 2);
        let p = parse("echo a#b", 0).unwrap();
        assert_eq!(p.list.items.len(), 1);
    }

    #[test]
    fn io_numbers() {
        let p = parse("cmd 2>err {fd}>x 10<in", 0).unwrap();
        let cmd = &p.list.items[0].first.head.as_ref().unwrap();
        assert_eq!(cmd.redirs.len(), 3);
        assert_eq!(cmd.redirs[0].fd, Some(2));
        assert_eq!(cmd.redirs[1].fd, Some(u16::MAX));
        assert_eq!(cmd.redirs[2].fd, Some(10));
    }
}
