//! The `proofchecker` preset, checked against the ProofChecker design (seed 004) by hand: who
//! writes which artifact, TODO.md / state.json only through the atomic status sync, the
//! orchestrator delegating, git. Expected verdicts are written from the seed, not generated
//! from the preset.

mod common;

use common::*;
use nso::authority::{Engine, Policy, Request, Verdict};
use nso::status::sync::{plan_status_sync, SyncInputs};
use nso::status::StatusConfig;
use serde_json::json;

const AGENTS: &[&str] = &[
    "orchestrator",
    "researcher",
    "lean-research-agent",
    "planner",
    "lean-planner",
    "implementer",
    "lean-implementation-agent",
    "reviewer",
    "meta",
    "task-executor",
    "todo-manager",
    "status-sync-manager",
    "git-workflow-manager",
    "build",
    "plan",
    "general",
    "explore",
];

const IMPLEMENTERS: &[&str] = &["implementer", "lean-implementation-agent"];

/// An area of a ProofChecker project: name, representative paths, agents that may write and
/// create there, agents that may delete there.
type Area = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

const AREAS: &[Area] = &[
    (
        // /implement: "Execute implementation following plan phases / Create implementation
        // files"; Lean tasks go to the Lean implementation agent, others to the implementer.
        "Lean source",
        &[
            "Logos/Semantics/Truth.lean",
            "Logos/Metalogic/Soundness.lean",
            "lakefile.lean",
            "lean-toolchain",
        ],
        IMPLEMENTERS,
        IMPLEMENTERS,
    ),
    (
        "other project files",
        &[
            "README.md",
            "Documentation/UserGuide/TUTORIAL.md",
            "scripts/lint.py",
        ],
        IMPLEMENTERS,
        IMPLEMENTERS,
    ),
    (
        // /meta creates tasks; "/implement for each task" then changes the agent system
        // (the seed's example: "Moved interview-patterns.md to core/workflows/").
        "the agent system",
        &[
            ".opencode/agent/subagents/researcher.md",
            ".opencode/command/research.md",
            ".opencode/context/core/workflows/interview-patterns.md",
        ],
        IMPLEMENTERS,
        IMPLEMENTERS,
    ),
    (
        // "Write report: reports/research-001.md"; /meta links research to the tasks it makes.
        "research reports",
        &[".opencode/specs/258_resolve_truth_lean_sorries/reports/research-001.md"],
        &["researcher", "lean-research-agent", "meta"],
        &[],
    ),
    (
        // "Write plan: plans/implementation-001.md" (also /revise); /meta links plans too.
        "plans",
        &[
            ".opencode/specs/258_resolve_truth_lean_sorries/plans/implementation-001.md",
            ".opencode/specs/258_resolve_truth_lean_sorries/plans/implementation-002.md",
        ],
        &["planner", "lean-planner", "meta"],
        &[],
    ),
    (
        // "Write summary: summaries/implementation-summary-20260103.md"; the TODO.md example
        // links a research summary; the reviewer writes summaries/review-summary.md.
        "summaries",
        &[
            ".opencode/specs/267_integrate_context/summaries/implementation-summary-20260103.md",
            ".opencode/specs/258_resolve_truth_lean_sorries/summaries/research-summary.md",
            ".opencode/specs/207_codebase_review/summaries/review-summary.md",
        ],
        &[
            "researcher",
            "lean-research-agent",
            "implementer",
            "lean-implementation-agent",
            "reviewer",
        ],
        &[],
    ),
    (
        // /review: "Update registries (SORRY, TACTIC, FEATURE, IMPLEMENTATION_STATUS)".
        "registries",
        &[
            "Documentation/ProjectInfo/SORRY_REGISTRY.md",
            "Documentation/ProjectInfo/TACTIC_REGISTRY.md",
            "Documentation/ProjectInfo/FEATURE_REGISTRY.md",
            "Documentation/ProjectInfo/IMPLEMENTATION_STATUS.md",
        ],
        &["implementer", "lean-implementation-agent", "reviewer"],
        IMPLEMENTERS,
    ),
    (
        // "Atomic State Updates": only the status sync writes these.
        "status files",
        &[
            ".opencode/specs/TODO.md",
            ".opencode/specs/state.json",
            ".opencode/specs/258_resolve_truth_lean_sorries/state.json",
            ".opencode/specs/archive/state.json",
        ],
        &[],
        &[],
    ),
    (
        "other files under specs/",
        &[
            ".opencode/specs/258_resolve_truth_lean_sorries/notes.md",
            ".opencode/specs/README.md",
        ],
        &[],
        &[],
    ),
    (
        "governance",
        &[".opencode/nso.json", "opencode.json", ".git/config"],
        &[],
        &[],
    ),
];

fn engine_pc() -> Engine {
    engine("proofchecker")
}

/// The engine with the shipped status machines, as the plugin runs it.
fn governed() -> Engine {
    let mut e = Engine::new(Policy::preset("proofchecker").expect("preset compiles"));
    nso::status::govern(&mut e, None);
    e
}

#[test]
fn artifact_matrix_every_agent_every_area() {
    let e = engine_pc();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (area, paths, writers, deleters) in AREAS {
        for path in *paths {
            for agent in AGENTS {
                for op in ["read", "write", "create", "delete"] {
                    let want = match op {
                        "read" => true,
                        "delete" => deleters.contains(agent),
                        _ => writers.contains(agent),
                    };
                    let d = e.evaluate(&op_request(agent, op, path));
                    checked += 1;
                    if allowed(d.verdict) != want {
                        failures.push(format!(
                            "{area}: @{agent} {op} {path}: want {}, got {:?} by {}",
                            if want { "allow" } else { "block" },
                            d.verdict,
                            d.rule_id
                        ));
                    }
                }
            }
        }
    }
    assert!(checked > 1700, "{checked}");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_project_folder_is_created_lazily_by_the_agent_writing_its_first_artifact() {
    let e = engine_pc();
    for (agent, command, want) in [
        ("researcher", "mkdir -p .opencode/specs/258_x/reports", true),
        ("lean-planner", "mkdir -p .opencode/specs/258_x/plans", true),
        ("researcher", "mkdir .opencode/specs/258_x", true),
        ("orchestrator", "mkdir .opencode/specs/258_x", false),
        ("researcher", "mkdir -p .opencode/specs/258_x/plans", false),
        ("researcher", "mkdir .opencode/specs/archive", false),
    ] {
        let d = e.evaluate(&bash(agent, command));
        assert_eq!(
            allowed(d.verdict),
            want,
            "@{agent} {command}: {:?}",
            d.message
        );
    }
}

/// A write of `text` to `path` as one of the sync's planned writes (`via` an NSO tool), or
/// as a direct `write` call (`via` None).
fn sync_write(
    agent: &str,
    path: &str,
    old: Option<&str>,
    text: &str,
    via: Option<&str>,
) -> Request {
    let r = req(agent, "write", json!({ "filePath": path, "content": text }));
    let mut r = with_content(r, path, old);
    r.exists.insert(abs(path), old.is_some());
    r.via = via.map(str::to_string);
    r
}

const TODO: &str = include_str!("fixtures/status/TODO.md");
const STATE: &str = include_str!("fixtures/status/state.json");

#[test]
fn todo_and_state_change_only_through_the_sync() {
    let e = engine_pc();
    let todo = ".opencode/specs/TODO.md";
    let state = ".opencode/specs/state.json";
    let new_todo = TODO.replace("[RESEARCHED]", "[PLANNING]");
    // Every agent, every direct route: refused by the sync-only rule, whose message says why
    // and names the tool to use.
    for agent in AGENTS {
        let direct = [
            op_request(agent, "write", todo),
            op_request(agent, "create", state),
            op_request(agent, "delete", todo),
            sync_write(agent, todo, Some(TODO), &new_todo, None),
            bash(
                agent,
                "sed -i 's/RESEARCHED/PLANNING/' .opencode/specs/TODO.md",
            ),
            bash(agent, "echo '{}' > .opencode/specs/state.json"),
            bash(agent, "cp /tmp/x.json .opencode/specs/258_x/state.json"),
            req(
                agent,
                "apply_patch",
                json!({"patchText": "*** Begin Patch\n*** Update File: .opencode/specs/TODO.md\n@@\n-a\n+b\n*** End Patch\n"}),
            ),
        ];
        for r in direct {
            let d = e.evaluate(&r);
            assert_eq!(d.verdict, Verdict::Block, "@{agent} {}: {d:?}", r.tool);
            assert_eq!(
                d.rule_id, "proofchecker.specs.sync_only",
                "@{agent} {}",
                r.tool
            );
            let m = d.message.unwrap();
            assert!(
                m.contains("change only through NSO's atomic status sync"),
                "{m}"
            );
            assert!(m.contains("nso_status_set"), "{m}");
            assert!(
                m.contains("Who may: no agent directly, only through nso_status_set, nso_task_new, nso_task_archive."),
                "{m}"
            );
        }
    }
    // A "via" in the model's own arguments is data, not the shim's mark.
    let forged = req(
        "planner",
        "write",
        json!({"filePath": todo, "content": new_todo, "via": "nso_status_set"}),
    );
    assert_eq!(e.evaluate(&forged).rule_id, "proofchecker.specs.sync_only");

    // The sync's planned writes: nso_status_set for every agent of the preset (the status
    // machine then decides the move); new tasks and archiving for their owners only.
    let cases: &[(&str, &[&str])] = &[
        ("nso_status_set", AGENTS),
        (
            "nso_task_new",
            &["orchestrator", "task-executor", "reviewer", "meta"],
        ),
        ("nso_task_archive", &["orchestrator", "todo-manager"]),
    ];
    for (tool, owners) in cases {
        for agent in AGENTS {
            for (path, old) in [(todo, TODO), (state, STATE)] {
                let d = e.evaluate(&sync_write(agent, path, Some(old), "x", Some(tool)));
                assert_eq!(
                    allowed(d.verdict),
                    owners.contains(agent),
                    "@{agent} {tool} {path}: {d:?}"
                );
            }
        }
    }
    // The archive's own state file is written by archiving only.
    let archive = ".opencode/specs/archive/state.json";
    let d = e.evaluate(&sync_write(
        "todo-manager",
        archive,
        None,
        "{}",
        Some("nso_task_archive"),
    ));
    assert!(allowed(d.verdict), "{d:?}");
    let d = e.evaluate(&sync_write("todo-manager", archive, None, "{}", None));
    assert_eq!(d.rule_id, "proofchecker.specs.sync_only");
}

/// Runs a `nso_status_set` as the plugin does: the core plans the new texts, then every
/// planned write is decided as a `write` via `nso_status_set` by the calling agent.
fn status_set(
    e: &Engine,
    agent: &str,
    task: u64,
    to: &str,
    artifacts: &[&str],
) -> Result<(), String> {
    let inputs = SyncInputs {
        todo_md: TODO.to_string(),
        state_json: STATE.to_string(),
        task_number: task,
        new_status: to.to_string(),
        agent: agent.to_string(),
        now_iso: "2026-01-04T09:15:00Z".to_string(),
        artifacts: artifacts.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    let plan = plan_status_sync(&inputs, &StatusConfig::default()).map_err(|e| e.to_string())?;
    assert!(!plan.files.is_empty());
    for f in &plan.files {
        let old = if f.path.ends_with("TODO.md") {
            TODO
        } else {
            STATE
        };
        let d = e.evaluate(&sync_write(
            agent,
            &f.path,
            Some(old),
            &f.text,
            Some("nso_status_set"),
        ));
        if d.verdict == Verdict::Block {
            return Err(d.message.unwrap_or_default());
        }
    }
    Ok(())
}

#[test]
fn status_moves_through_the_sync_follow_the_machines_roles() {
    let e = governed();
    // Task 258 is [RESEARCHED] (lean); task 259 [NOT STARTED]; 260 [IMPLEMENTING].
    for agent in ["planner", "lean-planner"] {
        assert_eq!(
            status_set(&e, agent, 258, "PLANNING", &[]),
            Ok(()),
            "@{agent}"
        );
    }
    for agent in ["researcher", "lean-research-agent"] {
        assert_eq!(
            status_set(&e, agent, 259, "RESEARCHING", &[]),
            Ok(()),
            "@{agent}"
        );
    }
    for agent in IMPLEMENTERS {
        assert_eq!(
            status_set(&e, agent, 260, "PARTIAL", &[]),
            Ok(()),
            "@{agent}"
        );
    }
    // The wrong role: the core's plan already refuses it, naming who may.
    let refused = status_set(&e, "researcher", 258, "PLANNING", &[]).unwrap_err();
    assert!(refused.contains("@planner or @lean-planner"), "{refused}");
    for agent in ["orchestrator", "reviewer", "build", "general"] {
        assert!(
            status_set(&e, agent, 259, "RESEARCHING", &[]).is_err(),
            "@{agent}"
        );
    }
    // The machine also runs inside the engine: a planned text by the right role passes, the
    // same text by another role is refused by the machine (defence in depth).
    let moved = TODO.replacen("- **Status**: [RESEARCHED]", "- **Status**: [PLANNING]", 1);
    let todo = ".opencode/specs/TODO.md";
    let ok = e.evaluate(&sync_write(
        "planner",
        todo,
        Some(TODO),
        &moved,
        Some("nso_status_set"),
    ));
    assert!(allowed(ok.verdict), "{ok:?}");
    let d = e.evaluate(&sync_write(
        "implementer",
        todo,
        Some(TODO),
        &moved,
        Some("nso_status_set"),
    ));
    assert_eq!(d.verdict, Verdict::Block);
    assert_eq!(d.rule_id, "status.proofchecker");
    // And the direct edit by the right role is still refused: only the sync writes TODO.md.
    let d = e.evaluate(&sync_write("planner", todo, Some(TODO), &moved, None));
    assert_eq!(d.rule_id, "proofchecker.specs.sync_only");
}

#[test]
fn the_orchestrator_delegates_and_never_writes() {
    let e = engine_pc();
    for path in [
        "Logos/Semantics/Truth.lean",
        "README.md",
        ".opencode/specs/258_x/reports/research-001.md",
        ".opencode/specs/258_x/plans/implementation-001.md",
        ".opencode/context/core/system/routing-guide.md",
    ] {
        for op in ["write", "create", "delete"] {
            let d = e.evaluate(&op_request("orchestrator", op, path));
            assert_eq!(d.verdict, Verdict::Block, "{op} {path}");
            assert_eq!(
                d.rule_id, "proofchecker.orchestrator.delegates",
                "{op} {path}"
            );
            let m = d.message.unwrap();
            assert!(m.contains("never writes files itself"), "{m}");
            assert!(m.contains("task tool"), "{m}");
        }
    }
    // Delegating, reading and routing are what it does.
    let task = req(
        "orchestrator",
        "task",
        json!({"description": "research 258", "prompt": "Task: 258", "subagent_type": "lean-research-agent"}),
    );
    assert_eq!(e.evaluate(&task).verdict, Verdict::Allow);
    assert_eq!(
        e.evaluate(&op_request(
            "orchestrator",
            "read",
            ".opencode/specs/TODO.md"
        ))
        .verdict,
        Verdict::Allow
    );
    let route = req(
        "orchestrator",
        "nso_route",
        json!({"command": "/research", "task": 258}),
    );
    assert_eq!(e.evaluate(&route).verdict, Verdict::Allow);
    // Shell writes are writes.
    for cmd in [
        "echo 'theorem t : True := trivial' > Logos/T.lean",
        "touch notes.md",
    ] {
        let d = e.evaluate(&bash("orchestrator", cmd));
        assert_eq!(d.rule_id, "proofchecker.orchestrator.delegates", "{cmd}");
    }
    // Its one move of the machine, BLOCKED → ABANDONED, goes through the sync.
    let g = governed();
    let blocked = "### 7. Stuck\n- **Status**: [BLOCKED]\n- **Language**: lean\n";
    let abandoned = blocked.replace("[BLOCKED]", "[ABANDONED]");
    let todo = ".opencode/specs/TODO.md";
    let d = g.evaluate(&sync_write(
        "orchestrator",
        todo,
        Some(blocked),
        &abandoned,
        Some("nso_status_set"),
    ));
    assert!(allowed(d.verdict), "{d:?}");
    let d = g.evaluate(&sync_write(
        "implementer",
        todo,
        Some(blocked),
        &abandoned,
        Some("nso_status_set"),
    ));
    assert_eq!(d.rule_id, "status.proofchecker");
}

#[test]
fn git_is_committed_by_the_git_workflow_manager_and_integrated_by_the_user() {
    let e = engine_pc();
    for agent in AGENTS {
        for cmd in [
            "git add Logos/Truth.lean",
            "git commit -m 'task 258: research'",
        ] {
            let want = *agent == "git-workflow-manager";
            let d = e.evaluate(&bash(agent, cmd));
            assert_eq!(allowed(d.verdict), want, "@{agent} {cmd}");
            if !want {
                assert_eq!(d.rule_id, "proofchecker.git.commit");
            }
        }
        for cmd in [
            "git push origin main",
            "git merge topic",
            "gh pr create --fill",
        ] {
            let d = e.evaluate(&bash(agent, cmd));
            assert_eq!(d.rule_id, "proofchecker.git.user_only", "@{agent} {cmd}");
        }
        let d = e.evaluate(&bash(agent, "git commit --amend -m x"));
        assert_eq!(d.verdict, Verdict::Block, "@{agent}");
        assert!(allowed(e.evaluate(&bash(agent, "git status")).verdict));
        // Lean builds are ordinary commands.
        assert!(allowed(e.evaluate(&bash(agent, "lake build")).verdict));
        // Opaque shell steps: the implementers only.
        let d = e.evaluate(&bash(agent, "python3 -c 'print(1)'"));
        assert_eq!(allowed(d.verdict), IMPLEMENTERS.contains(agent), "@{agent}");
    }
}

#[test]
fn the_lean_agents_have_the_rights_of_their_general_roles_and_aliases_resolve() {
    let p = Policy::preset("proofchecker").unwrap();
    for (given, name) in [
        ("lean_research_agent", "lean-research-agent"),
        ("@Lean-Planner", "lean-planner"),
        ("Orchestrator", "orchestrator"),
        ("git_workflow_manager", "git-workflow-manager"),
    ] {
        let i = p.resolve_agent(given).unwrap_or_else(|| panic!("{given}"));
        assert_eq!(p.agents()[i].name, name);
    }
    let e = engine_pc();
    for (lean, general) in [
        ("lean-research-agent", "researcher"),
        ("lean-planner", "planner"),
        ("lean-implementation-agent", "implementer"),
    ] {
        for (area, paths, ..) in AREAS {
            for path in *paths {
                for op in ["write", "create", "delete"] {
                    assert_eq!(
                        allowed(e.evaluate(&op_request(lean, op, path)).verdict),
                        allowed(e.evaluate(&op_request(general, op, path)).verdict),
                        "{area}: @{lean} vs @{general} {op} {path}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_preset_is_selected_by_name_and_listed_in_the_schema() {
    let p =
        Policy::from_config_json(r#"{"preset": "proofchecker"}"#, ".opencode/nso.json").unwrap();
    assert_eq!(p.preset.as_deref(), Some("proofchecker"));
    assert_eq!(p.name, "proofchecker");
    let schema: serde_json::Value = serde_json::from_str(nso::authority::POLICY_SCHEMA).unwrap();
    let listed: Vec<&str> = schema["properties"]["preset"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mut want: Vec<&str> = nso::authority::PRESETS.to_vec();
    want.push("none");
    assert_eq!(listed, want);
    let e =
        Policy::from_config_json(r#"{"preset": "proofcheker"}"#, ".opencode/nso.json").unwrap_err();
    assert!(format!("{:?}", e.0[0]).contains("proofchecker"), "{e:?}");
}

#[test]
fn the_example_project_config_compiles_on_the_preset() {
    let text = include_str!("../../examples/proofchecker/.opencode/nso.json");
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let p = Policy::from_config_value(&v["authority"], ".opencode/nso.json", "authority").unwrap();
    assert_eq!(p.preset.as_deref(), Some("proofchecker"));
    nso::status::parse_nso_json(".opencode/nso.json", Some(text)).unwrap();
}
