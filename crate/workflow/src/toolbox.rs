//! NSO's own tools for agents: the one table of them, and which of them a project and each of
//! its agents gets.
//!
//! Every tool costs the model bytes on every request (its name, description and argument
//! schema), so a project gets only the tools it can use: status tools where the status sync
//! has its files, claim tools where claims are on, and so on. An agent that may not write
//! anything gets no tool that only writes. The hosts register what [`toolbox`] lists and
//! take the descriptions from [`TOOLBOX`]; they never keep a list of their own.

//!
//! The table itself is the decision crate's ([`nso_decision::toolbox`]); this module chooses
//! from it.

use std::collections::BTreeMap;

use crate::config::Config;
use nso_decision::authority::Policy;
pub use nso_decision::toolbox::*;

/// What the host found in the project, for the tools that depend on files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ProjectFacts {
    /// `.opencode/specs/TODO.md` exists (the status sync's files).
    pub status_files: bool,
    /// `.opencode/command/*.md` or `.opencode/commands/*.md` exists (language routing).
    pub command_files: bool,
    /// Mind's observations exist (`<continuity.dir>/mind/observations.jsonl`).
    pub mind_files: bool,
}

/// An agent of the host: its name and OpenCode's `mode` (`primary`, `subagent`, `all`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default)]
pub struct HostAgent {
    /// The agent's name, as the host names it.
    pub name: String,
    /// `primary`, `subagent` or `all` (absent: `all`).
    pub mode: Option<String>,
}

impl HostAgent {
    /// An agent of `name` and `mode`.
    pub fn new(name: &str, mode: Option<&str>) -> HostAgent {
        HostAgent {
            name: name.to_string(),
            mode: mode.map(str::to_string),
        }
    }

    fn plays(&self, role: Role) -> bool {
        !matches!(
            (role, self.mode.as_deref()),
            (Role::Delegator, Some("subagent")) | (Role::Delegate, Some("primary"))
        )
    }
}

/// Which tools a project and each of its agents get.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Toolbox {
    /// The tools registered for the project, in table order.
    pub tools: Vec<&'static str>,
    /// Per agent (as the host names it), the registered tools it must not see. Only agents
    /// with at least one are listed.
    pub hidden: BTreeMap<String, Vec<&'static str>>,
}

impl Toolbox {
    /// The tools `agent` sees.
    pub fn of(&self, agent: &str) -> Vec<&'static str> {
        let hidden = self.hidden.get(agent);
        self.tools
            .iter()
            .copied()
            .filter(|t| hidden.is_none_or(|h| !h.contains(t)))
            .collect()
    }
}

/// Whether `name` (a tool or a group) names `t`.
fn names(name: &str, t: &ToolEntry) -> bool {
    name == t.name || name == t.needs.group()
}

fn has_need(config: &Config, facts: &ProjectFacts, needs: Needs) -> bool {
    match needs {
        Needs::Contracts => true,
        Needs::Status => facts.status_files,
        Needs::Routing => facts.command_files,
        Needs::Claims => config.conductor.mode != "off",
        Needs::Continuity => config.continuity.enabled,
        Needs::Mind => config.continuity.enabled && facts.mind_files,
    }
}

/// The tools of a project with `config`, `policy` and `facts`, for the host's `agents`:
/// a tool is registered when the project has what it needs or `tools.include` names it, and
/// `tools.exclude` does not. An agent then sees what `tools.perAgent` lists for it (tools or
/// groups) if it is listed there, else every registered tool, minus the tools of the other
/// side of a delegation (a primary agent gets no reports, a subagent no contracts) and each
/// tool that writes where the policy lets the agent write nothing.
pub fn toolbox(
    config: &Config,
    policy: Option<&Policy>,
    facts: &ProjectFacts,
    agents: &[HostAgent],
) -> Toolbox {
    let settings = &config.tools;
    let tools: Vec<&'static str> = if settings.enabled {
        TOOLBOX
            .iter()
            .filter(|t| {
                has_need(config, facts, t.needs) || settings.include.iter().any(|n| names(n, t))
            })
            .filter(|t| !settings.exclude.iter().any(|n| names(n, t)))
            .map(|t| t.name)
            .collect()
    } else {
        Vec::new()
    };
    let mut hidden = BTreeMap::new();
    for agent in agents {
        let listed = settings.per_agent.get(agent.name.as_str());
        let off: Vec<&'static str> = tools
            .iter()
            .copied()
            .filter(|&name| {
                let t = entry(name).expect("registered tools come from the table");
                match listed {
                    Some(l) => !l.iter().any(|n| names(n, t)),
                    None => !agent.plays(t.role) || !may_write(config, policy, &agent.name, t),
                }
            })
            .collect();
        if !off.is_empty() {
            hidden.insert(agent.name.clone(), off);
        }
    }
    Toolbox { tools, hidden }
}

/// Whether `agent` may write what tool `t` writes (true for an agent the policy does not
/// know: the engine refuses its calls, its tools are not narrowed).
fn may_write(config: &Config, policy: Option<&Policy>, agent: &str, t: &ToolEntry) -> bool {
    let path = match t.writes {
        Writes::Nothing => return true,
        Writes::Like(path) => path,
        Writes::Ledger => config.continuity.ledger.as_str(),
    };
    policy.and_then(|p| p.may_write_at(agent, t.name, path)) != Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        crate::config::parse(".opencode/nso.json", Some(text)).unwrap()
    }

    fn policy(config: &Config) -> Policy {
        crate::config::project_engine(config, ".opencode/nso.json")
            .unwrap()
            .policy()
            .clone()
    }

    #[test]
    fn names_and_groups_follow_the_table() {
        assert_eq!(NSO_TOOLS.len(), TOOLBOX.len());
        assert!(NSO_TOOLS.iter().zip(TOOLBOX).all(|(n, t)| *n == t.name));
        for t in TOOLBOX {
            assert!(GROUPS.contains(&t.needs.group()), "{}", t.name);
            assert_eq!(
                t.writes == Writes::Nothing,
                !t.name.contains("_report_")
                    && !matches!(t.needs, Needs::Status)
                    && t.name != "nso_contract"
                    && t.name != "nso_decide",
                "{}",
                t.name
            );
            assert!(t.description.len() <= 100, "{} is too long", t.name);
        }
    }

    #[test]
    fn a_default_project_gets_contracts_claims_and_continuity_only() {
        let c = config("{}");
        let b = toolbox(&c, None, &ProjectFacts::default(), &[]);
        assert_eq!(
            b.tools,
            [
                "nso_contract",
                "nso_report_status",
                "nso_report_result",
                "nso_report_questions",
                "nso_claim",
                "nso_release",
                "nso_claims",
                "nso_decide",
                "nso_decisions",
                "nso_handoff"
            ]
        );
        let facts = ProjectFacts {
            status_files: true,
            command_files: true,
            mind_files: true,
        };
        assert_eq!(toolbox(&c, None, &facts, &[]).tools, NSO_TOOLS);
    }

    #[test]
    fn insight_is_offered_once_mind_has_observations() {
        let c = config("{}");
        let mind = ProjectFacts {
            mind_files: true,
            ..ProjectFacts::default()
        };
        assert!(toolbox(&c, None, &mind, &[]).tools.contains(&"nso_insight"));
        let off = config(r#"{"continuity":{"enabled":false}}"#);
        assert!(!toolbox(&off, None, &mind, &[])
            .tools
            .contains(&"nso_insight"));
        let asked = config(r#"{"tools":{"include":["mind"]}}"#);
        assert!(toolbox(&asked, None, &ProjectFacts::default(), &[])
            .tools
            .contains(&"nso_insight"));
    }

    #[test]
    fn settings_switch_groups_and_tools() {
        let c = config(r#"{"conductor":{"mode":"off"},"continuity":{"enabled":false}}"#);
        let b = toolbox(&c, None, &ProjectFacts::default(), &[]);
        assert_eq!(b.tools.len(), 4);
        let c = config(r#"{"tools":{"include":["status"],"exclude":["contracts","nso_claims"]}}"#);
        let b = toolbox(&c, None, &ProjectFacts::default(), &[]);
        assert!(b.tools.contains(&"nso_status_set") && !b.tools.contains(&"nso_contract"));
        assert!(!b.tools.contains(&"nso_claims") && b.tools.contains(&"nso_claim"));
        let c = config(r#"{"tools":{"enabled":false,"include":["status"]}}"#);
        assert!(toolbox(&c, None, &ProjectFacts::default(), &[])
            .tools
            .is_empty());
    }

    #[test]
    fn per_agent_lists_narrow_what_an_agent_sees() {
        let c = config(r#"{"tools":{"perAgent":{"build":["continuity","nso_claim"]}}}"#);
        let agents = [HostAgent::new("build", None), HostAgent::new("plan", None)];
        let b = toolbox(&c, None, &ProjectFacts::default(), &agents);
        assert_eq!(
            b.of("build"),
            ["nso_claim", "nso_decide", "nso_decisions", "nso_handoff"]
        );
        assert_eq!(b.of("plan"), b.tools);
    }

    #[test]
    fn agents_that_may_not_write_lose_the_tools_that_write() {
        let c = config(r#"{"authority":{"preset":"kord"}}"#);
        let p = policy(&c);
        let agents: Vec<HostAgent> = ["explore", "dev", "librarian", "someone"]
            .iter()
            .map(|s| HostAgent::new(s, None))
            .collect();
        let b = toolbox(&c, Some(&p), &ProjectFacts::default(), &agents);
        let explore = b.of("explore");
        assert!(!explore.contains(&"nso_contract") && !explore.contains(&"nso_report_result"));
        assert!(explore.contains(&"nso_handoff") && explore.contains(&"nso_claims"));
        // Every agent records decisions: the ledger's rule allows nso_decide.
        assert!(explore.contains(&"nso_decide"));
        assert_eq!(b.of("librarian"), explore);
        assert_eq!(b.of("dev"), b.tools);
        // An agent the policy does not know is refused by the engine; its tool list is not narrowed.
        assert_eq!(b.of("someone"), b.tools);
    }
}

#[cfg(test)]
mod roles {
    use super::*;

    #[test]
    fn primary_agents_get_no_reports_and_subagents_no_contracts() {
        let c = crate::config::parse("x", Some("{}")).unwrap();
        let p = crate::config::project_engine(&c, "x").unwrap();
        let agents = [
            HostAgent::new("build", Some("primary")),
            HostAgent::new("plan", Some("primary")),
            HostAgent::new("general", Some("subagent")),
            HostAgent::new("builder", Some("all")),
        ];
        let b = toolbox(&c, Some(p.policy()), &ProjectFacts::default(), &agents);
        let build = b.of("build");
        assert!(build.contains(&"nso_contract") && !build.contains(&"nso_report_status"));
        let general = b.of("general");
        assert!(!general.contains(&"nso_contract") && general.contains(&"nso_report_result"));
        // plan may not create contracts (the default preset): no nso_contract either
        let plan = b.of("plan");
        assert!(!plan.contains(&"nso_contract") && !plan.contains(&"nso_report_status"));
        assert!(plan.contains(&"nso_decide") && plan.contains(&"nso_handoff"));
        // mode all: both sides of a delegation, but @builder may not write contracts
        let builder = b.of("builder");
        assert_eq!(builder.len(), b.tools.len() - 1);
        assert!(!builder.contains(&"nso_contract"));
    }
}
