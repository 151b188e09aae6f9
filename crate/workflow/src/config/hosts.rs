//! The `claudeCode` section of `.opencode/nso.json`: who is calling when Claude Code runs
//! NSO's hook (`nso hook claude-code`). Claude Code names a subagent in its hook input
//! (`agent_type`) and names nobody for the main agent, so the main agent's NSO name is
//! configured here. Every key is optional.

use super::{ConfigError, Ctx};
use serde_json::Value;
use std::collections::BTreeMap;

/// Identity of Claude Code's callers (`claudeCode`).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeCodeConfig {
    /// The NSO agent the main Claude Code agent is decided as. `None`: the main agent has no
    /// identity, and its calls are decided as an unidentified caller (fail closed).
    pub main_agent: Option<String>,
    /// Claude Code subagent types (`agent_type`, e.g. `Explore`) and the NSO agent each is
    /// decided as; a type not listed is decided under its own name.
    pub agents: BTreeMap<String, String>,
}

impl ClaudeCodeConfig {
    /// The NSO agent of a call: `agent_type` inside a subagent, else the main agent.
    pub fn agent_for(&self, agent_type: Option<&str>) -> Option<String> {
        match agent_type.filter(|t| !t.is_empty()) {
            Some(t) => Some(self.agents.get(t).cloned().unwrap_or_else(|| t.to_string())),
            None => self.main_agent.clone(),
        }
    }
}

const KEYS: [&str; 2] = ["mainAgent", "agents"];

/// Parses the `claudeCode` section.
pub(crate) fn parse(ctx: &Ctx, v: &Value) -> Result<ClaudeCodeConfig, ConfigError> {
    let mut config = ClaudeCodeConfig::default();
    let c = ctx.object(v, "claudeCode")?;
    ctx.known_keys(c, "claudeCode", &KEYS)?;
    if let Some(v) = c.get("mainAgent") {
        config.main_agent = Some(agent_name(ctx, v, "claudeCode.mainAgent")?);
    }
    if let Some(v) = c.get("agents") {
        for (key, value) in ctx.object(v, "claudeCode.agents")? {
            let path = format!("claudeCode.agents.{key}");
            if key.is_empty() {
                return Err(ctx.error(
                    "config_value",
                    "claudeCode.agents",
                    "an empty subagent type.".to_string(),
                    "name each Claude Code subagent type (its `agent_type`).".to_string(),
                ));
            }
            config
                .agents
                .insert(key.clone(), agent_name(ctx, value, &path)?);
        }
    }
    Ok(config)
}

fn agent_name(ctx: &Ctx, v: &Value, path: &str) -> Result<String, ConfigError> {
    let name = ctx.string(v, path)?;
    if name.trim().is_empty() || name.trim() != name {
        return Err(ctx.error(
            "config_value",
            path,
            format!("\"{name}\" is not an agent name."),
            "name an agent of `authority.agents` (or of the preset), without spaces around it."
                .to_string(),
        ));
    }
    Ok(name.to_string())
}
