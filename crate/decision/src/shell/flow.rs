//! Compound commands in execution order: subshells, groups, `if`, loops, `for`, `case`,
//! function definitions, `(( ))` and `[[ ]]`, with the rules for what the shell's directory
//! and variables are after them.
//!
//! Where branches could leave different states (if/case arms, loops that may run zero or
//! more times), directories that differ become unknown, and variables keep only what every
//! path agrees on (or the bounded set of their values). Names a loop body or a `case` arm
//! assigns are unknown at its start, since it may follow an iteration (or arm, `;&`) that
//! assigned them.

use super::analyze::{Analyzer, Dir, Scope};
use super::assigns::{collect, Assigned, Known};
use super::ast::{Command, Kind, List, Word};
use super::expand::Mode;
use super::vars::{merge_into, Field, Value};

/// Most functions remembered.
const MAX_FUNCS: usize = 64;

impl Analyzer {
    /// Analyses a compound command (its redirections are done by the caller).
    pub(crate) fn compound(&mut self, c: &Command<'_>, sc: Scope<'_, '_>, cwd: &mut Dir) {
        match &c.kind {
            Kind::Simple { .. } => {}
            Kind::Subshell(l) => {
                let vars = self.vars.clone();
                self.list(l, sc, &mut { *cwd });
                self.vars = vars;
            }
            Kind::Group(l) => self.list(l, sc, cwd),
            Kind::If { arms, otherwise } => {
                let mut merged = None;
                let mut vars = None;
                for (cond, body) in arms {
                    self.list(cond, sc, cwd);
                    let mut b = *cwd;
                    let before = self.vars.clone();
                    self.list(body, sc, &mut b);
                    merged = self.merge(merged, b);
                    vars = Some(merge_into(vars, &self.vars));
                    self.vars = before;
                }
                if let Some(e) = otherwise {
                    self.list(e, sc, cwd);
                }
                *cwd = self.merge(merged, *cwd).unwrap_or(Dir::Unknown);
                self.vars = merge_into(vars, &self.vars);
            }
            Kind::Loop { cond, body } => {
                if cond.may_cd || body.may_cd {
                    *cwd = Dir::Unknown;
                }
                let entry = self.vars.clone();
                self.forget_assigned_by(&[cond, body], &[]);
                self.list(cond, sc, cwd);
                self.list(body, sc, cwd);
                self.vars = entry.merge(&self.vars);
            }
            Kind::For { var, words, body } => {
                for w in words {
                    self.subs(&w.subs, sc, *cwd);
                }
                if body.may_cd {
                    *cwd = Dir::Unknown;
                }
                let values = var.and_then(|_| self.loop_values(words));
                if var.is_none() {
                    // `for ((i=0; i<n; i++))`: the header assigns
                    for w in words {
                        self.vars.forget_arith(w.raw);
                    }
                }
                let entry = self.vars.clone();
                // The body is read with the loop variable's values (`$c` may be `eval`).
                if let Some(name) = var {
                    self.vars.set(name, values.clone(), false);
                }
                self.forget_assigned_by(&[body], words);
                if let Some(name) = var {
                    self.vars.set(name, values, false);
                }
                self.list(body, sc, cwd);
                self.vars = entry.merge(&self.vars);
            }
            Kind::Case { subject, arms } => {
                self.subs(&subject.subs, sc, *cwd);
                // `;&` runs the next arm too: names any arm assigns are unknown in all.
                let bodies: Vec<&List<'_>> = arms.iter().map(|(_, b)| b).collect();
                let entry = self.vars.clone();
                self.forget_assigned_by(&bodies, std::slice::from_ref(subject));
                let mut merged = None;
                let mut vars = None;
                for (pats, body) in arms {
                    for p in pats {
                        self.subs(&p.subs, sc, *cwd);
                    }
                    let mut b = *cwd;
                    let before = self.vars.clone();
                    self.list(body, sc, &mut b);
                    merged = self.merge(merged, b);
                    vars = Some(merge_into(vars, &self.vars));
                    self.vars = before;
                }
                *cwd = self.merge(merged, *cwd).unwrap_or(Dir::Unknown);
                // Unless an arm matches everything, none may match: the state before the
                // case is possible too.
                let catch_all = arms
                    .iter()
                    .any(|(pats, _)| pats.iter().any(|p| p.raw == "*"));
                self.vars = match (vars, catch_all) {
                    (Some(v), true) => v,
                    (vars, _) => merge_into(vars, &entry),
                };
            }
            Kind::Function { name, body } => {
                // Analysed where defined, in the directory of the definition; the variables
                // it will see when called are unknown.
                let vars = std::mem::take(&mut self.vars);
                self.command(body, sc, &mut { *cwd }, false);
                self.vars = vars;
                if body.kind.may_cd(&[]) {
                    self.cd_funcs.push((*name).to_string());
                }
                if self.funcs.len() < MAX_FUNCS {
                    self.funcs.push((*name).to_string());
                } else {
                    self.vars.poison(); // calls we could not recognise may assign anything
                }
            }
            Kind::Arith(w) => {
                self.subs(&w.subs, sc, *cwd);
                self.vars.forget_arith(w.raw);
            }
            Kind::Cond(ws) => {
                for w in ws {
                    self.subs(&w.subs, sc, *cwd);
                    self.vars.forget_assigned_in(w.raw);
                }
            }
        }
    }

    /// Before a loop (or `case` arms): the variables its bodies (or `words`) may assign
    /// become unknown, since an iteration (or arm) may follow one that assigned them.
    fn forget_assigned_by(&mut self, bodies: &[&List<'_>], words: &[Word<'_>]) {
        if self.vars.is_empty() {
            return;
        }
        for w in words {
            self.vars.forget_assigned_in(w.raw);
        }
        let mut a = Assigned::default();
        let cx = Known {
            funcs: &self.funcs,
            vars: &self.vars,
        };
        for l in bodies {
            collect(l, &cx, &mut a);
        }
        if a.all {
            self.vars.forget_all();
        }
        for n in a.names {
            self.vars.forget(n);
        }
    }

    /// The values a `for` variable takes: its words, expanded (a glob stays a pattern).
    fn loop_values(&mut self, words: &[Word<'_>]) -> Option<Value> {
        let mut alts = Vec::new();
        let mut collapsed = false;
        for w in words {
            let expanded = if self.vars.is_empty() {
                None
            } else {
                super::expand::expand(w.raw, &self.vars, Mode::Args, &mut self.room)
            };
            match expanded {
                Some(e) => alts.extend(e.fields),
                None => alts.push(Field {
                    text: w.cooked.to_string(),
                    dyn_at: w.dyn_at,
                }),
            }
            if alts.len() > super::vars::MAX_CHOICES || collapsed {
                // too many to try each: only their common prefix is known
                alts = vec![super::vars::common_prefix(&alts)];
                collapsed = true;
            }
        }
        Value::from_choices(alts)
    }
}
