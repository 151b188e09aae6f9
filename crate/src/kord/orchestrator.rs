//! The orchestrator's delegation rules (agent contracts, sections 2.2, 3.2 and 6): one work
//! item in flight at a time, the executor the item names, at most `max_attempts` failed
//! attempts (then the item is BLOCKED or failed, with a failure report), wave checkpoints
//! in `interactive` mode, and a state that outlives a crash.
//!
//! The state is JSON kept by the JS shell (`.opencode/nso/kord-state.json`, read and
//! rewritten under a lock); every decision here takes it as text and returns the new text.

use super::gates::Squads;
use super::plan::{plan_file, Item, Plan, PLANS_DIR, RUNS_DIR};
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
    let story = plan.as_ref().and_then(|p| {
        let run = state.plans.get(p)?;
        run.in_flight.as_ref()?.story.clone()
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
    (!name.is_empty() && rest[name.len()..].starts_with('/')).then_some(name)
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
    fn pass() -> Verdict {
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

fn finished(run: &PlanRun, item: &Item) -> bool {
    item.checked
        || run
            .items
            .get(&item.id)
            .is_some_and(|r| r.outcome != Outcome::Open)
}

/// The next open item of the plan, as a sentence (`T3 (@dev)`), for refusals.
fn next_step(plan: &Plan, run: &PlanRun, except: &str) -> String {
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
    if !rules.orchestrators.iter().any(|o| *o == d.agent) {
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
    let report = failure_report_path(&plan.name, &item.id);
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

/// What an executor's or checkpoint's answer says (delegation output contract).
fn report_word(output: &str, words: &[&str]) -> Option<String> {
    for line in output.lines() {
        let l = line.trim().trim_start_matches(['#', '*', '-', ' ', '>']);
        let l = l
            .strip_prefix("Status:")
            .or_else(|| l.strip_prefix("Decision:"))
            .or_else(|| l.strip_prefix("Result:"))
            .unwrap_or(l)
            .trim()
            .trim_matches('*')
            .trim();
        let first: String = l
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == '_')
            .collect();
        let up = first.to_ascii_uppercase();
        if words.contains(&up.as_str()) {
            return Some(up);
        }
    }
    None
}

/// The delegation `d` returned `output`: records success or failure (and after
/// `max_attempts` failures blocks the item with a failure report), or a checkpoint decision.
/// `story_text` is the text of the item's story file when it is a story.
pub fn after_delegation(
    state: &State,
    ctx: &Context,
    d: &Delegation,
    output: &str,
    story_text: Option<&str>,
) -> Verdict {
    let (plan, squad) = (ctx.plan, ctx.squad);
    let rules = &squad.delegation;
    if !rules.orchestrators.iter().any(|o| *o == d.agent) {
        return Verdict::pass();
    }
    let mut next = state.clone();
    let run = next.plans.entry(plan.name.clone()).or_default();
    if d.target == rules.checkpoint_agent {
        let Some(decision) = report_word(output, &["GO", "PAUSE", "REVIEW", "ABORT"]) else {
            return Verdict {
                message: format!("@{} gave no checkpoint decision (`Decision: GO`, PAUSE, REVIEW or ABORT); wave {} stays open", rules.checkpoint_agent, run.wave),
                ..Verdict::pass()
            };
        };
        let wave = run.wave.max(1);
        run.checkpoints.insert(wave, decision.clone());
        return Verdict {
            rule: "kord.wave_checkpoint".into(),
            message: format!("checkpoint of wave {wave} recorded: {decision}"),
            state: Some(next.text()),
            ..Verdict::pass()
        };
    }
    let Some(f) = run.in_flight.clone().filter(|f| f.agent == d.target) else {
        return Verdict::pass();
    };
    run.in_flight = None;
    let item = plan.item(&f.item);
    let rec = run.items.entry(f.item.clone()).or_default();
    match report_word(output, &["SUCCESS", "FAILURE", "FAILED", "BLOCKED"]).as_deref() {
        Some("SUCCESS") => {
            rec.outcome = Outcome::Done;
            return Verdict {
                rule: "kord.delegation".into(),
                message: format!("work item {} reported SUCCESS", f.item),
                state: Some(next.text()),
                ..Verdict::pass()
            };
        }
        Some(_) => {}
        None => {
            return Verdict {
                rule: "kord.delegation".into(),
                message: format!(
                    "@{} did not report SUCCESS, FAILURE or BLOCKED for {}; ask it for the delegation output contract's status line",
                    d.target, f.item
                ),
                state: Some(next.text()),
                ..Verdict::pass()
            };
        }
    }
    rec.failures += 1;
    let short: String = output.trim().chars().take(400).collect();
    rec.errors.push(short);
    let max = rules.max_attempts;
    if rec.failures < max {
        let msg = format!(
            "work item {} failed (attempt {} of at most {max}); retry it with the failure fed back, or move on",
            f.item, rec.failures
        );
        return Verdict {
            rule: "kord.retry_limit".into(),
            message: msg,
            state: Some(next.text()),
            ..Verdict::pass()
        };
    }
    let story = item.and_then(|i| i.story.clone());
    rec.outcome = if story.is_some() {
        Outcome::Blocked
    } else {
        Outcome::Failed
    };
    let rec = rec.clone();
    let report = failure_report_path(&plan.name, &f.item);
    let mut writes = vec![(report.clone(), failure_report(plan, &f, &rec, d))];
    if let (Some(file), Some(text)) = (story, story_text) {
        writes.push((file, block_story(text, &f.item, &report, max)));
    }
    let run = next.plans.get(&plan.name).cloned().unwrap_or_default();
    Verdict {
        allowed: true,
        rule: "kord.retry_limit".into(),
        message: format!(
            "work item {} failed {max} times: it is {} and the failure report is {report}; continue with the plan: {}",
            f.item,
            if rec.outcome == Outcome::Blocked { "BLOCKED" } else { "recorded as failed" },
            next_step(plan, &run, &f.item)
        ),
        state: Some(next.text()),
        writes,
    }
}

/// Where an item's failure report goes: the plan's runs folder.
pub fn failure_report_path(plan: &str, item: &str) -> String {
    format!("{RUNS_DIR}/{plan}/{item}-failure.md")
}

fn failure_report(plan: &Plan, f: &InFlight, rec: &ItemRun, d: &Delegation) -> String {
    let mut s = format!(
        "# Failure report: {} of plan {}\n\n- Plan: {}\n- Item: {}\n- Executor: @{}\n- Attempts: {}\n- Failures: {}\n- Outcome: {}\n- Recorded: {}\n\n## What each failed attempt reported\n",
        f.item,
        plan.name,
        plan_file(&plan.name),
        f.item,
        f.agent,
        rec.attempts,
        rec.failures,
        if rec.outcome == Outcome::Blocked { "BLOCKED" } else { "FAILED" },
        d.now
    );
    for (n, e) in rec.errors.iter().enumerate() {
        s.push_str(&format!(
            "\n### Attempt {}\n\n{}\n",
            n + 1,
            e.replace("\n#", "\n\\#")
        ));
    }
    s.push_str("\n## Next\n\nThe orchestrator moves on to the next work item; the person resolves the blocker.\n");
    s
}

/// The story text with its status set to BLOCKED and the blocker documented.
pub fn block_story(text: &str, item: &str, report: &str, max: u32) -> String {
    let mut done = false;
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if !done {
            if let Some(new) = set_status(line) {
                out.push(new);
                done = true;
                continue;
            }
        }
        out.push(line.to_string());
    }
    if !done {
        out.push(String::new());
        out.push("- Status: BLOCKED".into());
    }
    out.push(String::new());
    out.push("## Blockers".into());
    out.push(format!(
        "- {item} failed {max} times; see the failure report {report}."
    ));
    out.join("\n") + "\n"
}

fn set_status(line: &str) -> Option<String> {
    let t = line.trim_start();
    let indent = &line[..line.len() - t.len()];
    let (prefix, body) = match t.strip_prefix("- ") {
        Some(b) => ("- ", b),
        None => ("", t),
    };
    let plain = body.replace("**", "");
    let (key, _) = plain.split_once(':')?;
    if !key.trim().eq_ignore_ascii_case("status") {
        return None;
    }
    let bold = body.starts_with("**");
    Some(if bold {
        format!("{indent}{prefix}**Status:** BLOCKED")
    } else {
        format!("{indent}{prefix}{}: BLOCKED", key.trim())
    })
}

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
