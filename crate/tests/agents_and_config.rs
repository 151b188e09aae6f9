//! Agent identity, project overrides, config errors, presets.

mod common;

use common::*;
use nso::authority::{codes, preset_json, Policy, Verdict, PRESETS};
use serde_json::json;

#[test]
fn unknown_agent_is_fail_closed_for_changes_only() {
    let mut e = engine("kord");
    let d = e.decide(&op_request("ghostwriter", "write", "src/a.ts"));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Block, "kord.unknown_agent")
    );
    assert_eq!(d.agent.as_deref(), Some("ghostwriter"));
    let m = d.message.unwrap();
    assert!(m.contains("unknown agent \"ghostwriter\""), "{m}");
    assert!(
        m.contains(r#"{"agents": {"ghostwriter": {"like": "dev"}}}"#),
        "{m}"
    );
    assert!(m.contains(".opencode/nso.json"), "{m}");
    assert!(m.contains("Who may: @dev, @dev-junior, @kord"), "{m}");
    for r in [
        op_request("ghostwriter", "read", "src/a.ts"),
        bash("ghostwriter", "git status"),
        req("ghostwriter", "grep", json!({"pattern": "x"})),
    ] {
        assert_eq!(e.evaluate(&r).verdict, Verdict::Allow);
    }
    for cmd in ["git push", "eval \"$X\"", "rm a"] {
        assert_eq!(
            e.evaluate(&bash("ghostwriter", cmd)).rule_id,
            "kord.unknown_agent",
            "{cmd}"
        );
    }
}

#[test]
fn missing_agent_has_its_own_explanation() {
    let mut e = engine("nso");
    let d = e.decide(&op_request("", "write", "src/a.ts"));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Block, "nso.unknown_agent")
    );
    assert_eq!(d.agent, None);
    let m = d.message.unwrap();
    assert!(m.contains("an unidentified agent"), "{m}");
    assert!(m.contains("session ses_test"), "{m}");
    assert!(m.contains("chat.params"), "{m}");
    let mut r = op_request("", "write", "src/a.ts");
    r.agent = Some("   ".into());
    assert_eq!(e.evaluate(&r).rule_id, "nso.unknown_agent");
    assert_eq!(
        e.evaluate(&op_request("", "read", "src/a.ts")).verdict,
        Verdict::Allow
    );
}

#[test]
fn names_aliases_and_display_names() {
    let p = Policy::preset("nso").unwrap();
    let name = |given: &str| p.resolve_agent(given).map(|i| p.agents()[i].name.clone());
    for (given, want) in [
        ("oracle", Some("oracle")),
        ("@Oracle", Some("oracle")),
        ("ORACLE", Some("oracle")),
        ("  @oracle ", Some("oracle")),
        ("Oracle (Orchestrator)", Some("oracle")),
        ("oracle (orchestrator)", Some("oracle")),
        ("Oracle (Something Else)", Some("oracle")),
        ("orchestrator", Some("oracle")),
        ("Builder (Implementer)", Some("builder")),
        ("implementer", Some("builder")),
        ("build", Some("build")),
        ("Prometheus (Plan Builder)", None),
        ("", None),
        ("@", None),
    ] {
        assert_eq!(name(given).as_deref(), want, "{given:?}");
    }
    // A project adds a display name to an existing agent.
    let e = engine_with(
        r#"{"preset": "kord", "agents": {"plan": {"displayNames": ["Prometheus (Plan Builder)"]}}}"#,
    );
    let d = e.evaluate(&op_request(
        "Prometheus (Plan Builder)",
        "write",
        "docs/kord/plans/auth/notes.md",
    ));
    assert_eq!(
        (d.verdict, d.agent.as_deref()),
        (Verdict::Allow, Some("plan"))
    );
    let d = e.evaluate(&op_request(
        "Prometheus (Plan Builder)",
        "write",
        "src/a.ts",
    ));
    assert_eq!(d.verdict, Verdict::Block);
    // Paths are case-sensitive even though names are not.
    let e = engine("kord");
    assert_eq!(
        e.evaluate(&op_request("DEVOPS", "write", ".github/ci.yml"))
            .verdict,
        Verdict::Allow
    );
    assert_eq!(
        e.evaluate(&op_request("devops", "write", ".GitHub/ci.yml"))
            .verdict,
        Verdict::Block
    );
}

#[test]
fn like_gives_an_agent_another_agents_rights() {
    let e = engine_with(
        r#"{"preset": "kord", "agents": {"frontend-dev": {"like": "dev", "displayNames": ["Frontend Dev"]}}}"#,
    );
    assert_eq!(
        e.evaluate(&op_request("Frontend Dev", "write", "src/a.ts"))
            .verdict,
        Verdict::Allow
    );
    assert_eq!(
        e.evaluate(&bash("frontend-dev", "git commit -m x")).verdict,
        Verdict::Allow
    );
    assert_eq!(
        e.evaluate(&bash("frontend-dev", "git push")).rule_id,
        "kord.git.push"
    );
    let n = engine("nso");
    assert_eq!(
        n.evaluate(&bash("build", "git commit -m x")).verdict,
        Verdict::Allow,
        "nso: build is like builder"
    );
}

#[test]
fn overrides_by_id_and_deny_beats_allow() {
    // Adding an allow does not open a hole in a block rule...
    let e = engine_with(
        r#"{"preset": "kord", "rules": [{"id": "proj.tmp.delete", "agents": ["dev"], "ops": ["delete"], "paths": ["tmp/**"], "effect": "allow"}]}"#,
    );
    assert_eq!(
        e.evaluate(&op_request("dev", "delete", "tmp/x")).rule_id,
        "kord.delete"
    );
    // ...overriding the block rule by id does.
    let e = engine_with(
        r#"{"preset": "kord", "rules": [
            {"id": "kord.delete", "agents": ["*"], "ops": ["delete"], "paths": ["**"], "except": ["tmp/**"], "effect": "block"},
            {"id": "proj.tmp.delete", "agents": ["dev"], "ops": ["delete"], "paths": ["tmp/**"], "effect": "allow"}]}"#,
    );
    let d = e.evaluate(&op_request("dev", "delete", "tmp/x"));
    assert_eq!(
        (d.verdict, d.rule_id.as_str(), d.rule_source.as_str()),
        (Verdict::Allow, "proj.tmp.delete", ".opencode/nso.json")
    );
    assert_eq!(
        e.evaluate(&op_request("dev", "delete", "src/x")).rule_id,
        "kord.delete"
    );
    assert_eq!(
        e.evaluate(&op_request("qa", "delete", "tmp/x")).rule_id,
        "kord.default.delete"
    );
    // Disabling.
    let e =
        engine_with(r#"{"preset": "kord", "rules": [{"id": "kord.delete", "disabled": true}]}"#);
    let d = e.evaluate(&op_request("dev", "delete", "src/x"));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Block, "kord.default.delete")
    );
    let rule = e
        .policy()
        .rules()
        .iter()
        .find(|r| r.id == "kord.delete")
        .unwrap();
    assert_eq!(rule.disabled_by.as_deref(), Some(".opencode/nso.json"));
    // Widening an exclusive rule by replacing it.
    let e = engine_with(
        r#"{"preset": "kord", "rules": [{"id": "kord.git.push", "agents": ["devops", "dev"], "git": ["push"], "effect": "allow", "exclusive": true}]}"#,
    );
    assert_eq!(e.evaluate(&bash("dev", "git push")).verdict, Verdict::Allow);
    let d = e.evaluate(&bash("qa", "git push"));
    assert_eq!(
        (d.rule_id.as_str(), d.rule_source.as_str()),
        ("kord.git.push", ".opencode/nso.json")
    );
}

#[test]
fn defaults_and_agent_defaults() {
    let e = engine_with(
        r#"{"preset": "kord", "defaults": {"opaque": "allow"}, "agents": {"qa": {"defaults": {"write": "allow"}}}}"#,
    );
    let d = e.evaluate(&bash("explore", "eval \"$X\""));
    assert_eq!(
        d.verdict,
        Verdict::Soft,
        "allowed by default, reminder from kord.shell.opaque_reminder"
    );
    assert_eq!(d.notices.len(), 1);
    let d = e.evaluate(&op_request("qa", "write", "src/a.ts"));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Allow, "kord.default.write")
    );
    assert_eq!(d.rule_source, ".opencode/nso.json");
    assert_eq!(
        e.evaluate(&op_request("qa", "create", "src/a.ts")).verdict,
        Verdict::Block
    );
    // Outside the project, a permissive default does not apply.
    assert_eq!(
        e.evaluate(&op_request("qa", "write", "/etc/hosts")).rule_id,
        "kord.outside_project"
    );
}

#[test]
fn soft_and_warn_rules() {
    let e = engine_with(
        r#"{"preset": "kord", "rules": [
            {"id": "proj.lockfile.soft", "agents": ["*"], "ops": ["write"], "paths": ["**/package-lock.json"], "effect": "soft", "reason": "lock files change through npm install, not by hand"},
            {"id": "proj.env.warn", "agents": ["*"], "ops": ["write", "create"], "paths": ["**/.env.example"], "effect": "warn"}]}"#,
    );
    let d = e.evaluate(&op_request("dev", "write", "package-lock.json"));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Soft, "kord.src.write")
    );
    assert_eq!(d.operations[0].verdict, Verdict::Soft);
    assert_eq!(d.notices, vec!["NSO reminder (proj.lockfile.soft, .opencode/nso.json): lock files change through npm install, not by hand.".to_string()]);
    let d = e.evaluate(&op_request("dev", "create", "app/.env.example"));
    assert_eq!(d.verdict, Verdict::Warn);
    assert!(
        d.log[0].starts_with("NSO warn proj.env.warn"),
        "{:?}",
        d.log
    );
    // soft never grants: a read-only agent stays blocked.
    assert_eq!(
        e.evaluate(&op_request("qa", "write", "package-lock.json"))
            .verdict,
        Verdict::Block
    );
}

fn errors(cfg: &str) -> Vec<(String, String)> {
    match Policy::from_config_json(cfg, ".opencode/nso.json") {
        Ok(_) => panic!("expected errors for {cfg}"),
        Err(e) => {
            e.0.into_iter()
                .map(|e| (e.code.to_string(), e.path))
                .collect()
        }
    }
}

#[test]
fn config_errors_carry_json_paths_and_hints() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"{"rules": [{"id": "a", "agents": ["dev", "devv"], "ops": ["write"], "paths": ["x"], "effect": "allow"}]}"#,
            codes::UNKNOWN_AGENT,
            "rules[0].agents[1]",
        ),
        (
            r#"{"rules": [{"id": "a", "agents": ["*"], "ops": ["write"], "paths": ["ok/**", "bad/[x"], "effect": "allow"}]}"#,
            codes::INVALID_GLOB,
            "rules[0].paths[1]",
        ),
        (
            r#"{"rules": [{"id": "a", "agents": ["*"], "ops": ["write"], "paths": ["x"]}]}"#,
            codes::INCOMPLETE_RULE,
            "rules[0]",
        ),
        (
            r#"{"rules": [{"id": "a", "agents": ["*"], "ops": ["write"], "effect": "allow"}]}"#,
            codes::INCOMPLETE_RULE,
            "rules[0]",
        ),
        (
            r#"{"rules": [{"id": "a", "agents": ["*"], "git": ["push", "psuh"], "effect": "allow"}]}"#,
            codes::INVALID_VALUE,
            "rules[0].git[1]",
        ),
        (
            r#"{"rules": [{"id": "a", "agents": ["*"], "git": ["push"], "paths": ["x"], "effect": "allow"}]}"#,
            codes::INVALID_RULE,
            "rules[0].paths",
        ),
        (
            r#"{"rules": [{"id": "a", "agents": ["*"], "git": ["push"], "effect": "block", "exclusive": true}]}"#,
            codes::INVALID_RULE,
            "rules[0].exclusive",
        ),
        (
            r#"{"rules": [{"id": "bad id", "agents": ["*"], "git": ["push"], "effect": "block"}]}"#,
            codes::INVALID_ID,
            "rules[0].id",
        ),
        (
            r#"{"rules": [{"id": "a", "agents": ["*"], "git": ["push"], "effect": "block"}, {"id": "a", "agents": ["*"], "git": ["merge"], "effect": "block"}]}"#,
            codes::DUPLICATE_ID,
            "rules[1]",
        ),
        (
            r#"{"rules": [{"id": "nso.nope", "disabled": true}]}"#,
            codes::INVALID_RULE,
            "rules[0]",
        ),
        (
            r#"{"rules": [{"id": "a", "agents": ["*"], "ops": ["write"], "paths": ["x"], "effect": "allow", "pathz": []}]}"#,
            codes::UNKNOWN_FIELD,
            "rules[0].pathz",
        ),
        (r#"{"preset": "kordd"}"#, codes::UNKNOWN_PRESET, "preset"),
        (
            r#"{"outsideProject": {"allow": ["tmp/**"]}}"#,
            codes::INVALID_GLOB,
            "outsideProject.allow[0]",
        ),
        (
            r#"{"agents": {"a": {"like": "b"}, "b": {"like": "a"}}}"#,
            codes::AGENT_CYCLE,
            "agents.a.like",
        ),
        (
            r#"{"agents": {"x": {"aliases": ["Oracle"]}}}"#,
            codes::DUPLICATE_AGENT_NAME,
            "agents.x.aliases[0]",
        ),
        (
            r#"{"agents": {"x": {"like": "nobody"}}}"#,
            codes::UNKNOWN_AGENT,
            "agents.x.like",
        ),
        (
            r#"{"appendOnly": [{"id": "a"}]}"#,
            codes::INCOMPLETE_RULE,
            "appendOnly[0]",
        ),
        (
            r#"{"sacred": [{"id": "s", "paths": ["p/*.md"], "authors": ["ghost"]}]}"#,
            codes::UNKNOWN_AGENT,
            "sacred[0].authors[0]",
        ),
        (
            r#"{"defaults": {"write": "deny"}}"#,
            codes::INVALID_VALUE,
            "defaults.write",
        ),
        (
            r#"{"tools": {"t": {"class": "read", "args": []}}}"#,
            codes::UNKNOWN_FIELD,
            "tools.t.args",
        ),
        (r#"{"rules": "nope"}"#, codes::INVALID_TYPE, "rules"),
        (r#"{"rules": [1}"#, codes::JSON_SYNTAX, "$"),
    ];
    for (cfg, code, path) in cases {
        let errs = errors(cfg);
        assert!(
            errs.iter().any(|(c, p)| c == code && p == path),
            "{cfg}\nwanted {code} at {path}, got {errs:?}"
        );
    }
    let e = Policy::from_config_json(r#"{"rules": [{"id": "a", "agents": ["devop"], "git": ["push"], "effect": "allow"}], "preset": "kord"}"#, "x.json").unwrap_err();
    let first = e.first().unwrap();
    assert!(
        first.hint.contains("did you mean `devops`"),
        "{}",
        first.hint
    );
    assert!(
        e.to_string()
            .starts_with("x.json: rules[0].agents[0]: no agent is called `devop`"),
        "{e}"
    );
}

#[test]
fn every_preset_validates_and_compiles() {
    for name in PRESETS {
        let text = preset_json(name).unwrap();
        let p = Policy::preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.name, *name);
        // Every rule id carries the preset's prefix.
        assert!(p
            .rules()
            .iter()
            .all(|r| r.id.starts_with(&format!("{name}."))));
        // The preset is also a valid project config shape when based on `none`.
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["preset"] = json!("none");
        Policy::from_config_value(&v, name, "").unwrap_or_else(|e| panic!("{name}: {e}"));
        // Native agents always have explicit entries.
        for native in ["build", "plan", "general", "explore"] {
            assert!(p.resolve_agent(native).is_some(), "{name} lacks {native}");
        }
    }
    assert_eq!(Policy::preset("kord").unwrap().agent_count(), 21);
}

#[test]
fn readme_example_config_compiles() {
    let example = include_str!("example_config.json");
    let p =
        Policy::from_config_json(example, ".opencode/nso.json").unwrap_or_else(|e| panic!("{e}"));
    let e = nso::authority::Engine::new(p);
    assert_eq!(
        e.evaluate(&bash("release-bot", "git push origin v1"))
            .verdict,
        Verdict::Allow
    );
    assert_eq!(
        e.evaluate(&op_request("Frontend Dev", "write", "web/src/App.tsx"))
            .verdict,
        Verdict::Allow
    );
}
