//! Walks the syntax tree in execution order, tracking the shell's working directory, and
//! collects steps. Simple commands are handed to `simple.rs` and `command.rs`, compound ones
//! to `flow.rs`.
//!
//! Directory rules: `cd` affects later commands of the same shell; subshells, pipeline
//! members, background jobs and substitutions get a copy. Where branches could leave
//! different directories (if/case arms, `||`, loops whose body may `cd`), the result is
//! `Cwd::Unknown` rather than a guess.
//!
//! Variables (`vars.rs`) follow the same scoping: copies for subshells, pipeline members,
//! background jobs and substitutions; only the exported ones for nested shells; branches
//! merged; names a loop body assigns are unknown inside and after the loop.

use super::args::Arg;
use super::ast::{Command, Heredoc, Item, Kind, List, Pipeline, Redir, RedirOp, Sub, Target};
use super::effects::{Cwd, Effect, FileOp, OpaqueReason, Step, RESOLVED_SEP};
use super::parser::{parse, MAX_NEST};
use super::vars::{Field, Vars};
use super::MAX_INPUT;

/// Most steps reported for one command; past it a single `TooLarge` step ends the list.
pub(crate) const MAX_STEPS: usize = 1024;

/// Longest snippet kept, in bytes.
const SNIPPET_MAX: usize = 120;

/// Longest resolved form kept in a snippet, in bytes (the rest shows the command as written).
const RESOLVED_MAX: usize = 56;

/// Indirections resolved per analysis, in units of one eval, git alias expansion or run of a
/// command for a loop variable's values, plus one per KiB of text they analyse again; past
/// it they are opaque. Bounds the work a command can cause.
const MAX_INDIRECTIONS: usize = 256;

/// Bytes that expanding variables may produce per analysis (bounds `$X$X$X...`).
const MAX_EXPANDED: usize = 256 * 1024;

/// The analyser's state for one `analyze` call.
pub(crate) struct Analyzer {
    pub(crate) steps: Vec<Step>,
    /// Directories named by `Dir::At`.
    dirs: Vec<String>,
    /// Names of functions whose bodies may change directory.
    pub(crate) cd_funcs: Vec<String>,
    /// Current nesting, shared with parsers of nested scripts so the total stays bounded.
    pub(crate) level: usize,
    full: bool,
    /// The variables of the shell being analysed.
    pub(crate) vars: Vars,
    /// Names of the functions defined so far (calling one may assign any variable).
    pub(crate) funcs: Vec<String>,
    /// git aliases set by `git config alias.NAME VALUE` (lower-case name, value).
    pub(crate) git_aliases: Vec<(String, Field)>,
    /// The command as written when the steps being analysed came from indirection (`eval`,
    /// a git alias): steps show it, with what they resolved to.
    pub(crate) origin: Option<String>,
    /// The resolved form of the simple command being analysed, when it differs from its
    /// text (variables expanded, an alias replaced).
    pub(crate) resolved: Option<String>,
    /// Indirections left ([`MAX_INDIRECTIONS`]).
    pub(crate) budget: usize,
    /// Expansion bytes left ([`MAX_EXPANDED`]).
    pub(crate) room: usize,
}

/// Per-parse context: the heredoc table and the `sh -c` nesting depth.
#[derive(Clone, Copy)]
pub(crate) struct Scope<'s, 'a> {
    pub(crate) hd: &'s [Heredoc<'a>],
    pub(crate) depth: usize,
}

/// What a command's standard input is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stdin<'x> {
    Terminal,
    /// Another command's output: unknown content.
    Pipe,
    /// A file (`< f`).
    File,
    /// A heredoc or here-string; `dynamic` when the outer shell expands things into it.
    Text {
        text: &'x str,
        dynamic: bool,
    },
}

/// The environment one (possibly wrapped) program runs in.
#[derive(Debug, Clone)]
pub(crate) struct Exec<'x> {
    pub snippet: &'x str,
    /// Directory for this program's steps (may differ from the shell's: `env -C`, `git -C`).
    pub cwd: Dir,
    /// Runs in the current shell process (so `cd` and `eval` affect later commands).
    pub direct: bool,
    pub stdin: Stdin<'x>,
    /// `sh -c` nesting depth.
    pub depth: usize,
    /// Wrapper hops so far (bounds `xargs xargs ...` and `find -exec find -exec ...`).
    pub hops: usize,
    /// `GIT_DIR`/`GIT_WORK_TREE` from the environment: the repository git acts on.
    pub git_repo: Option<Dir>,
    /// `NAME=value` assignments before the program: its environment, which shells it
    /// starts see.
    pub env: &'x [Arg<'x>],
}

/// `s` trimmed and cut to [`SNIPPET_MAX`] bytes at a character boundary.
pub(crate) fn snippet(s: &str) -> String {
    cut_to(s, SNIPPET_MAX)
}

/// `s` trimmed and cut to `max` bytes (at least 3) at a character boundary.
fn cut_to(s: &str, max: usize) -> String {
    let t = s.trim();
    if t.len() <= max {
        return t.to_string();
    }
    let mut cut = max.max(3) - 3;
    while !t.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut out = String::with_capacity(cut + 3);
    out.push_str(t.get(..cut).unwrap_or(""));
    out.push('…');
    out
}

/// `written ⟶ resolved`, within [`SNIPPET_MAX`] bytes.
fn composed(written: &str, resolved: &str) -> String {
    let r = cut_to(resolved, RESOLVED_MAX);
    let mut out = cut_to(written, SNIPPET_MAX - RESOLVED_SEP.len() - r.len());
    out.push_str(RESOLVED_SEP);
    out.push_str(&r);
    out
}

/// Longest directory or path kept (PATH_MAX). Longer directories become unknown and longer
/// paths are cut to a dynamic prefix, which also bounds the size of the output.
pub(crate) const MAX_PATH: usize = 4096;

/// A working directory during analysis: a copyable handle (directories are stored once in
/// `Analyzer::dirs`), so passing directories around costs no allocation. Converted to
/// [`Cwd`] only when a step is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    Start,
    Unknown,
    At(u32),
}

fn is_exit(p: &Pipeline<'_>) -> bool {
    p.tail.is_empty()
        && matches!(&p.head, Some(c) if matches!(&c.kind, Kind::Simple { words, .. }
        if words.first().is_some_and(|w| matches!(&*w.cooked, "exit" | "return"))))
}

/// Redirection targets that are not files.
fn is_sink(w: &Arg<'_>) -> bool {
    w.dyn_at.is_none()
        && (matches!(
            w.s,
            "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/stdin" | "/dev/tty"
        ) || w.s.starts_with("/dev/fd/"))
}

/// `>&2`, `>&-`, `>&3-`: descriptor duplication, not a file.
fn is_fd_word(w: &Arg<'_>) -> bool {
    let s = w.s.strip_suffix('-').unwrap_or(w.s);
    w.dyn_at.is_none() && s.bytes().all(|c| c.is_ascii_digit())
}

impl Analyzer {
    pub(crate) fn new() -> Self {
        Analyzer {
            steps: Vec::new(),
            dirs: Vec::new(),
            cd_funcs: Vec::new(),
            level: 0,
            full: false,
            vars: Vars::default(),
            funcs: Vec::new(),
            git_aliases: Vec::new(),
            origin: None,
            resolved: None,
            budget: MAX_INDIRECTIONS,
            room: MAX_EXPANDED,
        }
    }

    /// `base` joined with directory `arg` (absolute replaces; unknown stays unknown; `.`
    /// stays). `..` is not normalised: the engine does that.
    pub(crate) fn join(&mut self, base: Dir, arg: &Arg<'_>) -> Dir {
        if arg.is_dynamic() || arg.s.is_empty() {
            return Dir::Unknown;
        }
        if arg.s == "." {
            return base;
        }
        let trimmed = match arg.s.trim_end_matches('/') {
            "" => "/",
            t => t,
        };
        let joined = if trimmed.starts_with('/') {
            trimmed.to_string()
        } else {
            let b = match base {
                Dir::Unknown => return Dir::Unknown,
                Dir::Start => "",
                Dir::At(i) => self.dir_str(i),
            };
            let b = b.trim_end_matches('/');
            let mut s = String::with_capacity(b.len() + 1 + trimmed.len());
            if !b.is_empty() || base != Dir::Start {
                s.push_str(b);
                s.push('/');
            }
            s.push_str(trimmed);
            s
        };
        if joined.len() > MAX_PATH {
            return Dir::Unknown;
        }
        let Ok(i) = u32::try_from(self.dirs.len()) else {
            return Dir::Unknown;
        };
        self.dirs.push(joined);
        Dir::At(i)
    }

    fn dir_str(&self, i: u32) -> &str {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.dirs.get(i))
            .map_or("", String::as_str)
    }

    /// The public form of a directory.
    pub(crate) fn cwd(&self, d: Dir) -> Cwd {
        match d {
            Dir::Start => Cwd::Start,
            Dir::Unknown => Cwd::Unknown,
            Dir::At(i) => Cwd::Dir(self.dir_str(i).to_string()),
        }
    }

    /// Same directory (handles compare by their text).
    pub(crate) fn same(&self, a: Dir, b: Dir) -> bool {
        match (a, b) {
            (Dir::At(i), Dir::At(j)) => i == j || self.dir_str(i) == self.dir_str(j),
            _ => a == b,
        }
    }

    /// Combines the directories alternative branches end in.
    pub(crate) fn merge(&self, acc: Option<Dir>, d: Dir) -> Option<Dir> {
        Some(match acc {
            None => d,
            Some(prev) if self.same(prev, d) => prev,
            Some(_) => Dir::Unknown,
        })
    }

    /// The snippet a step shows: its command, or, when it came from indirection, the
    /// command as written and what it resolved to.
    fn shown(&self, snip: &str) -> String {
        match (&self.origin, &self.resolved) {
            (None, None) => snippet(snip),
            (Some(o), r) => composed(o, r.as_deref().unwrap_or(snip)),
            (None, Some(r)) => composed(snip, r),
        }
    }

    /// Records a step (or, once [`MAX_STEPS`] is reached, a single `TooLarge`).
    pub(crate) fn emit(&mut self, snip: &str, cwd: Dir, effect: Effect) {
        if self.steps.len() >= MAX_STEPS {
            if !self.full {
                self.full = true;
                self.steps.push(Step {
                    snippet: self.shown(snip),
                    cwd: self.cwd(cwd),
                    effect: Effect::Opaque {
                        reason: OpaqueReason::TooLarge,
                        detail: "too many effects".to_string(),
                    },
                });
            }
            return;
        }
        self.steps.push(Step {
            snippet: self.shown(snip),
            cwd: self.cwd(cwd),
            effect,
        });
    }

    /// A file step for `arg` (its literal prefix when dynamic).
    pub(crate) fn file_at(&mut self, snip: &str, cwd: Dir, op: FileOp, arg: Arg<'_>, via: &str) {
        let mut path = arg.prefix();
        let mut dynamic = arg.is_dynamic();
        if path.len() > MAX_PATH {
            let mut cut = MAX_PATH;
            while !path.is_char_boundary(cut) {
                cut -= 1;
            }
            path = path.get(..cut).unwrap_or("");
            dynamic = true;
        }
        let effect = Effect::File {
            op,
            path: path.to_string(),
            dynamic,
            via: via.to_string(),
        };
        self.emit(snip, cwd, effect);
    }

    /// A file step in a program's environment.
    pub(crate) fn file(&mut self, ex: &Exec<'_>, op: FileOp, arg: Arg<'_>, via: &str) {
        self.file_at(ex.snippet, ex.cwd, op, arg, via);
    }

    /// An opaque step in a program's environment.
    pub(crate) fn opaque(&mut self, ex: &Exec<'_>, reason: OpaqueReason, detail: &str) {
        let effect = Effect::Opaque {
            reason,
            detail: snippet(detail),
        };
        self.emit(ex.snippet, ex.cwd, effect);
    }

    /// Parses and analyses a script (top level, `sh -c`, backticks, heredocs fed to shells).
    pub(crate) fn script(&mut self, text: &str, cwd: &mut Dir, depth: usize) {
        let too_large = |reason| Effect::Opaque {
            reason,
            detail: format!("input over {MAX_INPUT} bytes"),
        };
        if text.len() > MAX_INPUT {
            self.emit(text, *cwd, too_large(OpaqueReason::TooLarge));
            return;
        }
        match parse(text, self.level) {
            Ok(parsed) => {
                let sc = Scope {
                    hd: &parsed.heredocs,
                    depth,
                };
                self.list(&parsed.list, sc, cwd);
            }
            Err(_) => {
                let effect = Effect::Opaque {
                    reason: OpaqueReason::ParseError,
                    detail: "cannot parse command".to_string(),
                };
                self.emit(text, *cwd, effect);
            }
        }
    }

    /// A script nested inside a command (`sh -c`, heredoc to a shell, `watch`, `trap`...),
    /// run in `ex.cwd` as a separate shell. `dynamic`: the outer shell expands parts of it, so
    /// what runs is not fully known.
    pub(crate) fn nested(&mut self, ex: &Exec<'_>, text: &str, dynamic: bool) {
        if ex.depth >= super::MAX_DEPTH {
            self.opaque(ex, OpaqueReason::DepthLimit, "nested shell too deep");
            return;
        }
        let mut cwd = ex.cwd;
        // A separate shell: it sees the exported variables and the program's environment
        // (only worth computing when the script expands something).
        let child = if text.contains('$') {
            self.vars.exported()
        } else {
            Vars::default()
        };
        let outer_vars = std::mem::replace(&mut self.vars, child);
        if text.contains('$') {
            for a in ex.env {
                if a.s.get(..super::vars::name_len(a.s)) != Some("IFS") {
                    self.assign_var(*a, true);
                }
            }
        }
        let outer = self.enter_indirection(ex, self.resolved.is_some());
        self.level += 1;
        self.script(text, &mut cwd, ex.depth + 1);
        self.level -= 1;
        self.leave_indirection(outer);
        self.vars = outer_vars;
        if dynamic {
            self.opaque(ex, OpaqueReason::Eval, "script built from expansions");
        }
    }

    /// Starts analysing code that `ex`'s command runs: when `indirect` (the code came from
    /// `eval`, a variable or an alias), its steps will show `ex`'s command as written.
    /// Returns what [`Analyzer::leave_indirection`] restores.
    pub(crate) fn enter_indirection(
        &mut self,
        ex: &Exec<'_>,
        indirect: bool,
    ) -> (Option<String>, Option<String>) {
        let origin = match (&self.origin, indirect) {
            (None, true) => Some(snippet(ex.snippet)),
            (o, _) => o.clone(),
        };
        (
            std::mem::replace(&mut self.origin, origin),
            self.resolved.take(),
        )
    }

    /// Takes `runs` indirections over `text` from the budget; false (nothing taken) when
    /// it does not allow them.
    pub(crate) fn spend(&mut self, runs: usize, text: &str) -> bool {
        let cost = runs.saturating_mul(1 + text.len() / 1024);
        if cost > self.budget {
            return false;
        }
        self.budget -= cost;
        true
    }

    /// Ends what [`Analyzer::enter_indirection`] started.
    pub(crate) fn leave_indirection(&mut self, saved: (Option<String>, Option<String>)) {
        self.origin = saved.0;
        self.resolved = saved.1;
    }

    fn enter(&mut self) -> bool {
        self.level += 1;
        self.level <= MAX_NEST
    }

    fn leave(&mut self) {
        self.level = self.level.saturating_sub(1);
    }

    pub(crate) fn list(&mut self, l: &List<'_>, sc: Scope<'_, '_>, cwd: &mut Dir) {
        for item in &l.items {
            if item.background {
                let mut c = *cwd;
                let vars = self.vars.clone();
                self.and_or(item, sc, &mut c);
                self.vars = vars;
            } else {
                self.and_or(item, sc, cwd);
            }
        }
    }

    fn and_or(&mut self, item: &Item<'_>, sc: Scope<'_, '_>, cwd: &mut Dir) {
        let start = *cwd;
        self.pipeline(&item.first, sc, cwd);
        if item.rest.is_empty() {
            return;
        }
        // Variables: each later pipeline may be skipped, so the list ends in any of the
        // states after its pipelines. In a pure `&&` chain a pipeline runs right after the
        // previous one; after an `||` it may follow any earlier one.
        let mut ends = self.vars.clone();
        let mut chain = true;
        for (is_or, p) in &item.rest {
            chain &= !is_or;
            if !chain {
                self.vars = ends.clone();
            }
            self.pipeline_in(*is_or, p, sc, cwd, start);
            if ends != self.vars {
                ends = ends.merge(&self.vars);
            }
        }
        self.vars = ends;
    }

    /// One pipeline of an and-or list (after `&&` or `||`), with the directory rules.
    fn pipeline_in(
        &mut self,
        is_or: bool,
        p: &Pipeline<'_>,
        sc: Scope<'_, '_>,
        cwd: &mut Dir,
        start: Dir,
    ) {
        if !is_or {
            self.pipeline(p, sc, cwd);
            return;
        }
        // `a || b`: b runs where a failed, which is only known if a kept the directory.
        let after_left = *cwd;
        let mut c = if self.same(after_left, start) {
            after_left
        } else {
            Dir::Unknown
        };
        self.pipeline(p, sc, &mut c);
        *cwd = if is_exit(p) || self.same(c, after_left) {
            after_left
        } else {
            Dir::Unknown
        };
    }

    fn pipeline(&mut self, p: &Pipeline<'_>, sc: Scope<'_, '_>, cwd: &mut Dir) {
        match (&p.head, p.tail.is_empty()) {
            (Some(only), true) => self.command(only, sc, cwd, false),
            _ => {
                // Every member of a multi-command pipeline runs in its own subshell.
                let vars = self.vars.clone();
                for (i, c) in p.iter().enumerate() {
                    let mut cc = *cwd;
                    self.command(c, sc, &mut cc, i > 0);
                    self.vars.clone_from(&vars);
                }
            }
        }
    }

    pub(crate) fn command(
        &mut self,
        c: &Command<'_>,
        sc: Scope<'_, '_>,
        cwd: &mut Dir,
        piped: bool,
    ) {
        if let Kind::Simple { assigns, words } = &c.kind {
            self.simple(c, assigns, words, sc, cwd, piped);
            return;
        }
        if !self.enter() {
            let effect = Effect::Opaque {
                reason: OpaqueReason::DepthLimit,
                detail: "nesting too deep".to_string(),
            };
            self.emit(c.span, *cwd, effect);
            self.leave();
            return;
        }
        let targets = self.expand_redirs(&c.redirs);
        self.redirects(&c.redirs, &targets, sc, *cwd, c.span, piped);
        self.compound(c, sc, cwd);
        self.leave();
    }

    /// Substitutions run in a subshell of the current directory.
    #[inline]
    pub(crate) fn subs(&mut self, subs: &[Sub<'_>], sc: Scope<'_, '_>, cwd: Dir) {
        if !subs.is_empty() {
            self.subs_slow(subs, sc, cwd);
        }
    }

    fn subs_slow(&mut self, subs: &[Sub<'_>], sc: Scope<'_, '_>, cwd: Dir) {
        for s in subs {
            if !self.enter() {
                let effect = Effect::Opaque {
                    reason: OpaqueReason::DepthLimit,
                    detail: "nesting too deep".to_string(),
                };
                self.emit("", cwd, effect);
                self.leave();
                continue;
            }
            let vars = self.vars.clone();
            match s {
                Sub::Parsed(l) => self.list(l, sc, &mut { cwd }),
                Sub::Backtick(text) => self.script(text, &mut { cwd }, sc.depth),
            }
            self.vars = vars;
            self.leave();
        }
    }

    /// Substitutions and file writes of redirections; returns what feeds stdin. `targets`
    /// holds the expanded targets (`None`, or nothing at all: as parsed).
    pub(crate) fn redirects<'x>(
        &mut self,
        redirs: &'x [Redir<'_>],
        targets: &[Option<Field>],
        sc: Scope<'x, '_>,
        cwd: Dir,
        snip: &str,
        piped: bool,
    ) -> Stdin<'x> {
        let mut stdin = if piped { Stdin::Pipe } else { Stdin::Terminal };
        for (n, r) in redirs.iter().enumerate() {
            let to_stdin = matches!(r.fd, None | Some(0));
            let w = match &r.target {
                Target::Heredoc(i) => {
                    if let Some(h) = sc.hd.get(*i) {
                        self.subs(&h.subs, sc, cwd);
                        if to_stdin {
                            stdin = Stdin::Text {
                                text: h.body,
                                dynamic: !h.quoted && h.body.contains(['$', '`']),
                            };
                        }
                    }
                    continue;
                }
                Target::Word(w) => w,
            };
            self.subs(&w.subs, sc, cwd);
            let arg = match targets.get(n) {
                Some(Some(f)) => Arg {
                    s: &f.text,
                    dyn_at: f.dyn_at,
                },
                _ => Arg {
                    s: &w.cooked,
                    dyn_at: w.dyn_at,
                },
            };
            match r.op {
                RedirOp::Write
                | RedirOp::Append
                | RedirOp::Clobber
                | RedirOp::ReadWrite
                | RedirOp::WriteAll
                | RedirOp::AppendAll => {
                    if !is_sink(&arg) {
                        // The authority engine lets appends through to append-only files.
                        let via = match r.op {
                            RedirOp::Append | RedirOp::AppendAll => ">>",
                            _ => "redirect",
                        };
                        self.file_at(snip, cwd, FileOp::Write, arg, via);
                    }
                    if r.op == RedirOp::ReadWrite && to_stdin {
                        stdin = Stdin::File;
                    }
                }
                RedirOp::DupOut => {
                    if !is_fd_word(&arg) && !is_sink(&arg) {
                        self.file_at(snip, cwd, FileOp::Write, arg, "redirect");
                    }
                }
                RedirOp::Read | RedirOp::DupIn => {
                    if to_stdin {
                        stdin = Stdin::File;
                    }
                }
                RedirOp::HereString => {
                    if to_stdin {
                        stdin = Stdin::Text {
                            text: &w.cooked,
                            dynamic: w.dyn_at.is_some(),
                        };
                    }
                }
                RedirOp::Heredoc => {}
            }
        }
        stdin
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(steps: &[(&str, &str)]) -> Cwd {
        let mut a = Analyzer::new();
        let mut d = Dir::Start;
        for (kind, arg) in steps {
            d = match *kind {
                "unknown" => Dir::Unknown,
                _ => a.join(d, &Arg::lit(arg)),
            };
        }
        a.cwd(d)
    }

    #[test]
    fn joins() {
        let d = |s: &str| Cwd::Dir(s.to_string());
        assert_eq!(joined(&[("j", "sub/")]), d("sub"));
        assert_eq!(joined(&[("j", "a"), ("j", "b")]), d("a/b"));
        assert_eq!(joined(&[("j", "a"), ("j", "../b")]), d("a/../b"));
        assert_eq!(joined(&[("j", "a"), ("j", "/abs")]), d("/abs"));
        assert_eq!(joined(&[("j", "/"), ("j", "x")]), d("/x"));
        assert_eq!(joined(&[("j", "/")]), d("/"));
        assert_eq!(joined(&[("j", "a"), ("j", ".")]), d("a"));
        assert_eq!(joined(&[("unknown", ""), ("j", "x")]), Cwd::Unknown);
        assert_eq!(joined(&[("unknown", ""), ("j", "/x")]), d("/x"));
        let mut a = Analyzer::new();
        assert_eq!(a.join(Dir::Start, &Arg::UNKNOWN), Dir::Unknown);
        let long = "x".repeat(MAX_PATH + 1);
        assert_eq!(a.join(Dir::Start, &Arg::lit(&long)), Dir::Unknown);
    }

    #[test]
    fn same_dirs() {
        let mut a = Analyzer::new();
        let x1 = a.join(Dir::Start, &Arg::lit("x"));
        let x2 = a.join(Dir::Start, &Arg::lit("x"));
        let y = a.join(Dir::Start, &Arg::lit("y"));
        assert!(a.same(x1, x2));
        assert!(!a.same(x1, y));
        assert_eq!(a.merge(a.merge(None, x1), x2), Some(x1));
        assert_eq!(a.merge(Some(x1), y), Some(Dir::Unknown));
        assert_eq!(a.merge(Some(Dir::Start), Dir::Start), Some(Dir::Start));
    }

    #[test]
    fn snippets() {
        assert_eq!(snippet("  a b \n"), "a b");
        let long = "é".repeat(100);
        let s = snippet(&long);
        assert!(s.len() <= SNIPPET_MAX);
        assert!(s.ends_with('…'));
    }
}
