//! Reading `opencode export` JSON and raw lanes into [`SessionEvents`] (see the parent
//! module's doc for the formats and the normalization).

use super::{Message, Normalized, Part, PartBody, Role, SessionEvents, ToolCall, ToolStatus};
use serde_json::Value;
use std::collections::BTreeMap;

/// Most warnings kept; further ones are counted in a last warning.
pub const MAX_WARNINGS: usize = 200;

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn id(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn int(v: Option<&Value>) -> Option<i64> {
    let v = v?;
    v.as_i64().or_else(|| {
        v.as_f64()
            .filter(|f| f.is_finite() && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

fn time(v: &Value, key: &str) -> Option<i64> {
    int(v.get("time").and_then(|t| t.get(key)))
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// What a session's info says (no messages).
#[derive(Debug, Clone, Default)]
struct SessionInfo {
    parent: Option<String>,
    title: Option<String>,
    directory: Option<String>,
    created: Option<i64>,
    updated: Option<i64>,
}

fn session_info(v: &Value) -> SessionInfo {
    SessionInfo {
        parent: id(v, "parentID"),
        title: text(v, "title"),
        directory: text(v, "directory"),
        created: time(v, "created"),
        updated: time(v, "updated"),
    }
}

/// A message from its info, without parts.
fn message(info: &Value, mid: &str) -> Message {
    let role = match info.get("role").and_then(Value::as_str) {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => Role::Unknown,
    };
    let model = match info.get("model") {
        Some(m) => (text(m, "providerID"), text(m, "modelID")),
        None => (text(info, "providerID"), text(info, "modelID")),
    };
    let model = match model {
        (Some(p), Some(m)) => Some(format!("{p}/{m}")),
        (None, Some(m)) => Some(m),
        _ => None,
    };
    let error = info.get("error").filter(|e| !e.is_null()).map(|e| {
        let name = text(e, "name").unwrap_or_else(|| "Error".to_string());
        match e.get("data").and_then(|d| text(d, "message")) {
            Some(m) => format!("{name}: {m}"),
            None => name,
        }
    });
    Message {
        id: mid.to_string(),
        role,
        created: time(info, "created"),
        completed: time(info, "completed"),
        agent: id(info, "agent").or_else(|| id(info, "mode")),
        model,
        system: text(info, "system").filter(|s| !s.trim().is_empty()),
        error,
        parts: Vec::new(),
    }
}

fn tool_call(p: &Value) -> ToolCall {
    let empty = Value::Null;
    let state = p.get("state").unwrap_or(&empty);
    let status = match state.get("status").and_then(Value::as_str) {
        Some("pending") => ToolStatus::Pending,
        Some("running") => ToolStatus::Running,
        Some("completed") => ToolStatus::Completed,
        Some("error") => ToolStatus::Error,
        _ => ToolStatus::Unknown,
    };
    let output = text(state, "output");
    let output_bytes = state
        .get("nsoOutputBytes")
        .and_then(Value::as_u64)
        .unwrap_or_else(|| output.as_ref().map_or(0, |o| o.len() as u64));
    let meta = state.get("metadata").unwrap_or(&empty);
    ToolCall {
        call_id: text(p, "callID").unwrap_or_default(),
        tool: text(p, "tool").unwrap_or_else(|| "?".to_string()),
        status,
        input: state.get("input").cloned().unwrap_or(Value::Null),
        output,
        output_bytes,
        error: text(state, "error"),
        title: text(state, "title").filter(|t| !t.trim().is_empty()),
        exit: int(meta.get("exit")).or_else(|| int(meta.get("exitCode"))),
        start: time(state, "start"),
        end: time(state, "end"),
        child_session: id(meta, "sessionId"),
    }
}

fn part_body(p: &Value) -> PartBody {
    let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" => PartBody::Text {
            text: text(p, "text").unwrap_or_default(),
            synthetic: flag(p, "synthetic"),
            ignored: flag(p, "ignored"),
        },
        "reasoning" => PartBody::Reasoning {
            text: text(p, "text").unwrap_or_default(),
        },
        "tool" => PartBody::Tool(tool_call(p)),
        "file" => PartBody::File {
            name: text(p, "filename")
                .or_else(|| text(p, "url").filter(|u| !u.starts_with("data:"))),
            mime: text(p, "mime"),
        },
        "agent" => PartBody::Agent {
            name: text(p, "name"),
        },
        "subtask" => PartBody::Subtask {
            agent: text(p, "agent"),
            description: text(p, "description"),
        },
        "retry" => PartBody::Retry {
            attempt: int(p.get("attempt")),
            error: p.get("error").map(|e| {
                e.get("data")
                    .and_then(|d| text(d, "message"))
                    .or_else(|| text(e, "name"))
                    .or_else(|| e.as_str().map(str::to_string))
                    .unwrap_or_default()
            }),
        },
        "compaction" => PartBody::Compaction,
        other => PartBody::Other {
            kind: other.to_string(),
        },
    }
}

/// The records of one session, latest version of each.
#[derive(Default)]
struct Builder {
    info: Option<SessionInfo>,
    messages: BTreeMap<String, Message>,
    /// (message id, part id) → part.
    parts: BTreeMap<(String, String), Part>,
}

impl Builder {
    fn add_part(&mut self, mid: &str, p: &Value, pid: &str) {
        let part = Part {
            id: pid.to_string(),
            body: part_body(p),
        };
        self.parts.insert((mid.to_string(), pid.to_string()), part);
    }

    fn finish(self, sid: String) -> SessionEvents {
        let Builder {
            info,
            mut messages,
            parts,
        } = self;
        for ((mid, _), part) in parts {
            messages
                .entry(mid.clone())
                .or_insert_with(|| message(&Value::Null, &mid))
                .parts
                .push(part);
        }
        let mut messages: Vec<Message> = messages.into_values().collect();
        messages.sort_by(|a, b| {
            (a.created.is_none(), a.created, &a.id).cmp(&(b.created.is_none(), b.created, &b.id))
        });
        let info = info.unwrap_or_default();
        SessionEvents {
            id: sid,
            parent: info.parent,
            title: info.title,
            directory: info.directory,
            created: info.created,
            updated: info.updated,
            messages,
        }
    }
}

struct Warnings(Vec<String>, usize);

impl Warnings {
    fn push(&mut self, w: String) {
        if self.0.len() < MAX_WARNINGS {
            self.0.push(w);
        } else {
            self.1 += 1;
        }
    }

    fn done(mut self) -> Vec<String> {
        if self.1 > 0 {
            self.0.push(format!("… {} more warnings", self.1));
        }
        self.0
    }
}

/// Reads the JSON printed by `opencode export <id>` (`{info, messages:[{info, parts}]}`), an
/// array of those, or several after one another; text before the first line starting with
/// `{` or `[` (a banner) is skipped.
pub fn from_export(text: &str) -> Normalized {
    let mut w = Warnings(Vec::new(), 0);
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut start = None;
    let mut offset = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let t = line.trim_start();
        if t.starts_with('{') || t.starts_with('[') {
            start = Some((offset + (line.len() - t.len()), n));
            break;
        }
        offset += line.len();
    }
    let Some((start, skipped_lines)) = start else {
        w.push("no JSON object found in the export".to_string());
        return Normalized {
            sessions: Vec::new(),
            warnings: w.done(),
        };
    };
    if skipped_lines > 0 {
        w.push(format!(
            "lines 1-{skipped_lines}: text before the JSON — skipped"
        ));
    }
    let mut sessions = Vec::new();
    let stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let mut n = 0;
    for item in stream {
        match item {
            Ok(Value::Array(items)) => {
                for v in &items {
                    n += 1;
                    export_object(v, n, &mut sessions, &mut w);
                }
            }
            Ok(v) => {
                n += 1;
                export_object(&v, n, &mut sessions, &mut w);
            }
            Err(e) => {
                w.push(format!(
                    "line {}: not JSON (truncated?) — the rest is skipped",
                    e.line() + skipped_lines
                ));
                break;
            }
        }
    }
    Normalized {
        sessions,
        warnings: w.done(),
    }
}

fn export_object(v: &Value, n: usize, out: &mut Vec<SessionEvents>, w: &mut Warnings) {
    let Some(messages) = v.get("messages").and_then(Value::as_array) else {
        w.push(format!("export object {n}: no `messages` list — skipped"));
        return;
    };
    let empty = Value::Null;
    let info = v.get("info").unwrap_or(&empty);
    let sid = id(info, "id").or_else(|| {
        messages
            .iter()
            .find_map(|m| m.get("info").and_then(|i| id(i, "sessionID")))
    });
    let Some(sid) = sid else {
        w.push(format!("export object {n}: no session id — skipped"));
        return;
    };
    let mut b = Builder {
        info: info.is_object().then(|| session_info(info)),
        ..Builder::default()
    };
    for (k, m) in messages.iter().enumerate() {
        let mi = m.get("info").unwrap_or(&empty);
        let Some(mid) = id(mi, "id") else {
            w.push(format!(
                "export object {n}: message {} has no id — skipped",
                k + 1
            ));
            continue;
        };
        b.messages.insert(mid.clone(), message(mi, &mid));
        for (j, p) in m
            .get("parts")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .enumerate()
        {
            match id(p, "id") {
                Some(pid) => b.add_part(&mid, p, &pid),
                None => w.push(format!(
                    "export object {n}: part {} of message {mid} has no id — skipped",
                    j + 1
                )),
            }
        }
    }
    out.push(b.finish(sid));
}

/// Reads a raw lane (JSONL records of one or more sessions; see the module doc).
pub fn from_lane(text: &str) -> Normalized {
    let mut w = Warnings(Vec::new(), 0);
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut order: Vec<String> = Vec::new();
    let mut builders: BTreeMap<String, Builder> = BTreeMap::new();
    for (k, line) in text.lines().enumerate() {
        let n = k + 1;
        if line.trim().is_empty() {
            continue;
        }
        let Ok(r) = serde_json::from_str::<Value>(line) else {
            w.push(format!("line {n}: not JSON (truncated?) — skipped"));
            continue;
        };
        if r.get("v").and_then(Value::as_u64) != Some(1) {
            w.push(format!(
                "line {n}: record version {} is not 1 — skipped",
                r.get("v").map_or("(none)".to_string(), Value::to_string)
            ));
            continue;
        }
        let kind = r.get("kind").and_then(Value::as_str).unwrap_or("");
        let (sid, what) = match kind {
            "session" => match r.get("info").and_then(|i| id(i, "id")) {
                Some(sid) => (sid, kind),
                None => {
                    w.push(format!(
                        "line {n}: session record without info.id — skipped"
                    ));
                    continue;
                }
            },
            "message" => match r
                .get("info")
                .and_then(|i| Some((id(i, "sessionID")?, id(i, "id")?)))
            {
                Some((sid, _)) => (sid, kind),
                None => {
                    w.push(format!(
                        "line {n}: message record without info.id or info.sessionID — skipped"
                    ));
                    continue;
                }
            },
            "part" => match r
                .get("part")
                .and_then(|p| Some((id(p, "sessionID")?, id(p, "messageID")?, id(p, "id")?)))
            {
                Some((sid, _, _)) => (sid, kind),
                None => {
                    w.push(format!(
                        "line {n}: part record without part.id, messageID or sessionID — skipped"
                    ));
                    continue;
                }
            },
            other => {
                let shown: String = other.chars().take(40).collect();
                w.push(format!(
                    "line {n}: record of unknown kind \"{shown}\" — skipped"
                ));
                continue;
            }
        };
        let b = builders.entry(sid.clone()).or_insert_with(|| {
            order.push(sid.clone());
            Builder::default()
        });
        match what {
            "session" => b.info = r.get("info").map(session_info),
            "message" => {
                let info = &r["info"];
                let mid = id(info, "id").unwrap_or_default();
                b.messages.insert(mid.clone(), message(info, &mid));
            }
            _ => {
                let p = &r["part"];
                let mid = id(p, "messageID").unwrap_or_default();
                let pid = id(p, "id").unwrap_or_default();
                b.add_part(&mid, p, &pid);
            }
        }
    }
    let sessions = order
        .into_iter()
        .filter_map(|sid| builders.remove(&sid).map(|b| b.finish(sid)))
        .collect();
    Normalized {
        sessions,
        warnings: w.done(),
    }
}
