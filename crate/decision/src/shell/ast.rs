//! Syntax tree of a parsed command.
//!
//! Everything borrows from the source text (words keep their raw slice and, when no quoting
//! changed them, a borrowed cooked value) so that parsing allocates little; only backtick
//! bodies are owned because they need unescaping before they can be parsed.

use std::borrow::Cow;

/// A shell word, with quote removal already applied.
#[derive(Debug)]
pub(crate) struct Word<'a> {
    /// Source text of the word.
    pub raw: &'a str,
    /// Text after quote removal; expansions are kept verbatim (`$X`, `$(...)`).
    pub cooked: Cow<'a, str>,
    /// Byte offset in `cooked` of the first character whose value is not known statically
    /// (expansion, glob, tilde, brace expansion).
    pub dyn_at: Option<usize>,
    /// Command and process substitutions inside the word, in source order.
    pub subs: Vec<Sub<'a>>,
}

/// A command run to produce (part of) a word.
#[derive(Debug)]
pub(crate) enum Sub<'a> {
    /// `$(...)`, `<(...)`, `>(...)`: parsed in place.
    Parsed(List<'a>),
    /// `` `...` ``: unescaped body, parsed when analysed.
    Backtick(String),
}

/// The kind of a redirection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirOp {
    /// `<`
    Read,
    /// `>`
    Write,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<>`
    ReadWrite,
    /// `&>`
    WriteAll,
    /// `&>>`
    AppendAll,
    /// `<&`
    DupIn,
    /// `>&`
    DupOut,
    /// `<<` / `<<-`
    Heredoc,
    /// `<<<`
    HereString,
}

/// What a redirection points at.
#[derive(Debug)]
pub(crate) enum Target<'a> {
    /// A file name, fd number or here-string.
    Word(Word<'a>),
    /// Index into the parse's heredoc table (bodies are read after the command line).
    Heredoc(usize),
}

/// One redirection. `fd` is the explicit descriptor (`2>`), `u16::MAX` for `{var}>`.
#[derive(Debug)]
pub(crate) struct Redir<'a> {
    pub fd: Option<u16>,
    pub op: RedirOp,
    pub target: Target<'a>,
}

/// A heredoc body.
#[derive(Debug)]
pub(crate) struct Heredoc<'a> {
    /// Body text (without the delimiter line).
    pub body: &'a str,
    /// Delimiter was quoted: the body is literal (no expansions).
    pub quoted: bool,
    /// Substitutions inside an unquoted body.
    pub subs: Vec<Sub<'a>>,
}

/// Commands separated by `;`, `&` or newlines.
#[derive(Debug, Default)]
pub(crate) struct List<'a> {
    pub items: Vec<Item<'a>>,
    /// Some command of this list may change the shell's directory (`cd`, `pushd`, `eval`...).
    pub may_cd: bool,
}

/// An and-or list, possibly run in the background.
#[derive(Debug)]
pub(crate) struct Item<'a> {
    pub first: Pipeline<'a>,
    /// `(is_or, pipeline)` for each `&&` / `||`.
    pub rest: Vec<(bool, Pipeline<'a>)>,
    /// Terminated by `&`: runs in a subshell, directory changes don't leak.
    pub background: bool,
}

/// Commands joined by `|` / `|&`. The first is stored inline because most pipelines have
/// one command (it is `None` after a bare `time` or `!`).
#[derive(Debug)]
pub(crate) struct Pipeline<'a> {
    pub head: Option<Command<'a>>,
    pub tail: Vec<Command<'a>>,
}

impl<'a> Pipeline<'a> {
    /// All commands, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Command<'a>> {
        self.head.iter().chain(self.tail.iter())
    }
}

/// A command with its redirections and source text.
#[derive(Debug)]
pub(crate) struct Command<'a> {
    pub kind: Kind<'a>,
    pub redirs: Vec<Redir<'a>>,
    /// Source text (for snippets).
    pub span: &'a str,
}

/// The command forms.
#[derive(Debug)]
pub(crate) enum Kind<'a> {
    /// Assignments and words (the program and its arguments).
    Simple {
        assigns: Vec<Word<'a>>,
        words: Vec<Word<'a>>,
    },
    /// `( list )`
    Subshell(List<'a>),
    /// `{ list; }`
    Group(List<'a>),
    /// `if c; then b; elif c; then b; else e; fi`
    If {
        arms: Vec<(List<'a>, List<'a>)>,
        otherwise: Option<List<'a>>,
    },
    /// `while`/`until`
    Loop { cond: List<'a>, body: List<'a> },
    /// `for`/`select` (words include arithmetic headers of `for ((...))`, which have no
    /// `var`)
    For {
        var: Option<&'a str>,
        words: Vec<Word<'a>>,
        body: List<'a>,
    },
    /// `case w in p|p) list ;; esac`
    Case {
        subject: Word<'a>,
        arms: Vec<(Vec<Word<'a>>, List<'a>)>,
    },
    /// `name() body` / `function name body`
    Function {
        name: &'a str,
        body: Box<Command<'a>>,
    },
    /// `(( expr ))`
    Arith(Word<'a>),
    /// `[[ expr ]]`
    Cond(Vec<Word<'a>>),
}

/// Builtins through which a simple command can change the shell's directory.
pub(crate) fn is_cd_like(name: &str) -> bool {
    matches!(
        name,
        "cd" | "pushd" | "popd" | "builtin" | "command" | "eval" | "source" | "."
    )
}

impl Kind<'_> {
    /// Whether running this command (in the current shell) may change the directory.
    pub(crate) fn may_cd(&self, cd_funcs: &[&str]) -> bool {
        match self {
            Kind::Simple { words, .. } => words.first().is_some_and(|w| {
                w.dyn_at == Some(0) || is_cd_like(&w.cooked) || cd_funcs.contains(&&*w.cooked)
            }),
            Kind::Group(l) => l.may_cd,
            Kind::If { arms, otherwise } => {
                arms.iter().any(|(c, b)| c.may_cd || b.may_cd)
                    || otherwise.as_ref().is_some_and(|l| l.may_cd)
            }
            Kind::Loop { cond, body } => cond.may_cd || body.may_cd,
            Kind::For { body, .. } => body.may_cd,
            Kind::Case { arms, .. } => arms.iter().any(|(_, l)| l.may_cd),
            Kind::Subshell(_) | Kind::Function { .. } | Kind::Arith(_) | Kind::Cond(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_cd_like;

    #[test]
    fn cd_like_builtins() {
        for name in [
            "cd", "pushd", "popd", "builtin", "command", "eval", "source", ".",
        ] {
            assert!(is_cd_like(name));
        }
        assert!(!is_cd_like("git") && !is_cd_like("cdx") && !is_cd_like(""));
    }
}
