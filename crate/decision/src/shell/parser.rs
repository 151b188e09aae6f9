//! Recursive-descent parser for the bash grammar: lists, pipelines, compound commands,
//! function definitions, redirections and heredocs.
//!
//! The lexer (`lexer.rs`) and word scanner (`word.rs`) are further `impl Parser` blocks:
//! words can contain `$(...)`, which is parsed by re-entering the grammar at that point, the
//! way bash itself does it. Nesting is bounded by [`MAX_NEST`] so stack use is bounded.

use super::ast::{Command, Heredoc, Item, Kind, List, Pipeline, Redir, RedirOp, Target, Word};
use std::borrow::Cow;

/// The command cannot be parsed (unbalanced quotes or parentheses, unexpected token,
/// nesting too deep). The analyser reports it as a single opaque step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ParseError;

/// Result of parsing.
pub(crate) type PResult<T> = Result<T, ParseError>;

/// Deepest nesting (compound commands, substitutions, parameter expansions, nested scripts)
/// across one analysis. Keeps stack use small enough for a wasm stack.
pub(crate) const MAX_NEST: usize = 40;

/// Operator tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    AndIf,
    OrIf,
    Semi,
    DSemi,
    SemiAnd,
    DSemiAnd,
    Amp,
    Pipe,
    PipeAmp,
    LParen,
    DLParen,
    RParen,
    Less,
    Great,
    DGreat,
    Clobber,
    LessGreat,
    DLess,
    DLessDash,
    TLess,
    LessAnd,
    GreatAnd,
    AndGreat,
    AndDGreat,
}

impl Op {
    /// The redirection this operator introduces, if any.
    fn redirect(self) -> Option<RedirOp> {
        Some(match self {
            Op::Less => RedirOp::Read,
            Op::Great => RedirOp::Write,
            Op::DGreat => RedirOp::Append,
            Op::Clobber => RedirOp::Clobber,
            Op::LessGreat => RedirOp::ReadWrite,
            Op::DLess | Op::DLessDash => RedirOp::Heredoc,
            Op::TLess => RedirOp::HereString,
            Op::LessAnd => RedirOp::DupIn,
            Op::GreatAnd => RedirOp::DupOut,
            Op::AndGreat => RedirOp::WriteAll,
            Op::AndDGreat => RedirOp::AppendAll,
            _ => return None,
        })
    }
}

/// What a token is.
#[derive(Debug)]
pub(crate) enum TokKind<'a> {
    Word(Word<'a>),
    Op(Op),
    /// A descriptor number (or `{var}`) glued to a following redirection operator.
    IoNum(u16),
    Newline,
    Eof,
}

/// A token with its source range.
#[derive(Debug)]
pub(crate) struct Tok<'a> {
    pub kind: TokKind<'a>,
    pub start: usize,
    pub end: usize,
}

/// A heredoc whose body has not been read yet (bodies follow the next newline).
#[derive(Debug)]
pub(crate) struct Pending<'a> {
    pub idx: usize,
    pub delim: Cow<'a, str>,
    pub strip_tabs: bool,
    pub quoted: bool,
}

/// A parsed script: the command list plus the heredoc table its redirections index.
#[derive(Debug)]
pub(crate) struct Parsed<'a> {
    pub list: List<'a>,
    pub heredocs: Vec<Heredoc<'a>>,
}

/// Parser state. `end` limits the region being parsed (heredoc bodies and arithmetic are
/// scanned as sub-regions of the same source).
pub(crate) struct Parser<'a> {
    pub(super) src: &'a str,
    /// `src` bytes up to `end`: the region being parsed.
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    pub(super) end: usize,
    pub(super) nest: usize,
    pub(super) peeked: Option<Tok<'a>>,
    last_end: usize,
    /// `last_end` before the last `next` (restored by `unread`).
    prev_end: usize,
    pub(super) pending: Vec<Pending<'a>>,
    pub(super) heredocs: Vec<Heredoc<'a>>,
    /// Functions defined so far whose bodies may change directory.
    pub(super) cd_funcs: Vec<&'a str>,
}

/// First token of a command, copied out so the peek borrow ends.
enum Head<'a> {
    LParen,
    DLParen,
    Word(&'a str),
    Other,
}

/// Words that end a list when they appear where a command would start.
const CLOSERS: [&str; 8] = ["then", "elif", "else", "fi", "do", "done", "esac", "}"];

/// Parses a whole script. `nest` is the nesting already used by enclosing analysis.
pub(crate) fn parse(src: &str, nest: usize) -> PResult<Parsed<'_>> {
    let mut p = Parser {
        src,
        bytes: src.as_bytes(),
        pos: 0,
        end: src.len(),
        nest,
        peeked: None,
        last_end: 0,
        prev_end: 0,
        pending: Vec::new(),
        heredocs: Vec::new(),
        cd_funcs: Vec::new(),
    };
    if nest > MAX_NEST {
        return Err(ParseError);
    }
    let list = p.parse_list()?;
    match p.next()?.kind {
        TokKind::Eof => Ok(Parsed {
            list,
            heredocs: p.heredocs,
        }),
        _ => Err(ParseError),
    }
}

/// `NAME=`, `NAME+=`, `NAME[sub]=` at the start of a word.
pub(crate) fn is_assignment(raw: &str) -> bool {
    assignment_name_len(raw).is_some()
}

/// Length of the `NAME=` / `NAME+=` / `NAME[...]=` prefix, if `raw` starts with one.
pub(crate) fn assignment_name_len(raw: &str) -> Option<usize> {
    let b = raw.as_bytes();
    let first = *b.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let mut i = 1;
    while b
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        i += 1;
    }
    if b.get(i) == Some(&b'[') {
        while b.get(i).is_some_and(|c| *c != b']') {
            i += 1;
        }
        i += 1;
    }
    if b.get(i) == Some(&b'+') {
        i += 1;
    }
    (b.get(i) == Some(&b'=')).then_some(i + 1)
}

impl<'a> Parser<'a> {
    /// Limits parsing to `src[..end]` (heredoc bodies, arithmetic).
    pub(super) fn set_end(&mut self, end: usize) {
        self.end = end.min(self.src.len());
        self.bytes = self.src.as_bytes().get(..self.end).unwrap_or(&[]);
    }

    /// Enters one nesting level; fails beyond [`MAX_NEST`].
    pub(super) fn enter(&mut self) -> PResult<()> {
        self.nest += 1;
        if self.nest > MAX_NEST {
            Err(ParseError)
        } else {
            Ok(())
        }
    }

    /// Leaves a nesting level.
    pub(super) fn leave(&mut self) {
        self.nest = self.nest.saturating_sub(1);
    }

    pub(super) fn peek(&mut self) -> PResult<&Tok<'a>> {
        if self.peeked.is_none() {
            let t = self.lex()?;
            self.peeked = Some(t);
        }
        self.peeked.as_ref().ok_or(ParseError)
    }

    pub(super) fn next(&mut self) -> PResult<Tok<'a>> {
        let t = match self.peeked.take() {
            Some(t) => t,
            None => self.lex()?,
        };
        self.prev_end = self.last_end;
        self.last_end = t.end;
        Ok(t)
    }

    /// Puts back a token taken with `next` (the end of the previous one stays the span end).
    fn unread(&mut self, tok: Tok<'a>) {
        self.last_end = self.prev_end;
        self.peeked = Some(tok);
    }

    pub(super) fn peek_op(&mut self) -> PResult<Option<Op>> {
        Ok(match self.peek()?.kind {
            TokKind::Op(o) => Some(o),
            _ => None,
        })
    }

    /// The raw text of the next token if it is a word.
    pub(super) fn peek_word(&mut self) -> PResult<Option<&'a str>> {
        Ok(match &self.peek()?.kind {
            TokKind::Word(w) => Some(w.raw),
            _ => None,
        })
    }

    pub(super) fn peek_start(&mut self) -> PResult<usize> {
        Ok(self.peek()?.start)
    }

    pub(super) fn expect_word(&mut self) -> PResult<Word<'a>> {
        match self.next()?.kind {
            TokKind::Word(w) => Ok(w),
            _ => Err(ParseError),
        }
    }

    pub(super) fn expect_kw(&mut self, kw: &str) -> PResult<()> {
        match self.next()?.kind {
            TokKind::Word(w) if w.raw == kw => Ok(()),
            _ => Err(ParseError),
        }
    }

    pub(super) fn expect_op(&mut self, op: Op) -> PResult<()> {
        match self.next()?.kind {
            TokKind::Op(o) if o == op => Ok(()),
            _ => Err(ParseError),
        }
    }

    pub(super) fn skip_newlines(&mut self) -> PResult<()> {
        while matches!(self.peek()?.kind, TokKind::Newline) {
            self.next()?;
        }
        Ok(())
    }

    fn span(&self, start: usize) -> &'a str {
        self.src.get(start..self.last_end.max(start)).unwrap_or("")
    }

    fn at_list_end(&mut self) -> PResult<bool> {
        Ok(match &self.peek()?.kind {
            TokKind::Eof => true,
            TokKind::Op(o) => matches!(o, Op::RParen | Op::DSemi | Op::SemiAnd | Op::DSemiAnd),
            TokKind::Word(w) => CLOSERS.contains(&w.raw),
            _ => false,
        })
    }

    /// A compound list: and-or lists separated by `;`, `&`, newlines, up to a closer.
    pub(super) fn parse_list(&mut self) -> PResult<List<'a>> {
        let mut list = List::default();
        loop {
            self.skip_newlines()?;
            if self.at_list_end()? {
                break;
            }
            let mut item = self.parse_and_or()?;
            let more = match self.peek_op()? {
                Some(Op::Amp) => {
                    self.next()?;
                    item.background = true;
                    true
                }
                Some(Op::Semi) => {
                    self.next()?;
                    true
                }
                _ => matches!(self.peek()?.kind, TokKind::Newline),
            };
            if !item.background {
                let single_may_cd = |p: &Pipeline<'_>, f: &[&str]| {
                    p.tail.is_empty() && p.head.as_ref().is_some_and(|c| c.kind.may_cd(f))
                };
                list.may_cd |= single_may_cd(&item.first, &self.cd_funcs)
                    || item
                        .rest
                        .iter()
                        .any(|(_, p)| single_may_cd(p, &self.cd_funcs));
            }
            list.items.push(item);
            if !more {
                break;
            }
        }
        Ok(list)
    }

    pub(super) fn parse_and_or(&mut self) -> PResult<Item<'a>> {
        let first = self.parse_pipeline()?;
        let mut rest = Vec::new();
        loop {
            let is_or = match self.peek_op()? {
                Some(Op::AndIf) => false,
                Some(Op::OrIf) => true,
                _ => break,
            };
            self.next()?;
            self.skip_newlines()?;
            rest.push((is_or, self.parse_pipeline()?));
        }
        Ok(Item {
            first,
            rest,
            background: false,
        })
    }

    fn parse_pipeline(&mut self) -> PResult<Pipeline<'a>> {
        let mut prefixed = false;
        loop {
            match self.peek_word()? {
                Some("!") => {
                    self.next()?;
                    prefixed = true;
                }
                Some("time") => {
                    self.next()?;
                    prefixed = true;
                    while matches!(self.peek_word()?, Some("-p" | "--")) {
                        self.next()?;
                    }
                }
                _ => break,
            }
        }
        if prefixed {
            // `time` alone (or `! ;`) is a valid empty pipeline.
            let ends = self.at_list_end()?
                || matches!(self.peek()?.kind, TokKind::Newline)
                || matches!(
                    self.peek_op()?,
                    Some(Op::Semi | Op::Amp | Op::AndIf | Op::OrIf)
                );
            if ends {
                return Ok(Pipeline {
                    head: None,
                    tail: Vec::new(),
                });
            }
        }
        let head = Some(self.parse_command()?);
        let mut tail = Vec::new();
        while matches!(self.peek_op()?, Some(Op::Pipe | Op::PipeAmp)) {
            self.next()?;
            self.skip_newlines()?;
            tail.push(self.parse_command()?);
        }
        Ok(Pipeline { head, tail })
    }

    fn is_redirect_start(&mut self) -> PResult<bool> {
        Ok(match self.peek()?.kind {
            TokKind::IoNum(_) => true,
            TokKind::Op(o) => o.redirect().is_some(),
            _ => false,
        })
    }

    pub(super) fn parse_command(&mut self) -> PResult<Command<'a>> {
        let start = self.peek_start()?;
        let head = match &self.peek()?.kind {
            TokKind::Op(Op::LParen) => Head::LParen,
            TokKind::Op(Op::DLParen) => Head::DLParen,
            TokKind::Word(w) => Head::Word(w.raw),
            _ => Head::Other,
        };
        let kind = match head {
            Head::LParen => {
                self.next()?;
                self.subshell_rest()?
            }
            Head::DLParen => {
                self.next()?;
                match self.arith_end(start.saturating_add(2)) {
                    Some(end) => Kind::Arith(self.arith_word(start.saturating_add(2), end)?),
                    None => {
                        // `((cmd); cmd)`: two subshells, not arithmetic.
                        self.peeked = None;
                        self.pos = start.saturating_add(1);
                        self.subshell_rest()?
                    }
                }
            }
            Head::Word("{") => {
                self.next()?;
                self.enter()?;
                let l = self.parse_list()?;
                self.expect_kw("}")?;
                self.leave();
                Kind::Group(l)
            }
            Head::Word("if") => self.parse_if()?,
            Head::Word("while" | "until") => {
                self.next()?;
                self.enter()?;
                let cond = self.parse_list()?;
                let body = self.parse_do_body()?;
                self.leave();
                Kind::Loop { cond, body }
            }
            Head::Word("for" | "select") => self.parse_for()?,
            Head::Word("case") => self.parse_case()?,
            Head::Word("function") => {
                self.next()?;
                let name = self.expect_word()?.raw;
                if self.peek_op()? == Some(Op::LParen) {
                    self.next()?;
                    self.expect_op(Op::RParen)?;
                }
                self.function_body(name)?
            }
            Head::Word("[[") => self.parse_cond()?,
            Head::Word(raw) if CLOSERS.contains(&raw) => return Err(ParseError),
            Head::Word(_) | Head::Other => return self.parse_simple(),
        };
        let mut redirs = Vec::new();
        while self.is_redirect_start()? {
            redirs.push(self.parse_redirect()?);
        }
        Ok(Command {
            kind,
            redirs,
            span: self.span(start),
        })
    }

    fn parse_simple(&mut self) -> PResult<Command<'a>> {
        let start = self.peek_start()?;
        let mut assigns = Vec::new();
        let mut words: Vec<Word<'a>> = Vec::with_capacity(8);
        let mut redirs = Vec::new();
        loop {
            // Take the token by value (no peek-then-take) so words are moved only once.
            let tok = self.next()?;
            match tok.kind {
                TokKind::Word(w) => {
                    if words.is_empty() && is_assignment(w.raw) {
                        assigns.push(w);
                    } else {
                        words.push(w);
                    }
                }
                TokKind::IoNum(_) => {
                    self.unread(tok);
                    redirs.push(self.parse_redirect()?);
                }
                TokKind::Op(o) if o.redirect().is_some() => {
                    self.unread(tok);
                    redirs.push(self.parse_redirect()?);
                }
                TokKind::Op(Op::LParen)
                    if words.len() == 1 && assigns.is_empty() && redirs.is_empty() =>
                {
                    self.expect_op(Op::RParen)?;
                    let name = words.first().map_or("", |w| w.raw);
                    let kind = self.function_body(name)?;
                    return Ok(Command {
                        kind,
                        redirs,
                        span: self.span(start),
                    });
                }
                _ => {
                    self.unread(tok);
                    break;
                }
            }
        }
        if assigns.is_empty() && words.is_empty() && redirs.is_empty() {
            return Err(ParseError);
        }
        Ok(Command {
            kind: Kind::Simple { assigns, words },
            redirs,
            span: self.span(start),
        })
    }

    fn parse_redirect(&mut self) -> PResult<Redir<'a>> {
        let mut fd = None;
        let tok = self.next()?;
        let op = match tok.kind {
            TokKind::IoNum(n) => {
                fd = Some(n);
                match self.next()?.kind {
                    TokKind::Op(o) => o,
                    _ => return Err(ParseError),
                }
            }
            TokKind::Op(o) => o,
            _ => return Err(ParseError),
        };
        let rop = op.redirect().ok_or(ParseError)?;
        let word = self.expect_word()?;
        let target = if rop == RedirOp::Heredoc {
            let quoted = word.raw.contains(['\'', '"', '\\']);
            let idx = self.heredocs.len();
            self.heredocs.push(Heredoc {
                body: "",
                quoted,
                subs: Vec::new(),
            });
            self.pending.push(Pending {
                idx,
                delim: word.cooked,
                strip_tabs: op == Op::DLessDash,
                quoted,
            });
            Target::Heredoc(idx)
        } else {
            Target::Word(word)
        };
        Ok(Redir {
            fd,
            op: rop,
            target,
        })
    }

    /// Parses `list )` starting at `at` (just after `$(`, `<(` or `>(`); returns the list and
    /// the position after the closing parenthesis.
    pub(super) fn parse_comsub(&mut self, at: usize) -> PResult<(List<'a>, usize)> {
        self.enter()?;
        let saved = self.peeked.take();
        self.pos = at;
        let list = self.parse_list()?;
        self.expect_op(Op::RParen)?;
        self.leave();
        self.peeked = saved;
        Ok((list, self.pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Parsed<'_> {
        parse(s, 0).unwrap_or_else(|_| panic!("should parse: {s:?}"))
    }

    fn bad(s: &str) {
        assert!(parse(s, 0).is_err(), "should fail: {s:?}");
    }

    #[test]
    fn lists_and_pipelines() {
        let p = ok("a && b || c; d & e | f |& g\nh");
        assert_eq!(p.list.items.len(), 4);
        assert!(p.list.items[1].background);
        assert_eq!(p.list.items[0].rest.len(), 2);
        assert_eq!(p.list.items[2].first.iter().count(), 3);
    }

    #[test]
    fn errors() {
        bad("echo 'x");
        bad("echo \"x");
        bad("(a");
        bad("a)");
        bad("if a; then b");
        bad("echo $(a");
        bad("echo `a");
        bad("case x in a) b");
        bad("fi");
        bad("a && ");
        bad("| a");
        bad(&"(".repeat(100));
        bad(&"$(".repeat(100));
    }

    #[test]
    fn heredocs() {
        let p = ok("cat <<EOF > f\nhello $(date)\nEOF\necho done");
        assert_eq!(p.heredocs.len(), 1);
        assert_eq!(p.heredocs[0].body, "hello $(date)\n");
        assert_eq!(p.heredocs[0].subs.len(), 1);
        assert_eq!(p.list.items.len(), 2);
        let p = ok("cat <<'A' <<-B\n$(x)\nA\n\tb\n\tB\n");
        assert!(p.heredocs[0].quoted && p.heredocs[0].subs.is_empty());
        assert_eq!(p.heredocs[1].body, "\tb\n");
        // unterminated heredoc takes the rest
        let p = ok("cat <<EOF\nabc");
        assert_eq!(p.heredocs[0].body, "abc");
    }

    #[test]
    fn assignment_names() {
        assert_eq!(assignment_name_len("A=1"), Some(2));
        assert_eq!(assignment_name_len("a_1+=x"), Some(5));
        assert_eq!(assignment_name_len("a[$i]=x"), Some(6));
        assert_eq!(assignment_name_len("1a=x"), None);
        assert_eq!(assignment_name_len("a"), None);
        assert_eq!(assignment_name_len("=a"), None);
    }

    #[test]
    fn may_cd() {
        assert!(ok("cd x").list.may_cd);
        assert!(!ok("(cd x)").list.may_cd);
        assert!(!ok("cd x &").list.may_cd);
        assert!(!ok("cd x | y").list.may_cd);
        assert!(ok("{ cd x; }").list.may_cd);
        assert!(ok("f() { cd x; }; f").list.may_cd);
        assert!(!ok("echo cd").list.may_cd);
    }
}
