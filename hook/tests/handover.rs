//! What the native hook does not decide itself: other events and the calls the module docs
//! list go to the Node adapter (here a fake one that records what it got), with the same
//! stdin bytes, its answer and exit code relayed; without one, it fails closed. And input
//! it cannot use at all.

mod common;

use common::{fake_fallback, run, Project, HOOK};
use serde_json::json;

const KORD: &str = r#"{"authority":{"preset":"kord"},"conductor":{"mode":"off"},"claudeCode":{"mainAgent":"dev"}}"#;

/// Runs the hook with a fake adapter; the answer and what the adapter recorded (None: it
/// did not run).
fn with_fake(p: &Project, input: &[u8], code: i32) -> (common::Answer, Option<serde_json::Value>) {
    let record = p.dir.join("fallback-record.json");
    let _ = std::fs::remove_file(&record);
    let script = fake_fallback(&p.dir, &record, "{\"from\":\"fake\"}\n", code);
    let answer = run(p, HOOK, &["claude-code", "--fallback", &script], input, &[]);
    let seen = std::fs::read_to_string(&record)
        .ok()
        .map(|t| serde_json::from_str(&t).unwrap());
    (answer, seen)
}

#[test]
fn session_start_goes_to_the_adapter_byte_for_byte() {
    let p = Project::new(&[(".opencode/nso.json", KORD)]);
    // Key order and spacing as sent: the adapter must get these exact bytes.
    let input = format!(
        "{{\"session_id\": \"ses_1\", \"transcript_path\": \"t\", \"cwd\": {:?}, \"hook_event_name\": \"SessionStart\", \"source\": \"startup\"}}",
        p.dir.to_str().unwrap()
    );
    let (answer, seen) = with_fake(&p, input.as_bytes(), 3);
    let seen = seen.expect("the adapter ran");
    assert_eq!(seen["input"], input.as_str());
    assert_eq!(seen["args"], json!(["hook", "claude-code"]));
    assert_eq!(answer.code, 3, "its exit code");
    assert_eq!(answer.stdout, "{\"from\":\"fake\"}\n", "its stdout");
    assert_eq!(answer.stderr, "fake adapter ran\n", "its stderr");
}

#[test]
fn the_fallback_may_come_from_the_environment() {
    let p = Project::new(&[(".opencode/nso.json", KORD)]);
    let record = p.dir.join("env-record.json");
    let script = fake_fallback(&p.dir, &record, "", 0);
    let input =
        br#"{"session_id":"s","cwd":"/","hook_event_name":"UserPromptSubmit","prompt":"hi"}"#;
    let answer = run(
        &p,
        HOOK,
        &["claude-code"],
        input,
        &[("NSO_HOOK_FALLBACK", &script)],
    );
    assert_eq!(answer.code, 0);
    assert!(
        record.exists(),
        "the adapter named by NSO_HOOK_FALLBACK ran"
    );
}

#[test]
fn events_the_adapter_ignores_are_ignored_without_node() {
    let p = Project::new(&[(".opencode/nso.json", KORD)]);
    let (answer, seen) = with_fake(
        &p,
        br#"{"session_id":"s","cwd":"/","hook_event_name":"Stop"}"#,
        3,
    );
    assert!(
        seen.is_none(),
        "no adapter for an event NSO does not answer"
    );
    assert_eq!((answer.code, answer.stdout.as_str()), (0, ""));
}

#[test]
fn an_allowed_write_under_the_conductor_goes_to_the_adapter() {
    let config = r#"{"authority":{"preset":"kord"},"claudeCode":{"mainAgent":"dev"}}"#;
    let p = Project::new(&[(".opencode/nso.json", config)]);
    let write = p.pre_tool_use(
        "Write",
        json!({"file_path": p.path("src/b.ts"), "content": "x"}),
        None,
    );
    let (answer, seen) = with_fake(&p, write.as_bytes(), 0);
    assert_eq!(seen.expect("handed over")["input"], write.as_str());
    assert_eq!(answer.stdout, "{\"from\":\"fake\"}\n");
    assert_eq!(p.read(".opencode/logs/nso.log"), "", "nothing logged twice");
    // A refusal needs no claim, and a command that changes nothing claims nothing.
    for (call, refused) in [
        (json!({"command": "git push origin main"}), true),
        (json!({"command": "ls"}), false),
    ] {
        let (answer, seen) = with_fake(&p, p.pre_tool_use("Bash", call, None).as_bytes(), 0);
        assert!(seen.is_none(), "decided natively");
        assert_eq!(answer.denied().is_some(), refused);
    }
}

#[test]
fn project_pre_hooks_and_delegations_go_to_the_adapter() {
    let p = Project::new(&[
        (".opencode/nso.json", KORD),
        (
            ".opencode/hooks/pre_tool_use/check.sh",
            "#!/bin/sh\nexit 0\n",
        ),
    ]);
    let read = p.pre_tool_use("Read", json!({"file_path": p.path("x")}), None);
    let (_, seen) = with_fake(&p, read.as_bytes(), 0);
    assert!(
        seen.is_none(),
        "a script that is not executable is not run by the plugin either"
    );
    use std::os::unix::fs::PermissionsExt;
    let script = p.dir.join(".opencode/hooks/pre_tool_use/check.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (_, seen) = with_fake(&p, read.as_bytes(), 0);
    assert!(seen.is_some(), "the pre hook runs in Node");

    let q = Project::new(&[(".opencode/nso.json", KORD)]);
    let task = q.pre_tool_use(
        "Agent",
        json!({"subagent_type": "qa", "prompt": "p", "description": "d"}),
        None,
    );
    let (_, seen) = with_fake(&q, task.as_bytes(), 0);
    assert!(seen.is_some(), "a delegation's chain is checked in Node");
}

#[test]
fn without_an_adapter_a_handed_write_fails_closed_and_a_read_goes_on() {
    let config = r#"{"authority":{"preset":"kord"},"claudeCode":{"mainAgent":"dev"}}"#;
    let p = Project::new(&[
        (".opencode/nso.json", config),
        (".opencode/hooks/pre_tool_use/a", ""),
    ]);
    use std::os::unix::fs::PermissionsExt;
    let hook = p.dir.join(".opencode/hooks/pre_tool_use/a");
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let write = p.pre_tool_use(
        "Write",
        json!({"file_path": p.path("src/b.ts"), "content": "x"}),
        None,
    );
    let answer = common::native(&p, &write);
    let reason = answer.denied().expect("refused");
    assert!(reason.starts_with("NSO blocked Write: NSO failed while deciding this call (the native hook hands this call to Node"), "{reason}");
    assert!(
        reason.ends_with(
            "so it refuses it (fail closed). Report this to the person running the session."
        ),
        "{reason}"
    );
    assert!(p
        .read(".opencode/logs/nso-errors.log")
        .contains("claude-code PreToolUse Write: "));
    let read = common::native(
        &p,
        &p.pre_tool_use("Read", json!({"file_path": p.path("x")}), None),
    );
    assert_eq!((read.code, read.stdout.as_str()), (0, ""));
    let other = run(
        &p,
        HOOK,
        &["claude-code"],
        br#"{"session_id":"s","cwd":"/","hook_event_name":"SessionStart"}"#,
        &[],
    );
    assert_eq!(other.code, 1);
    assert!(
        other.stderr.contains("NSO_HOOK_FALLBACK"),
        "{}",
        other.stderr
    );
}

#[test]
fn input_that_is_not_a_hook_call_is_refused_with_exit_2() {
    let p = Project::new(&[(".opencode/nso.json", KORD)]);
    for (input, why) in [
        (&b"{not json"[..], "the hook input is not JSON ("),
        (b"[1, 2]", "the hook input is not a JSON object"),
        (
            br#"{"tool_name":"Write"}"#,
            "the hook input has no hook_event_name",
        ),
    ] {
        let answer = run(&p, HOOK, &["claude-code"], input, &[]);
        assert_eq!(answer.code, 2, "{answer:?}");
        assert_eq!(
            answer.stderr.lines().count(),
            1,
            "one line: {}",
            answer.stderr
        );
        assert!(
            answer
                .stderr
                .starts_with(&format!("NSO blocked this call: {why}")),
            "{}",
            answer.stderr
        );
        assert_eq!(answer.stdout, "");
    }
    let huge = vec![b' '; (16 << 20) + 1];
    let answer = run(&p, HOOK, &["claude-code"], &huge, &[]);
    assert_eq!(answer.code, 2);
    assert!(
        answer.stderr.contains("larger than 16777216 bytes"),
        "{}",
        answer.stderr
    );
}

#[test]
fn a_panic_refuses_a_write_and_lets_a_read_through() {
    let p = Project::new(&[(".opencode/nso.json", KORD)]);
    let panic = [("NSO_HOOK_TEST_PANIC", "1")];
    let write = p.pre_tool_use(
        "Write",
        json!({"file_path": p.path("src/b.ts"), "content": "x"}),
        None,
    );
    let answer = run(&p, HOOK, &["claude-code"], write.as_bytes(), &panic);
    assert_eq!(answer.code, 0, "{answer:?}");
    let reason = answer.denied().expect("refused");
    assert!(
        reason.starts_with(
            "NSO blocked Write: NSO failed while deciding this call (the native hook panicked: "
        ),
        "{reason}"
    );
    let read = p.pre_tool_use("Read", json!({"file_path": p.path("src/b.ts")}), None);
    let answer = run(&p, HOOK, &["claude-code"], read.as_bytes(), &panic);
    assert_eq!((answer.code, answer.stdout.as_str()), (0, ""), "{answer:?}");
    assert!(
        answer.stderr.contains("panic requested by a test"),
        "{}",
        answer.stderr
    );
}

#[test]
fn inputs_javascript_reads_its_own_way_go_to_the_adapter() {
    let p = Project::new(&[(".opencode/nso.json", KORD)]);
    let read = json!({"file_path": p.path("x")});
    let odd_type = p.pre_tool_use("Read", read.clone(), Some("constructor"));
    assert!(with_fake(&p, odd_type.as_bytes(), 0).1.is_some());
    let mut odd_session: serde_json::Value =
        serde_json::from_str(&p.pre_tool_use("Read", read.clone(), None)).unwrap();
    odd_session["session_id"] = json!(42);
    assert!(with_fake(&p, odd_session.to_string().as_bytes(), 0)
        .1
        .is_some());
    let plain = p.pre_tool_use("Read", read, Some("Explore"));
    assert!(
        with_fake(&p, plain.as_bytes(), 0).1.is_none(),
        "an ordinary subagent type is decided natively"
    );
}

#[test]
fn json_only_javascript_accepts_goes_to_the_adapter() {
    let p = Project::new(&[(".opencode/nso.json", KORD)]);
    // A lone surrogate escape: JSON.parse takes it, serde_json does not.
    let input = br#"{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Write","tool_input":{"file_path":"a","content":"\ud800"}}"#;
    let (answer, seen) = with_fake(&p, input, 0);
    assert_eq!(
        seen.expect("handed over")["input"].as_str().map(str::len),
        Some(input.len())
    );
    assert_eq!(answer.code, 0);
}

#[test]
fn a_write_the_sessions_instance_holds_already_is_decided_natively() {
    // Conductor on (enforce, the default): the Node adapter claims src/a.ts for the
    // instance of this process (the test binary stands for Claude Code) and session ses_1.
    let config = r#"{"authority":{"preset":"kord"},"claudeCode":{"mainAgent":"dev"}}"#;
    let p = Project::new(&[
        (".opencode/nso.json", config),
        ("src/a.ts", "1\n"),
        ("src/b.ts", "1\n"),
    ]);
    let edit = |file: &str, subagent: Option<&str>| {
        let input = json!({"file_path": p.path(file), "old_string": "1", "new_string": "2"});
        p.pre_tool_use("Edit", input, subagent)
    };
    let first = common::node(&p, &edit("src/a.ts", None));
    assert_eq!((first.code, first.stdout.as_str()), (0, ""), "{first:?}");
    let status = std::fs::read_to_string(format!("{}/status.json", p.home())).unwrap();
    assert!(
        status.contains(&p.path("src/a.ts")),
        "claimed by Node: {status}"
    );

    let (answer, seen) = with_fake(&p, edit("src/a.ts", None).as_bytes(), 0);
    assert!(seen.is_none(), "held already: decided natively");
    assert_eq!((answer.code, answer.stdout.as_str()), (0, ""), "{answer:?}");
    let (_, seen) = with_fake(&p, edit("src/a.ts", Some("dev")).as_bytes(), 0);
    assert!(
        seen.is_none(),
        "a subagent of the session shares its instance"
    );

    let (_, seen) = with_fake(&p, edit("src/b.ts", None).as_bytes(), 0);
    assert!(seen.is_some(), "not claimed yet: Node claims it");
    let other_session = edit("src/a.ts", None).replace("\"ses_1\"", "\"ses_2\"");
    let (_, seen) = with_fake(&p, other_session.as_bytes(), 0);
    assert!(
        seen.is_some(),
        "another session's calls are not this instance's"
    );
}

#[test]
fn every_event_the_adapter_answers_goes_to_it() {
    let p = Project::new(&[(".opencode/nso.json", KORD)]);
    for event in [
        "PostToolUse",
        "SessionStart",
        "UserPromptSubmit",
        "SubagentStart",
        "SubagentStop",
        "SessionEnd",
    ] {
        let input =
            json!({"session_id": "s", "cwd": p.path(""), "hook_event_name": event}).to_string();
        let (_, seen) = with_fake(&p, input.as_bytes(), 0);
        assert!(seen.is_some(), "{event} is the adapter's");
    }
}
