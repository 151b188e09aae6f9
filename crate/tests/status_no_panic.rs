//! Deterministic pseudo-random inputs (xorshift, 50 000 cases): no public function panics,
//! and successful plans are well-formed.

use nso::status::check::{check_consistency, check_consistency_with, ConsistencyInputs};
use nso::status::extract::status_of;
use nso::status::machine::{parse_nso_json, StatusConfig};
use nso::status::sync::{
    plan_archive, plan_new_task, plan_status_sync, verify_sync, ArchiveInputs, NewTaskInputs,
    SyncInputs, SyncPlan,
};
use nso::status::todo::parse_todo;
use nso::status::transition::check_edit;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const FRAGMENTS: &[&str] = &[
    "\n",
    "\r\n",
    "\n\n",
    " ",
    "\t",
    "---\n",
    "...\n",
    "status: ",
    "- Status: ",
    "**Status**: [",
    "**Status:** ",
    "| Status | ",
    " |",
    "]",
    "[",
    "### 12. ",
    "### 258. ",
    "## ",
    "# ",
    "#### Task 7: ",
    "## Tasks\n",
    "## Acceptance Criteria\n",
    "## Status\n",
    "## Blockers\n",
    "- [ ] ",
    "- [x] ",
    "- [X] ",
    "1. [ ] ",
    "```\n",
    "```md\n",
    "~~~\n",
    "`",
    "**",
    "__",
    "<!-- ",
    " -->",
    "{{",
    "}}",
    "executor: dev\n",
    "quality_gate: qa\n",
    "- Verdict: NEEDS_WORK\n",
    "- Verdict: APPROVED\n",
    "Review Iterations: 9\n",
    "DRAFT",
    "READY",
    "IN_PROGRESS",
    "REVIEW",
    "DONE",
    "BLOCKED",
    "[NOT STARTED]",
    "[RESEARCHED]",
    "[COMPLETED]",
    "not_started",
    "completed",
    "PENDING",
    "COMPLETE",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\"active_projects\": [",
    "\"completed_projects\": ",
    "\"project_number\": ",
    "\"status\": \"",
    "\"artifacts\": [\"",
    "\"next_project_number\": ",
    "\"_last_updated\": \"x\"",
    "\"phase\": \"",
    "null",
    "true",
    "1e999",
    "-0",
    "18446744073709551616",
    "4294967296",
    "0",
    "258",
    "\\",
    "\\u00e9",
    "\\ud800",
    "é",
    "😀",
    "\u{feff}",
    "\u{0}",
    "\u{7f}",
    "\u{2028}",
    "ß",
    "İ",
    "  - Main Report: ",
    "specs/258_x/reports/r.md",
    "](",
    ")",
    "- **Research Artifacts**:\n",
    "- **Started**: 2026-01-01\n",
    "- **Completed**: \n",
    "next_project_number: 5\n",
    "|---|---|\n",
    "* ",
    "+ ",
    "-",
    "*",
    "#",
    "##########",
    "http://x",
    "a: b",
    "Task ",
    "#1. ",
    "999999999999. ",
];

fn random_text(r: &mut Rng, max: usize) -> String {
    let n = r.below(max);
    let mut s = String::new();
    for _ in 0..n {
        s.push_str(FRAGMENTS[r.below(FRAGMENTS.len())]);
    }
    s
}

/// Mutates `base` at random character boundaries.
fn mutate(r: &mut Rng, base: &str) -> String {
    let mut s = base.to_string();
    for _ in 0..1 + r.below(4) {
        let mut at = r.below(s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        match r.below(3) {
            0 => s.insert_str(at, FRAGMENTS[r.below(FRAGMENTS.len())]),
            1 => {
                let mut end = (at + r.below(40)).min(s.len());
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                s.replace_range(at..end, "");
            }
            _ => {
                let mut end = (at + r.below(8)).min(s.len());
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                s.replace_range(at..end, FRAGMENTS[r.below(FRAGMENTS.len())]);
            }
        }
    }
    s
}

const TODO: &str = include_str!("fixtures/status/TODO.md");
const STATE: &str = include_str!("fixtures/status/state.json");
const STORY: &str = include_str!("fixtures/status/story_draft.md");
const STATUS_MD: &str = include_str!("fixtures/status/status.md");
const NSO_JSON: &str = include_str!("fixtures/status/nso.json");
const ARCHIVE: &str = include_str!("fixtures/status/archive_state.json");
const PATHS: &[&str] = &[
    "docs/kord/stories/s1.md",
    "docs/kord/plans/p/stories/s2.md",
    ".opencode/specs/TODO.md",
    "TODO.md",
    ".opencode/specs/state.json",
    ".opencode/specs/258_x/state.json",
    ".opencode/context/active_tasks/t/status.md",
    ".opencode/context/active_tasks/t/result.md",
    "src/lib.rs",
    "",
    "../../etc/passwd",
    "C:\\repo\\TODO.md",
];

fn well_formed(plan: &SyncPlan) {
    for f in &plan.files {
        if f.path.ends_with(".json") || f.key.as_str().ends_with("json") {
            assert!(
                serde_json::from_str::<serde_json::Value>(&f.text).is_ok(),
                "invalid planned JSON for {}:\n{}",
                f.path,
                f.text
            );
        }
    }
    let own: Vec<(String, String)> = plan
        .files
        .iter()
        .map(|f| (f.key.as_str().to_string(), f.text.clone()))
        .collect();
    assert!(verify_sync(plan, &own));
}

fn pick(r: &mut Rng, base: &str, max: usize) -> String {
    match r.below(4) {
        0 => random_text(r, max),
        1 => base.to_string(),
        _ => mutate(r, base),
    }
}

#[test]
fn fifty_thousand_random_inputs() {
    let mut r = Rng(0xDEAD_BEEF_CAFE_F00D);
    let default = StatusConfig::default();
    let custom = parse_nso_json("nso.json", Some(NSO_JSON)).unwrap();
    let mut plans_ok = 0;
    let mut blocks = 0;
    for case in 0..50_000u32 {
        let config = if case % 7 == 0 { &custom } else { &default };
        match case % 10 {
            0..=3 => {
                let path = PATHS[r.below(PATHS.len())];
                let base = match r.below(4) {
                    0 => STORY,
                    1 => TODO,
                    2 => STATE,
                    _ => STATUS_MD,
                };
                let old = if r.below(5) == 0 {
                    None
                } else {
                    Some(pick(&mut r, base, 30))
                };
                let new = pick(&mut r, old.as_deref().unwrap_or(base), 30);
                let agent = ["dev", "qa", "@sm", "", "planner", "builder", "*", "É"][r.below(8)];
                let v = check_edit(path, old.as_deref(), &new, agent, config);
                if !v.is_allowed() {
                    blocks += 1;
                }
                let _ = serde_json::to_string(&v).unwrap();
                let _ = status_of(path, &new, config);
            }
            4..=5 => {
                let todo = pick(&mut r, TODO, 40);
                let state = pick(&mut r, STATE, 40);
                let n = [258u64, 259, 260, 261, 256, 0, u64::MAX, r.next() % 300][r.below(8)];
                let inputs = SyncInputs {
                    todo_md: todo.clone(),
                    state_json: state.clone(),
                    project_state_json: if r.below(3) == 0 {
                        Some(pick(&mut r, STATE, 10))
                    } else {
                        None
                    },
                    project_state_path: None,
                    task_number: n,
                    new_status: [
                        "PLANNING",
                        "[COMPLETED]",
                        "partial",
                        "",
                        "x y",
                        "BLOCKED",
                        "IMPLEMENTING",
                    ][r.below(7)]
                    .into(),
                    agent: ["planner", "implementer", "researcher", "orchestrator", ""][r.below(5)]
                        .into(),
                    now_iso: [
                        "2026-01-04T09:15:00Z",
                        "2026-01-04",
                        "bad",
                        "2026-02-30T00:00:00+05:30",
                        "9999-12-31T23:59:59.999Z",
                    ][r.below(5)]
                    .into(),
                    artifacts: (0..r.below(3))
                        .map(|i| {
                            ["a/b.md", "x", "sp ace", "", "specs/258_x/r.md", "é/ü.md"]
                                [(i + r.below(6)) % 6]
                                .to_string()
                        })
                        .collect(),
                    ..Default::default()
                };
                if let Ok(p) = plan_status_sync(&inputs, config) {
                    well_formed(&p);
                    plans_ok += 1;
                }
                let _ = check_consistency(&todo, &state, inputs.project_state_json.as_deref());
            }
            6 => {
                let inputs = NewTaskInputs {
                    todo_md: pick(&mut r, TODO, 30),
                    state_json: pick(&mut r, STATE, 30),
                    title: ["Fix it", "", "two\nlines", "é😀", "### 5. sneaky"][r.below(5)].into(),
                    description: random_text(&mut r, 5),
                    priority: [
                        None,
                        Some("high".to_string()),
                        Some("".to_string()),
                        Some("Ünïcode".to_string()),
                    ][r.below(4)]
                    .clone(),
                    language: None,
                    effort: None,
                    dependencies: vec![],
                    task_type: None,
                    agent: "meta".into(),
                    now_iso: "2026-01-04T09:15:00Z".into(),
                    ..Default::default()
                };
                if let Ok(p) = plan_new_task(&inputs, config) {
                    well_formed(&p);
                    let todo = &p.files[0].text;
                    let n = p.task_number.unwrap();
                    assert_eq!(
                        parse_todo(todo, &["status".into()])
                            .entries
                            .iter()
                            .filter(|e| e.number == n)
                            .count(),
                        1,
                        "case {case}: {:?}\n{todo}",
                        inputs.title
                    );
                    plans_ok += 1;
                }
            }
            7 => {
                let inputs = ArchiveInputs {
                    todo_md: pick(&mut r, TODO, 30),
                    state_json: pick(&mut r, STATE, 30),
                    archive_state_json: if r.below(2) == 0 {
                        Some(pick(&mut r, ARCHIVE, 10))
                    } else {
                        None
                    },
                    now_iso: "2026-01-04T09:15:00Z".into(),
                    ..Default::default()
                };
                if let Ok(p) = plan_archive(&inputs, config) {
                    well_formed(&p);
                    plans_ok += 1;
                }
            }
            8 => {
                let text = pick(&mut r, NSO_JSON, 20);
                let _ = parse_nso_json("nso.json", Some(&text));
                let _ = check_consistency_with(
                    &ConsistencyInputs {
                        todo_md: pick(&mut r, TODO, 20),
                        state_json: pick(&mut r, STATE, 20),
                        project_state_path: Some(".opencode/specs/258_x/state.json".into()),
                        project_state_json: Some(random_text(&mut r, 10)),
                        ..Default::default()
                    },
                    config,
                );
            }
            _ => {
                let t = random_text(&mut r, 200);
                for p in PATHS.iter().take(8) {
                    let _ = check_edit(p, Some(&t), &mutate(&mut r, &t), "dev", config);
                }
            }
        }
    }
    assert!(plans_ok > 1_000, "{plans_ok}");
    assert!(blocks > 1_000, "{blocks}");
}
