//! Texts: block messages for agents, soft reminders, warn log lines, `nso explain`.
//!
//! One format for every block:
//! `NSO blocked <tool> for @<agent>: <action and target>. Rule <id> (<source>): <why>.
//! Who may: <agents>. Instead: <what this agent may do>. <Whom to ask>.` — never an
//! invitation to retry. Agents are named as the project names them, and only agents the
//! project has are suggested ([`Names`]); a primary agent is told to ask the person, a
//! subagent to report to its caller.

use crate::shell::{GitOp, OpaqueReason, RESOLVED_SEP};

use super::config::Effect;
use super::engine::{By, Caller, OpOutcome};
use super::names::{join_names, with_members, Names, NO_AGENT, THE_PERSON};
use super::paths::{Location, Roots};
use super::policy::{Policy, Rule, SLOT_CREATE, SLOT_DELETE, SLOT_READ, SLOT_WRITE};
use super::request::{verdict_word, Decision, Request};
use super::tools::NSO_TOOLS;

/// What an operation does, for messages.
#[derive(Debug, Clone)]
pub(crate) struct Action {
    kind: ActionKind,
    /// Target as shown (path, git subcommand, opaque detail).
    pub target: String,
    snippet: Option<String>,
    worktree: Option<String>,
    /// The project-relative path of a path operation inside the project.
    rel: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ActionKind {
    Path { slot: usize, outside: bool },
    Git(GitOp),
    Opaque(Option<OpaqueReason>),
}

impl Action {
    /// `dynamic`: the exact path is only known at run time, somewhere below `loc`.
    pub(crate) fn path(
        slot: usize,
        loc: &Location,
        roots: &Roots,
        snippet: Option<String>,
        dynamic: bool,
    ) -> Action {
        Action {
            kind: ActionKind::Path {
                slot,
                outside: matches!(loc, Location::Outside(_)),
            },
            target: if dynamic {
                format!("a path under {} only known at run time", loc.display())
            } else {
                loc.display().to_string()
            },
            snippet,
            worktree: match loc {
                Location::Outside(_) => roots.worktree.as_deref().map(str::to_string),
                _ => None,
            },
            rel: match loc {
                Location::Inside(rel) => Some(rel.clone()),
                _ => None,
            },
        }
    }

    pub(crate) fn git(op: GitOp, subcommand: &str, snippet: Option<String>) -> Action {
        Action {
            kind: ActionKind::Git(op),
            target: format!("git {subcommand}"),
            snippet,
            worktree: None,
            rel: None,
        }
    }

    pub(crate) fn opaque(
        reason: Option<OpaqueReason>,
        detail: &str,
        snippet: Option<String>,
    ) -> Action {
        Action {
            kind: ActionKind::Opaque(reason),
            target: detail.to_string(),
            snippet,
            worktree: None,
            rel: None,
        }
    }

    fn describe(&self) -> String {
        // A bash step that came from indirection (`eval "git push"`, `$g push`, a git
        // alias) names what it resolved to: `"eval "git push"" runs `git push`, a push`.
        if let Some((written, resolved)) = self
            .snippet
            .as_deref()
            .and_then(|s| s.split_once(RESOLVED_SEP))
        {
            let what = match &self.kind {
                ActionKind::Git(op) => git_noun(*op).to_string(),
                _ => format!("which {}", self.describe_unquoted()),
            };
            return format!("\"{written}\" runs `{resolved}`, {what}");
        }
        let quoted = self.snippet.as_ref().map(|s| format!("\"{}\"", s));
        self.describe_with(quoted)
    }

    /// The action without the command text: "deletes src/a.rs", "cannot be checked: ...".
    fn describe_unquoted(&self) -> String {
        match &self.kind {
            ActionKind::Path { slot, .. } => {
                let place = self.place();
                format!("{} {}{place}", slot_verb_s(*slot), self.target)
            }
            ActionKind::Git(op) => format!("is {}", git_noun(*op)),
            ActionKind::Opaque(reason) => {
                format!("cannot be checked: {}", self.opaque_why(*reason))
            }
        }
    }

    /// `, outside the project (WORKTREE)` for a path outside it.
    fn place(&self) -> String {
        match (&self.kind, &self.worktree) {
            (ActionKind::Path { outside: true, .. }, Some(w)) => {
                format!(", outside the project ({w})")
            }
            (ActionKind::Path { outside: true, .. }, None) => ", outside the project".to_string(),
            _ => String::new(),
        }
    }

    fn opaque_why(&self, reason: Option<OpaqueReason>) -> String {
        match reason {
            Some(r) => opaque_why(r).to_string(),
            None => self.target.clone(),
        }
    }

    fn describe_with(&self, quoted: Option<String>) -> String {
        match &self.kind {
            ActionKind::Path { slot, .. } => {
                let place = self.place();
                match quoted {
                    Some(q) => format!("{q} {} {}{place}", slot_verb_s(*slot), self.target),
                    None => format!("{} {}{place}", slot_verb_ing(*slot), self.target),
                }
            }
            ActionKind::Git(op) => match quoted {
                Some(q) => format!("{q} is {}", git_noun(*op)),
                None => format!("{} is {}", self.target, git_noun(*op)),
            },
            ActionKind::Opaque(reason) => {
                let why = self.opaque_why(*reason);
                match quoted {
                    Some(q) => format!("{q} cannot be checked: {why}"),
                    None => format!("the call cannot be checked: {why}"),
                }
            }
        }
    }

    /// Verb phrase without the target ("push", "write src/a.rs").
    fn verb_phrase(&self) -> String {
        match &self.kind {
            ActionKind::Path { slot, .. } => format!("{} {}", slot_word(*slot), self.target),
            ActionKind::Git(op) => git_verb(*op).to_string(),
            ActionKind::Opaque(_) => "run commands NSO cannot check".to_string(),
        }
    }
}

/// `read`/`write`/`create`/`delete`.
pub(crate) fn slot_word(slot: usize) -> &'static str {
    match slot {
        SLOT_READ => "read",
        SLOT_WRITE => "write",
        SLOT_CREATE => "create",
        SLOT_DELETE => "delete",
        _ => "change",
    }
}

fn slot_verb_s(slot: usize) -> &'static str {
    match slot {
        SLOT_READ => "reads",
        SLOT_WRITE => "writes",
        SLOT_CREATE => "creates",
        SLOT_DELETE => "deletes",
        _ => "changes",
    }
}

fn slot_verb_ing(slot: usize) -> &'static str {
    match slot {
        SLOT_READ => "reading",
        SLOT_WRITE => "writing",
        SLOT_CREATE => "creating",
        SLOT_DELETE => "deleting",
        _ => "changing",
    }
}

fn git_noun(op: GitOp) -> &'static str {
    match op {
        GitOp::Push => "a push",
        GitOp::Merge => "a merge",
        GitOp::Rebase => "a rebase",
        GitOp::PullRebase => "a pull with rebase",
        GitOp::Pull => "a pull",
        GitOp::Commit => "a commit",
        GitOp::Add => "staging (git add)",
        GitOp::BranchCreate => "a branch creation",
        GitOp::BranchDelete => "a branch deletion",
        GitOp::Tag => "a tag",
        GitOp::Reset => "a reset",
        GitOp::Checkout => "a checkout",
        GitOp::Stash => "a stash",
        GitOp::Clean => "a git clean (it deletes untracked files)",
        GitOp::CherryPick => "a cherry-pick",
        GitOp::Revert => "a revert",
        GitOp::HistoryRewrite => {
            "a history rewrite (force push, amend, hard reset or interactive rebase)"
        }
        GitOp::PrCreate => "a pull request creation",
        GitOp::PrMerge => "a pull request merge",
        GitOp::PrClose => "closing a pull request",
        GitOp::ReleaseCreate => "a release creation",
        GitOp::Read => "read-only git",
    }
}

fn git_verb(op: GitOp) -> &'static str {
    match op {
        GitOp::Push => "push",
        GitOp::Merge => "merge",
        GitOp::Rebase => "rebase",
        GitOp::PullRebase => "pull with rebase",
        GitOp::Pull => "pull",
        GitOp::Commit => "commit",
        GitOp::Add => "stage files",
        GitOp::BranchCreate => "create branches",
        GitOp::BranchDelete => "delete branches",
        GitOp::Tag => "tag",
        GitOp::Reset => "reset",
        GitOp::Checkout => "check out",
        GitOp::Stash => "stash",
        GitOp::Clean => "run git clean",
        GitOp::CherryPick => "cherry-pick",
        GitOp::Revert => "revert",
        GitOp::HistoryRewrite => "rewrite history",
        GitOp::PrCreate => "create pull requests",
        GitOp::PrMerge => "merge pull requests",
        GitOp::PrClose => "close pull requests",
        GitOp::ReleaseCreate => "create releases",
        GitOp::Read => "read",
    }
}

fn opaque_why(r: OpaqueReason) -> &'static str {
    match r {
        OpaqueReason::Eval => "it runs eval",
        OpaqueReason::DynamicProgram => "the program to run is only known at run time",
        OpaqueReason::InterpreterOneLiner => "it is an interpreter one-liner",
        OpaqueReason::Source => "it sources a script",
        OpaqueReason::ParseError => "NSO could not parse it",
        OpaqueReason::TooLarge => "it is too large to analyse",
        OpaqueReason::DepthLimit => "it nests shells too deeply",
        OpaqueReason::GitAlias => "it uses a git alias",
        OpaqueReason::ScriptFromStdin => "it feeds a script to a shell on standard input",
    }
}

/// `@a, @b` (or `every agent` for `*`).
pub(crate) fn agent_list(names: &[String]) -> String {
    if names.iter().any(|n| n == "*") {
        return "every agent".to_string();
    }
    names
        .iter()
        .map(|n| format!("@{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn sentence(s: &str) -> &str {
    s.trim().trim_end_matches('.')
}

fn caller_label(names: &Names, req: &Request, caller: Caller) -> String {
    match caller {
        Caller::Known(i) => names.caller(req, i),
        Caller::Unknown => format!(
            "unknown agent \"{}\"",
            req.agent.as_deref().unwrap_or("").trim()
        ),
        Caller::Missing => "an unidentified agent".to_string(),
    }
}

/// The text a blocked agent reads.
#[allow(clippy::too_many_arguments)]
pub(crate) fn block_message(
    names: &Names,
    req: &Request,
    caller: Caller,
    action: &Action,
    outcome: &OpOutcome,
    (id, source): (&str, &str),
    who: &[String],
    others: usize,
) -> String {
    let agent = caller_label(names, req, caller);
    let mut m = format!(
        "NSO blocked {} for {}: {}.",
        req.tool,
        agent,
        action.describe()
    );
    let reason = reason_text(names, req, caller, action, outcome);
    m.push_str(&format!(" Rule {id} ({source}): {}.", sentence(&reason)));
    // Where nobody may (outside the project, an unusable path, a rewrite of an append-only
    // record, a status move the machine refuses), there is nobody to name.
    if !matches!(
        outcome.by,
        By::Outside | By::Invalid(_) | By::Status { .. } | By::AppendOnly(_)
    ) {
        m.push_str(" Who may: ");
        // A rule that spares some tools (`exceptTools`) leaves those as the only way.
        let only_through = match outcome.by {
            By::Rule(i) => Some(&names.policy.rules[i].except_tools).filter(|t| !t.is_empty()),
            _ => None,
        };
        if let (true, Some(tools)) = (who.is_empty(), only_through) {
            m.push_str(&format!(
                "no agent directly, only through {}",
                tools.join(", ")
            ));
        } else if who.is_empty() {
            m.push_str(NO_AGENT);
        } else {
            let shown: Vec<&str> = who.iter().take(5).map(String::as_str).collect();
            m.push_str(&shown.join(", "));
            if who.len() > 5 {
                m.push_str(&format!(" and {} more", who.len() - 5));
            }
        }
        m.push('.');
    }
    let instead = instead_text(names, req, caller, action, outcome, who);
    m.push_str(&format!(" Instead: {}.", sentence(&instead)));
    if let Some(ask) = escalation(req, &outcome.by) {
        m.push(' ');
        m.push_str(&ask);
    }
    if others > 0 {
        m.push_str(&format!(
            " ({others} other operation{} of this call {} blocked too.)",
            if others == 1 { "" } else { "s" },
            if others == 1 { "is" } else { "are" }
        ));
    }
    m
}

/// Whom a refused agent asks: the person, for a primary agent; its caller, for a subagent.
pub(crate) fn whom_to_ask(req: &Request) -> String {
    match req.delegated_by.as_deref().map(str::trim) {
        None => "ask the person".to_string(),
        Some("") => "report it to your caller".to_string(),
        Some(caller) => format!(
            "report it to your caller (@{})",
            caller.trim_start_matches('@')
        ),
    }
}

/// The sentence after `Instead`: whom to ask when the work needs what was refused. None for
/// the refusals whose fix is the person's configuration (an unknown or unidentified agent).
fn escalation(req: &Request, by: &By) -> Option<String> {
    if matches!(by, By::UnknownAgent | By::MissingAgent) {
        return None;
    }
    Some(format!("If the work needs this, {}.", whom_to_ask(req)))
}

fn is_task_list(target: &str) -> bool {
    target.ends_with("TODO.md") || target.ends_with("state.json")
}

fn agent_name(names: &Names, req: &Request, caller: Caller) -> String {
    match caller {
        Caller::Known(i) => names.caller(req, i),
        _ => "this agent".to_string(),
    }
}

/// The agents `idx` the project has, joined; `no agent of this project` without any.
fn names_of(names: &Names, idx: &[usize]) -> String {
    let found = names.existing(idx.iter().copied());
    if found.is_empty() {
        NO_AGENT.to_string()
    } else {
        join_names(&found)
    }
}

fn reason_text(
    names: &Names,
    req: &Request,
    caller: Caller,
    action: &Action,
    o: &OpOutcome,
) -> String {
    let p = names.policy;
    let with_detail = |base: String| match &o.detail {
        Some(d) => format!("{base}; here {}", sentence(d)),
        None => base,
    };
    match &o.by {
        By::Rule(i) => {
            let r = &p.rules[*i];
            let excluded = matches!(caller, Caller::Known(a) if r.exclusive && !r.members[a]);
            if let Some(reason) = &r.reason {
                with_members(reason, names, Some(*i), NO_AGENT)
            } else if excluded {
                let members = names.members_text(*i, NO_AGENT);
                if members == NO_AGENT {
                    format!("{NO_AGENT} may {}", action.verb_phrase())
                } else {
                    format!("only {members} may {}", action.verb_phrase())
                }
            } else if let Some(d) = &r.description {
                with_members(d, names, Some(*i), NO_AGENT)
            } else {
                format!(
                    "{} may not {}",
                    agent_name(names, req, caller),
                    action.verb_phrase()
                )
            }
        }
        By::Sacred(i) => {
            let s = &p.sacred[*i];
            let what = s.description.as_deref().unwrap_or("these files");
            let authors = names.existing(s.authors.iter().copied());
            let mut base = format!(
                "{} are sacred: only {} change{} them",
                sentence(what),
                names_of(names, &s.authors),
                if authors.len() == 1 { "s" } else { "" }
            );
            if !names.existing(s.tickers.iter().copied()).is_empty() {
                base.push_str(&format!(
                    ", and {} may only tick checkboxes (`- [ ]` → `- [x]`)",
                    names_of(names, &s.tickers)
                ));
            }
            with_detail(base)
        }
        By::AppendOnly(i) => {
            let a = &p.append_only[*i];
            let what = a.description.as_deref().unwrap_or("a record");
            with_detail(format!(
                "{} is append-only ({}): what it already holds must stay exactly as it is",
                action.target,
                sentence(what)
            ))
        }
        By::Default(slot) => {
            let cat = super::policy::DEFAULT_NAMES[super::policy::default_category(*slot)];
            format!(
                "no rule lets {} {} (the default for {cat} is block)",
                agent_name(names, req, caller),
                action.verb_phrase()
            )
        }
        By::Outside => {
            let allowed = outside_allowed(p);
            let wt = action.worktree.as_deref().unwrap_or("the worktree");
            if allowed.is_empty() {
                format!("agents change files only inside the project ({wt})")
            } else {
                format!(
                    "agents change files only inside the project ({wt}) and in {}",
                    allowed.join(", ")
                )
            }
        }
        By::Invalid(why) => format!("the path is not usable: {why}"),
        By::UnknownAgent => format!(
            "\"{}\" is not an agent of this policy ({}), and unknown agents may only read",
            req.agent.as_deref().unwrap_or("").trim(),
            p.builtin_source()
        ),
        By::MissingAgent => format!(
            "NSO does not know which agent made this call (none is recorded for session {}), and unidentified agents may only read",
            if req.session_id.is_empty() { "?" } else { &req.session_id }
        ),
        By::GitRead => "read-only git".to_string(),
        By::Status { .. } => o.detail.clone().unwrap_or_default(),
    }
}

fn outside_allowed(p: &Policy) -> Vec<String> {
    let id = p.rule_id("outside_project.allow");
    p.rules
        .iter()
        .filter(|r| r.id == id && r.disabled_by.is_none())
        .flat_map(|r| r.paths.iter().map(|g| g.as_str().to_string()))
        .collect()
}

fn example_agent(names: &Names) -> String {
    let p = names.policy;
    ["dev", "builder", "build"]
        .into_iter()
        .filter_map(|n| p.agents.iter().position(|a| a.name == n))
        .chain(0..p.agents.len())
        .find_map(|i| names.of(i).map(str::to_string))
        .unwrap_or_else(|| "build".to_string())
}

/// The areas agent `a` may change with `slot`, nearest to `rel` first (at most three): the
/// paths of the allow rules it is a member of (through an NSO tool, said so), and the sacred
/// areas it authors.
fn allowed_areas(p: &Policy, a: usize, slot: usize, rel: &str) -> Vec<String> {
    let mut areas: Vec<(usize, String)> = Vec::new();
    let mut add = |glob: &str, through: Option<&str>| {
        let near = glob
            .bytes()
            .zip(rel.bytes())
            .take_while(|(g, r)| g == r && !b"*?[{".contains(g))
            .count();
        let text = match through {
            Some(tool) => format!("`{glob}` (with {tool})"),
            None => format!("`{glob}`"),
        };
        if !areas.iter().any(|(_, t)| *t == text) {
            areas.push((near, text));
        }
    };
    for r in &p.rules {
        let usable = r.disabled_by.is_none()
            && r.effect == Effect::Allow
            && r.members.get(a) == Some(&true)
            && r.slots.contains(&slot)
            && r.except_tools.is_empty();
        // A rule for other tools is a way only through NSO's own tools, which agents have.
        let through = match r.tools.as_slice() {
            [] => None,
            [tool] if NSO_TOOLS.contains(&tool.as_str()) => Some(tool.as_str()),
            _ => continue,
        };
        if usable {
            // Inside the project only (`/dev/null` and the like are no place to put work).
            for g in r.paths.iter().filter(|g| !g.is_absolute()) {
                add(g.as_str(), through);
            }
        }
    }
    for s in p.sacred.iter().filter(|s| s.authors.contains(&a)) {
        for g in &s.paths {
            add(g.as_str(), None);
        }
    }
    // The nearest first; of two as near, the shorter (the broader area).
    areas.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.len().cmp(&y.1.len())));
    areas.into_iter().take(3).map(|(_, t)| t).collect()
}

/// What the refused agent may do instead: the rule's own advice, or the nearest thing the
/// policy lets this agent do.
fn instead_text(
    names: &Names,
    req: &Request,
    caller: Caller,
    action: &Action,
    o: &OpOutcome,
    who: &[String],
) -> String {
    let p = names.policy;
    let custom = match &o.by {
        By::Rule(i) => p.rules[*i]
            .instead
            .as_deref()
            .map(|t| with_members(t, names, Some(*i), THE_PERSON)),
        By::Sacred(i) => p.sacred[*i].instead.clone(),
        By::AppendOnly(i) => p.append_only[*i].instead.clone(),
        By::Outside => p.outside_instead.clone(),
        _ => None,
    };
    if let Some(c) = custom {
        return c;
    }
    match &o.by {
        By::UnknownAgent => {
            let name = req.agent.as_deref().unwrap_or("").trim().trim_start_matches('@');
            let like = example_agent(names);
            format!(
                "report this to the person. To give \"{name}\" rights, the person adds it to .opencode/nso.json, e.g. {{\"agents\": {{\"{name}\": {{\"like\": \"{like}\"}}}}}} (it then has the rights of @{like}), or names it in a rule's \"agents\""
            )
        }
        By::MissingAgent => format!(
            "report this to the person: the host named no agent for this call. In OpenCode the NSO plugin learns the agent from chat.params, and none arrived for this session (restart the session after the plugin has loaded; an agent OpenCode reports under another name can be declared in .opencode/nso.json, e.g. {{\"agents\": {{\"{}\": {{\"displayNames\": [\"Name As Shown\"]}}}}}}); in Claude Code the main agent is the one .opencode/nso.json names in claudeCode.mainAgent (`nso init claude-code --main-agent NAME`)",
            example_agent(names)
        ),
        By::Status { .. } if is_task_list(&action.target) => "move the task with the nso_status_set tool (or `nso status set <number> <STATUS>`), to a state you may move it to (above); it checks the move and writes TODO.md and state.json together".to_string(),
        By::Status { .. } => "with the edit tool, change only the status, to a state you may move it to (above), and leave the rest of the status untouched".to_string(),
        By::Outside => "keep the change inside the project; a folder outside it is allowed only when the person adds it to outsideProject.allow in .opencode/nso.json".to_string(),
        By::Invalid(_) => "use a path inside the project, relative to it or absolute".to_string(),
        By::AppendOnly(_) => "add your text at the end without touching what is there: an edit whose oldString is the file's last lines and whose newString is those lines plus your addition, or append with `>>`".to_string(),
        By::Sacred(i) => {
            let s = &p.sacred[*i];
            match caller {
                Caller::Known(a) if s.tickers.contains(&a) => "change nothing but checkboxes (`- [ ]` → `- [x]`), with the rest of every line identical".to_string(),
                _ => format!("leave the plan as it is; {} update{} plan files", names_of(names, &s.authors), if names.existing(s.authors.iter().copied()).len() == 1 { "s" } else { "" }),
            }
        }
        _ => match &action.kind {
            ActionKind::Git(_) if who.is_empty() => format!("leave `{}` to the person", action.target),
            ActionKind::Git(_) => format!("leave `{}` to {}", action.target, join_names(&who.iter().take(3).cloned().collect::<Vec<_>>())),
            ActionKind::Opaque(_) => "write the command as plain steps NSO can check (no eval, no variable as the program, no interpreter one-liners)".to_string(),
            ActionKind::Path { slot, .. } if *slot == SLOT_DELETE => "leave the file in place".to_string(),
            ActionKind::Path { slot, .. } if *slot == SLOT_READ => "work with what you may read".to_string(),
            ActionKind::Path { slot, .. } => {
                let areas = match caller {
                    Caller::Known(a) => allowed_areas(p, a, *slot, action.rel.as_deref().unwrap_or("")),
                    _ => Vec::new(),
                };
                if areas.is_empty() {
                    "you may read files but not change them; do not route the change through another tool or bash".to_string()
                } else {
                    format!("you may {} {}; do not route this change through another tool or bash", slot_word(*slot), or_list(&areas))
                }
            }
        },
    }
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// What agents read while NSO cannot enforce its rules (a config that does not load): why,
/// what NSO refuses meanwhile, and the fix. Every host shows this same text. (A host whose
/// core did not load at all cannot ask for it, and words its own, stricter notice.)
pub fn not_enforcing(problem: &str, fix: &str) -> String {
    format!(
        "NSO is not enforcing its rules: {problem} Until this is fixed, NSO refuses write-class \
         tools (fail closed); reads still work. Fix: {fix}"
    )
}

/// Reminder appended to a tool's output for a soft rule.
pub(crate) fn soft_notice(r: &Rule) -> String {
    let text = r
        .reason
        .as_deref()
        .or(r.description.as_deref())
        .unwrap_or("this call is allowed but flagged by the policy");
    format!("NSO reminder ({}, {}): {}.", r.id, r.source, sentence(text))
}

/// Log line for a warn rule.
pub(crate) fn warn_line(r: &Rule, agent: Option<&str>, tool: &str, target: &str) -> String {
    let text = r
        .reason
        .as_deref()
        .or(r.description.as_deref())
        .unwrap_or("flagged by the policy");
    format!(
        "NSO warn {} ({}): @{} {} {}: {}",
        r.id,
        r.source,
        agent.unwrap_or("?"),
        tool,
        target,
        sentence(text)
    )
}

/// The `nso explain` text.
pub(crate) fn explain_text(p: &Policy, req: &Request, d: &Decision, lines: Vec<String>) -> String {
    let mut out = format!(
        "NSO explain: policy `{}`{}\nrequest: tool {}, agent {:?}, directory {:?}, worktree {:?}\n",
        p.name,
        p.preset
            .as_ref()
            .map(|x| format!(" (preset {x})"))
            .unwrap_or_default(),
        req.tool,
        req.agent.as_deref().unwrap_or(""),
        req.directory,
        req.worktree
    );
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str(&format!(
        "decision: {} by {} ({})\n",
        verdict_word(d.verdict),
        d.rule_id,
        d.rule_source
    ));
    if let Some(m) = &d.message {
        out.push_str(&format!("message: {m}\n"));
    }
    for n in &d.notices {
        out.push_str(&format!("notice: {n}\n"));
    }
    for l in &d.log {
        out.push_str(&format!("log: {l}\n"));
    }
    out
}
