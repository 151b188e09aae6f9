//! A refusal says what the agent may do instead, names only agents the project has (by the
//! name the project uses), tells a primary agent to ask the person and a subagent to report to
//! its caller, and carries no words of NSO's own development.

mod common;

use common::*;
use nso::authority::{Call, Decision, Engine, Facts, FileText, Verdict};
use serde_json::json;

/// A project where every path is where it is written; `existing` files exist.
struct Disk(Vec<String>);

impl Facts for Disk {
    fn real_path(&mut self, abs: &str) -> Result<(String, bool), String> {
        Ok((abs.to_string(), self.0.iter().any(|e| e == abs)))
    }
    fn read(&mut self, abs: &str, _: u64) -> Result<FileText, String> {
        Ok(match self.0.iter().any(|e| e == abs) {
            true => FileText::Text("# Decisions\n\n## D-0001 · keep it\n".to_string()),
            false => FileText::Missing,
        })
    }
}

fn decide(
    e: &mut Engine,
    agent: &str,
    delegated_by: Option<&str>,
    tool: &str,
    args: serde_json::Value,
) -> Decision {
    answer(e, agent, delegated_by, tool, args).expect("a decision")
}

/// The decision on a call (`None`: a plain allow).
fn answer(
    e: &mut Engine,
    agent: &str,
    delegated_by: Option<&str>,
    tool: &str,
    args: serde_json::Value,
) -> Option<Decision> {
    let call = Call {
        session_id: format!("ses_{agent}_{tool}_{delegated_by:?}_{args}"),
        agent: Some(agent.to_string()),
        delegated_by: delegated_by.map(str::to_string),
        tool: tool.to_string(),
        args,
        via: None,
        directory: WT.to_string(),
        worktree: WT.to_string(),
        origin: None,
    };
    let existing = vec![abs(".opencode/context/decisions.md")];
    e.decide_call(call, 1 << 20, &mut Disk(existing)).decision
}

fn refusal(e: &mut Engine, agent: &str, tool: &str, args: serde_json::Value) -> String {
    let d = decide(e, agent, None, tool, args);
    assert_eq!(d.verdict, Verdict::Block, "{d:?}");
    d.message.unwrap_or_default()
}

fn write(path: &str) -> serde_json::Value {
    json!({ "filePath": path, "content": "x\n" })
}

/// An OpenCode project with the built-in agents and an `orchestrator` of its own.
fn opencode_project(preset: &str) -> Engine {
    let mut e = engine(preset);
    let agents = ["build", "plan", "general", "explore", "orchestrator"];
    e.set_project_agents(Some(agents.iter().map(|a| a.to_string()).collect()));
    e
}

#[test]
fn a_refused_write_names_the_nearest_places_this_agent_may_write() {
    let mut e = engine("nso");
    let m = refusal(&mut e, "plan", "write", write("src/app.ts"));
    assert!(
        m.contains("Instead: you may create `.opencode/plans/**/*.md`"),
        "{m}"
    );
    let m = refusal(
        &mut e,
        "build",
        "write",
        write(".opencode/context/notes.md"),
    );
    assert!(
        m.contains("you may create `.opencode/context/01_memory/**`"),
        "the nearest first: {m}"
    );
    let m = refusal(&mut engine("kord"), "explore", "write", write("src/app.ts"));
    assert!(
        m.contains("Instead: you may read files but not change them"),
        "{m}"
    );
    // An area reachable only through NSO's own tool says so.
    let mut kord = engine("kord");
    let m = refusal(&mut kord, "dev", "write", write("docs/kord/stories/1.1.md"));
    assert!(
        !m.contains("story_update`"),
        "story_update is no NSO tool: {m}"
    );
}

#[test]
fn who_may_names_only_the_projects_agents_as_the_project_names_them() {
    let mut e = opencode_project("nso");
    let m = refusal(&mut e, "plan", "write", write("src/app.ts"));
    assert!(
        m.contains("Who may: @build, @general."),
        "no @builder, which the project lacks: {m}"
    );
    assert!(!m.contains("@builder") && !m.contains("@oracle"), "{m}");
    // The project's `orchestrator` has @oracle's rights and is called by its own name.
    let m = refusal(&mut e, "orchestrator", "write", write("src/app.ts"));
    assert!(
        m.starts_with("NSO blocked write for @orchestrator: "),
        "{m}"
    );
    let m = refusal(&mut e, "plan", "write", write(".opencode/context/task.md"));
    assert!(m.contains("@orchestrator") && !m.contains("@oracle"), "{m}");
    // Rules whose agents the project lacks say so instead of naming them.
    let mut kord = engine("kord");
    kord.set_project_agents(Some(vec!["build".into(), "plan".into(), "dev".into()]));
    let m = refusal(
        &mut kord,
        "dev",
        "bash",
        json!({ "command": "git push origin main" }),
    );
    assert!(m.contains("no agent of this project may push"), "{m}");
    assert!(
        m.contains("Instead: finish your task and leave the push to the person."),
        "{m}"
    );
    assert!(!m.contains("@devops"), "{m}");
}

#[test]
fn a_primary_agent_asks_the_person_and_a_subagent_reports_to_its_caller() {
    let mut e = engine("kord");
    let push = json!({ "command": "git push origin main" });
    let primary = decide(&mut e, "dev", None, "bash", push.clone())
        .message
        .unwrap_or_default();
    assert!(
        primary.ends_with("If the work needs this, ask the person."),
        "{primary}"
    );
    let sub = decide(&mut e, "dev", Some("build"), "bash", push.clone())
        .message
        .unwrap_or_default();
    assert!(
        sub.ends_with("If the work needs this, report it to your caller (@build)."),
        "{sub}"
    );
    let unknown = decide(&mut e, "dev", Some(""), "bash", push)
        .message
        .unwrap_or_default();
    assert!(
        unknown.ends_with("If the work needs this, report it to your caller."),
        "{unknown}"
    );
    assert!(
        !primary.contains("caller"),
        "a primary agent has no caller: {primary}"
    );
}

#[test]
fn a_rewrite_of_the_ledger_points_to_nso_decide_and_names_nobody() {
    let config = nso::config::parse(
        ".opencode/nso.json",
        Some(r#"{"authority": {"preset": "nso"}}"#),
    )
    .expect("config");
    let mut e = nso::config::project_engine(&config, ".opencode/nso.json").expect("engine");
    for agent in ["oracle", "build"] {
        let m = refusal(
            &mut e,
            agent,
            "bash",
            json!({ "command": "echo x > .opencode/context/decisions.md" }),
        );
        assert!(m.contains("nso_decide"), "{agent}: {m}");
        if agent == "oracle" {
            assert!(!m.contains("Who may"), "nobody may rewrite the ledger: {m}");
        }
    }
}

#[test]
fn audit_mode_relaxes_the_policy_not_nsos_guarantees() {
    for preset in ["nso", "kord", "proofchecker"] {
        let text = format!(r#"{{"authority": {{"preset": "{preset}", "mode": "audit"}}}}"#);
        let config = nso::config::parse(".opencode/nso.json", Some(&text)).expect("config");
        let mut e = nso::config::project_engine(&config, ".opencode/nso.json").expect("engine");
        let agent = match preset {
            "kord" => "dev",
            "proofchecker" => "implementer",
            _ => "build",
        };
        for (tool, args) in [
            (
                "bash",
                json!({ "command": "echo x > .opencode/context/decisions.md" }),
            ),
            ("write", write(".opencode/context/decisions.md")),
            ("write", write(".opencode/nso.json")),
            ("bash", json!({ "command": "echo '{}' > opencode.json" })),
        ] {
            let d = decide(&mut e, agent, None, tool, args.clone());
            assert_eq!(
                d.verdict,
                Verdict::Block,
                "{preset} @{agent} {tool} {args}: {d:?}"
            );
        }
        // The policy itself is relaxed: what it would refuse runs, and is recorded.
        let d = decide(&mut e, "explore", None, "write", write("src/app.ts"));
        assert_eq!(d.verdict, Verdict::Audit, "{preset}: {d:?}");
    }
    let text = r#"{"authority": {"preset": "proofchecker", "mode": "audit"}}"#;
    let config = nso::config::parse(".opencode/nso.json", Some(text)).expect("config");
    let mut e = nso::config::project_engine(&config, ".opencode/nso.json").expect("engine");
    let d = decide(
        &mut e,
        "implementer",
        None,
        "write",
        write(".opencode/specs/TODO.md"),
    );
    assert_eq!(
        d.verdict,
        Verdict::Block,
        "status files change only through the sync: {d:?}"
    );
}

/// Words of NSO's own development that no text a model or a person reads may carry.
fn process_words(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let ordinals = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    ];
    if lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w == "seed")
    {
        return Some("seed".into());
    }
    if let Some(at) = lower.find("issue ") {
        if lower[at + 6..].starts_with(|c: char| c.is_ascii_digit()) {
            return Some("issue N".into());
        }
    }
    ordinals
        .iter()
        .find(|o| lower.contains(&format!("{o} pass")))
        .map(|o| format!("{o} pass"))
}

#[test]
fn no_preset_text_or_refusal_carries_process_words() {
    for preset in nso::authority::PRESETS {
        let text = nso::authority::preset_json(preset).expect("preset");
        assert_eq!(process_words(text), None, "preset {preset}");
        let mut e = engine(preset);
        for agent in [
            "dev",
            "plan",
            "qa",
            "build",
            "janitor",
            "orchestrator",
            "implementer",
            "nobody",
        ] {
            for (tool, args) in [
                ("write", write("src/app.ts")),
                ("write", write("docs/kord/plans/p.md")),
                ("write", write(".opencode/specs/TODO.md")),
                ("bash", json!({ "command": "git push origin main" })),
                ("bash", json!({ "command": "rm -rf src" })),
                ("bash", json!({ "command": "eval \"$X\"" })),
                ("write", write("/etc/hosts")),
            ] {
                let d = answer(&mut e, agent, Some("build"), tool, args);
                let m = d.and_then(|d| d.message).unwrap_or_default();
                assert_eq!(process_words(&m), None, "{preset} @{agent}: {m}");
            }
        }
    }
}
