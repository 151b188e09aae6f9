//! One classified operation: its verdict ([`Engine::op_outcome`]), and, only when a decision
//! is reported, what it does in words ([`op_action`]). Most calls are plain allows, and
//! [`Engine::plain_allow`] decides them from the verdicts alone, building no explanation.

use super::config::Effect;
use super::engine::{By, Caller, Engine, OpOutcome, PathCtx, Trace};
use super::message::{self, Action};
use super::paths::{Location, Roots};
use super::policy::{
    git_op_name, git_slot, SLOT_CREATE, SLOT_DELETE, SLOT_OPAQUE, SLOT_READ, SLOT_WRITE,
};
use super::request::{Request, Verdict};
use super::tools::{Classification, OpKind, Target, ToolOp};
use crate::shell::GitOp;

/// What an operation turned out to be once placed: the slot its verdict was taken from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Placed {
    /// A git or gh operation.
    Git(GitOp),
    /// A step that cannot be resolved statically.
    Opaque,
    /// A relative path after `cd` into a directory only known at run time (opaque).
    Unplaced,
    /// A path operation decided on this slot (read, write, create, delete).
    Path(usize),
    /// An operation whose kind and target do not fit (opaque).
    Malformed,
}

impl Engine {
    /// The verdict on one classified operation, and what it was decided as. Trace lines (for
    /// `nso explain`) are built only when traced.
    pub(crate) fn op_outcome(
        &self,
        req: &Request,
        roots: &Roots,
        caller: Caller,
        op: &ToolOp,
        ctx: Option<&PathCtx>,
        trace: &mut Trace,
    ) -> (OpOutcome, Placed) {
        match (&op.kind, &op.target) {
            (OpKind::Git(g), Target::Git { subcommand }) => {
                trace.add(|| format!("operation: git {} (git {subcommand})", git_op_name(*g)));
                let out = match git_slot(*g) {
                    None => {
                        trace.add(|| "  read-only git is always allowed".to_string());
                        OpOutcome::new(Verdict::Allow, By::GitRead)
                    }
                    Some(slot) => self.role_slot(caller, slot, req.rule_tool(), trace),
                };
                (out, Placed::Git(*g))
            }
            (OpKind::Opaque, Target::Opaque { detail, .. }) => {
                trace.add(|| format!("operation: opaque ({detail})"));
                let out = self.role_slot(caller, SLOT_OPAQUE, req.rule_tool(), trace);
                (out, Placed::Opaque)
            }
            (kind, Target::Path(given)) => {
                let Some(ctx) = ctx else {
                    trace.add(|| format!("operation: opaque ({})", unplaced_detail(given)));
                    let out = self.role_slot(caller, SLOT_OPAQUE, req.rule_tool(), trace);
                    return (out, Placed::Unplaced);
                };
                let slots: &[usize] = match kind {
                    OpKind::Read => &[SLOT_READ],
                    OpKind::Write => &[SLOT_WRITE],
                    OpKind::Create => &[SLOT_CREATE],
                    OpKind::Delete => &[SLOT_DELETE],
                    _ => match self.existence(req, ctx) {
                        Some(true) => &[SLOT_WRITE],
                        Some(false) => &[SLOT_CREATE],
                        // Both rights are needed, unless they coincide for this agent.
                        None => match caller {
                            Caller::Known(a) if self.policy.write_create_same(a) => &[SLOT_WRITE],
                            _ => &[SLOT_WRITE, SLOT_CREATE],
                        },
                    },
                };
                let mut result: Option<(OpOutcome, usize)> = None;
                for &slot in slots {
                    trace.add(|| {
                        format!(
                            "operation: {} {}{}",
                            message::slot_word(slot),
                            ctx.loc.display(),
                            ctx.link
                                .as_ref()
                                .map(|_| format!(" (given as {}, a symlink)", ctx.given))
                                .unwrap_or_default()
                        )
                    });
                    let mut out = self.eval_path(req, roots, caller, slot, ctx, op, trace);
                    if slot == SLOT_DELETE {
                        if let Some(link) = &ctx.link {
                            let link_ctx = PathCtx {
                                loc: link.clone(),
                                abs: roots.absolute_of(link),
                                given: ctx.given,
                                link: None,
                                below: ctx.below,
                            };
                            trace.add(|| format!("  also the link itself: {}", link.display()));
                            let o2 = self.eval_path(req, roots, caller, slot, &link_ctx, op, trace);
                            if o2.verdict == Verdict::Block && out.verdict != Verdict::Block {
                                out = o2;
                            }
                        }
                    }
                    let replace = match &result {
                        None => true,
                        Some((prev, _)) => {
                            prev.verdict != Verdict::Block && out.verdict == Verdict::Block
                        }
                    };
                    if replace {
                        result = Some((out, slot));
                    }
                }
                let (out, slot) = result.expect("at least one slot");
                (out, Placed::Path(slot))
            }
            _ => {
                let out = self.role_slot(caller, SLOT_OPAQUE, req.rule_tool(), trace);
                (out, Placed::Malformed)
            }
        }
    }

    /// Whether a call is a plain allow: every operation allowed, with no reminder, no log
    /// line and nothing to report. Decided from the verdicts alone, so the common case builds
    /// no texts; anything else is decided again in full, with its explanation.
    pub(super) fn plain_allow(
        &self,
        req: &Request,
        class: &Classification,
        ctxs: &[Option<PathCtx>],
    ) -> bool {
        if class.unclassified || self.asks_status(ctxs) {
            return false;
        }
        let caller = self.caller(req);
        let agent = match caller {
            Caller::Known(a) => Some(a),
            _ => None,
        };
        let roots = Roots::new(&req.worktree, &req.directory, self.policy.case_insensitive);
        let mut trace = Trace { lines: None };
        class.ops.iter().zip(ctxs).all(|(op, ctx)| {
            let (out, _) = self.op_outcome(req, &roots, caller, op, ctx.as_ref(), &mut trace);
            out.verdict == Verdict::Allow
                && out.notices.is_empty()
                && match out.by {
                    By::Default(slot) => !matches!(
                        self.policy.default_for(agent, slot).0,
                        Effect::Soft | Effect::Warn
                    ),
                    _ => true,
                }
        })
    }
}

impl Engine {
    /// Whether a status machine governs a path of the call. Its check is a callback (into the
    /// lazily loaded workflow package, in wasm) that is asked once per decision, by the full
    /// one: a second answer could differ (a trap in between), so the fast path leaves it.
    fn asks_status(&self, ctxs: &[Option<PathCtx>]) -> bool {
        ctxs.iter().flatten().any(|c| {
            [Some(&c.loc), c.link.as_ref()]
                .into_iter()
                .flatten()
                .any(|loc| matches!(loc, Location::Inside(rel) if self.status_scoped(rel)))
        })
    }
}

/// What an operation does, for messages and the reported operations: the action, the kind
/// word, the git operation and the path as given when a symlink was followed.
pub(crate) fn op_action(
    op: &ToolOp,
    ctx: Option<&PathCtx>,
    roots: &Roots,
    placed: Placed,
) -> (Action, &'static str, Option<&'static str>, Option<String>) {
    let snippet = op.step.as_ref().map(|s| s.snippet.clone());
    match (placed, &op.target, ctx) {
        (Placed::Git(g), Target::Git { subcommand }, _) => (
            Action::git(g, subcommand, snippet),
            "git",
            Some(git_op_name(g)),
            None,
        ),
        (Placed::Opaque, Target::Opaque { reason, detail }, _) => (
            Action::opaque(*reason, detail, snippet),
            "opaque",
            None,
            None,
        ),
        (Placed::Unplaced, Target::Path(given), _) => (
            Action::opaque(None, &unplaced_detail(given), snippet),
            "opaque",
            None,
            None,
        ),
        (Placed::Path(slot), _, Some(ctx)) => {
            let dynamic = ctx.below && slot != SLOT_DELETE;
            let via = ctx.link.as_ref().map(|_| ctx.given.to_string());
            (
                Action::path(slot, &ctx.loc, roots, snippet, dynamic),
                message::slot_word(slot),
                None,
                via,
            )
        }
        _ => (
            Action::opaque(None, "malformed operation", snippet),
            "opaque",
            None,
            None,
        ),
    }
}

fn unplaced_detail(given: &str) -> String {
    format!("{given} relative to a directory only known at run time")
}
