//! Squads: `.opencode/squads/<name>/SQUAD.yaml` says how a team works (agent contracts,
//! section 7). The built-in `dev` squad needs no file; a `dev` folder overrides it.
//!
//! ```yaml
//! name: marketing
//! description: Marketing campaign execution
//! agents: [pm, analyst]
//! plan_type: task            # development | task
//! checkpoint_mode: auto      # interactive | auto
//! quality_gates: false
//! story_driven: false
//! plan_template: |
//!   # Campaign Plan: {{title}}
//! verification:
//!   type: file_exists        # lsp_build_test | file_exists | none
//! delegation:
//!   orchestrators: [build]   # whose delegations follow the plan
//!   max_attempts: 3          # failed attempts of one item before it is BLOCKED
//!   one_at_a_time: true
//!   checkpoint_agent: po
//! ```
//!
//! Parsed with a real YAML parser (block scalars, flow lists, comments); every key is
//! checked, so a misspelt one is an error naming the file, the key and the fix.

use serde::Serialize;
use yaml_rust2::{Yaml, YamlLoader};

/// The name of the built-in squad.
pub const DEFAULT_SQUAD: &str = "dev";
/// Where squads live, relative to the project root.
pub const SQUADS_DIR: &str = ".opencode/squads";

/// What a plan of the squad is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanType {
    /// Waves of stories and tasks; story-driven when the squad says so.
    Development,
    /// Tasks only; the story gates are dormant.
    Task,
}

/// Whether @po decides between waves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckpointMode {
    /// The next wave waits for the checkpoint agent's GO.
    Interactive,
    /// Waves follow each other without a checkpoint.
    Auto,
}

/// How the orchestrator's delegations are held to the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DelegationRules {
    /// Agents whose delegations follow the plan (`build`).
    pub orchestrators: Vec<String>,
    /// Failed attempts of one work item before it is BLOCKED (story) or failed (task).
    pub max_attempts: u32,
    /// One work item in flight at a time.
    pub one_at_a_time: bool,
    /// Who decides at wave checkpoints (`po`).
    pub checkpoint_agent: String,
}

/// One squad's contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Squad {
    /// The squad's name (its folder).
    pub name: String,
    /// What the squad does.
    pub description: String,
    /// Its agents (empty: any).
    pub agents: Vec<String>,
    /// `development` or `task`.
    pub plan_type: PlanType,
    /// `interactive` or `auto`.
    pub checkpoint_mode: CheckpointMode,
    /// Whether a quality gate reviews work items.
    pub quality_gates: bool,
    /// Whether the story lifecycle gates apply to its development plans.
    pub story_driven: bool,
    /// The plan template, if the squad has its own.
    pub plan_template: Option<String>,
    /// How completion is verified (`lsp_build_test`, `file_exists`, `none`).
    pub verification: String,
    /// The delegation rules.
    pub delegation: DelegationRules,
    /// Where it was defined (`built-in` or the file).
    pub source: String,
}

impl Squad {
    /// The built-in dev squad (section 7.1).
    pub fn dev() -> Squad {
        Squad {
            name: DEFAULT_SQUAD.to_string(),
            description: "Software development (built-in)".to_string(),
            agents: [
                "dev",
                "dev-junior",
                "qa",
                "architect",
                "devops",
                "data-engineer",
                "ux-design-expert",
            ]
            .map(String::from)
            .to_vec(),
            plan_type: PlanType::Development,
            checkpoint_mode: CheckpointMode::Interactive,
            quality_gates: true,
            story_driven: true,
            plan_template: None,
            verification: "lsp_build_test".to_string(),
            delegation: DelegationRules {
                orchestrators: vec!["build".to_string()],
                max_attempts: 3,
                one_at_a_time: true,
                checkpoint_agent: "po".to_string(),
            },
            source: "built-in".to_string(),
        }
    }

    /// Whether the story gates apply to this squad's development plans.
    pub fn story_gates(&self) -> bool {
        self.story_driven && self.plan_type == PlanType::Development
    }
}

/// A SQUAD.yaml problem: the file, the key, what is wrong and the fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SquadError {
    /// Stable code: `squad_yaml`, `squad_invalid`.
    pub code: &'static str,
    /// The file.
    pub file: String,
    /// The key (`checkpoint_mode`), empty for the whole file.
    pub key: String,
    /// What is wrong.
    pub problem: String,
    /// What to do.
    pub fix: String,
}

impl std::fmt::Display for SquadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = if self.key.is_empty() {
            String::new()
        } else {
            format!(" `{}`", self.key)
        };
        write!(f, "{}{key}: {}; {}", self.file, self.problem, self.fix)
    }
}

const KEYS: [&str; 11] = [
    "name",
    "description",
    "agents",
    "plan_type",
    "checkpoint_mode",
    "quality_gates",
    "story_driven",
    "plan_template",
    "verification",
    "delegation",
    "$schema",
];
const DELEGATION_KEYS: [&str; 4] = [
    "orchestrators",
    "max_attempts",
    "one_at_a_time",
    "checkpoint_agent",
];
const VERIFICATIONS: [&str; 3] = ["lsp_build_test", "file_exists", "none"];

/// The squad's folder name from its SQUAD.yaml path (`.opencode/squads/<name>/SQUAD.yaml`).
pub fn squad_name_of(file: &str) -> Option<&str> {
    let rest = file.strip_prefix(SQUADS_DIR)?.strip_prefix('/')?;
    let (name, tail) = rest.split_once('/')?;
    (tail == "SQUAD.yaml" && !name.is_empty()).then_some(name)
}

/// Parses one SQUAD.yaml. Keys left out take the built-in dev squad's values.
pub fn parse_squad(file: &str, text: &str) -> Result<Squad, SquadError> {
    let err = |code, key: &str, problem: String, fix: &str| SquadError {
        code,
        file: file.to_string(),
        key: key.to_string(),
        problem,
        fix: fix.to_string(),
    };
    let docs = YamlLoader::load_from_str(text).map_err(|e| {
        err(
            "squad_yaml",
            "",
            format!("not valid YAML ({e})"),
            "fix the YAML syntax at the line named",
        )
    })?;
    let mut squad = Squad::dev();
    squad.source = file.to_string();
    squad.name = squad_name_of(file).unwrap_or(DEFAULT_SQUAD).to_string();
    if squad.name != DEFAULT_SQUAD {
        squad.agents = Vec::new();
        squad.description = String::new();
    }
    let root = match docs.as_slice() {
        [] => return Ok(squad),
        [Yaml::Null] => return Ok(squad),
        [Yaml::Hash(h)] => h,
        [_] => {
            return Err(err(
                "squad_invalid",
                "",
                "is not a mapping of settings".into(),
                "write `key: value` lines (name, plan_type, checkpoint_mode, ...)",
            ))
        }
        _ => {
            return Err(err(
                "squad_invalid",
                "",
                "holds several YAML documents".into(),
                "keep one document (remove the extra `---`)",
            ))
        }
    };
    for (k, v) in root {
        let Some(key) = k.as_str() else {
            return Err(err(
                "squad_invalid",
                "",
                "has a key that is not text".into(),
                "use plain keys",
            ));
        };
        let bad = |want: &str| {
            err(
                "squad_invalid",
                key,
                format!("must be {want}"),
                &format!("set `{key}` to {want}"),
            )
        };
        match key {
            "name" => {
                let name = v.as_str().ok_or_else(|| bad("text"))?;
                if name != squad.name && squad_name_of(file).is_some() {
                    return Err(err(
                        "squad_invalid",
                        key,
                        format!("is `{name}` but the folder is `{}`", squad.name),
                        "make the name equal to the squad's folder name",
                    ));
                }
            }
            "description" => squad.description = v.as_str().ok_or_else(|| bad("text"))?.into(),
            "agents" => squad.agents = agent_list(v).ok_or_else(|| bad("a list of agent names"))?,
            "plan_type" => {
                squad.plan_type = match v.as_str() {
                    Some("development") => PlanType::Development,
                    Some("task") => PlanType::Task,
                    _ => return Err(bad("`development` or `task`")),
                }
            }
            "checkpoint_mode" => {
                squad.checkpoint_mode = match v.as_str() {
                    Some("interactive") => CheckpointMode::Interactive,
                    Some("auto") => CheckpointMode::Auto,
                    _ => return Err(bad("`interactive` or `auto`")),
                }
            }
            "quality_gates" => {
                squad.quality_gates = v.as_bool().ok_or_else(|| bad("true or false"))?
            }
            "story_driven" => {
                squad.story_driven = v.as_bool().ok_or_else(|| bad("true or false"))?
            }
            "plan_template" => {
                squad.plan_template = Some(v.as_str().ok_or_else(|| bad("text"))?.to_string())
            }
            "verification" => {
                let t = v["type"].as_str();
                match t {
                    Some(t) if VERIFICATIONS.contains(&t) => squad.verification = t.to_string(),
                    _ => {
                        return Err(bad(
                            "a mapping with `type:` lsp_build_test, file_exists or none",
                        ))
                    }
                }
            }
            "delegation" => read_delegation(v, &mut squad.delegation, &err)?,
            "$schema" => {}
            _ => {
                return Err(err(
                    "squad_invalid",
                    key,
                    "is not a squad setting".into(),
                    &format!("use one of: {}", KEYS[..10].join(", ")),
                ))
            }
        }
    }
    Ok(squad)
}

fn read_delegation(
    v: &Yaml,
    rules: &mut DelegationRules,
    err: &dyn Fn(&'static str, &str, String, &str) -> SquadError,
) -> Result<(), SquadError> {
    let Yaml::Hash(h) = v else {
        return Err(err(
            "squad_invalid",
            "delegation",
            "must be a mapping".into(),
            &format!("give some of: {}", DELEGATION_KEYS.join(", ")),
        ));
    };
    for (k, v) in h {
        let key = k.as_str().unwrap_or("");
        let path = format!("delegation.{key}");
        let bad = |want: &str| {
            err(
                "squad_invalid",
                &path,
                format!("must be {want}"),
                &format!("set `{path}` to {want}"),
            )
        };
        match key {
            "orchestrators" => {
                rules.orchestrators = agent_list(v).ok_or_else(|| bad("a list of agent names"))?
            }
            "max_attempts" => {
                rules.max_attempts = v
                    .as_i64()
                    .filter(|n| (1..=20).contains(n))
                    .ok_or_else(|| bad("a whole number from 1 to 20"))?
                    as u32
            }
            "one_at_a_time" => {
                rules.one_at_a_time = v.as_bool().ok_or_else(|| bad("true or false"))?
            }
            "checkpoint_agent" => {
                rules.checkpoint_agent = v
                    .as_str()
                    .map(agent_name)
                    .filter(|a| !a.is_empty())
                    .ok_or_else(|| bad("an agent name"))?
            }
            _ => {
                return Err(err(
                    "squad_invalid",
                    &path,
                    "is not a delegation setting".into(),
                    &format!("use one of: {}", DELEGATION_KEYS.join(", ")),
                ))
            }
        }
    }
    Ok(())
}

/// An agent name as plans and squads write it (`@Dev` = `dev`).
pub fn agent_name(raw: &str) -> String {
    raw.trim()
        .trim_start_matches('@')
        .trim()
        .to_ascii_lowercase()
}

fn agent_list(v: &Yaml) -> Option<Vec<String>> {
    match v {
        Yaml::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(agent_name).filter(|a| !a.is_empty()))
            .collect(),
        Yaml::Null => Some(Vec::new()),
        _ => None,
    }
}

/// The project's squads: the built-in dev squad, replaced or joined by the SQUAD.yaml files
/// given as `(path, text)`. Every broken file is reported; the good ones still count.
pub fn load_squads(files: &[(String, String)]) -> (Vec<Squad>, Vec<SquadError>) {
    let mut squads = vec![Squad::dev()];
    let mut errors = Vec::new();
    for (file, text) in files {
        match parse_squad(file, text) {
            Ok(s) => match squads.iter_mut().find(|o| o.name == s.name) {
                Some(old) => *old = s,
                None => squads.push(s),
            },
            Err(e) => errors.push(e),
        }
    }
    (squads, errors)
}
