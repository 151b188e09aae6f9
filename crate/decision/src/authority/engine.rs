//! The engine: evaluates a tool call against the policy. See the module docs of
//! [`crate::authority`] for the evaluation order.

use std::borrow::Cow;

use serde_json::Value;

use crate::shell::Cwd;

use super::config::Effect;
use super::memo::Memo;
use super::message::{self, Action};
use super::operation::op_action;
use super::paths::{Location, Roots};
use super::policy::{Policy, DEFAULT_NAMES};
use super::repeats::{call_hash, repeat_note, Repeats};
use super::request::{
    verdict_word, CheckedOp, Decision, Lookups, Request, StatusAnswer, StatusOracle, StatusQuery,
    Verdict,
};
use super::tools::{classify_with, Classification, Target, ToolKind, ToolOp};
use super::who_may::WhoMay;

/// The authority engine: a compiled policy plus per-session repeat counters.
#[derive(Debug, Clone)]
pub struct Engine {
    pub(super) policy: Policy,
    /// Refusals counted per session (see [`Repeats`]).
    repeats: Repeats,
    /// Checks status changes of files the status machines govern (see [`StatusOracle`]).
    status_oracle: Option<std::rc::Rc<dyn StatusOracle>>,
    /// Every binding glob of every active machine with its literal suffix (a cheaper test
    /// first): the first test before [`StatusConfig::resolve`], on every write.
    status_globs: Vec<(String, super::Glob)>,
    /// Recent decisions, answered again without deciding (see [`Memo`]).
    memo: Memo,
    /// Who may do what was refused, by operation (see [`WhoMay`]).
    pub(super) who_may_kept: WhoMay,
    /// Whether the status oracle was asked since the flag was last cleared: such a
    /// decision is not the policy's alone, so it is not remembered.
    oracle_asked: std::cell::Cell<bool>,
    /// The agents the project has (see [`Engine::set_project_agents`]).
    project_agents: super::names::ProjectAgents,
}

/// Why an operation got its verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum By {
    Rule(usize),
    Sacred(usize),
    AppendOnly(usize),
    /// A status machine refused the edit.
    Status {
        /// The machine's name.
        machine: String,
        /// A shipped machine (else the project's).
        builtin: bool,
    },
    Default(usize),
    Outside,
    Invalid(&'static str),
    UnknownAgent,
    MissingAgent,
    GitRead,
}

/// Result of evaluating one operation.
#[derive(Debug, Clone)]
pub(crate) struct OpOutcome {
    pub verdict: Verdict,
    pub by: By,
    /// Soft/warn rules that apply (indices into rules), when allowed.
    pub notices: Vec<usize>,
    /// Extra explanation (content rules).
    pub detail: Option<String>,
}

impl OpOutcome {
    pub(crate) fn new(verdict: Verdict, by: By) -> OpOutcome {
        OpOutcome {
            verdict,
            by,
            notices: Vec::new(),
            detail: None,
        }
    }
}

/// Collects explanation lines when `nso explain` asks for them.
pub(crate) struct Trace {
    pub lines: Option<Vec<String>>,
}

impl Trace {
    pub(crate) fn add(&mut self, f: impl FnOnce() -> String) {
        if let Some(l) = &mut self.lines {
            l.push(f());
        }
    }
}

/// A path operation with its location resolved.
pub(crate) struct PathCtx<'x> {
    pub loc: Location,
    /// Absolute form (key of `contents`/`exists`), when known.
    pub abs: Option<String>,
    /// The path as given.
    pub given: &'x str,
    /// Given path's location when a symlink was resolved (deletes check both).
    pub link: Option<Location>,
    /// The operation counts for everything below `loc` (deletes, dynamic shell paths).
    pub below: bool,
}

/// Who the caller is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caller {
    Known(usize),
    Unknown,
    Missing,
}

impl Engine {
    /// Creates an engine for a compiled policy.
    pub fn new(policy: Policy) -> Engine {
        Engine {
            policy,
            repeats: Repeats::default(),
            status_oracle: None,
            status_globs: Vec::new(),
            memo: Memo::default(),
            who_may_kept: WhoMay::default(),
            oracle_asked: std::cell::Cell::new(false),
            project_agents: None,
        }
    }

    /// Sets which project-relative paths status machines may govern (their binding globs;
    /// empty: none). Edits of such paths are checked by the [`StatusOracle`].
    pub fn set_status_scope(&mut self, globs: &[String]) {
        self.memo.clear();
        self.status_globs = globs
            .iter()
            .filter_map(|g| {
                let glob = super::Glob::new(g, false).ok()?;
                Some((literal_suffix(g).to_string(), glob))
            })
            .collect();
    }

    /// Sets what checks status changes. Without one, edits of governed paths are refused
    /// (fail closed).
    pub fn set_status_oracle(&mut self, oracle: std::rc::Rc<dyn StatusOracle>) {
        self.memo.clear();
        self.status_oracle = Some(oracle);
    }

    /// Whether a status machine may govern the project-relative path `rel`.
    pub(super) fn status_scoped(&self, rel: &str) -> bool {
        self.status_globs
            .iter()
            .any(|(suffix, g)| rel.ends_with(suffix.as_str()) && g.matches(rel, false))
    }

    /// Asks the oracle about a status change (fail closed without one).
    pub(super) fn status_answer(&self, query: &StatusQuery) -> StatusAnswer {
        self.oracle_asked.set(true);
        match &self.status_oracle {
            Some(o) => o.check(query),
            None => StatusAnswer {
                allowed: false,
                machine: None,
                builtin: true,
                detail: "NSO has no status checker loaded, so it cannot check this status change (fail closed)".to_string(),
            },
        }
    }

    /// The policy in force.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Sets the agents the project has, as the host finds them (OpenCode: its built-in
    /// agents, opencode.json's, the agent files): refusals name agents as the project does
    /// and suggest only these. `None`: every agent of the policy counts.
    pub fn set_project_agents(&mut self, agents: Option<Vec<String>>) {
        self.memo.clear();
        self.who_may_kept.clear();
        self.project_agents = agents.map(|list| list.into_iter().collect());
    }

    /// Agents as the project names them (see [`super::names`]).
    pub(crate) fn names(&self) -> super::names::Names<'_> {
        super::names::Names {
            policy: &self.policy,
            project: self.project_agents.as_ref(),
        }
    }

    /// Replaces the policy (after `.opencode/nso.json` changed), keeping repeat counters.
    pub fn set_policy(&mut self, policy: Policy) {
        self.memo.clear();
        self.who_may_kept.clear();
        self.policy = policy;
    }

    /// Decides a call and counts repeated identical blocks per session. The message of a
    /// block repeated in the same session says how often it was refused already.
    pub fn decide(&mut self, req: &Request) -> Decision {
        let d = self.evaluate(req);
        self.count_repeats(req, d, None)
    }

    /// [`Engine::decide_or_lookups`], with `None` for a plain allow (every operation allowed,
    /// no reminder, no log line: the host has nothing to do), decided without building any
    /// explanation. A decision that is not plain is the same as [`Engine::decide`]'s. A call
    /// decided recently is answered from memory (the engine's memo, keyed on everything the
    /// decision depends on); its repeats are counted anew.
    pub fn answer(&mut self, req: &Request) -> Result<Option<Decision>, Lookups> {
        let (remembered, call) = self.memo.recall(req);
        let answer = match remembered {
            Some(answer) => answer,
            None => {
                self.oracle_asked.set(false);
                let answer = self.decide_uncounted(req);
                // A plain allow is cheap to decide again: only decisions and lookups are
                // kept, and never one that asked the status machines (not the policy's alone).
                if let (Some(call), false, false) =
                    (call, matches!(answer, Ok(None)), self.oracle_asked.get())
                {
                    self.memo.keep(call, req, &answer);
                }
                answer
            }
        };
        // The fast path leaves some plain allows to the full decision (a status check).
        answer.map(|d| {
            d.map(|d| self.count_repeats(req, d, call))
                .filter(|d| !d.is_plain())
        })
    }

    /// [`Engine::answer`] before repeats are counted, never from memory.
    fn decide_uncounted(&self, req: &Request) -> Result<Option<Decision>, Lookups> {
        self.with_lookups_answered(req, |class, ctxs| {
            (!self.plain_allow(req, class, ctxs))
                .then(|| self.run_class(req, class, ctxs, &mut Trace { lines: None }))
        })
    }

    /// `decide(classification, path contexts)` for `req`, unless the shim must look something
    /// up first: then the lookups. One classification of the call serves both, so the hot
    /// path analyses a bash command once.
    fn with_lookups_answered<T>(
        &self,
        req: &Request,
        decide: impl FnOnce(&Classification, &[Option<PathCtx>]) -> T,
    ) -> Result<T, Lookups> {
        let class = self.classify(req);
        let ctxs = self.path_ctxs(req, &class);
        let lookups = self.lookups_in(req, &class, &ctxs);
        if !lookups.is_empty() {
            return Err(lookups);
        }
        Ok(decide(&class, &ctxs))
    }

    /// Whether [`Engine::answer`] takes the call for a plain allow, with what the
    /// request carries (for tests: it must agree with the full decision).
    pub fn is_plain_allow(&self, req: &Request) -> bool {
        let class = self.classify(req);
        self.plain_allow(req, &class, &self.path_ctxs(req, &class))
    }

    /// [`Engine::decide`], unless the shim must look something up first: then the
    /// lookups (as [`Engine::lookups`]).
    pub fn decide_or_lookups(&mut self, req: &Request) -> Result<Decision, Lookups> {
        let d = self.with_lookups_answered(req, |class, ctxs| {
            self.run_class(req, class, ctxs, &mut Trace { lines: None })
        })?;
        Ok(self.count_repeats(req, d, None))
    }

    /// Whether a refusal by `by` is only audited: the policy's `mode` is `audit`, or the
    /// refusing rule's is. NSO's guarantees are never audited: a rule with `mode: enforce`,
    /// an append-only area that holds in audit mode (the decision ledger's), the status
    /// machines.
    pub(crate) fn audited(&self, by: &By) -> bool {
        let p = &self.policy;
        match by {
            By::Rule(r) => !p.rules[*r].enforce && (p.audit || p.rules[*r].audit),
            By::AppendOnly(a) => !p.append_only[*a].enforce && p.audit,
            By::Status { .. } => false,
            _ => p.audit,
        }
    }

    /// Counts a block per session and tells the agent to stop when it repeats. `call` is the
    /// call's [`call_hash`] when it is known already.
    fn count_repeats(&mut self, req: &Request, mut d: Decision, call: Option<u64>) -> Decision {
        if d.verdict == Verdict::Block {
            let call = call.unwrap_or_else(|| call_hash(req));
            let n = self.repeats.bump(&req.session_id, call);
            d.repeats = n - 1;
            if let (Some(m), Some(note)) = (&mut d.message, repeat_note(n, req)) {
                m.push_str(&note);
            }
        }
        d
    }

    /// Forgets a session's repeat counters (call on session end).
    pub fn forget_session(&mut self, session_id: &str) {
        self.repeats.forget(session_id);
    }

    /// Decides a call without touching repeat counters.
    pub fn evaluate(&self, req: &Request) -> Decision {
        self.run(req, &mut Trace { lines: None })
    }

    /// A multi-line, human-readable account of how a call is decided (for `nso explain`).
    pub fn explain(&self, req: &Request) -> String {
        let mut trace = Trace {
            lines: Some(Vec::new()),
        };
        let d = self.run(req, &mut trace);
        message::explain_text(&self.policy, req, &d, trace.lines.unwrap_or_default())
    }

    pub(super) fn classify<'a>(&'a self, req: &'a Request) -> Classification<'a> {
        let lookup = |t: &str| self.policy.tools.get(t);
        classify_with(&req.tool, &req.args, Some(&lookup))
    }

    pub(crate) fn caller(&self, req: &Request) -> Caller {
        match req.agent.as_deref().map(str::trim) {
            None | Some("") => Caller::Missing,
            Some(a) => match self.policy.resolve_agent(a) {
                Some(i) => Caller::Known(i),
                None => Caller::Unknown,
            },
        }
    }

    fn run(&self, req: &Request, trace: &mut Trace) -> Decision {
        let class = self.classify(req);
        self.run_class(req, &class, &self.path_ctxs(req, &class), trace)
    }

    fn run_class(
        &self,
        req: &Request,
        class: &Classification,
        ctxs: &[Option<PathCtx>],
        trace: &mut Trace,
    ) -> Decision {
        let p = &self.policy;
        let caller = self.caller(req);
        let agent_name = match caller {
            Caller::Known(i) => Some(p.agents[i].name.clone()),
            _ => req.agent.clone().filter(|a| !a.trim().is_empty()),
        };
        trace.add(|| match caller {
            Caller::Known(i) => format!(
                "agent: {:?} is @{}",
                req.agent.as_deref().unwrap_or(""),
                p.agents[i].name
            ),
            Caller::Unknown => format!(
                "agent: {:?} is not an agent of this policy",
                req.agent.as_deref().unwrap_or("")
            ),
            Caller::Missing => "agent: none recorded for this session".to_string(),
        });
        trace.add(|| {
            format!(
                "tool: {}{} ({}), {} operation{}",
                req.tool,
                req.via
                    .as_deref()
                    .filter(|v| !v.is_empty())
                    .map(|v| format!(" on behalf of {v}"))
                    .unwrap_or_default(),
                match class.kind {
                    ToolKind::Read => "read-class",
                    ToolKind::Write => "write-class",
                    ToolKind::Shell => "shell",
                    ToolKind::Unknown => "unknown tool",
                },
                class.ops.len(),
                if class.ops.len() == 1 { "" } else { "s" }
            )
        });
        let roots = Roots::new(&req.worktree, &req.directory, p.case_insensitive);
        let mut checked = Vec::with_capacity(class.ops.len());
        let mut first_block: Option<(usize, OpOutcome, Action)> = None;
        let mut first_audit: Option<(usize, OpOutcome, Action)> = None;
        let mut notices: Vec<usize> = Vec::new();
        let mut default_notices: Vec<(usize, Verdict)> = Vec::new();
        let mut soft_first: Option<usize> = None;
        let mut warn_first: Option<usize> = None;
        for (i, op) in class.ops.iter().enumerate() {
            let (outcome, action, kind_label, git_op, via_symlink) =
                self.eval_op(req, &roots, caller, op, ctxs[i].as_ref(), trace);
            let (id, source) = self.rule_ref(&outcome.by, caller);
            trace.add(|| {
                format!(
                    "  => {} by {} ({})",
                    verdict_word(outcome.verdict),
                    id,
                    source
                )
            });
            let audited = outcome.verdict == Verdict::Block && self.audited(&outcome.by);
            match outcome.verdict {
                Verdict::Block if audited => {
                    if first_audit.is_none() {
                        first_audit = Some((i, outcome.clone(), action.clone()));
                    }
                }
                Verdict::Block => {
                    if first_block.is_none() {
                        first_block = Some((i, outcome.clone(), action.clone()));
                    }
                }
                Verdict::Soft => {
                    soft_first.get_or_insert(i);
                }
                Verdict::Warn => {
                    warn_first.get_or_insert(i);
                }
                Verdict::Allow | Verdict::Audit => {}
            }
            if outcome.verdict != Verdict::Block {
                for &n in &outcome.notices {
                    if !notices.contains(&n) {
                        notices.push(n);
                    }
                }
                if let By::Default(slot) = outcome.by {
                    let agent = match caller {
                        Caller::Known(a) => Some(a),
                        _ => None,
                    };
                    match p.default_for(agent, slot).0 {
                        Effect::Soft => default_notices.push((slot, Verdict::Soft)),
                        Effect::Warn => default_notices.push((slot, Verdict::Warn)),
                        _ => {}
                    }
                }
            }
            checked.push(CheckedOp {
                op: kind_label,
                git_op,
                target: action.target.clone(),
                via_symlink,
                snippet: op.step.as_ref().map(|s| s.snippet.clone()),
                verdict: if audited {
                    Verdict::Audit
                } else {
                    outcome.verdict
                },
                rule_id: id,
                rule_source: source,
            });
        }

        let mut d = Decision {
            verdict: Verdict::Allow,
            rule_id: String::new(),
            rule_source: String::new(),
            agent: agent_name,
            tool: req.tool.clone(),
            operations: Vec::new(),
            message: None,
            notices: Vec::new(),
            log: Vec::new(),
            unclassified: class.unclassified,
            repeats: 0,
        };
        // An enforced refusal wins over one only audited; with none, the first audited one
        // is reported as what would have been refused.
        let verdict = if first_block.is_some() {
            Verdict::Block
        } else {
            Verdict::Audit
        };
        if let Some((i, outcome, action)) = first_block.or(first_audit) {
            d.verdict = verdict;
            d.rule_id = checked[i].rule_id.clone();
            d.rule_source = checked[i].rule_source.clone();
            let others = checked.iter().filter(|c| c.verdict == verdict).count() - 1;
            let who = self.who_may(req, &roots, caller, &class.ops[i], &outcome);
            d.message = Some(message::block_message(
                &self.names(),
                req,
                caller,
                &action,
                &outcome,
                (&d.rule_id, &d.rule_source),
                &who,
                others,
            ));
        } else {
            let pick = soft_first
                .or(warn_first)
                .or_else(|| checked.iter().position(|c| c.op != "read"))
                .or(if checked.is_empty() { None } else { Some(0) });
            d.verdict = if soft_first.is_some() {
                Verdict::Soft
            } else if warn_first.is_some() {
                Verdict::Warn
            } else {
                Verdict::Allow
            };
            match pick {
                Some(i) => {
                    d.rule_id = checked[i].rule_id.clone();
                    d.rule_source = checked[i].rule_source.clone();
                }
                None => {
                    d.rule_id = p.rule_id(if class.unclassified {
                        "unclassified"
                    } else {
                        "no_operations"
                    });
                    d.rule_source = p.builtin_source();
                }
            }
            for &n in &notices {
                let r = &p.rules[n];
                let target = checked.first().map(|c| c.target.as_str()).unwrap_or("");
                match r.effect {
                    Effect::Soft => d.notices.push(message::soft_notice(r)),
                    Effect::Warn => {
                        d.log
                            .push(message::warn_line(r, d.agent.as_deref(), &req.tool, target))
                    }
                    _ => {}
                }
            }
            for (slot, v) in default_notices {
                let id = p.rule_id(&format!(
                    "default.{}",
                    DEFAULT_NAMES[super::policy::default_category(slot)]
                ));
                let text = format!("NSO reminder ({id}): this operation is allowed by default but flagged by the policy.");
                match v {
                    Verdict::Soft => d.notices.push(text),
                    _ => d.log.push(text),
                }
            }
        }
        if class.unclassified {
            d.log.push(format!(
                "NSO: tool `{}` is not classified (no path-like arguments); allowed. Add it to `tools` in .opencode/nso.json to govern it.",
                req.tool
            ));
        }
        d.operations = checked;
        d
    }

    /// Evaluates one classified operation: its verdict, then what it does in words.
    #[allow(clippy::type_complexity)]
    fn eval_op(
        &self,
        req: &Request,
        roots: &Roots,
        caller: Caller,
        op: &ToolOp,
        ctx: Option<&PathCtx>,
        trace: &mut Trace,
    ) -> (
        OpOutcome,
        Action,
        &'static str,
        Option<&'static str>,
        Option<String>,
    ) {
        let (outcome, placed) = self.op_outcome(req, roots, caller, op, ctx, trace);
        let (action, kind, git_op, via) = op_action(op, ctx, roots, placed);
        (outcome, action, kind, git_op, via)
    }

    /// Resolves a path operation's location (bash cwd, workdir, symlinks).
    /// `None` when the path is relative to a directory only known at run time.
    pub(crate) fn path_ctx<'o>(
        &self,
        req: &Request,
        roots: &Roots,
        op: &'o ToolOp,
        want_abs: bool,
    ) -> Option<PathCtx<'o>> {
        let Target::Path(given) = &op.target else {
            return None;
        };
        let given: &str = given;
        let base = self.base_roots(req, roots, op);
        let mut loc = match op.step.as_ref().map(|s| &s.cwd) {
            Some(Cwd::Unknown) if !given.starts_with('/') && !given.starts_with('~') => {
                return None
            }
            Some(Cwd::Dir(d)) if d.starts_with('~') && !given.starts_with('/') => {
                Location::Outside(format!("{}/{}", d.trim_end_matches('/'), given))
            }
            _ => base.locate(given),
        };
        // The absolute form keys the shim's maps; skip building it when they are empty.
        let maps = !req.resolved.is_empty() || !req.exists.is_empty() || !req.contents.is_empty();
        let mut abs = if maps || want_abs {
            roots.absolute_of(&loc)
        } else {
            None
        };
        let mut link = None;
        if !req.resolved.is_empty() {
            let real = req
                .resolved
                .get(given)
                .or_else(|| abs.as_ref().and_then(|a| req.resolved.get(a)));
            if let Some(real) = real.filter(|r| r.starts_with('/')) {
                let real_loc = roots.place(real.clone());
                if real_loc != loc {
                    link = Some(std::mem::replace(&mut loc, real_loc));
                    abs = roots.absolute_of(&loc);
                }
            }
        }
        Some(PathCtx {
            loc,
            abs,
            given,
            link,
            below: op.dynamic,
        })
    }

    pub(super) fn base_roots<'r, 'a>(
        &self,
        req: &Request,
        roots: &'r Roots<'a>,
        op: &ToolOp,
    ) -> Cow<'r, Roots<'a>> {
        let mut base = Cow::Borrowed(roots);
        if op.step.is_some() {
            if let Some(w) = req.args.get("workdir").and_then(Value::as_str) {
                if !w.is_empty() {
                    base = Cow::Owned(base.with_base(w));
                }
            }
            if let Some(Cwd::Dir(d)) = op.step.as_ref().map(|s| &s.cwd) {
                if !d.starts_with('~') {
                    base = Cow::Owned(base.with_base(d));
                }
            }
        }
        base
    }
}

/// The literal text a glob's matches must end with (`/status.md` for
/// `a/*/status.md`; empty when it ends in a wildcard or alternatives).
fn literal_suffix(glob: &str) -> &str {
    match glob.rfind(['*', '?', ']', '}']) {
        Some(i) => &glob[i + 1..],
        None => glob,
    }
}
