//! The compiled policy: agents, rules indexed per (agent, operation), content rules.
//!
//! Built from a preset plus the project's config (see [`Policy::from_config_json`]). Merge:
//! - `rules`, `appendOnly`, `sacred`: by `id`. A project entry with a preset entry's id
//!   replaces it whole; `{"id": "...", "disabled": true}` switches it off. New ids are added.
//! - `agents`: new names are added; an existing agent gets the project's aliases and display
//!   names added and its `description`, `like` and per-op `defaults` overridden.
//! - `defaults`: per operation; `caseInsensitive`, `name`: replaced.
//! - `outsideProject.allow`: the project's list replaces the preset's; `instead` replaced.
//! - `tools`: by tool name, replaced.

use super::fast_map::FastMap;

use crate::shell::GitOp;

use super::config::{
    codes, did_you_mean, err, parse_raw, parse_raw_value, ConfigErrors, Effect, RawPolicy,
    ToolClass, GIT_OP_NAMES,
};
use nso_text::glob::Glob;

/// Names of the built-in presets.
pub const PRESETS: &[&str] = &["kord", "nso", "proofchecker"];

const KORD_JSON: &str = include_str!("../../../presets/kord.json");
const NSO_JSON: &str = include_str!("../../../presets/nso.json");
const PROOFCHECKER_JSON: &str = include_str!("../../../presets/proofchecker.json");

/// The preset's JSON text, if `name` is a built-in preset.
pub fn preset_json(name: &str) -> Option<&'static str> {
    match name {
        "kord" => Some(KORD_JSON),
        "nso" => Some(NSO_JSON),
        "proofchecker" => Some(PROOFCHECKER_JSON),
        _ => None,
    }
}

pub(crate) const SLOT_READ: usize = 0;
pub(crate) const SLOT_WRITE: usize = 1;
pub(crate) const SLOT_CREATE: usize = 2;
pub(crate) const SLOT_DELETE: usize = 3;
pub(crate) const SLOT_OPAQUE: usize = 4;
pub(crate) const SLOT_GIT0: usize = 5;
pub(crate) const SLOTS: usize = SLOT_GIT0 + 21;

/// Default categories: read, write, create, delete, git, opaque.
pub(crate) const DEFAULT_NAMES: [&str; 6] = ["read", "write", "create", "delete", "git", "opaque"];

pub(crate) fn default_category(slot: usize) -> usize {
    match slot {
        SLOT_READ => 0,
        SLOT_WRITE => 1,
        SLOT_CREATE => 2,
        SLOT_DELETE => 3,
        SLOT_OPAQUE => 5,
        _ => 4,
    }
}

/// The rule slot of a git operation (`None` for read-only git).
pub(crate) fn git_slot(op: GitOp) -> Option<usize> {
    let i = match op {
        GitOp::Push => 0,
        GitOp::Merge => 1,
        GitOp::Rebase => 2,
        GitOp::PullRebase => 3,
        GitOp::Pull => 4,
        GitOp::Commit => 5,
        GitOp::Add => 6,
        GitOp::BranchCreate => 7,
        GitOp::BranchDelete => 8,
        GitOp::Tag => 9,
        GitOp::Reset => 10,
        GitOp::Checkout => 11,
        GitOp::Stash => 12,
        GitOp::Clean => 13,
        GitOp::CherryPick => 14,
        GitOp::Revert => 15,
        GitOp::HistoryRewrite => 16,
        GitOp::PrCreate => 17,
        GitOp::PrMerge => 18,
        GitOp::PrClose => 19,
        GitOp::ReleaseCreate => 20,
        GitOp::Read => return None,
    };
    Some(SLOT_GIT0 + i)
}

/// snake_case name of a git operation, as in `git: [...]`.
pub fn git_op_name(op: GitOp) -> &'static str {
    match git_slot(op) {
        Some(s) => GIT_OP_NAMES[s - SLOT_GIT0],
        None => "read",
    }
}

/// An agent of the policy.
#[derive(Debug, Clone)]
pub struct Agent {
    /// Canonical name (without `@`).
    pub name: String,
    /// Free text.
    pub description: Option<String>,
    /// Other names.
    pub aliases: Vec<String>,
    /// Display names.
    pub display_names: Vec<String>,
    /// Index of the agent this one is `like`.
    pub(crate) like: Option<usize>,
    /// Per-category defaults with their source.
    pub(crate) defaults: [Option<(Effect, String)>; 6],
    /// Where the agent was defined.
    pub source: String,
}

/// A compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Stable id.
    pub id: String,
    /// Where it is defined (`preset kord` or a config path).
    pub source: String,
    /// Free text.
    pub description: Option<String>,
    /// Agents named (canonical names; `["*"]` for all).
    pub agent_names: Vec<String>,
    pub(crate) slots: Vec<usize>,
    pub(crate) paths: Vec<Glob>,
    pub(crate) except: Vec<Glob>,
    pub(crate) tools: Vec<String>,
    pub(crate) except_tools: Vec<String>,
    /// What it does.
    pub effect: Effect,
    /// Only the named agents; the rule blocks every other agent.
    pub exclusive: bool,
    /// Its refusals are only recorded (`mode: "audit"`).
    pub audit: bool,
    /// It refuses even in audit mode (`mode: "enforce"`): one of NSO's guarantees.
    pub enforce: bool,
    /// Membership per agent index (after `like` expansion).
    pub(crate) members: Vec<bool>,
    /// Why, for messages.
    pub reason: Option<String>,
    /// What to do instead, for messages.
    pub instead: Option<String>,
    /// Switched off by the project config (kept for `explain`).
    pub disabled_by: Option<String>,
}

impl Rule {
    /// Whether agent `agent` (an index into [`Policy::agents`]) is one of the rule's agents,
    /// directly or through `like`.
    pub fn is_member(&self, agent: usize) -> bool {
        self.members.get(agent).copied().unwrap_or(false)
    }

    /// Whether the rule applies to a call of `tool` (the request's
    /// [`rule_tool`](super::Request::rule_tool)): listed in `tools` (if any) and not in
    /// `exceptTools`.
    pub fn applies_to_tool(&self, tool: &str) -> bool {
        let named = |list: &[String]| list.iter().any(|t| t.eq_ignore_ascii_case(tool));
        (self.tools.is_empty() || named(&self.tools)) && !named(&self.except_tools)
    }

    /// The rule's tool filter in words, for `nso explain` (`only for tools story_update`).
    pub(crate) fn tool_filter(&self) -> String {
        match (self.tools.is_empty(), self.except_tools.is_empty()) {
            (false, true) => format!("only for tools {}", self.tools.join(", ")),
            (true, false) => format!("not for tools {}", self.except_tools.join(", ")),
            _ => format!(
                "only for tools {}, not for {}",
                self.tools.join(", "),
                self.except_tools.join(", ")
            ),
        }
    }
}

/// An append-only area.
#[derive(Debug, Clone)]
pub struct AppendOnly {
    /// Stable id.
    pub id: String,
    /// Where defined.
    pub source: String,
    /// Free text.
    pub description: Option<String>,
    pub(crate) paths: Vec<Glob>,
    pub(crate) except: Vec<Glob>,
    pub(crate) agents: Option<Vec<usize>>,
    /// What to do instead.
    pub instead: Option<String>,
    /// It holds even in audit mode (the decision ledger's area).
    pub enforce: bool,
}

/// A sacred area.
#[derive(Debug, Clone)]
pub struct Sacred {
    /// Stable id.
    pub id: String,
    /// Where defined.
    pub source: String,
    /// Free text.
    pub description: Option<String>,
    pub(crate) paths: Vec<Glob>,
    pub(crate) except: Vec<Glob>,
    pub(crate) authors: Vec<usize>,
    pub(crate) tickers: Vec<usize>,
    /// What to do instead.
    pub instead: Option<String>,
}

/// Classification of a custom tool.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// Read or write.
    pub class: ToolClass,
    /// Argument names holding paths (`None`: the usual path-like names).
    pub path_args: Option<Vec<String>>,
}

/// A compiled, immutable policy.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Prefix of generated rule ids.
    pub name: String,
    /// Preset it was built on, if any.
    pub preset: Option<String>,
    pub(crate) case_insensitive: bool,
    /// `mode: "audit"`: no refusal refuses; each is logged as what it would have been.
    pub audit: bool,
    pub(crate) agents: Vec<Agent>,
    pub(super) exact_names: FastMap<String, usize>,
    pub(super) folded_names: FastMap<String, usize>,
    pub(crate) rules: Vec<Rule>,
    /// Rule indices per agent × slot: `index[agent * SLOTS + slot]`.
    pub(super) index: Vec<Vec<u32>>,
    pub(crate) defaults: [(Effect, String); 6],
    pub(crate) append_only: Vec<AppendOnly>,
    pub(crate) sacred: Vec<Sacred>,
    pub(crate) outside_instead: Option<String>,
    pub(crate) tools: FastMap<String, ToolSpec>,
    pub(super) write_create_same: Vec<bool>,
    pub(super) default_ids: [String; 6],
}

/// A glob that matches exactly the path `rel`: its glob characters escaped.
pub fn literal_glob(rel: &str) -> String {
    rel.chars()
        .flat_map(|c| {
            let meta = matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\');
            meta.then_some('\\').into_iter().chain(std::iter::once(c))
        })
        .collect()
}

impl Policy {
    /// Adds an append-only area on one literal project path for every agent and every tool
    /// (bash included), e.g. the decision ledger named in `continuity.ledger`: the project
    /// configures where it is, not whether it may be rewritten. `source` names where the
    /// path was configured, for messages and `nso explain`.
    ///
    /// Errs (with the reason) when the path cannot be matched; the caller fails closed.
    pub fn add_append_only(
        &mut self,
        id: &str,
        source: &str,
        rel: &str,
        instead: &str,
    ) -> Result<(), String> {
        let glob = Glob::new(&literal_glob(rel), self.case_insensitive).map_err(|e| e.message)?;
        self.append_only.push(AppendOnly {
            id: id.to_string(),
            source: source.to_string(),
            description: Some(format!("{rel} (append-only by design)")),
            paths: vec![glob],
            except: Vec::new(),
            agents: None,
            instead: Some(instead.to_string()),
            enforce: true,
        });
        Ok(())
    }

    /// Loads a built-in preset unchanged.
    pub fn preset(name: &str) -> Result<Policy, ConfigErrors> {
        Policy::build(Some(name), None)
    }

    /// Builds the policy from the project's policy JSON (the policy keys of
    /// `.opencode/nso.json`); `source` names that file in messages and errors.
    /// The base preset is `preset` (default `nso`; `none` for no preset).
    pub fn from_config_json(text: &str, source: &str) -> Result<Policy, ConfigErrors> {
        let raw = parse_raw(text, source)?;
        Policy::from_raw_config(raw, source)
    }

    /// Like [`Policy::from_config_json`] for an already parsed value; `base_path` prefixes
    /// error paths when the policy sits under a key of a larger document.
    pub fn from_config_value(
        value: &serde_json::Value,
        source: &str,
        base_path: &str,
    ) -> Result<Policy, ConfigErrors> {
        let raw = parse_raw_value(value, source, base_path)?;
        Policy::from_raw_config(raw, source).map_err(|mut errors| {
            // Compile-stage errors carry paths relative to the policy document.
            if !base_path.is_empty() {
                for e in &mut errors.0 {
                    if e.path == "$" {
                        e.path = base_path.to_string();
                    } else if !e.path.starts_with(base_path) {
                        let sep = if e.path.starts_with('[') { "" } else { "." };
                        e.path = format!("{base_path}{sep}{}", e.path);
                    }
                }
            }
            errors
        })
    }

    fn from_raw_config(raw: RawPolicy, source: &str) -> Result<Policy, ConfigErrors> {
        let preset = raw.preset.clone().unwrap_or_else(|| "nso".to_string());
        if preset != "none" && preset_json(&preset).is_none() {
            let mut names: Vec<&str> = PRESETS.to_vec();
            names.push("none");
            return Err(ConfigErrors(vec![err(
                codes::UNKNOWN_PRESET,
                source,
                "preset",
                format!("there is no preset `{preset}`"),
                match did_you_mean(&preset, names.iter().copied()) {
                    Some(m) => format!("did you mean `{m}`?"),
                    None => format!("use one of: {}", names.join(", ")),
                },
            )]));
        }
        let base = (preset != "none").then_some(preset.as_str());
        Policy::build(base, Some((raw, source)))
    }

    fn build(
        preset: Option<&str>,
        project: Option<(RawPolicy, &str)>,
    ) -> Result<Policy, ConfigErrors> {
        let mut m = super::merge::Merged::default();
        if let Some(p) = preset {
            let Some(text) = preset_json(p) else {
                return Err(ConfigErrors(vec![err(
                    codes::UNKNOWN_PRESET,
                    "built-in",
                    "preset",
                    format!("there is no preset `{p}`"),
                    format!("use one of: {}", PRESETS.join(", ")),
                )]));
            };
            let src = format!("preset {p}");
            let raw = parse_raw(text, &src)?;
            m.name = Some(raw.name.clone().unwrap_or_else(|| p.to_string()));
            m.add(raw, &src, false)?;
        }
        if let Some((raw, src)) = project {
            m.add(raw, src, true)?;
        }
        m.compile(preset.map(str::to_string))
    }

    /// Number of agents.
    pub fn agent_count(&self) -> usize {
        self.agents.len()
    }

    /// All agents.
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    /// All rules (including disabled ones, see [`Rule::disabled_by`]).
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Finds an agent by name, alias or display name: case-insensitive, a leading `@` and
    /// surrounding spaces ignored; `"Name (Role)"` also tries `Name`.
    pub fn resolve_agent(&self, given: &str) -> Option<usize> {
        // Hosts name agents exactly, several times per decision: no trimming or folding then.
        if let Some(&i) = self.exact_names.get(given) {
            return Some(i);
        }
        let g = given.trim();
        let g = g.strip_prefix('@').unwrap_or(g).trim();
        if let Some(&i) = self.exact_names.get(g) {
            return Some(i);
        }
        if let Some(&i) = self.folded_names.get(&g.to_lowercase()) {
            return Some(i);
        }
        if let Some(pos) = g.find(" (") {
            let head = g[..pos].trim();
            if !head.is_empty() {
                return self.folded_names.get(&head.to_lowercase()).copied();
            }
        }
        None
    }

    /// True when `write` and `create` always get the same verdict for `agent` (same rules,
    /// same defaults, not a sacred-area ticker), so a `write` call of unknown existence needs
    /// one evaluation, not two.
    pub(crate) fn write_create_same(&self, agent: usize) -> bool {
        self.write_create_same.get(agent).copied().unwrap_or(false)
    }

    pub(crate) fn candidates(&self, agent: usize, slot: usize) -> &[u32] {
        &self.index[agent * SLOTS + slot]
    }

    /// `agent`, then the agents it is `like`, nearest first (bounded, so a cycle the merge
    /// missed cannot loop).
    pub(crate) fn like_chain(&self, agent: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(Some(agent), |&i| self.agents[i].like).take(self.agents.len() + 1)
    }

    /// The names whose status moves `agent` may make: its own name, then those it is `like`
    /// (empty for an agent the policy does not know).
    pub fn moves_as(&self, agent: &str) -> Vec<String> {
        self.resolve_agent(agent.trim())
            .map(|i| {
                self.like_chain(i)
                    .map(|a| self.agents[a].name.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether some rule or default lets `agent` write or create `path` (project-relative)
    /// through `tool`: a rule of the agent that allows it there, or an allowing default. A
    /// blocking rule elsewhere in the policy may still refuse a call; this says whether the
    /// agent has any way at all. `None` for an agent the policy does not know.
    pub fn may_write_at(&self, agent: &str, tool: &str, path: &str) -> Option<bool> {
        let a = self.resolve_agent(agent)?;
        let ci = self.case_insensitive;
        Some([SLOT_WRITE, SLOT_CREATE].iter().any(|&slot| {
            self.default_for(Some(a), slot).0 == Effect::Allow
                || self.candidates(a, slot).iter().any(|&ri| {
                    let r = &self.rules[ri as usize];
                    r.effect == Effect::Allow
                        && r.disabled_by.is_none()
                        && r.is_member(a)
                        && r.applies_to_tool(tool)
                        && r.paths.iter().any(|g| g.matches(path, ci))
                        && !r.except.iter().any(|g| g.matches(path, ci))
                })
        }))
    }

    /// The default effect for (agent, slot) and where it was set.
    pub(crate) fn default_for(&self, agent: Option<usize>, slot: usize) -> (Effect, &str) {
        let cat = default_category(slot);
        let own = agent
            .into_iter()
            .flat_map(|a| self.like_chain(a))
            .find_map(|i| self.agents[i].defaults[cat].as_ref());
        let (e, s) = own.unwrap_or(&self.defaults[cat]);
        (*e, s)
    }

    /// The id of a generated rule: `<name>.<suffix>`.
    pub(crate) fn rule_id(&self, suffix: &str) -> String {
        format!("{}.{}", self.name, suffix)
    }

    /// Id of the default rule of a slot (`<name>.default.write`), precomputed.
    pub(crate) fn default_id(&self, slot: usize) -> &str {
        &self.default_ids[default_category(slot)]
    }

    /// Where generated rules are said to come from.
    pub(crate) fn builtin_source(&self) -> String {
        match &self.preset {
            Some(p) => format!("preset {p}"),
            None => "built-in".to_string(),
        }
    }
}
