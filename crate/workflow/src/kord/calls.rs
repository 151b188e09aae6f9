//! The orchestrator's decisions as the shell calls them: the texts it read in, one verdict
//! out. A corrupt state file or a broken squad refuses (fail closed) and says how to mend it.

use super::gates::Squads;
use super::orchestrator::{
    after_delegation, before_delegation, files_to_read, squad_of, Context, Delegation, State,
    Target, Verdict,
};
use super::plan::parse_plan;
use serde::Deserialize;

/// One call of the shell.
#[derive(Debug, Clone, Deserialize)]
pub struct DelegationInput {
    /// The state file's text (`None`: no state yet).
    #[serde(default)]
    pub state: Option<String>,
    /// The plan's name and text, as [`files`] asked (`None`: no plan in progress).
    #[serde(default)]
    pub plan: Option<(String, String)>,
    /// `[path, text]` of every SQUAD.yaml.
    #[serde(default)]
    pub squads: Vec<(String, String)>,
    /// The delegation.
    pub delegation: Delegation,
    /// After the call: what the subagent returned.
    #[serde(default)]
    pub output: Option<String>,
    /// After the call: the in-flight item's story text, when it is a story.
    #[serde(default)]
    pub story: Option<String>,
}

/// Which files the shell reads for a delegation with `prompt` (the plan and the story).
pub fn files(state: Option<&str>, prompt: &str) -> Target {
    match State::parse(state) {
        Ok(s) => files_to_read(&s, prompt),
        Err(_) => Target::default(),
    }
}

fn refuse(message: String) -> Verdict {
    Verdict {
        allowed: false,
        rule: "kord.state".into(),
        message,
        state: None,
        writes: Vec::new(),
    }
}

/// Before (`output` absent) or after a delegation: the verdict.
pub fn decide(input: &DelegationInput) -> Verdict {
    let pass = Verdict {
        allowed: true,
        rule: String::new(),
        message: String::new(),
        state: None,
        writes: Vec::new(),
    };
    let Some((name, text)) = &input.plan else {
        return pass;
    };
    let squads = Squads::load(&input.squads);
    let agent = &input.delegation.agent;
    if !squads
        .squads
        .iter()
        .any(|s| s.delegation.orchestrators.contains(agent))
    {
        return pass;
    }
    let state = match State::parse(input.state.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            return if input.output.is_some() {
                pass
            } else {
                refuse(e)
            }
        }
    };
    let (plan, _) = parse_plan(name, text);
    let squad = match squad_of(&plan, &squads) {
        Ok(s) => s,
        Err(e) if input.output.is_none() => return refuse(e),
        Err(_) => return pass,
    };
    let ctx = Context { plan: &plan, squad };
    match &input.output {
        None => before_delegation(&state, &ctx, &input.delegation),
        Some(out) => after_delegation(&state, &ctx, &input.delegation, out, input.story.as_deref()),
    }
}
