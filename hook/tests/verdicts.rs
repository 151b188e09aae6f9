//! The native hook's verdicts, messages and logs, each set beside the Node adapter's for the
//! same call (the wasm build of the same core, run as Claude Code runs it) and beside what
//! the policy says by hand: the rule, and the words that matter in the message.

mod common;

use common::{native, node, unstamped, Project};
use serde_json::json;

const KORD: &str = r#"{"authority":{"preset":"kord"},"conductor":{"mode":"off"},"claudeCode":{"mainAgent":"dev"}}"#;

fn kord() -> Project {
    Project::new(&[
        (".opencode/nso.json", KORD),
        ("src/a.ts", "export const a = 1;\n"),
    ])
}

/// The native and the Node answer to `input`, in two copies of the same project (so the
/// logs of one do not mix with the other's).
fn both(
    files: &[(&str, &str)],
    input: impl Fn(&Project) -> String,
) -> (Project, common::Answer, Project, common::Answer) {
    let a = Project::new(files);
    let b = Project::new(files);
    let native_answer = native(&a, &input(&a));
    let node_answer = node(&b, &input(&b));
    (a, native_answer, b, node_answer)
}

#[test]
fn an_allowed_call_answers_nothing_and_logs_nothing() {
    let p = kord();
    let answer = native(
        &p,
        &p.pre_tool_use("Bash", json!({"command": "ls -la src"}), None),
    );
    assert_eq!((answer.code, answer.stdout.as_str()), (0, ""), "{answer:?}");
    assert_eq!(p.read(".opencode/logs/nso.log"), "");
    let written = native(
        &p,
        &p.pre_tool_use(
            "Edit",
            json!({"file_path": p.path("src/a.ts"), "old_string": "1", "new_string": "2"}),
            None,
        ),
    );
    assert_eq!(
        (written.code, written.stdout.as_str()),
        (0, ""),
        "{written:?}"
    );
}

#[test]
fn a_refusal_carries_the_cores_message_and_log_line() {
    let files = [(".opencode/nso.json", KORD)];
    let input =
        |p: &Project| p.pre_tool_use("Bash", json!({"command": "git push origin main"}), None);
    let (a, mine, b, theirs) = both(&files, input);
    let reason = mine.denied().expect("refused");
    assert!(
        reason.starts_with("NSO blocked bash for @dev: "),
        "{reason}"
    );
    assert!(reason.contains("Rule kord.git.push "), "{reason}");
    assert_eq!(Some(reason), theirs.denied(), "the Node adapter's message");
    assert_eq!(mine.code, 0);
    let log = unstamped(&a.read(".opencode/logs/nso.log"));
    assert_eq!(log, vec!["block bash @dev kord.git.push".to_string()]);
    assert_eq!(log, unstamped(&b.read(".opencode/logs/nso.log")));
}

#[test]
fn an_unknown_subagent_type_is_refused_as_an_unknown_agent() {
    let files = [(".opencode/nso.json", KORD), ("src/a.ts", "1\n")];
    let input = |p: &Project| {
        p.pre_tool_use(
            "Edit",
            json!({"file_path": p.path("src/a.ts"), "old_string": "1", "new_string": "2"}),
            Some("reviewer-bot"),
        )
    };
    let (_a, mine, _b, theirs) = both(&files, input);
    let reason = mine.denied().expect("refused");
    assert!(reason.contains("Rule kord.unknown_agent "), "{reason}");
    assert!(
        reason.starts_with("NSO blocked edit for unknown agent \"reviewer-bot\": "),
        "{reason}"
    );
    assert_eq!(Some(reason), theirs.denied());
}

#[test]
fn a_subagent_type_is_mapped_through_claude_code_agents() {
    let config = r#"{"authority":{"preset":"kord"},"conductor":{"mode":"off"},"claudeCode":{"agents":{"Explore":"qa"}}}"#;
    let p = Project::new(&[(".opencode/nso.json", config), ("src/a.ts", "1\n")]);
    let input = p.pre_tool_use(
        "Write",
        json!({"file_path": p.path("src/c.ts"), "content": "x"}),
        Some("Explore"),
    );
    let reason = native(&p, &input).denied().expect("refused");
    assert!(
        reason.starts_with("NSO blocked write for @qa: "),
        "{reason}"
    );
}

#[test]
fn without_main_agent_the_main_agent_is_unidentified() {
    let config = r#"{"authority":{"preset":"kord"},"conductor":{"mode":"off"}}"#;
    let (_a, mine, _b, theirs) = both(&[(".opencode/nso.json", config)], |p| {
        p.pre_tool_use(
            "Write",
            json!({"file_path": p.path("src/b.ts"), "content": "x"}),
            None,
        )
    });
    let reason = mine.denied().expect("refused");
    assert!(
        reason.starts_with("NSO blocked write for an unidentified agent: "),
        "{reason}"
    );
    assert!(reason.contains("Rule kord.unknown_agent "), "{reason}");
    assert!(
        reason.contains("claudeCode.mainAgent"),
        "names the fix: {reason}"
    );
    assert_eq!(Some(reason), theirs.denied());
}

#[test]
fn a_symlink_out_of_the_project_is_outside() {
    let outside = Project::new(&[]);
    let files = [(".opencode/nso.json", KORD)];
    let (a, b) = (Project::new(&files), Project::new(&files));
    for p in [&a, &b] {
        std::os::unix::fs::symlink(&outside.dir, p.dir.join("out")).unwrap();
    }
    let input = |p: &Project| {
        p.pre_tool_use(
            "Write",
            json!({"file_path": p.path("out/x.ts"), "content": "x"}),
            None,
        )
    };
    let reason = native(&a, &input(&a)).denied().expect("refused");
    assert!(reason.contains("Rule kord.outside_project "), "{reason}");
    assert!(
        reason.contains(outside.dir.to_str().unwrap()),
        "names where it lands: {reason}"
    );
    let theirs = node(&b, &input(&b)).denied().expect("refused by Node");
    // The two projects differ in their paths only.
    let b_path = b.dir.to_str().unwrap();
    assert_eq!(reason, theirs.replace(b_path, a.dir.to_str().unwrap()));
}

#[test]
fn a_config_error_fails_closed() {
    let broken =
        r#"{"authority":{"preset":"kord","rules":[{"id":"x"}]},"claudeCode":{"mainAgent":"dev"}}"#;
    let files = [(".opencode/nso.json", broken)];
    let input = |p: &Project| {
        p.pre_tool_use(
            "Write",
            json!({"file_path": p.path("src/b.ts"), "content": "x"}),
            None,
        )
    };
    let (a, mine, b, theirs) = both(&files, input);
    let reason = mine.denied().expect("a write is refused");
    // The adapter has no mainAgent from a config that did not load: nobody is named.
    assert!(
        reason
            .starts_with("NSO blocked write: NSO is not enforcing its rules: .opencode/nso.json: "),
        "{reason}"
    );
    assert!(
        reason.contains(
            "Until this is fixed, NSO refuses write-class tools (fail closed); reads still work. Fix: "
        ),
        "{reason}"
    );
    assert_eq!(Some(reason), theirs.denied());
    assert_eq!(
        unstamped(&a.read(".opencode/logs/nso.log")),
        unstamped(&b.read(".opencode/logs/nso.log"))
    );
    let errors = a.read(".opencode/logs/nso-errors.log");
    assert!(errors.contains(" NSO NOT ENFORCING (config_"), "{errors}");
    assert_eq!(
        unstamped(&errors),
        unstamped(&b.read(".opencode/logs/nso-errors.log"))
    );
    // Reading goes on.
    let read = native(
        &a,
        &a.pre_tool_use("Read", json!({"file_path": a.path("src/a.ts")}), None),
    );
    assert_eq!((read.code, read.stdout.as_str()), (0, ""));
}

#[test]
fn audit_mode_lets_the_call_run_and_records_it() {
    let config = r#"{"authority":{"preset":"kord","mode":"audit"},"conductor":{"mode":"off"},"claudeCode":{"mainAgent":"dev"}}"#;
    let files = [(".opencode/nso.json", config)];
    let (a, mine, b, theirs) = both(&files, |p| {
        p.pre_tool_use("Bash", json!({"command": "git push origin main"}), None)
    });
    assert_eq!((mine.code, mine.stdout.as_str()), (0, ""), "{mine:?}");
    assert_eq!(theirs.stdout, "");
    let record: serde_json::Value =
        serde_json::from_str(a.read(".opencode/logs/audit.jsonl").trim()).unwrap();
    assert_eq!(record["rule"], "kord.git.push");
    assert_eq!(record["agent"], "dev");
    assert_eq!(record["target"], "git push origin main");
    let mut reference: serde_json::Value =
        serde_json::from_str(b.read(".opencode/logs/audit.jsonl").trim()).unwrap();
    reference["t"] = record["t"].clone();
    assert_eq!(record, reference);
    assert_eq!(
        unstamped(&a.read(".opencode/logs/nso.log")),
        vec!["audit bash @dev kord.git.push".to_string()]
    );
}

#[test]
fn the_activity_feed_gets_the_adapters_record() {
    let files = [(".opencode/nso.json", KORD)];
    let (a, _, b, _) = both(&files, |p| {
        p.pre_tool_use("Bash", json!({"command": "git push origin main"}), None)
    });
    let feed = |p: &Project| {
        let dir = std::path::Path::new(&p.home()).join("activity");
        // The feed's file; the folder also holds the `.gitignore` that keeps it out of git.
        let file = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| !p.ends_with(".gitignore"))
            .unwrap();
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        lines
    };
    let (mine, theirs) = (feed(&a), feed(&b));
    assert_eq!(mine.len(), 2, "an instance line, then the call: {mine:?}");
    assert_eq!(mine[0]["kind"], "instance");
    assert_eq!(
        mine[0]["project"],
        a.dir.file_name().unwrap().to_str().unwrap()
    );
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&mine[0]), keys(&theirs[0]));
    let mut call = mine[1].clone();
    call["t"] = theirs[1]["t"].clone();
    assert_eq!(call, theirs[1]);
    assert_eq!(call["verdict"], "block");
}

#[test]
fn reminders_of_a_soft_rule_are_added_context() {
    let config = r#"{"authority":{"preset":"kord","rules":[{"id":"x.soft","agents":["*"],"ops":["read"],"paths":["src/**"],"effect":"soft","reason":"mind the style"}]},"conductor":{"mode":"off"},"claudeCode":{"mainAgent":"dev"}}"#;
    let files = [(".opencode/nso.json", config), ("src/a.ts", "1\n")];
    let (a, mine, _b, theirs) = both(&files, |p| {
        p.pre_tool_use("Read", json!({"file_path": p.path("src/a.ts")}), None)
    });
    let answer: serde_json::Value = serde_json::from_str(&mine.stdout).expect("an answer");
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "additionalContext": "[NSO reminder (x.soft, .opencode/nso.json): mind the style.]"}})
    );
    assert_eq!(mine.stdout, theirs.stdout, "byte for byte, key order too");
    let log = unstamped(&a.read(".opencode/logs/nso.log"));
    assert_eq!(log, vec!["soft read @dev kord.default.read reminder: NSO reminder (x.soft, .opencode/nso.json): mind the style.".to_string()]);
}
