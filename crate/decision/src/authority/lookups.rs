//! What the shim looks up for the engine before a call is decided: real paths behind
//! symlinks, current contents, existence (see [`Lookups`]), and the files a call would change
//! (what the Conductor claims). The engine asks; the shim reads the disk and asks again.

use super::content::Change;
use super::engine::{Caller, Engine, PathCtx, Trace};
use super::paths::{Location, Roots};
use super::policy::{SLOT_CREATE, SLOT_WRITE};
use super::request::{Lookups, Request, Verdict};
use super::tools::{Classification, OpKind, Target, ToolOp};

impl Engine {
    /// Absolute paths whose current content the engine needs to decide `req` (append-only
    /// and sacred files, and sources of patch moves onto them). The shim reads them and
    /// passes them in [`Request::contents`] (`null` for a missing file).
    pub fn required_content(&self, req: &Request) -> Vec<String> {
        let class = self.classify(req);
        self.required_content_in(req, &class, &self.path_ctxs(req, &class))
    }

    /// The path context of every operation of a call, computed once per decision (the
    /// lookups and the evaluation share them).
    pub(super) fn path_ctxs<'o>(
        &self,
        req: &Request,
        class: &'o Classification,
    ) -> Vec<Option<PathCtx<'o>>> {
        let roots = Roots::new(&req.worktree, &req.directory, self.policy.case_insensitive);
        class
            .ops
            .iter()
            .map(|op| self.path_ctx(req, &roots, op, true))
            .collect()
    }

    fn required_content_in(
        &self,
        req: &Request,
        class: &Classification,
        ctxs: &[Option<PathCtx>],
    ) -> Vec<String> {
        let Caller::Known(agent) = self.caller(req) else {
            return Vec::new();
        };
        let roots = Roots::new(&req.worktree, &req.directory, self.policy.case_insensitive);
        let mut out: Vec<String> = Vec::new();
        for (op, ctx) in class.ops.iter().zip(ctxs) {
            if matches!(op.kind, OpKind::Read | OpKind::Git(_) | OpKind::Opaque) {
                continue;
            }
            let Some(ctx) = ctx else {
                continue;
            };
            let Location::Inside(rel) = &ctx.loc else {
                continue;
            };
            let status = self.status_scoped(rel);
            let protected = status
                || self.append_only_for(agent, rel).is_some()
                || self.sacred_for(rel, false).is_some_and(|si| {
                    let s = &self.policy.sacred[si];
                    s.tickers.contains(&agent) && !s.authors.contains(&agent)
                });
            let deleted = status && op.kind == OpKind::Delete && !ctx.below;
            if !protected || !(op.change.needs_old() || deleted) {
                continue;
            }
            if let Some(a) = &ctx.abs {
                push_unique(&mut out, a.clone());
            }
            if let Change::Hunks {
                from: Some(src), ..
            } = &op.change
            {
                let src_loc = self.base_roots(req, &roots, op).locate(src);
                if let Some(a) = roots.absolute_of(&src_loc) {
                    push_unique(&mut out, a);
                }
            }
        }
        out
    }

    /// Absolute paths the call touches whose real location (symlinks) the shim has not
    /// reported in [`Request::resolved`] (under the path as given, or its absolute form).
    /// The shim resolves them and asks again, so a link inside the project that points
    /// elsewhere is decided on its real target.
    pub fn unresolved_paths(&self, req: &Request) -> Vec<String> {
        let class = self.classify(req);
        self.unresolved_paths_in(req, &class, &self.path_ctxs(req, &class))
    }

    /// The project files the call would change (writes, creates, deletes), project-relative
    /// (`""` is the project itself), each with whether everything below it counts (a deleted
    /// folder, a shell path known only up to a folder). For the Conductor's claims.
    pub fn write_targets(&self, req: &Request) -> Vec<(String, bool)> {
        let class = self.classify(req);
        let ctxs = self.path_ctxs(req, &class);
        let mut out: Vec<(String, bool)> = Vec::new();
        for (op, ctx) in class.ops.iter().zip(&ctxs) {
            let changes = matches!(
                op.kind,
                OpKind::Write | OpKind::Create | OpKind::CreateOrWrite | OpKind::Delete
            );
            if let (
                true,
                Some(PathCtx {
                    loc: Location::Inside(rel),
                    below,
                    ..
                }),
            ) = (changes, ctx)
            {
                // A shell delete may remove a whole folder: it claims everything below too.
                let folder =
                    *below || rel.is_empty() || (op.kind == OpKind::Delete && op.step.is_some());
                let target = (rel.clone(), folder);
                if !out.contains(&target) {
                    out.push(target);
                }
            }
        }
        out
    }

    /// Everything the shim must look up before [`Engine::decide`] can answer, each without
    /// what the request already carries.
    pub fn lookups(&self, req: &Request) -> Lookups {
        let class = self.classify(req);
        self.lookups_in(req, &class, &self.path_ctxs(req, &class))
    }

    pub(super) fn lookups_in(
        &self,
        req: &Request,
        class: &Classification,
        ctxs: &[Option<PathCtx>],
    ) -> Lookups {
        let resolve = self.unresolved_paths_in(req, class, ctxs);
        let mut content = self.required_content_in(req, class, ctxs);
        content.retain(|p| !req.contents.contains_key(p) && !req.oversized.contains_key(p));
        let mut exists = self.required_exists_in(req, class, ctxs);
        exists.retain(|p| !req.exists.contains_key(p));
        Lookups {
            resolve,
            content,
            exists,
        }
    }

    fn unresolved_paths_in(
        &self,
        req: &Request,
        class: &Classification,
        ctxs: &[Option<PathCtx>],
    ) -> Vec<String> {
        let mut out = Vec::new();
        for (op, ctx) in class.ops.iter().zip(ctxs) {
            if req.resolved.contains_key(op_given(op)) {
                continue;
            }
            let Some(ctx) = ctx else {
                continue;
            };
            if let Some(abs) = ctx.abs.as_ref().filter(|a| !req.resolved.contains_key(*a)) {
                push_unique(&mut out, abs.clone());
            }
        }
        out
    }

    /// Absolute paths of `write` calls whose verdict depends on whether the file exists
    /// (the agent may create but not change it, or the reverse). The shim passes the answers
    /// in [`Request::exists`]; without them both rights are required.
    pub fn required_exists(&self, req: &Request) -> Vec<String> {
        let class = self.classify(req);
        self.required_exists_in(req, &class, &self.path_ctxs(req, &class))
    }

    fn required_exists_in(
        &self,
        req: &Request,
        class: &Classification,
        ctxs: &[Option<PathCtx>],
    ) -> Vec<String> {
        let Caller::Known(agent) = self.caller(req) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut t = Trace { lines: None };
        for (op, ctx) in class.ops.iter().zip(ctxs) {
            if op.kind != OpKind::CreateOrWrite {
                continue;
            }
            let Some(ctx) = ctx else {
                continue;
            };
            if self.existence(req, ctx).is_some() {
                continue;
            }
            let w = self.role_path(
                Caller::Known(agent),
                SLOT_WRITE,
                ctx,
                req.rule_tool(),
                &mut || Ok(()),
                &mut t,
            );
            let c = self.role_path(
                Caller::Known(agent),
                SLOT_CREATE,
                ctx,
                req.rule_tool(),
                &mut || Ok(()),
                &mut t,
            );
            if (w.verdict == Verdict::Block) != (c.verdict == Verdict::Block) {
                if let Some(a) = &ctx.abs {
                    push_unique(&mut out, a.clone());
                }
            }
        }
        out
    }

    pub(super) fn existence(&self, req: &Request, ctx: &PathCtx) -> Option<bool> {
        let key = ctx.abs.as_deref().unwrap_or(ctx.given);
        req.exists
            .get(key)
            .or_else(|| req.exists.get(ctx.given))
            .copied()
            .or_else(|| {
                req.contents
                    .get(key)
                    .or_else(|| req.contents.get(ctx.given))
                    .map(Option::is_some)
            })
    }

    /// The file's current content: `None` when the shim did not send it, `Some(None)` when
    /// the file does not exist.
    pub(super) fn content_opt<'r>(
        &self,
        req: &'r Request,
        abs: Option<&str>,
        given: &str,
    ) -> Option<Option<&'r str>> {
        let v = abs
            .and_then(|a| req.contents.get(a))
            .or_else(|| req.contents.get(given))?;
        Some(v.as_deref())
    }

    /// Why a file's current content is missing, for refusals: its size when the shim left it
    /// out for being too large, else nothing.
    pub(super) fn missing_content_note(
        &self,
        req: &Request,
        abs: Option<&str>,
        given: &str,
    ) -> String {
        abs.and_then(|a| req.oversized.get(a))
            .or_else(|| req.oversized.get(given))
            .map(|bytes| {
                format!(
                    " (it is {bytes} bytes, more than NSO reads: limits.contentBytes in .opencode/nso.json; an append with `>>` or `tee -a` needs no read)"
                )
            })
            .unwrap_or_default()
    }

    pub(super) fn content<'r>(
        &self,
        req: &'r Request,
        abs: Option<&str>,
        given: &str,
    ) -> Option<&'r str> {
        let v = abs
            .and_then(|a| req.contents.get(a))
            .or_else(|| req.contents.get(given))?;
        Some(v.as_deref().unwrap_or(""))
    }
}

fn push_unique(v: &mut Vec<String>, s: String) {
    if !v.contains(&s) {
        v.push(s);
    }
}

/// The path of a path operation as given (empty for other operations).
fn op_given<'o>(op: &'o ToolOp) -> &'o str {
    match &op.target {
        Target::Path(given) => given,
        _ => "",
    }
}
