//! NSO's own tools for agents: the one table of them (name, description, what each needs and
//! writes, who calls it). The hosts register what the project's selection lists and take the
//! descriptions from [`TOOLBOX`]; they never keep a list of their own. Which tools a project
//! and each of its agents get is chosen in the workflow crate (`nso_workflow::toolbox`), from
//! the project's configuration.

/// What a tool needs of the project to be of any use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Needs {
    /// Task contracts and reports of delegations: every project.
    Contracts,
    /// The atomic status sync: the project has `.opencode/specs/TODO.md`.
    Status,
    /// Language routing: the project has command files (`.opencode/command(s)/*.md`).
    Routing,
    /// Claims across windows: `conductor.mode` is not `off`.
    Claims,
    /// The decision ledger and handoffs: `continuity.enabled`.
    Continuity,
    /// Insight: continuity on and Mind has distilled something (its observations exist).
    Mind,
}

impl Needs {
    /// The group name used in `tools.include`, `tools.exclude` and `tools.perAgent`.
    pub const fn group(self) -> &'static str {
        match self {
            Needs::Contracts => "contracts",
            Needs::Status => "status",
            Needs::Routing => "routing",
            Needs::Claims => "claims",
            Needs::Continuity => "continuity",
            Needs::Mind => "mind",
        }
    }
}

/// The group names, in table order.
pub const GROUPS: [&str; 6] = [
    "contracts",
    "status",
    "routing",
    "claims",
    "continuity",
    "mind",
];

/// One of NSO's tools.
#[derive(Debug, Clone, Copy, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolEntry {
    /// The tool's name, as the model calls it.
    pub name: &'static str,
    /// What the model reads about it: one short sentence.
    pub description: &'static str,
    /// What the project must have for the tool to be offered.
    pub needs: Needs,
    /// What the tool writes: an agent the policy lets write nothing there does not get it.
    pub writes: Writes,
    /// Who calls it: the agent that delegates, the agent delegated to, or any.
    pub role: Role,
}

/// What one of NSO's tools writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Writes {
    /// Nothing (it reads, or coordinates windows).
    Nothing,
    /// Files like this one (a sample path the policy is asked about).
    Like(&'static str),
    /// The decision ledger (`continuity.ledger`).
    Ledger,
}

/// Who calls a tool, by OpenCode's agent mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    /// Any agent.
    Any,
    /// An agent that delegates with the task tool: not a subagent.
    Delegator,
    /// An agent working on a delegated task: not a primary agent.
    Delegate,
}

const fn tool(
    name: &'static str,
    needs: Needs,
    writes: Writes,
    role: Role,
    description: &'static str,
) -> ToolEntry {
    ToolEntry {
        name,
        description,
        needs,
        writes,
        role,
    }
}

const TODO: &str = ".opencode/specs/TODO.md";

/// NSO's tools. Each checks its writes itself, through the authority engine and the status
/// machines, before writing.
pub const TOOLBOX: &[ToolEntry] = &[
    tool("nso_contract", Needs::Contracts, Writes::Like(".opencode/context/active_tasks/task/contract.md"), Role::Delegator,
        "Contract for a delegation, before the task call; returns the task id."),
    tool("nso_report_status", Needs::Contracts, Writes::Like(".opencode/context/active_tasks/task/status.md"), Role::Delegate,
        "Update your task's status.md."),
    tool("nso_report_result", Needs::Contracts, Writes::Like(".opencode/context/active_tasks/task/result.md"), Role::Delegate,
        "Finish your task: result.md (deliverables must exist)."),
    tool("nso_report_questions", Needs::Contracts, Writes::Like(".opencode/context/active_tasks/task/questions.md"), Role::Delegate,
        "The contract is unclear: write questions.md and stop."),
    tool("nso_status_set", Needs::Status, Writes::Like(TODO), Role::Any,
        "Move a task to a new status in TODO.md and state.json together. Use instead of editing them."),
    tool("nso_task_new", Needs::Status, Writes::Like(TODO), Role::Any,
        "Add a task to TODO.md and state.json together."),
    tool("nso_task_archive", Needs::Status, Writes::Like(TODO), Role::Any,
        "Archive finished tasks from TODO.md and state.json."),
    tool("nso_route", Needs::Routing, Writes::Nothing, Role::Any,
        "Which agent a language-routed command goes to for a task."),
    tool("nso_claim", Needs::Claims, Writes::Nothing, Role::Any,
        "Claim paths ahead of a larger change."),
    tool("nso_release", Needs::Claims, Writes::Nothing, Role::Any,
        "Release claims (none given: all)."),
    tool("nso_claims", Needs::Claims, Writes::Nothing, Role::Any,
        "Who holds which files, all windows."),
    tool("nso_decide", Needs::Continuity, Writes::Ledger, Role::Any,
        "Record a decision in the ledger."),
    tool("nso_decisions", Needs::Continuity, Writes::Nothing, Role::Any,
        "Current decisions (all: with superseded)."),
    tool("nso_handoff", Needs::Continuity, Writes::Nothing, Role::Any,
        "This session's handoff, for a new window."),
    tool("nso_insight", Needs::Mind, Writes::Nothing, Role::Any,
        "Answers from what earlier sessions learned, with sources."),
];

/// The names of NSO's tools, in table order.
pub const NSO_TOOLS: [&str; TOOLBOX.len()] = {
    let mut names = [""; TOOLBOX.len()];
    let mut i = 0;
    while i < TOOLBOX.len() {
        names[i] = TOOLBOX[i].name;
        i += 1;
    }
    names
};

/// The table entry of `name`, if it is one of NSO's tools.
pub fn entry(name: &str) -> Option<&'static ToolEntry> {
    TOOLBOX.iter().find(|t| t.name == name)
}

/// Whether `name` is one of NSO's tools or one of their groups (for the config's checks).
pub fn is_tool_or_group(name: &str) -> bool {
    NSO_TOOLS.contains(&name) || GROUPS.contains(&name)
}
