//! The part of a call's answer a host acts on and logs, as it crosses to the host on every
//! call that is not a plain allow of a read.

use super::call::{AuditRecord, CallAnswer};
use super::request::{Decision, Verdict};
use serde::Serialize;

/// A decision's verdict, rule and message, its reminders and `nso.log` lines, and for a call
/// that runs, the files it changes and what audit mode records of it. The operations, which
/// only `nso explain` shows, stay behind.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Brief<'a> {
    /// See [`Decision::verdict`] (`allow` for a plain allow).
    pub verdict: Verdict,
    /// See [`Decision::rule_id`] (none for a plain allow).
    #[serde(skip_serializing_if = "str::is_empty")]
    pub rule_id: &'a str,
    /// See [`Decision::message`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<&'a str>,
    /// See [`Decision::notices`].
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub notices: &'a [String],
    /// See [`Decision::unclassified`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unclassified: bool,
    /// The `nso.log` lines ([`Decision::log_lines`]), each to be preceded by the time.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<String>,
    /// See [`CallAnswer::targets`].
    #[serde(skip_serializing_if = "<[(String, bool)]>::is_empty")]
    pub targets: &'a [(String, bool)],
    /// See [`CallAnswer::audit`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit: Option<&'a AuditRecord>,
}

impl CallAnswer {
    /// What a host needs of this answer to a call of `tool` by `agent` (as the host named
    /// it); `None` for a plain allow that changes no file (most calls).
    pub fn brief(&self, tool: &str, agent: Option<&str>) -> Option<Brief<'_>> {
        match &self.decision {
            None if self.targets.is_empty() => None,
            None => Some(Brief {
                verdict: Verdict::Allow,
                rule_id: "",
                message: None,
                notices: &[],
                unclassified: false,
                log: Vec::new(),
                targets: &self.targets,
                audit: None,
            }),
            Some(d) => Some(Brief {
                verdict: d.verdict,
                rule_id: &d.rule_id,
                message: d.message.as_deref(),
                notices: &d.notices,
                unclassified: d.unclassified,
                log: d.log_lines(tool, agent),
                targets: &self.targets,
                audit: self.audit.as_ref(),
            }),
        }
    }
}

impl Decision {
    /// Whether the decision refuses the call.
    pub fn refuses(&self) -> bool {
        self.verdict == Verdict::Block
    }
}
