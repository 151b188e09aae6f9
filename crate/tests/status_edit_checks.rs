//! Scenario tests of `check_edit` on the fixtures.

use nso::status::machine::{parse_nso_json, StatusConfig};
use nso::status::transition::{check_edit, BlockCode, EditVerdict};

const STORY: &str = include_str!("fixtures/status/story_draft.md");
const STORY2: &str = include_str!("fixtures/status/story_fields.md");
const TODO: &str = include_str!("fixtures/status/TODO.md");
const STATE: &str = include_str!("fixtures/status/state.json");
const STATUS_MD: &str = include_str!("fixtures/status/status.md");
const RESULT_MD: &str = include_str!("fixtures/status/result.md");
const NSO_JSON: &str = include_str!("fixtures/status/nso.json");

const S1: &str = "docs/kord/stories/s1.md";

fn cfg() -> StatusConfig {
    StatusConfig::default()
}

fn block(v: &EditVerdict) -> (BlockCode, String) {
    match v {
        EditVerdict::Block { code, message, .. } => (*code, message.clone()),
        other => panic!("expected a block, got {other:?}"),
    }
}

fn allowed(v: &EditVerdict) {
    assert!(v.is_allowed(), "expected allow, got {v:?}");
}

fn set_status(story: &str, to: &str) -> String {
    let mut out = String::new();
    let mut done = false;
    for l in story.split_inclusive('\n') {
        if !done && (l.starts_with("status:") || l.starts_with("- Status:")) {
            let prefix = if l.starts_with("status:") {
                "status:"
            } else {
                "- Status:"
            };
            out.push_str(&format!("{prefix} {to}\n"));
            done = true;
        } else {
            out.push_str(l);
        }
    }
    out
}

fn tick_all(s: &str) -> String {
    s.replace("- [ ]", "- [x]")
}

#[test]
fn spec_example_message() {
    let new = set_status(STORY, "DONE");
    let (code, msg) = block(&check_edit(S1, Some(STORY), &new, "dev", &cfg()));
    assert_eq!(code, BlockCode::StatusIllegalTransition);
    assert_eq!(
        msg,
        "NSO blocked edit for @dev: docs/kord/stories/s1.md moves story from DRAFT to DONE, which is not a legal transition. From DRAFT the legal next state is READY (by @sm or @po). You (@dev) may make none of them."
    );
}

#[test]
fn draft_to_ready_by_sm_with_conditions() {
    let new = set_status(STORY, "READY");
    allowed(&check_edit(S1, Some(STORY), &new, "@sm", &cfg()));
    allowed(&check_edit(S1, Some(STORY), &new, "po", &cfg()));
    let (code, msg) = block(&check_edit(S1, Some(STORY), &new, "dev", &cfg()));
    assert_eq!(code, BlockCode::StatusWrongAgent);
    assert!(msg.contains("which only @sm or @po may do"), "{msg}");
}

#[test]
fn draft_to_ready_conditions_named() {
    let no_exec = STORY.replace("executor: dev-junior\n", "");
    let new = set_status(&no_exec, "READY");
    let (code, msg) = block(&check_edit(S1, Some(&no_exec), &new, "sm", &cfg()));
    assert_eq!(code, BlockCode::StatusConditionFailed);
    assert!(msg.contains("`has_executor`"), "{msg}");
    assert!(msg.contains("`quality_gate_differs`"), "{msg}");

    let same = STORY.replace("quality_gate: qa", "quality_gate: '@dev-junior'");
    let (_, msg) = block(&check_edit(
        S1,
        Some(&same),
        &set_status(&same, "READY"),
        "sm",
        &cfg(),
    ));
    assert!(
        msg.contains("`quality_gate` and `executor` are both"),
        "{msg}"
    );

    let no_ac = STORY.replace("- Given valid credentials, when I POST /login, then I receive a session cookie.\n- Given invalid credentials, when I POST /login, then I receive 401.\n", "TBD\n");
    let (_, msg) = block(&check_edit(
        S1,
        Some(&no_ac),
        &set_status(&no_ac, "READY"),
        "sm",
        &cfg(),
    ));
    assert!(
        msg.contains("`has_acceptance_criteria`") && msg.contains("section is empty"),
        "{msg}"
    );

    let no_tasks = STORY.replace("## Tasks\n", "## Work\n");
    let (_, msg) = block(&check_edit(
        S1,
        Some(&no_tasks),
        &set_status(&no_tasks, "READY"),
        "sm",
        &cfg(),
    ));
    assert!(msg.contains("`has_tasks`"), "{msg}");

    let no_title = STORY
        .replace("title: Login endpoint\n", "")
        .replace("# Story S1: Login endpoint\n", "");
    let (_, msg) = block(&check_edit(
        S1,
        Some(&no_title),
        &set_status(&no_title, "READY"),
        "sm",
        &cfg(),
    ));
    assert!(msg.contains("`has_title`"), "{msg}");
}

#[test]
fn ready_in_progress_review_cycle() {
    let c = cfg();
    let ready = set_status(STORY, "READY");
    let ip = set_status(STORY, "IN_PROGRESS");
    allowed(&check_edit(S1, Some(&ready), &ip, "build", &c));
    assert_eq!(
        block(&check_edit(S1, Some(&ready), &ip, "dev", &c)).0,
        BlockCode::StatusWrongAgent
    );

    // Review needs every task ticked (and the DoD).
    let review = set_status(STORY, "REVIEW");
    let (code, msg) = block(&check_edit(S1, Some(&ip), &review, "dev-junior", &c));
    assert_eq!(code, BlockCode::StatusConditionFailed);
    assert!(
        msg.contains("`all_tasks_checked`")
            && msg.contains("4 of 4 checkboxes in `## Tasks` are not ticked"),
        "{msg}"
    );
    let ip_done = tick_all(&ip);
    let review_done = tick_all(&review);
    allowed(&check_edit(
        S1,
        Some(&ip_done),
        &review_done,
        "dev-junior",
        &c,
    ));
    allowed(&check_edit(S1, Some(&ip_done), &review_done, "dev", &c));

    // QA approves with a verdict.
    let approved =
        set_status(&review_done, "DONE") + "### Review 1 (2026-02-11)\n- Verdict: APPROVED\n";
    allowed(&check_edit(S1, Some(&review_done), &approved, "qa", &c));
    let no_verdict = set_status(&review_done, "DONE");
    let (code, msg) = block(&check_edit(S1, Some(&review_done), &no_verdict, "qa", &c));
    assert_eq!(code, BlockCode::StatusConditionFailed);
    assert!(msg.contains("`verdict_approved`"), "{msg}");
}

fn qa_round(prev_review: &str, n: usize) -> (String, String) {
    // QA appends review n with NEEDS_WORK and sends the story back.
    let recorded =
        format!("{prev_review}### Review {n}\n- Verdict: NEEDS_WORK\n- Notes: fix edge cases\n");
    let back = set_status(&recorded, "IN_PROGRESS");
    (recorded, back)
}

#[test]
fn needs_work_limited_to_two_iterations() {
    let c = cfg();
    let review = tick_all(&set_status(STORY, "REVIEW"));
    // Iteration 1: verdict recorded in the same edit.
    let (_, back1) = qa_round(&review, 1);
    allowed(&check_edit(S1, Some(&review), &back1, "qa", &c));
    // Iteration 2: verdict recorded in an earlier edit.
    let review2 = set_status(&back1, "REVIEW");
    let (rec2, back2) = qa_round(&review2, 2);
    allowed(&check_edit(S1, Some(&review2), &rec2, "qa", &c));
    allowed(&check_edit(S1, Some(&rec2), &back2, "qa", &c));
    // Iteration 3: blocked, escalate.
    let review3 = set_status(&back2, "REVIEW");
    let (_, back3) = qa_round(&review3, 3);
    let (code, msg) = block(&check_edit(S1, Some(&review3), &back3, "qa", &c));
    assert_eq!(code, BlockCode::StatusIterationLimit);
    assert!(
        msg.contains("iteration 3 and at most 2 are allowed"),
        "{msg}"
    );
    assert!(msg.contains("escalate to the user"), "{msg}");
    // Approving or rejecting is still possible.
    let done = set_status(&review3, "DONE") + "### Review 3\n- Verdict: APPROVED\n";
    allowed(&check_edit(S1, Some(&review3), &done, "qa", &c));
    // Deleting old verdicts to reset the count is blocked.
    let wiped = review3.replace("- Verdict: NEEDS_WORK\n", "");
    let (code, msg) = block(&check_edit(S1, Some(&review3), &wiped, "qa", &c));
    assert_eq!(code, BlockCode::StatusHistoryRewritten);
    assert!(msg.contains("append-only"), "{msg}");
}

#[test]
fn review_iterations_field_counts_too() {
    let c = cfg();
    let p = "docs/kord/plans/auth/stories/s2.md";
    let review = tick_all(
        &STORY2
            .replace("- Status: IN_PROGRESS", "- Status: REVIEW")
            .replace("Review Iterations: 0", "Review Iterations: 2"),
    );
    let back = review
        .replace("- Status: REVIEW", "- Status: IN_PROGRESS")
        .replace("Review Iterations: 2", "Review Iterations: 3")
        + "- Verdict: NEEDS_WORK\n";
    assert_eq!(
        block(&check_edit(p, Some(&review), &back, "qa", &c)).0,
        BlockCode::StatusIterationLimit
    );
    let lowered = review.replace("Review Iterations: 2", "Review Iterations: 0");
    assert_eq!(
        block(&check_edit(p, Some(&review), &lowered, "dev", &c)).0,
        BlockCode::StatusHistoryRewritten
    );
}

#[test]
fn blocked_and_unblocked() {
    let c = cfg();
    let ip = set_status(STORY, "IN_PROGRESS");
    let blocked = set_status(STORY, "BLOCKED");
    let (code, msg) = block(&check_edit(S1, Some(&ip), &blocked, "dev", &c));
    assert_eq!(code, BlockCode::StatusConditionFailed);
    assert!(msg.contains("blocker_documented"), "{msg}");
    let documented =
        blocked.clone() + "\n## Blockers\n- The mail service has no sandbox account.\n";
    allowed(&check_edit(S1, Some(&ip), &documented, "dev", &c));
    allowed(&check_edit(
        S1,
        Some(&documented),
        &set_status(&documented, "IN_PROGRESS"),
        "po",
        &c,
    ));
    let (code, msg) = block(&check_edit(
        S1,
        Some(&documented),
        &set_status(&documented, "IN_PROGRESS"),
        "dev",
        &c,
    ));
    assert_eq!(code, BlockCode::StatusWrongAgent);
    assert!(
        msg.contains("From BLOCKED the legal next state is IN_PROGRESS (by @po)."),
        "{msg}"
    );
}

#[test]
fn unknown_states_and_creation() {
    let c = cfg();
    let bogus = set_status(STORY, "SHIPPED");
    let (code, msg) = block(&check_edit(S1, Some(STORY), &bogus, "sm", &c));
    assert_eq!(code, BlockCode::StatusUnknownState);
    assert!(
        msg.contains("`SHIPPED`, which is not a state of kord-story"),
        "{msg}"
    );
    assert!(
        msg.contains(
            "The states are DRAFT, READY, IN_PROGRESS, BLOCKED, REVIEW, DONE and ABORTED."
        ),
        "{msg}"
    );
    assert!(
        msg.contains("From DRAFT the legal next state is READY"),
        "{msg}"
    );

    allowed(&check_edit(S1, None, STORY, "sm", &c));
    let (code, msg) = block(&check_edit(S1, None, &set_status(STORY, "READY"), "sm", &c));
    assert_eq!(code, BlockCode::StatusBadInitialState);
    assert!(
        msg.contains("creates story in READY, but a new story must start in DRAFT."),
        "{msg}"
    );
    // A file without any status is not governed until a status appears.
    allowed(&check_edit(
        "docs/kord/stories/README.md",
        None,
        "# Stories\n",
        "sm",
        &c,
    ));
    // Unchanged status with other edits.
    let edited = STORY.replace("## Dev Notes\n", "## Dev Notes\nUse argon2 instead?\n");
    allowed(&check_edit(S1, Some(STORY), &edited, "dev", &c));
    // Removing the status of a non-final story.
    let (code, _) = block(&check_edit(
        S1,
        Some(STORY),
        &STORY.replace("status: DRAFT\n", ""),
        "dev",
        &c,
    ));
    assert_eq!(code, BlockCode::StatusRemoved);
    // Ungoverned file.
    allowed(&check_edit("src/main.rs", Some("a"), "b", "dev", &c));
}

#[test]
fn tolerant_story_spellings() {
    let c = cfg();
    let p = "docs/kord/plans/auth/stories/s2.md";
    // `- Status:` field with `Tasks / Subtasks` section.
    let review = STORY2
        .replace("- [ ] Reset form", "- [x] Reset form")
        .replace("- Status: IN_PROGRESS", "- Status: Review");
    let ip = STORY2.replace("- [ ] Reset form", "- [x] Reset form");
    allowed(&check_edit(p, Some(&ip), &review, "dev", &c));
    // `**Status**:` and `## Status` section forms.
    let bold = "# S3\n\n**Status:** Draft\n";
    let (code, _) = block(&check_edit(
        "docs/kord/stories/s3.md",
        Some(bold),
        "# S3\n\n**Status:** Done\n",
        "sm",
        &c,
    ));
    assert_eq!(code, BlockCode::StatusIllegalTransition);
    let section = "# S4\n\n## Status\n\nDraft\n";
    let (code, _) = block(&check_edit(
        "docs/kord/stories/s4.md",
        Some(section),
        "# S4\n\n## Status\n\nIn Progress\n",
        "dev",
        &c,
    ));
    assert_eq!(code, BlockCode::StatusIllegalTransition);
}

#[test]
fn nso_task_files() {
    let c = cfg();
    let p = ".opencode/context/active_tasks/build_1/status.md";
    let done = STATUS_MD.replace("- Status: IN_PROGRESS", "- Status: COMPLETE");
    allowed(&check_edit(p, Some(STATUS_MD), &done, "builder", &c));
    assert_eq!(
        block(&check_edit(p, Some(STATUS_MD), &done, "oracle", &c)).0,
        BlockCode::StatusWrongAgent
    );
    assert_eq!(
        block(&check_edit(p, None, STATUS_MD, "builder", &c)).0,
        BlockCode::StatusBadInitialState
    );
    allowed(&check_edit(
        p,
        None,
        &STATUS_MD.replace("IN_PROGRESS", "PENDING"),
        "oracle",
        &c,
    ));
    let r = ".opencode/context/active_tasks/build_1/result.md";
    allowed(&check_edit(r, None, RESULT_MD, "builder", &c));
    let (code, msg) = block(&check_edit(
        r,
        None,
        &RESULT_MD.replace("COMPLETE", "{{COMPLETE | FAILED}}"),
        "builder",
        &c,
    ));
    assert_eq!(code, BlockCode::StatusUnknownState);
    assert!(
        msg.contains("A new task must start in COMPLETE or FAILED."),
        "{msg}"
    );
}

#[test]
fn project_config_machine() {
    let c = parse_nso_json(".opencode/nso.json", Some(NSO_JSON)).unwrap();
    let p = ".opencode/context/active_tasks/t/status.md";
    let done = STATUS_MD.replace("- Status: IN_PROGRESS", "- State: COMPLETE");
    let (code, msg) = block(&check_edit(p, Some(STATUS_MD), &done, "implementer", &c));
    assert_eq!(code, BlockCode::StatusConditionFailed, "{msg}");
    assert!(msg.contains("`all_done`: every remaining step is ticked — 1 of 1 checkboxes in `## Remaining` are not ticked"), "{msg}");
    allowed(&check_edit(
        p,
        Some(STATUS_MD),
        &done.replace("- [ ] Writing", "- [x] Writing"),
        "implementer",
        &c,
    ));
    let failed = "- Status: FAILED\n- Attempt: 3\n";
    allowed(&check_edit(
        p,
        Some(failed),
        "- Status: PENDING\n- Attempt: 3\n",
        "oracle",
        &c,
    ));
    let (code, msg) = block(&check_edit(
        p,
        Some(failed),
        "- Status: PENDING\n- Attempt: 4\n",
        "oracle",
        &c,
    ));
    assert_eq!(code, BlockCode::StatusIterationLimit);
    assert!(msg.contains("Stop retrying and ask the user."), "{msg}");
    // result.md is no longer governed (the override binds only status.md).
    allowed(&check_edit(
        ".opencode/context/active_tasks/t/result.md",
        None,
        "- Status: whatever\n",
        "x",
        &c,
    ));
}

const TODO_PATH: &str = ".opencode/specs/TODO.md";

#[test]
fn todo_entries_checked_one_by_one() {
    let c = cfg();
    // 258 RESEARCHED -> PLANNING by planner: legal.
    let t1 = TODO.replace("- **Status**: [RESEARCHED]", "- **Status**: [PLANNING]");
    allowed(&check_edit(TODO_PATH, Some(TODO), &t1, "planner", &c));
    // Two entries at once: 259 illegal jump and 258 legal.
    let t2 = t1.replace("- **Status**: [NOT STARTED]", "- **Status**: [COMPLETED]");
    let (code, msg) = block(&check_edit(TODO_PATH, Some(TODO), &t2, "planner", &c));
    assert_eq!(code, BlockCode::StatusIllegalTransition);
    assert!(
        msg.contains(".opencode/specs/TODO.md moves task 259 from [NOT STARTED] to [COMPLETED], which is not a legal transition. From [NOT STARTED] the legal next states are [RESEARCHING] (by @researcher or @lean-research-agent) and [PLANNING] (by @planner or @lean-planner)."),
        "{msg}"
    );
    // The code block's fake entry is ignored.
    let t3 = TODO.replace(
        "### 999. Example entry inside a code block (not a task)\n- **Status**: [COMPLETED]",
        "### 999. Example entry inside a code block (not a task)\n- **Status**: [NOT STARTED]",
    );
    allowed(&check_edit(TODO_PATH, Some(TODO), &t3, "anyone", &c));
    // RESEARCHING -> RESEARCHED needs an artifact.
    let researching = TODO.replace("- **Status**: [NOT STARTED]", "- **Status**: [RESEARCHING]");
    let researched = TODO.replace("- **Status**: [NOT STARTED]", "- **Status**: [RESEARCHED]");
    let (code, msg) = block(&check_edit(
        TODO_PATH,
        Some(&researching),
        &researched,
        "researcher",
        &c,
    ));
    assert_eq!(code, BlockCode::StatusConditionFailed);
    assert!(msg.contains("no artifact is linked"), "{msg}");
    let with_art = researched.replace(
        "- **Dependencies**: None\n",
        "- **Dependencies**: None\n- **Research Artifacts**:\n  - .opencode/specs/259_document_the_routing_table/reports/research-001.md\n",
    );
    allowed(&check_edit(
        TODO_PATH,
        Some(&researching),
        &with_art,
        "researcher",
        &c,
    ));
}

#[test]
fn todo_entry_creation_removal_duplicates() {
    let c = cfg();
    let added = format!("{TODO}\n### 262. New thing\n- **Status**: [NOT STARTED]\n");
    allowed(&check_edit(TODO_PATH, Some(TODO), &added, "meta", &c));
    let added_bad = format!("{TODO}\n### 262. New thing\n- **Status**: [PLANNED]\n");
    let (code, msg) = block(&check_edit(TODO_PATH, Some(TODO), &added_bad, "meta", &c));
    assert_eq!(code, BlockCode::StatusBadInitialState);
    assert!(
        msg.contains("creates task 262 in [PLANNED], but a new task must start in [NOT STARTED]."),
        "{msg}"
    );
    let dup = format!("{TODO}\n### 258. Again\n- **Status**: [RESEARCHED]\n");
    assert_eq!(
        block(&check_edit(TODO_PATH, Some(TODO), &dup, "meta", &c)).0,
        BlockCode::StatusDuplicateEntry
    );
    // Removing a completed entry is fine (archiving); removing an active one is not.
    let start = TODO.find("### 256.").unwrap();
    let end = TODO.find("### 258.").unwrap();
    let without_256 = format!("{}{}", &TODO[..start], &TODO[end..]);
    allowed(&check_edit(
        TODO_PATH,
        Some(TODO),
        &without_256,
        "todo-manager",
        &c,
    ));
    let start = TODO.find("### 260.").unwrap();
    let end = TODO.find("## Low Priority").unwrap();
    let without_260 = format!("{}{}", &TODO[..start], &TODO[end..]);
    let (code, msg) = block(&check_edit(
        TODO_PATH,
        Some(TODO),
        &without_260,
        "todo-manager",
        &c,
    ));
    assert_eq!(code, BlockCode::StatusRemoved);
    assert!(msg.contains("removes task 260 while it is [IMPLEMENTING]; only a task in [COMPLETED] or [ABANDONED] may be removed."), "{msg}");
}

const STATE_PATH: &str = ".opencode/specs/state.json";

#[test]
fn state_json_tasks_checked_one_by_one() {
    let c = cfg();
    let s1 = STATE.replacen(
        "\"status\": \"implementing\"",
        "\"status\": \"completed\"",
        1,
    );
    allowed(&check_edit(
        STATE_PATH,
        Some(STATE),
        &s1,
        "lean-implementation-agent",
        &c,
    ));
    let (code, msg) = block(&check_edit(STATE_PATH, Some(STATE), &s1, "planner", &c));
    assert_eq!(code, BlockCode::StatusWrongAgent);
    assert!(msg.contains("moves task 260 from IMPLEMENTING to COMPLETED, which only @implementer or @lean-implementation-agent may do"), "{msg}");
    let s2 = STATE.replacen("\"status\": \"not_started\"", "\"status\": \"done\"", 1);
    assert_eq!(
        block(&check_edit(STATE_PATH, Some(STATE), &s2, "x", &c)).0,
        BlockCode::StatusUnknownState
    );
    let broken = STATE.replacen("\"min\": 0,", "\"min\": 0,,", 1);
    let (code, msg) = block(&check_edit(STATE_PATH, Some(STATE), &broken, "x", &c));
    assert_eq!(code, BlockCode::StatusUnreadable);
    assert!(msg.contains("line 6, column 14"), "{msg}");
    // Project state.json (root object).
    let p = ".opencode/specs/258_resolve_truth_lean_sorries/state.json";
    let old = include_str!("fixtures/status/project_state.json");
    let new = old.replace("\"status\": \"researched\"", "\"status\": \"planning\"");
    allowed(&check_edit(p, Some(old), &new, "planner", &c));
    assert!(!check_edit(p, Some(old), &new, "researcher", &c).is_allowed());
    // Archive files are not governed.
    allowed(&check_edit(
        ".opencode/specs/archive/state.json",
        None,
        "{\"archived_projects\": [{\"project_number\": 1, \"status\": \"completed\"}]}",
        "x",
        &c,
    ));
}

#[test]
fn disabled_config_allows_everything() {
    let c = parse_nso_json("nso.json", Some("{\"status\": {\"enabled\": false}}")).unwrap();
    allowed(&check_edit(
        S1,
        Some(STORY),
        &set_status(STORY, "DONE"),
        "dev",
        &c,
    ));
}

#[test]
fn duplicates_are_compared_pairwise() {
    let c = cfg();
    let dup = format!("{TODO}\n### 258. Copy\n- **Status**: [RESEARCHED]\n");
    // Changing the second copy illegally is caught.
    let idx = dup.rfind("[RESEARCHED]").unwrap();
    let bad = format!(
        "{}[COMPLETED]{}",
        &dup[..idx],
        &dup[idx + "[RESEARCHED]".len()..]
    );
    let (code, msg) = block(&check_edit(TODO_PATH, Some(&dup), &bad, "planner", &c));
    assert_eq!(code, BlockCode::StatusIllegalTransition);
    assert!(
        msg.contains("moves task 258 from [RESEARCHED] to [COMPLETED]"),
        "{msg}"
    );
    // Pre-existing duplicates alone do not block unrelated edits.
    allowed(&check_edit(
        TODO_PATH,
        Some(&dup),
        &dup.replace("Waiting for API access.", "Still waiting."),
        "x",
        &c,
    ));
}

#[test]
fn verdict_json_shape_for_the_shim() {
    let v = check_edit(S1, Some(STORY), &set_status(STORY, "DONE"), "dev", &cfg());
    let j: serde_json::Value = serde_json::to_value(&v).unwrap();
    assert_eq!(j["verdict"], "block");
    assert_eq!(j["code"], "status_illegal_transition");
    assert_eq!(j["violations"][0]["entry"], "story");
    assert_eq!(j["violations"][0]["from"], "DRAFT");
    assert_eq!(j["violations"][0]["to"], "DONE");
    assert_eq!(j["violations"][0]["legal"][0]["state"], "READY");
    assert_eq!(
        j["violations"][0]["legal"][0]["agents"],
        serde_json::json!(["sm", "po"])
    );
    let a = serde_json::to_value(check_edit(
        S1,
        Some(STORY),
        &set_status(STORY, "READY"),
        "sm",
        &cfg(),
    ))
    .unwrap();
    assert_eq!(
        a,
        serde_json::json!({"verdict": "allow", "machine": "kord-story", "changes": [{"key": {"kind": "single"}, "from": "DRAFT", "to": "READY"}]})
    );
    assert_eq!(
        BlockCode::StatusIterationLimit.as_str(),
        "status_iteration_limit"
    );
}

#[test]
fn full_config_example_parses_and_governs() {
    let c = parse_nso_json(
        ".opencode/nso.json",
        Some(include_str!("fixtures/status/nso_full.json")),
    )
    .unwrap();
    let names: Vec<&str> = c.machines.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec!["kord-story", "nso-task", "proofchecker"]);
    assert!(!c.machines[0].builtin);
    let board = "{\"stories\": [{\"id\": 3, \"state\": \"REVIEW\"}]}";
    let (code, msg) = block(&check_edit(
        "docs/kord/board.json",
        Some(board),
        &board.replace("REVIEW", "DRAFT"),
        "qa",
        &c,
    ));
    assert_eq!(code, BlockCode::StatusIllegalTransition, "{msg}");
    assert!(c.resolve("docs/kord/stories/README.md").is_none());
}
