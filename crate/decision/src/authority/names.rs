//! Agents as a project names them. A preset defines agents a project may not have (Kord's
//! @devops, NSO's @builder) and aliases nobody configured (an `orchestrator` agent has
//! @oracle's rights): messages call an agent by the name the project uses, and suggest only
//! agents the project has.

use std::collections::HashSet;

use super::policy::Policy;
use super::request::Request;

/// The agents a host says exist for the project (`None`: not known, every agent of the
/// policy counts).
pub(crate) type ProjectAgents = Option<HashSet<String>>;

/// Names for messages: the policy's agents, seen through the project's.
pub(crate) struct Names<'a> {
    pub policy: &'a Policy,
    pub project: Option<&'a HashSet<String>>,
}

impl Names<'_> {
    /// The name the project uses for agent `i` (its own name, else the first alias the
    /// project has); `None` when the project has no such agent.
    pub fn of(&self, i: usize) -> Option<&str> {
        let agent = &self.policy.agents[i];
        let Some(project) = self.project else {
            return Some(&agent.name);
        };
        std::iter::once(&agent.name)
            .chain(&agent.aliases)
            .find(|n| project.contains(n.as_str()))
            .map(String::as_str)
    }

    /// `@name` of each agent of `agents` the project has, in order, without repeats.
    pub fn existing(&self, agents: impl IntoIterator<Item = usize>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for i in agents {
            if let Some(name) = self.of(i) {
                let name = format!("@{name}");
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        out
    }

    /// The caller, agent `i`, named as the call named it when that is one of its names (an
    /// alias the project uses), else as the project names it.
    pub fn caller(&self, req: &Request, i: usize) -> String {
        let agent = &self.policy.agents[i];
        let given = req.agent.as_deref().unwrap_or("").trim();
        let given = given.strip_prefix('@').unwrap_or(given);
        if std::iter::once(&agent.name)
            .chain(&agent.aliases)
            .any(|n| n == given)
        {
            return format!("@{given}");
        }
        format!("@{}", self.of(i).unwrap_or(&agent.name))
    }

    /// The members of rule `r` (after `like`) the project has, as `@a, @b`; `none` when it
    /// has none of them.
    pub fn members_text(&self, r: usize, none: &str) -> String {
        let members = &self.policy.rules[r].members;
        let names = self.existing((0..members.len()).filter(|&a| members[a]));
        if names.is_empty() {
            none.to_string()
        } else {
            join_names(&names)
        }
    }
}

/// `@a`, `@a and @b`, `@a, @b and @c`.
pub(crate) fn join_names(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The text of a preset's reason or instead with `{agents}` replaced by the rule's members
/// the project has, or by `none` (see [`Names::members_text`]).
pub(crate) fn with_members(text: &str, names: &Names, rule: Option<usize>, none: &str) -> String {
    match rule {
        Some(r) if text.contains("{agents}") => {
            text.replace("{agents}", &names.members_text(r, none))
        }
        _ => text.to_string(),
    }
}

/// What stands for no agent in a reason.
pub(crate) const NO_AGENT: &str = "no agent of this project";
/// What stands for no agent in advice: the work goes to the person.
pub(crate) const THE_PERSON: &str = "the person";
