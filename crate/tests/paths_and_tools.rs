//! Path normalisation, symlinks, outside-the-project, bash directories, tool classification.

mod common;

use common::*;
use nso::authority::Verdict;
use serde_json::json;

fn write_req(agent: &str, path: &str) -> nso::authority::Request {
    req(agent, "write", json!({ "filePath": path, "content": "x" }))
}

#[test]
fn lexical_normalisation() {
    let e = engine("kord");
    let cases: &[(&str, &str, Verdict, &str)] = &[
        (
            "src/../src/a.ts",
            "src/a.ts",
            Verdict::Allow,
            "kord.src.write",
        ),
        ("./src//a.ts/", "src/a.ts", Verdict::Allow, "kord.src.write"),
        (
            "src/../docs/kord/plans/x.md",
            "docs/kord/plans/x.md",
            Verdict::Block,
            "kord.plans.sacred",
        ),
        (
            "/work/proj/src/a.ts",
            "src/a.ts",
            Verdict::Allow,
            "kord.src.write",
        ),
        (
            "/work/proj//src/./a.ts",
            "src/a.ts",
            Verdict::Allow,
            "kord.src.write",
        ),
        (
            "../other/a.ts",
            "/work/other/a.ts",
            Verdict::Block,
            "kord.outside_project",
        ),
        (
            "../../../../etc/passwd",
            "/etc/passwd",
            Verdict::Block,
            "kord.outside_project",
        ),
        (
            "/work/project2/a.ts",
            "/work/project2/a.ts",
            Verdict::Block,
            "kord.outside_project",
        ),
        (
            "~/.bashrc",
            "~/.bashrc",
            Verdict::Block,
            "kord.outside_project",
        ),
        (
            "/tmp/scratch/x.txt",
            "/tmp/scratch/x.txt",
            Verdict::Block,
            "kord.outside_project",
        ),
        (
            "/dev/null",
            "/dev/null",
            Verdict::Allow,
            "kord.outside_project.allow",
        ),
        (
            "/tmp/../etc/x",
            "/etc/x",
            Verdict::Block,
            "kord.outside_project",
        ),
        ("", ".", Verdict::Block, "kord.invalid_path"),
    ];
    for (input, target, verdict, rule) in cases {
        let d = e.evaluate(&write_req("dev", input));
        assert_eq!(d.verdict, *verdict, "{input}");
        assert_eq!(d.rule_id, *rule, "{input}");
        if !input.is_empty() {
            assert_eq!(d.operations[0].target, *target, "{input}");
        }
    }
}

#[test]
fn base_directory_in_a_subfolder() {
    let e = engine("kord");
    let mut r = write_req("dev", "src/a.ts");
    r.directory = "/work/proj/packages/web".into();
    let d = e.evaluate(&r);
    assert_eq!(d.operations[0].target, "packages/web/src/a.ts");
    assert_eq!(d.verdict, Verdict::Allow);
    let mut r = write_req("plan", "../../docs/kord/plans/auth/draft.md");
    r.directory = "/work/proj/packages/web".into();
    let d = e.evaluate(&r);
    assert_eq!(d.operations[0].target, "docs/kord/plans/auth/draft.md");
    assert_eq!(d.verdict, Verdict::Allow);
    // Reads outside are fine.
    let r = req("qa", "read", json!({"filePath": "/etc/hosts"}));
    assert_eq!(e.evaluate(&r).verdict, Verdict::Allow);
}

#[test]
fn symlinks_are_decided_on_their_real_target() {
    let e = engine("kord");
    // Inside → outside.
    let mut r = write_req("dev", "src/out");
    r.resolved
        .insert("src/out".into(), "/etc/cron.d/job".into());
    let d = e.evaluate(&r);
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Block, "kord.outside_project")
    );
    assert_eq!(d.operations[0].target, "/etc/cron.d/job");
    assert_eq!(d.operations[0].via_symlink.as_deref(), Some("src/out"));
    // A link in the planner's folder pointing into src/: the planner may not write through it.
    let mut r = write_req("plan", "docs/kord/plans/auth/link.md");
    r.resolved.insert(
        "/work/proj/docs/kord/plans/auth/link.md".into(),
        "/work/proj/src/app.ts".into(),
    );
    let d = e.evaluate(&r);
    assert_eq!(
        (d.verdict, d.operations[0].target.as_str()),
        (Verdict::Block, "src/app.ts")
    );
    // Without the map the same write is allowed: the map matters.
    assert_eq!(
        e.evaluate(&write_req("plan", "docs/kord/plans/auth/link.md"))
            .verdict,
        Verdict::Allow
    );
    // A link pointing into an allowed folder is fine.
    let mut r = write_req("dev", "vendor/lib");
    r.resolved
        .insert("vendor/lib".into(), "/work/proj/src/lib.ts".into());
    assert_eq!(e.evaluate(&r).verdict, Verdict::Allow);
    // Outside → inside (worktree reached through a link elsewhere).
    let mut r = write_req("dev", "/home/me/proj-link/src/a.ts");
    r.resolved.insert(
        "/home/me/proj-link/src/a.ts".into(),
        "/work/proj/src/a.ts".into(),
    );
    assert_eq!(e.evaluate(&r).verdict, Verdict::Allow);
}

#[test]
fn deletes_through_symlinks_check_link_and_target() {
    let e = engine_with(r#"{"preset": "nso"}"#);
    let mut r = bash("builder", "rm src/link");
    r.resolved.insert(
        "/work/proj/src/link".into(),
        "/work/proj/.opencode/nso.json".into(),
    );
    assert_eq!(e.evaluate(&r).verdict, Verdict::Block);
    let mut r = bash("builder", "rm .opencode/context/alias");
    r.resolved.insert(
        ".opencode/context/alias".into(),
        "/work/proj/src/x.ts".into(),
    );
    assert_eq!(
        e.evaluate(&r).verdict,
        Verdict::Block,
        "the link itself is in a protected folder"
    );
}

#[test]
fn folder_deletes_cover_what_they_hold() {
    let e = engine("nso");
    assert_eq!(
        e.evaluate(&bash("builder", "rm -rf src")).verdict,
        Verdict::Allow
    );
    for cmd in [
        "rm -rf .",
        "rm -rf .opencode",
        "rm -rf /work/proj",
        "rm -rf .git",
    ] {
        assert_eq!(
            e.evaluate(&bash("builder", cmd)).verdict,
            Verdict::Block,
            "{cmd}"
        );
    }
}

#[test]
fn bash_workdir_and_cd() {
    let e = engine("kord");
    let mut r = bash("build", "echo done >> log.md");
    r.args["workdir"] = json!("docs/kord/runs/auth");
    let d = e.evaluate(&r);
    assert_eq!(d.operations[0].target, "docs/kord/runs/auth/log.md");
    assert_eq!(d.verdict, Verdict::Allow);
    let d = e.evaluate(&bash("build", "cd docs/kord/runs && echo x >> auth/log.md"));
    assert_eq!(
        (d.verdict, d.operations[0].target.as_str()),
        (Verdict::Allow, "docs/kord/runs/auth/log.md")
    );
    let d = e.evaluate(&bash("dev", "cd docs/kord/runs && echo x >> auth/log.md"));
    assert_eq!(d.verdict, Verdict::Block);
    // cd into an unknown directory: relative writes become opaque.
    let d = e.evaluate(&bash("qa", "cd $DIR && echo x > a.txt"));
    assert_eq!((d.verdict, d.operations[0].op), (Verdict::Block, "opaque"));
    let d = e.evaluate(&bash("dev", "cd $DIR && echo x > a.txt"));
    assert_eq!(d.verdict, Verdict::Soft);
    // Absolute paths after an unknown cd are still known.
    let d = e.evaluate(&bash("qa", "cd $DIR && echo x > /dev/null"));
    assert_eq!(d.verdict, Verdict::Allow);
}

#[test]
fn shell_writes_for_read_only_agents() {
    let e = engine("kord");
    for cmd in [
        "echo x > src/a.ts",
        "touch src/new.ts",
        "tee src/a.ts",
        "cp a.ts src/b.ts",
        "mv src/a.ts src/b.ts",
        "rm src/a.ts",
    ] {
        let d = e.evaluate(&bash("plan", cmd));
        assert_eq!(d.verdict, Verdict::Block, "{cmd}");
    }
    assert_eq!(
        e.evaluate(&bash("plan", "ls > /dev/null")).verdict,
        Verdict::Allow
    );
    assert_eq!(
        e.evaluate(&bash("plan", "echo x > /tmp/notes.txt")).verdict,
        Verdict::Block
    );
    assert_eq!(
        e.evaluate(&bash("plan", "eval \"$CMD\"")).verdict,
        Verdict::Block
    );
    assert_eq!(
        e.evaluate(&bash("plan", "python3 -c 'print(1)'")).verdict,
        Verdict::Block
    );
    assert_eq!(
        e.evaluate(&bash("plan", "$EDITOR src/a.ts")).verdict,
        Verdict::Block
    );
}

#[test]
fn case_sensitivity_option() {
    let strict = engine("kord");
    let d = strict.evaluate(&write_req("devops", ".GITHUB/workflows/ci.yml"));
    assert_eq!(d.verdict, Verdict::Block);
    let loose = engine_with(r#"{"preset": "kord", "caseInsensitive": true}"#);
    assert_eq!(
        loose
            .evaluate(&write_req("devops", ".GITHUB/workflows/ci.yml"))
            .verdict,
        Verdict::Allow
    );
    let mut r = write_req("dev", "/WORK/PROJ/src/a.ts");
    r.worktree = "/work/proj".into();
    assert_eq!(loose.evaluate(&r).verdict, Verdict::Allow);
    assert_eq!(strict.evaluate(&r).verdict, Verdict::Block);
}

#[test]
fn every_write_capable_tool() {
    let e = engine("kord");
    let cases = [
        (
            "edit",
            json!({"filePath": "src/a.ts", "oldString": "a", "newString": "b"}),
        ),
        ("write", json!({"filePath": "src/a.ts", "content": "b"})),
        (
            "multiedit",
            json!({"filePath": "src/a.ts", "edits": [{"oldString": "a", "newString": "b"}]}),
        ),
        (
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch"}),
        ),
        (
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Add File: src/n.ts\n+b\n*** End Patch"}),
        ),
        (
            "apply_patch",
            json!({"patchText": "garbage\n*** Update File: src/a.ts\n"}),
        ),
        (
            "patch",
            json!({"patchText": "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-a\n+b\n"}),
        ),
        (
            "patch",
            json!({"diff": "*** Begin Patch\n*** Delete File: src/a.ts\n*** End Patch"}),
        ),
        (
            "mcp_fs_write_file",
            json!({"path": "src/a.ts", "content": "b"}),
        ),
        (
            "custom_tool",
            json!({"options": {"targetFile": "src/a.ts"}}),
        ),
    ];
    for (tool, args) in cases {
        let d = e.evaluate(&req("plan", tool, args.clone()));
        assert_eq!(d.verdict, Verdict::Block, "{tool} {args}");
        assert!(!d.unclassified);
    }
    // Moves: create of the target and delete of the source.
    let d = e.evaluate(&req(
        "dev",
        "apply_patch",
        json!({"patchText": "*** Begin Patch\n*** Update File: src/a.ts\n*** Move to: src/b.ts\n@@\n-a\n+b\n*** End Patch"}),
    ));
    let ops: Vec<_> = d
        .operations
        .iter()
        .map(|o| (o.op, o.target.as_str()))
        .collect();
    assert_eq!(ops, vec![("create", "src/b.ts"), ("delete", "src/a.ts")]);
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Block, "kord.delete")
    );
}

#[test]
fn read_tools_and_unclassified() {
    let e = engine("kord");
    for (tool, args) in [
        ("read", json!({"filePath": "src/a.ts"})),
        ("glob", json!({"pattern": "**/*.ts", "path": "src"})),
        ("grep", json!({"pattern": "git push", "path": "."})),
        ("list", json!({"path": "docs"})),
        ("webfetch", json!({"url": "https://example.com"})),
        ("todowrite", json!({"todos": [{"content": "x"}]})),
        (
            "task",
            json!({"description": "d", "prompt": "p", "subagent_type": "general"}),
        ),
    ] {
        let d = e.evaluate(&req("explore", tool, args));
        assert_eq!(d.verdict, Verdict::Allow, "{tool}");
        assert!(!d.unclassified, "{tool}");
    }
    let d = e.evaluate(&req("explore", "mcp_weather_get", json!({"city": "Paris"})));
    assert_eq!(d.verdict, Verdict::Allow);
    assert!(d.unclassified);
    assert_eq!(d.rule_id, "kord.unclassified");
    assert!(d.log.iter().any(|l| l.contains("not classified")));
}

#[test]
fn read_rules_can_deny() {
    let e = engine_with(
        r#"{"preset": "kord", "rules": [{"id": "proj.secrets", "agents": ["*"], "ops": ["read"], "paths": ["**/.env", "secrets/**"], "effect": "block", "reason": "secrets are not read by agents"}]}"#,
    );
    let d = e.evaluate(&req("dev", "read", json!({"filePath": "app/.env"})));
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Block, "proj.secrets")
    );
    let d = e.evaluate(&req(
        "dev",
        "grep",
        json!({"pattern": "x", "path": "secrets/keys"}),
    ));
    assert_eq!(d.verdict, Verdict::Block);
}

#[test]
fn write_tool_existence() {
    // An agent that may create but not change files (migrations are append-by-new-file).
    let cfg = r#"{"preset": "none", "name": "p",
        "agents": {"mig": {}},
        "rules": [{"id": "p.mig.create", "agents": ["mig"], "ops": ["create"], "paths": ["migrations/**"], "effect": "allow"}]}"#;
    let e = engine_with(cfg);
    let r = write_req("mig", "migrations/002.sql");
    assert_eq!(
        e.required_exists(&r),
        vec!["/work/proj/migrations/002.sql".to_string()]
    );
    assert_eq!(
        e.evaluate(&r).verdict,
        Verdict::Block,
        "unknown existence needs both rights"
    );
    let mut r2 = r.clone();
    r2.exists
        .insert("/work/proj/migrations/002.sql".into(), false);
    assert_eq!(e.evaluate(&r2).verdict, Verdict::Allow);
    let mut r3 = r.clone();
    r3.exists
        .insert("/work/proj/migrations/002.sql".into(), true);
    let d = e.evaluate(&r3);
    assert_eq!((d.verdict, d.operations[0].op), (Verdict::Block, "write"));
    // Kord: write and create rights coincide, so existence is never needed.
    let k = engine("kord");
    assert!(k.required_exists(&write_req("dev", "src/a.ts")).is_empty());
}

#[test]
fn dynamic_shell_paths_count_for_everything_below_their_prefix() {
    let k = engine("kord");
    let d = k.evaluate(&bash("dev", "echo x > src/$NAME.ts"));
    assert_eq!(
        (d.verdict, d.operations[0].target.as_str()),
        (Verdict::Allow, "a path under src only known at run time")
    );
    // The project root holds docs/kord/, which @dev may not write: fail closed.
    let d = k.evaluate(&bash("dev", "echo x > $OUT"));
    assert_eq!(d.verdict, Verdict::Block);
    assert!(d
        .message
        .unwrap()
        .contains("writes a path under . only known at run time"));
    assert_eq!(
        k.evaluate(&bash("qa", "echo x > /tmp/$F")).verdict,
        Verdict::Block
    );
    assert_eq!(
        k.evaluate(&bash("dev", "echo x >> docs/kord/notepads/$F"))
            .verdict,
        Verdict::Allow
    );
    assert_eq!(
        k.evaluate(&bash("dev", "echo x > docs/kord/notepads/$F"))
            .verdict,
        Verdict::Block
    );
    let n = engine("nso");
    assert_eq!(
        n.evaluate(&bash("builder", "rm src/*.tmp")).verdict,
        Verdict::Allow
    );
    assert_eq!(
        n.evaluate(&bash("builder", "rm *.tmp")).verdict,
        Verdict::Block
    );
    assert_eq!(
        n.evaluate(&bash("builder", "rm .opencode/context/$X"))
            .verdict,
        Verdict::Block
    );
}

#[test]
fn absolute_globs_never_open_the_project_itself() {
    // With /tmp/** allowed outside, a worktree under /tmp must not become writable.
    let e = engine_with(r#"{"preset": "kord", "outsideProject": {"allow": ["/tmp/**"]}}"#);
    let mut r = write_req("qa", "src/a.ts");
    r.worktree = "/tmp/proj".into();
    r.directory = "/tmp/proj".into();
    let d = e.evaluate(&r);
    assert_eq!(
        (d.verdict, d.rule_id.as_str()),
        (Verdict::Block, "kord.default.write")
    );
    let mut r = write_req("qa", "/tmp/proj/src/a.ts");
    r.worktree = "/tmp/proj".into();
    assert_eq!(e.evaluate(&r).verdict, Verdict::Block);
    let mut r = write_req("qa", "/tmp/other/a.ts");
    r.worktree = "/tmp/proj".into();
    assert_eq!(e.evaluate(&r).verdict, Verdict::Allow);
}
