//! The orchestrator's delegation rules (agent contracts, sections 2.2, 3.2 and 6): one work
//! item in flight at a time, the executor the item names, at most `max_attempts` failed
//! attempts (then the item is BLOCKED or failed, with a failure report), wave checkpoints
//! in `interactive` mode, and a state that outlives a crash.
//!
//! The state is JSON kept by the JS shell (`.opencode/nso/kord-state.json`, read and
//! rewritten under a lock); every decision here takes it as text and returns the new text.
//! What a returned delegation changes is in [`super::outcome`].

use super::gates::Squads;
use super::plan::{plan_file, project_path, Item, Plan, PLANS_DIR};
use super::squad::{CheckpointMode, Squad};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How one work item ended its last attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Not finished.
    #[default]
    Open,
    /// The executor reported success.
    Done,
    /// A story that failed `max_attempts` times.
    Blocked,
    /// A task that failed `max_attempts` times.
    Failed,
}

/// One work item's record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ItemRun {
    /// Delegations so far.
    pub attempts: u32,
    /// Failed attempts.
    pub failures: u32,
    /// How it stands.
    pub outcome: Outcome,
    /// What the failed attempts reported (shortened).
    #[serde(default)]
    pub errors: Vec<String>,
}

/// The delegation in flight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlight {
    /// The work item.
    pub item: String,
    /// The agent it went to.
    pub agent: String,
    /// The orchestrator's session.
    pub session: String,
    /// When (ISO time).
    pub since: String,
    /// The item's story file, when it is a story.
    #[serde(default)]
    pub story: Option<String>,
}

/// One plan's run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PlanRun {
    /// The current wave.
    pub wave: u32,
    /// The item last delegated.
    pub item: Option<String>,
    /// The delegation in flight.
    pub in_flight: Option<InFlight>,
    /// Item records by id.
    #[serde(default)]
    pub items: BTreeMap<String, ItemRun>,
    /// Checkpoint decisions by wave (`GO`, `PAUSE`, `REVIEW`, `ABORT`).
    #[serde(default)]
    pub checkpoints: BTreeMap<u32, String>,
}

/// The orchestrator's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct State {
    /// The plan in progress.
    pub active: Option<String>,
    /// Runs by plan name.
    #[serde(default)]
    pub plans: BTreeMap<String, PlanRun>,
}

impl State {
    /// Parses the state file's text (`None` or empty: a fresh state). A corrupt file is an
    /// error naming the fix: the rules fail closed rather than forget attempts.
    pub fn parse(text: Option<&str>) -> Result<State, String> {
        match text.map(str::trim) {
            None | Some("") => Ok(State::default()),
            Some(t) => serde_json::from_str(t).map_err(|e| {
                format!("the orchestrator's state file is corrupt ({e}); repair it or move it aside to start the plan's bookkeeping afresh")
            }),
        }
    }

    /// The state as the file's text.
    pub fn text(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// What a delegation is about, found in its prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Target {
    /// The plan (named by a `docs/kord/plans/<name>/` path, else the active one).
    pub plan: Option<String>,
    /// The story file of the item in flight (for a failure that blocks it).
    pub story: Option<String>,
}

/// The files the shell reads before a decision: the plan named by `prompt` (or the active
/// one) and the in-flight item's story.
pub fn files_to_read(state: &State, prompt: &str) -> Target {
    let plan = plan_in_prompt(prompt).or_else(|| state.active.clone());
    // A state written before story paths were checked may hold one out of the project.
    let story = plan.as_ref().and_then(|p| {
        let run = state.plans.get(p)?;
        project_path(run.in_flight.as_ref()?.story.as_deref()?)
    });
    Target { plan, story }
}

fn plan_in_prompt(prompt: &str) -> Option<String> {
    let at = prompt.find(&format!("{PLANS_DIR}/"))?;
    let rest = &prompt[at + PLANS_DIR.len() + 1..];
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    // `.` and `..` are not plan names: they would lead to the folder above.
    let folder = !name.is_empty() && name != "." && name != "..";
    (folder && rest[name.len()..].starts_with('/')).then_some(name)
}

/// One delegation the orchestrator is about to make.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Delegation {
    /// The delegating agent.
    pub agent: String,
    /// The agent asked.
    pub target: String,
    /// The orchestrator's session.
    pub session: String,
    /// The prompt (and description).
    pub prompt: String,
    /// Now (ISO time).
    pub now: String,
}

/// A decision on a delegation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// It may go ahead.
    pub allowed: bool,
    /// The rule that decided (`kord.one_at_a_time`, ...); empty: no rule concerned.
    pub rule: String,
    /// Refused: why and the next legal step; allowed: what was recorded.
    pub message: String,
    /// The new state text (`None`: unchanged).
    pub state: Option<String>,
    /// Files to write (`[path, text]`): failure reports, a story marked BLOCKED.
    pub writes: Vec<(String, String)>,
}

impl Verdict {
    pub(super) fn pass() -> Verdict {
        Verdict {
            allowed: true,
            rule: String::new(),
            message: String::new(),
            state: None,
            writes: Vec::new(),
        }
    }

    fn refuse(rule: &str, message: String) -> Verdict {
        Verdict {
            allowed: false,
            rule: rule.to_string(),
            message,
            state: None,
            writes: Vec::new(),
        }
    }
}

/// The plan and squad a decision works with.
pub struct Context<'a> {
    /// The parsed plan.
    pub plan: &'a Plan,
    /// Its squad.
    pub squad: &'a Squad,
}

/// Resolves a plan's squad (`Err`: a refusal naming the fix).
pub fn squad_of<'a>(plan: &Plan, squads: &'a Squads) -> Result<&'a Squad, String> {
    squads.get(plan.squad.as_deref()).ok_or_else(|| {
        format!(
            "plan {} names squad `{}`, which this project does not have; fix the plan's `squad:` or add the squad's SQUAD.yaml",
            plan.name,
            plan.squad.as_deref().unwrap_or("dev")
        )
    })
}

/// The items a prompt names (by id as a whole word, or by story path), first mention first.
fn named_items<'p>(plan: &'p Plan, prompt: &str) -> Vec<&'p Item> {
    let mut found: Vec<(usize, &Item)> = plan
        .items
        .iter()
        .filter_map(|i| {
            let by_story = i.story.as_deref().and_then(|s| prompt.find(s));
            let by_id = word_at(prompt, &i.id);
            by_story.into_iter().chain(by_id).min().map(|at| (at, i))
        })
        .collect();
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, i)| i).collect()
}

fn word_at(text: &str, word: &str) -> Option<usize> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let mut from = 0;
    while let Some(pos) = text[from..].find(word) {
        let at = from + pos;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        let after_ok = match after {
            None => true,
            Some('.') => text[at + word.len() + 1..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_ascii_alphanumeric()),
            Some(c) => !is_word(c),
        };
        if before.is_none_or(|c| !is_word(c)) && after_ok {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

pub(super) fn finished(run: &PlanRun, item: &Item) -> bool {
    item.checked
        || run
            .items
            .get(&item.id)
            .is_some_and(|r| r.outcome != Outcome::Open)
}

/// The next open item of the plan, as a sentence (`T3 (@dev)`), for refusals.
pub(super) fn next_step(plan: &Plan, run: &PlanRun, except: &str) -> String {
    match plan
        .items
        .iter()
        .find(|i| i.id != except && !finished(run, i))
    {
        Some(i) => format!(
            "the next open work item is {} (wave {}{})",
            i.id,
            i.wave,
            i.executor
                .as_deref()
                .map(|e| format!(", executor @{e}"))
                .unwrap_or_default()
        ),
        None => "no other work item is open: report the plan's outcome".to_string(),
    }
}

/// The verdict on a delegation by an orchestrator while `plan` runs.
pub fn before_delegation(state: &State, ctx: &Context, d: &Delegation) -> Verdict {
    let (plan, squad) = (ctx.plan, ctx.squad);
    let rules = &squad.delegation;
    if !rules.orchestrators.contains(&d.agent) {
        return Verdict::pass();
    }
    let run = state.plans.get(&plan.name).cloned().unwrap_or_default();
    let max = rules.max_attempts;
    if d.target == rules.checkpoint_agent {
        return Verdict::pass();
    }
    let named = named_items(plan, &d.prompt);
    let Some(item) = named.first().copied() else {
        if plan
            .items
            .iter()
            .any(|i| i.executor.as_deref() == Some(&d.target))
        {
            return Verdict::refuse(
                "kord.executor_from_plan",
                format!(
                    "a delegation to @{} while plan {} runs must name its work item (its id); {}",
                    d.target,
                    plan.name,
                    next_step(plan, &run, "")
                ),
            );
        }
        return Verdict::pass();
    };
    let record = run.items.get(&item.id).cloned().unwrap_or_default();
    let report = super::outcome::failure_report_path(&plan.name, &item.id);
    if matches!(record.outcome, Outcome::Blocked | Outcome::Failed) {
        let what = if record.outcome == Outcome::Blocked {
            "is BLOCKED"
        } else {
            "is recorded as failed"
        };
        return Verdict::refuse(
            "kord.retry_limit",
            format!(
                "work item {} failed {} times and {what}: the rule allows at most {max} attempts per item (delegation.max_attempts of squad {}); the failure report is {report}. Move on: {}; the person (or @{}) resolves the blocker",
                item.id, record.failures, squad.name, next_step(plan, &run, &item.id), rules.checkpoint_agent
            ),
        );
    }
    let reviewer = item.quality_gate.as_deref() == Some(d.target.as_str());
    if let Some(exec) = item.executor.as_deref() {
        if exec != d.target && !reviewer {
            return Verdict::refuse(
                "kord.executor_from_plan",
                format!(
                    "work item {} names its executor: @{exec}; delegate it to @{exec}, not @{}",
                    item.id, d.target
                ),
            );
        }
    }
    if let Some(f) = &run.in_flight {
        let resume = f.item == item.id && f.session != d.session;
        if rules.one_at_a_time && !resume {
            let how = if f.session == d.session {
                format!("wait for its result, then delegate {}", item.id)
            } else {
                format!(
                    "it was delegated in session {} and has not returned; resume it first (delegate {} to @{} again)",
                    f.session, f.item, f.agent
                )
            };
            return Verdict::refuse(
                "kord.one_at_a_time",
                format!(
                    "one work item at a time: {} (@{}) is in flight since {}; {how}",
                    f.item, f.agent, f.since
                ),
            );
        }
    }
    if squad.checkpoint_mode == CheckpointMode::Interactive && !reviewer {
        for w in 1..item.wave {
            if plan.wave(w).next().is_none() {
                continue;
            }
            let open: Vec<&str> = plan
                .wave(w)
                .filter(|i| !finished(&run, i))
                .map(|i| i.id.as_str())
                .collect();
            if !open.is_empty() {
                return Verdict::refuse(
                    "kord.wave_order",
                    format!(
                        "{} belongs to wave {}, but wave {w} is not finished ({} open); finish wave {w} first",
                        item.id,
                        item.wave,
                        open.join(", ")
                    ),
                );
            }
            match run.checkpoints.get(&w).map(String::as_str) {
                Some("GO") => {}
                None => {
                    return Verdict::refuse(
                        "kord.wave_checkpoint",
                        format!(
                            "wave {w} ends with a checkpoint (checkpoint_mode interactive of squad {}): delegate to @{} with the wave report (wave {w}, items completed, items failed or blocked, context, a preview of wave {}) and wait for the decision `Decision: GO` before {}",
                            squad.name, rules.checkpoint_agent, w + 1, item.id
                        ),
                    )
                }
                Some(other) => {
                    return Verdict::refuse(
                        "kord.wave_checkpoint",
                        format!(
                            "@{} decided {other} at the checkpoint of wave {w}; wave {} does not start: ask the person how to go on",
                            rules.checkpoint_agent,
                            w + 1
                        ),
                    )
                }
            }
        }
    }
    let mut next = state.clone();
    next.active = Some(plan.name.clone());
    let r = next.plans.entry(plan.name.clone()).or_default();
    r.wave = item.wave;
    r.item = Some(item.id.clone());
    if reviewer {
        return Verdict {
            allowed: true,
            rule: "kord.quality_gate".into(),
            message: format!("review of {} by its quality gate", item.id),
            state: Some(next.text()),
            writes: Vec::new(),
        };
    }
    r.in_flight = Some(InFlight {
        item: item.id.clone(),
        agent: d.target.clone(),
        session: d.session.clone(),
        since: d.now.clone(),
        story: item.story.clone(),
    });
    let rec = r.items.entry(item.id.clone()).or_default();
    rec.attempts += 1;
    Verdict {
        allowed: true,
        rule: "kord.delegation".into(),
        message: format!(
            "work item {} of plan {} (wave {}), attempt {} of at most {max}",
            item.id,
            plan.name,
            item.wave,
            rec.failures + 1
        ),
        state: Some(next.text()),
        writes: Vec::new(),
    }
}

pub use super::outcome::after_delegation;

/// What a new session is told about a plan in progress (empty: nothing in progress).
pub fn resume_text(state: &State) -> String {
    let Some(name) = &state.active else {
        return String::new();
    };
    let Some(run) = state.plans.get(name) else {
        return String::new();
    };
    let plan = plan_file(name);
    match (&run.in_flight, &run.item) {
        (Some(f), _) => format!(
            "Kord plan in progress: {name} ({plan}), wave {}, work item {} delegated to @{} in session {} since {} and not returned. Resume it: delegate {} to @{} again (the attempts so far count), then go on with the plan.",
            run.wave, f.item, f.agent, f.session, f.since, f.item, f.agent
        ),
        (None, Some(item)) => format!(
            "Kord plan in progress: {name} ({plan}), wave {}, last work item {item}. Go on with the plan from there.",
            run.wave
        ),
        _ => String::new(),
    }
}
