//! Checks on writes: a plan is checked when it is written (its squad exists, every work
//! item's quality gate differs from its executor, ids are unique), and the story gates are
//! dormant outside story-driven plans.

use super::plan::{parse_plan, plan_file_of_story, plan_name_of};
use super::squad::{Squad, SquadError, DEFAULT_SQUAD};

/// The squads of a project, as the JS shell read them.
#[derive(Debug, Clone, Default)]
pub struct Squads {
    /// Valid squads (the built-in dev squad first).
    pub squads: Vec<Squad>,
    /// Broken SQUAD.yaml files.
    pub errors: Vec<SquadError>,
    /// Whether the project has any SQUAD.yaml.
    pub any_file: bool,
}

impl Squads {
    /// Loads `(path, text)` pairs.
    pub fn load(files: &[(String, String)]) -> Squads {
        let (squads, errors) = super::squad::load_squads(files);
        Squads {
            squads,
            errors,
            any_file: !files.is_empty(),
        }
    }

    /// The squad called `name` (`None`: the dev squad).
    pub fn get(&self, name: Option<&str>) -> Option<&Squad> {
        let name = name.unwrap_or(DEFAULT_SQUAD);
        self.squads.iter().find(|s| s.name == name)
    }

    fn names(&self) -> String {
        self.squads
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The verdict on writing `text` to the plan file `file`: `Err` names every problem and the
/// fix. Files that are not plans pass.
pub fn check_plan_write(file: &str, text: &str, squads: &Squads) -> Result<(), String> {
    let Some(name) = plan_name_of(file) else {
        return Ok(());
    };
    let (plan, problems) = parse_plan(name, text);
    let mut out: Vec<String> = problems
        .iter()
        .map(|p| format!("line {}: {}", p.line, p.message))
        .collect();
    let squad_name = plan.squad.as_deref();
    if let Some(e) = squads
        .errors
        .iter()
        .find(|e| squad_name.is_some_and(|n| e.file.contains(&format!("/{n}/"))))
    {
        out.push(format!("its squad's file is broken: {e}"));
    } else if squads.get(squad_name).is_none() {
        out.push(format!(
            "it names squad `{}`, which this project does not have (squads: {}); name one of them or add .opencode/squads/{}/SQUAD.yaml",
            squad_name.unwrap_or(DEFAULT_SQUAD),
            squads.names(),
            squad_name.unwrap_or(DEFAULT_SQUAD)
        ));
    }
    for item in &plan.items {
        if let (Some(e), Some(g)) = (&item.executor, &item.quality_gate) {
            if e == g {
                out.push(format!(
                    "line {}: work item {} has @{e} as both executor and quality gate; the quality gate never equals the executor: name another reviewer (for example @qa) or another executor",
                    item.line, item.id
                ));
            }
        }
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the plan {file} cannot be written: {}",
            out.join("; ")
        ))
    }
}

/// Whether the story lifecycle gates apply to `story_file`: `Err(reason)` when they are
/// dormant (its plan is a task plan, or its squad is not story-driven). `plan_text` is the
/// text of the story's plan, if it has one. A project without squads and plans is unchanged.
pub fn story_gates(
    story_file: &str,
    plan_text: Option<&str>,
    squads: &Squads,
) -> Result<(), String> {
    let (Some(plan_file), Some(text)) = (plan_file_of_story(story_file), plan_text) else {
        return Ok(());
    };
    let name = plan_name_of(&plan_file).unwrap_or_default();
    let (plan, _) = parse_plan(name, text);
    let Some(squad) = squads.get(plan.squad.as_deref()) else {
        return Ok(());
    };
    let task_plan = match plan.plan_type.as_deref() {
        Some(t) => t == "task",
        None => squad.plan_type == super::squad::PlanType::Task,
    };
    if task_plan {
        return Err(format!(
            "the story gates are dormant: plan {name} is a task plan (squad {})",
            squad.name
        ));
    }
    if !squad.story_driven {
        return Err(format!(
            "the story gates are dormant: squad {} is not story-driven (plan {name})",
            squad.name
        ));
    }
    Ok(())
}

/// What the shell read for a check of a write: the project's SQUAD.yaml files and, for a
/// story inside a plan, the plan's text.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct EditContext {
    /// `[path, text]` of every `.opencode/squads/*/SQUAD.yaml`.
    #[serde(default)]
    pub squads: Vec<(String, String)>,
    /// The text of the story's plan, when it has one.
    #[serde(default)]
    pub plan: Option<String>,
}

/// Kord's verdict on a write, before the status machines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditVerdict {
    /// Not Kord's concern, or in order: the status machines decide.
    Continue,
    /// A plan that breaks the rules: refused with the reason and the fix.
    Refuse(String),
    /// A story whose gates are dormant: allowed, with the reason.
    Dormant(String),
}

/// Checks a write of `file` (a plan or a story) with the files the shell read.
pub fn check_edit(file: &str, new: &str, ctx: &EditContext) -> EditVerdict {
    let squads = Squads::load(&ctx.squads);
    if plan_name_of(file).is_some() {
        return match check_plan_write(file, new, &squads) {
            Ok(()) => EditVerdict::Continue,
            Err(e) => EditVerdict::Refuse(e),
        };
    }
    match story_gates(file, ctx.plan.as_deref(), &squads) {
        Ok(()) => EditVerdict::Continue,
        Err(why) => EditVerdict::Dormant(why),
    }
}
