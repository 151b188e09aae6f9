//! The files a call would change, for the Conductor's claims (`Engine::write_targets`).

mod common;

use common::*;
use serde_json::json;

fn targets(tool: &str, args: serde_json::Value) -> Vec<(String, bool)> {
    engine("nso").write_targets(&req("builder", tool, args))
}

#[test]
fn write_class_tools_name_their_files() {
    assert_eq!(
        targets("write", json!({"filePath": "src/a.ts", "content": "x"})),
        vec![("src/a.ts".to_string(), false)]
    );
    assert_eq!(
        targets(
            "edit",
            json!({"filePath": "./src/../src/b.ts", "oldString": "a", "newString": "b"})
        ),
        vec![("src/b.ts".to_string(), false)]
    );
    let patch = "*** Begin Patch\n*** Add File: n.rs\n+x\n*** Update File: u.rs\n*** Move to: m.rs\n@@\n-a\n+b\n*** End Patch";
    let mut t = targets("apply_patch", json!({ "patchText": patch }));
    t.sort();
    assert_eq!(
        t,
        vec![
            ("m.rs".into(), false),
            ("n.rs".into(), false),
            ("u.rs".into(), false)
        ]
    );
    // Reads and git change no file; paths outside the project are not the project's claims.
    assert!(targets("read", json!({"filePath": "src/a.ts"})).is_empty());
    assert!(targets("bash", json!({"command": "git status && cat src/a.ts"})).is_empty());
    assert!(targets("write", json!({"filePath": "/tmp/x", "content": ""})).is_empty());
}

#[test]
fn shell_writes_follow_cd_and_widen_to_folders() {
    assert_eq!(
        targets(
            "bash",
            json!({"command": "cd src && sed -i s/a/b/ x.ts && echo hi > ../out.txt"})
        ),
        vec![
            ("src/x.ts".to_string(), false),
            ("out.txt".to_string(), false)
        ]
    );
    // A path known only up to its folder, and a deleted folder, cover everything below.
    assert_eq!(
        targets("bash", json!({"command": "rm -rf build/$X"})),
        vec![("build".to_string(), true)]
    );
    assert_eq!(
        targets("bash", json!({"command": "rm -rf dist"})),
        vec![("dist".to_string(), true)]
    );
}
