//! Task attribution: which tasks a session touched, from what evidence.

use nso::continuity::attribution::{
    attribute, contract_ids, status_field, status_relation, todo_headings, todo_mentions,
    MAX_EVIDENCE,
};
use nso::continuity::events::from_export;
use nso::continuity::policy::T0Policy;
use nso::continuity::{Relation, TaskLink};
use serde_json::{json, Value};

#[test]
fn statuses_map_to_relations() {
    for s in [
        "COMPLETE",
        "completed",
        "[DONE]",
        "Done",
        "closed",
        "RESOLVED",
    ] {
        assert_eq!(status_relation(s), Relation::Completed, "{s}");
    }
    for s in [
        "IN_PROGRESS",
        "in progress",
        "in-progress",
        "IMPLEMENTING",
        "RESEARCHING",
        "[PLANNING]",
        "started",
        "WIP",
    ] {
        assert_eq!(status_relation(s), Relation::Active, "{s}");
    }
    for s in [
        "BLOCKED",
        "NOT_STARTED",
        "PENDING",
        "WAITING",
        "ABANDONED",
        "FAILED",
        "",
    ] {
        assert_eq!(status_relation(s), Relation::WorkedOn, "{s}");
    }
}

#[test]
fn contract_ids_are_validated() {
    let text = "see build_20260208_auth_abc123, .opencode/context/active_tasks/fix_20251231_a-b_zz9999/x \
                and build_20260208_auth_abc123 again; not build_20260230_auth_abc123 (no such day), \
                Build_20260208_auth_abc123, build_20260208_auth_abc12, x_y_z_w";
    assert_eq!(
        contract_ids(text),
        ["build_20260208_auth_abc123", "fix_20251231_a-b_zz9999"]
    );
    assert!(contract_ids("").is_empty());
}

#[test]
fn todo_numbers_from_mentions_and_headings() {
    assert_eq!(
        todo_mentions("Task 258, task #12, TASK  7, todo:9, task 258 again"),
        [258, 12, 7, 9]
    );
    for prose in [
        "tasks 12",
        "multitask 5",
        "task 1234567",
        "task #",
        "task12",
        "subtask 4",
        "task 0",
        "todo 4",
        "task 12b",
    ] {
        assert!(todo_mentions(prose).is_empty(), "{prose}");
    }
    assert_eq!(
        todo_headings(
            "# TODO\n### 258. Fix login\n- x\n### 12 no dot\n  ### 13. indented\n#### 14. deeper\n"
        ),
        [258, 13]
    );
}

#[test]
fn status_fields_are_read() {
    assert_eq!(
        status_field("# Status\n- Status: COMPLETE\n"),
        Some("COMPLETE")
    );
    assert_eq!(
        status_field("**Status**: [IN_PROGRESS] since today"),
        Some("IN_PROGRESS")
    );
    assert_eq!(status_field("status:done"), Some("done"));
    assert_eq!(status_field("Statuses: x\nno field"), None);
    assert_eq!(status_field("- Status:"), None);
}

fn session(parent: Option<&str>, messages: Vec<(&str, Vec<Value>)>) -> String {
    let mut info = json!({"id": "ses_a", "title": "t", "time": {"created": 1, "updated": 1}});
    if let Some(p) = parent {
        info["parentID"] = json!(p);
    }
    let messages: Vec<Value> = messages
        .into_iter()
        .enumerate()
        .map(|(k, (role, parts))| {
            let mid = format!("msg_{k:03}");
            let parts: Vec<Value> = parts
                .into_iter()
                .enumerate()
                .map(|(j, mut p)| {
                    p["id"] = json!(format!("prt_{k:03}_{j:03}"));
                    p["sessionID"] = json!("ses_a");
                    p["messageID"] = json!(mid);
                    p
                })
                .collect();
            json!({"info": {"id": mid, "sessionID": "ses_a", "role": role, "time": {"created": k}, "agent": "build"}, "parts": parts})
        })
        .collect();
    json!({"info": info, "messages": messages}).to_string()
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn tool(name: &str, status: &str, input: Value, output: &str) -> Value {
    json!({"type": "tool", "tool": name, "callID": format!("call_{name}"), "state": {"status": status, "input": input, "output": output}})
}

fn links(export: &str) -> Vec<TaskLink> {
    let n = from_export(export);
    attribute(&n.sessions[0], &T0Policy::default(), Some("/r"))
}

#[test]
fn late_evidence_upgrades_a_link() {
    let l = links(&session(
        None,
        vec![
            ("user", vec![text("please look at task 31")]),
            (
                "assistant",
                vec![
                    tool(
                        "nso_status_set",
                        "completed",
                        json!({"task": 31, "status": "BLOCKED"}),
                        "ok",
                    ),
                    tool(
                        "nso_status_set",
                        "error",
                        json!({"task": 31, "status": "DONE"}),
                        "",
                    ),
                    tool(
                        "nso_status_set",
                        "completed",
                        json!({"task": "31", "status": "DONE"}),
                        "NSO nso_status_set refused: no such task",
                    ),
                    tool(
                        "nso_status_set",
                        "completed",
                        json!({"task": "#31", "status": "[DONE]"}),
                        "TODO.md updated",
                    ),
                ],
            ),
        ],
    ));
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].task, "todo:31");
    assert_eq!(l[0].relation, Relation::Completed);
    let r: Vec<(usize, Relation)> = l[0].evidence.iter().map(|e| (e.at, e.relation)).collect();
    // The errored call and the refused one are no status moves.
    assert_eq!(
        r,
        [
            (0, Relation::Mentioned),
            (1, Relation::WorkedOn),
            (4, Relation::Completed)
        ]
    );
}

#[test]
fn files_of_a_task_count_as_work() {
    let l = links(&session(
        None,
        vec![(
            "assistant",
            vec![
                tool(
                    "edit",
                    "completed",
                    json!({"filePath": "/r/TODO.md", "oldString": "x", "newString": "### 40. New task\n### 41. Other"}),
                    "ok",
                ),
                tool(
                    "write",
                    "completed",
                    json!({"filePath": "/r/.opencode/context/active_tasks/plan_20260101_x_aaaaaa/result.md", "content": "- Status: COMPLETE"}),
                    "ok",
                ),
                tool(
                    "write",
                    "completed",
                    json!({"filePath": "/r/.opencode/context/active_tasks/plan_20260101_y_bbbbbb/notes.md", "content": "- Status: COMPLETE"}),
                    "ok",
                ),
                tool(
                    "write",
                    "error",
                    json!({"filePath": "docs/stories/a.md", "content": "x"}),
                    "",
                ),
                tool(
                    "read",
                    "completed",
                    json!({"filePath": "/r/team/stories/b.md"}),
                    "ok",
                ),
                tool(
                    "apply_patch",
                    "completed",
                    json!({"patchText": "*** Begin Patch\n*** Update File: team/stories/b.md\n*** End Patch"}),
                    "ok",
                ),
            ],
        )],
    ));
    let got: Vec<(&str, &str, Relation)> = l
        .iter()
        .map(|t| (t.task.as_str(), t.kind.as_str(), t.relation))
        .collect();
    assert_eq!(
        got,
        [
            ("plan_20260101_x_aaaaaa", "contract", Relation::Completed),
            ("plan_20260101_y_bbbbbb", "contract", Relation::WorkedOn),
            ("story:docs/stories/a.md", "story", Relation::Mentioned),
            ("story:team/stories/b.md", "story", Relation::WorkedOn),
            ("todo:40", "todo", Relation::WorkedOn),
            ("todo:41", "todo", Relation::WorkedOn),
        ]
    );
}

#[test]
fn a_delegation_prompt_makes_the_subagent_active() {
    let prompt = "Work on build_20260208_auth_abc123 now.";
    let sub = links(&session(
        Some("ses_parent"),
        vec![
            ("user", vec![text(prompt)]),
            ("user", vec![text("and build_20260301_next_cccccc later")]),
        ],
    ));
    assert_eq!(sub[0].task, "build_20260208_auth_abc123");
    assert_eq!(sub[0].relation, Relation::Active);
    assert_eq!(sub[0].evidence[0].place, "delegation prompt");
    // Only the first user message is the delegation prompt.
    assert_eq!(sub[1].relation, Relation::Mentioned);
    // In a main session the same text is a mention.
    let main = links(&session(None, vec![("user", vec![text(prompt)])]));
    assert_eq!(main[0].relation, Relation::Mentioned);
}

#[test]
fn evidence_is_bounded_and_keeps_the_strongest() {
    let mut parts: Vec<Value> = (0..40)
        .map(|i| text(&format!("mention {i} of task 5")))
        .collect();
    parts.push(tool(
        "nso_status_set",
        "completed",
        json!({"task": 5, "status": "COMPLETED"}),
        "ok",
    ));
    parts.push(text("task 5 again"));
    let l = links(&session(None, vec![("assistant", parts)]));
    let ev = &l[0].evidence;
    assert_eq!(ev.len(), MAX_EVIDENCE);
    assert_eq!(l[0].relation, Relation::Completed);
    assert_eq!(ev.last().unwrap().relation, Relation::Completed);
    assert_eq!(ev.last().unwrap().at, 40);
    assert!(ev.windows(2).all(|w| w[0].at < w[1].at));
    assert_eq!(ev[0].place, "assistant message 1");
}

#[test]
fn links_are_bounded() {
    let many: String = (1..=5000).map(|n| format!("task {n} ")).collect();
    let l = links(&session(
        None,
        vec![
            ("user", vec![text(&many)]),
            (
                "assistant",
                vec![tool(
                    "nso_status_set",
                    "completed",
                    json!({"task": 4999, "status": "DONE"}),
                    "ok",
                )],
            ),
        ],
    ));
    assert_eq!(l.len(), nso::continuity::attribution::MAX_TASKS);
    assert!(l.windows(2).all(|w| w[0].task < w[1].task));
    assert!(l
        .iter()
        .any(|t| t.task == "todo:4999" && t.relation == Relation::Completed));
    assert!(l.iter().any(|t| t.task == "todo:1"));
}
