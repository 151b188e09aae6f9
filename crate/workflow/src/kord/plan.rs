//! Kord plans: `docs/kord/plans/<name>/plan.md`, waves of work items.
//!
//! ```markdown
//! ---
//! squad: marketing          # optional; the built-in dev squad when left out
//! plan_type: task           # optional; the squad's when left out
//! ---
//! # Plan: Spring campaign
//!
//! ## Wave 1
//! - [ ] T1: Market research — executor: analyst
//! - [ ] S1: Login endpoint
//!   - executor: dev-junior
//!   - quality_gate: qa
//!   - story: docs/kord/plans/spring/stories/s1.md
//! ```
//!
//! An item is a checkbox line at the left margin under a `## Wave <n>` heading, `<id>:` then
//! its title; its fields follow on the same line after ` — ` (`key: value`, separated by
//! commas) or on indented `- key: value` lines below it. An item with a `story:` field is a
//! story; any other is a task. Fenced code blocks are skipped.

use super::squad::agent_name;
use serde::Serialize;
use yaml_rust2::{Yaml, YamlLoader};

/// Where plans live.
pub const PLANS_DIR: &str = "docs/kord/plans";
/// The glob of plan files (checked when written).
pub const PLAN_GLOB: &str = "docs/kord/plans/*/plan.md";
/// Where the orchestrator's run logs and failure reports go.
pub const RUNS_DIR: &str = "docs/kord/runs";

/// One work item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// `T1`, `S1.2`.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its wave (1-based).
    pub wave: u32,
    /// Ticked in the plan.
    pub checked: bool,
    /// The agent that must do it.
    pub executor: Option<String>,
    /// The agent that reviews it.
    pub quality_gate: Option<String>,
    /// Its story file, when it is a story.
    pub story: Option<String>,
    /// 1-based line in the plan.
    pub line: usize,
}

/// A parsed plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The plan's name (its folder).
    pub name: String,
    /// Its squad (`None`: the built-in dev squad).
    pub squad: Option<String>,
    /// `development` / `task` when the plan sets it.
    pub plan_type: Option<String>,
    /// Its items in order.
    pub items: Vec<Item>,
}

impl Plan {
    /// The item called `id`.
    pub fn item(&self, id: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.id.eq_ignore_ascii_case(id))
    }

    /// The highest wave number.
    pub fn last_wave(&self) -> u32 {
        self.items.iter().map(|i| i.wave).max().unwrap_or(0)
    }

    /// The items of wave `n`.
    pub fn wave(&self, n: u32) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(move |i| i.wave == n)
    }
}

/// A problem in a plan, with its line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanProblem {
    /// 1-based line (0: the whole file).
    pub line: usize,
    /// What is wrong and what to do.
    pub message: String,
}

/// The plan name of a plan file (`docs/kord/plans/<name>/plan.md`).
pub fn plan_name_of(file: &str) -> Option<&str> {
    let rest = file.strip_prefix(PLANS_DIR)?.strip_prefix('/')?;
    let (name, tail) = rest.split_once('/')?;
    (tail == "plan.md" && !name.is_empty()).then_some(name)
}

/// The plan file a story belongs to (`docs/kord/plans/<name>/stories/...` → its plan.md).
pub fn plan_file_of_story(file: &str) -> Option<String> {
    let rest = file.strip_prefix(PLANS_DIR)?.strip_prefix('/')?;
    let (name, tail) = rest.split_once('/')?;
    tail.starts_with("stories/")
        .then(|| format!("{PLANS_DIR}/{name}/plan.md"))
}

/// The plan file of plan `name`.
pub fn plan_file(name: &str) -> String {
    format!("{PLANS_DIR}/{name}/plan.md")
}

/// Parses a plan. Problems of form (bad front matter, duplicate ids) are returned beside it.
pub fn parse_plan(name: &str, text: &str) -> (Plan, Vec<PlanProblem>) {
    let mut problems = Vec::new();
    let mut plan = Plan {
        name: name.to_string(),
        squad: None,
        plan_type: None,
        items: Vec::new(),
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut start = 0;
    if lines.first().map(|l| l.trim_end()) == Some("---") {
        if let Some(end) = lines.iter().skip(1).position(|l| l.trim_end() == "---") {
            start = end + 2;
            read_front_matter(&lines[1..end + 1].join("\n"), &mut plan, &mut problems);
        }
    }
    let mut wave = 0u32;
    let mut fence = false;
    for (i, line) in lines.iter().enumerate().skip(start) {
        let n = i + 1;
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        if let Some(w) = wave_heading(line) {
            wave = w;
            continue;
        }
        if line.starts_with('#') {
            wave = 0;
            continue;
        }
        if let Some((checked, rest)) = checkbox(line) {
            if wave == 0 {
                continue;
            }
            let Some((id, title_and_fields)) = item_head(rest) else {
                continue;
            };
            let (title, inline) = match title_and_fields.split_once(" — ") {
                Some((t, f)) => (t, Some(f)),
                None => match title_and_fields.split_once(" -- ") {
                    Some((t, f)) => (t, Some(f)),
                    None => (title_and_fields, None),
                },
            };
            if plan.item(&id).is_some() {
                problems.push(PlanProblem {
                    line: n,
                    message: format!("item {id} appears twice; give every work item its own id"),
                });
            }
            let mut item = Item {
                id,
                title: title.trim().to_string(),
                wave,
                checked,
                executor: None,
                quality_gate: None,
                story: None,
                line: n,
            };
            for pair in inline.into_iter().flat_map(|f| f.split([',', ';'])) {
                if let Some(message) = set_field(&mut item, pair) {
                    problems.push(PlanProblem { line: n, message });
                }
            }
            plan.items.push(item);
            continue;
        }
        if line.starts_with([' ', '\t']) && !trimmed.is_empty() {
            if let Some(item) = plan.items.last_mut().filter(|it| it.wave == wave) {
                let field = trimmed.trim_start_matches(['-', '*', ' ']);
                if let Some(message) = set_field(item, field) {
                    problems.push(PlanProblem { line: n, message });
                }
            }
        }
    }
    (plan, problems)
}

fn read_front_matter(yaml: &str, plan: &mut Plan, problems: &mut Vec<PlanProblem>) {
    let docs = match YamlLoader::load_from_str(yaml) {
        Ok(d) => d,
        Err(e) => {
            problems.push(PlanProblem {
                line: 1,
                message: format!("the front matter is not valid YAML ({e}); fix it"),
            });
            return;
        }
    };
    let Some(Yaml::Hash(h)) = docs.first() else {
        return;
    };
    for (k, v) in h {
        let value = match v {
            Yaml::String(s) => Some(s.clone()),
            Yaml::Null => None,
            other => other.as_str().map(str::to_string),
        };
        match k.as_str() {
            Some("squad") => plan.squad = value.map(|s| s.trim().to_string()),
            Some("plan_type") => {
                match value.as_deref() {
                    Some("development") | Some("task") | None => {}
                    Some(other) => problems.push(PlanProblem {
                        line: 1,
                        message: format!(
                            "plan_type `{other}` is neither `development` nor `task`; write one of them"
                        ),
                    }),
                }
                plan.plan_type = value;
            }
            _ => {}
        }
    }
}

fn wave_heading(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("##")?.trim_start_matches('#').trim();
    let rest = rest
        .strip_prefix("Wave")
        .or_else(|| rest.strip_prefix("wave"))?
        .trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|n| *n > 0)
}

fn checkbox(line: &str) -> Option<(bool, &str)> {
    let rest = line
        .strip_prefix("- [")
        .or_else(|| line.strip_prefix("* ["))?;
    let (mark, rest) = rest.split_at_checked(1)?;
    let rest = rest.strip_prefix(']')?;
    Some((mark.eq_ignore_ascii_case("x"), rest.trim()))
}

fn item_head(rest: &str) -> Option<(String, &str)> {
    let (head, tail) = rest.split_once(':')?;
    let id = head.trim().trim_matches('*').trim();
    let ok = !id.is_empty()
        && id.len() <= 40
        && id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    ok.then(|| (id.to_string(), tail.trim()))
}

/// Sets the field `key: value` of `pair` on `item`; a value that cannot be used is left out
/// and named (the message says the fix).
fn set_field(item: &mut Item, pair: &str) -> Option<String> {
    let (key, value) = pair.split_once(':')?;
    let key = key
        .trim()
        .trim_matches('*')
        .to_ascii_lowercase()
        .replace([' ', '-'], "_");
    let value = value
        .trim()
        .trim_matches('*')
        .trim()
        .trim_matches('`')
        .trim();
    if value.is_empty() {
        return None;
    }
    match key.as_str() {
        "executor" => item.executor = Some(agent_name(value)),
        "quality_gate" | "qa" | "reviewer" => item.quality_gate = Some(agent_name(value)),
        "story" | "story_path" => match project_path(value) {
            Some(path) => item.story = Some(path),
            None => {
                return Some(format!(
                    "work item {} names story `{value}`, which is not a path inside the project; \
                     write the story file's path from the project root, without `..` (for example docs/kord/plans/<plan>/stories/s1.md)",
                    item.id
                ))
            }
        },
        _ => {}
    }
    None
}

/// `text` as a file path inside the project (relative to its root, `/`-separated, no `.`
/// or `..` segment), or None: NSO reads and writes a story's file, and never one outside the
/// project, whatever a plan says.
pub fn project_path(text: &str) -> Option<String> {
    let segments: Vec<&str> = text.split('/').filter(|s| !s.is_empty()).collect();
    let plain = !text.starts_with('/')
        && !text.contains(['\\', '\0'])
        && text.chars().nth(1) != Some(':')
        && !segments.is_empty()
        && segments.iter().all(|s| *s != "." && *s != "..");
    plain.then(|| segments.join("/"))
}
