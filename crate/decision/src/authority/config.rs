//! The policy part of `.opencode/nso.json`: raw serde types, strict parsing, and errors that
//! carry a JSON path and a fix hint.
//!
//! Parsing is strict (`deny_unknown_fields`). When serde rejects a document, a small
//! description of the same shape (`FIELDS_*` below, kept in sync with the serde types and
//! `presets/policy.schema.json` by tests) is walked to say exactly where and why.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a matching rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// Grants the operation.
    Allow,
    /// Hard block: the call does not run.
    Block,
    /// Soft block: the call runs and the agent is reminded (text appended to the output).
    Soft,
    /// Advisory: the call runs; a log line is written.
    Warn,
}

/// Whether refusals are enforced or only recorded (`mode` of the policy or of a rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A refusal refuses the call.
    #[default]
    Enforce,
    /// Nothing is refused: a call that would have been refused runs, and what NSO would have
    /// told the agent is logged (`nso audit` reports it); the agent is not told.
    Audit,
}

/// An operation kind a path/shell rule can name in `ops`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawOp {
    /// Reading a file or folder.
    Read,
    /// Changing an existing file.
    Write,
    /// Creating a file.
    Create,
    /// Deleting a file or folder.
    Delete,
    /// A shell step NSO cannot see through (eval, dynamic program, one-liners, unparseable).
    Opaque,
}

/// Git/gh operation names as written in `git: [...]` (snake_case of `shell::GitOp`).
pub const GIT_OP_NAMES: &[&str] = &[
    "push",
    "merge",
    "rebase",
    "pull_rebase",
    "pull",
    "commit",
    "add",
    "branch_create",
    "branch_delete",
    "tag",
    "reset",
    "checkout",
    "stash",
    "clean",
    "cherry_pick",
    "revert",
    "history_rewrite",
    "pr_create",
    "pr_merge",
    "pr_close",
    "release_create",
];

/// The policy document (the project's config, or a preset).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawPolicy {
    /// Editor hint, ignored.
    #[serde(rename = "$schema")]
    pub schema: Option<String>,
    /// Prefix of generated rule ids (`<name>.default.write`); defaults to the preset's name.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Base preset: `kord`, `nso` (default) or `none`. Only in the project config.
    pub preset: Option<String>,
    /// Match path globs ignoring ASCII case (default false).
    pub case_insensitive: Option<bool>,
    /// `enforce` (default) or `audit`: nothing refused, would-be refusals logged.
    pub mode: Option<Mode>,
    /// Agents by canonical name.
    pub agents: Option<BTreeMap<String, RawAgent>>,
    /// Rules; a project rule with a preset rule's id replaces (or disables) it.
    pub rules: Option<Vec<RawRule>>,
    /// Per-operation defaults when no rule matches.
    pub defaults: Option<RawDefaults>,
    /// Files whose old content must stay an exact prefix.
    pub append_only: Option<Vec<RawAppendOnly>>,
    /// Files only their authors change; tickers may only tick checkboxes.
    pub sacred: Option<Vec<RawSacred>>,
    /// Writes outside the project.
    pub outside_project: Option<RawOutside>,
    /// Classification of tools NSO does not know (custom or MCP tools).
    pub tools: Option<BTreeMap<String, RawTool>>,
}

/// One agent.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawAgent {
    /// Free text (shown by `nso explain`).
    pub description: Option<String>,
    /// Other names this agent is called by.
    pub aliases: Option<Vec<String>>,
    /// Display names OpenCode may pass, e.g. "Prometheus (Plan Builder)".
    pub display_names: Option<Vec<String>>,
    /// Treat this agent as a member of every rule that names the `like` agent.
    pub like: Option<String>,
    /// Per-operation defaults for this agent (override the policy's).
    pub defaults: Option<RawDefaults>,
}

/// One rule.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawRule {
    /// Stable id, e.g. `kord.git.push`.
    pub id: String,
    /// Free text.
    pub description: Option<String>,
    /// Agent names (or aliases), or `"*"` for every known agent.
    pub agents: Option<Vec<String>>,
    /// Path operations (and `opaque`).
    pub ops: Option<Vec<RawOp>>,
    /// Git/gh operations.
    pub git: Option<Vec<String>>,
    /// Path globs (required with read/write/create/delete).
    pub paths: Option<Vec<String>>,
    /// Globs carved out of `paths`.
    pub except: Option<Vec<String>>,
    /// Restrict the rule to calls of these tools.
    pub tools: Option<Vec<String>>,
    /// The rule does not apply to calls of these tools (nor to writes these NSO tools make
    /// on the agent's behalf, see [`super::Request::via`]).
    pub except_tools: Option<Vec<String>>,
    /// What the rule does.
    pub effect: Option<Effect>,
    /// Why, in a few words, for messages ("only @devops pushes").
    pub reason: Option<String>,
    /// What a blocked agent should do instead.
    pub instead: Option<String>,
    /// "Only these agents": with `effect: allow`, every other agent is blocked by this rule
    /// (for the operations and paths it names).
    pub exclusive: Option<bool>,
    /// `audit`: this rule's refusals are only logged (the call runs); `enforce`: it refuses
    /// even in audit mode (one of NSO's guarantees); default: the policy's mode.
    pub mode: Option<Mode>,
    /// Turn the rule off (used to disable a preset rule by id).
    pub disabled: Option<bool>,
}

/// Defaults per operation kind.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawDefaults {
    /// Default for reads.
    pub read: Option<Effect>,
    /// Default for writes.
    pub write: Option<Effect>,
    /// Default for creates.
    pub create: Option<Effect>,
    /// Default for deletes.
    pub delete: Option<Effect>,
    /// Default for git/gh operations (read-only git is always allowed).
    pub git: Option<Effect>,
    /// Default for opaque shell steps.
    pub opaque: Option<Effect>,
}

/// An append-only area.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawAppendOnly {
    /// Stable id.
    pub id: String,
    /// Free text.
    pub description: Option<String>,
    /// Globs.
    pub paths: Option<Vec<String>>,
    /// Globs carved out.
    pub except: Option<Vec<String>>,
    /// Agents bound by it (default: all).
    pub agents: Option<Vec<String>>,
    /// What to do instead.
    pub instead: Option<String>,
    /// Turn it off.
    pub disabled: Option<bool>,
}

/// A sacred area (plan files).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawSacred {
    /// Stable id.
    pub id: String,
    /// Free text.
    pub description: Option<String>,
    /// Globs.
    pub paths: Option<Vec<String>>,
    /// Globs carved out.
    pub except: Option<Vec<String>>,
    /// Agents who change these files freely (their normal rules still apply).
    pub authors: Option<Vec<String>>,
    /// Agents who may only turn `- [ ]` into `- [x]`.
    pub tickers: Option<Vec<String>>,
    /// What to do instead.
    pub instead: Option<String>,
    /// Turn it off.
    pub disabled: Option<bool>,
}

/// Writes outside the project.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawOutside {
    /// Absolute globs every agent may write, create and delete (replaces the preset's list).
    pub allow: Option<Vec<String>>,
    /// What a blocked agent should do instead.
    pub instead: Option<String>,
}

/// How to classify a tool NSO does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolClass {
    /// Its path arguments are reads.
    Read,
    /// Its path arguments are writes.
    Write,
}

/// One tool classification.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawTool {
    /// Read or write.
    pub class: ToolClass,
    /// Argument names holding paths (default: the usual path-like names).
    pub path_args: Option<Vec<String>>,
}

/// One problem in a policy document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigError {
    /// Stable machine-readable code (see [`codes`]).
    pub code: &'static str,
    /// Where the document was read from (file path or `preset kord`).
    pub source: String,
    /// JSON path of the offending value, e.g. `rules[3].paths[0]`; `$` for the document.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

/// Stable error codes of [`ConfigError`].
pub mod codes {
    /// The text is not valid JSON.
    pub const JSON_SYNTAX: &str = "json_syntax";
    /// A key the policy does not know.
    pub const UNKNOWN_FIELD: &str = "unknown_field";
    /// A required key is absent.
    pub const MISSING_FIELD: &str = "missing_field";
    /// A value of the wrong JSON type.
    pub const INVALID_TYPE: &str = "invalid_type";
    /// A value outside the allowed set.
    pub const INVALID_VALUE: &str = "invalid_value";
    /// `preset` names no known preset.
    pub const UNKNOWN_PRESET: &str = "unknown_preset";
    /// A rule or agent refers to an agent the policy does not define.
    pub const UNKNOWN_AGENT: &str = "unknown_agent";
    /// Two rules (or areas) share an id in one document.
    pub const DUPLICATE_ID: &str = "duplicate_id";
    /// Two agents answer to the same name, alias or display name.
    pub const DUPLICATE_AGENT_NAME: &str = "duplicate_agent_name";
    /// A glob does not compile.
    pub const INVALID_GLOB: &str = "invalid_glob";
    /// A rule lacks what it needs (effect, agents, ops/git, paths).
    pub const INCOMPLETE_RULE: &str = "incomplete_rule";
    /// A rule combines fields that do not go together.
    pub const INVALID_RULE: &str = "invalid_rule";
    /// An id or name with characters outside `[A-Za-z0-9._-]`.
    pub const INVALID_ID: &str = "invalid_id";
    /// `like` chains loop.
    pub const AGENT_CYCLE: &str = "agent_cycle";
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {} [{}]. Fix: {}",
            self.source, self.path, self.message, self.code, self.hint
        )
    }
}

/// All problems found in a policy (at least one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl ConfigErrors {
    /// The first error (there is always one).
    pub fn first(&self) -> Option<&ConfigError> {
        self.0.first()
    }
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

pub(crate) fn err(
    code: &'static str,
    source: &str,
    path: &str,
    message: impl Into<String>,
    hint: impl Into<String>,
) -> ConfigError {
    ConfigError {
        code,
        source: source.to_string(),
        path: if path.is_empty() {
            "$".to_string()
        } else {
            path.to_string()
        },
        message: message.into(),
        hint: hint.into(),
    }
}

/// `base.name` (or `name` at the top).
pub(crate) fn key_path(base: &str, key: &str) -> String {
    let simple = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$');
    match (base.is_empty(), simple) {
        (true, true) => key.to_string(),
        (false, true) => format!("{base}.{key}"),
        (_, false) => format!("{base}[{}]", Value::String(key.to_string())),
    }
}

/// `base[i]`.
pub(crate) fn index_path(base: &str, i: usize) -> String {
    format!("{base}[{i}]")
}

/// Parses a policy document from JSON text.
pub fn parse_raw(text: &str, source: &str) -> Result<RawPolicy, ConfigErrors> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        ConfigErrors(vec![err(
            codes::JSON_SYNTAX,
            source,
            "",
            format!(
                "invalid JSON at line {}, column {}: {e}",
                e.line(),
                e.column()
            ),
            "fix the JSON syntax (no comments or trailing commas)",
        )])
    })?;
    parse_raw_value(&value, source, "")
}

/// Parses a policy document from a JSON value; `base_path` prefixes error paths (use it when
/// the policy sits under a key of a larger document).
pub fn parse_raw_value(
    value: &Value,
    source: &str,
    base_path: &str,
) -> Result<RawPolicy, ConfigErrors> {
    match RawPolicy::deserialize(value) {
        Ok(raw) => Ok(raw),
        Err(e) => {
            let mut errors = Vec::new();
            walk(
                value,
                base_path,
                &Kind::Obj(FIELDS_POLICY),
                source,
                &mut errors,
            );
            if errors.is_empty() {
                errors.push(err(
                    codes::INVALID_VALUE,
                    source,
                    base_path,
                    e.to_string(),
                    "compare with presets/policy.schema.json",
                ));
            }
            Err(ConfigErrors(errors))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Shape description for error localisation.

/// The JSON shape of a field.
#[derive(Debug)]
pub(crate) enum Kind {
    Str,
    Bool,
    StrList,
    Enum(&'static [&'static str]),
    EnumList(&'static [&'static str]),
    Obj(&'static [Field]),
    MapOf(&'static [Field]),
    ListOf(&'static [Field]),
}

/// One field of an object.
#[derive(Debug)]
pub(crate) struct Field {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
}

const fn opt(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        required: false,
    }
}
const fn req(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        required: true,
    }
}

const EFFECTS: &[&str] = &["allow", "block", "soft", "warn"];
const MODES: &[&str] = &["enforce", "audit"];
const OPS: &[&str] = &["read", "write", "create", "delete", "opaque"];

pub(crate) const FIELDS_DEFAULTS: &[Field] = &[
    opt("read", Kind::Enum(EFFECTS)),
    opt("write", Kind::Enum(EFFECTS)),
    opt("create", Kind::Enum(EFFECTS)),
    opt("delete", Kind::Enum(EFFECTS)),
    opt("git", Kind::Enum(EFFECTS)),
    opt("opaque", Kind::Enum(EFFECTS)),
];
pub(crate) const FIELDS_AGENT: &[Field] = &[
    opt("description", Kind::Str),
    opt("aliases", Kind::StrList),
    opt("displayNames", Kind::StrList),
    opt("like", Kind::Str),
    opt("defaults", Kind::Obj(FIELDS_DEFAULTS)),
];
pub(crate) const FIELDS_RULE: &[Field] = &[
    req("id", Kind::Str),
    opt("description", Kind::Str),
    opt("agents", Kind::StrList),
    opt("ops", Kind::EnumList(OPS)),
    opt("git", Kind::EnumList(GIT_OP_NAMES)),
    opt("paths", Kind::StrList),
    opt("except", Kind::StrList),
    opt("tools", Kind::StrList),
    opt("exceptTools", Kind::StrList),
    opt("effect", Kind::Enum(EFFECTS)),
    opt("reason", Kind::Str),
    opt("instead", Kind::Str),
    opt("exclusive", Kind::Bool),
    opt("mode", Kind::Enum(MODES)),
    opt("disabled", Kind::Bool),
];
pub(crate) const FIELDS_APPEND_ONLY: &[Field] = &[
    req("id", Kind::Str),
    opt("description", Kind::Str),
    opt("paths", Kind::StrList),
    opt("except", Kind::StrList),
    opt("agents", Kind::StrList),
    opt("instead", Kind::Str),
    opt("disabled", Kind::Bool),
];
pub(crate) const FIELDS_SACRED: &[Field] = &[
    req("id", Kind::Str),
    opt("description", Kind::Str),
    opt("paths", Kind::StrList),
    opt("except", Kind::StrList),
    opt("authors", Kind::StrList),
    opt("tickers", Kind::StrList),
    opt("instead", Kind::Str),
    opt("disabled", Kind::Bool),
];
pub(crate) const FIELDS_OUTSIDE: &[Field] =
    &[opt("allow", Kind::StrList), opt("instead", Kind::Str)];
pub(crate) const FIELDS_TOOL: &[Field] = &[
    req("class", Kind::Enum(&["read", "write"])),
    opt("pathArgs", Kind::StrList),
];
pub(crate) const FIELDS_POLICY: &[Field] = &[
    opt("$schema", Kind::Str),
    opt("name", Kind::Str),
    opt("description", Kind::Str),
    opt("preset", Kind::Str),
    opt("caseInsensitive", Kind::Bool),
    opt("mode", Kind::Enum(MODES)),
    opt("agents", Kind::MapOf(FIELDS_AGENT)),
    opt("rules", Kind::ListOf(FIELDS_RULE)),
    opt("defaults", Kind::Obj(FIELDS_DEFAULTS)),
    opt("appendOnly", Kind::ListOf(FIELDS_APPEND_ONLY)),
    opt("sacred", Kind::ListOf(FIELDS_SACRED)),
    opt("outsideProject", Kind::Obj(FIELDS_OUTSIDE)),
    opt("tools", Kind::MapOf(FIELDS_TOOL)),
];

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn expected_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Str | Kind::Enum(_) => "a string",
        Kind::Bool => "true or false",
        Kind::StrList | Kind::EnumList(_) | Kind::ListOf(_) => "an array",
        Kind::Obj(_) | Kind::MapOf(_) => "an object",
    }
}

/// Closest candidate within a small edit distance, for "did you mean" hints.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(&word.to_ascii_lowercase(), &c.to_ascii_lowercase());
        let limit = (c.len().max(word.len()) / 3).max(1);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn walk(v: &Value, path: &str, kind: &Kind, source: &str, out: &mut Vec<ConfigError>) {
    if out.len() >= 20 {
        return;
    }
    let bad_type = |out: &mut Vec<ConfigError>| {
        out.push(err(
            codes::INVALID_TYPE,
            source,
            path,
            format!("expected {}, found {}", expected_name(kind), type_name(v)),
            format!("write {} here", expected_name(kind)),
        ))
    };
    match kind {
        Kind::Str => {
            if !v.is_string() {
                bad_type(out)
            }
        }
        Kind::Bool => {
            if !v.is_boolean() {
                bad_type(out)
            }
        }
        Kind::Enum(allowed) => match v.as_str() {
            Some(s) if allowed.contains(&s) => {}
            Some(s) => out.push(err(
                codes::INVALID_VALUE,
                source,
                path,
                format!("`{s}` is not one of: {}", allowed.join(", ")),
                match did_you_mean(s, allowed.iter().copied()) {
                    Some(m) => format!("did you mean `{m}`?"),
                    None => format!("use one of: {}", allowed.join(", ")),
                },
            )),
            None => bad_type(out),
        },
        Kind::StrList | Kind::EnumList(_) => match v.as_array() {
            Some(items) => {
                let inner = match kind {
                    Kind::EnumList(allowed) => Kind::Enum(allowed),
                    _ => Kind::Str,
                };
                for (i, item) in items.iter().enumerate() {
                    walk(item, &index_path(path, i), &inner, source, out);
                }
            }
            None => bad_type(out),
        },
        Kind::ListOf(fields) => match v.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, &index_path(path, i), &Kind::Obj(fields), source, out);
                }
            }
            None => bad_type(out),
        },
        Kind::MapOf(fields) => match v.as_object() {
            Some(map) => {
                for (k, item) in map {
                    walk(item, &key_path(path, k), &Kind::Obj(fields), source, out);
                }
            }
            None => bad_type(out),
        },
        Kind::Obj(fields) => {
            let Some(map) = v.as_object() else {
                return bad_type(out);
            };
            for (k, item) in map {
                let p = key_path(path, k);
                match fields.iter().find(|f| f.name == k) {
                    Some(f) => {
                        if !item.is_null() {
                            walk(item, &p, &f.kind, source, out)
                        } else if f.required {
                            out.push(err(
                                codes::INVALID_TYPE,
                                source,
                                &p,
                                "this field may not be null",
                                format!("write {} here", expected_name(&f.kind)),
                            ))
                        }
                    }
                    None => {
                        let names = fields.iter().map(|f| f.name);
                        let hint = match did_you_mean(k, names) {
                            Some(m) => format!("did you mean `{m}`?"),
                            None => format!(
                                "remove it; allowed here: {}",
                                fields.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
                            ),
                        };
                        out.push(err(
                            codes::UNKNOWN_FIELD,
                            source,
                            &p,
                            format!("unknown field `{k}`"),
                            hint,
                        ));
                    }
                }
            }
            for f in fields.iter().filter(|f| f.required) {
                if !map.contains_key(f.name) {
                    out.push(err(
                        codes::MISSING_FIELD,
                        source,
                        path,
                        format!("missing field `{}`", f.name),
                        format!("add `\"{}\"`", f.name),
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(text: &str) -> ConfigError {
        parse_raw(text, ".opencode/nso.json")
            .unwrap_err()
            .0
            .remove(0)
    }

    #[test]
    fn error_paths() {
        let e = first(r#"{"rules":[{"id":"a"},{"id":"b","pathz":["x"]}]}"#);
        assert_eq!(
            (e.code, e.path.as_str()),
            (codes::UNKNOWN_FIELD, "rules[1].pathz")
        );
        assert!(e.hint.contains("paths"), "{}", e.hint);

        let e = first(r#"{"rules":[{"id":"a","paths":["x", 3]}]}"#);
        assert_eq!(
            (e.code, e.path.as_str()),
            (codes::INVALID_TYPE, "rules[0].paths[1]")
        );

        let e = first(r#"{"rules":[{"id":"a","effect":"alow"}]}"#);
        assert_eq!(
            (e.code, e.path.as_str()),
            (codes::INVALID_VALUE, "rules[0].effect")
        );
        assert!(e.hint.contains("allow"));

        let e = first(r#"{"rules":[{"effect":"allow"}]}"#);
        assert_eq!(
            (e.code, e.path.as_str()),
            (codes::MISSING_FIELD, "rules[0]")
        );

        let e = first(r#"{"agents":{"dev-junior":{"alias":["x"]}}}"#);
        assert_eq!(e.path, "agents.dev-junior.alias");
        assert!(e.hint.contains("aliases"));

        let e = first(r#"{"agents":{"Prometheus (Plan)":{"defaults":{"write":"nope"}}}}"#);
        assert_eq!(e.path, "agents[\"Prometheus (Plan)\"].defaults.write");

        let e = first(r#"{"caseInsensitive":"yes"}"#);
        assert_eq!(
            (e.code, e.path.as_str()),
            (codes::INVALID_TYPE, "caseInsensitive")
        );

        let e = first(r#"{"rules": [}"#);
        assert_eq!(e.code, codes::JSON_SYNTAX);

        let e = first(r#"[1]"#);
        assert_eq!((e.code, e.path.as_str()), (codes::INVALID_TYPE, "$"));
    }

    #[test]
    fn schema_matches_parser_fields() {
        let schema: Value = serde_json::from_str(crate::authority::POLICY_SCHEMA).unwrap();
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            k.sort();
            k
        };
        let required = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v["required"]
                .as_array()
                .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
                .unwrap_or_default();
            k.sort();
            k
        };
        let names = |f: &[Field], req_only: bool| -> Vec<String> {
            let mut k: Vec<String> = f
                .iter()
                .filter(|f| !req_only || f.required)
                .map(|f| f.name.to_string())
                .collect();
            k.sort();
            k
        };
        assert_eq!(keys(&schema), names(FIELDS_POLICY, false));
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        let defs = &schema["$defs"];
        for (def, fields) in [
            ("agent", FIELDS_AGENT),
            ("rule", FIELDS_RULE),
            ("defaults", FIELDS_DEFAULTS),
            ("appendOnly", FIELDS_APPEND_ONLY),
            ("sacred", FIELDS_SACRED),
            ("outsideProject", FIELDS_OUTSIDE),
            ("tool", FIELDS_TOOL),
        ] {
            assert_eq!(keys(&defs[def]), names(fields, false), "{def}");
            assert_eq!(required(&defs[def]), names(fields, true), "{def}");
            assert_eq!(
                defs[def]["additionalProperties"],
                Value::Bool(false),
                "{def}"
            );
        }
        let git: Vec<&str> = defs["rule"]["properties"]["git"]["items"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(git, GIT_OP_NAMES);
        let effects: Vec<&str> = defs["effect"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(effects, EFFECTS);
    }

    #[test]
    fn base_path_prefix() {
        let v: Value = serde_json::json!({"rules": [{"id": "x", "bogus": 1}]});
        let e = parse_raw_value(&v, "f", "authority").unwrap_err();
        assert_eq!(e.0[0].path, "authority.rules[0].bogus");
    }
}
