//! Task files: the techspec's samples (copied verbatim into tests/fixtures/seed_*.md),
//! golden renders, round trips, hand-edited variants and precise errors.

use nso::contracts::contract::*;
use nso::contracts::template::{self, default_template, TemplateKind, TemplateValue, Vars};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn cb(text: &str, checked: bool) -> Checkbox {
    Checkbox {
        text: text.into(),
        checked,
    }
}

/// Golden check; set UPDATE_GOLDEN=1 to rewrite the file.
fn golden(name: &str, actual: &str) {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        std::fs::write(&path, actual).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        actual,
        "golden {name}"
    );
}

// ---------------------------------------------------------------------------------------
// The seed's samples

#[test]
fn seed_contract_sample() {
    let c = parse_contract(&fixture("seed_contract.md")).unwrap();
    assert_eq!(c.task_id, "build_20260208_auth_abc123");
    assert!(validate_task_id(&c.task_id).is_ok());
    assert_eq!(c.agent, "Builder");
    assert_eq!(c.workflow, "BUILD");
    assert_eq!(c.phase.as_deref(), Some("IMPLEMENTATION"));
    assert_eq!(c.created.as_deref(), Some("2026-02-08T14:30:00Z"));
    assert_eq!(c.delegated_by, None);
    assert_eq!(
        c.objective,
        "Implement user authentication feature per TECHSPEC-Auth.md"
    );
    assert_eq!(c.requirements_reference, "REQ-Auth.md sections 1-4");
    assert_eq!(
        c.success_criteria,
        vec![
            cb("Login endpoint works", false),
            cb("Tests pass", false),
            cb("No lint errors", false)
        ]
    );
    assert_eq!(
        c.context_files,
        vec![
            ".opencode/docs/requirements/REQ-Auth.md",
            ".opencode/docs/architecture/TECHSPEC-Auth.md"
        ]
    );
    assert!(c.instructions.is_empty() && c.extra_fields.is_empty() && c.extra_sections.is_empty());
}

#[test]
fn seed_status_sample() {
    let s = parse_status(&fixture("seed_status.md")).unwrap();
    assert_eq!(s.task_id, None);
    assert_eq!(s.status, TaskStatus::InProgress);
    assert_eq!(s.last_update.as_deref(), Some("2026-02-08T14:35:00Z"));
    assert_eq!(s.progress.as_deref(), Some("Writing login endpoint tests"));
    assert_eq!(s.current_step.as_deref(), Some("Writing login endpoint"));
    assert_eq!(
        s.completed_steps,
        vec![cb("Read requirements", true), cb("Created test file", true)]
    );
    assert_eq!(
        s.artifacts,
        vec!["src/auth/login.test.ts", "src/auth/login.ts (in progress)"]
    );
}

#[test]
fn seed_result_sample() {
    let r = parse_result(&fixture("seed_result.md")).unwrap();
    assert_eq!(r.status, ResultStatus::Complete);
    assert_eq!(r.completed.as_deref(), Some("2026-02-08T15:00:00Z"));
    assert_eq!(
        r.deliverables,
        vec![
            Deliverable {
                path: "src/auth/login.ts".into(),
                note: String::new()
            },
            Deliverable {
                path: "src/auth/login.test.ts".into(),
                note: "4 tests, all passing".into()
            },
        ]
    );
    let names: Vec<&str> = r.validation.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["Lint", "Tests", "Type check"]);
    // The seed file carries a mis-encoded ✅ ("âœ…"); it is kept verbatim.
    assert!(r.validation[1].value.ends_with(" 4/4"));
    assert_eq!(
        r.notes,
        "Had to add bcrypt dependency for password hashing."
    );
}

// ---------------------------------------------------------------------------------------
// Golden renders and round trips

fn sample_questions() -> Questions {
    Questions {
        task_id: Some("build_20260208_auth_abc123".into()),
        agent: Some("Builder".into()),
        questions: vec![
            "Which database stores the sessions?".into(),
            "Use **JWT** or cookies?".into(),
        ],
        understood: "Login and register endpoints with tests.".into(),
        unclear: "Where sessions live.".into(),
        extra_fields: vec![],
        extra_sections: vec![],
    }
}

#[test]
fn golden_renders_of_the_seed_samples() {
    let c = parse_contract(&fixture("seed_contract.md")).unwrap();
    golden("golden_contract.md", &render_contract(&c, None).unwrap());
    let s = parse_status(&fixture("seed_status.md")).unwrap();
    golden("golden_status.md", &render_status(&s, None).unwrap());
    let r = parse_result(&fixture("seed_result.md")).unwrap();
    golden("golden_result.md", &render_result(&r, None).unwrap());
    golden(
        "golden_questions.md",
        &render_questions(&sample_questions(), None).unwrap(),
    );
}

#[test]
fn round_trips_of_the_seed_samples() {
    let c = parse_contract(&fixture("seed_contract.md")).unwrap();
    let text = render_contract(&c, None).unwrap();
    assert_eq!(parse_contract(&text).unwrap(), c);
    assert_eq!(
        render_contract(&parse_contract(&text).unwrap(), None).unwrap(),
        text
    );

    let s = parse_status(&fixture("seed_status.md")).unwrap();
    let text = render_status(&s, None).unwrap();
    assert_eq!(parse_status(&text).unwrap(), s);
    assert_eq!(
        render_status(&parse_status(&text).unwrap(), None).unwrap(),
        text
    );

    let r = parse_result(&fixture("seed_result.md")).unwrap();
    let text = render_result(&r, None).unwrap();
    assert_eq!(parse_result(&text).unwrap(), r);
    assert_eq!(
        render_result(&parse_result(&text).unwrap(), None).unwrap(),
        text
    );

    let q = sample_questions();
    let text = render_questions(&q, None).unwrap();
    assert_eq!(parse_questions(&text).unwrap(), q);
}

#[test]
fn round_trip_of_full_structs() {
    let mut c = Contract::new(
        "plan_20260301_api-design_x1y2z3",
        "Planner",
        "PLAN",
        "Design the **API**.\n\nSee `docs/api.md`.",
    );
    c.phase = Some("DISCOVERY".into());
    c.created = Some("2026-03-01T09:00:00Z".into());
    c.delegated_by = Some("Oracle".into());
    c.requirements_reference = "REQ-API.md, all sections".into();
    c.success_criteria = vec![
        cb("Endpoints listed", true),
        cb("Errors | codes defined", false),
    ];
    c.context_files = vec!["docs/api.md".into(), "`src/__init__.py`".into()];
    c.extra_fields = vec![ExtraField {
        key: "Priority".into(),
        value: "high".into(),
    }];
    c.extra_sections = vec![ExtraSection {
        heading: "Risks".into(),
        body: "- Scope creep\n- Time".into(),
    }];
    let text = render_contract(&c, None).unwrap();
    assert_eq!(parse_contract(&text).unwrap(), c, "{text}");

    let s = Status {
        task_id: Some("plan_20260301_api-design_x1y2z3".into()),
        status: TaskStatus::Blocked,
        last_update: Some("2026-03-01T10:00:00Z".into()),
        progress: None,
        current_step: Some("Waiting for the schema".into()),
        completed_steps: vec![cb("Read REQ", true), cb("Drafted", false)],
        remaining: vec![cb("Review", false)],
        artifacts: vec!["docs/api-draft.md".into()],
        extra_fields: vec![ExtraField {
            key: "Blocked By".into(),
            value: "schema owner".into(),
        }],
        extra_sections: vec![ExtraSection {
            heading: "Log".into(),
            body: "Started at 9.".into(),
        }],
    };
    let text = render_status(&s, None).unwrap();
    assert_eq!(parse_status(&text).unwrap(), s, "{text}");

    let r = TaskResult {
        task_id: Some("x".into()),
        status: ResultStatus::Failed,
        completed: None,
        duration: Some("12m".into()),
        deliverables: vec![
            Deliverable {
                path: "src/__init__.py".into(),
                note: "(a) then (b)".into(),
            },
            Deliverable {
                path: "my file.txt".into(),
                note: String::new(),
            },
            Deliverable {
                path: "a`b.md".into(),
                note: "odd name".into(),
            },
        ],
        validation: vec![
            ValidationEntry {
                name: "Tests".into(),
                value: "3/4".into(),
            },
            ValidationEntry {
                name: "Manual check".into(),
                value: String::new(),
            },
        ],
        notes: "Could not finish:\n\n```\nerror: x\n\n\nend\n```".into(),
        extra_fields: vec![],
        extra_sections: vec![],
    };
    let text = render_result(&r, None).unwrap();
    assert_eq!(parse_result(&text).unwrap(), r, "{text}");
}

#[test]
fn the_seeds_own_contract_template_renders_and_parses_back() {
    let seed_template = fixture("seed_template_contract.md");
    let mut c = Contract::new(
        "build_20260208_auth_abc123",
        "Builder",
        "BUILD",
        "Implement login.",
    );
    c.phase = Some("IMPLEMENTATION".into());
    c.created = Some("2026-02-08T14:30:00Z".into());
    c.delegated_by = Some("Oracle".into());
    c.success_criteria = vec![cb("Tests pass", false)];
    c.context_files = vec!["docs/REQ-Auth.md".into()];
    let text = render_contract(&c, Some(&seed_template)).unwrap();
    // The seed template hard-codes "Delegated By | Oracle" and the five instructions, which
    // are exactly DEFAULT_INSTRUCTIONS, so the data comes back unchanged.
    assert_eq!(parse_contract(&text).unwrap(), c, "{text}");
}

#[test]
fn the_seeds_other_templates_report_their_pseudo_placeholders() {
    let e = render_status(
        &parse_status(&fixture("seed_status.md")).unwrap(),
        Some(&fixture("seed_template_status.md")),
    )
    .unwrap_err();
    assert_eq!((e.code, e.line), ("template_bad_name", 3));
    let r = parse_result(&fixture("seed_result.md")).unwrap();
    let e = render_result(&r, Some(&fixture("seed_template_result.md"))).unwrap_err();
    assert_eq!((e.code, e.line), ("template_bad_name", 3));
    let e = render_questions(
        &sample_questions(),
        Some(&fixture("seed_template_questions.md")),
    )
    .unwrap_err();
    assert_eq!(
        (e.code, e.line, e.name.as_str()),
        ("template_unknown_variable", 6, "question_1")
    );
}

#[test]
fn project_templates_may_drop_fields_but_not_invent_them() {
    let s = parse_status(&fixture("seed_status.md")).unwrap();
    let text = render_status(&s, Some("# Status\n\n- Status: {{status}}\n")).unwrap();
    assert_eq!(text, "# Status\n\n- Status: IN_PROGRESS\n");
    let e = render_status(&s, Some("- Status: {{state}}\n")).unwrap_err();
    assert_eq!(e.name, "state");
    assert!(e.to_string().starts_with(
        "template line 1: unknown variable `state`; available: completed_items, current_step,"
    ));
}

#[test]
fn render_is_plain_substitution() {
    let mut vars = Vars::new();
    vars.insert("x".into(), TemplateValue::text("*not escaped* | {{y}}"));
    assert_eq!(
        template::render("a {{x}}", &vars).unwrap(),
        "a *not escaped* | {{y}}"
    );
    assert!(default_template(TemplateKind::Result).contains("{{file_list}}"));
    assert_eq!(TemplateKind::Questions.file_name(), "questions.md");
}

// ---------------------------------------------------------------------------------------
// Hand edits

#[test]
fn hand_edited_status_is_understood() {
    let text = "# task status: deb_20260101_x_aaaaaa  \r\n\r\n**STATUS:**   in progress \r\n**last  update**: 2026-01-01T00:00:00Z\r\n\r\n## Artifacts Created\r\n* `src/a.ts`\r\n\r\n## completed steps\r\n- [X] one\r\n- two\r\n- [ ] three\r\n\r\n## My Notes\r\nkept\r\n";
    let s = parse_status(text).unwrap();
    assert_eq!(s.task_id.as_deref(), Some("deb_20260101_x_aaaaaa"));
    assert_eq!(s.status, TaskStatus::InProgress);
    assert_eq!(s.last_update.as_deref(), Some("2026-01-01T00:00:00Z"));
    assert_eq!(
        s.completed_steps,
        vec![cb("one", true), cb("two", true), cb("three", false)]
    );
    assert_eq!(s.artifacts, vec!["`src/a.ts`"]);
    assert_eq!(
        s.extra_sections,
        vec![ExtraSection {
            heading: "My Notes".into(),
            body: "kept".into()
        }]
    );
    // Fields count only before the first section: a Status line inside a section is text.
    let e = parse_status("# Task Status\n\n## Notes\nStatus: COMPLETE\n").unwrap_err();
    assert_eq!((e.code, e.line), ("task_file_missing_field", 2));
    let text2 = "# Task Status\n- **Status**: `COMPLETE` ✅\n";
    assert_eq!(parse_status(text2).unwrap().status, TaskStatus::Complete);
}

#[test]
fn hand_edited_result_and_contract() {
    let text = "Task Result\n===========\n\n| Field | Value |\n|---|---|\n| Status | completed |\n| Completed | today |\n\n### Notes\nfine\n\n### Validation\n| Check | Result |\n|---|---|\n| Lint | pass |\n| Tests | 4/4 |\n\n### Deliverables\n1. `out/report.md` — the report\n2. [docs/x.md](docs/x.md): linked\n";
    let r = parse_result(text).unwrap();
    assert_eq!(r.status, ResultStatus::Complete);
    assert_eq!(r.notes, "fine");
    assert_eq!(
        r.validation[1],
        ValidationEntry {
            name: "Tests".into(),
            value: "4/4".into()
        }
    );
    assert_eq!(
        r.deliverables[0],
        Deliverable {
            path: "out/report.md".into(),
            note: "the report".into()
        }
    );
    assert_eq!(r.deliverables[1].path, "docs/x.md");
    assert_eq!(r.deliverables[1].note, "linked");
    let text = "# Task Contract\n\n- TASK-ID :  review_20260101_x_abcdef\n- agent: Janitor\n- WORKFLOW: REVIEW\n\n## Notes\nextra\n\n## OBJECTIVE\nReview it.\n";
    let c = parse_contract(text).unwrap();
    assert_eq!(
        (c.task_id.as_str(), c.agent.as_str(), c.workflow.as_str()),
        ("review_20260101_x_abcdef", "Janitor", "REVIEW")
    );
    assert_eq!(c.objective, "Review it.");
    assert_eq!(c.extra_sections[0].heading, "Notes");
}

// ---------------------------------------------------------------------------------------
// Errors

#[test]
fn status_errors_name_file_line_and_expectation() {
    let e = parse_status("# Task Status\n\n- Status: DONE\n- Last Update: x\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "status.md line 3: expected a Status field with one of PENDING, IN_PROGRESS, BLOCKED, COMPLETE, FAILED (found \"DONE\")"
    );
    assert_eq!(e.code, "task_file_invalid_value");
    let e = parse_status("# Task Status\n\n\n- Last Update: x\n").unwrap_err();
    assert_eq!((e.code, e.line), ("task_file_missing_field", 4));
    let e = parse_status("# Task Status\n").unwrap_err();
    assert_eq!(e.line, 2);
    let e = parse_status("- Status: PENDING\n- Status: BLOCKED\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "status.md line 2: expected one Status field (another one is on line 1) (found \"BLOCKED\")"
    );
    // The same value twice is harmless.
    assert!(parse_status("- Status: PENDING\n- status: pending\n").is_ok());
}

#[test]
fn result_errors() {
    let e = parse_result("# Task Result\n\n- Status: IN_PROGRESS\n").unwrap_err();
    assert_eq!(e.to_string(), "result.md line 3: expected a Status field with one of COMPLETE, FAILED (found \"IN_PROGRESS\")");
    let e = parse_result("# Task Result\n\n- Status: COMPLETE\n\n## Notes\na\n\n## notes\nb\n")
        .unwrap_err();
    assert_eq!((e.code, e.line), ("task_file_duplicate_section", 8));
}

#[test]
fn contract_errors() {
    let e = parse_contract("# Task Contract\n\n- Agent: Builder\n\n## Objective\nx\n").unwrap_err();
    assert_eq!(e.code, "task_file_missing_field");
    assert_eq!(e.line, 1);
    assert!(e.expected.contains("task id"));
    let e =
        parse_contract("# Task Contract: a\n\n- Agent: Builder\n\n## Objective\nx\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "contract.md line 3: expected a Workflow field (`- Workflow: <value>` or a table row `| Workflow | <value> |`)"
    );
    let e = parse_contract("# Task Contract: a\n\n| Field | Value |\n|---|---|\n| Agent |  |\n| Workflow | BUILD |\n\n## Objective\nx\n").unwrap_err();
    assert_eq!((e.code, e.line), ("task_file_missing_field", 5));
    let e = parse_contract(
        "# Task Contract: a\n\n- Task ID: b\n- Agent: x\n- Workflow: y\n\n## Objective\nx\n",
    )
    .unwrap_err();
    assert_eq!((e.code, e.line), ("task_file_conflict", 3));
    let e = parse_contract("# Task Contract: a\n\n- Agent: x\n- Workflow: y\n\n## Objective\n\n## Success Criteria\n- [ ] z\n").unwrap_err();
    assert_eq!((e.code, e.line), ("task_file_missing_section", 6));
    let e =
        parse_contract("# Task Contract: a\n\n- Agent: x\n- Workflow: y\n\nbody\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "contract.md line 6: expected a `## Objective` section saying what to do"
    );
}

#[test]
fn questions_parsing_and_errors() {
    let q = parse_questions(&fixture("golden_questions.md")).unwrap();
    assert_eq!(q, sample_questions());
    let q = parse_questions("I have questions:\n\n- What DB?\n- Which port?\n").unwrap();
    assert_eq!(q.questions, vec!["What DB?", "Which port?"]);
    let q =
        parse_questions("# Questions\n\n## Questions\nWhat DB should I use?\n\nAnd which port?\n")
            .unwrap();
    assert_eq!(q.questions.len(), 2);
    let e = parse_questions("# Questions: x\n\nAgent A needs clarification.\n\n## Questions\n\n## What I Understood\nx\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "questions.md line 5: expected a `## Questions` section with at least one question (`1. …` or `- …`)"
    );
    assert_eq!(parse_questions("").unwrap_err().line, 1);
}

#[test]
fn task_ids() {
    assert_eq!(
        task_id("BUILD", "20260208", "Auth", "abc123").unwrap(),
        "build_20260208_auth_abc123"
    );
    assert_eq!(
        validate_task_id("build_20260208_auth_abc123").unwrap().slug,
        "auth"
    );
    assert_eq!(
        task_id("BUILD", "20260208", "Auth", "abc")
            .unwrap_err()
            .code,
        "task_id_random"
    );
}
