//! Compound commands: subshells, `if`, loops, `for`/`select`, `case`, `[[ ]]` and function
//! bodies. Each consumes its keyword and closing word and counts one nesting level.

use super::ast::{Kind, List};
use super::parser::{Op, PResult, ParseError, Parser, TokKind};

impl<'a> Parser<'a> {
    pub(super) fn subshell_rest(&mut self) -> PResult<Kind<'a>> {
        self.enter()?;
        let l = self.parse_list()?;
        self.expect_op(Op::RParen)?;
        self.leave();
        Ok(Kind::Subshell(l))
    }

    /// Body of a function definition: any command (bash requires a compound one).
    pub(super) fn function_body(&mut self, name: &'a str) -> PResult<Kind<'a>> {
        self.skip_newlines()?;
        self.enter()?;
        let body = self.parse_command()?;
        self.leave();
        if body.kind.may_cd(&self.cd_funcs) {
            self.cd_funcs.push(name);
        }
        Ok(Kind::Function {
            name,
            body: Box::new(body),
        })
    }

    pub(super) fn parse_if(&mut self) -> PResult<Kind<'a>> {
        self.next()?;
        self.enter()?;
        let mut arms = Vec::new();
        let mut otherwise = None;
        loop {
            let cond = self.parse_list()?;
            self.expect_kw("then")?;
            let body = self.parse_list()?;
            arms.push((cond, body));
            match self.next()?.kind {
                TokKind::Word(w) if w.raw == "elif" => continue,
                TokKind::Word(w) if w.raw == "else" => {
                    otherwise = Some(self.parse_list()?);
                    self.expect_kw("fi")?;
                    break;
                }
                TokKind::Word(w) if w.raw == "fi" => break,
                _ => return Err(ParseError),
            }
        }
        self.leave();
        Ok(Kind::If { arms, otherwise })
    }

    /// `do list done`, or the `{ list }` form bash also accepts after `for`.
    pub(super) fn parse_do_body(&mut self) -> PResult<List<'a>> {
        self.skip_newlines()?;
        match self.next()?.kind {
            TokKind::Word(w) if w.raw == "do" => {
                let l = self.parse_list()?;
                self.expect_kw("done")?;
                Ok(l)
            }
            TokKind::Word(w) if w.raw == "{" => {
                let l = self.parse_list()?;
                self.expect_kw("}")?;
                Ok(l)
            }
            _ => Err(ParseError),
        }
    }

    pub(super) fn parse_for(&mut self) -> PResult<Kind<'a>> {
        self.next()?;
        self.enter()?;
        let mut words = Vec::new();
        let mut var = None;
        if self.peek_op()? == Some(Op::DLParen) {
            let start = self.peek_start()?;
            self.next()?;
            let end = self.arith_end(start.saturating_add(2)).ok_or(ParseError)?;
            words.push(self.arith_word(start.saturating_add(2), end)?);
        } else {
            var = Some(self.expect_word()?.raw);
            self.skip_newlines()?;
            if self.peek_word()? == Some("in") {
                self.next()?;
                while matches!(self.peek()?.kind, TokKind::Word(_)) {
                    words.push(self.expect_word()?);
                }
            }
        }
        if self.peek_op()? == Some(Op::Semi) {
            self.next()?;
        }
        let body = self.parse_do_body()?;
        self.leave();
        Ok(Kind::For { var, words, body })
    }

    pub(super) fn parse_case(&mut self) -> PResult<Kind<'a>> {
        self.next()?;
        self.enter()?;
        let subject = self.expect_word()?;
        self.skip_newlines()?;
        self.expect_kw("in")?;
        let mut arms = Vec::new();
        loop {
            self.skip_newlines()?;
            if self.peek_word()? == Some("esac") {
                self.next()?;
                break;
            }
            if self.peek_op()? == Some(Op::LParen) {
                self.next()?;
            }
            let mut pats = Vec::new();
            loop {
                pats.push(self.expect_word()?);
                match self.next()?.kind {
                    TokKind::Op(Op::Pipe) => continue,
                    TokKind::Op(Op::RParen) => break,
                    _ => return Err(ParseError),
                }
            }
            let body = self.parse_list()?;
            arms.push((pats, body));
            match self.peek_op()? {
                Some(Op::DSemi | Op::SemiAnd | Op::DSemiAnd) => {
                    self.next()?;
                }
                _ => {
                    if self.peek_word()? != Some("esac") {
                        return Err(ParseError);
                    }
                }
            }
        }
        self.leave();
        Ok(Kind::Case { subject, arms })
    }

    /// `[[ ... ]]`: operators inside are not redirections or separators.
    pub(super) fn parse_cond(&mut self) -> PResult<Kind<'a>> {
        self.next()?;
        let mut words = Vec::new();
        loop {
            match self.next()?.kind {
                TokKind::Word(w) if w.raw == "]]" => break,
                TokKind::Word(w) => words.push(w),
                TokKind::Eof => return Err(ParseError),
                _ => {}
            }
        }
        Ok(Kind::Cond(words))
    }
}

#[cfg(test)]
mod tests {
    use super::super::parser::parse;

    fn ok(s: &str) {
        assert!(parse(s, 0).is_ok(), "should parse: {s:?}");
    }

    #[test]
    fn compounds() {
        ok("if a; then b; elif c; then d; else e; fi");
        ok("while a; do b; done; until a; do b; done");
        ok("for x in a b c; do echo $x; done");
        ok("for x; do :; done");
        ok("for ((i=0; i<3; i++)); do echo; done");
        ok("for x in a; { echo; }");
        ok("case $x in a|b) echo;; (c) d;& *) e;;& esac");
        ok("case x in esac");
        ok("f() { echo; }; function g { :; }; function h() ( : )");
        ok("{ a; b; } > out 2>&1");
        ok("( cd x; y )");
        ok("((x++)); ((cd a); b)");
        ok("[[ -f x && $y =~ ^(a|b)$ ]]");
        ok("! a | b; time -p c; time");
        ok("a=(1 2 \"3\") b[1]=x c+=y cmd");
    }

    #[test]
    fn unterminated_compounds_fail() {
        for s in [
            "if a; then b; fi fi",
            "while a; do b",
            "for x in; do",
            "case x in a) b;;",
            "[[ a",
            "f() ",
            "{ a; ",
        ] {
            assert!(parse(s, 0).is_err(), "should fail: {s:?}");
        }
    }
}
