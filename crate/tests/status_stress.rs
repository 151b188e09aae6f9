//! Large inputs stay fast (no quadratic blow-ups on realistic sizes).

use nso::status::check::check_consistency;
use nso::status::machine::StatusConfig;
use nso::status::sync::{plan_archive, plan_status_sync, ArchiveInputs, SyncInputs};
use nso::status::transition::check_edit;
use std::time::{Duration, Instant};

fn big(n: u64) -> (String, String) {
    let mut todo = String::from("# TODO\n\n");
    let mut objs = Vec::new();
    for i in 0..n {
        let st = if i % 3 == 0 {
            "COMPLETED"
        } else {
            "NOT STARTED"
        };
        todo.push_str(&format!("### {i}. Task {i}\n- **Status**: [{st}]\n- **Language**: lean\n\n**Description**: d\n\n---\n\n"));
        objs.push(format!("    {{\n      \"project_number\": {i},\n      \"status\": \"{}\",\n      \"language\": \"lean\",\n      \"artifacts\": []\n    }}", st.to_lowercase().replace(' ', "_")));
    }
    let state = format!("{{\n  \"_last_updated\": \"x\",\n  \"next_project_number\": {n},\n  \"active_projects\": [\n{}\n  ]\n}}\n", objs.join(",\n"));
    (todo, state)
}

#[test]
fn three_thousand_tasks() {
    let c = StatusConfig::default();
    let (todo, state) = big(3000);
    let t = Instant::now();
    let new = todo.replacen(
        "- **Status**: [NOT STARTED]",
        "- **Status**: [RESEARCHING]",
        1,
    );
    assert!(check_edit(
        ".opencode/specs/TODO.md",
        Some(&todo),
        &new,
        "researcher",
        &c
    )
    .is_allowed());
    assert!(check_edit(
        ".opencode/specs/state.json",
        Some(&state),
        &state,
        "researcher",
        &c
    )
    .is_allowed());
    assert!(check_consistency(&todo, &state, None).is_empty());
    let p = plan_status_sync(
        &SyncInputs {
            todo_md: todo.clone(),
            state_json: state.clone(),
            task_number: 2999,
            new_status: "researching".into(),
            agent: "researcher".into(),
            now_iso: "2026-01-01T00:00:00Z".into(),
            ..Default::default()
        },
        &c,
    )
    .unwrap();
    assert_eq!(p.files.len(), 2);
    let a = plan_archive(
        &ArchiveInputs {
            todo_md: todo,
            state_json: state,
            now_iso: "2026-01-01T00:00:00Z".into(),
            ..Default::default()
        },
        &c,
    )
    .unwrap();
    assert_eq!(a.moves.len(), 0);
    let spent = t.elapsed();
    assert!(spent < Duration::from_secs(20), "{spent:?}");
    eprintln!("3000 tasks: {spent:?}");
}

#[test]
fn pathological_markdown_and_json() {
    let c = StatusConfig::default();
    let t = Instant::now();
    let headings: String = (0..20_000)
        .map(|i| format!("{} h{i}\n", "#".repeat(1 + i % 6)))
        .collect();
    let _ = check_edit(
        "docs/kord/stories/x.md",
        Some(&headings),
        &format!("status: DRAFT\n{headings}"),
        "sm",
        &c,
    );
    let fences = "```\n~~~\n".repeat(20_000);
    let _ = check_edit(".opencode/specs/TODO.md", Some(&fences), &fences, "x", &c);
    let deep = "[".repeat(100_000);
    let _ = check_edit(".opencode/specs/state.json", Some("{}"), &deep, "x", &c);
    let wide = format!(
        "{{\"active_projects\": [{}]}}",
        vec!["{\"project_number\": 1, \"status\": \"not_started\"}"; 20_000].join(",")
    );
    let _ = check_edit(".opencode/specs/state.json", Some(&wide), &wide, "x", &c);
    let long_line = "- Status: ".to_string() + &"A".repeat(1_000_000);
    let _ = check_edit("docs/kord/stories/x.md", None, &long_line, "x", &c);
    let spent = t.elapsed();
    assert!(spent < Duration::from_secs(20), "{spent:?}");
    eprintln!("pathological: {spent:?}");
}
