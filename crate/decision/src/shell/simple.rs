//! One simple command: its words expanded with the variables the command set itself, its
//! assignments applied with the shell's scoping, then the program analysed.
//!
//! * With no variable known (the usual case) words are used as parsed, without copying.
//! * A word that uses a known variable is expanded (`$g push` with `g=git` is `git push`),
//!   and the steps it produces show what it resolved to (`$g push ⟶ git push`).
//! * A variable with alternatives (a `for` variable over `a.ts b.ts`, or values from two
//!   branches) makes the command be analysed once per value, up to [`MAX_COMBOS`] runs;
//!   past that, its alternatives count as their common prefix (`src/*` for `src/a src/b`).
//! * `VAR=v cmd`: `$VAR` in the same command still has the old value; `cmd` and the
//!   programs it starts see the new one (exported); afterwards the old value is back, except
//!   after special builtins and functions, where the shell may keep it (so it is unknown).

use super::analyze::{Analyzer, Dir, Exec, Scope};
use super::args::{program_name, Arg};
use super::ast::{Command, Redir, RedirOp, Target, Word};
use super::expand::{expand, mentions, render, Mode};
use super::parser::is_assignment;
use super::vars::{merge_into, name_len, Field, Value};

/// Most runs of one command for the values of its loop variables.
const MAX_COMBOS: usize = 16;

/// Special builtins (assignments before them may persist) and builtins that run code in
/// this shell.
const KEEPS_ASSIGNMENTS: &[&str] = &[
    ":", ".", "source", "eval", "exec", "export", "readonly", "set", "shift", "trap", "unset",
    "break", "continue", "return", "exit", "times", "declare", "typeset", "local",
];

/// Most assignments of a command handled without allocating.
const PLAIN_ASSIGNS: usize = 4;

/// Builtins whose `NAME=value` arguments are expanded like assignments (no splitting).
const DECLARATIONS: &[&str] = &["export", "declare", "typeset", "local", "readonly"];

/// A word as an argument, as parsed.
fn word_arg<'w>(w: &'w Word<'_>) -> Arg<'w> {
    Arg {
        s: &w.cooked,
        dyn_at: w.dyn_at,
    }
}

fn field_arg(f: &Field) -> Arg<'_> {
    Arg {
        s: &f.text,
        dyn_at: f.dyn_at,
    }
}

fn redir_symbol(op: RedirOp) -> &'static str {
    match op {
        RedirOp::Read => "<",
        RedirOp::Write => ">",
        RedirOp::Append => ">>",
        RedirOp::Clobber => ">|",
        RedirOp::ReadWrite => "<>",
        RedirOp::WriteAll => "&>",
        RedirOp::AppendAll => "&>>",
        RedirOp::DupIn => "<&",
        RedirOp::DupOut => ">&",
        RedirOp::Heredoc => "<<",
        RedirOp::HereString => "<<<",
    }
}

impl Analyzer {
    pub(crate) fn simple(
        &mut self,
        c: &Command<'_>,
        assigns: &[Word<'_>],
        words: &[Word<'_>],
        sc: Scope<'_, '_>,
        cwd: &mut Dir,
        piped: bool,
    ) {
        for w in assigns.iter().chain(words) {
            self.subs(&w.subs, sc, *cwd);
        }
        if self.vars.is_empty() && assigns.len() <= PLAIN_ASSIGNS && self.resolved.is_none() {
            self.simple_plain(c, assigns, words, sc, cwd, piped);
            return;
        }
        if !self.vars.is_empty() {
            for w in assigns.iter().chain(words) {
                self.vars.forget_assigned_in(w.raw);
            }
            if self.vars.has_choices() && self.each_choice(c, assigns, words, sc, cwd, piped) {
                return;
            }
        }
        self.simple_once(c, assigns, words, sc, cwd, piped);
    }

    /// The usual case, kept lean: no variable known, words and (at most [`PLAIN_ASSIGNS`])
    /// assignments as parsed.
    fn simple_plain(
        &mut self,
        c: &Command<'_>,
        assigns: &[Word<'_>],
        words: &[Word<'_>],
        sc: Scope<'_, '_>,
        cwd: &mut Dir,
        piped: bool,
    ) {
        let stdin = self.redirects(&c.redirs, &[], sc, *cwd, c.span, piped);
        let mut ex = Exec {
            snippet: c.span,
            cwd: *cwd,
            direct: true,
            stdin,
            depth: sc.depth,
            hops: 0,
            git_repo: None,
            env: &[],
        };
        if !assigns.is_empty() {
            self.plain_env(assigns, words, ex, cwd);
            return;
        }
        if words.is_empty() {
            return;
        }
        // Most commands have few words: keep their arguments on the stack.
        let mut buf = [Arg::UNKNOWN; 12];
        if words.len() <= buf.len() {
            for (slot, w) in buf.iter_mut().zip(words) {
                *slot = word_arg(w);
            }
            let args = buf.get(..words.len()).unwrap_or(&[]);
            self.run(args, &mut ex, cwd);
        } else {
            let args: Vec<Arg<'_>> = words.iter().map(word_arg).collect();
            self.run(&args, &mut ex, cwd);
        }
    }

    /// [`Analyzer::simple_plain`] with assignments: statements, or the program's
    /// environment.
    fn plain_env(&mut self, assigns: &[Word<'_>], words: &[Word<'_>], ex: Exec<'_>, cwd: &mut Dir) {
        let mut ex = ex;
        let mut env = [Arg::UNKNOWN; PLAIN_ASSIGNS];
        for (slot, w) in env.iter_mut().zip(assigns) {
            *slot = word_arg(w);
            self.assignment(*slot, &mut ex);
            if words.is_empty() {
                self.assign_var(*slot, false);
            }
        }
        if words.is_empty() {
            return;
        }
        let mut ex = Exec {
            env: env.get(..assigns.len()).unwrap_or(&[]),
            ..ex
        };
        let args: Vec<Arg<'_>> = words.iter().map(word_arg).collect();
        self.run_with_env(&args, &mut ex, cwd, Vec::new());
    }

    /// Runs the command once per combination of the values of the loop variables it uses;
    /// false when it uses none (or the budget is spent).
    fn each_choice(
        &mut self,
        c: &Command<'_>,
        assigns: &[Word<'_>],
        words: &[Word<'_>],
        sc: Scope<'_, '_>,
        cwd: &mut Dir,
        piped: bool,
    ) -> bool {
        let raws = || {
            let targets = c.redirs.iter().filter_map(|r| match &r.target {
                Target::Word(w) => Some(w.raw),
                Target::Heredoc(_) => None,
            });
            assigns.iter().chain(words).map(|w| w.raw).chain(targets)
        };
        let mut picked: Vec<(String, Vec<Field>)> = Vec::new();
        let mut total = 1usize;
        for (name, alts) in self.vars.choices() {
            let n = total.saturating_mul(alts.len());
            if n <= MAX_COMBOS && raws().any(|r| mentions(r, name)) {
                total = n;
                picked.push((name.to_string(), alts.to_vec()));
            }
        }
        if picked.is_empty() || !self.spend(total, c.span) {
            return false;
        }
        let entry = self.vars.clone();
        let (mut vars_out, mut cwd_out) = (None, None);
        for k in 0..total {
            self.vars = entry.clone();
            let mut idx = k;
            let mut chosen = Vec::with_capacity(picked.len());
            for (name, alts) in &picked {
                let f = alts.get(idx % alts.len().max(1)).cloned();
                idx /= alts.len().max(1);
                let v = f.map(Value::One);
                self.vars.set(name, v.clone(), false);
                chosen.push(v);
            }
            let mut c2 = *cwd;
            self.simple_once(c, assigns, words, sc, &mut c2, piped);
            // The loop variable is still one of its values, unless the command assigned it.
            for ((name, alts), v) in picked.iter().zip(chosen) {
                if self.vars.get(name) == v.as_ref() {
                    self.vars
                        .set(name, Some(Value::Choice(alts.clone())), false);
                }
            }
            vars_out = Some(merge_into(vars_out, &self.vars));
            cwd_out = Some(match cwd_out {
                None => c2,
                Some(prev) if self.same(prev, c2) => prev,
                Some(_) => Dir::Unknown,
            });
        }
        self.vars = vars_out.unwrap_or(entry);
        *cwd = cwd_out.unwrap_or(Dir::Unknown);
        true
    }

    /// Expands one word; `None` when it reads as parsed (no known variable in it).
    fn expand_word(&mut self, w: &Word<'_>, mode: Mode) -> Option<Vec<Field>> {
        if w.dyn_at.is_none() || !self.vars.used_in(w.raw) {
            return None;
        }
        let (raw, prefix) = match (mode, super::parser::assignment_name_len(w.raw)) {
            (Mode::Assign, Some(len)) => (w.raw.get(len..)?, w.raw.get(..len)?),
            _ => (w.raw, ""),
        };
        let e = expand(raw, &self.vars, mode, &mut self.room)?;
        if !e.changed {
            return None;
        }
        if prefix.is_empty() {
            return Some(e.fields);
        }
        let f = e.fields.into_iter().next()?;
        Some(vec![Field {
            text: format!("{prefix}{}", f.text),
            dyn_at: f.dyn_at.map(|d| d + prefix.len()),
        }])
    }

    /// The expanded redirection targets (`None` where a target reads as parsed).
    pub(crate) fn expand_redirs(&mut self, redirs: &[Redir<'_>]) -> Vec<Option<Field>> {
        if self.vars.is_empty() || redirs.is_empty() {
            return Vec::new();
        }
        redirs
            .iter()
            .map(|r| match &r.target {
                Target::Word(w) if r.op != RedirOp::HereString => self
                    .expand_word(w, Mode::Redirect)
                    .and_then(|f| f.into_iter().next()),
                _ => None,
            })
            .collect()
    }

    fn simple_once(
        &mut self,
        c: &Command<'_>,
        assigns: &[Word<'_>],
        words: &[Word<'_>],
        sc: Scope<'_, '_>,
        cwd: &mut Dir,
        piped: bool,
    ) {
        let targets = c.redirs.iter().filter_map(|r| match &r.target {
            Target::Word(w) => Some(w),
            Target::Heredoc(_) => None,
        });
        let uses_vars = !self.vars.is_empty()
            && words
                .iter()
                .chain(targets)
                .any(|w| w.dyn_at.is_some() && self.vars.used_in(w.raw));
        if !uses_vars {
            self.simple_run(c, assigns, words, None, sc, cwd, piped);
            return;
        }
        let decl = words
            .first()
            .is_some_and(|w| w.dyn_at.is_none() && DECLARATIONS.contains(&&*w.cooked));
        let mut fields = Vec::with_capacity(words.len());
        let mut changed = false;
        for w in words {
            let mode = if decl && is_assignment(w.raw) {
                Mode::Assign
            } else {
                Mode::Args
            };
            match self.expand_word(w, mode) {
                Some(f) => {
                    changed = true;
                    fields.extend(f);
                }
                None => fields.push(Field {
                    text: w.cooked.to_string(),
                    dyn_at: w.dyn_at,
                }),
            }
        }
        let redirs = self.expand_redirs(&c.redirs);
        changed |= redirs.iter().any(Option::is_some);
        let expanded = Expanded {
            fields: &fields,
            redirs: &redirs,
            changed,
        };
        self.simple_run(c, assigns, words, Some(&expanded), sc, cwd, piped);
    }

    /// The resolved form of an expanded command, for messages.
    fn resolved_text(c: &Command<'_>, e: &Expanded<'_>) -> String {
        let mut s = String::new();
        for f in e.fields {
            if !s.is_empty() {
                s.push(' ');
            }
            render(&mut s, &f.text, f.dyn_at.is_some());
        }
        for (r, f) in c.redirs.iter().zip(e.redirs) {
            if let Some(f) = f {
                s.push(' ');
                s.push_str(redir_symbol(r.op));
                s.push(' ');
                render(&mut s, &f.text, f.dyn_at.is_some());
            }
        }
        s
    }

    /// Analyses the command with its words as parsed (`e` is `None`) or as expanded.
    #[allow(clippy::too_many_arguments)]
    fn simple_run(
        &mut self,
        c: &Command<'_>,
        assigns: &[Word<'_>],
        words: &[Word<'_>],
        e: Option<&Expanded<'_>>,
        sc: Scope<'_, '_>,
        cwd: &mut Dir,
        piped: bool,
    ) {
        let resolved = e.filter(|e| e.changed).map(|e| Self::resolved_text(c, e));
        let outer = std::mem::replace(&mut self.resolved, resolved);
        let redirs = e.map_or(&[][..], |e| e.redirs);
        let stdin = self.redirects(&c.redirs, redirs, sc, *cwd, c.span, piped);
        let mut ex = Exec {
            snippet: c.span,
            cwd: *cwd,
            direct: true,
            stdin,
            depth: sc.depth,
            hops: 0,
            git_repo: None,
            env: &[],
        };
        if assigns.is_empty() {
            if !words.is_empty() {
                self.run_words(words, e, &mut ex, cwd, Vec::new());
            }
            self.resolved = outer;
            return;
        }
        // Assignment values see the variables as assigned so far, left to right. Before a
        // program they are only its environment: they are applied to the shell's variables
        // (and undone afterwards) only where something may read them.
        let statement = words.is_empty();
        let expanding = !self.vars.is_empty();
        let mut values: Vec<Option<Field>> = Vec::new();
        let mut applied = Vec::new();
        for w in assigns {
            let field = match self.vars.is_empty() {
                true => None,
                false => self
                    .expand_word(w, Mode::Assign)
                    .and_then(|f| f.into_iter().next()),
            };
            let arg = field.as_ref().map_or_else(|| word_arg(w), field_arg);
            self.assignment(arg, &mut ex);
            if statement {
                self.assign_var(arg, false);
            } else if !self.vars.is_empty() {
                // a later `Y=$X` of the same command sees it
                self.apply(arg, &mut applied);
            }
            if !statement && expanding {
                values.push(field);
            }
        }
        if statement {
            self.resolved = outer;
            return;
        }
        // (on the stack for the usual one or two `VAR=v` as parsed)
        let mut small = [Arg::UNKNOWN; 4];
        let owned: Vec<Arg<'_>>;
        let env: &[Arg<'_>] = if !expanding && assigns.len() <= small.len() {
            for (slot, w) in small.iter_mut().zip(assigns) {
                *slot = word_arg(w);
            }
            small.get(..assigns.len()).unwrap_or(&[])
        } else {
            owned = assigns
                .iter()
                .enumerate()
                .map(|(i, w)| match values.get(i) {
                    Some(Some(f)) => field_arg(f),
                    _ => word_arg(w),
                })
                .collect();
            &owned
        };
        let mut ex = Exec { env, ..ex };
        self.run_words(words, e, &mut ex, cwd, applied);
        self.resolved = outer;
    }

    /// Runs the program named by `words` (or by their expansion `e`).
    fn run_words(
        &mut self,
        words: &[Word<'_>],
        e: Option<&Expanded<'_>>,
        ex: &mut Exec<'_>,
        cwd: &mut Dir,
        applied: Vec<(String, Option<(Value, bool)>)>,
    ) {
        if let Some(e) = e {
            let args: Vec<Arg<'_>> = e.fields.iter().map(field_arg).collect();
            self.run_with_env(&args, ex, cwd, applied);
            return;
        }
        // Most commands have few words: keep their arguments on the stack.
        let mut buf = [Arg::UNKNOWN; 12];
        if words.len() <= buf.len() {
            for (slot, w) in buf.iter_mut().zip(words) {
                *slot = word_arg(w);
            }
            let args = buf.get(..words.len()).unwrap_or(&[]);
            self.run_with_env(args, ex, cwd, applied);
        } else {
            let args: Vec<Arg<'_>> = words.iter().map(word_arg).collect();
            self.run_with_env(&args, ex, cwd, applied);
        }
    }

    /// Applies `NAME=value` to the shell's variables for the time of one command,
    /// remembering the previous value in `applied`. `IFS` is never applied (it would stop
    /// the tracking): a command that reads it sees default splitting at worst.
    fn apply(&mut self, a: Arg<'_>, applied: &mut Vec<(String, Option<(Value, bool)>)>) {
        let name = a.s.get(..name_len(a.s)).unwrap_or("");
        if !is_assignment(a.s) || name == "IFS" || applied.iter().any(|(n, _)| n == name) {
            return;
        }
        applied.push((name.to_string(), self.vars.snapshot(name)));
        self.assign_var(a, true);
    }

    /// Runs the program with its `VAR=v` environment (`ex.env`), then undoes it the way the
    /// shell does: after special builtins and functions the shell may keep the values, so
    /// they are unknown; otherwise the previous values are back (`applied`).
    fn run_with_env(
        &mut self,
        args: &[Arg<'_>],
        ex: &mut Exec<'_>,
        cwd: &mut Dir,
        mut applied: Vec<(String, Option<(Value, bool)>)>,
    ) {
        if ex.env.is_empty() {
            self.run(args, ex, cwd);
            return;
        }
        let program = args.first().and_then(|a| match a.dyn_at {
            None if !a.s.contains('/') => Some(a.s),
            _ => program_name(a),
        });
        let is_func = |p: &str, funcs: &[String]| funcs.iter().any(|f| f == p);
        // Code run in this shell (`g=git eval '$g push'`) reads them as variables.
        let in_shell =
            program.is_none_or(|p| matches!(p, "eval" | "source" | ".") || is_func(p, &self.funcs));
        if in_shell {
            for a in ex.env {
                self.apply(*a, &mut applied);
            }
        }
        self.run(args, ex, cwd);
        fn name_of<'s>(a: &Arg<'s>) -> &'s str {
            a.s.get(..name_len(a.s)).unwrap_or("")
        }
        // Only what is known, and IFS, can be affected.
        if self.vars.is_empty() && !ex.env.iter().any(|a| name_of(a) == "IFS") {
            return;
        }
        let keeps =
            program.is_none_or(|p| KEEPS_ASSIGNMENTS.contains(&p) || is_func(p, &self.funcs));
        for a in ex.env {
            let name = name_of(a);
            if keeps && name == "IFS" {
                self.vars.poison();
            } else if keeps {
                self.vars.forget(name);
            }
        }
        if !keeps {
            for (name, before) in applied {
                self.vars.restore(&name, before);
            }
        }
    }
}

/// A command's words and redirection targets after expansion.
pub(crate) struct Expanded<'e> {
    fields: &'e [Field],
    redirs: &'e [Option<Field>],
    changed: bool,
}
