//! Evaluating one operation: sacred areas, rules, defaults, append-only content, and who
//! else may do it. See the module docs of [`crate::authority`] for the order.

use super::config::Effect;
use super::content::{keeps_prefix, new_content, only_ticks, Change};
use super::engine::{By, Caller, Engine, OpOutcome, PathCtx, Trace};
use super::message;
use super::paths::{Location, Roots};
use super::policy::{Policy, DEFAULT_NAMES, SLOT_DELETE, SLOT_READ, SLOT_WRITE};
use super::request::{Request, Verdict};
use super::tools::ToolOp;

impl Engine {
    /// Full evaluation of a path operation: identity, sacred, rules, defaults, append-only.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn eval_path(
        &self,
        req: &Request,
        roots: &Roots,
        caller: Caller,
        slot: usize,
        ctx: &PathCtx,
        op: &ToolOp,
        trace: &mut Trace,
    ) -> OpOutcome {
        let mut tick = || -> Result<(), String> {
            if let Change::Oversized(_) = op.change {
                return Err(oversized_note(&op.change));
            }
            let old = self.content(req, ctx.abs.as_deref(), ctx.given).ok_or_else(|| {
                format!(
                    "NSO did not receive the file's current content{}, so it cannot check that only checkboxes change",
                    self.missing_content_note(req, ctx.abs.as_deref(), ctx.given)
                )
            })?;
            let new = new_content(&op.change, self.change_base(req, roots, op, old)?)
                .map_err(|e| format!("NSO cannot check the change: {e}"))?;
            only_ticks(old, &new).map_err(|line| {
                format!("line {line} changes more than a `- [ ]` → `- [x]` checkbox")
            })
        };
        let mut out = self.role_path(caller, slot, ctx, req.rule_tool(), &mut tick, trace);
        // A refusal audit mode would let through still meets NSO's guarantees.
        if out.verdict == Verdict::Block && slot != SLOT_READ && self.audited(&out.by) {
            if let Some(kept) = self.guarantee(req, roots, slot, ctx, op, trace) {
                return kept;
            }
        }
        if out.verdict == Verdict::Block || slot == SLOT_READ {
            return out;
        }
        let (Caller::Known(agent), Location::Inside(rel)) = (caller, &ctx.loc) else {
            return out;
        };
        if let Some(ai) = self.append_only_at(agent, rel, slot == SLOT_DELETE || ctx.below) {
            let a = &self.policy.append_only[ai];
            trace.add(|| format!("  append-only area {} ({}) applies", a.id, a.source));
            if let Err(detail) = self.check_append(req, ctx, op, slot, roots) {
                trace.add(|| format!("  append-only check fails: {detail}"));
                out = OpOutcome {
                    verdict: Verdict::Block,
                    by: By::AppendOnly(ai),
                    notices: Vec::new(),
                    detail: Some(detail),
                };
            } else {
                trace.add(|| {
                    "  append-only check passes: the old content stays a prefix".to_string()
                });
            }
        }
        if out.verdict == Verdict::Block || ctx.below {
            return out;
        }
        if self.status_scoped(rel) {
            match self.check_status(req, roots, agent, slot, ctx, op, rel) {
                Ok(None) => {}
                Ok(Some((machine, moves))) => {
                    trace.add(|| format!("  status machine {machine} governs {rel}"));
                    trace.add(|| format!("  status check passes{moves}"));
                }
                Err((machine, builtin, detail)) => {
                    if !machine.is_empty() {
                        trace.add(|| format!("  status machine {machine} governs {rel}"));
                    }
                    trace.add(|| format!("  status check fails: {detail}"));
                    out = OpOutcome {
                        verdict: Verdict::Block,
                        by: By::Status { machine, builtin },
                        notices: Vec::new(),
                        detail: Some(detail),
                    };
                }
            }
        }
        out
    }

    /// The refusal of NSO's guarantees that hold even in audit mode, for any caller: a rule
    /// for every agent with `mode: enforce` (NSO's own config), and an append-only area that
    /// holds in audit mode (the decision ledger).
    fn guarantee(
        &self,
        req: &Request,
        roots: &Roots,
        slot: usize,
        ctx: &PathCtx,
        op: &ToolOp,
        trace: &mut Trace,
    ) -> Option<OpOutcome> {
        let Location::Inside(rel) = &ctx.loc else {
            return None;
        };
        let p = &self.policy;
        let ci = p.case_insensitive;
        let below = slot == SLOT_DELETE || ctx.below;
        let hits = |g: &super::Glob| {
            !g.is_absolute()
                && if below {
                    g.matches_or_below(rel, ci)
                } else {
                    g.matches_normalized(rel, ci)
                }
        };
        for (ri, r) in p.rules.iter().enumerate() {
            let everyone = r.agent_names.iter().any(|a| a == "*");
            if r.enforce
                && everyone
                && r.disabled_by.is_none()
                && r.effect == super::config::Effect::Block
                && r.slots.contains(&slot)
                && r.applies_to_tool(req.rule_tool())
                && r.paths.iter().any(hits)
                && !r.except.iter().any(|g| g.matches_normalized(rel, ci))
            {
                trace.add(|| format!("  rule {} ({}) holds in audit mode", r.id, r.source));
                return Some(OpOutcome::new(Verdict::Block, By::Rule(ri)));
            }
        }
        let area = p.append_only.iter().position(|a| {
            a.enforce
                && a.agents.is_none()
                && a.paths.iter().any(hits)
                && !a.except.iter().any(|g| g.matches_normalized(rel, ci))
        })?;
        let detail = self.check_append(req, ctx, op, slot, roots).err()?;
        trace.add(|| {
            format!(
                "  append-only area {} holds in audit mode: {detail}",
                p.append_only[area].id
            )
        });
        Some(OpOutcome {
            verdict: Verdict::Block,
            by: By::AppendOnly(area),
            notices: Vec::new(),
            detail: Some(detail),
        })
    }

    /// Checks the status change an operation makes in a file status machines may govern.
    /// `Ok(None)`: no machine governs it; `Ok(Some((machine, moves)))`: allowed;
    /// `Err((machine, builtin, why))`: refused (the machine is empty when NSO could not
    /// even compute the change).
    #[allow(clippy::too_many_arguments)]
    fn check_status(
        &self,
        req: &Request,
        roots: &Roots,
        agent: usize,
        slot: usize,
        ctx: &PathCtx,
        op: &ToolOp,
        rel: &str,
    ) -> Result<Option<(String, String)>, (String, bool, String)> {
        let fail = |why: String| (String::new(), true, why);
        if let Change::Oversized(_) = op.change {
            return Err(fail(oversized_note(&op.change)));
        }
        let old = self
            .content_opt(req, ctx.abs.as_deref(), ctx.given)
            .ok_or_else(|| {
                fail(format!(
                    "NSO did not receive the current content of {rel}{}, so it cannot check the status change",
                    self.missing_content_note(req, ctx.abs.as_deref(), ctx.given)
                ))
            })?;
        let mut unseen = None;
        let new = if slot == SLOT_DELETE {
            if old.is_none() {
                return Ok(None);
            }
            String::new()
        } else {
            match &op.change {
                Change::Unknown | Change::Append | Change::None => {
                    unseen = Some(format!(
                        "NSO cannot see what this {} writes into {rel}, whose status it checks; make the change with the edit or write tool so the move can be checked",
                        if op.step.is_some() { "shell command" } else { "tool" }
                    ));
                    String::new()
                }
                change => {
                    let base = self
                        .change_base(req, roots, op, old.unwrap_or(""))
                        .map_err(|e| fail(e.to_string()))?;
                    new_content(change, base).map_err(|e| {
                        fail(format!("NSO cannot compute the new content of {rel}: {e}"))
                    })?
                }
            }
        };
        // The agent's own name first, then those it is `like` (it may make their moves).
        let p = &self.policy;
        let agents = p
            .like_chain(agent)
            .map(|a| p.agents[a].name.clone())
            .collect();
        let answer = self.status_answer(&super::request::StatusQuery {
            file: rel.to_string(),
            old: old.map(str::to_string),
            new,
            agents,
            unseen: unseen.is_some(),
        });
        let machine = answer.machine.unwrap_or_default();
        if let (Some(why), false) = (unseen, machine.is_empty()) {
            let detail = format!("{why}. {}", answer.detail);
            return Err((machine, answer.builtin, detail.trim_end().to_string()));
        }
        match (answer.allowed, machine.is_empty()) {
            (true, true) => Ok(None),
            (true, false) => Ok(Some((machine, answer.detail))),
            (false, _) => Err((machine, answer.builtin, answer.detail)),
        }
    }

    pub(super) fn check_append(
        &self,
        req: &Request,
        ctx: &PathCtx,
        op: &ToolOp,
        slot: usize,
        roots: &Roots,
    ) -> Result<(), String> {
        if slot == SLOT_DELETE {
            return Err("deleting it would lose what it records".to_string());
        }
        match &op.change {
            Change::Append => return Ok(()),
            Change::Oversized(_) => return Err(oversized_note(&op.change)),
            Change::Unknown | Change::None => {
                return Err(match &op.step {
                    Some(_) => "NSO cannot see what this shell command writes; only appends (`>>`, `tee -a`) are allowed here".to_string(),
                    None => "NSO cannot see what this tool writes into the file".to_string(),
                })
            }
            _ => {}
        }
        let old = self
            .content(req, ctx.abs.as_deref(), ctx.given)
            .ok_or_else(|| {
                format!(
                    "NSO did not receive the file's current content{}, so it cannot check that it is kept",
                    self.missing_content_note(req, ctx.abs.as_deref(), ctx.given)
                )
            })?;
        let new = new_content(&op.change, self.change_base(req, roots, op, old)?)
            .map_err(|e| format!("NSO cannot check the change: {e}"))?;
        if keeps_prefix(old, &new) {
            Ok(())
        } else {
            let line = first_diff_line(old, &new);
            Err(format!("the change rewrites existing content (line {line} differs); only additions at the end are allowed"))
        }
    }

    /// The text a change applies to: the file's own `old` content, or for a patch that moves
    /// a file onto this path, the moved file's content.
    fn change_base<'r>(
        &self,
        req: &'r Request,
        roots: &Roots,
        op: &ToolOp,
        old: &'r str,
    ) -> Result<&'r str, &'static str> {
        match &op.change {
            Change::Hunks {
                from: Some(src), ..
            } => {
                let l = self.base_roots(req, roots, op).locate(src);
                self.content(req, roots.absolute_of(&l).as_deref(), src)
                    .ok_or("NSO did not receive the moved file's content")
            }
            _ => Ok(old),
        }
    }

    pub(crate) fn append_only_for(&self, agent: usize, rel: &str) -> Option<usize> {
        self.append_only_at(agent, rel, false)
    }

    /// The append-only area covering `rel` for `agent`; with `below`, also an area that holds
    /// paths below `rel` (folder deletes, dynamic shell paths).
    pub(super) fn append_only_at(&self, agent: usize, rel: &str, below: bool) -> Option<usize> {
        let ci = self.policy.case_insensitive;
        self.policy.append_only.iter().position(|a| {
            a.agents.as_ref().is_none_or(|l| l.contains(&agent))
                && a.paths.iter().any(|g| {
                    !g.is_absolute()
                        && if below {
                            g.matches_or_below(rel, ci)
                        } else {
                            g.matches_normalized(rel, ci)
                        }
                })
                && !a.except.iter().any(|g| g.matches_normalized(rel, ci))
        })
    }

    pub(crate) fn sacred_for(&self, rel: &str, below: bool) -> Option<usize> {
        let ci = self.policy.case_insensitive;
        self.policy.sacred.iter().position(|s| {
            s.paths.iter().any(|g| {
                !g.is_absolute()
                    && if below {
                        g.matches_or_below(rel, ci)
                    } else {
                        g.matches_normalized(rel, ci)
                    }
            }) && !s.except.iter().any(|g| g.matches_normalized(rel, ci))
        })
    }

    /// Role evaluation of a path operation: sacred areas, rules, defaults (no append-only).
    /// `tick` checks a ticker's change (content rules); `who_may` passes `|| Ok(())`.
    pub(crate) fn role_path(
        &self,
        caller: Caller,
        slot: usize,
        ctx: &PathCtx,
        tool: &str,
        tick: &mut dyn FnMut() -> Result<(), String>,
        trace: &mut Trace,
    ) -> OpOutcome {
        let p = &self.policy;
        let ci = p.case_insensitive;
        let agent = match caller {
            Caller::Known(a) => a,
            _ if slot == SLOT_READ => {
                let (e, _) = p.default_for(None, slot);
                trace.add(|| "  unknown agents may read (policy default for read)".to_string());
                return default_outcome(e, slot);
            }
            Caller::Unknown => return OpOutcome::new(Verdict::Block, By::UnknownAgent),
            Caller::Missing => return OpOutcome::new(Verdict::Block, By::MissingAgent),
        };
        if let Location::Invalid(why) = ctx.loc {
            if slot != SLOT_READ {
                trace.add(|| format!("  invalid path: {why}"));
                return OpOutcome::new(Verdict::Block, By::Invalid(why));
            }
        }
        let rel = match &ctx.loc {
            Location::Inside(r) => Some(r.as_str()),
            _ => None,
        };
        let delete = slot == SLOT_DELETE || ctx.below;
        let mut block: Option<(u32, By, Option<String>)> = None;
        let mut allow: Option<(u32, By)> = None;
        let mut notices = Vec::new();
        let consider = |best: &mut Option<(u32, By, Option<String>)>,
                        spec: u32,
                        by: By,
                        detail: Option<String>,
                        p: &Policy| {
            let better = match best {
                None => true,
                Some((s, b, _)) => spec > *s || (spec == *s && by_id(p, &by) < by_id(p, b)),
            };
            if better {
                *best = Some((spec, by, detail));
            }
        };
        // Sacred areas (inside the project, changes only).
        if let (Some(rel), true) = (rel, slot != SLOT_READ) {
            for (si, s) in p.sacred.iter().enumerate() {
                let exact = s
                    .paths
                    .iter()
                    .filter(|g| !g.is_absolute())
                    .find(|g| g.matches_normalized(rel, ci));
                let below = match (exact, delete) {
                    (None, true) => s
                        .paths
                        .iter()
                        .filter(|g| !g.is_absolute())
                        .find(|g| g.matches_or_below(rel, ci)),
                    _ => None,
                };
                let Some(g) = exact.or(below) else { continue };
                // A folder that only holds sacred files is not "more specific" than its rules.
                let spec = if exact.is_some() { g.specificity() } else { 0 };
                if s.except.iter().any(|e| e.matches_normalized(rel, ci)) {
                    continue;
                }
                if s.authors.contains(&agent) {
                    trace.add(|| {
                        format!(
                            "  sacred area {} ({}): @{} is an author",
                            s.id, s.source, p.agents[agent].name
                        )
                    });
                    continue;
                }
                if s.tickers.contains(&agent) && slot == SLOT_WRITE {
                    match tick() {
                        Ok(()) => {
                            trace.add(|| format!("  sacred area {}: @{} may tick checkboxes, and this change only ticks", s.id, p.agents[agent].name));
                            let better = allow.as_ref().is_none_or(|(sp, _)| spec > *sp);
                            if better {
                                allow = Some((spec, By::Sacred(si)));
                            }
                        }
                        Err(d) => {
                            trace.add(|| format!("  sacred area {}: blocks: {d}", s.id));
                            consider(&mut block, spec, By::Sacred(si), Some(d), p);
                        }
                    }
                } else {
                    trace.add(|| {
                        format!(
                            "  sacred area {} ({}): @{} is neither author nor ticker",
                            s.id, s.source, p.agents[agent].name
                        )
                    });
                    let detail = below.map(|_| {
                        "deleting this folder would delete the plan files it holds".to_string()
                    });
                    consider(&mut block, spec, By::Sacred(si), detail, p);
                }
            }
        }
        // Rules.
        for &ri in p.candidates(agent, slot) {
            let r = &p.rules[ri as usize];
            if !r.applies_to_tool(tool) {
                trace.add(|| format!("  rule {} ({}): {}", r.id, r.source, r.tool_filter()));
                continue;
            }
            let effect = if r.exclusive && !r.members[agent] {
                Effect::Block
            } else {
                r.effect
            };
            let blocking = effect == Effect::Block;
            let mut spec: Option<u32> = None;
            for g in &r.paths {
                // Relative globs match inside the project, absolute globs only outside it (so
                // `/tmp/**` never opens a worktree that happens to live under /tmp).
                let subject: Option<&str> = match (&ctx.loc, g.is_absolute()) {
                    (Location::Inside(rel), false) => Some(rel),
                    (Location::Outside(a), true) => Some(a),
                    _ => None,
                };
                let Some(subject) = subject else { continue };
                let (hit, this_spec) = if g.matches_normalized(subject, ci) {
                    (true, g.specificity())
                } else if delete && blocking && g.matches_or_below(subject, ci) {
                    // A folder holding matching paths: a match, but not a specific one.
                    (true, 0)
                } else {
                    (false, 0)
                };
                if hit && spec.is_none_or(|s| this_spec > s) {
                    spec = Some(this_spec);
                }
            }
            let Some(spec) = spec else {
                trace.add(|| format!("  rule {} ({}): no path matches", r.id, r.source));
                continue;
            };
            let subject = match &ctx.loc {
                Location::Inside(rel) => rel.as_str(),
                Location::Outside(a) => a.as_str(),
                Location::Invalid(_) => "",
            };
            let excluded = r.except.iter().any(|g| {
                if delete && !blocking {
                    g.matches_or_below(subject, ci)
                } else {
                    g.matches_normalized(subject, ci)
                }
            });
            if excluded {
                trace.add(|| {
                    format!(
                        "  rule {} ({}): path matches but is excepted",
                        r.id, r.source
                    )
                });
                continue;
            }
            trace.add(|| {
                format!(
                    "  rule {} ({}): matches, {}",
                    r.id,
                    r.source,
                    if r.exclusive && !r.members[agent] {
                        format!(
                            "exclusive to {} → blocks @{}",
                            message::agent_list(&r.agent_names),
                            p.agents[agent].name
                        )
                    } else {
                        effect_word(effect).to_string()
                    }
                )
            });
            match effect {
                Effect::Block => consider(&mut block, spec, By::Rule(ri as usize), None, p),
                Effect::Allow => {
                    let better = match &allow {
                        None => true,
                        Some((s, b)) => {
                            spec > *s
                                || (spec == *s && p.rules[ri as usize].id.as_str() < by_id(p, b))
                        }
                    };
                    if better {
                        allow = Some((spec, By::Rule(ri as usize)));
                    }
                }
                Effect::Soft | Effect::Warn => notices.push(ri as usize),
            }
        }
        if let Some((_, by, detail)) = block {
            return OpOutcome {
                verdict: Verdict::Block,
                by,
                notices: Vec::new(),
                detail,
            };
        }
        if let Some((_, by)) = allow {
            return with_notices(by, notices, p);
        }
        if slot != SLOT_READ {
            if let Location::Outside(_) = ctx.loc {
                trace.add(|| "  outside the project and no rule allows it".to_string());
                return OpOutcome::new(Verdict::Block, By::Outside);
            }
        }
        let (e, src) = p.default_for(Some(agent), slot);
        trace.add(|| {
            format!(
                "  no rule decides: default for {} is {} ({src})",
                DEFAULT_NAMES[super::policy::default_category(slot)],
                effect_word(e)
            )
        });
        let mut out = default_outcome(e, slot);
        if out.verdict != Verdict::Block {
            out.notices = notices;
            out = merge_notice_verdict(out, p);
        }
        out
    }

    /// Role evaluation of a git or opaque operation.
    pub(crate) fn role_slot(
        &self,
        caller: Caller,
        slot: usize,
        tool: &str,
        trace: &mut Trace,
    ) -> OpOutcome {
        let p = &self.policy;
        let agent = match caller {
            Caller::Known(a) => a,
            Caller::Unknown => return OpOutcome::new(Verdict::Block, By::UnknownAgent),
            Caller::Missing => return OpOutcome::new(Verdict::Block, By::MissingAgent),
        };
        let mut block: Option<usize> = None;
        let mut allow: Option<usize> = None;
        let mut notices = Vec::new();
        for &ri in p.candidates(agent, slot) {
            let ri = ri as usize;
            let r = &p.rules[ri];
            if !r.applies_to_tool(tool) {
                continue;
            }
            let effect = if r.exclusive && !r.members[agent] {
                Effect::Block
            } else {
                r.effect
            };
            trace.add(|| {
                format!(
                    "  rule {} ({}): {}",
                    r.id,
                    r.source,
                    if r.exclusive && !r.members[agent] {
                        format!(
                            "exclusive to {} → blocks @{}",
                            message::agent_list(&r.agent_names),
                            p.agents[agent].name
                        )
                    } else {
                        effect_word(effect).to_string()
                    }
                )
            });
            let slot_best = |best: &mut Option<usize>| {
                if best.is_none_or(|b| r.id < p.rules[b].id) {
                    *best = Some(ri);
                }
            };
            match effect {
                Effect::Block => slot_best(&mut block),
                Effect::Allow => slot_best(&mut allow),
                _ => notices.push(ri),
            }
        }
        if let Some(b) = block {
            return OpOutcome::new(Verdict::Block, By::Rule(b));
        }
        if let Some(a) = allow {
            return with_notices(By::Rule(a), notices, p);
        }
        let (e, src) = p.default_for(Some(agent), slot);
        trace.add(|| format!("  no rule decides: default is {} ({src})", effect_word(e)));
        let mut out = default_outcome(e, slot);
        if out.verdict != Verdict::Block {
            out.notices = notices;
            out = merge_notice_verdict(out, p);
        }
        out
    }

    pub(crate) fn rule_ref(&self, by: &By, caller: Caller) -> (String, String) {
        let p = &self.policy;
        match by {
            By::Rule(i) => (p.rules[*i].id.clone(), p.rules[*i].source.clone()),
            By::Sacred(i) => (p.sacred[*i].id.clone(), p.sacred[*i].source.clone()),
            By::AppendOnly(i) => (
                p.append_only[*i].id.clone(),
                p.append_only[*i].source.clone(),
            ),
            By::Default(slot) => {
                let agent = match caller {
                    Caller::Known(a) => Some(a),
                    _ => None,
                };
                (
                    p.default_id(*slot).to_string(),
                    p.default_for(agent, *slot).1.to_string(),
                )
            }
            By::Outside => (p.rule_id("outside_project"), p.builtin_source()),
            By::Invalid(_) => (p.rule_id("invalid_path"), p.builtin_source()),
            By::UnknownAgent | By::MissingAgent => (p.rule_id("unknown_agent"), p.builtin_source()),
            By::GitRead => (p.rule_id("git.read"), "built-in".to_string()),
            By::Status { machine, builtin } => (
                if machine.is_empty() {
                    "status".to_string()
                } else {
                    format!("status.{machine}")
                },
                if *builtin {
                    "built-in status machine".to_string()
                } else {
                    "status machine of the project config".to_string()
                },
            ),
        }
    }
}

fn by_id<'p>(p: &'p Policy, by: &By) -> &'p str {
    match by {
        By::Rule(i) => &p.rules[*i].id,
        By::Sacred(i) => &p.sacred[*i].id,
        By::AppendOnly(i) => &p.append_only[*i].id,
        _ => "",
    }
}

fn default_outcome(e: Effect, slot: usize) -> OpOutcome {
    let v = match e {
        Effect::Allow => Verdict::Allow,
        Effect::Block => Verdict::Block,
        Effect::Soft => Verdict::Soft,
        Effect::Warn => Verdict::Warn,
    };
    OpOutcome::new(v, By::Default(slot))
}

fn with_notices(by: By, notices: Vec<usize>, p: &Policy) -> OpOutcome {
    merge_notice_verdict(
        OpOutcome {
            verdict: Verdict::Allow,
            by,
            notices,
            detail: None,
        },
        p,
    )
}

fn merge_notice_verdict(mut out: OpOutcome, p: &Policy) -> OpOutcome {
    if out
        .notices
        .iter()
        .any(|&n| p.rules[n].effect == Effect::Soft)
    {
        out.verdict = Verdict::Soft;
    } else if out.verdict == Verdict::Allow && !out.notices.is_empty() {
        out.verdict = Verdict::Warn;
    }
    out
}

fn effect_word(e: Effect) -> &'static str {
    match e {
        Effect::Allow => "allow",
        Effect::Block => "block",
        Effect::Soft => "soft (reminder)",
        Effect::Warn => "warn (log)",
    }
}

fn first_diff_line(old: &str, new: &str) -> usize {
    old.split('\n')
        .zip(new.split('\n'))
        .position(|(a, b)| a != b)
        .map(|i| i + 1)
        .unwrap_or_else(|| old.split('\n').count().min(new.split('\n').count()))
}

/// Why a change whose text the shim left out for its size cannot be checked.
fn oversized_note(change: &Change) -> String {
    let why = new_content(change, "").err().unwrap_or_default();
    format!("NSO cannot check the change: {why}")
}
