//! Mind's settings: `continuity.mind` in `.opencode/nso.json`.

use serde::Serialize;
use serde_json::Value;

/// One segment of the project: a part observations are routed to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    /// Its name (`auth`, `web`, ...).
    pub name: String,
    /// Globs of project-relative paths that belong to it.
    pub paths: Vec<String>,
    /// Globs of task ids (`todo:1*`, `story:docs/auth/**`) or task tags that belong to it.
    pub tasks: Vec<String>,
    /// Words that point to it when an observation names no file or task.
    pub keywords: Vec<String>,
}

/// Mind's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MindSettings {
    /// The segments, in config order.
    pub segments: Vec<Segment>,
    /// Most events of a session one distillation pass reads; longer sessions are chunked.
    pub chunk_events: usize,
    /// Observations of one segment and task after which a reflection is made.
    pub reflect_after: usize,
    /// Whether a reflection may merge tasks of different segments.
    pub cross_segments: bool,
    /// The optional provider that refines passes (`None`: off).
    pub provider: Option<super::provider::ProviderSettings>,
}

impl Default for MindSettings {
    fn default() -> Self {
        MindSettings {
            segments: Vec::new(),
            chunk_events: 400,
            reflect_after: 8,
            cross_segments: false,
            provider: None,
        }
    }
}

/// A mistake in `continuity.mind`: the JSON path, the problem, the fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingsError {
    /// Path under `continuity.mind` (`segments.auth.paths`).
    pub path: String,
    /// What is wrong.
    pub problem: String,
    /// What to write instead.
    pub fix: String,
}

pub(super) fn err(path: &str, problem: impl Into<String>, fix: &str) -> SettingsError {
    SettingsError {
        path: path.to_string(),
        problem: problem.into(),
        fix: fix.to_string(),
    }
}

pub(super) fn strings(v: &Value, path: &str) -> Result<Vec<String>, SettingsError> {
    let fix = "give a list of strings, e.g. [\"src/auth/**\"].";
    let list = v
        .as_array()
        .ok_or_else(|| err(path, "is not a list.", fix))?;
    list.iter()
        .map(|s| {
            s.as_str()
                .filter(|s| !s.trim().is_empty())
                .map(|s| s.trim().to_string())
                .ok_or_else(|| err(path, "holds something that is not a non-empty string.", fix))
        })
        .collect()
}

fn count(v: &Value, path: &str, max: u64) -> Result<usize, SettingsError> {
    v.as_u64()
        .filter(|n| (1..=max).contains(n))
        .map(|n| n as usize)
        .ok_or_else(|| {
            err(
                path,
                format!("must be a whole number from 1 to {max}."),
                "write a number.",
            )
        })
}

impl MindSettings {
    /// Reads `continuity.mind` (an object; every key optional).
    pub fn from_json(v: &Value) -> Result<MindSettings, SettingsError> {
        let mut s = MindSettings::default();
        let o = v.as_object().ok_or_else(|| {
            err(
                "",
                "is not an object.",
                "write an object, e.g. {\"segments\": {}}.",
            )
        })?;
        for (key, value) in o {
            match key.as_str() {
                "segments" => s.segments = segments(value)?,
                "chunkEvents" => s.chunk_events = count(value, "chunkEvents", 100_000)?,
                "reflectAfter" => s.reflect_after = count(value, "reflectAfter", 10_000)?,
                "crossSegments" => {
                    s.cross_segments = value.as_bool().ok_or_else(|| {
                        err(
                            "crossSegments",
                            "is not true or false.",
                            "write true or false.",
                        )
                    })?
                }
                "provider" => s.provider = Some(super::provider::settings_from_json(value)?),
                other => {
                    return Err(err(
                        other,
                        format!("unknown key `{other}`."),
                        "use segments, chunkEvents, reflectAfter, crossSegments or provider.",
                    ))
                }
            }
        }
        Ok(s)
    }
}

fn segments(v: &Value) -> Result<Vec<Segment>, SettingsError> {
    let o = v.as_object().ok_or_else(|| {
        err(
            "segments",
            "is not an object.",
            "map segment names to {paths, tasks, keywords}, e.g. {\"auth\": {\"paths\": [\"src/auth/**\"]}}.",
        )
    })?;
    let mut out = Vec::new();
    for (name, body) in o {
        let at = format!("segments.{name}");
        if matches!(name.as_str(), "global" | "uncertain") || name.trim().is_empty() {
            return Err(err(
                &at,
                format!("`{name}` is reserved."),
                "name the segment after the part of the project it covers.",
            ));
        }
        let b = body
            .as_object()
            .ok_or_else(|| err(&at, "is not an object.", "write {\"paths\": [...]}."))?;
        let mut seg = Segment {
            name: name.clone(),
            paths: Vec::new(),
            tasks: Vec::new(),
            keywords: Vec::new(),
        };
        for (key, value) in b {
            let path = format!("{at}.{key}");
            match key.as_str() {
                "paths" => seg.paths = strings(value, &path)?,
                "tasks" => seg.tasks = strings(value, &path)?,
                "keywords" => {
                    seg.keywords = strings(value, &path)?
                        .into_iter()
                        .map(|k| k.to_lowercase())
                        .collect()
                }
                other => {
                    return Err(err(
                        &path,
                        format!("unknown key `{other}`."),
                        "use paths, tasks or keywords.",
                    ))
                }
            }
        }
        out.push(seg);
    }
    Ok(out)
}
