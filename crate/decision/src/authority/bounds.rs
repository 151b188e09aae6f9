//! Bounds on a call's arguments, so a pasted 10 MB write or a huge command costs no more than
//! a small one. Each cut keeps the verdict the full input would get: the shell analyser
//! refuses any command over its limit as opaque, so a prefix just past the limit is enough;
//! a text larger than `limits.contentBytes` is replaced by a marker that makes every check
//! needing it fail closed.
//!
//! Hosts that hold the arguments as foreign values (the wasm boundary, with JS strings) ask
//! [`limit_of`] before copying a string, so that a huge one is never copied whole.

use serde_json::{json, Value};

use super::tools::OVERSIZED;

/// The shell analyser's limit: a longer command is one opaque step (`shell::MAX_INPUT`).
pub const MAX_COMMAND_BYTES: usize = crate::shell::MAX_INPUT;

/// The arguments holding a change's text, per tool: left out when larger than
/// `limits.contentBytes`.
pub fn text_args(tool: &str) -> &'static [&'static str] {
    match tool {
        "write" => &["content"],
        "edit" => &["oldString", "newString"],
        "apply_patch" => &["patchText"],
        _ => &[],
    }
}

/// How an argument of a call is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Keep a prefix of at least this many bytes plus one (the bash command): the analyser
    /// sees that it is over its limit.
    Prefix(usize),
    /// Replace the text by the oversized marker when it is longer than this many bytes.
    Whole(u64),
}

/// The bound on the top-level argument `key` of a `tool` call, if there is one.
pub fn limit_of(tool: &str, key: &str, content_bytes: u64) -> Option<Limit> {
    if tool == "bash" && key == "command" {
        return Some(Limit::Prefix(MAX_COMMAND_BYTES));
    }
    text_args(tool)
        .contains(&key)
        .then_some(Limit::Whole(content_bytes))
}

/// The marker that stands for a text left out for its size (`bytes`: its size, or at least
/// that when a host could only count it in UTF-16 units).
pub fn oversized_marker(bytes: u64) -> Value {
    json!({ OVERSIZED: bytes })
}

/// `args` as the engine decides them: the bash command cut just past the analyser's limit,
/// texts larger than `content_bytes` replaced by [`oversized_marker`]. Idempotent.
pub fn bound_args(tool: &str, mut args: Value, content_bytes: u64) -> Value {
    let Some(object) = args.as_object_mut() else {
        return args;
    };
    for (key, value) in object.iter_mut() {
        let Value::String(text) = value else {
            continue;
        };
        match limit_of(tool, key, content_bytes) {
            Some(Limit::Prefix(bytes)) if text.len() > bytes + 1 => {
                let mut cut = bytes + 1;
                while !text.is_char_boundary(cut) {
                    cut += 1;
                }
                text.truncate(cut);
            }
            Some(Limit::Whole(bytes)) if text.len() as u64 > bytes => {
                *value = oversized_marker(text.len() as u64);
            }
            _ => {}
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_command_keeps_a_prefix_just_past_the_limit() {
        let long = "a".repeat(MAX_COMMAND_BYTES + 100);
        let out = bound_args("bash", json!({ "command": long }), 10);
        assert_eq!(
            out["command"].as_str().map(str::len),
            Some(MAX_COMMAND_BYTES + 1)
        );
        // A character straddling the cut is kept whole.
        let s = format!("{}é", "a".repeat(MAX_COMMAND_BYTES));
        let out = bound_args("bash", json!({ "command": s.clone() + "tail" }), 10);
        assert_eq!(out["command"].as_str(), Some(s.as_str()));
        let short = json!({ "command": "ls" });
        assert_eq!(bound_args("bash", short.clone(), 0), short);
    }

    #[test]
    fn large_texts_are_replaced_by_the_marker() {
        let args = json!({ "filePath": "a", "content": "é".repeat(6) });
        assert_eq!(
            bound_args("write", args.clone(), 11)["content"],
            json!({ "nsoOversized": 12 })
        );
        assert_eq!(bound_args("write", args.clone(), 12), args);
        assert_eq!(bound_args("read", args.clone(), 1), args);
        let edit = json!({ "filePath": "a", "oldString": "x", "newString": "yy" });
        let out = bound_args("edit", edit, 1);
        assert_eq!(out["oldString"], json!("x"));
        assert_eq!(out["newString"], json!({ "nsoOversized": 2 }));
    }

    #[test]
    fn bounding_twice_changes_nothing_more() {
        let args = json!({ "command": "x".repeat(MAX_COMMAND_BYTES * 2) });
        let once = bound_args("bash", args, 5);
        assert_eq!(bound_args("bash", once.clone(), 5), once);
    }
}
