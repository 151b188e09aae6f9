//! Router tests. Expected scores are computed by hand from the documented formula with the
//! default config (fullScore 6, threshold 0.5) and the keyword weights listed in the comments.

use nso::routing::router::*;
use serde_json::json;

fn user(message: &str) -> RouteDecision {
    should_route(
        message,
        "user",
        "oracle",
        &RouterState::default(),
        &RoutingConfig::default(),
    )
}

fn assert_routed(d: &RouteDecision, workflow: &str, confidence: f64, raw: f64) {
    assert!(d.should_route, "{d:?}");
    assert_eq!(d.workflow.as_deref(), Some(workflow));
    assert_eq!(d.confidence, confidence);
    assert_eq!(d.safety_check, "PASSED");
    assert_eq!(d.scores[workflow].raw, raw);
}

#[test]
fn build_two_keywords() {
    // implement* 3 + feature* 2 = 5; 5/6 = 0.8333 → 0.833
    let d = user("Please implement the login feature for our app");
    assert_routed(&d, "BUILD", 0.833, 5.0);
    assert_eq!(d.handler, "build_workflow");
    assert_eq!(d.scores["BUILD"].matched, vec!["feature*", "implement*"]);
    assert_eq!(
        d.reason,
        "Matched feature*, implement* for BUILD: raw 5 / 6 → confidence 0.833 ≥ 0.5"
    );
    for other in ["DEBUG", "REVIEW", "PLAN", "RESEARCH"] {
        assert_eq!(d.scores[other].raw, 0.0, "{other}");
    }
}

#[test]
fn debug_prefix_keywords() {
    // crash* 3 (crashes) + error* 2 (error) = 5 → 0.833
    let d = user("the app crashes with an error when I log in");
    assert_routed(&d, "DEBUG", 0.833, 5.0);
    assert_eq!(d.handler, "debug_workflow");
}

#[test]
fn review_with_a_weak_debug_word() {
    // REVIEW: review* 3 + security 1 = 4 → 0.667; DEBUG: issue* 1 → 0.167 (below 0.5)
    let d = user("Can you review my pull request for security issues");
    assert_routed(&d, "REVIEW", 0.667, 4.0);
    assert_eq!(d.scores["DEBUG"].confidence, 0.167);
}

#[test]
fn plan_saturates_at_one() {
    // PLAN: plan* 3 + architect* 2 + roadmap* 3 = 8 → min(1, 1.333) = 1; BUILD: new 1 → 0.167
    let d = user("We should plan the architecture and write a roadmap for the new api");
    assert_routed(&d, "PLAN", 1.0, 8.0);
    assert_eq!(d.scores["BUILD"].confidence, 0.167);
}

#[test]
fn research() {
    // research* 3 + alternatives 2 + compare 2 = 7 → 1
    let d = user("research the alternatives to redis and compare them");
    assert_routed(&d, "RESEARCH", 1.0, 7.0);
    assert_eq!(d.handler, "research_workflow");
}

#[test]
fn equal_scores_are_ambiguous() {
    // DEBUG: fix 3 → 0.5; BUILD: build* 3 → 0.5; same raw → AMBIGUOUS
    let d = user("fix the build");
    assert!(!d.should_route);
    assert_eq!(d.workflow, None);
    assert_eq!(d.confidence, 0.0);
    assert_eq!(d.safety_check, "AMBIGUOUS");
    assert_eq!(d.handler, "clarify");
    assert_eq!(
        d.reason,
        "Ambiguous: BUILD and DEBUG tie at confidence 0.5; ask the user which they mean"
    );
}

#[test]
fn capped_confidence_ties_break_on_raw() {
    // BUILD: build* 3 + implement* 3 + feature* 2 = 8 → 1; DEBUG: fix 3 + bug* 3 + crash* 3 = 9 → 1
    let d = user("implement the feature and build it, then fix the bug and the crash");
    assert_routed(&d, "DEBUG", 1.0, 9.0);
    assert_eq!(d.scores["BUILD"].raw, 8.0);
    assert_eq!(d.scores["BUILD"].confidence, 1.0);
}

#[test]
fn below_threshold_and_no_keywords() {
    // DEBUG: issue* 1 → 0.167 < 0.5
    let d = user("there is an issue with the docs wording");
    assert_eq!(d.safety_check, "NO_MATCH");
    assert_eq!(d.handler, "direct");
    assert_eq!(
        d.reason,
        "No workflow reached its threshold: best was DEBUG at 0.167 (needs 0.5)"
    );
    let d = user("the weather is lovely today");
    assert_eq!(d.safety_check, "NO_MATCH");
    assert_eq!(d.reason, "No workflow keywords found");
}

#[test]
fn repeats_add_nothing() {
    // bug* 3 once → 0.5
    let d = user("bug bug bug bug bug");
    assert_routed(&d, "DEBUG", 0.5, 3.0);
}

#[test]
fn word_boundaries_and_case() {
    // `fix` is exact: not in "prefix" or "fixture"
    let d = user("update the prefix and the fixture files");
    assert_eq!(d.scores["DEBUG"].raw, 0.0);
    assert_eq!(d.safety_check, "NO_MATCH");
    // implement* 3 + feature* 2 + new 1 = 6 → 1
    let d = user("IMPLEMENT THE NEW FEATURE");
    assert_routed(&d, "BUILD", 1.0, 6.0);
    // punctuation separates words: "Fix," and "bug." match
    let d = user("Fix, bug. Now!");
    assert_routed(&d, "DEBUG", 1.0, 6.0);
}

#[test]
fn phrases() {
    // "not working" 3 → 0.5
    assert_routed(
        &user("the login page is not working at all"),
        "DEBUG",
        0.5,
        3.0,
    );
    // "doesn't work" = doesn t work, 3 → 0.5
    assert_routed(&user("it doesn't work on safari"), "DEBUG", 0.5, 3.0);
    // words must be consecutive: "not really working" has no "not working"
    assert_eq!(user("it is not really working").scores["DEBUG"].raw, 0.0);
}

#[test]
fn source_tagging() {
    for source in ["builder", "janitor", "system", "", "  ", "agent:user"] {
        let d = should_route(
            "implement the login feature now",
            source,
            "oracle",
            &RouterState::default(),
            &RoutingConfig::default(),
        );
        assert!(!d.should_route);
        assert_eq!(d.workflow, None);
        assert_eq!(d.confidence, 0.0);
        assert_eq!(d.handler, "pass_through");
        assert_eq!(d.safety_check, "AGENT_SOURCE");
        assert!(d.scores.is_empty());
    }
    let d = should_route(
        "x",
        "builder",
        "oracle",
        &RouterState::default(),
        &RoutingConfig::default(),
    );
    assert_eq!(
        d.reason,
        "Message from builder, not user intent: only user messages are routed"
    );
    let d = should_route(
        "",
        "",
        "oracle",
        &RouterState::default(),
        &RoutingConfig::default(),
    );
    assert!(d.reason.contains("(no source)"));
    // The source tag is case-insensitive for "user".
    let d = should_route(
        "implement the login feature now",
        " User ",
        "oracle",
        &RouterState::default(),
        &RoutingConfig::default(),
    );
    assert!(d.should_route);
}

#[test]
fn serialized_shape_uses_seed_names() {
    let d = should_route(
        "hi",
        "builder",
        "oracle",
        &RouterState::default(),
        &RoutingConfig::default(),
    );
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(
        v,
        json!({
            "should_route": false,
            "workflow": null,
            "confidence": 0.0,
            "handler": "pass_through",
            "safety_check": "AGENT_SOURCE",
            "reason": "Message from builder, not user intent: only user messages are routed",
            "scores": {}
        })
    );
}

#[test]
fn active_workflow_blocks_rerouting() {
    let state = RouterState {
        active_workflow: Some("BUILD".into()),
    };
    let d = should_route(
        "now research the alternatives and compare them",
        "user",
        "oracle",
        &state,
        &RoutingConfig::default(),
    );
    assert!(!d.should_route);
    assert_eq!(d.safety_check, "ACTIVE_WORKFLOW");
    assert_eq!(d.handler, "continue_workflow");
    assert_eq!(
        d.reason,
        "Workflow BUILD is active in this session: no re-routing until it ends"
    );
    // Scores are still given, for explanation: research* 3 + alternatives 2 + compare 2 = 7
    assert_eq!(d.scores["RESEARCH"].raw, 7.0);
    // A blank active workflow counts as none.
    let state = RouterState {
        active_workflow: Some("  ".into()),
    };
    let d = should_route(
        "research the alternatives please",
        "user",
        "oracle",
        &state,
        &RoutingConfig::default(),
    );
    assert!(d.should_route);
    // State from JSON.
    let s: RouterState = serde_json::from_value(json!({"active_workflow": "DEBUG"})).unwrap();
    assert_eq!(s.active_workflow.as_deref(), Some("DEBUG"));
    assert!(serde_json::from_value::<RouterState>(json!({"active": "x"})).is_err());
}

#[test]
fn trivial_messages() {
    for m in [
        "",
        "   ",
        "?!...",
        "hi",
        "thanks!",
        "fix bug",
        "ok thanks so much",
        "Hello, good morning!",
        "👍👍👍",
    ] {
        let d = user(m);
        assert_eq!(d.safety_check, "TRIVIAL", "{m:?}");
        assert_eq!(d.handler, "direct");
        assert!(!d.should_route);
    }
    assert_eq!(user("").reason, "Trivial message: it has no words");
    assert_eq!(
        user("fix bug").reason,
        "Trivial message: it has 2 word(s), fewer than 3"
    );
    assert_eq!(
        user("ok thanks so much").reason,
        "Trivial message: it is only greetings or acknowledgements"
    );
    // Three real words are enough: fix 3 + bug* 3 = 6 → 1
    assert_routed(&user("fix login bug"), "DEBUG", 1.0, 6.0);
}

#[test]
fn huge_input_is_bounded() {
    let mut big = "lorem ipsum dolor ".repeat(600_000); // ~10.8 MB
    big.push_str("implement the feature");
    let start = std::time::Instant::now();
    let d = user(&big);
    assert_eq!(
        d.safety_check, "NO_MATCH",
        "keywords past the scan window are not seen"
    );
    let mut front = String::from("implement the feature ");
    front.push_str(&big);
    assert_routed(&user(&front), "BUILD", 0.833, 5.0);
    assert!(start.elapsed().as_secs() < 5);
    // A scan limit in the middle of a multi-byte character is cut back, not a panic.
    let cfg = RoutingConfig {
        scan_limit_bytes: 257,
        ..RoutingConfig::default()
    };
    let d = should_route(
        &"é".repeat(10_000),
        "user",
        "oracle",
        &RouterState::default(),
        &cfg,
    );
    assert_eq!(d.safety_check, "TRIVIAL");
}

#[test]
fn routed_agents() {
    let cfg = RoutingConfig::from_json(&json!({"routedAgents": ["oracle"]})).unwrap();
    let d = should_route(
        "implement the login feature",
        "user",
        "@Oracle",
        &RouterState::default(),
        &cfg,
    );
    assert!(d.should_route);
    let d = should_route(
        "implement the login feature",
        "user",
        "builder",
        &RouterState::default(),
        &cfg,
    );
    assert_eq!(d.safety_check, "AGENT_NOT_ROUTED");
    assert_eq!(d.handler, "pass_through");
    assert_eq!(
        d.reason,
        "Messages to @builder are not routed (routedAgents: oracle)"
    );
}

#[test]
fn custom_config_scoring() {
    let cfg = RoutingConfig::from_json(&json!({
        "workflows": [
            {"name": "DOCS", "handler": "docs_workflow", "fullScore": 4, "threshold": 0.6,
             "keywords": {"readme": 2.5, "docs": 1, "document*": 1.5}}
        ]
    }))
    .unwrap();
    let run = |m: &str| should_route(m, "user", "oracle", &RouterState::default(), &cfg);
    // readme 2.5 + docs 1 = 3.5; 3.5/4 = 0.875
    let d = run("update the readme docs please");
    assert_routed(&d, "DOCS", 0.875, 3.5);
    assert_eq!(d.handler, "docs_workflow");
    // document* 1.5 → 0.375 < 0.6
    let d = run("document the api");
    assert_eq!(
        d.reason,
        "No workflow reached its threshold: best was DOCS at 0.375 (needs 0.6)"
    );
    // Only DOCS is scored: the list replaces the defaults.
    assert_eq!(d.scores.len(), 1);
    // Defaults kept for the other keys.
    assert_eq!(cfg.min_words, 3);
}

#[test]
fn one_third_rounds_to_three_decimals() {
    let cfg = RoutingConfig::from_json(&json!({
        "minWords": 0,
        "workflows": [{"name": "X", "handler": "x", "fullScore": 3, "threshold": 0.3, "keywords": {"alpha": 1}}]
    }))
    .unwrap();
    let d = should_route("alpha", "user", "o", &RouterState::default(), &cfg);
    assert_routed(&d, "X", 0.333, 1.0);
}

#[test]
fn config_errors_have_paths() {
    let cases = [
        (
            json!({"workflow": []}),
            "routing_config_unknown_key",
            "workflow",
        ),
        (json!([]), "routing_config_type", "(document)"),
        (json!({"minWords": -1}), "routing_config_type", "minWords"),
        (
            json!({"scanLimitBytes": 10}),
            "routing_config_type",
            "scanLimitBytes",
        ),
        (
            json!({"trivialWords": ["two words"]}),
            "routing_config_value",
            "trivialWords[0]",
        ),
        (
            json!({"routedAgents": ["ok", "@"]}),
            "routing_config_value",
            "routedAgents[1]",
        ),
        (
            json!({"workflows": []}),
            "routing_config_value",
            "workflows",
        ),
        (
            json!({"workflows": [{"name": "A", "handler": "a", "keywords": {"x": 1}, "extra": 1}]}),
            "routing_config_unknown_key",
            "workflows[0].extra",
        ),
        (
            json!({"workflows": [{"name": "A", "keywords": {"x": 1}}]}),
            "routing_config_value",
            "workflows[0].handler",
        ),
        (
            json!({"workflows": [{"name": "1A", "handler": "a", "keywords": {"x": 1}}]}),
            "routing_config_value",
            "workflows[0].name",
        ),
        (
            json!({"workflows": [{"name": "A", "handler": "a", "keywords": {"x": 1}}, {"name": "B", "handler": "b", "keywords": {"fix": "3"}}]}),
            "routing_config_type",
            "workflows[1].keywords.fix",
        ),
        (
            json!({"workflows": [{"name": "A", "handler": "a", "keywords": {"fi*x": 1}}]}),
            "routing_config_value",
            "workflows[0].keywords.fi*x",
        ),
        (
            json!({"workflows": [{"name": "A", "handler": "a", "keywords": {"*": 1}}]}),
            "routing_config_value",
            "workflows[0].keywords.*",
        ),
        (
            json!({"workflows": [{"name": "A", "handler": "a", "keywords": {"x": 0}}]}),
            "routing_config_type",
            "workflows[0].keywords.x",
        ),
        (
            json!({"workflows": [{"name": "A", "handler": "a", "threshold": 1.5, "keywords": {"x": 1}}]}),
            "routing_config_type",
            "workflows[0].threshold",
        ),
        (
            json!({"workflows": [{"name": "A", "handler": "a", "fullScore": 0, "keywords": {"x": 1}}]}),
            "routing_config_type",
            "workflows[0].fullScore",
        ),
        (
            json!({"workflows": [{"name": "A", "handler": "a", "keywords": {}}]}),
            "routing_config_value",
            "workflows[0].keywords",
        ),
        (
            json!({"workflows": [{"name": "A", "handler": "a", "keywords": {"x": 1}}, {"name": "a", "handler": "b", "keywords": {"y": 1}}]}),
            "routing_config_value",
            "workflows[1].name",
        ),
    ];
    for (value, code, path) in cases {
        let e = RoutingConfig::from_json(&value).unwrap_err();
        assert_eq!((e.code, e.path.as_str()), (code, path), "{value}");
    }
    let e = RoutingConfig::from_json(&json!({"workflows": [{"name": "A", "handler": "a", "keywords": {"x": 1}}, {"name": "B", "handler": "b", "keywords": {"fix": "3"}}]})).unwrap_err();
    assert_eq!(
        e.to_string(),
        "routing config: workflows[1].keywords.fix: expected a weight above 0 and at most 100, found the string \"3\". Fix: make `workflows[1].keywords.fix` a weight above 0 and at most 100."
    );
    let e = RoutingConfig::from_json_str("{\"minWords\": 3,}").unwrap_err();
    assert_eq!(e.code, "routing_config_json");
    assert_eq!(e.path, "line 1 column 16");
}

#[test]
fn default_config_round_trips_through_json_and_serde() {
    let default = RoutingConfig::default();
    let value = serde_json::to_value(&default).unwrap();
    assert_eq!(RoutingConfig::from_json(&value).unwrap(), default);
    // The serde derive (deny_unknown_fields) accepts the same JSON and rejects unknown keys.
    assert_eq!(
        serde_json::from_value::<RoutingConfig>(value).unwrap(),
        default
    );
    assert!(serde_json::from_value::<RoutingConfig>(json!({"bogus": 1})).is_err());
    assert!(serde_json::from_value::<RoutingConfig>(
        json!({"workflows": [{"name": "A", "handler": "a", "keywords": {}, "bogus": 1}]})
    )
    .is_err());
    assert_eq!(RoutingConfig::from_json(&json!({})).unwrap(), default);
    let names: Vec<&str> = default.workflows.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["BUILD", "DEBUG", "REVIEW", "PLAN", "RESEARCH"]);
}

#[test]
fn words_rule() {
    assert_eq!(
        words("Don't bug-fix ÉCOLE_2"),
        ["don", "t", "bug", "fix", "école", "2"]
    );
}
