//! Optional providers: a configured command (a local model, a script) that may refine a
//! distillation pass. The core writes the pass's input (the events of one chunk of one session
//! with its deterministic observations, or one reflection), redacted with the project's
//! redaction rules and bounded in size; the shell runs the command under a timeout and an
//! output budget; the core then checks the answer and merges it. An answer may only rewrite
//! the wording of records the pass made (their `text` and `snippet`, or a reflection's
//! `lines`): ids, kinds, files, events and citations stay the deterministic ones, so a provider
//! can make an artifact clearer but never make it cite what it did not read. Anything else
//! (an unknown id, a line without a citation, an answer over its budget, not JSON) is refused
//! and the deterministic record stands.

use super::observe::{describe, stamp, SNIPPET_CHARS, TEXT_CHARS};
use super::reflect::{Reflection, MAX_LINES};
use super::{clip, Observation};
use crate::continuity::events::{PartBody, Role, SessionEvents};
use crate::continuity::redact::Redactor;
use nso_text::hashing::WordHash;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// What an artifact made without a provider records as its producer.
pub const DETERMINISTIC: &str = "deterministic";
/// Longest event text in a pass's input.
const EVENT_CHARS: usize = 400;
/// Longest line of a refined reflection.
const LINE_CHARS: usize = 240;

/// A provider's settings (`continuity.mind.provider`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderSettings {
    /// Its name, recorded as the producer of what it refines.
    pub name: String,
    /// The command and its arguments (run in the project folder, no shell).
    pub command: Vec<String>,
    /// How long one pass may run before the command is killed.
    pub timeout_ms: u64,
    /// Largest input written to its stdin; a larger pass is not sent.
    pub max_input_bytes: usize,
    /// Largest answer read from its stdout; a longer one is refused (and the command killed).
    pub max_output_bytes: usize,
    /// Whether it refines observation passes.
    pub observations: bool,
    /// Whether it refines reflections.
    pub reflections: bool,
}

/// One pass offered to the provider: the records it may refine and its input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderPass {
    /// What it covers (`ses_1 chunk 0`, `reflection r-auth-todo:3`).
    pub what: String,
    /// The input (JSON text) for the command's stdin; `None` when over `maxInputBytes`.
    pub input: Option<String>,
    /// The input's size in bytes.
    pub bytes: usize,
}

fn redact_value(v: &mut Value, redactor: &Redactor) {
    match v {
        Value::String(s) => {
            if let std::borrow::Cow::Owned(r) = redactor.redact(s) {
                *s = r;
            }
        }
        Value::Array(list) => list.iter_mut().for_each(|x| redact_value(x, redactor)),
        Value::Object(map) => map.values_mut().for_each(|x| redact_value(x, redactor)),
        _ => {}
    }
}

/// The pass's input as JSON text, every string redacted, and whether it fits the budget.
fn finish(what: String, mut input: Value, redactor: &Redactor, max: usize) -> ProviderPass {
    redact_value(&mut input, redactor);
    let text = input.to_string();
    let bytes = text.len();
    ProviderPass {
        what,
        input: (bytes <= max).then_some(text),
        bytes,
    }
}

/// The input of the observation pass over `chunk` of `session`, whose events are positions
/// `lo..=hi` and whose deterministic observations are `records`.
pub fn observation_pass(
    session: &SessionEvents,
    root: Option<&str>,
    (lo, hi): (usize, usize),
    records: &[&Observation],
    redactor: &Redactor,
    settings: &ProviderSettings,
) -> ProviderPass {
    let chunk = records.first().map_or(0, |o| o.chunk);
    let events: Vec<Value> = session
        .positioned()
        .filter(|(at, _, _)| (lo..=hi).contains(at))
        .filter_map(|(at, m, p)| {
            let role = match m.role {
                Role::User => "user",
                Role::Assistant => "assistant",
                Role::Unknown => "unknown",
            };
            match &p.body {
                PartBody::Text { text, .. } if !text.trim().is_empty() => {
                    Some(json!({"at": at, "role": role, "text": clip(text, EVENT_CHARS)}))
                }
                PartBody::Tool(call) => Some(json!({
                    "at": at,
                    "tool": describe(call, root),
                    "status": format!("{:?}", call.status).to_lowercase(),
                    "error": call.error.as_deref().map(|e| clip(e, EVENT_CHARS)),
                })),
                _ => None,
            }
        })
        .collect();
    let observations: Vec<Value> = records
        .iter()
        .map(|o| {
            json!({"id": o.id, "kind": o.kind.word(), "text": o.text, "snippet": o.snippet,
                   "files": o.files, "events": o.events})
        })
        .collect();
    let input = json!({
        "pass": "observations",
        "session": session.id,
        "chunk": chunk,
        "events": events,
        "observations": observations,
        "answer": "JSON: {\"observations\": [{\"id\": \"<an id above>\", \"text\": \"<one clearer line>\", \"snippet\": \"<optional>\"}]}; leave out what needs no change.",
    });
    finish(
        format!("{} chunk {chunk}", session.id),
        input,
        redactor,
        settings.max_input_bytes,
    )
}

/// The input of the pass refining `reflection`.
pub fn reflection_pass(
    reflection: &Reflection,
    redactor: &Redactor,
    settings: &ProviderSettings,
) -> ProviderPass {
    let input = json!({
        "pass": "reflection",
        "id": reflection.id,
        "segment": reflection.segment,
        "task": reflection.task,
        "lines": reflection.lines,
        "answer": "JSON: {\"lines\": [\"<line> [<ids it cites, from the lines above>]\"]}; at most 12 lines, each ending with its citations.",
    });
    finish(
        format!("reflection {}", reflection.id),
        input,
        redactor,
        settings.max_input_bytes,
    )
}

/// Why a provider's answer was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn parse(answer: &str, settings: &ProviderSettings) -> Result<Value, Refused> {
    if answer.len() > settings.max_output_bytes {
        return Err(Refused(format!(
            "its answer has {} bytes, over maxOutputBytes ({})",
            answer.len(),
            settings.max_output_bytes
        )));
    }
    serde_json::from_str(answer.trim()).map_err(|e| Refused(format!("its answer is not JSON: {e}")))
}

/// The answer's string field `key` of `item`, redacted and clipped; `None` when absent.
fn field(
    item: &Value,
    key: &str,
    chars: usize,
    redactor: &Redactor,
) -> Result<Option<String>, Refused> {
    match item.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => {
            Ok(Some(clip(&redactor.redact(s), chars)))
        }
        Some(_) => Err(Refused(format!("`{key}` is not a non-empty string"))),
    }
}

/// `records` (the deterministic observations of one pass, `supersedes` already set) with the
/// answer's rewordings merged; a refined record names the provider as its producer and the
/// deterministic revision it was made from (`basis`).
pub fn refine_observations(
    records: &[Observation],
    answer: &str,
    redactor: &Redactor,
    settings: &ProviderSettings,
) -> Result<Vec<Observation>, Refused> {
    let v = parse(answer, settings)?;
    let items = v
        .get("observations")
        .and_then(Value::as_array)
        .ok_or_else(|| Refused("its answer has no `observations` list".into()))?;
    let mut out = records.to_vec();
    for item in items {
        let id = item
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| Refused("an observation of its answer has no `id`".into()))?;
        let o = out.iter_mut().find(|o| o.id == id).ok_or_else(|| {
            Refused(format!(
                "its answer names `{}`, not an observation of the pass",
                clip(id, 80)
            ))
        })?;
        let text = field(item, "text", TEXT_CHARS, redactor)?;
        let snippet = field(item, "snippet", SNIPPET_CHARS, redactor)?;
        if text.is_none() && snippet.is_none() {
            continue;
        }
        let supersedes = o.supersedes.take();
        o.basis = Some(o.rev.clone());
        if let Some(t) = text {
            // An open question stays recognisable as one, whatever the wording.
            let open = super::overview::OPEN_QUESTION;
            o.text = if o.text.starts_with(open) && !t.starts_with(open) {
                clip(&format!("{open}{t}"), TEXT_CHARS)
            } else {
                t
            };
        }
        if snippet.is_some() {
            o.snippet = snippet;
        }
        o.producer = settings.name.clone();
        stamp(o);
        o.supersedes = supersedes;
    }
    Ok(out)
}

/// The citations (`[a, b]`) a reflection line ends with.
fn citations(line: &str) -> Option<Vec<&str>> {
    let open = line.trim_end().strip_suffix(']')?.rfind('[')?;
    let inner = &line.trim_end()[open + 1..line.trim_end().len() - 1];
    let ids: Vec<&str> = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    (!ids.is_empty()).then_some(ids)
}

/// `reflection` with the answer's lines, when each ends with citations of observations the
/// reflection merged; the producer is the provider and `basis` the deterministic revision.
pub fn refine_reflection(
    reflection: &Reflection,
    answer: &str,
    redactor: &Redactor,
    settings: &ProviderSettings,
) -> Result<Reflection, Refused> {
    let v = parse(answer, settings)?;
    let items = v
        .get("lines")
        .and_then(Value::as_array)
        .filter(|l| !l.is_empty() && l.len() <= MAX_LINES)
        .ok_or_else(|| {
            Refused(format!(
                "its answer has no `lines` list of 1 to {MAX_LINES} lines"
            ))
        })?;
    let mut lines = Vec::new();
    for item in items {
        let line = item
            .as_str()
            .map(|s| clip(&redactor.redact(s), LINE_CHARS))
            .ok_or_else(|| Refused("a line of its answer is not a string".into()))?;
        let cited = citations(&line).ok_or_else(|| {
            Refused(format!(
                "the line `{}` does not end with its citations",
                clip(&line, 80)
            ))
        })?;
        if let Some(bad) = cited
            .iter()
            .find(|c| !reflection.cites.iter().any(|k| k == *c))
        {
            return Err(Refused(format!(
                "the line `{}` cites `{bad}`, which the reflection did not merge",
                clip(&line, 80)
            )));
        }
        lines.push(line);
    }
    let mut r = reflection.clone();
    let supersedes = r.supersedes.take();
    r.basis = Some(r.rev.clone());
    r.lines = lines;
    r.producer = settings.name.clone();
    r.rev.clear();
    let text = serde_json::to_string(&r).unwrap_or_default();
    r.rev = format!("{:016x}", WordHash::of(text.as_bytes()));
    r.supersedes = supersedes;
    Ok(r)
}

/// Reads `continuity.mind.provider`.
pub(super) fn settings_from_json(v: &Value) -> Result<ProviderSettings, super::SettingsError> {
    use super::settings::err;
    let o = v.as_object().ok_or_else(|| {
        err(
            "provider",
            "is not an object.",
            "write {\"name\": \"local-model\", \"command\": [\"my-refiner\"]}.",
        )
    })?;
    let mut s = ProviderSettings {
        name: String::new(),
        command: Vec::new(),
        timeout_ms: 30_000,
        max_input_bytes: 256 * 1024,
        max_output_bytes: 64 * 1024,
        observations: true,
        reflections: true,
    };
    let number = |key: &str, value: &Value, lo: u64, hi: u64| {
        value
            .as_u64()
            .filter(|n| (lo..=hi).contains(n))
            .ok_or_else(|| {
                err(
                    &format!("provider.{key}"),
                    format!("must be a whole number from {lo} to {hi}."),
                    "write a number.",
                )
            })
    };
    for (key, value) in o {
        match key.as_str() {
            "name" => {
                s.name = value
                    .as_str()
                    .map(str::trim)
                    .filter(|n| !n.is_empty() && n.len() <= 64 && *n != DETERMINISTIC)
                    .ok_or_else(|| {
                        err(
                            "provider.name",
                            "must be a short non-empty name other than `deterministic`.",
                            "name the provider, e.g. \"local-llama\".",
                        )
                    })?
                    .to_string()
            }
            "command" => {
                s.command = value
                    .as_array()
                    .filter(|l| !l.is_empty())
                    .and_then(|l| {
                        l.iter()
                            .map(|x| x.as_str().filter(|x| !x.is_empty()).map(str::to_string))
                            .collect::<Option<Vec<_>>>()
                    })
                    .ok_or_else(|| {
                        err(
                        "provider.command",
                        "must be a non-empty list of strings (the program, then its arguments).",
                        "write e.g. [\"node\", \"tools/refine.mjs\"].",
                    )
                    })?
            }
            "timeoutMs" => s.timeout_ms = number(key, value, 100, 600_000)?,
            "maxInputBytes" => s.max_input_bytes = number(key, value, 1024, 16 << 20)? as usize,
            "maxOutputBytes" => s.max_output_bytes = number(key, value, 256, 4 << 20)? as usize,
            "passes" => {
                let list = super::settings::strings(value, "provider.passes")?;
                if let Some(bad) = list
                    .iter()
                    .find(|p| !matches!(p.as_str(), "observations" | "reflections"))
                {
                    return Err(err(
                        "provider.passes",
                        format!("unknown pass `{bad}`."),
                        "list observations and/or reflections.",
                    ));
                }
                s.observations = list.iter().any(|p| p == "observations");
                s.reflections = list.iter().any(|p| p == "reflections");
            }
            other => {
                return Err(err(
                    &format!("provider.{other}"),
                    format!("unknown key `{other}`."),
                    "use name, command, timeoutMs, maxInputBytes, maxOutputBytes or passes.",
                ))
            }
        }
    }
    if s.name.is_empty() || s.command.is_empty() {
        return Err(err(
            "provider",
            "needs a name and a command.",
            "write {\"name\": \"local-model\", \"command\": [\"my-refiner\"]}.",
        ));
    }
    Ok(s)
}
