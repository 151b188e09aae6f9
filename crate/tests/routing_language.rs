//! Language routing: command frontmatter (seed examples copied verbatim into
//! tests/fixtures/seed_command_*.md), routing decisions and language detection.

use nso::routing::language::*;
use std::collections::BTreeMap;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn table(file: &str) -> RoutingTable {
    parse_command_routing(file, &fixture(file))
        .unwrap()
        .unwrap()
}

#[test]
fn seed_research_and_plan_commands() {
    let t = table("seed_command_research.md");
    assert_eq!(t.command, "seed_command_research");
    assert!(t.language_based);
    assert_eq!(t.default, "researcher");
    assert_eq!(t.line, 5);
    let expected: BTreeMap<String, String> = [
        ("lean", "lean-research-agent"),
        ("markdown", "researcher"),
        ("python", "researcher"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(t.languages, expected);
    let p = table("seed_command_plan.md");
    assert_eq!(p.languages["lean"], "lean-planner");
    assert_eq!(p.default, "planner");
    // The annotated pattern, with comments after every value.
    let c = table("seed_command_pattern.md");
    assert_eq!(c.languages.len(), 1);
    assert_eq!(c.languages["lean"], "lean-research-agent");
    assert_eq!(c.default, "researcher");
}

#[test]
fn command_name_comes_from_the_file_name() {
    let text = "---\nrouting:\n  default: task-executor\n---\nbody";
    let t = parse_command_routing(".opencode/command/Task.md", text)
        .unwrap()
        .unwrap();
    assert_eq!(t.command, "task");
    assert!(!t.language_based);
}

#[test]
fn routing_decisions() {
    let mut research = table("seed_command_research.md");
    research.command = "research".into();
    let direct = parse_command_routing(
        "todo.md",
        "---\nrouting:\n  language_based: false\n  lean: ignored\n  default: todo-manager\n---\n",
    )
    .unwrap()
    .unwrap();
    let tables = vec![research, direct];

    let r = route_language(&tables, "/research", "lean");
    assert_eq!(
        (r.agent.as_deref(), r.rule),
        (Some("lean-research-agent"), RouteRule::Language)
    );
    assert_eq!(
        r.reason,
        "/research: task language `lean` → routing.lean → @lean-research-agent"
    );
    let r = route_language(&tables, "research", " Lean 4 ");
    assert_eq!(
        (r.agent.as_deref(), r.rule),
        (Some("lean-research-agent"), RouteRule::Language)
    );
    let r = route_language(&tables, "RESEARCH", "rust");
    assert_eq!(
        (r.agent.as_deref(), r.rule),
        (Some("researcher"), RouteRule::Default)
    );
    assert_eq!(
        r.reason,
        "/research: task language `rust` has no entry → routing.default → @researcher"
    );
    let r = route_language(&tables, "research", "");
    assert_eq!(r.agent.as_deref(), Some("researcher"));
    let r = route_language(&tables, "/todo", "lean");
    assert_eq!(
        (r.agent.as_deref(), r.rule),
        (Some("todo-manager"), RouteRule::NotLanguageBased)
    );
    let r = route_language(&tables, "/meta", "lean");
    assert_eq!((r.agent, r.rule), (None, RouteRule::NoTable));
    assert_eq!(
        r.reason,
        "/meta has no routing table; OpenCode's own agent selection applies"
    );
}

#[test]
fn files_without_routing() {
    assert_eq!(
        parse_command_routing("a.md", "# Just a command\n").unwrap(),
        None
    );
    assert_eq!(
        parse_command_routing("a.md", "---\nname: a\ndescription: x\n---\n").unwrap(),
        None
    );
    assert_eq!(parse_command_routing("a.md", "").unwrap(), None);
    // Other keys may use YAML outside the subset.
    let t = parse_command_routing(
        "a.md",
        "---\ntools: [read, write]\ndescription: |\n  long\n  text\nrouting:\n  default: a\n---\n",
    )
    .unwrap()
    .unwrap();
    assert_eq!(t.default, "a");
}

#[test]
fn frontmatter_errors_name_file_and_line() {
    let cases: &[(&str, &str, usize, &str)] = &[
        (
            "---\nrouting:\n  language_based: yes\n  default: a\n---\n",
            "routing_table_invalid",
            3,
            "r.md line 3: `routing.language_based` must be true or false (unquoted)",
        ),
        (
            "---\nname: r\nrouting:\n  language_based: true\n  lean: x\n---\n",
            "routing_table_invalid",
            3,
            "r.md line 3: `routing` needs `default: <agent>`, the agent for languages without their own key",
        ),
        (
            "---\nrouting:\n  lean: x\n  default: y\n---\n",
            "routing_table_invalid",
            2,
            "r.md line 2: `routing` has language keys (lean) but no `language_based`; add `language_based: true`",
        ),
        (
            "---\nrouting:\n  language_based: true\n  lean: x\n  Lean: y\n  default: z\n---\n",
            "routing_table_invalid",
            5,
            "r.md line 5: language `lean` is routed twice (first on line 4)",
        ),
        (
            "---\nrouting:\n  language_based: true\n  lean: lean agent\n  default: z\n---\n",
            "routing_table_invalid",
            4,
            "r.md line 4: `routing.lean` must be an agent name (letters, digits, `_`, `-`, `.`), found `lean agent`",
        ),
        (
            "---\nrouting:\n  language_based: true\n  lean:\n    agent: x\n  default: z\n---\n",
            "routing_table_invalid",
            4,
            "r.md line 4: `routing.lean` must be an agent name (letters, digits, `_`, `-`, `.`), found a nested mapping",
        ),
        (
            "---\nrouting:\n  language_based: true\n  default:\n---\n",
            "routing_table_invalid",
            4,
            "r.md line 4: `routing.default` must be an agent name (letters, digits, `_`, `-`, `.`), found nothing",
        ),
        (
            "---\nrouting: lean-agent\n---\n",
            "routing_table_invalid",
            2,
            "r.md line 2: `routing` must be a mapping: `language_based`, language keys and `default` on indented lines",
        ),
        (
            "---\nrouting:\n  languages: [lean, python]\n  default: a\n---\n",
            "frontmatter_unsupported",
            3,
            "r.md line 3: flow collections (`[a, b]`, `{a: 1}`) are not supported; write a plain or quoted value",
        ),
        (
            "---\nrouting:\n  language_based: true\n   lean: x\n---\n",
            "frontmatter_unsupported",
            4,
            "r.md line 4: unexpected indented line after the value on line 3; multi-line values are not supported (quote the value on one line)",
        ),
        (
            "---\nrouting:\n    language_based: true\n  lean: x\n---\n",
            "frontmatter_syntax",
            4,
            "r.md line 4: unexpected indentation (top-level keys start in column 1)",
        ),
        (
            "---\nrouting:\n  lean: x\n    deeper: y\n  default: z\n---\n",
            "frontmatter_unsupported",
            4,
            "r.md line 4: unexpected indented line after the value on line 3; multi-line values are not supported (quote the value on one line)",
        ),
        (
            "---\nrouting:\n  default: \"unclosed\n---\n",
            "frontmatter_syntax",
            3,
            "r.md line 3: the double quote is not closed on this line",
        ),
        (
            "---\nrouting:\n  default: a\nrouting:\n  default: b\n---\n",
            "frontmatter_syntax",
            4,
            "r.md line 4: duplicate key `routing` (first on line 2)",
        ),
        (
            "---\nname: a\nrouting:\n  default: a\n",
            "frontmatter_unclosed",
            1,
            "r.md line 1: the frontmatter opened by `---` on line 1 is never closed; add a `---` line after the YAML",
        ),
    ];
    for (text, code, line, message) in cases {
        let e = parse_command_routing("r.md", text).unwrap_err();
        assert_eq!((e.code, e.line), (*code, *line), "{text}");
        assert_eq!(e.to_string(), *message);
    }
}

#[test]
fn quoted_and_at_prefixed_agents_crlf() {
    let t = parse_command_routing(
        "r.md",
        "---\r\nrouting:\r\n  \"language_based\": true\r\n  'python': \"@py-agent\"\r\n  default: '@general'  # fallback\r\n---\r\n",
    )
    .unwrap()
    .unwrap();
    assert_eq!(t.languages["python"], "py-agent");
    assert_eq!(t.default, "general");
    // A quoted "true" is a string, not a boolean.
    let e = parse_command_routing(
        "r.md",
        "---\nrouting:\n  language_based: \"true\"\n  default: a\n---\n",
    )
    .unwrap_err();
    assert_eq!(e.line, 3);
}

fn valid_seed_state() -> String {
    fixture("seed_state.json").replace("[...]", "[]")
}

#[test]
fn language_precedence() {
    let todo_python = fixture("seed_todo.md").replace("**Language**: lean", "**Language**: python");
    // 1. state.json wins over TODO.md.
    let d = detect_language(Some(&valid_seed_state()), Some(&todo_python), "258");
    assert_eq!(
        (d.language.as_str(), d.source),
        ("lean", LanguageSource::StateJson)
    );
    // 2. Task not in state.json: TODO.md, with the field's line.
    let d = detect_language(Some(&valid_seed_state()), Some(&todo_python), "Task: 258");
    assert_eq!(d.source, LanguageSource::StateJson);
    let other_state =
        valid_seed_state().replace("\"project_number\": 258", "\"project_number\": 259");
    let d = detect_language(Some(&other_state), Some(&todo_python), "258");
    assert_eq!(
        (d.language.as_str(), d.source, d.line),
        ("python", LanguageSource::TodoMd, Some(7))
    );
    assert_eq!(d.notes, vec!["state.json: no language for this task"]);
    // 3. Neither: general.
    let d = detect_language(Some(&other_state), Some(&todo_python), "259");
    assert_eq!(
        (d.language.as_str(), d.source),
        ("lean", LanguageSource::StateJson)
    );
    let d = detect_language(None, None, "258");
    assert_eq!(
        (d.language.as_str(), d.source),
        ("general", LanguageSource::Default)
    );
    let d = detect_language(None, Some(&todo_python), "999");
    assert_eq!(
        (d.language.as_str(), d.source),
        ("general", LanguageSource::Default)
    );
    assert_eq!(d.notes, vec!["TODO.md: no entry for this task"]);
}

#[test]
fn the_seeds_state_json_is_not_json_and_falls_back() {
    // The seed's state.json sample contains `[...]`: reported, then TODO.md is used.
    let d = detect_language(
        Some(&fixture("seed_state.json")),
        Some(&fixture("seed_todo.md")),
        "#258",
    );
    assert_eq!(
        (d.language.as_str(), d.source),
        ("lean", LanguageSource::TodoMd)
    );
    assert!(
        d.notes[0].starts_with("state.json ignored: not valid JSON (line 26 column 26)"),
        "{:?}",
        d.notes
    );
}

#[test]
fn project_state_and_task_ids() {
    let d = detect_language(Some(r#"{"language": " Python "}"#), None, "12");
    assert_eq!(
        (d.language.as_str(), d.source),
        ("python", LanguageSource::StateJson)
    );
    let state =
        r#"{"tasks": [{"task_id": "build_20260208_auth_abc123", "language": "typescript"}]}"#;
    let d = detect_language(Some(state), None, "build_20260208_auth_abc123");
    assert_eq!(d.language, "typescript");
    let state = r#"{"active_projects": [{"project_number": "007", "language": "markdown"}]}"#;
    assert_eq!(detect_language(Some(state), None, "7").language, "markdown");
}

#[test]
fn todo_entries_do_not_leak() {
    let todo = "# TODO\n\n## Active\n\n### 257. Other\n- **Language**: python\n\n### 258. No language here\n- **Priority**: High\n\n### 259. Next\n- **Language**: lean\n\n### 2580. Longer number\n- **Language**: markdown\n";
    let d = detect_language(None, Some(todo), "258");
    assert_eq!(
        (d.language.as_str(), d.source),
        ("general", LanguageSource::Default)
    );
    assert_eq!(
        d.notes,
        vec!["TODO.md: the task's entry has no Language field"]
    );
    assert_eq!(detect_language(None, Some(todo), "257").language, "python");
    let d = detect_language(None, Some(todo), "Task: 259");
    assert_eq!((d.language.as_str(), d.line), ("lean", Some(12)));
    assert_eq!(
        detect_language(None, Some(todo), "2580").language,
        "markdown"
    );
    // Paragraph fields and `Task N:` headings.
    let todo = "## Task 31: Docs\n\nLanguage: Markdown\n";
    assert_eq!(detect_language(None, Some(todo), "31").language, "markdown");
}

#[test]
fn broken_indentation_elsewhere_does_not_break_routing() {
    let text =
        "---\ncontext_loading:\n    strategy: lazy\n  required: x\nrouting:\n  default: a\n---\n";
    assert_eq!(
        parse_command_routing("r.md", text)
            .unwrap()
            .unwrap()
            .default,
        "a"
    );
}
