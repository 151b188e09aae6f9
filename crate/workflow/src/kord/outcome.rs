//! What a returned delegation changes: the executor's status line (SUCCESS, FAILURE,
//! BLOCKED) or the checkpoint agent's decision is recorded; after `max_attempts` failures the
//! item is BLOCKED (a story, whose file says so) or failed (a task), with a failure report in
//! the plan's runs folder.

use super::orchestrator::{
    next_step, Context, Delegation, InFlight, ItemRun, Outcome, State, Verdict,
};
use super::plan::{plan_file, Plan, RUNS_DIR};

/// What an executor's or checkpoint's answer says (delegation output contract).
fn report_word(output: &str, words: &[&str]) -> Option<String> {
    for line in output.lines() {
        // OpenCode wraps a subagent's answer in `<task_result>`; the tag may share the line.
        let l = line.trim();
        let l = match l.strip_prefix('<').and_then(|t| t.split_once('>')) {
            Some((_, rest)) => rest,
            None => l,
        };
        let l = l.trim().trim_start_matches(['#', '*', '-', ' ', '>']);
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
    if !rules.orchestrators.contains(&d.agent) {
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
