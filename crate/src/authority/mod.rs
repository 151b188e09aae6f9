//! Interim authority engine: only the outside-the-project rule. Replaced by the full engine.

use serde_json::Value;
use std::collections::HashMap;

/// A tool call to decide on.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub session_id: String,
    pub agent: Option<String>,
    pub tool: String,
    pub args: Value,
    pub directory: String,
    pub worktree: String,
    #[serde(default)]
    pub resolved: HashMap<String, String>,
    #[serde(default)]
    pub contents: HashMap<String, Option<String>>,
}

/// The verdict of a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Allow,
    Block,
    Soft,
    Warn,
}

/// A decision with its explanation.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub verdict: Verdict,
    pub rule_id: Option<String>,
    pub message: Option<String>,
}

/// The compiled policy.
pub struct Engine;

impl Engine {
    pub fn new(_policy: &Value, _source: &str) -> Result<Engine, String> {
        Ok(Engine)
    }
    pub fn required_content(&self, _req: &Request) -> Vec<String> {
        vec![]
    }
    pub fn decide(&mut self, req: &Request) -> Decision {
        let path = req
            .args
            .get("filePath")
            .and_then(Value::as_str)
            .unwrap_or("");
        if matches!(req.tool.as_str(), "write" | "edit") && !path.is_empty() {
            let abs = if path.starts_with('/') {
                path.to_string()
            } else {
                format!("{}/{}", req.directory, path)
            };
            let real = req.resolved.get(path).cloned().unwrap_or(abs);
            let root = format!("{}/", req.worktree.trim_end_matches('/'));
            if !real.starts_with(&root) {
                return Decision {
                    verdict: Verdict::Block,
                    rule_id: Some("nso.outside_project".into()),
                    message: Some(format!(
                        "NSO blocked {} for @{}: {real} is outside the project.",
                        req.tool,
                        req.agent.as_deref().unwrap_or("?")
                    )),
                };
            }
        }
        Decision {
            verdict: Verdict::Allow,
            rule_id: None,
            message: None,
        }
    }
}
