//! Classifying a tool call (`tool` + JSON `args`) into operations.
//!
//! | tool | operations |
//! |------|------------|
//! | `write {filePath, content}` | create-or-write (`create` when the file is known absent, `write` when known present, both checked when unknown) |
//! | `edit {filePath, oldString, newString, replaceAll}` | write (`oldString: ""` = create-or-write) |
//! | `multiedit {filePath, edits}` | write |
//! | `apply_patch {patchText}` | Add → create, Update → write, Delete → delete, Move to → create + delete of the source |
//! | `patch {patchText \| diff}` | as `apply_patch`, or the files of a unified diff |
//! | `bash {command, workdir}` | the steps of `shell::analyze`: file effects, git/gh, opaque |
//! | read-class tools | read of `filePath` / `path` if present, else nothing |
//! | tools in the policy's `tools` map | read or write of their path arguments |
//! | other tools | write of every path-like argument (fail closed); none → allowed, `unclassified` |

use std::borrow::Cow;

use serde_json::Value;

use crate::shell::{self, Cwd, Effect, FileOp, GitOp, OpaqueReason};

use super::config::ToolClass;
use super::content::{Change, EditSpec};
use super::patch::{self, PatchAction};
use super::policy::ToolSpec;

/// Kind of operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// Read a path.
    Read,
    /// Change an existing file.
    Write,
    /// Create a file.
    Create,
    /// `write` tool: create or overwrite, depending on whether the file exists.
    CreateOrWrite,
    /// Delete a path.
    Delete,
    /// A git/gh operation.
    Git(GitOp),
    /// A shell step NSO cannot see through.
    Opaque,
}

/// What an operation is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target<'a> {
    /// A path as given (relative to the base directory, or absolute).
    Path(Cow<'a, str>),
    /// A git/gh operation; `subcommand` for messages.
    Git {
        /// Subcommand as written (`push`, `pr create`).
        subcommand: String,
    },
    /// An opaque shell step.
    Opaque {
        /// Why it is opaque (`None` for a path NSO cannot resolve).
        reason: Option<OpaqueReason>,
        /// Details for messages.
        detail: String,
    },
}

/// A bash step an operation came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepInfo {
    /// The simple command's text.
    pub snippet: String,
    /// Directory it runs in, relative to where the command starts.
    pub cwd: Cwd,
}

/// One operation of a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOp<'a> {
    /// What is done.
    pub kind: OpKind,
    /// To what.
    pub target: Target<'a>,
    /// How content changes (for content rules).
    pub change: Change<'a>,
    /// The bash step, for bash calls.
    pub step: Option<StepInfo>,
    /// The exact path is only known at run time (a shell word with `$X`, a glob, `{}` of
    /// `find -exec`): `target` is the folder of its literal prefix, and the operation counts
    /// for anything below it.
    pub dynamic: bool,
}

/// Broad class of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Only reads (or does nothing NSO governs).
    Read,
    /// Writes files.
    Write,
    /// Runs shell commands.
    Shell,
    /// Not known to NSO.
    Unknown,
}

/// The result of [`classify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification<'a> {
    /// Class of the tool.
    pub kind: ToolKind,
    /// Operations to check, in order.
    pub ops: Vec<ToolOp<'a>>,
    /// An unknown tool without path-like arguments (allowed, but reported).
    pub unclassified: bool,
}

/// Read-class tools of OpenCode (and common plugins).
pub const READ_TOOLS: &[&str] = &[
    "read",
    "glob",
    "grep",
    "list",
    "ls",
    "webfetch",
    "websearch",
    "codesearch",
    "todowrite",
    "todoread",
    "skill",
    "task",
    "question",
    "lsp",
    "invalid",
];

/// Whether `tool` only reads. Every other tool is write-class: refused while NSO cannot
/// enforce its rules, and claimed by the Conductor when it runs.
pub fn is_read_tool(tool: &str) -> bool {
    READ_TOOLS.contains(&tool)
}

pub use crate::toolbox::NSO_TOOLS;

/// Argument names treated as paths in unknown tools (compared lowercase, `_` ignored).
const PATH_KEYS: &[&str] = &[
    "filepath",
    "path",
    "paths",
    "file",
    "files",
    "filename",
    "filenames",
    "target",
    "targets",
    "destination",
    "dest",
    "source",
    "src",
    "dir",
    "directory",
    "folder",
    "output",
    "outfile",
    "outputfile",
];

fn is_path_key(key: &str) -> bool {
    let k: String = key
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    PATH_KEYS.contains(&k.as_str())
        || k.ends_with("path")
        || k.ends_with("paths")
        || k.ends_with("file")
        || k.ends_with("files")
}

fn str_arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// A text argument that may have been left out by the shim for its size: `Err(bytes)` for
/// `{"nsoOversized": bytes}`, else the text (`""` when absent).
fn text_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, u64> {
    match args.get(key) {
        Some(Value::Object(o)) => Err(o.get(OVERSIZED).and_then(Value::as_u64).unwrap_or(0)),
        v => Ok(v.and_then(Value::as_str).unwrap_or("")),
    }
}

/// The key of the marker the shim puts in place of a text argument too large to pass in.
pub const OVERSIZED: &str = "nsoOversized";

fn path_op<'a>(kind: OpKind, path: &'a str, change: Change<'a>) -> ToolOp<'a> {
    ToolOp {
        kind,
        target: Target::Path(Cow::Borrowed(path)),
        change,
        step: None,
        dynamic: false,
    }
}

/// Classifies a call with no custom tool table.
pub fn classify<'a>(tool: &str, args: &'a Value) -> Classification<'a> {
    classify_with(tool, args, None)
}

/// Looks up a custom tool's classification by lowercase name.
pub type ToolLookup<'f, 'a> = &'f dyn Fn(&str) -> Option<&'a ToolSpec>;

/// Classifies a call; `custom` looks up the policy's `tools` entries (lowercase names).
pub fn classify_with<'a>(
    tool: &str,
    args: &'a Value,
    custom: Option<ToolLookup<'_, 'a>>,
) -> Classification<'a> {
    let lower;
    let t = if tool.bytes().any(|b| b.is_ascii_uppercase()) {
        lower = tool.to_ascii_lowercase();
        lower.as_str()
    } else {
        tool
    };
    let write = |ops| Classification {
        kind: ToolKind::Write,
        ops,
        unclassified: false,
    };
    match t {
        "write" => {
            let p = str_arg(args, "filePath").unwrap_or("");
            let change = match text_arg(args, "content") {
                Ok(content) => Change::Full(content),
                Err(bytes) => Change::Oversized(bytes),
            };
            write(vec![path_op(OpKind::CreateOrWrite, p, change)])
        }
        "edit" => {
            let p = str_arg(args, "filePath").unwrap_or("");
            let (old, new) = match (text_arg(args, "oldString"), text_arg(args, "newString")) {
                (Ok(old), Ok(new)) => (old, new),
                (old, new) => {
                    let bytes = old.err().unwrap_or(0) + new.err().unwrap_or(0);
                    return write(vec![path_op(OpKind::Write, p, Change::Oversized(bytes))]);
                }
            };
            let e = EditSpec {
                old,
                new,
                all: args
                    .get("replaceAll")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            };
            let kind = if e.old.is_empty() {
                OpKind::CreateOrWrite
            } else {
                OpKind::Write
            };
            write(vec![path_op(kind, p, Change::Edits(vec![e]))])
        }
        "multiedit" => {
            let p = str_arg(args, "filePath").unwrap_or("");
            let mut edits = Vec::new();
            let mut known = true;
            for e in args
                .get("edits")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match (
                    e.get("oldString").and_then(Value::as_str),
                    e.get("newString").and_then(Value::as_str),
                ) {
                    (Some(o), Some(n)) => edits.push(EditSpec {
                        old: o,
                        new: n,
                        all: e
                            .get("replaceAll")
                            .and_then(Value::as_bool)
                            .unwrap_or(false),
                    }),
                    _ => known = false,
                }
            }
            let first_creates = edits.first().is_some_and(|e| e.old.is_empty());
            let change = if known {
                Change::Edits(edits)
            } else {
                Change::Unknown
            };
            let kind = if first_creates {
                OpKind::CreateOrWrite
            } else {
                OpKind::Write
            };
            write(vec![path_op(kind, p, change)])
        }
        "apply_patch" => match text_arg(args, "patchText") {
            Ok(text) => write(patch_ops(text)),
            // The paths are inside the patch: without it, NSO cannot see what it writes.
            Err(bytes) => write(vec![ToolOp {
                kind: OpKind::Opaque,
                target: Target::Opaque {
                    reason: Some(OpaqueReason::TooLarge),
                    detail: format!(
                        "a patch of {bytes} bytes, more than NSO reads (limits.contentBytes in .opencode/nso.json)"
                    ),
                },
                change: Change::Unknown,
                step: None,
                dynamic: false,
            }]),
        },
        "patch" => {
            let text = str_arg(args, "patchText")
                .or_else(|| str_arg(args, "diff"))
                .or_else(|| str_arg(args, "patch"))
                .unwrap_or("");
            if text.contains("*** Begin Patch")
                || text.contains("*** Update File:")
                || text.contains("*** Add File:")
                || text.contains("*** Delete File:")
            {
                write(patch_ops(text))
            } else {
                let ops = patch::unified_diff_files(text)
                    .into_iter()
                    .map(|(p, a)| {
                        let kind = match a {
                            PatchAction::Add => OpKind::Create,
                            PatchAction::Update => OpKind::Write,
                            PatchAction::Delete => OpKind::Delete,
                        };
                        path_op(kind, p, Change::Unknown)
                    })
                    .collect();
                write(ops)
            }
        }
        "bash" => Classification {
            kind: ToolKind::Shell,
            ops: bash_ops(str_arg(args, "command").unwrap_or("")),
            unclassified: false,
        },
        _ if NSO_TOOLS.contains(&t) => Classification {
            kind: ToolKind::Read,
            ops: Vec::new(),
            unclassified: false,
        },
        _ if READ_TOOLS.contains(&t) => {
            let mut ops = Vec::new();
            for key in ["filePath", "path"] {
                if let Some(p) = str_arg(args, key) {
                    if !p.is_empty() {
                        ops.push(path_op(OpKind::Read, p, Change::None));
                    }
                }
            }
            Classification {
                kind: ToolKind::Read,
                ops,
                unclassified: false,
            }
        }
        _ => {
            let spec = custom.and_then(|f| f(t));
            let (class, keys) = match spec {
                Some(s) => (Some(s.class), s.path_args.as_deref()),
                None => (None, None),
            };
            let kind = if class == Some(ToolClass::Read) {
                OpKind::Read
            } else {
                OpKind::Write
            };
            let change = if kind == OpKind::Read {
                Change::None
            } else {
                Change::Unknown
            };
            let mut ops = Vec::new();
            collect_paths(args, keys, 0, &mut |p| {
                ops.push(path_op(kind, p, change.clone()))
            });
            let unclassified = spec.is_none() && ops.is_empty();
            Classification {
                kind: match class {
                    Some(ToolClass::Read) => ToolKind::Read,
                    Some(ToolClass::Write) => ToolKind::Write,
                    None => ToolKind::Unknown,
                },
                ops,
                unclassified,
            }
        }
    }
}

fn collect_paths<'a>(
    v: &'a Value,
    keys: Option<&[String]>,
    depth: usize,
    push: &mut dyn FnMut(&'a str),
) {
    match v {
        // Arrays do not count as a nesting level; their objects are scanned at this depth.
        Value::Array(items) => {
            for item in items.iter().filter(|i| i.is_object()) {
                collect_paths(item, keys, depth, push);
            }
        }
        Value::Object(map) => {
            for (k, val) in map {
                let wanted = match keys {
                    Some(list) => list.iter().any(|x| x == k),
                    None => is_path_key(k),
                };
                if wanted {
                    match val {
                        Value::String(s) if !s.is_empty() => push(s),
                        Value::Array(items) => {
                            for s in items
                                .iter()
                                .filter_map(Value::as_str)
                                .filter(|s| !s.is_empty())
                            {
                                push(s);
                            }
                        }
                        _ => {}
                    }
                }
                if depth == 0 && (val.is_object() || val.is_array()) {
                    collect_paths(val, keys, 1, push);
                }
            }
        }
        _ => {}
    }
}

fn patch_ops(text: &str) -> Vec<ToolOp<'_>> {
    let parsed = patch::parse(text);
    let well_formed = parsed.well_formed;
    let mut ops = Vec::new();
    for f in parsed.files {
        match (f.action, f.move_to) {
            (PatchAction::Add, _) => {
                let change = if well_formed {
                    Change::Added(patch::added_content(&f))
                } else {
                    Change::Unknown
                };
                ops.push(path_op(OpKind::Create, f.path, change));
            }
            (PatchAction::Delete, _) => ops.push(path_op(OpKind::Delete, f.path, Change::None)),
            (PatchAction::Update, None) => ops.push(path_op(
                OpKind::Write,
                f.path,
                Change::Hunks {
                    from: None,
                    hunks: f.hunks,
                    well_formed,
                },
            )),
            (PatchAction::Update, Some(dest)) => {
                ops.push(path_op(
                    OpKind::Create,
                    dest,
                    Change::Hunks {
                        from: Some(f.path),
                        hunks: f.hunks,
                        well_formed,
                    },
                ));
                ops.push(path_op(OpKind::Delete, f.path, Change::None));
            }
        }
    }
    ops
}

/// The folder holding every path that starts with `prefix` (`src/fo` → `src`, `src/` → `src`,
/// `` → `.`, `/` → `/`).
fn prefix_folder(prefix: &str) -> String {
    let dir = match prefix.rfind('/') {
        Some(0) => "/",
        Some(i) => &prefix[..i],
        None => ".",
    };
    dir.to_string()
}

fn bash_ops(command: &str) -> Vec<ToolOp<'static>> {
    let analysis = shell::analyze_memo(command);
    let mut ops = Vec::with_capacity(analysis.steps.len());
    for step in &analysis.steps {
        let info = StepInfo {
            snippet: step.snippet.clone(),
            cwd: step.cwd.clone(),
        };
        let op = match &step.effect {
            Effect::File {
                op,
                path,
                dynamic,
                via,
            } => {
                let kind = match *op {
                    FileOp::Write => OpKind::Write,
                    FileOp::Create => OpKind::Create,
                    FileOp::Delete => OpKind::Delete,
                };
                let appends = via.starts_with(">>") || via == "tee -a" || via == "tee --append";
                let change = if kind == OpKind::Delete {
                    Change::None
                } else if appends {
                    Change::Append
                } else {
                    Change::Unknown
                };
                let path = if *dynamic {
                    prefix_folder(path)
                } else {
                    path.clone()
                };
                ToolOp {
                    kind,
                    target: Target::Path(Cow::Owned(path)),
                    change,
                    step: Some(info),
                    dynamic: *dynamic,
                }
            }
            Effect::Git { op, subcommand } => ToolOp {
                kind: OpKind::Git(*op),
                target: Target::Git {
                    subcommand: subcommand.clone(),
                },
                change: Change::None,
                step: Some(info),
                dynamic: false,
            },
            Effect::Opaque { reason, detail } => ToolOp {
                kind: OpKind::Opaque,
                target: Target::Opaque {
                    reason: Some(*reason),
                    detail: detail.clone(),
                },
                change: Change::Unknown,
                step: Some(info),
                dynamic: false,
            },
        };
        ops.push(op);
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kinds(c: &Classification) -> Vec<(OpKind, String)> {
        c.ops
            .iter()
            .map(|o| {
                let t = match &o.target {
                    Target::Path(p) => p.to_string(),
                    Target::Git { subcommand } => subcommand.clone(),
                    Target::Opaque { detail, .. } => detail.clone(),
                };
                (o.kind, t)
            })
            .collect()
    }

    #[test]
    fn native_tools() {
        let a = json!({"filePath": "src/a.rs", "content": "x"});
        assert_eq!(
            kinds(&classify("write", &a)),
            vec![(OpKind::CreateOrWrite, "src/a.rs".into())]
        );
        let a = json!({"filePath": "a", "oldString": "x", "newString": "y"});
        assert_eq!(
            kinds(&classify("edit", &a)),
            vec![(OpKind::Write, "a".into())]
        );
        let a = json!({"filePath": "a", "edits": [{"oldString": "x", "newString": "y"}]});
        assert_eq!(
            kinds(&classify("multiedit", &a)),
            vec![(OpKind::Write, "a".into())]
        );
        let a = json!({"patchText": "*** Begin Patch\n*** Add File: n.rs\n+x\n*** Update File: u.rs\n*** Move to: m.rs\n@@\n-a\n+b\n*** Delete File: d.rs\n*** End Patch"});
        assert_eq!(
            kinds(&classify("apply_patch", &a)),
            vec![
                (OpKind::Create, "n.rs".into()),
                (OpKind::Create, "m.rs".into()),
                (OpKind::Delete, "u.rs".into()),
                (OpKind::Delete, "d.rs".into())
            ]
        );
        let a = json!({"filePath": "README.md"});
        let c = classify("read", &a);
        assert_eq!(c.kind, ToolKind::Read);
        assert_eq!(kinds(&c), vec![(OpKind::Read, "README.md".into())]);
        let a = json!({"todos": []});
        let c = classify("todowrite", &a);
        assert!(c.ops.is_empty() && !c.unclassified);
    }

    #[test]
    fn unknown_tools() {
        let a = json!({"file_path": "x", "options": {"targets": ["y", "z"]}, "deep": {"a": {"path": "no"}}});
        let c = classify("mcp_fs_write", &a);
        let mut got: Vec<_> = kinds(&c).into_iter().map(|k| k.1).collect();
        got.sort();
        assert_eq!(got, vec!["x", "y", "z"]);
        assert!(c.ops.iter().all(|o| o.kind == OpKind::Write));
        let a = json!({"city": "Paris"});
        let c = classify("mcp_weather", &a);
        assert!(c.unclassified && c.ops.is_empty());
        let a = json!({"story_path": "docs/s.md"});
        let c = classify("story_update", &a);
        assert_eq!(kinds(&c), vec![(OpKind::Write, "docs/s.md".into())]);
        let a = json!([{"path": "a"}]);
        let c = classify("batch", &a);
        assert_eq!(kinds(&c), vec![(OpKind::Write, "a".into())]);
    }

    #[test]
    fn bash_stub_steps() {
        let a = json!({"command": "git push origin main && rm x && echo hi >> notes.md"});
        let c = classify("bash", &a);
        let k: Vec<_> = c.ops.iter().map(|o| o.kind).collect();
        assert_eq!(
            k,
            vec![OpKind::Git(GitOp::Push), OpKind::Delete, OpKind::Write]
        );
        assert_eq!(c.ops[2].change, Change::Append);
    }
}
