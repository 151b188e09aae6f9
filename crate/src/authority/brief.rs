//! The part of a decision a hook acts on and logs, as it crosses to the shim on every call
//! that is not a plain allow.

use super::request::{Decision, Verdict};
use serde::Serialize;

/// A decision's verdict, rule and message, and its reminders, log lines and unclassified
/// flag when there are any. The operations, which only `nso explain` shows, stay behind:
/// encoding and parsing them was most of what a refusal cost a hook.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Brief<'a> {
    /// See [`Decision::verdict`].
    pub verdict: Verdict,
    /// See [`Decision::rule_id`].
    pub rule_id: &'a str,
    /// See [`Decision::message`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<&'a str>,
    /// See [`Decision::notices`].
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub notices: &'a [String],
    /// See [`Decision::log`].
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub log: &'a [String],
    /// See [`Decision::unclassified`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unclassified: bool,
    /// Set by a boundary for a refusal that lasts (see [`Engine::answer`]), decided the
    /// first time in its session: the key that counts its repeats ([`repeat_key`], below
    /// 2^53, so exact as a JavaScript number), so a shim may remember the refusal and count
    /// it with [`Engine::refused_again`] instead of asking again.
    ///
    /// [`Engine::answer`]: super::Engine::answer
    /// [`Engine::refused_again`]: super::Engine::refused_again
    /// [`repeat_key`]: super::repeat_key
    #[serde(skip_serializing_if = "Option::is_none")]
    pub again: Option<u64>,
}

impl Decision {
    /// What a hook needs of this decision (see [`Brief`]).
    pub fn brief(&self) -> Brief<'_> {
        Brief {
            verdict: self.verdict,
            rule_id: &self.rule_id,
            message: self.message.as_deref(),
            notices: &self.notices,
            log: &self.log,
            unclassified: self.unclassified,
            again: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::authority::{Engine, Policy, Request};
    use serde_json::{json, Value};

    fn request(agent: &str, command: &str) -> Request {
        Request {
            session_id: "s".into(),
            agent: Some(agent.into()),
            tool: "bash".into(),
            args: json!({ "command": command }),
            directory: "/p".into(),
            worktree: "/p".into(),
            ..Request::default()
        }
    }

    #[test]
    fn a_brief_is_the_decision_without_its_operations() {
        let mut engine = Engine::new(Policy::preset("kord").expect("kord"));
        let d = engine.decide(&request("dev", "git push origin main"));
        let brief: Value = serde_json::to_value(d.brief()).expect("brief");
        assert_eq!(
            brief,
            json!({ "verdict": "block", "ruleId": "kord.git.push", "message": d.message })
        );
        let full: Value = serde_json::to_value(&d).expect("decision");
        for key in ["verdict", "ruleId", "message"] {
            assert_eq!(brief[key], full[key], "{key}");
        }
    }

    #[test]
    fn a_brief_carries_reminders_log_lines_and_the_unclassified_flag_when_there_are_any() {
        let mut engine = Engine::new(Policy::preset("kord").expect("kord"));
        let mut req = request("dev", "");
        req.tool = "mystery_tool".into();
        req.args = json!({});
        let d = engine.decide(&req);
        let brief: Value = serde_json::to_value(d.brief()).expect("brief");
        assert_eq!(brief["unclassified"], json!(true), "{brief}");
        assert_eq!(brief["log"], json!(d.log), "{brief}");
        assert!(!d.log.is_empty(), "{d:?}");
    }
}
