//! Squads, plans checked when written, and story gates dormant outside story-driven plans.

use nso::kord::squad::{CheckpointMode, PlanType};
use nso::kord::{check_plan_write, parse_plan, parse_squad, story_gates, Squad, Squads};

const MARKETING: &str = r#"# .opencode/squads/marketing/SQUAD.yaml
name: marketing
description: "Marketing campaign execution"
agents:
  - pm            # Campaign strategy
  - analyst       # Market research
plan_type: task   # No stories, just tasks
checkpoint_mode: auto  # No wave checkpoints
quality_gates: false   # No QA gates
story_driven: false    # No story lifecycle
plan_template: |
  # Campaign Plan: {{title}}
  ## Tasks
  {{tasks}}
verification:
  type: file_exists    # Verify output files exist
"#;

fn squads() -> Squads {
    Squads::load(&[(
        ".opencode/squads/marketing/SQUAD.yaml".into(),
        MARKETING.into(),
    )])
}

#[test]
fn the_seed_marketing_squad_parses_with_every_setting() {
    let s = parse_squad(".opencode/squads/marketing/SQUAD.yaml", MARKETING).unwrap();
    assert_eq!(s.name, "marketing");
    assert_eq!(s.agents, ["pm", "analyst"]);
    assert_eq!(s.plan_type, PlanType::Task);
    assert_eq!(s.checkpoint_mode, CheckpointMode::Auto);
    assert!(!s.quality_gates && !s.story_driven);
    assert_eq!(
        s.plan_template.as_deref(),
        Some("# Campaign Plan: {{title}}\n## Tasks\n{{tasks}}\n")
    );
    assert_eq!(s.verification, "file_exists");
    // Left out: the dev squad's delegation rules.
    assert_eq!(s.delegation.max_attempts, 3);
    assert_eq!(s.delegation.orchestrators, ["build"]);
}

#[test]
fn the_built_in_dev_squad_has_the_seed_defaults() {
    let d = Squad::dev();
    assert_eq!(d.plan_type, PlanType::Development);
    assert_eq!(d.checkpoint_mode, CheckpointMode::Interactive);
    assert!(d.quality_gates && d.story_driven && d.story_gates());
    assert_eq!(d.verification, "lsp_build_test");
    let loaded = Squads::load(&[]);
    assert_eq!(loaded.squads, vec![Squad::dev()]);
}

#[test]
fn a_dev_folder_overrides_the_built_in_squad() {
    let s = Squads::load(&[(
        ".opencode/squads/dev/SQUAD.yaml".into(),
        "checkpoint_mode: auto\ndelegation:\n  max_attempts: 5\n".into(),
    )]);
    assert_eq!(s.squads.len(), 1);
    let dev = s.get(None).unwrap();
    assert_eq!(dev.checkpoint_mode, CheckpointMode::Auto);
    assert_eq!(dev.delegation.max_attempts, 5);
    assert!(dev.story_driven);
}

#[test]
fn bad_squad_files_name_the_key_and_the_fix() {
    let f = ".opencode/squads/m/SQUAD.yaml";
    let cases = [
        (
            "checkpoint_mode: sometimes\n",
            "checkpoint_mode",
            "`interactive` or `auto`",
        ),
        ("plan_typ: task\n", "plan_typ", "use one of"),
        ("quality_gates: maybe\n", "quality_gates", "true or false"),
        ("name: other\n", "name", "folder"),
        (
            "verification:\n  type: vibes\n",
            "verification",
            "file_exists",
        ),
        (
            "delegation:\n  max_attempts: 0\n",
            "delegation.max_attempts",
            "1 to 20",
        ),
        (
            "delegation:\n  retries: 2\n",
            "delegation.retries",
            "max_attempts",
        ),
        ("- a\n- b\n", "", "key: value"),
        ("agents: [pm\n", "", "YAML"),
    ];
    for (text, key, fix) in cases {
        let e = parse_squad(f, text).unwrap_err();
        assert_eq!(e.key, key, "{text}");
        assert!(e.to_string().contains(fix), "{text}: {e}");
        assert!(e.to_string().starts_with(f), "{e}");
    }
}

#[test]
fn a_broken_squad_file_does_not_hide_the_good_ones() {
    let s = Squads::load(&[
        (
            ".opencode/squads/a/SQUAD.yaml".into(),
            "plan_type: x\n".into(),
        ),
        (
            ".opencode/squads/b/SQUAD.yaml".into(),
            "plan_type: task\n".into(),
        ),
    ]);
    assert_eq!(s.errors.len(), 1);
    assert!(s.get(Some("b")).is_some() && s.get(Some("a")).is_none());
}

const PLAN: &str = "---\nsquad: marketing\n---\n# Plan: Spring\n\n## Wave 1\n- [ ] T1: Research — executor: analyst\n- [x] T2: Brief\n  - executor: @pm\n  - quality_gate: analyst\n\n```\n- [ ] T9: not an item — executor: x\n```\n\n## Wave 2\n- [ ] S1: Landing page — executor: dev-junior, quality_gate: qa, story: docs/kord/plans/spring/stories/s1.md\n";

#[test]
fn plans_parse_waves_items_and_fields() {
    let (p, problems) = parse_plan("spring", PLAN);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(p.squad.as_deref(), Some("marketing"));
    let ids: Vec<_> = p.items.iter().map(|i| (i.id.as_str(), i.wave)).collect();
    assert_eq!(ids, [("T1", 1), ("T2", 1), ("S1", 2)]);
    assert_eq!(p.items[0].executor.as_deref(), Some("analyst"));
    assert!(p.items[1].checked);
    assert_eq!(p.items[1].executor.as_deref(), Some("pm"));
    assert_eq!(p.items[1].quality_gate.as_deref(), Some("analyst"));
    assert_eq!(
        p.items[2].story.as_deref(),
        Some("docs/kord/plans/spring/stories/s1.md")
    );
    assert_eq!(p.items[2].quality_gate.as_deref(), Some("qa"));
}

#[test]
fn a_story_path_out_of_the_project_is_refused_when_written_and_never_used() {
    let file = "docs/kord/plans/spring/plan.md";
    let story = "story: docs/kord/plans/spring/stories/s1.md";
    for bad in [
        "../outside/s1.md",
        "/etc/passwd",
        "docs/kord/../../../x.md",
        "./docs/s1.md",
        "C:\\x\\s1.md",
        "docs\\..\\..\\x.md",
    ] {
        let text = PLAN.replace(story, &format!("story: {bad}"));
        let e = check_plan_write(file, &text, &squads()).unwrap_err();
        assert!(
            e.contains(&format!(
                "S1 names story `{bad}`, which is not a path inside the project"
            )),
            "{e}"
        );
        let (p, _) = parse_plan("spring", &text);
        assert_eq!(p.items[2].story, None, "{bad}: not used");
    }
    // On an indented field line too; a doubled slash is only a spelling.
    let indented = PLAN.replace(
        ", story: docs/kord/plans/spring/stories/s1.md",
        "\n  - story: ../s1.md",
    );
    assert!(check_plan_write(file, &indented, &squads()).is_err());
    let (p, _) = parse_plan("spring", &PLAN.replace(story, "story: docs//kord/s1.md"));
    assert_eq!(p.items[2].story.as_deref(), Some("docs/kord/s1.md"));
}

#[test]
fn a_plan_whose_quality_gate_is_its_executor_is_refused_when_written() {
    let file = "docs/kord/plans/spring/plan.md";
    assert_eq!(check_plan_write(file, PLAN, &squads()), Ok(()));
    let bad = PLAN.replace("quality_gate: analyst", "quality_gate: @PM");
    let e = check_plan_write(file, &bad, &squads()).unwrap_err();
    assert!(
        e.contains("T2 has @pm as both executor and quality gate"),
        "{e}"
    );
    assert!(e.contains("name another reviewer"), "{e}");
    // Not a plan file: not checked.
    assert_eq!(
        check_plan_write("docs/kord/plans/spring/notes.md", &bad, &squads()),
        Ok(())
    );
}

#[test]
fn a_plan_naming_a_missing_squad_or_a_duplicate_id_is_refused() {
    let file = "docs/kord/plans/spring/plan.md";
    let e = check_plan_write(
        file,
        &PLAN.replace("squad: marketing", "squad: legal"),
        &squads(),
    )
    .unwrap_err();
    assert!(
        e.contains("squad `legal`") && e.contains("dev, marketing"),
        "{e}"
    );
    let e = check_plan_write(file, &PLAN.replace("S1:", "T1:"), &squads()).unwrap_err();
    assert!(e.contains("T1 appears twice"), "{e}");
}

#[test]
fn story_gates_are_dormant_outside_story_driven_plans() {
    let story = "docs/kord/plans/spring/stories/s1.md";
    // The marketing squad is neither story-driven nor a development squad.
    let e = story_gates(story, Some(PLAN), &squads()).unwrap_err();
    assert!(e.contains("dormant") && e.contains("marketing"), "{e}");
    // The dev squad (no squad named) keeps them.
    let dev_plan = PLAN.replace("squad: marketing", "title: x");
    assert_eq!(story_gates(story, Some(&dev_plan), &squads()), Ok(()));
    // A dev plan that says it is a task plan does not.
    let task_plan = PLAN.replace("squad: marketing", "plan_type: task");
    assert!(story_gates(story, Some(&task_plan), &squads()).is_err());
    // No plan, or a story outside plans: as before.
    assert_eq!(story_gates(story, None, &squads()), Ok(()));
    assert_eq!(
        story_gates("docs/kord/stories/s1.md", Some(PLAN), &squads()),
        Ok(())
    );
    assert_eq!(
        story_gates(story, Some(&dev_plan), &Squads::load(&[])),
        Ok(())
    );
}

/// Every setting the schema documents is one the parser reads, and the other way round.
#[test]
fn the_schema_names_exactly_the_settings_the_parser_reads() {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schema/squad.schema.json")).unwrap();
    let keys: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for key in &keys {
        let value = match *key {
            "agents" | "delegation" => "{}".to_string(),
            "verification" => "{type: none}".to_string(),
            "quality_gates" | "story_driven" => "true".to_string(),
            "plan_type" => "task".to_string(),
            "checkpoint_mode" => "auto".to_string(),
            "name" => "s".to_string(),
            _ => "x".to_string(),
        };
        let value = if *key == "agents" {
            "[]".to_string()
        } else {
            value
        };
        let text = format!("\"{key}\": {value}\n");
        assert!(
            parse_squad(".opencode/squads/s/SQUAD.yaml", &text).is_ok(),
            "{key}"
        );
    }
    assert!(parse_squad(".opencode/squads/s/SQUAD.yaml", "extra: 1\n").is_err());
    let delegation: Vec<&str> = schema["properties"]["delegation"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(delegation.len(), 4);
    for key in delegation {
        let value = match key {
            "orchestrators" => "[build]",
            "max_attempts" => "2",
            "one_at_a_time" => "false",
            _ => "po",
        };
        let text = format!("delegation:\n  {key}: {value}\n");
        assert!(
            parse_squad(".opencode/squads/s/SQUAD.yaml", &text).is_ok(),
            "{key}"
        );
    }
}
