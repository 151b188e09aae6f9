//! Append-only areas and sacred plan files.

mod common;

use common::*;
use nso::authority::Verdict;
use serde_json::json;

const NOTE: &str = "docs/kord/notepads/auth/learnings.md";
const PLAN: &str = "docs/kord/plans/auth.md";
const OLD_NOTE: &str = "# Learnings\n- token refresh needs a lock\n";
const OLD_PLAN: &str =
    "# Plan: auth\n\n## Tasks\n- [ ] 1. login form\n- [ ] 2. token refresh\n  - [ ] 2.1 lock\n";

#[test]
fn append_only_notepads() {
    let e = engine("kord");
    let ok_edit = edit(
        "dev",
        NOTE,
        "needs a lock\n",
        "needs a lock\n- second learning\n",
    );
    assert_eq!(e.required_content(&ok_edit), vec![abs(NOTE)]);
    let d = e.evaluate(&with_content(ok_edit.clone(), NOTE, Some(OLD_NOTE)));
    assert_eq!(d.verdict, Verdict::Allow, "{:?}", d.message);

    let rewrite = edit("dev", NOTE, "needs a lock", "needs no lock");
    let d = e.evaluate(&with_content(rewrite, NOTE, Some(OLD_NOTE)));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Block, "kord.notepads.append_only")
    );
    let m = d.message.unwrap();
    assert!(m.contains("line 2 differs"), "{m}");
    assert!(m.contains("append-only"), "{m}");

    // No content sent: fail closed.
    let d = e.evaluate(&ok_edit);
    assert_eq!(d.verdict, Verdict::Block);
    assert!(d.message.unwrap().contains("did not receive"));

    // write tool: keeps the prefix / rewrites.
    let w = req(
        "dev",
        "write",
        json!({"filePath": NOTE, "content": format!("{OLD_NOTE}- more\n")}),
    );
    assert_eq!(
        e.evaluate(&with_content(w, NOTE, Some(OLD_NOTE))).verdict,
        Verdict::Allow
    );
    let w = req(
        "dev",
        "write",
        json!({"filePath": NOTE, "content": "# Learnings\n"}),
    );
    assert_eq!(
        e.evaluate(&with_content(w, NOTE, Some(OLD_NOTE))).verdict,
        Verdict::Block
    );
    // New notepad file: old content is empty.
    let w = req(
        "dev",
        "write",
        json!({"filePath": "docs/kord/notepads/auth/issues.md", "content": "x"}),
    );
    assert_eq!(
        e.evaluate(&with_content(w, "docs/kord/notepads/auth/issues.md", None))
            .verdict,
        Verdict::Allow
    );

    // apply_patch.
    let append = format!("*** Begin Patch\n*** Update File: {NOTE}\n@@\n - token refresh needs a lock\n+- more\n*** End Patch");
    let r = with_content(
        req("dev", "apply_patch", json!({"patchText": append})),
        NOTE,
        Some(OLD_NOTE),
    );
    assert_eq!(e.evaluate(&r).verdict, Verdict::Allow);
    let change = format!(
        "*** Begin Patch\n*** Update File: {NOTE}\n@@\n-# Learnings\n+# Notes\n*** End Patch"
    );
    let r = with_content(
        req("dev", "apply_patch", json!({"patchText": change})),
        NOTE,
        Some(OLD_NOTE),
    );
    assert_eq!(e.evaluate(&r).verdict, Verdict::Block);
    let unplaceable = format!(
        "*** Begin Patch\n*** Update File: {NOTE}\n@@\n-nothing like this\n+x\n*** End Patch"
    );
    let r = with_content(
        req("dev", "apply_patch", json!({"patchText": unplaceable})),
        NOTE,
        Some(OLD_NOTE),
    );
    assert_eq!(e.evaluate(&r).verdict, Verdict::Block);
    let malformed = format!("*** Update File: {NOTE}\n+x\n");
    let r = with_content(
        req("dev", "apply_patch", json!({"patchText": malformed})),
        NOTE,
        Some(OLD_NOTE),
    );
    assert_eq!(e.evaluate(&r).verdict, Verdict::Block);

    // Shell: appends pass, overwrites fail; content is not needed.
    assert_eq!(
        e.evaluate(&bash("dev", &format!("echo '- more' >> {NOTE}")))
            .verdict,
        Verdict::Allow
    );
    assert_eq!(
        e.evaluate(&bash("dev", &format!("echo x | tee -a {NOTE}")))
            .verdict,
        Verdict::Allow
    );
    let d = e.evaluate(&bash("dev", &format!("echo x > {NOTE}")));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Block, "kord.notepads.append_only")
    );

    // Unknown tools writing a protected file: fail closed.
    let r = with_content(
        req("dev", "mcp_fs_write", json!({"path": NOTE, "text": "x"})),
        NOTE,
        Some(OLD_NOTE),
    );
    assert_eq!(e.evaluate(&r).verdict, Verdict::Block);

    // Run logs too, for @build.
    let run = "docs/kord/runs/auth/wave-1.md";
    let r = with_content(
        edit("build", run, "wave 1\n", "wave 1\nitem 3 done\n"),
        run,
        Some("wave 1\n"),
    );
    assert_eq!(e.evaluate(&r).verdict, Verdict::Allow);
    let r = with_content(
        edit("build", run, "wave 1", "wave one"),
        run,
        Some("wave 1\n"),
    );
    assert_eq!(e.evaluate(&r).verdict, Verdict::Block);
}

#[test]
fn append_only_blocks_deletes_and_moves() {
    let cfg = r#"{"preset": "none", "name": "p", "agents": {"w": {}},
        "rules": [{"id": "p.all", "agents": ["w"], "ops": ["write", "create", "delete"], "paths": ["**"], "effect": "allow"}],
        "appendOnly": [{"id": "p.log", "paths": ["log/**"], "description": "the audit log"}]}"#;
    let e = engine_with(cfg);
    let d = e.evaluate(&bash("w", "rm log/a.md"));
    assert_eq!((d.verdict, d.rule_id.as_str()), (Verdict::Block, "p.log"));
    assert!(d.message.unwrap().contains("the audit log"));
    // Moving a file onto a log: the new content comes from the source.
    let patch = "*** Begin Patch\n*** Update File: tmp/a.md\n*** Move to: log/a.md\n@@\n x\n+y\n*** End Patch";
    let r = req("w", "apply_patch", json!({"patchText": patch}));
    let needs = e.required_content(&r);
    assert_eq!(needs, vec![abs("log/a.md"), abs("tmp/a.md")]);
    let mut r2 = r.clone();
    r2.contents.insert(abs("log/a.md"), None);
    r2.contents.insert(abs("tmp/a.md"), Some("x\n".into()));
    assert_eq!(e.evaluate(&r2).verdict, Verdict::Allow);
    let mut r3 = r.clone();
    r3.contents
        .insert(abs("log/a.md"), Some("old entries\n".into()));
    r3.contents.insert(abs("tmp/a.md"), Some("x\n".into()));
    assert_eq!(e.evaluate(&r3).verdict, Verdict::Block);
}

#[test]
fn plan_files_are_sacred() {
    let e = engine("kord");
    let tick = edit("build", PLAN, "- [ ] 1. login form", "- [x] 1. login form");
    assert_eq!(e.required_content(&tick), vec![abs(PLAN)]);
    let d = e.evaluate(&with_content(tick.clone(), PLAN, Some(OLD_PLAN)));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Allow, "kord.plans.sacred")
    );

    // Ticking two at once with multiedit, and with write.
    let r = req(
        "build",
        "multiedit",
        json!({"filePath": PLAN, "edits": [
            {"oldString": "- [ ] 1.", "newString": "- [x] 1."},
            {"oldString": "  - [ ] 2.1", "newString": "  - [X] 2.1"}]}),
    );
    assert_eq!(
        e.evaluate(&with_content(r, PLAN, Some(OLD_PLAN))).verdict,
        Verdict::Allow
    );
    let ticked = OLD_PLAN.replace("- [ ] 2. token", "- [x] 2. token");
    let r = req(
        "build",
        "write",
        json!({"filePath": PLAN, "content": ticked}),
    );
    assert_eq!(
        e.evaluate(&with_content(r, PLAN, Some(OLD_PLAN))).verdict,
        Verdict::Allow
    );
    let r = req(
        "build",
        "apply_patch",
        json!({"patchText": format!("*** Begin Patch\n*** Update File: {PLAN}\n@@\n-- [ ] 1. login form\n+- [x] 1. login form\n*** End Patch")}),
    );
    assert_eq!(
        e.evaluate(&with_content(r, PLAN, Some(OLD_PLAN))).verdict,
        Verdict::Allow
    );

    // Anything more than a tick.
    for (old, new) in [
        ("- [ ] 1. login form", "- [x] 1. login form (done early)"),
        ("## Tasks", "## Tasks (revised)"),
        ("- [ ] 2. token refresh\n", ""),
    ] {
        let d = e.evaluate(&with_content(
            edit("build", PLAN, old, new),
            PLAN,
            Some(OLD_PLAN),
        ));
        assert_eq!(
            (d.verdict, d.rule_id.as_str()),
            (Verdict::Block, "kord.plans.sacred"),
            "{new}"
        );
        assert!(
            d.message.as_deref().unwrap().contains("changes more than"),
            "{:?}",
            d.message
        );
    }
    // Unticking.
    let ticked = OLD_PLAN.replace("- [ ] 1.", "- [x] 1.");
    let d = e.evaluate(&with_content(
        edit("build", PLAN, "- [x] 1.", "- [ ] 1."),
        PLAN,
        Some(&ticked),
    ));
    assert_eq!(d.verdict, Verdict::Block);
    // Without content: fail closed.
    assert_eq!(e.evaluate(&tick).verdict, Verdict::Block);
    // Ticker may not create or delete plan files.
    let r = req(
        "build",
        "write",
        json!({"filePath": "docs/kord/plans/new.md", "content": "- [ ] x"}),
    );
    assert_eq!(
        e.evaluate(&with_content(r, "docs/kord/plans/new.md", None))
            .verdict,
        Verdict::Block
    );
    // Bash writes by the ticker cannot be verified.
    assert_eq!(
        e.evaluate(&bash("build", &format!("sed -i s/a/b/ {PLAN} > {PLAN}")))
            .verdict,
        Verdict::Block
    );

    // The author edits freely.
    let r = edit("plan", PLAN, "## Tasks", "## Tasks (revised)");
    assert!(
        e.required_content(&r).is_empty(),
        "authors need no content check"
    );
    assert_eq!(e.evaluate(&r).verdict, Verdict::Allow);
    // Everyone else is blocked, even an agent whose area includes plans/ (@pm).
    for agent in ["pm", "dev", "kord", "qa", "sm"] {
        let d = e.evaluate(&with_content(
            edit(agent, PLAN, "- [ ] 1.", "- [x] 1."),
            PLAN,
            Some(OLD_PLAN),
        ));
        assert_eq!(
            (d.verdict, d.rule_id.as_str()),
            (Verdict::Block, "kord.plans.sacred"),
            "{agent}"
        );
    }
    // Nested plan.md and non-plan files in plans/.
    let d = e.evaluate(&edit("pm", "docs/kord/plans/auth/plan.md", "a", "b"));
    assert_eq!(d.rule_id, "kord.plans.sacred");
    assert_eq!(
        e.evaluate(&edit("pm", "docs/kord/plans/auth/prd.md", "a", "b"))
            .verdict,
        Verdict::Allow
    );
}

#[test]
fn sacred_messages_name_author_and_ticker() {
    let mut e = engine("kord");
    let d = e.decide(&with_content(
        edit("dev", PLAN, "- [ ] 1.", "- [x] 1."),
        PLAN,
        Some(OLD_PLAN),
    ));
    let m = d.message.unwrap();
    assert!(
        m.contains("plan files are sacred: only @plan changes them"),
        "{m}"
    );
    assert!(m.contains("@build may only tick checkboxes"), "{m}");
    assert!(
        m.contains("Who may: @plan, @build (checkbox ticks only)"),
        "{m}"
    );
}

/// Texts the shim leaves out for their size (`{"nsoOversized": bytes}`, `oversized` files):
/// content checks fail closed and say so; decisions that need no content are unchanged.
#[test]
fn oversized_texts_fail_closed_only_where_content_matters() {
    let e = engine("kord");
    let big = json!({"nsoOversized": 5_000_000});
    // A write to an append-only file whose new text was left out: refused, naming the size.
    let w = req("dev", "write", json!({"filePath": NOTE, "content": big}));
    let d = e.evaluate(&with_content(w, NOTE, Some(OLD_NOTE)));
    assert_eq!(d.verdict, Verdict::Block);
    let m = d.message.unwrap();
    assert!(
        m.contains("5000000 bytes") && m.contains("limits.contentBytes"),
        "{m}"
    );
    // The same for an edit's strings.
    let ed = req(
        "dev",
        "edit",
        json!({"filePath": NOTE, "oldString": "lock\n", "newString": big}),
    );
    let d = e.evaluate(&with_content(ed, NOTE, Some(OLD_NOTE)));
    assert_eq!(d.verdict, Verdict::Block);
    // An ordinary source file: the content is never needed, the write is allowed as before.
    let src = req(
        "dev",
        "write",
        json!({"filePath": "src/big.ts", "content": big}),
    );
    assert_eq!(e.evaluate(&src).verdict, Verdict::Allow);
    // The append-only file's own content left out for its size: refused, naming the size
    // and the way out (an append with >>).
    let ok_edit = edit("dev", NOTE, "needs a lock\n", "needs a lock\n- more\n");
    let mut r = ok_edit.clone();
    r.oversized.insert(abs(NOTE), 9_000_000);
    assert!(e.lookups(&r).content.is_empty(), "no second ask for it");
    let d = e.evaluate(&r);
    assert_eq!(d.verdict, Verdict::Block);
    let m = d.message.unwrap();
    assert!(m.contains("9000000 bytes") && m.contains(">>"), "{m}");
    // A patch left out: NSO cannot see its paths, so it is opaque (refused to @plan).
    let p = req("plan", "apply_patch", json!({"patchText": big}));
    let d = e.evaluate(&p);
    assert_eq!(d.verdict, Verdict::Block);
    let m = d.message.unwrap();
    assert!(m.contains("too large to analyse"), "{m}");
}
