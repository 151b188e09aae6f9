//! What the hook's tests share: temporary projects, the built binary run as Claude Code runs
//! it (a process per call, the hook JSON on stdin), and the Node adapter run the same way as
//! the independent reference (`node bin/nso.js hook claude-code`: the wasm build of the core).

#![allow(dead_code)] // each test file uses part of it

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// The binary under test.
pub const HOOK: &str = env!("CARGO_BIN_EXE_nso-hook");

/// The Node CLI (`bin/nso.js`), the fallback and the reference.
pub fn cli() -> String {
    format!("{}/../bin/nso.js", env!("CARGO_MANIFEST_DIR"))
}

/// A temporary project (a git repository) with `files`; its real path. `conductor` is its
/// own claim store, so tests never touch the machine's.
pub struct Project {
    pub dir: PathBuf,
}

static NEXT: AtomicU32 = AtomicU32::new(0);

impl Project {
    pub fn new(files: &[(&str, &str)]) -> Project {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let base = std::env::temp_dir().join(format!("nso-hook-test-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join(".git")).unwrap();
        std::fs::write(base.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let dir = std::fs::canonicalize(&base).unwrap();
        let project = Project { dir };
        for (rel, text) in files {
            project.write(rel, text);
        }
        project
    }

    pub fn write(&self, rel: &str, text: &str) {
        let file = self.dir.join(rel);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }

    pub fn path(&self, rel: &str) -> String {
        self.dir.join(rel).to_str().unwrap().to_string()
    }

    /// A project file's text, or "" when it does not exist.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.join(rel)).unwrap_or_default()
    }

    /// The Conductor home the hooks of this project use.
    pub fn home(&self) -> String {
        format!("{}-home", self.dir.to_str().unwrap())
    }

    /// A PreToolUse input as Claude Code 2.1.330 sends it (main agent unless `subagent`).
    pub fn pre_tool_use(
        &self,
        tool: &str,
        input: serde_json::Value,
        subagent: Option<&str>,
    ) -> String {
        let mut hook = serde_json::json!({
            "session_id": "ses_1", "transcript_path": self.path("t.jsonl"),
            "cwd": self.dir.to_str().unwrap(), "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
            "tool_use_id": "toolu_01",
        });
        if let Some(kind) = subagent {
            hook["agent_id"] = "agent-7".into();
            hook["agent_type"] = kind.into();
        }
        hook.to_string()
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = std::fs::remove_dir_all(self.home());
    }
}

/// What a hook process gave back.
#[derive(Debug)]
pub struct Answer {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Answer {
    /// The deny reason, or None when the call is let through.
    pub fn denied(&self) -> Option<String> {
        if self.stdout.trim().is_empty() {
            return None;
        }
        let v: serde_json::Value = serde_json::from_str(&self.stdout).expect("JSON answer");
        let out = &v["hookSpecificOutput"];
        assert_eq!(out["hookEventName"], "PreToolUse");
        out["permissionDecision"]
            .as_str()
            .filter(|d| *d == "deny")?;
        Some(
            out["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .to_string(),
        )
    }
}

/// Runs `program args` in the project as Claude Code would, `input` on stdin, with extra
/// environment `env` (CLAUDE_PROJECT_DIR and the project's Conductor home are set).
pub fn run(
    project: &Project,
    program: &str,
    args: &[&str],
    input: &[u8],
    env: &[(&str, &str)],
) -> Answer {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(&project.dir)
        .env("CLAUDE_PROJECT_DIR", &project.dir)
        .env("CONDUCTOR_HOME", project.home())
        .env_remove("NSO_HOOK_FALLBACK")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    Answer {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The native hook without a fallback.
pub fn native(project: &Project, input: &str) -> Answer {
    run(project, HOOK, &["claude-code"], input.as_bytes(), &[])
}

/// The Node adapter (the reference).
pub fn node(project: &Project, input: &str) -> Answer {
    let cli = cli();
    run(
        project,
        "node",
        &[&cli, "hook", "claude-code"],
        input.as_bytes(),
        &[],
    )
}

/// Log text with the leading ISO stamps removed, so two runs can be compared.
pub fn unstamped(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| match l.split_once(' ') {
            Some((t, rest)) if t.len() == 24 && t.ends_with('Z') => rest.to_string(),
            _ => l.to_string(),
        })
        .collect()
}

/// A fake Node adapter: records its arguments and stdin in `record`, answers `stdout`, exits
/// with `code`.
pub fn fake_fallback(dir: &Path, record: &Path, stdout: &str, code: i32) -> String {
    let script = dir.join("fake-nso.js");
    let text = format!(
        "const fs = require('node:fs');\n\
         const input = fs.readFileSync(0);\n\
         fs.writeFileSync({record:?}, JSON.stringify({{args: process.argv.slice(2), input: input.toString('utf8')}}));\n\
         process.stdout.write({stdout:?});\n\
         process.stderr.write('fake adapter ran\\n');\n\
         process.exit({code});\n",
        record = record.to_str().unwrap(),
    );
    std::fs::write(&script, text).unwrap();
    // CommonJS regardless of the nearest package.json.
    let cjs = dir.join("fake-nso.cjs");
    std::fs::rename(&script, &cjs).unwrap();
    cjs.to_str().unwrap().to_string()
}
