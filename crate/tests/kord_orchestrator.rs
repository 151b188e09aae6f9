//! The orchestrator's delegation rules: one item in flight, the executor from the plan,
//! at most three failed attempts then BLOCKED with a failure report, wave checkpoints, and
//! the state a new session resumes from.

use nso::kord::orchestrator::{
    after_delegation, before_delegation, resume_text, Context, Delegation, Outcome, State,
};
use nso::kord::{parse_plan, Squads};

const DEV_PLAN: &str = "# Plan: login\n\n## Wave 1\n- [ ] T1: Schema — executor: data-engineer, quality_gate: qa\n- [ ] S1: Login endpoint — executor: dev-junior, quality_gate: qa, story: docs/kord/plans/login/stories/s1.md\n\n## Wave 2\n- [ ] T2: Docs — executor: dev\n";

const MARKETING: &str =
    "plan_type: task\ncheckpoint_mode: auto\nquality_gates: false\nstory_driven: false\n";

fn squads() -> Squads {
    Squads::load(&[(
        ".opencode/squads/marketing/SQUAD.yaml".into(),
        MARKETING.into(),
    )])
}

fn d(target: &str, session: &str, prompt: &str) -> Delegation {
    Delegation {
        agent: "build".into(),
        target: target.into(),
        session: session.into(),
        prompt: prompt.into(),
        now: "2026-11-28T01:00:00Z".into(),
    }
}

struct Run {
    state: State,
    plan_text: String,
    squads: Squads,
}

impl Run {
    fn new(plan_text: &str) -> Run {
        Run {
            state: State::default(),
            plan_text: plan_text.into(),
            squads: squads(),
        }
    }
    fn before(&mut self, del: &Delegation) -> nso::kord::Verdict {
        let (plan, _) = parse_plan("login", &self.plan_text);
        let squad = self.squads.get(plan.squad.as_deref()).unwrap().clone();
        let v = before_delegation(
            &self.state,
            &Context {
                plan: &plan,
                squad: &squad,
            },
            del,
        );
        if let Some(s) = &v.state {
            self.state = State::parse(Some(s)).unwrap();
        }
        v
    }
    fn after(&mut self, del: &Delegation, output: &str, story: Option<&str>) -> nso::kord::Verdict {
        let (plan, _) = parse_plan("login", &self.plan_text);
        let squad = self.squads.get(plan.squad.as_deref()).unwrap().clone();
        let v = after_delegation(
            &self.state,
            &Context {
                plan: &plan,
                squad: &squad,
            },
            del,
            output,
            story,
        );
        if let Some(s) = &v.state {
            self.state = State::parse(Some(s)).unwrap();
        }
        v
    }
}

#[test]
fn a_second_delegation_while_one_is_in_flight_is_refused() {
    let mut r = Run::new(DEV_PLAN);
    assert!(r.before(&d("data-engineer", "s", "Do T1")).allowed);
    let v = r.before(&d("dev-junior", "s", "Do S1"));
    assert!(!v.allowed);
    assert_eq!(v.rule, "kord.one_at_a_time");
    assert!(
        v.message.contains("T1 (@data-engineer) is in flight")
            && v.message.contains("wait for its result"),
        "{}",
        v.message
    );
    // Once T1 returns, S1 may go.
    assert!(r
        .after(
            &d("data-engineer", "s", "Do T1"),
            "SUCCESS: schema written",
            None
        )
        .state
        .is_some());
    assert!(r.before(&d("dev-junior", "s", "Do S1")).allowed);
}

#[test]
fn the_executor_named_by_the_item_is_the_one_used() {
    let mut r = Run::new(DEV_PLAN);
    let v = r.before(&d("dev", "s", "Please do T1 now"));
    assert!(!v.allowed);
    assert_eq!(v.rule, "kord.executor_from_plan");
    assert!(
        v.message.contains("delegate it to @data-engineer"),
        "{}",
        v.message
    );
    // A delegation to an executor that names no item is told which item is next.
    let v = r.before(&d("dev-junior", "s", "implement the login"));
    assert!(
        !v.allowed && v.message.contains("next open work item is T1"),
        "{}",
        v.message
    );
    // Read-only helpers are not held to the plan.
    assert!(r.before(&d("explore", "s", "find the schema")).allowed);
    // Agents other than the orchestrator are not either.
    let mut other = d("dev", "s", "T1");
    other.agent = "kord".into();
    assert!(r.before(&other).allowed);
}

#[test]
fn three_failures_block_a_story_with_a_failure_report_and_a_fourth_attempt_is_refused() {
    let mut r = Run::new(DEV_PLAN);
    let story = "---\ntitle: Login\nstatus: IN_PROGRESS\nexecutor: dev-junior\n---\n# Login\n";
    let del = d(
        "dev-junior",
        "s",
        "Implement docs/kord/plans/login/stories/s1.md",
    );
    for n in 1..=3 {
        assert!(r.before(&del).allowed, "attempt {n}");
        let v = r.after(&del, &format!("FAILURE: tests fail ({n})"), Some(story));
        if n < 3 {
            assert!(v.writes.is_empty());
            assert!(
                v.message.contains(&format!("attempt {n} of at most 3")),
                "{}",
                v.message
            );
        } else {
            let files: Vec<_> = v.writes.iter().map(|(f, _)| f.as_str()).collect();
            assert_eq!(
                files,
                [
                    "docs/kord/runs/login/S1-failure.md",
                    "docs/kord/plans/login/stories/s1.md"
                ]
            );
            assert!(
                v.writes[0].1.contains("tests fail (3)") && v.writes[0].1.contains("Failures: 3")
            );
            assert!(
                v.writes[1].1.contains("status: BLOCKED") && v.writes[1].1.contains("## Blockers")
            );
            assert!(
                v.message.contains("BLOCKED") && v.message.contains("next open work item is T1"),
                "{}",
                v.message
            );
        }
    }
    assert_eq!(r.state.plans["login"].items["S1"].outcome, Outcome::Blocked);
    let v = r.before(&del);
    assert!(!v.allowed);
    assert_eq!(v.rule, "kord.retry_limit");
    assert!(
        v.message.contains("at most 3 attempts") && v.message.contains("S1-failure.md"),
        "{}",
        v.message
    );
}

#[test]
fn a_failed_task_is_recorded_as_failed_and_the_limit_is_configurable() {
    let mut r = Run::new(DEV_PLAN);
    r.squads = Squads::load(&[(
        ".opencode/squads/dev/SQUAD.yaml".into(),
        "delegation:\n  max_attempts: 1\n".into(),
    )]);
    let del = d("data-engineer", "s", "T1");
    assert!(r.before(&del).allowed);
    let v = r.after(&del, "Status: FAILED\nno database", None);
    assert_eq!(v.writes.len(), 1);
    assert_eq!(r.state.plans["login"].items["T1"].outcome, Outcome::Failed);
    assert!(!r.before(&del).allowed);
}

#[test]
fn interactive_waves_wait_for_the_checkpoint_and_auto_waves_do_not() {
    let mut r = Run::new(DEV_PLAN);
    for (who, prompt) in [("data-engineer", "T1"), ("dev-junior", "S1")] {
        assert!(r.before(&d(who, "s", prompt)).allowed);
        r.after(&d(who, "s", prompt), "SUCCESS", None);
    }
    let v = r.before(&d("dev", "s", "T2"));
    assert!(!v.allowed);
    assert_eq!(v.rule, "kord.wave_checkpoint");
    assert!(
        v.message.contains("delegate to @po") && v.message.contains("Decision: GO"),
        "{}",
        v.message
    );
    assert!(r.before(&d("po", "s", "wave 1 report")).allowed);
    r.after(&d("po", "s", "wave 1 report"), "Decision: PAUSE", None);
    let v = r.before(&d("dev", "s", "T2"));
    assert!(
        !v.allowed && v.message.contains("decided PAUSE"),
        "{}",
        v.message
    );
    r.after(&d("po", "s", "again"), "## Decision: GO\nfine", None);
    assert!(r.before(&d("dev", "s", "T2")).allowed);

    // The same plan in an auto squad: no checkpoint.
    let mut auto = Run::new(&format!("---\nsquad: marketing\n---\n{DEV_PLAN}"));
    for (who, prompt) in [("data-engineer", "T1"), ("dev-junior", "S1")] {
        assert!(auto.before(&d(who, "s", prompt)).allowed);
        auto.after(&d(who, "s", prompt), "SUCCESS", None);
    }
    assert!(auto.before(&d("dev", "s", "T2")).allowed);
}

#[test]
fn a_new_session_is_told_the_plan_wave_and_item_and_may_resume_it() {
    let mut r = Run::new(DEV_PLAN);
    assert!(
        r.before(&d(
            "data-engineer",
            "old",
            "T1 of docs/kord/plans/login/plan.md"
        ))
        .allowed
    );
    // The session dies; the state is all that is left.
    let saved = r.state.text();
    let state = State::parse(Some(&saved)).unwrap();
    let text = resume_text(&state);
    assert!(
        text.contains("login") && text.contains("wave 1") && text.contains("work item T1"),
        "{text}"
    );
    assert!(
        text.contains("delegate T1 to @data-engineer again"),
        "{text}"
    );
    // A new session may not start another item first, but may resume this one.
    let v = r.before(&d("dev-junior", "new", "S1"));
    assert!(
        !v.allowed && v.message.contains("resume it first"),
        "{}",
        v.message
    );
    let v = r.before(&d("data-engineer", "new", "T1"));
    assert!(v.allowed, "{}", v.message);
    assert_eq!(r.state.plans["login"].items["T1"].attempts, 2);
}

#[test]
fn a_corrupt_state_file_is_an_error_naming_the_fix() {
    let e = State::parse(Some("{not json")).unwrap_err();
    assert!(e.contains("corrupt") && e.contains("move it aside"), "{e}");
    assert_eq!(State::parse(None).unwrap(), State::default());
}

#[test]
fn a_prompt_naming_the_folder_above_the_plans_names_no_plan() {
    use nso::kord::orchestrator::files_to_read;
    let state = State::default();
    assert_eq!(
        files_to_read(&state, "work on docs/kord/plans/login/plan.md")
            .plan
            .as_deref(),
        Some("login")
    );
    for prompt in [
        "see docs/kord/plans/../plan.md",
        "docs/kord/plans/./x",
        "docs/kord/plans/.../y",
    ] {
        let plan = files_to_read(&state, prompt).plan;
        assert!(
            plan.as_deref() != Some("..") && plan.as_deref() != Some("."),
            "{prompt}: {plan:?}"
        );
    }
}
