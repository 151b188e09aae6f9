//! The whole decision on one tool call, as every host takes it: the arguments bounded, the
//! facts the engine needs asked of the host (at most [`MAX_LOOKUP_ROUNDS`] rounds, then a
//! refusal), the decision with its repeats counted, and for a call that runs and changes
//! files, the files it changes (what the Conductor claims). Hosts are thin: they pass the
//! call and a [`Facts`] in, and act on the [`CallAnswer`].

use serde::Serialize;
use serde_json::Value;

use super::bounds::bound_args;
use super::engine::Engine;
use super::facts::{gather, real_path, Facts, Known};
use super::request::{Decision, Request, Verdict};
use super::tools::is_read_tool;

/// How many times the engine may ask for facts before the call is refused (fail closed).
pub const MAX_LOOKUP_ROUNDS: usize = 3;

/// Arguments of the common file tools whose real path and existence are found out before
/// the first round: most calls then need no other, and a refusal says whether the call
/// writes or creates.
const PATH_ARGS: [&str; 2] = ["filePath", "path"];

/// One tool call, as a host reports it.
#[derive(Debug, Clone, Default)]
pub struct Call {
    /// The host's session (repeats are counted per session).
    pub session_id: String,
    /// The agent making the call as the host names it (`None`: not recorded).
    pub agent: Option<String>,
    /// Who the agent works for (see [`Request::delegated_by`]).
    pub delegated_by: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// The tool's arguments, as the model sent them (bounded here).
    pub args: Value,
    /// The NSO tool making this write on the agent's behalf (see [`Request::via`]).
    pub via: Option<String>,
    /// Where relative paths start (absolute).
    pub directory: String,
    /// The project root (absolute).
    pub worktree: String,
    /// Where the call comes from, when not from an agent's tool call (`git pre-commit`):
    /// named in the logs after the tool.
    pub origin: Option<String>,
}

impl Call {
    /// How logs name the call's tool: the tool, with the NSO tool it is made through or where
    /// it comes from.
    pub fn log_name(&self) -> String {
        let via = self.via.as_deref().filter(|v| !v.is_empty());
        match (via, self.origin.as_deref().filter(|o| !o.is_empty())) {
            (_, Some(origin)) => format!("{} ({origin})", self.tool),
            (Some(via), None) => format!("{} ({via})", self.tool),
            (None, None) => self.tool.clone(),
        }
    }
}

/// The answer to a [`Call`].
#[derive(Debug, Clone)]
pub struct CallAnswer {
    /// `None`: a plain allow (nothing to tell, log or remind).
    pub decision: Option<Decision>,
    /// The project files the call changes, when it runs (`[rel, below]`, see
    /// [`Engine::write_targets`]); empty for a refused call and for read-class tools.
    pub targets: Vec<(String, bool)>,
    /// What `audit.jsonl` keeps of a call audit mode let through.
    pub audit: Option<AuditRecord>,
}

impl CallAnswer {
    /// Whether the call runs (allowed, or let through by audit mode).
    pub fn runs(&self) -> bool {
        self.decision
            .as_ref()
            .is_none_or(|d| d.verdict != Verdict::Block)
    }
}

impl Engine {
    /// Decides `call`: bounds its arguments (texts over `content_bytes` do not cross), asks
    /// `facts` what the decision needs, decides, counts a refusal's repeats in its session,
    /// and names the files a call that runs would change.
    pub fn decide_call(
        &mut self,
        call: Call,
        content_bytes: u64,
        facts: &mut dyn Facts,
    ) -> CallAnswer {
        let mut req = request_of(call, content_bytes);
        let mut known = Known::default();
        if let Err(why) = path_args_resolved(&mut req, facts, &mut known) {
            return self.refused_for_facts(&req, &why);
        }
        for _ in 0..MAX_LOOKUP_ROUNDS {
            match self.answer(&req) {
                Ok(decision) => {
                    let runs = decision
                        .as_ref()
                        .is_none_or(|d| d.verdict != Verdict::Block);
                    let targets = if runs && !is_read_tool(&req.tool) {
                        self.write_targets(&req)
                    } else {
                        Vec::new()
                    };
                    let audit = decision.as_ref().and_then(|d| d.audit_record(&req));
                    return CallAnswer {
                        decision,
                        targets,
                        audit,
                    };
                }
                Err(need) => {
                    if let Err(why) = gather(&mut req, &need, content_bytes, facts, &mut known) {
                        return self.refused_for_facts(&req, &why);
                    }
                }
            }
        }
        let why = "the decision kept asking for more than NSO looks up for one call";
        self.refused_for_facts(&req, why)
    }

    /// How `call` is decided, for `nso explain`: the facts looked up as for
    /// [`Engine::decide_call`], then the decision (repeats not counted) and its account.
    pub fn explain_call(
        &mut self,
        call: Call,
        content_bytes: u64,
        facts: &mut dyn Facts,
    ) -> Explained {
        let mut req = request_of(call, content_bytes);
        let mut known = Known::default();
        let mut ready = path_args_resolved(&mut req, facts, &mut known);
        for _ in 0..MAX_LOOKUP_ROUNDS {
            let need = self.lookups(&req);
            if ready.is_ok() && !need.is_empty() {
                ready = gather(&mut req, &need, content_bytes, facts, &mut known);
                continue;
            }
            break;
        }
        if let Err(why) = ready {
            let refused = self.refused_for_facts(&req, &why);
            let decision = refused.decision.unwrap_or_else(|| self.evaluate(&req));
            let text = decision.message.clone().unwrap_or_default();
            return Explained { decision, text };
        }
        Explained {
            decision: self.evaluate(&req),
            text: self.explain(&req),
        }
    }

    /// The refusal of a call whose facts could not be found out (fail closed, also in audit
    /// mode: NSO cannot say what the call would do).
    fn refused_for_facts(&self, req: &Request, why: &str) -> CallAnswer {
        let p = &self.policy;
        let decision = Decision {
            verdict: Verdict::Block,
            rule_id: p.rule_id("lookup"),
            rule_source: p.builtin_source(),
            agent: req.agent.clone(),
            tool: req.tool.clone(),
            operations: Vec::new(),
            message: Some(format!(
                "NSO blocked {}: {why}, so it cannot decide on this call (fail closed). Report this to the person.",
                req.tool
            )),
            notices: Vec::new(),
            log: Vec::new(),
            unclassified: false,
            repeats: 0,
        };
        CallAnswer {
            decision: Some(decision),
            targets: Vec::new(),
            audit: None,
        }
    }
}

/// How a call is decided, with its account (see [`Engine::explain_call`]).
#[derive(Debug, Clone)]
pub struct Explained {
    /// The decision (repeats not counted).
    pub decision: Decision,
    /// The human-readable account of it.
    pub text: String,
}

/// The real path and existence of each of the call's [`PATH_ARGS`] (relative ones taken
/// from the call's directory; `~` paths are outside and need none), keyed as written.
fn path_args_resolved(
    req: &mut Request,
    facts: &mut dyn Facts,
    known: &mut Known,
) -> Result<(), String> {
    for key in PATH_ARGS {
        let Some(given) = req.args.get(key).and_then(Value::as_str) else {
            continue;
        };
        if given.is_empty() || given.starts_with('~') {
            continue;
        }
        let abs = if given.starts_with('/') {
            given.to_string()
        } else {
            format!("{}/{given}", req.directory.trim_end_matches('/'))
        };
        let (real, exists) = real_path(facts, known, &abs)?;
        let given = given.to_string();
        req.resolved.insert(given.clone(), real);
        req.exists.insert(given, exists);
    }
    Ok(())
}

/// `call` as the engine decides it, its arguments bounded.
fn request_of(call: Call, content_bytes: u64) -> Request {
    Request {
        session_id: call.session_id,
        agent: call.agent,
        delegated_by: call.delegated_by,
        args: bound_args(&call.tool, call.args, content_bytes),
        tool: call.tool,
        directory: call.directory,
        worktree: call.worktree,
        via: call.via,
        ..Request::default()
    }
}

/// What `audit.jsonl` keeps of a call that audit mode let through (its time is the host's),
/// in the order the file's lines have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditRecord {
    /// The session.
    pub session: Option<String>,
    /// The agent as the host named it.
    pub agent: Option<String>,
    /// The tool.
    pub tool: String,
    /// The rule that would have refused it.
    pub rule: String,
    /// What the call was about (see [`call_target`]).
    pub target: Option<String>,
    /// What NSO would have told the agent.
    pub message: Option<String>,
}

impl Decision {
    /// The `nso.log` lines of this decision, each to be preceded by the time and a space:
    /// the verdict line (verdict, tool, agent, rule, reminders), then the core's extra lines.
    pub fn log_lines(&self, tool: &str, agent: Option<&str>) -> Vec<String> {
        let mut line = format!(
            "{} {tool} @{} {}",
            super::request::verdict_word(self.verdict),
            agent.unwrap_or("?"),
            self.rule_id
        );
        if self.unclassified {
            line.push_str(" (unclassified tool)");
        }
        if !self.notices.is_empty() {
            line.push_str(" reminder: ");
            line.push_str(&self.notices.join(" | "));
        }
        let mut lines = vec![line];
        lines.extend(self.log.iter().cloned());
        lines
    }

    /// What `audit.jsonl` keeps of this decision on `req`, when audit mode let it through.
    pub fn audit_record(&self, req: &Request) -> Option<AuditRecord> {
        (self.verdict == Verdict::Audit).then(|| AuditRecord {
            session: Some(req.session_id.clone()).filter(|s| !s.is_empty()),
            agent: req.agent.clone(),
            tool: req.tool.clone(),
            rule: self.rule_id.clone(),
            target: call_target(&req.args).map(str::to_string),
            message: self.message.clone(),
        })
    }
}

/// What a tool call is about, for logs and feeds: its path, command or pattern argument,
/// else the first file a patch names.
pub fn call_target(args: &Value) -> Option<&str> {
    for key in [
        "filePath",
        "path",
        "command",
        "pattern",
        "url",
        "subagent_type",
    ] {
        if let Some(s) = args
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            return Some(s);
        }
    }
    let patch = args.get("patchText").and_then(Value::as_str)?;
    let mut rest = patch;
    while let Some(at) = rest.find("*** ") {
        let after = &rest[at + 4..];
        for verb in ["Add File: ", "Update File: ", "Delete File: "] {
            if let Some(name) = after.strip_prefix(verb) {
                let end = name
                    .find(['\n', '\r', '\u{2028}', '\u{2029}'])
                    .unwrap_or(name.len());
                if end > 0 {
                    return Some(&name[..end]);
                }
            }
        }
        rest = &rest[at + 1..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authority::{FastMap, FileText, Policy};
    use serde_json::json;

    /// A file system of a few paths: `links` maps a path to where it really leads.
    #[derive(Default)]
    struct Disk {
        files: FastMap<String, String>,
        links: FastMap<String, String>,
        asked: usize,
    }

    impl Facts for Disk {
        fn real_path(&mut self, abs: &str) -> Result<(String, bool), String> {
            self.asked += 1;
            let real = self
                .links
                .get(abs)
                .cloned()
                .unwrap_or_else(|| abs.to_string());
            let exists = self.files.contains_key(&real);
            Ok((real, exists))
        }
        fn read(&mut self, abs: &str, max: u64) -> Result<FileText, String> {
            Ok(match self.files.get(abs) {
                None => FileText::Missing,
                Some(t) if t.len() as u64 > max => FileText::TooLarge(t.len() as u64),
                Some(t) => FileText::Text(t.clone()),
            })
        }
    }

    fn call(agent: &str, tool: &str, args: Value) -> Call {
        Call {
            session_id: "s".into(),
            agent: Some(agent.into()),
            delegated_by: None,
            tool: tool.into(),
            args,
            directory: "/p".into(),
            worktree: "/p".into(),
            via: None,
            origin: None,
        }
    }

    #[test]
    fn a_write_is_decided_on_where_it_really_lands() {
        let mut e = Engine::new(Policy::preset("kord").expect("kord"));
        let mut disk = Disk::default();
        let write = || {
            call(
                "dev",
                "write",
                json!({"filePath": "src/a.ts", "content": "x"}),
            )
        };
        let answer = e.decide_call(write(), 1 << 20, &mut disk);
        assert!(answer.decision.is_none(), "{answer:?}");
        assert_eq!(answer.targets, vec![("src/a.ts".to_string(), false)]);
        // The same call after src/ became a link out of the project: asked again, refused.
        disk.links
            .insert("/p/src/a.ts".into(), "/elsewhere/a.ts".into());
        let answer = e.decide_call(write(), 1 << 20, &mut disk);
        let d = answer.decision.expect("refused");
        assert_eq!(d.verdict, Verdict::Block);
        assert_eq!(d.rule_id, "kord.outside_project");
        assert!(answer.targets.is_empty());
    }

    #[test]
    fn a_host_that_cannot_answer_refuses_the_call() {
        struct Broken;
        impl Facts for Broken {
            fn real_path(&mut self, _: &str) -> Result<(String, bool), String> {
                Err("permission denied".into())
            }
            fn read(&mut self, _: &str, _: u64) -> Result<FileText, String> {
                Err("permission denied".into())
            }
        }
        let mut e = Engine::new(Policy::preset("kord").expect("kord"));
        let answer = e.decide_call(
            call(
                "dev",
                "write",
                json!({"filePath": "src/a.ts", "content": "x"}),
            ),
            1 << 20,
            &mut Broken,
        );
        let d = answer.decision.expect("refused");
        assert_eq!(d.verdict, Verdict::Block);
        assert_eq!(d.rule_id, "kord.lookup");
        let m = d.message.unwrap_or_default();
        assert!(
            m.contains("/p/src/a.ts") && m.contains("permission denied"),
            "{m}"
        );
    }

    #[test]
    fn read_class_calls_claim_nothing_and_a_refusal_names_no_target() {
        let mut e = Engine::new(Policy::preset("kord").expect("kord"));
        let mut disk = Disk::default();
        let answer = e.decide_call(
            call("qa", "read", json!({"filePath": "src/a.ts"})),
            10,
            &mut disk,
        );
        assert!(answer.decision.is_none() && answer.targets.is_empty());
        let answer = e.decide_call(
            call("qa", "bash", json!({"command": "git push"})),
            10,
            &mut disk,
        );
        assert!(!answer.runs() && answer.targets.is_empty());
    }

    #[test]
    fn log_lines_and_the_audit_record() {
        let mut e = Engine::new(Policy::preset("kord").expect("kord"));
        let args = json!({"command": "git push"});
        let d = e
            .decide_call(call("qa", "bash", args.clone()), 10, &mut Disk::default())
            .decision
            .expect("refused");
        assert_eq!(
            d.log_lines("bash", Some("qa")),
            vec!["block bash @qa kord.git.push".to_string()]
        );
        let mut audit = Engine::new(
            Policy::from_config_json(r#"{"preset": "kord", "mode": "audit"}"#, "t")
                .expect("policy"),
        );
        let answer = audit.decide_call(call("qa", "bash", args), 10, &mut Disk::default());
        let record = answer.audit.expect("an audit record");
        assert_eq!(
            serde_json::to_value(&record).expect("json"),
            json!({"session": "s", "agent": "qa", "tool": "bash", "rule": "kord.git.push",
                   "target": "git push", "message": answer.decision.and_then(|d| d.message)})
        );
        let patch = json!({"patchText": "*** Begin Patch\n*** Update File: a/b.txt\n@@"});
        assert_eq!(call_target(&patch), Some("a/b.txt"));
        assert_eq!(
            call_target(&json!({"filePath": "", "command": "ls"})),
            Some("ls")
        );
        assert_eq!(call_target(&json!({"x": 1})), None);
    }
}
