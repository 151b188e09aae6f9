//! Post-delegation checks, JSON returns (seed examples in tests/fixtures/seed_return_*.json)
//! and delegation-chain safety.

use nso::contracts::delegation::*;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn facts(list: &[(&str, bool, u64)]) -> FileFacts {
    list.iter()
        .map(|(p, exists, size)| {
            (
                p.to_string(),
                FileFact {
                    exists: *exists,
                    size: *size,
                },
            )
        })
        .collect()
}

fn with_questions(text: &str) -> TaskDirListing {
    TaskDirListing {
        has_questions: true,
        questions_text: Some(text.into()),
        ..TaskDirListing::default()
    }
}

fn with_result(text: &str) -> TaskDirListing {
    TaskDirListing {
        has_result: true,
        result_text: Some(text.into()),
        ..TaskDirListing::default()
    }
}

const QUESTIONS: &str = "# Questions: t\n\nAgent Builder needs clarification before proceeding.\n\n## Questions\n1. Which DB?\n2. Which port?\n";

#[test]
fn questions_then_re_delegate() {
    let v = check_delegation(&with_questions(QUESTIONS), &FileFacts::new(), 1);
    assert_eq!(v.outcome, Outcome::Questions);
    assert_eq!(v.next_attempt, Some(2));
    assert_eq!(v.questions, vec!["Which DB?", "Which port?"]);
    assert_eq!(
        v.note,
        "The subagent stopped with 2 question(s) in questions.md (attempt 1 of 3):\n1. Which DB?\n2. Which port?\nAsk the user, then re-delegate the same task with the answers in the prompt (attempt 2 of 3); move questions.md aside first."
    );
    let v = check_delegation(&with_questions(QUESTIONS), &FileFacts::new(), 2);
    assert_eq!((v.outcome, v.next_attempt), (Outcome::Questions, Some(3)));
}

#[test]
fn questions_at_the_last_attempt_escalate() {
    for attempt in [3, 4, 100] {
        let v = check_delegation(&with_questions(QUESTIONS), &FileFacts::new(), attempt);
        assert_eq!(v.outcome, Outcome::Escalate);
        assert_eq!(v.next_attempt, None);
        assert!(v.note.starts_with(&format!(
            "The subagent still has questions after attempt {attempt} of 3; stop re-delegating."
        )));
        assert!(v.note.ends_with("1. Which DB?\n2. Which port?"));
    }
    // attempt 0 counts as 1
    assert_eq!(
        check_delegation(&with_questions(QUESTIONS), &FileFacts::new(), 0).attempt,
        1
    );
}

#[test]
fn unparseable_questions_are_shown_raw_and_precede_a_result() {
    let mut listing = with_questions("just tell me the port");
    listing.has_result = true;
    listing.result_text = Some(fixture("seed_result.md"));
    let v = check_delegation(&listing, &FileFacts::new(), 1);
    assert_eq!(v.outcome, Outcome::Questions);
    assert_eq!(v.questions, vec!["just tell me the port"]);
    assert_eq!(v.warnings.len(), 2);
    assert!(v.warnings[0].starts_with("questions.md could not be parsed: questions.md line 1"));
    assert!(v.warnings[1].starts_with("result.md also exists"));
}

#[test]
fn required_paths_of_the_seed_result() {
    assert_eq!(
        required_paths(&fixture("seed_result.md")).unwrap(),
        vec!["src/auth/login.ts", "src/auth/login.test.ts"]
    );
    let text = "- Status: COMPLETE\n\n## Deliverables\n- ./a.md\n- a.md (again)\n- ../secret\n- /etc/passwd\n- `b c.md`\n";
    assert_eq!(required_paths(text).unwrap(), vec!["a.md", "b c.md"]);
    assert_eq!(
        required_paths("nothing").unwrap_err().code,
        "task_file_missing_field"
    );
}

#[test]
fn complete_result_with_real_files() {
    let f = facts(&[
        ("src/auth/login.ts", true, 120),
        ("src/auth/login.test.ts", true, 80),
    ]);
    let v = check_delegation(&with_result(&fixture("seed_result.md")), &f, 1);
    assert_eq!(v.outcome, Outcome::Complete);
    assert!(v.problems.is_empty());
    assert_eq!(v.result.as_ref().unwrap().deliverables.len(), 2);
    assert_eq!(
        v.note,
        "The subagent reported COMPLETE; 2 deliverable(s) verified (exist, non-empty). Review them and report to the user."
    );
}

#[test]
fn phantom_deliverables_are_caught() {
    let f = facts(&[
        ("src/auth/login.ts", false, 0),
        ("src/auth/login.test.ts", true, 0),
    ]);
    let v = check_delegation(&with_result(&fixture("seed_result.md")), &f, 1);
    assert_eq!(v.outcome, Outcome::InvalidResult);
    let codes: Vec<&str> = v.problems.iter().map(|p| p.code.as_str()).collect();
    assert_eq!(codes, ["deliverable_missing", "deliverable_empty"]);
    assert_eq!(
        v.note,
        "The subagent reported COMPLETE, but: deliverable `src/auth/login.ts` does not exist; deliverable `src/auth/login.test.ts` is empty. Do not accept the result; re-delegate to fix it or tell the user."
    );
    // No facts at all: unverified, never assumed present.
    let v = check_delegation(
        &with_result(&fixture("seed_result.md")),
        &FileFacts::new(),
        1,
    );
    assert_eq!(v.outcome, Outcome::InvalidResult);
    assert_eq!(v.problems[0].code, "deliverable_unverified");
    // A path outside the project.
    let v = check_delegation(
        &with_result("- Status: COMPLETE\n## Deliverables\n- ../../etc/passwd\n"),
        &FileFacts::new(),
        1,
    );
    assert_eq!(v.problems[0].code, "path_outside_project");
}

#[test]
fn failed_unreadable_and_missing_results() {
    let v = check_delegation(
        &with_result("# Task Result\n\n- Status: FAILED\n\n## Notes\nNo DB access.\n"),
        &FileFacts::new(),
        1,
    );
    assert_eq!(v.outcome, Outcome::Failed);
    assert_eq!(v.note, "The subagent reported FAILED (No DB access.). Tell the user and decide the next step together.");
    let v = check_delegation(
        &with_result("# Task Result\n\n- Status: DONE\n"),
        &FileFacts::new(),
        1,
    );
    assert_eq!(v.outcome, Outcome::InvalidResult);
    assert_eq!(v.problems[0].code, "result_unreadable");
    assert!(v.note.starts_with("result.md is not valid: result.md line 3: expected a Status field with one of COMPLETE, FAILED (found \"DONE\")"));
    let v = check_delegation(&TaskDirListing::default(), &FileFacts::new(), 1);
    assert_eq!(v.outcome, Outcome::NoOutput);
    assert!(v
        .note
        .starts_with("The subagent wrote neither questions.md nor result.md"));
    let v = check_delegation(&with_result("- Status: COMPLETE\n"), &FileFacts::new(), 1);
    assert_eq!(v.outcome, Outcome::Complete);
    assert_eq!(v.warnings, vec!["result.md lists no deliverables"]);
}

#[test]
fn listing_from_json() {
    let l: TaskDirListing = serde_json::from_str(
        r#"{"has_questions": false, "has_result": true, "result_text": "- Status: FAILED"}"#,
    )
    .unwrap();
    assert_eq!(
        check_delegation(&l, &FileFacts::new(), 1).outcome,
        Outcome::Failed
    );
    assert!(serde_json::from_str::<TaskDirListing>(
        r#"{"has_questions": false, "has_result": true, "x": 1}"#
    )
    .is_err());
    let v = serde_json::to_value(check_delegation(&l, &FileFacts::new(), 1)).unwrap();
    assert_eq!(v["outcome"], "failed");
}

// ---------------------------------------------------------------------------------------
// JSON returns

#[test]
fn seed_return_inside_a_fenced_block() {
    let json = fixture("seed_return_implement.json");
    let text = format!("I moved the files.\n\n```json\n{json}```\n\nDone.");
    let paths = json_return_paths(&text);
    assert_eq!(
        paths,
        vec![
            "path/to/file1.md",
            ".opencode/specs/267_*/summaries/implementation-summary-20260103.md"
        ]
    );
    let f = facts(&[(&paths[0], true, 10), (&paths[1], true, 20)]);
    let v = validate_json_return(&text, &f, None);
    assert!(v.ok, "{v:?}");
    assert_eq!(v.status.as_deref(), Some("completed"));
    assert_eq!(
        v.summary.as_deref(),
        Some("Integration completed successfully.")
    );
    assert_eq!(v.artifacts[0].kind.as_deref(), Some("implementation_file"));
    assert_eq!(v.warnings, vec!["`session_id` is missing"]);
    assert_eq!(
        v.note,
        "Valid return: status completed, 2 artifact(s) verified (exist, non-empty)."
    );
}

#[test]
fn seed_return_at_the_end_of_plain_text_with_phantom_artifact() {
    let json = fixture("seed_return_research.json");
    let text = format!("Research done. Some {{braces}} in prose.\n{json}");
    let path = ".opencode/specs/258_*/reports/research-001.md";
    assert_eq!(json_return_paths(&text), vec![path]);
    let v = validate_json_return(&text, &facts(&[(path, true, 0)]), None);
    assert!(!v.ok);
    assert_eq!(v.problems[0].code, "artifact_empty");
    assert_eq!(
        v.note,
        format!("Invalid return: artifact `{path}` is empty. Do not relay it as done.")
    );
}

#[test]
fn the_seeds_schema_example_is_not_json() {
    let v = validate_json_return(
        &fixture("seed_return_standard.json"),
        &FileFacts::new(),
        None,
    );
    assert_eq!(v.problems[0].code, "no_json");
}

#[test]
fn json_structure_problems() {
    let v = validate_json_return(
        r#"{"status": "done", "artifacts": [{"type": "x"}, 3], "summary": ""}"#,
        &FileFacts::new(),
        Some("sess_1"),
    );
    let codes: Vec<&str> = v.problems.iter().map(|p| p.code.as_str()).collect();
    assert_eq!(
        codes,
        [
            "json_field_invalid",
            "json_field_missing",
            "json_field_missing",
            "json_field_missing",
            "json_field_invalid"
        ]
    );
    let msgs: Vec<&str> = v.problems.iter().map(|p| p.message.as_str()).collect();
    assert_eq!(
        msgs,
        [
            "`status` must be \"completed\", \"failed\" or \"partial\"",
            "`summary` is missing or empty",
            "`session_id` is missing",
            "`artifacts[0].path` is missing or not a non-empty string",
            "`artifacts[1]` must be an object",
        ]
    );
    let v = validate_json_return(
        r#"{"status": "FAILED", "artifacts": [], "summary": "x", "session_id": "sess_2"}"#,
        &FileFacts::new(),
        Some("sess_1"),
    );
    assert_eq!(v.status.as_deref(), Some("failed"));
    assert_eq!(v.problems[0].code, "session_mismatch");
    let v = validate_json_return(
        r#"{"status": "completed", "summary": "x"}"#,
        &FileFacts::new(),
        None,
    );
    assert_eq!(
        v.problems[0].message,
        "`artifacts` is missing (use [] when there are none)"
    );
    let v = validate_json_return(
        r#"{"status": "completed", "artifacts": [], "summary": "x", "session_id": "s"}"#,
        &FileFacts::new(),
        Some("s"),
    );
    assert!(v.ok);
    assert_eq!(
        v.warnings,
        vec!["status is completed but no artifacts are listed"]
    );
    let v = validate_json_return("no json here { at all", &FileFacts::new(), None);
    assert_eq!(v.problems[0].code, "no_json");
}

#[test]
fn last_object_with_status_wins() {
    let text = "first: {\"status\": \"failed\", \"artifacts\": [], \"summary\": \"old\"}\nthen {\"note\": 1}\nfinal {\"status\": \"partial\", \"artifacts\": [], \"summary\": \"new\"} trailing";
    let v = validate_json_return(text, &FileFacts::new(), None);
    assert_eq!(v.summary.as_deref(), Some("new"));
    assert_eq!(v.status.as_deref(), Some("partial"));
}

// ---------------------------------------------------------------------------------------
// Chains

fn chain(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn chain_ok() {
    assert!(check_delegation_chain(&chain(&["build"]), "dev", MAX_DEPTH).is_ok());
    assert!(check_delegation_chain(
        &chain(&["orchestrator", "research", "lean-research-agent"]),
        "status-sync-manager",
        3
    )
    .is_ok());
}

#[test]
fn chain_cycle() {
    let e = check_delegation_chain(&chain(&["build", "dev"]), "dev", MAX_DEPTH).unwrap_err();
    assert_eq!(e.code, "delegation_cycle");
    assert_eq!(e.chain, chain(&["build", "dev", "dev"]));
    assert_eq!(
        e.to_string(),
        "delegation refused: cycle @build → @dev → @dev (@dev is already at position 2 of the chain); finish or return instead of delegating back"
    );
    let e = check_delegation_chain(&chain(&["@Build", "qa"]), "build", MAX_DEPTH).unwrap_err();
    assert_eq!(e.code, "delegation_cycle");
    assert!(e.message.contains("@build → @qa → @build"));
    // A chain that already repeats an agent is refused too.
    let e = check_delegation_chain(&chain(&["a", "b", "a"]), "c", 10).unwrap_err();
    assert_eq!(e.code, "delegation_cycle");
}

#[test]
fn chain_depth() {
    let e = check_delegation_chain(&chain(&["a", "b", "c", "d"]), "e", 3).unwrap_err();
    assert_eq!(e.code, "delegation_depth");
    assert_eq!(
        e.to_string(),
        "delegation refused: @a → @b → @c → @d → @e would be depth 4, over the limit of 3; do the work here or return to @a"
    );
    assert!(check_delegation_chain(&chain(&["a", "b", "c"]), "d", 3).is_ok());
    assert_eq!(
        check_delegation_chain(&chain(&["a"]), "b", 0)
            .unwrap_err()
            .code,
        "delegation_depth"
    );
}

#[test]
fn chain_invalid() {
    let e = check_delegation_chain(&[], "a", 3).unwrap_err();
    assert_eq!(e.code, "delegation_invalid");
    assert!(e.message.contains("an empty chain"));
    assert_eq!(
        check_delegation_chain(&chain(&["a"]), " @ ", 3)
            .unwrap_err()
            .code,
        "delegation_invalid"
    );
}
