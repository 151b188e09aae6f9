//! The T0 policy (`continuity.t0` of `.opencode/nso.json`): what the compact transcript of a
//! session keeps. It is named and versioned, and both are written in every transcript, so a
//! transcript says which rules made it.
//!
//! ```json
//! { "name": "nso-t0", "version": 1, "reasoning": false,
//!   "snippets": { "bash": 400, "nso_*": 2000 },
//!   "redact": { "prefixes": ["acme_"], "keys": ["pin"] },
//!   "storyGlobs": ["**/stories/*.md"] }
//! ```
//!
//! Every key is optional; unknown keys are errors (a typo must not silently keep secrets or
//! outputs).

use nso_decision::authority::Glob;
use serde::Serialize;
use std::fmt;

/// Keys of the policy object.
pub const POLICY_KEYS: [&str; 6] = [
    "name",
    "version",
    "reasoning",
    "snippets",
    "redact",
    "storyGlobs",
];

/// Keys of the policy's `redact` object.
pub const REDACT_KEYS: [&str; 2] = ["prefixes", "keys"];

/// Default policy name.
pub const DEFAULT_NAME: &str = "nso-t0";

/// Default story file globs (task attribution).
pub const DEFAULT_STORY_GLOBS: [&str; 1] = ["**/stories/*.md"];

/// Largest snippet a tool may keep, in bytes.
pub const MAX_SNIPPET_BYTES: usize = 65_536;

/// Longest policy name, in characters.
const MAX_NAME_CHARS: usize = 100;

/// Most entries in one list (snippets, prefixes, keys, globs).
const MAX_ENTRIES: usize = 200;

/// The rules of a T0 transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct T0Policy {
    /// The policy's name, written in each transcript.
    pub name: String,
    /// The policy's version, written in each transcript.
    pub version: u32,
    /// Whether the model's reasoning text is kept.
    pub reasoning: bool,
    /// Tools whose output keeps a snippet: a tool name or a prefix ending in `*`, and the
    /// bytes kept. Sorted by pattern. Every other output is stripped (its size stays).
    pub snippets: Vec<(String, usize)>,
    /// Extra secret token prefixes (a token starting with one is redacted).
    pub redact_prefixes: Vec<String>,
    /// Extra secret key names (`key=value`, `"key": "value"`), lowercase.
    pub redact_keys: Vec<String>,
    /// Story files a session can be linked to.
    pub story_globs: Vec<String>,
}

impl Default for T0Policy {
    fn default() -> Self {
        T0Policy {
            name: DEFAULT_NAME.to_string(),
            version: 1,
            reasoning: false,
            snippets: Vec::new(),
            redact_prefixes: Vec::new(),
            redact_keys: Vec::new(),
            story_globs: DEFAULT_STORY_GLOBS.iter().map(|s| s.to_string()).collect(),
        }
    }
}

/// Why a policy is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// Where, relative to the policy object (`snippets.bash`; empty for the object itself).
    pub path: String,
    /// What is wrong.
    pub problem: String,
    /// How to fix it.
    pub fix: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{} Fix: {}", self.problem, self.fix)
        } else {
            write!(f, "{}: {} Fix: {}", self.path, self.problem, self.fix)
        }
    }
}

impl std::error::Error for PolicyError {}

fn error(path: &str, problem: impl Into<String>, fix: impl Into<String>) -> PolicyError {
    PolicyError {
        path: path.to_string(),
        problem: problem.into(),
        fix: fix.into(),
    }
}

/// The value as written in a message, clipped.
fn shown(v: &serde_json::Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

impl T0Policy {
    /// Reads a policy from its JSON object; every key is optional.
    pub fn from_json(v: &serde_json::Value) -> Result<T0Policy, PolicyError> {
        let o = v.as_object().ok_or_else(|| {
            error(
                "",
                format!("the T0 policy must be an object, found {}.", shown(v)),
                "write an object such as {\"snippets\": {\"bash\": 400}}, or leave it out.",
            )
        })?;
        let mut p = T0Policy::default();
        // Sorted keys: the first error reported does not depend on the input's key order.
        let mut keys: Vec<&String> = o.keys().collect();
        keys.sort();
        for key in keys {
            let value = &o[key.as_str()];
            match key.as_str() {
                "name" => p.name = name(value)?,
                "version" => p.version = version(value)?,
                "reasoning" => {
                    p.reasoning = value.as_bool().ok_or_else(|| {
                        error(
                            "reasoning",
                            "must be true or false.",
                            "write true or false.",
                        )
                    })?
                }
                "snippets" => p.snippets = snippets(value)?,
                "redact" => (p.redact_prefixes, p.redact_keys) = redact(value)?,
                "storyGlobs" => p.story_globs = story_globs(value)?,
                other => {
                    return Err(error(
                        other,
                        format!("`{other}` is not a T0 policy key."),
                        format!("use one of: {}.", POLICY_KEYS.join(", ")),
                    ))
                }
            }
        }
        Ok(p)
    }

    /// `name vN`, as written in a transcript.
    pub fn label(&self) -> String {
        format!("{} v{}", self.name, self.version)
    }

    /// Bytes of output kept for `tool`: an exact pattern wins over `*` prefixes, and a longer
    /// prefix over a shorter one. `None`: the output is stripped.
    pub fn snippet_bytes(&self, tool: &str) -> Option<usize> {
        let mut best: Option<(usize, usize)> = None; // (prefix length, bytes)
        for (pattern, bytes) in &self.snippets {
            match pattern.strip_suffix('*') {
                Some(prefix)
                    if tool.starts_with(prefix)
                        && best.is_none_or(|(len, _)| prefix.len() > len) =>
                {
                    best = Some((prefix.len(), *bytes));
                }
                None if pattern == tool => return Some(*bytes),
                _ => {}
            }
        }
        best.map(|(_, bytes)| bytes)
    }

    /// The story globs, compiled (a glob that does not compile is left out; [`from_json`]
    /// refuses those).
    ///
    /// [`from_json`]: T0Policy::from_json
    pub fn compiled_story_globs(&self) -> Vec<Glob> {
        self.story_globs
            .iter()
            .filter_map(|g| Glob::new(g, false).ok())
            .collect()
    }
}

fn name(v: &serde_json::Value) -> Result<String, PolicyError> {
    let fix = "write a short name such as \"nso-t0\".";
    let s = v.as_str().ok_or_else(|| {
        error(
            "name",
            format!("must be a string, found {}.", shown(v)),
            fix,
        )
    })?;
    let s = s.trim();
    if s.is_empty() || s.chars().count() > MAX_NAME_CHARS || s.chars().any(char::is_control) {
        return Err(error(
            "name",
            format!("must be 1 to {MAX_NAME_CHARS} characters on one line."),
            fix,
        ));
    }
    Ok(s.to_string())
}

fn version(v: &serde_json::Value) -> Result<u32, PolicyError> {
    v.as_u64()
        .filter(|n| *n >= 1)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            error(
                "version",
                format!("must be a whole number from 1, found {}.", shown(v)),
                "write 1, and raise it when you change the policy.",
            )
        })
}

fn snippets(v: &serde_json::Value) -> Result<Vec<(String, usize)>, PolicyError> {
    let o = v.as_object().ok_or_else(|| {
        error(
            "snippets",
            format!("must be an object of tool → bytes, found {}.", shown(v)),
            "write e.g. {\"bash\": 400, \"nso_*\": 2000}.",
        )
    })?;
    if o.len() > MAX_ENTRIES {
        return Err(error(
            "snippets",
            format!(
                "has {} entries; at most {MAX_ENTRIES} are allowed.",
                o.len()
            ),
            "use `prefix*` patterns.",
        ));
    }
    let mut out = Vec::new();
    for (pattern, bytes) in o {
        let path = format!("snippets.{pattern}");
        let star = pattern.find('*');
        if pattern.is_empty() || star.is_some_and(|i| i + 1 != pattern.len()) {
            return Err(error(
                &path,
                format!("`{pattern}` is not a tool name or a prefix ending in `*`."),
                "write a tool name (`bash`) or a prefix with one `*` at its end (`nso_*`).",
            ));
        }
        let n = bytes
            .as_u64()
            .filter(|n| (1..=MAX_SNIPPET_BYTES as u64).contains(n))
            .ok_or_else(|| {
                error(
                    &path,
                    format!(
                        "must be a number of bytes from 1 to {MAX_SNIPPET_BYTES}, found {}.",
                        shown(bytes)
                    ),
                    "write e.g. 400; leave the tool out to strip its output.",
                )
            })?;
        out.push((pattern.clone(), n as usize));
    }
    out.sort();
    Ok(out)
}

fn strings(v: &serde_json::Value, path: &str, fix: &str) -> Result<Vec<String>, PolicyError> {
    let a = v.as_array().ok_or_else(|| {
        error(
            path,
            format!("must be a list of strings, found {}.", shown(v)),
            fix,
        )
    })?;
    if a.len() > MAX_ENTRIES {
        return Err(error(
            path,
            format!(
                "has {} entries; at most {MAX_ENTRIES} are allowed.",
                a.len()
            ),
            fix,
        ));
    }
    let mut out = Vec::new();
    for (i, item) in a.iter().enumerate() {
        let s = item.as_str().map(str::trim).unwrap_or_default();
        if s.chars().count() < 2 || s.chars().count() > 200 || s.chars().any(char::is_whitespace) {
            return Err(error(
                &format!("{path}.{i}"),
                format!(
                    "must be 2 to 200 characters without spaces, found {}.",
                    shown(item)
                ),
                fix,
            ));
        }
        out.push(s.to_string());
    }
    Ok(out)
}

type RedactLists = (Vec<String>, Vec<String>);

fn redact(v: &serde_json::Value) -> Result<RedactLists, PolicyError> {
    let o = v.as_object().ok_or_else(|| {
        error(
            "redact",
            format!("must be an object, found {}.", shown(v)),
            "write e.g. {\"prefixes\": [\"acme_\"], \"keys\": [\"pin\"]}.",
        )
    })?;
    let mut prefixes = Vec::new();
    let mut keys = Vec::new();
    for (key, value) in o {
        match key.as_str() {
            "prefixes" => {
                prefixes = strings(
                    value,
                    "redact.prefixes",
                    "list token prefixes such as \"acme_\".",
                )?
            }
            "keys" => {
                keys = strings(value, "redact.keys", "list key names such as \"pin\".")?
                    .into_iter()
                    .map(|k| k.to_ascii_lowercase())
                    .collect()
            }
            other => {
                return Err(error(
                    &format!("redact.{other}"),
                    format!("`{other}` is not a redact key."),
                    format!("use one of: {}.", REDACT_KEYS.join(", ")),
                ))
            }
        }
    }
    prefixes.sort();
    prefixes.dedup();
    keys.sort();
    keys.dedup();
    Ok((prefixes, keys))
}

fn story_globs(v: &serde_json::Value) -> Result<Vec<String>, PolicyError> {
    let fix = "list project-relative globs such as \"docs/stories/*.md\".";
    let a = v.as_array().ok_or_else(|| {
        error(
            "storyGlobs",
            format!("must be a list of globs, found {}.", shown(v)),
            fix,
        )
    })?;
    let mut out = Vec::new();
    for (i, item) in a.iter().enumerate().take(MAX_ENTRIES + 1) {
        let path = format!("storyGlobs.{i}");
        if i == MAX_ENTRIES {
            return Err(error(
                "storyGlobs",
                format!("at most {MAX_ENTRIES} globs are allowed."),
                fix,
            ));
        }
        let s = item.as_str().ok_or_else(|| {
            error(
                &path,
                format!("must be a string, found {}.", shown(item)),
                fix,
            )
        })?;
        if let Err(e) = Glob::new(s, false) {
            return Err(error(&path, format!("`{s}`: {}.", e.message), e.hint));
        }
        out.push(s.to_string());
    }
    Ok(out)
}
