//! Status machines as data: states, transitions with the agents allowed to make them and
//! named conditions, counters for iteration limits, and the files each machine governs.
//!
//! Projects configure machines in `.opencode/nso.json` under `status`:
//!
//! ```json
//! { "status": { "enabled": true, "defaults": ["kord-story"], "machines": { "my-flow": { ... } } } }
//! ```
//!
//! * `enabled` (default `true`): `false` turns status governance off.
//! * `defaults` (default all three): which shipped machines stay active
//!   (`nso-task`, `kord-story`, `proofchecker`); `[]` keeps none.
//! * `machines`: project machines. A project machine with the name of a default replaces it.
//!
//! A file is governed by the first machine (highest `priority` first, then project machines
//! before defaults, then by name) with a `files` binding whose `globs` match the
//! project-relative path and whose `exclude` globs do not.
//!
//! Every object is parsed with unknown keys rejected; errors carry the JSON path
//! (`status.machines.kord-story.transitions[3]`), the problem and the fix.

use super::defaults::DEFAULT_MACHINES_JSON;
use super::glob::{glob_match, glob_problem, normalize_path};
use super::text::{canon_state, norm_agent, norm_key};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Every `globs` entry of the shipped machines' file bindings (a test keeps this list equal
/// to the definitions), so an engine can tell whether a path may be governed without
/// compiling the machines.
pub const DEFAULT_BINDING_GLOBS: [&str; 8] = [
    ".opencode/context/active_tasks/*/status.md",
    ".opencode/context/active_tasks/*/result.md",
    "docs/kord/**/stories/*.md",
    ".opencode/specs/TODO.md",
    "specs/TODO.md",
    "TODO.md",
    "{.opencode/specs,specs}/state.json",
    "{.opencode/specs,specs}/*/state.json",
];

/// Names of the shipped machines, in precedence order.
pub const DEFAULT_MACHINE_NAMES: [&str; 3] = ["nso-task", "kord-story", "proofchecker"];

/// One state of a machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StateDef {
    /// The state's name as written in files (`IN_PROGRESS`, `NOT STARTED`). Compared
    /// case-insensitively, with spaces, `-` and `_` treated alike.
    pub name: String,
    /// A new file (or a new entry of a multi-task file) may start in this state.
    #[serde(default)]
    pub initial: bool,
    /// A final state: no transition may leave it; entries in it may be removed (archived).
    #[serde(default)]
    pub terminal: bool,
    /// Other spellings accepted when reading (`APPROVED` for `READY`).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// What the state means (documentation only).
    #[serde(default)]
    pub description: String,
    /// Status sync: the timestamp field set on entering this state (`Completed` writes
    /// `**Completed**: <date>` in TODO.md and `completed_at` in state.json).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<String>,
    /// Status sync: the TODO.md field that artifacts linked on entering this state are
    /// listed under (default `Artifacts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts_field: Option<String>,
}

/// An iteration limit on a transition, counted from the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LimitDef {
    /// Name of a counter of the machine.
    pub counter: String,
    /// The largest allowed iteration number (the counter's value when the move is made).
    pub max: u32,
    /// What to do instead, appended to the block message.
    #[serde(default)]
    pub escalation: String,
}

/// A legal move between two states.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TransitionDef {
    /// The state left.
    pub from: String,
    /// The state entered.
    pub to: String,
    /// Agents allowed to make the move (without `@`); `*` allows any agent.
    pub agents: Vec<String>,
    /// Names of conditions (of this machine) that must hold in the file after the edit.
    #[serde(default)]
    pub conditions: Vec<String>,
    /// A short name of the move shown in messages (`NEEDS_WORK`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// An iteration limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<LimitDef>,
    /// What the move means (documentation only).
    #[serde(default)]
    pub description: String,
}

/// A data-driven check over the parsed file (or the task entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum Check {
    /// One of `fields` has a real value (not empty, `TBD`, `{{...}}`...).
    FieldPresent {
        /// Accepted field names (normalised: `Quality Gate` = `quality_gate`).
        fields: Vec<String>,
    },
    /// The value of one of `fields` is one of `values` (state-style comparison). With `last`,
    /// only the last occurrence in the file counts; otherwise any occurrence.
    FieldEquals {
        /// Accepted field names.
        fields: Vec<String>,
        /// Accepted values.
        values: Vec<String>,
        /// Look at the last occurrence only.
        #[serde(default)]
        last: bool,
    },
    /// A section (heading named like one of `sections`) exists and has real content.
    SectionNotEmpty {
        /// Accepted section names.
        sections: Vec<String>,
    },
    /// A section exists and holds at least one `- [ ]` / `- [x]` checkbox.
    HasCheckboxes {
        /// Accepted section names.
        sections: Vec<String>,
    },
    /// Every checkbox of the section is ticked (and there is at least one). With `optional`,
    /// a missing section or a section without checkboxes passes.
    AllChecked {
        /// Accepted section names.
        sections: Vec<String>,
        /// Pass when the section or its checkboxes are missing.
        #[serde(default)]
        optional: bool,
    },
    /// Both a field of `fields` and a field of `other` are present, and name different agents.
    FieldsDiffer {
        /// First field's accepted names.
        fields: Vec<String>,
        /// Second field's accepted names.
        other: Vec<String>,
    },
    /// The file has a title (`title:` field or first `# ` heading).
    HasTitle {},
    /// The entry links at least one artifact (TODO.md artifact fields, state.json `artifacts`).
    HasArtifacts {},
    /// At least one of the named conditions holds.
    AnyOf {
        /// Names of other conditions of the machine.
        conditions: Vec<String>,
    },
}

/// A named condition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConditionDef {
    /// What must hold, in words, used in block messages.
    pub description: String,
    /// How to make it hold (optional; appended to block messages).
    #[serde(default)]
    pub fix: String,
    /// The check.
    pub check: Check,
}

/// A number read from the file, for iteration limits.
///
/// The value is the larger of (a) the number of occurrences of `countFields` whose value is
/// one of `equals` (all occurrences if `equals` is empty) and (b) the largest integer value
/// of `numberFields`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CounterDef {
    /// What is counted, in words.
    #[serde(default)]
    pub description: String,
    /// Fields whose occurrences are counted (`verdict`).
    #[serde(default)]
    pub count_fields: Vec<String>,
    /// Values counted (`NEEDS_WORK`).
    #[serde(default)]
    pub equals: Vec<String>,
    /// Fields holding the number directly (`review_iterations: 2`).
    #[serde(default)]
    pub number_fields: Vec<String>,
    /// The recorded history may only grow: an edit may not remove or rewrite counted records
    /// (per value, occurrences of `countFields` may not decrease) nor lower `numberFields`.
    #[serde(default)]
    pub append_only: bool,
}

/// How the status is found in a governed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum Extractor {
    /// One status per file, from a Markdown field: YAML frontmatter `status: X`, a field
    /// line (`- Status: X`, `**Status**: X`, `Status: X`, `| Status | X |`), or else the
    /// first line of a `## Status` section. The first occurrence wins (frontmatter first).
    MarkdownField {
        /// Accepted field names (default `["status"]`).
        #[serde(default = "default_status_fields")]
        fields: Vec<String>,
    },
    /// One status per `### NNN. Title` entry of a TODO.md, from its `**Status**: [MARKER]`
    /// field; entries are keyed by task number.
    TodoEntries {
        /// Accepted field names (default `["status"]`).
        #[serde(default = "default_status_fields")]
        fields: Vec<String>,
    },
    /// One status per task object in a state.json, keyed by task number. Tasks are the
    /// objects of the top-level `arrays` that have one of `numberKeys`; if there are none and
    /// the root object has `statusKey`, the root itself is the one entry (project state.json).
    JsonTasks {
        /// Top-level arrays holding tasks.
        #[serde(default = "default_arrays")]
        arrays: Vec<String>,
        /// Keys holding the task number.
        #[serde(default = "default_number_keys")]
        number_keys: Vec<String>,
        /// Key holding the status.
        #[serde(default = "default_status_key")]
        status_key: String,
    },
}

pub(crate) fn default_status_fields() -> Vec<String> {
    vec!["status".to_string()]
}
pub(crate) fn default_arrays() -> Vec<String> {
    ["active_projects", "completed_projects", "tasks", "projects"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}
pub(crate) fn default_number_keys() -> Vec<String> {
    ["project_number", "task_number", "number"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}
pub(crate) fn default_status_key() -> String {
    "status".to_string()
}

impl Extractor {
    /// The default state.json extractor.
    pub fn default_json_tasks() -> Extractor {
        Extractor::JsonTasks {
            arrays: default_arrays(),
            number_keys: default_number_keys(),
            status_key: default_status_key(),
        }
    }
    /// The default TODO.md extractor.
    pub fn default_todo() -> Extractor {
        Extractor::TodoEntries {
            fields: default_status_fields(),
        }
    }
    /// True for extractors of files holding many tasks.
    pub fn is_multi(&self) -> bool {
        !matches!(self, Extractor::MarkdownField { .. })
    }
}

/// Files a machine governs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FileBinding {
    /// Project-relative path globs (`docs/kord/**/stories/*.md`).
    pub globs: Vec<String>,
    /// Globs of paths left alone even though `globs` match.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// How the status is read.
    pub extract: Extractor,
    /// States a newly created file (or entry) may start in; default: the initial states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_in: Option<Vec<String>>,
}

/// A machine as written in JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MachineDef {
    /// What the machine governs (documentation only).
    #[serde(default)]
    pub description: String,
    /// What one entry is called in messages (`story`, `task`). Default `item`.
    #[serde(default = "default_noun")]
    pub noun: String,
    /// Precedence when several machines' globs match a file: higher first (default 0).
    #[serde(default)]
    pub priority: i32,
    /// The states.
    pub states: Vec<StateDef>,
    /// The legal moves.
    pub transitions: Vec<TransitionDef>,
    /// Named conditions used by transitions.
    #[serde(default)]
    pub conditions: BTreeMap<String, ConditionDef>,
    /// Named counters used by limits.
    #[serde(default)]
    pub counters: BTreeMap<String, CounterDef>,
    /// Governed files.
    #[serde(default)]
    pub files: Vec<FileBinding>,
}

fn default_noun() -> String {
    "item".to_string()
}

/// A validated machine with its lookups.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Machine {
    /// The machine's name (`kord-story`).
    pub name: String,
    /// True for a shipped default.
    pub builtin: bool,
    /// The definition, agents normalised (lowercase, no `@`).
    pub def: MachineDef,
    #[serde(skip)]
    index: BTreeMap<String, usize>,
    #[serde(skip)]
    edges: Vec<(usize, usize)>,
}

/// A configuration problem, precise enough to fix without reading NSO's source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusConfigError {
    /// Stable code: `status_config_json`, `status_config_shape`, `status_config_value`,
    /// `status_config_unknown_state`, `status_config_unknown_reference`,
    /// `status_config_duplicate`.
    pub code: &'static str,
    /// The configuration file.
    pub file: String,
    /// JSON path of the offending value (`status.machines.x.transitions[2].to`).
    pub path: String,
    /// What is wrong.
    pub problem: String,
    /// How to fix it.
    pub fix: String,
}

impl fmt::Display for StatusConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {} Fix: {}",
            self.file, self.path, self.problem, self.fix
        )
    }
}

impl std::error::Error for StatusConfigError {}

/// The active machines, in precedence order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusConfig {
    /// Whether status governance is on.
    pub enabled: bool,
    /// Machines in precedence order (the first whose globs match a file governs it).
    pub machines: Vec<Machine>,
}

impl Default for StatusConfig {
    /// All shipped machines, enabled.
    fn default() -> Self {
        StatusConfig {
            enabled: true,
            machines: default_machines(),
        }
    }
}

/// The shipped machines (`nso-task`, `kord-story`, `proofchecker`), validated.
pub fn default_machines() -> Vec<Machine> {
    static CACHE: std::sync::OnceLock<Vec<Machine>> = std::sync::OnceLock::new();
    CACHE.get_or_init(build_default_machines).clone()
}

fn build_default_machines() -> Vec<Machine> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(DEFAULT_MACHINES_JSON) else {
        return Vec::new();
    };
    let ctx = Ctx { file: "(built-in)" };
    DEFAULT_MACHINE_NAMES
        .iter()
        .filter_map(|name| {
            let v = map.get(*name)?;
            let def = ctx.machine_def(name, v).ok()?;
            Machine::compile(name, def, true, &ctx).ok()
        })
        .collect()
}

/// Parses the whole `.opencode/nso.json` text and returns its `status` section's machines
/// (other keys are ignored here; the main configuration parser checks them). An absent or
/// blank file gives the defaults.
pub fn parse_nso_json(file: &str, text: Option<&str>) -> Result<StatusConfig, StatusConfigError> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok(StatusConfig::default());
    };
    let root: Value = serde_json::from_str(text).map_err(|e| StatusConfigError {
        code: "status_config_json",
        file: file.to_string(),
        path: format!("line {} column {}", e.line(), e.column()),
        problem: format!(
            "not valid JSON ({}).",
            e.to_string().split(" at line ").next().unwrap_or("")
        ),
        fix: "correct the JSON syntax (no comments or trailing commas are allowed).".to_string(),
    })?;
    let ctx = Ctx { file };
    let Value::Object(top) = &root else {
        return Err(ctx.type_error("(document)", "an object", &root));
    };
    parse_status_section(file, top.get("status"))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawSection {
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    defaults: Option<Vec<String>>,
    #[serde(default)]
    machines: Option<BTreeMap<String, Value>>,
}

/// Parses the value of the `status` key of `.opencode/nso.json` (`None`: key absent).
pub fn parse_status_section(
    file: &str,
    section: Option<&Value>,
) -> Result<StatusConfig, StatusConfigError> {
    let ctx = Ctx { file };
    let Some(section) = section else {
        return Ok(StatusConfig::default());
    };
    if !section.is_object() {
        return Err(ctx.type_error("status", "an object", section));
    }
    let raw: RawSection =
        serde_json::from_value(section.clone()).map_err(|e| ctx.shape_error("status", &e))?;
    let defaults = default_machines();
    let wanted: Vec<String> = match &raw.defaults {
        None => DEFAULT_MACHINE_NAMES
            .iter()
            .map(|s| s.to_string())
            .collect(),
        Some(list) => {
            for (i, n) in list.iter().enumerate() {
                if !DEFAULT_MACHINE_NAMES.contains(&n.as_str()) {
                    return Err(ctx.error(
                        "status_config_value",
                        &format!("status.defaults[{i}]"),
                        format!("`{n}` is not a shipped machine."),
                        format!(
                            "use some of {}, or define `{n}` under `status.machines`.",
                            DEFAULT_MACHINE_NAMES.join(", ")
                        ),
                    ));
                }
            }
            list.clone()
        }
    };
    let mut project = Vec::new();
    for (name, v) in raw.machines.iter().flatten() {
        let base = machine_path(name);
        if name.is_empty()
            || name.len() > 64
            || !name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        {
            return Err(ctx.error(
                "status_config_value",
                &base,
                format!("`{name}` is not a valid machine name."),
                "use 1 to 64 lowercase letters, digits, `-` or `_`.".to_string(),
            ));
        }
        let def = ctx.machine_def(name, v)?;
        project.push(Machine::compile(name, def, false, &ctx)?);
    }
    let mut machines: Vec<Machine> = project.clone();
    for m in defaults {
        if wanted.contains(&m.name) && !project.iter().any(|p| p.name == m.name) {
            machines.push(m);
        }
    }
    // Stable sort: priority first; ties keep project-before-default then name order.
    machines.sort_by_key(|m| -i64::from(m.def.priority));
    Ok(StatusConfig {
        enabled: raw.enabled.unwrap_or(true),
        machines,
    })
}

fn machine_path(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        format!("status.machines.{name}")
    } else {
        format!(
            "status.machines[{}]",
            serde_json::to_string(name).unwrap_or_default()
        )
    }
}

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn error(
        &self,
        code: &'static str,
        path: &str,
        problem: String,
        fix: String,
    ) -> StatusConfigError {
        StatusConfigError {
            code,
            file: self.file.to_string(),
            path: path.to_string(),
            problem,
            fix,
        }
    }

    fn type_error(&self, path: &str, expected: &str, got: &Value) -> StatusConfigError {
        let found = match got {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        };
        self.error(
            "status_config_shape",
            path,
            format!("expected {expected}, found {found}."),
            format!("make `{path}` {expected}."),
        )
    }

    fn shape_error(&self, path: &str, e: &serde_json::Error) -> StatusConfigError {
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        let fix = if msg.starts_with("unknown field") {
            "rename the key to one of the expected keys listed, or remove it."
        } else if msg.starts_with("missing field") {
            "add the missing key."
        } else if msg.starts_with("unknown variant") {
            "use one of the listed `kind` values."
        } else if msg.starts_with("invalid type") || msg.starts_with("invalid value") {
            "change the value to the expected type."
        } else {
            "correct the value as described."
        };
        self.error(
            "status_config_shape",
            path,
            format!("{msg}."),
            fix.to_string(),
        )
    }

    /// Deserialises each element of an array on its own so that errors name the element.
    fn check_each<T: DeserializeOwned>(
        &self,
        v: Option<&Value>,
        path: &str,
    ) -> Result<(), StatusConfigError> {
        if let Some(Value::Array(items)) = v {
            for (i, it) in items.iter().enumerate() {
                serde_json::from_value::<T>(it.clone())
                    .map_err(|e| self.shape_error(&format!("{path}[{i}]"), &e))?;
            }
        }
        Ok(())
    }

    fn check_map<T: DeserializeOwned>(
        &self,
        v: Option<&Value>,
        path: &str,
    ) -> Result<(), StatusConfigError> {
        if let Some(Value::Object(items)) = v {
            for (k, it) in items {
                serde_json::from_value::<T>(it.clone())
                    .map_err(|e| self.shape_error(&format!("{path}.{k}"), &e))?;
            }
        }
        Ok(())
    }

    fn machine_def(&self, name: &str, v: &Value) -> Result<MachineDef, StatusConfigError> {
        let base = machine_path(name);
        let Value::Object(obj) = v else {
            return Err(self.type_error(&base, "an object", v));
        };
        self.check_each::<StateDef>(obj.get("states"), &format!("{base}.states"))?;
        self.check_each::<TransitionDef>(obj.get("transitions"), &format!("{base}.transitions"))?;
        self.check_map::<ConditionDef>(obj.get("conditions"), &format!("{base}.conditions"))?;
        self.check_map::<CounterDef>(obj.get("counters"), &format!("{base}.counters"))?;
        if let Some(Value::Array(files)) = obj.get("files") {
            for (i, f) in files.iter().enumerate() {
                if let Some(x) = f.get("extract") {
                    serde_json::from_value::<Extractor>(x.clone())
                        .map_err(|e| self.shape_error(&format!("{base}.files[{i}].extract"), &e))?;
                }
            }
        }
        self.check_each::<FileBinding>(obj.get("files"), &format!("{base}.files"))?;
        serde_json::from_value::<MachineDef>(v.clone()).map_err(|e| self.shape_error(&base, &e))
    }
}

impl Machine {
    /// Validates a definition: unique states, at least one initial state, transitions
    /// between known states (none leaving a terminal state, no duplicates, at least one
    /// agent), known conditions and counters, valid globs.
    pub fn from_def(name: &str, def: MachineDef, file: &str) -> Result<Machine, StatusConfigError> {
        Machine::compile(name, def, false, &Ctx { file })
    }

    fn compile(
        name: &str,
        mut def: MachineDef,
        builtin: bool,
        ctx: &Ctx,
    ) -> Result<Machine, StatusConfigError> {
        let base = machine_path(name);
        let mut index: BTreeMap<String, usize> = BTreeMap::new();
        if def.states.is_empty() {
            return Err(ctx.error(
                "status_config_value",
                &format!("{base}.states"),
                "the machine has no states.".to_string(),
                "list the states, e.g. `[{\"name\": \"OPEN\", \"initial\": true}, {\"name\": \"DONE\", \"terminal\": true}]`.".to_string(),
            ));
        }
        for (i, s) in def.states.iter().enumerate() {
            let mut names = vec![(format!("{base}.states[{i}].name"), s.name.clone())];
            for (j, a) in s.aliases.iter().enumerate() {
                names.push((format!("{base}.states[{i}].aliases[{j}]"), a.clone()));
            }
            for (path, n) in names {
                let c = canon_state(&n);
                if c.is_empty() {
                    return Err(ctx.error(
                        "status_config_value",
                        &path,
                        "the state name is empty.".to_string(),
                        "give the state a name with letters or digits.".to_string(),
                    ));
                }
                if let Some(&other) = index.get(&c).filter(|&&o| o != i) {
                    return Err(ctx.error(
                        "status_config_duplicate",
                        &path,
                        format!("`{n}` is already a name of state `{}`.", def.states[other].name),
                        "give every state and alias a distinct name (case, spaces, `-` and `_` are ignored).".to_string(),
                    ));
                }
                index.insert(c, i);
            }
            for (field, v) in [("stamp", &s.stamp), ("artifactsField", &s.artifacts_field)] {
                if let Some(v) = v {
                    if norm_key(v).is_empty() || v.contains('\n') {
                        return Err(ctx.error(
                            "status_config_value",
                            &format!("{base}.states[{i}].{field}"),
                            format!("`{v}` is not a usable field name."),
                            "use a short name such as `Completed`, or remove the key.".to_string(),
                        ));
                    }
                }
            }
        }
        if !def.states.iter().any(|s| s.initial) {
            return Err(ctx.error(
                "status_config_value",
                &format!("{base}.states"),
                "no state is marked `initial`.".to_string(),
                "add `\"initial\": true` to the state new files start in.".to_string(),
            ));
        }
        let lookup = |n: &str| index.get(&canon_state(n)).copied();
        let state_names = def
            .states
            .iter()
            .map(|s| s.name.clone())
            .collect::<Vec<_>>()
            .join(", ");
        let mut edges = Vec::new();
        let mut seen = BTreeSet::new();
        for (i, t) in def.transitions.iter_mut().enumerate() {
            let tp = format!("{base}.transitions[{i}]");
            let mut ends = [0usize; 2];
            for (k, (field, v)) in [("from", &t.from), ("to", &t.to)].into_iter().enumerate() {
                ends[k] = lookup(v).ok_or_else(|| {
                    ctx.error(
                        "status_config_unknown_state",
                        &format!("{tp}.{field}"),
                        format!("`{v}` is not a state of this machine."),
                        format!("use one of: {state_names}."),
                    )
                })?;
            }
            let (f, to) = (ends[0], ends[1]);
            if f == to {
                return Err(ctx.error(
                    "status_config_value",
                    &tp,
                    format!("the transition goes from `{}` to itself.", t.from),
                    "remove it: an unchanged status is always allowed.".to_string(),
                ));
            }
            if def.states[f].terminal {
                return Err(ctx.error(
                    "status_config_value",
                    &format!("{tp}.from"),
                    format!("`{}` is terminal, so no transition may leave it.", t.from),
                    format!(
                        "remove the transition, or remove `\"terminal\": true` from `{}`.",
                        t.from
                    ),
                ));
            }
            if !seen.insert((f, to)) {
                return Err(ctx.error(
                    "status_config_duplicate",
                    &tp,
                    format!(
                        "a transition from `{}` to `{}` is already defined.",
                        t.from, t.to
                    ),
                    "merge the two transitions (list all their agents in one).".to_string(),
                ));
            }
            t.agents = t
                .agents
                .iter()
                .map(|a| {
                    if a.trim() == "*" {
                        "*".to_string()
                    } else {
                        norm_agent(a)
                    }
                })
                .collect();
            if t.agents.is_empty() || t.agents.iter().any(|a| a.is_empty()) {
                return Err(ctx.error(
                    "status_config_value",
                    &format!("{tp}.agents"),
                    "the list of agents is empty or has an empty name.".to_string(),
                    "list the agents allowed to make this move (e.g. `[\"qa\"]`), or `[\"*\"]` for any agent.".to_string(),
                ));
            }
            for (j, c) in t.conditions.iter().enumerate() {
                if !def.conditions.contains_key(c) {
                    return Err(ctx.error(
                        "status_config_unknown_reference",
                        &format!("{tp}.conditions[{j}]"),
                        format!("there is no condition named `{c}` in this machine."),
                        format!(
                            "define it under `{base}.conditions`, or use one of: {}.",
                            list_or_none(def.conditions.keys())
                        ),
                    ));
                }
            }
            if let Some(l) = &t.limit {
                if !def.counters.contains_key(&l.counter) {
                    return Err(ctx.error(
                        "status_config_unknown_reference",
                        &format!("{tp}.limit.counter"),
                        format!("there is no counter named `{}` in this machine.", l.counter),
                        format!(
                            "define it under `{base}.counters`, or use one of: {}.",
                            list_or_none(def.counters.keys())
                        ),
                    ));
                }
            }
            edges.push((f, to));
        }
        for (name_c, c) in &def.conditions {
            let cp = format!("{base}.conditions.{name_c}.check");
            let lists: Vec<(&str, &Vec<String>)> = match &c.check {
                Check::FieldPresent { fields } => vec![("fields", fields)],
                Check::FieldEquals { fields, values, .. } => {
                    vec![("fields", fields), ("values", values)]
                }
                Check::SectionNotEmpty { sections }
                | Check::HasCheckboxes { sections }
                | Check::AllChecked { sections, .. } => {
                    vec![("sections", sections)]
                }
                Check::FieldsDiffer { fields, other } => vec![("fields", fields), ("other", other)],
                Check::AnyOf { conditions } => vec![("conditions", conditions)],
                Check::HasTitle {} | Check::HasArtifacts {} => vec![],
            };
            for (k, l) in lists {
                if l.is_empty() || l.iter().any(|x| norm_key(x).is_empty()) {
                    return Err(ctx.error(
                        "status_config_value",
                        &format!("{cp}.{k}"),
                        format!("`{k}` is empty or has an empty name."),
                        format!("list at least one name in `{k}`."),
                    ));
                }
            }
            if let Check::AnyOf { conditions } = &c.check {
                for (j, r) in conditions.iter().enumerate() {
                    if !def.conditions.contains_key(r) || r == name_c {
                        return Err(ctx.error(
                            "status_config_unknown_reference",
                            &format!("{cp}.conditions[{j}]"),
                            format!("`{r}` is not another condition of this machine."),
                            "name conditions defined under `conditions` (not the condition itself).".to_string(),
                        ));
                    }
                }
            }
        }
        if let Some(cycle_at) = any_of_cycle(&def.conditions) {
            return Err(ctx.error(
                "status_config_value",
                &format!("{base}.conditions.{cycle_at}"),
                "the `anyOf` conditions refer to each other in a cycle.".to_string(),
                "break the cycle.".to_string(),
            ));
        }
        for (name_k, k) in &def.counters {
            if k.count_fields.is_empty() && k.number_fields.is_empty() {
                return Err(ctx.error(
                    "status_config_value",
                    &format!("{base}.counters.{name_k}"),
                    "the counter reads nothing.".to_string(),
                    "set `countFields` (with `equals`) or `numberFields`.".to_string(),
                ));
            }
        }
        for (i, f) in def.files.iter().enumerate() {
            let fp = format!("{base}.files[{i}]");
            if f.globs.is_empty() {
                return Err(ctx.error(
                    "status_config_value",
                    &format!("{fp}.globs"),
                    "no globs are given.".to_string(),
                    "list project-relative globs such as `docs/stories/*.md`.".to_string(),
                ));
            }
            for (field, list) in [("globs", &f.globs), ("exclude", &f.exclude)] {
                for (j, g) in list.iter().enumerate() {
                    if let Some(p) = glob_problem(g) {
                        return Err(ctx.error(
                            "status_config_value",
                            &format!("{fp}.{field}[{j}]"),
                            format!("`{g}`: {p}."),
                            "write a project-relative glob using `*`, `?`, `**` and `{a,b}`."
                                .to_string(),
                        ));
                    }
                }
            }
            for (j, s) in f.create_in.iter().flatten().enumerate() {
                if lookup(s).is_none() {
                    return Err(ctx.error(
                        "status_config_unknown_state",
                        &format!("{fp}.createIn[{j}]"),
                        format!("`{s}` is not a state of this machine."),
                        format!("use one of: {state_names}."),
                    ));
                }
            }
            let names: &[String] = match &f.extract {
                Extractor::MarkdownField { fields } | Extractor::TodoEntries { fields } => fields,
                Extractor::JsonTasks {
                    arrays,
                    number_keys,
                    ..
                } => {
                    if arrays.is_empty() || number_keys.is_empty() {
                        return Err(ctx.error(
                            "status_config_value",
                            &format!("{fp}.extract"),
                            "`arrays` and `numberKeys` may not be empty.".to_string(),
                            "list where tasks are and which key holds their number, or omit the keys for the defaults.".to_string(),
                        ));
                    }
                    &[]
                }
            };
            if matches!(
                f.extract,
                Extractor::MarkdownField { .. } | Extractor::TodoEntries { .. }
            ) && (names.is_empty() || names.iter().any(|n| norm_key(n).is_empty()))
            {
                return Err(ctx.error(
                    "status_config_value",
                    &format!("{fp}.extract.fields"),
                    "no usable status field name is given.".to_string(),
                    "list the field names holding the status, e.g. `[\"status\"]`.".to_string(),
                ));
            }
        }
        if def.noun.trim().is_empty() {
            def.noun = default_noun();
        }
        Ok(Machine {
            name: name.to_string(),
            builtin,
            def,
            index,
            edges,
        })
    }

    /// The state a written value names (by name or alias, spacing and case ignored).
    pub fn state_of(&self, raw: &str) -> Option<usize> {
        let c = canon_state(raw);
        if c.is_empty() {
            return None;
        }
        self.index.get(&c).copied()
    }

    /// The state's name.
    pub fn state_name(&self, i: usize) -> &str {
        self.def
            .states
            .get(i)
            .map(|s| s.name.as_str())
            .unwrap_or("?")
    }

    /// The state's definition.
    pub fn state(&self, i: usize) -> Option<&StateDef> {
        self.def.states.get(i)
    }

    /// Number of states.
    pub fn state_count(&self) -> usize {
        self.def.states.len()
    }

    /// Indices of transitions leaving state `from`, in definition order.
    pub fn transitions_from(&self, from: usize) -> Vec<usize> {
        self.edges
            .iter()
            .enumerate()
            .filter(|(_, e)| e.0 == from)
            .map(|(i, _)| i)
            .collect()
    }

    /// The transition index from `from` to `to`, if legal.
    pub fn transition_between(&self, from: usize, to: usize) -> Option<usize> {
        self.edges.iter().position(|e| *e == (from, to))
    }

    /// The transition's definition and resolved (from, to).
    pub fn transition(&self, i: usize) -> Option<(&TransitionDef, usize, usize)> {
        let (f, t) = *self.edges.get(i)?;
        Some((self.def.transitions.get(i)?, f, t))
    }

    /// True when `agent` may make transition `i`.
    pub fn agent_allowed(&self, i: usize, agent: &str) -> bool {
        let a = norm_agent(agent);
        self.def
            .transitions
            .get(i)
            .map(|t| {
                t.agents
                    .iter()
                    .any(|x| x == "*" || (*x == a && !a.is_empty()))
            })
            .unwrap_or(false)
    }

    /// Initial states.
    pub fn initial_states(&self) -> Vec<usize> {
        (0..self.def.states.len())
            .filter(|&i| self.def.states[i].initial)
            .collect()
    }

    /// States a new file or entry governed by `binding` may start in.
    pub fn create_states(&self, binding: &FileBinding) -> Vec<usize> {
        match &binding.create_in {
            Some(list) => list.iter().filter_map(|s| self.state_of(s)).collect(),
            None => self.initial_states(),
        }
    }

    /// True for a terminal state.
    pub fn is_terminal(&self, i: usize) -> bool {
        self.def.states.get(i).map(|s| s.terminal).unwrap_or(false)
    }

    /// States reachable from the initial states through transitions (any agent).
    pub fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.def.states.len()];
        let mut stack = self.initial_states();
        for &s in &stack {
            seen[s] = true;
        }
        while let Some(s) = stack.pop() {
            for &(f, t) in &self.edges {
                if f == s && !seen[t] {
                    seen[t] = true;
                    stack.push(t);
                }
            }
        }
        seen
    }

    /// The binding governing `path` (normalised, project-relative), if any.
    pub fn binding_for(&self, path: &str) -> Option<&FileBinding> {
        let p = normalize_path(path);
        self.def.files.iter().find(|b| {
            b.globs.iter().any(|g| glob_match(g, &p))
                && !b.exclude.iter().any(|g| glob_match(g, &p))
        })
    }
}

fn list_or_none<'a>(it: impl Iterator<Item = &'a String>) -> String {
    let v: Vec<String> = it.map(|s| format!("`{s}`")).collect();
    if v.is_empty() {
        "(none defined)".to_string()
    } else {
        v.join(", ")
    }
}

fn any_of_cycle(conds: &BTreeMap<String, ConditionDef>) -> Option<String> {
    fn visit(
        n: &str,
        conds: &BTreeMap<String, ConditionDef>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> bool {
        if stack.iter().any(|s| s == n) {
            return true;
        }
        if done.contains(n) {
            return false;
        }
        stack.push(n.to_string());
        if let Some(ConditionDef {
            check: Check::AnyOf { conditions },
            ..
        }) = conds.get(n)
        {
            for c in conditions {
                if visit(c, conds, stack, done) {
                    return true;
                }
            }
        }
        stack.pop();
        done.insert(n.to_string());
        false
    }
    let mut done = BTreeSet::new();
    for n in conds.keys() {
        let mut stack = Vec::new();
        if visit(n, conds, &mut stack, &mut done) {
            return Some(n.clone());
        }
    }
    None
}

impl StatusConfig {
    /// A configuration without machines (governance off).
    pub fn disabled() -> StatusConfig {
        StatusConfig {
            enabled: false,
            machines: Vec::new(),
        }
    }

    /// The machine and binding governing `path`, if any (none when disabled).
    pub fn resolve(&self, path: &str) -> Option<(&Machine, &FileBinding)> {
        if !self.enabled {
            return None;
        }
        self.machines
            .iter()
            .find_map(|m| m.binding_for(path).map(|b| (m, b)))
    }

    /// The machine named `name`.
    pub fn machine(&self, name: &str) -> Option<&Machine> {
        self.machines.iter().find(|m| m.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse() {
        let ms = default_machines();
        assert_eq!(
            ms.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
            DEFAULT_MACHINE_NAMES.to_vec()
        );
        let k = &ms[1];
        let draft = k.state_of("draft").unwrap();
        let ready = k.state_of("Approved").unwrap();
        assert_eq!(k.state_name(ready), "READY");
        let t = k.transition_between(draft, ready).unwrap();
        assert!(k.agent_allowed(t, "@SM"));
        assert!(!k.agent_allowed(t, "dev"));
        assert!(k.reachable().iter().all(|r| *r));
    }

    #[test]
    fn resolve_paths() {
        let c = StatusConfig::default();
        assert_eq!(
            c.resolve("docs/kord/plans/p/stories/s1.md").unwrap().0.name,
            "kord-story"
        );
        assert_eq!(
            c.resolve(".opencode/specs/TODO.md").unwrap().0.name,
            "proofchecker"
        );
        assert_eq!(
            c.resolve(".opencode/specs/258_x/state.json")
                .unwrap()
                .0
                .name,
            "proofchecker"
        );
        assert!(c.resolve(".opencode/specs/archive/state.json").is_none());
        assert_eq!(
            c.resolve(".opencode/context/active_tasks/t1/status.md")
                .unwrap()
                .0
                .name,
            "nso-task"
        );
        assert!(c.resolve("src/main.rs").is_none());
    }

    fn err(json: &str) -> StatusConfigError {
        parse_nso_json(".opencode/nso.json", Some(json)).unwrap_err()
    }

    #[test]
    fn config_errors_have_paths() {
        let e = err(
            r#"{"status": {"machines": {"m": {"states": [{"name": "A", "initial": true, "colour": 1}], "transitions": []}}}}"#,
        );
        assert_eq!(e.code, "status_config_shape");
        assert_eq!(e.path, "status.machines.m.states[0]");
        assert!(
            e.problem.contains("unknown field `colour`"),
            "{}",
            e.problem
        );
        let e = err(
            r#"{"status": {"machines": {"m": {"states": [{"name": "A", "initial": true}], "transitions": [{"from": "A", "to": "B", "agents": ["x"]}]}}}}"#,
        );
        assert_eq!(
            (e.code, e.path.as_str()),
            (
                "status_config_unknown_state",
                "status.machines.m.transitions[0].to"
            )
        );
        let e = err(
            r#"{"status": {"machines": {"m": {"states": [{"name": "A", "initial": true}], "transitions": [], "files": [{"globs": ["x"], "extract": {"kind": "yaml"}}]}}}}"#,
        );
        assert_eq!(e.path, "status.machines.m.files[0].extract");
        assert!(e.problem.contains("unknown variant"), "{}", e.problem);
        let e = err(
            r#"{"status": {"machines": {"m": {"states": [{"name": "A", "initial": true}], "transitions": [], "files": [{"globs": ["x"], "extract": {"kind": "todoEntries", "field": "s"}}]}}}}"#,
        );
        assert!(e.problem.contains("unknown field `field`"), "{}", e.problem);
        let e = err(r#"{"status": {"defaults": ["kord"]}}"#);
        assert_eq!(e.path, "status.defaults[0]");
        let e = err(r#"{"status": {"enable": false}}"#);
        assert_eq!(e.path, "status");
        let e = err(
            r#"{"status": {"machines": {"m": {"states": [{"name": "A", "initial": true}, {"name": "a"}], "transitions": []}}}}"#,
        );
        assert_eq!(e.code, "status_config_duplicate");
        let e = err("{\"status\": [}");
        assert_eq!(e.code, "status_config_json");
    }

    #[test]
    fn project_machines_replace_and_precede() {
        let c = parse_nso_json(
            "nso.json",
            Some(r#"{"memory": {}, "status": {"defaults": ["kord-story"], "machines": {"kord-story": {"noun": "story", "states": [{"name": "OPEN", "initial": true}, {"name": "SHUT", "terminal": true}], "transitions": [{"from": "OPEN", "to": "SHUT", "agents": ["@Dev"]}], "files": [{"globs": ["docs/kord/**/stories/*.md"], "extract": {"kind": "markdownField"}}]}}}}"#),
        )
        .unwrap();
        assert_eq!(c.machines.len(), 1);
        assert!(!c.machines[0].builtin);
        assert_eq!(
            c.machines[0].def.transitions[0].agents,
            vec!["dev".to_string()]
        );
        let off = parse_nso_json("nso.json", Some(r#"{"status": {"enabled": false}}"#)).unwrap();
        assert!(off.resolve("TODO.md").is_none());
    }
}

#[cfg(test)]
mod default_errors {
    use super::*;
    #[test]
    fn every_default_compiles() {
        let map: serde_json::Map<String, Value> =
            serde_json::from_str(DEFAULT_MACHINES_JSON).unwrap();
        let ctx = Ctx { file: "(built-in)" };
        for (name, v) in &map {
            let def = ctx.machine_def(name, v).unwrap_or_else(|e| panic!("{e}"));
            Machine::compile(name, def, true, &ctx).unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(map.len(), DEFAULT_MACHINE_NAMES.len());
    }
}
