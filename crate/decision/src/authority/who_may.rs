//! Who else may do what was refused: the "Who may" of a refusal's message. Every agent of
//! the policy is evaluated for the operation, so the answer is kept per operation (its slot,
//! tool, place and existence: all it depends on besides the policy) until the policy
//! changes; an agent refused again, or another agent refused the same, does not pay again.

use std::cell::RefCell;

use super::engine::{By, Caller, Engine, OpOutcome, Trace};
use super::fast_map::FastMap;
use super::paths::{Location, Roots};
use super::policy::{git_slot, SLOT_CREATE, SLOT_DELETE, SLOT_OPAQUE, SLOT_READ, SLOT_WRITE};
use super::request::{Request, Verdict};
use super::tools::{OpKind, ToolOp};

/// How many operations' answers are kept before starting again.
const KEPT: usize = 256;

/// What [`Engine::who_may`]'s answer depends on besides the policy and the caller.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Question {
    slot: usize,
    tool: String,
    /// For path operations: where the path lands, whether everything below it counts, and
    /// for a create-or-write, whether it exists (`Some(..)`; `None` for other operations).
    place: Option<(Location, bool, Option<Option<bool>>)>,
}

/// The agents who may do an operation, in the policy's order, each with whether only
/// checkbox ticks are allowed it: [`Engine::who_may`]'s answers by [`Question`].
#[derive(Debug, Clone, Default)]
pub(crate) struct WhoMay(RefCell<FastMap<Question, Vec<(usize, bool)>>>);

impl WhoMay {
    /// Forgets every answer (the policy changed).
    pub(crate) fn clear(&self) {
        self.0.borrow_mut().clear();
    }
}

impl Engine {
    /// Agents (other than the caller) who may do what was blocked, those with full rights
    /// first, then those with restricted ones (with a note).
    pub(super) fn who_may(
        &self,
        req: &Request,
        roots: &Roots,
        caller: Caller,
        op: &ToolOp,
        outcome: &OpOutcome,
    ) -> Vec<String> {
        if matches!(
            outcome.by,
            By::Outside | By::Invalid(_) | By::AppendOnly(_) | By::Status { .. }
        ) {
            return Vec::new();
        }
        let slot = match &op.kind {
            OpKind::Git(g) => git_slot(*g),
            OpKind::Opaque => Some(SLOT_OPAQUE),
            OpKind::Read => Some(SLOT_READ),
            OpKind::Write | OpKind::CreateOrWrite => Some(SLOT_WRITE),
            OpKind::Create => Some(SLOT_CREATE),
            OpKind::Delete => Some(SLOT_DELETE),
        };
        let Some(slot) = slot else {
            return Vec::new();
        };
        let ctx = match op.kind {
            OpKind::Git(_) | OpKind::Opaque => None,
            _ => self.path_ctx(req, roots, op, false),
        };
        let question = Question {
            slot,
            tool: req.rule_tool().to_string(),
            place: ctx.as_ref().map(|ctx| {
                let exists = (op.kind == OpKind::CreateOrWrite).then(|| self.existence(req, ctx));
                (ctx.loc.clone(), ctx.below, exists)
            }),
        };
        let cached = self.who_may_kept.0.borrow().get(&question).cloned();
        let agents = match cached {
            Some(agents) => agents,
            None => {
                let agents = self.who_may_all(req, slot, ctx.as_ref(), op);
                let mut kept = self.who_may_kept.0.borrow_mut();
                if kept.len() >= KEPT {
                    kept.clear();
                }
                kept.insert(question, agents.clone());
                agents
            }
        };
        let me = match caller {
            Caller::Known(a) => Some(a),
            _ => None,
        };
        // Named as the project names them; agents the project does not have are left out.
        let names = self.names();
        let others = || {
            agents
                .iter()
                .filter(|(a, _)| Some(*a) != me)
                .filter_map(|(a, limited)| Some((names.of(*a)?, *limited)))
        };
        let mut out: Vec<String> = Vec::new();
        for (name, limited) in others()
            .filter(|(_, l)| !l)
            .chain(others().filter(|(_, l)| *l))
        {
            let text = if limited {
                format!("@{name} (checkbox ticks only)")
            } else {
                format!("@{name}")
            };
            if !out.contains(&text) {
                out.push(text);
            }
        }
        out
    }

    /// Every agent who may do `op` (its `slot`, at `ctx` for a path operation), with whether
    /// a sacred area allows it checkbox ticks only.
    fn who_may_all(
        &self,
        req: &Request,
        slot: usize,
        ctx: Option<&super::engine::PathCtx>,
        op: &ToolOp,
    ) -> Vec<(usize, bool)> {
        let mut t = Trace { lines: None };
        let mut out = Vec::new();
        for a in 0..self.policy.agents.len() {
            let o = match ctx {
                Some(ctx) => {
                    let mut ok = || Ok(());
                    let o = self.role_path(
                        Caller::Known(a),
                        slot,
                        ctx,
                        req.rule_tool(),
                        &mut ok,
                        &mut t,
                    );
                    if op.kind == OpKind::CreateOrWrite && o.verdict != Verdict::Block {
                        let c = self.role_path(
                            Caller::Known(a),
                            SLOT_CREATE,
                            ctx,
                            req.rule_tool(),
                            &mut ok,
                            &mut t,
                        );
                        if c.verdict == Verdict::Block && self.existence(req, ctx).is_none() {
                            c
                        } else {
                            o
                        }
                    } else {
                        o
                    }
                }
                None => self.role_slot(Caller::Known(a), slot, req.rule_tool(), &mut t),
            };
            if o.verdict != Verdict::Block {
                out.push((a, matches!(o.by, By::Sacred(_))));
            }
        }
        out
    }
}
