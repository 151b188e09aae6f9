//! Status machines enforced by the authority engine on every tool that can change a
//! status-bearing file: write, edit, apply_patch, shell redirects, deletes, and `like` agents.

mod common;

use common::*;
use nso::authority::{Engine, Policy, Request, Verdict};
use nso::status::StatusConfig;
use serde_json::json;

const STATUS: &str = ".opencode/context/active_tasks/build_20260208_auth_abc123/status.md";
const PENDING: &str = "# Task Status: build_20260208_auth_abc123\n\n- Status: PENDING\n- Last Update: 2026-02-08T14:35:00Z\n";

fn governed(preset: &str) -> Engine {
    let mut e = Engine::new(Policy::preset(preset).expect("preset compiles"));
    nso::status::govern(&mut e, None);
    e
}

fn blocked_message(e: &Engine, r: &Request) -> String {
    let d = e.evaluate(r);
    assert_eq!(d.verdict, Verdict::Block, "expected a block: {d:?}");
    d.message.expect("a block has a message")
}

#[test]
fn an_illegal_jump_is_refused_with_the_legal_next_states() {
    let e = governed("nso");
    let r = edit("builder", STATUS, "Status: PENDING", "Status: COMPLETE");
    assert_eq!(e.required_content(&r), vec![abs(STATUS)]);
    let m = blocked_message(&e, &with_content(r, STATUS, Some(PENDING)));
    assert!(m.contains("from PENDING to COMPLETE"), "{m}");
    assert!(
        m.contains("IN_PROGRESS (by @builder, @dev or @dev-junior)"),
        "{m}"
    );
    assert!(
        m.contains("BLOCKED (by @builder, @dev or @dev-junior)"),
        "{m}"
    );
    assert!(m.contains("Rule status.nso-task"), "{m}");
    assert!(m.starts_with("NSO blocked edit for @builder"), "{m}");
}

#[test]
fn a_legal_move_passes_and_a_like_agent_inherits_the_moves() {
    let e = governed("nso");
    for agent in ["builder", "build", "general"] {
        let r = with_content(
            edit(agent, STATUS, "Status: PENDING", "Status: IN_PROGRESS"),
            STATUS,
            Some(PENDING),
        );
        let d = e.evaluate(&r);
        assert_ne!(d.verdict, Verdict::Block, "{agent}: {:?}", d.message);
    }
    // Janitor is not like builder: it may write reports, but not move the task.
    let r = with_content(
        edit("janitor", STATUS, "Status: PENDING", "Status: IN_PROGRESS"),
        STATUS,
        Some(PENDING),
    );
    let m = blocked_message(&e, &r);
    assert!(
        m.contains("which only @builder, @dev or @dev-junior may do"),
        "{m}"
    );
}

#[test]
fn without_the_current_content_the_edit_is_refused() {
    let e = governed("nso");
    let m = blocked_message(
        &e,
        &edit("builder", STATUS, "Status: PENDING", "Status: IN_PROGRESS"),
    );
    assert!(m.contains("did not receive the current content"), "{m}");
}

#[test]
fn write_and_apply_patch_are_checked_too() {
    let e = governed("nso");
    let done = PENDING.replace("PENDING", "COMPLETE");
    let w = req(
        "builder",
        "write",
        json!({"filePath": STATUS, "content": done}),
    );
    blocked_message(&e, &with_content(w.clone(), STATUS, Some(PENDING)));
    // Creating the file: it must start in PENDING.
    let m = blocked_message(&e, &with_content(w, STATUS, None));
    assert!(m.contains("PENDING"), "{m}");
    let ok = req(
        "oracle",
        "write",
        json!({"filePath": STATUS, "content": PENDING}),
    );
    assert_ne!(
        e.evaluate(&with_content(ok, STATUS, None)).verdict,
        Verdict::Block
    );

    let patch = format!(
        "*** Begin Patch\n*** Update File: {STATUS}\n@@\n-- Status: PENDING\n+- Status: COMPLETE\n*** End Patch"
    );
    let r = req("builder", "apply_patch", json!({"patchText": patch}));
    let m = blocked_message(&e, &with_content(r, STATUS, Some(PENDING)));
    assert!(m.contains("legal next states"), "{m}");
    let patch = patch.replace("COMPLETE", "IN_PROGRESS");
    let r = req("builder", "apply_patch", json!({"patchText": patch}));
    assert_ne!(
        e.evaluate(&with_content(r, STATUS, Some(PENDING))).verdict,
        Verdict::Block
    );
}

#[test]
fn shell_writes_to_status_files_fail_closed() {
    let e = governed("nso");
    for cmd in [
        format!("echo '- Status: COMPLETE' > {STATUS}"),
        format!("echo '- Status: COMPLETE' >> {STATUS}"),
        format!("sed -i s/PENDING/COMPLETE/ {STATUS}"),
    ] {
        let m = blocked_message(
            &e,
            &with_content(bash("builder", &cmd), STATUS, Some(PENDING)),
        );
        assert!(
            m.contains("cannot see what this shell command writes"),
            "{cmd}: {m}"
        );
        assert!(
            m.contains("is in PENDING. From PENDING the legal next states are IN_PROGRESS"),
            "{cmd}: {m}"
        );
    }
    // Reading is untouched.
    assert_ne!(
        e.evaluate(&bash("builder", &format!("cat {STATUS}")))
            .verdict,
        Verdict::Block
    );
}

#[test]
fn deleting_a_file_in_a_non_terminal_state_is_refused() {
    let cfg = r#"{"preset": "none", "name": "p", "agents": {"w": {}},
        "rules": [{"id": "p.all", "agents": ["w"], "ops": ["write", "create", "delete"], "paths": ["**"], "effect": "allow"}]}"#;
    let mut e = engine_with(cfg);
    let status = nso::status::parse_status_section(
        ".opencode/nso.json",
        Some(&json!({"defaults": [], "machines": {"flow": {
            "noun": "ticket",
            "states": [{"name": "OPEN", "initial": true}, {"name": "CLOSED", "terminal": true}],
            "transitions": [{"from": "OPEN", "to": "CLOSED", "agents": ["w"]}],
            "files": [{"globs": ["tickets/*.md"], "extract": {"kind": "markdownField"}}]
        }}})),
    )
    .expect("machine compiles");
    nso::status::govern(&mut e, Some(status));
    let path = "tickets/t1.md";
    let del = req("w", "bash", json!({"command": format!("rm {path}")}));
    let m = blocked_message(
        &e,
        &with_content(del.clone(), path, Some("- Status: OPEN\n")),
    );
    assert!(
        m.contains("Rule status.flow (status machine of the project config)"),
        "{m}"
    );
    assert_ne!(
        e.evaluate(&with_content(del, path, Some("- Status: CLOSED\n")))
            .verdict,
        Verdict::Block
    );
    // An ungoverned file is not checked (and needs no content).
    let other = edit("w", "notes/t1.md", "OPEN", "CLOSED");
    assert!(e.required_content(&other).is_empty());
    assert_ne!(e.evaluate(&other).verdict, Verdict::Block);
    // Governance off.
    nso::status::govern(&mut e, Some(StatusConfig::disabled()));
    let r = edit("w", path, "Status: OPEN", "Status: NOPE");
    assert!(e.required_content(&r).is_empty());
    assert_ne!(e.evaluate(&r).verdict, Verdict::Block);
}

#[test]
fn todo_md_moves_point_to_the_atomic_sync() {
    let cfg = r#"{"preset": "none", "name": "p", "agents": {"researcher": {}},
        "rules": [{"id": "p.all", "agents": ["researcher"], "ops": ["write", "create"], "paths": ["**"], "effect": "allow"}]}"#;
    let mut e = engine_with(cfg);
    nso::status::govern(&mut e, None);
    let todo = include_str!("fixtures/status/TODO.md");
    let path = ".opencode/specs/TODO.md";
    let r = with_content(
        edit(
            "researcher",
            path,
            "- **Status**: [RESEARCHED]",
            "- **Status**: [COMPLETED]",
        ),
        path,
        Some(todo),
    );
    let m = blocked_message(&e, &r);
    assert!(
        m.contains("task 258 from [RESEARCHED] to [COMPLETED]"),
        "{m}"
    );
    assert!(m.contains("nso status set"), "{m}");
    // The explanation traces the status check.
    let x = e.explain(&r);
    assert!(x.contains("status machine proofchecker governs"), "{x}");
}

#[test]
fn the_default_binding_globs_are_the_shipped_machines_globs() {
    let mut from_defs: Vec<String> = StatusConfig::default()
        .machines
        .iter()
        .flat_map(|m| m.def.files.iter().flat_map(|b| b.globs.clone()))
        .collect();
    let mut listed: Vec<String> = nso::status::DEFAULT_BINDING_GLOBS
        .iter()
        .map(|s| s.to_string())
        .collect();
    from_defs.sort();
    listed.sort();
    assert_eq!(listed, from_defs);
}

#[test]
fn under_kord_the_dev_agents_execute_and_kord_retries() {
    let e = governed("kord");
    let start = with_content(
        edit("dev", STATUS, "Status: PENDING", "Status: IN_PROGRESS"),
        STATUS,
        Some(PENDING),
    );
    assert_ne!(e.evaluate(&start).verdict, Verdict::Block);
    let failed = PENDING.replace("PENDING", "FAILED");
    let retry = |agent| {
        with_content(
            edit(agent, STATUS, "Status: FAILED", "Status: PENDING"),
            STATUS,
            Some(&failed),
        )
    };
    let m = blocked_message(&e, &retry("dev"));
    assert!(
        m.contains("(retry), which only @oracle, @build or @kord may do"),
        "{m}"
    );
    assert_ne!(e.evaluate(&retry("kord")).verdict, Verdict::Block);
}

#[test]
fn a_refused_move_names_the_moves_this_agent_may_make_and_the_tool() {
    let e = governed("nso");
    // builder may start or block a pending task; its jump to COMPLETE is refused.
    let r = edit("builder", STATUS, "Status: PENDING", "Status: COMPLETE");
    let m = blocked_message(&e, &with_content(r, STATUS, Some(PENDING)));
    assert!(
        m.contains("You (@builder) may move it to IN_PROGRESS or BLOCKED."),
        "{m}"
    );
    assert!(
        m.contains("with the edit tool, change only the status"),
        "{m}"
    );
    // build acts like builder: its moves are builder's.
    let r = edit("build", STATUS, "Status: PENDING", "Status: COMPLETE");
    let m = blocked_message(&e, &with_content(r, STATUS, Some(PENDING)));
    assert!(
        m.contains("You (@build) may move it to IN_PROGRESS or BLOCKED."),
        "{m}"
    );
    // The delegator may not start the task: none of the moves from PENDING are its own.
    let r = edit("oracle", STATUS, "Status: PENDING", "Status: IN_PROGRESS");
    let d = e.evaluate(&with_content(r, STATUS, Some(PENDING)));
    if d.verdict == Verdict::Block {
        let m = d.message.expect("a block has a message");
        if m.contains("legal next state") {
            assert!(m.contains("You (@oracle) may make none of them."), "{m}");
        }
    }
}
