//! Claude Code's tools as NSO's engine knows them: a Claude Code call (`tool_name` and
//! `tool_input` of a PreToolUse hook, or `name` and `input` of a transcript's `tool_use`
//! block) becomes the OpenCode-shaped call the engine already classifies.
//!
//! | Claude Code | NSO |
//! |---|---|
//! | `Bash {command}` | `bash {command}` (its folder is the hook's or record's `cwd`) |
//! | `Edit {file_path, old_string, new_string, replace_all}` | `edit {filePath, oldString, newString, replaceAll}` |
//! | `MultiEdit {file_path, edits}` | `multiedit {filePath, edits}`: one call, the engine computes all edits |
//! | `Write {file_path, content}` | `write {filePath, content}` |
//! | `NotebookEdit {notebook_path}` | `write {filePath}`: the new notebook is not computed, so content checks see an empty text (append-only, sacred and status-governed notebooks are refused: fail closed) |
//! | `Read`, `Glob`, `Grep`, `LS` | `read`, `glob`, `grep`, `list` (`file_path` → `filePath`; Grep's `glob` → `include`) |
//! | `Task`, `Agent {subagent_type, prompt}` | `task {subagent_type, prompt, description}` (`general-purpose` when no type is given, as in Claude Code) |
//! | `WebFetch`, `WebSearch`, `TodoWrite`, `Skill`, ... | their read-class counterparts |
//! | anything else (`mcp__server__tool`, ...) | the same name and input: an unknown tool, a write of every path-like argument (fail closed), else allowed as unclassified |

use serde_json::{Map, Value};

/// Claude Code's read-class tools and the engine's name for each.
const READ_LIKE: [(&str, &str); 11] = [
    ("Read", "read"),
    ("Glob", "glob"),
    ("Grep", "grep"),
    ("LS", "list"),
    ("WebFetch", "webfetch"),
    ("WebSearch", "websearch"),
    ("TodoWrite", "todowrite"),
    ("TodoRead", "todoread"),
    ("Skill", "skill"),
    ("AskUserQuestion", "question"),
    ("LSP", "lsp"),
];

/// A call in the engine's form.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolCall {
    /// The engine's tool name (`bash`, `write`, `edit`, ...; unknown tools keep their name).
    pub tool: String,
    /// The engine's arguments (absent Claude Code arguments stay absent).
    pub args: Value,
}

/// The engine's form of a Claude Code call `name` with `input`. Never fails: a missing or
/// malformed input gives empty arguments.
pub fn tool_call(name: &str, input: &Value) -> ToolCall {
    let empty = Map::new();
    let a = input.as_object().unwrap_or(&empty);
    let mut args = Map::new();
    let tool = match name {
        "Bash" => {
            let command = text(a, "command").unwrap_or_default();
            args.insert("command".into(), Value::String(command));
            copy_text(a, "description", &mut args, "description");
            "bash"
        }
        "Edit" => {
            copy_text(a, "file_path", &mut args, "filePath");
            edit_fields(a, &mut args);
            "edit"
        }
        "MultiEdit" => {
            let file_path = text(a, "file_path");
            let edits = a.get("edits").and_then(Value::as_array);
            let edits = edits.into_iter().flatten().map(|e| {
                let mut one = Map::new();
                if let Some(p) = &file_path {
                    one.insert("filePath".into(), Value::String(p.clone()));
                }
                if let Some(e) = e.as_object() {
                    edit_fields(e, &mut one);
                }
                Value::Object(one)
            });
            let edits: Vec<Value> = edits.collect();
            if let Some(p) = file_path {
                args.insert("filePath".into(), Value::String(p));
            }
            args.insert("edits".into(), Value::Array(edits));
            "multiedit"
        }
        "Write" => {
            copy_text(a, "file_path", &mut args, "filePath");
            let content = text(a, "content").unwrap_or_default();
            args.insert("content".into(), Value::String(content));
            "write"
        }
        "NotebookEdit" => {
            copy_text(a, "notebook_path", &mut args, "filePath");
            "write"
        }
        "Task" | "Agent" => {
            let kind = subagent_type(name, input).unwrap_or_default();
            args.insert("subagent_type".into(), Value::String(kind));
            copy_text(a, "prompt", &mut args, "prompt");
            copy_text(a, "description", &mut args, "description");
            "task"
        }
        _ => match READ_LIKE.iter().find(|(cc, _)| *cc == name) {
            Some((_, read_tool)) => {
                for (key, value) in a {
                    match (key.as_str(), value) {
                        ("file_path", Value::String(_)) => {
                            args.insert("filePath".into(), value.clone());
                        }
                        ("glob", Value::String(_)) => {
                            args.insert("include".into(), value.clone());
                        }
                        ("file_path" | "glob", _) => {}
                        _ => {
                            args.insert(key.clone(), value.clone());
                        }
                    }
                }
                read_tool
            }
            None => {
                return ToolCall {
                    tool: name.to_string(),
                    args: Value::Object(a.clone()),
                }
            }
        },
    };
    ToolCall {
        tool: tool.to_string(),
        args: Value::Object(args),
    }
}

/// The subagent type a `Task`/`Agent` call starts (`general-purpose` when none is given, as
/// in Claude Code), or `None` for other tools.
pub fn subagent_type(name: &str, input: &Value) -> Option<String> {
    if name != "Task" && name != "Agent" {
        return None;
    }
    let given = input.get("subagent_type").and_then(Value::as_str);
    Some(
        given
            .filter(|t| !t.is_empty())
            .unwrap_or("general-purpose")
            .to_string(),
    )
}

fn text(a: &Map<String, Value>, key: &str) -> Option<String> {
    a.get(key).and_then(Value::as_str).map(str::to_string)
}

fn copy_text(a: &Map<String, Value>, from: &str, args: &mut Map<String, Value>, to: &str) {
    if let Some(s) = text(a, from) {
        args.insert(to.to_string(), Value::String(s));
    }
}

/// One Claude Code edit (`{old_string, new_string, replace_all}`) as the engine's fields.
fn edit_fields(e: &Map<String, Value>, args: &mut Map<String, Value>) {
    copy_text(e, "old_string", args, "oldString");
    copy_text(e, "new_string", args, "newString");
    if e.get("replace_all") == Some(&Value::Bool(true)) {
        args.insert("replaceAll".into(), Value::Bool(true));
    }
}
