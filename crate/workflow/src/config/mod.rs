//! The project configuration `.opencode/nso.json`: parsing, validation and defaults.
//!
//! The file is optional; every key is optional and has a documented default. Unknown keys and
//! wrong types are errors (a typo must not silently disable a rule), reported with the file,
//! the JSON path and the fix. The JSON Schema in `schema/nso.schema.json` describes the same
//! shape; a test keeps the two in step.

use serde_json::{Map, Value};
use std::fmt;

pub mod conductor_store;
pub mod continuity;
pub mod hosts;
pub mod problems;
pub use continuity::{ContinuityConfig, HandoffConfig};
pub use hosts::ClaudeCodeConfig;

/// Default memory files loaded into the session summary, relative to the project root.
pub const DEFAULT_MEMORY_FILES: [&str; 3] = [
    ".opencode/context/01_memory/active_context.md",
    ".opencode/context/01_memory/progress.md",
    ".opencode/context/01_memory/patterns.md",
];

/// Settings for the session summary built from memory files.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryConfig {
    /// Whether memory files are loaded at all.
    pub enabled: bool,
    /// Files to load, relative to the project root, in order.
    pub files: Vec<String>,
    /// Upper bound of the whole summary in bytes (UTF-8).
    pub max_bytes: usize,
    /// Upper bound of one file's excerpt in bytes.
    pub max_bytes_per_file: usize,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            enabled: true,
            files: DEFAULT_MEMORY_FILES.iter().map(|s| s.to_string()).collect(),
            max_bytes: 12_000,
            max_bytes_per_file: 6_000,
        }
    }
}

/// Settings for the project's own hook scripts (`.opencode/hooks/pre_tool_use/` etc.).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HooksConfig {
    /// Whether executable scripts in the hook folders run.
    pub enabled: bool,
    /// Time limit per script; a pre hook that times out blocks the call.
    pub timeout_ms: u64,
}

impl Default for HooksConfig {
    fn default() -> Self {
        HooksConfig {
            enabled: true,
            timeout_ms: 5_000,
        }
    }
}

/// NSO's own tools offered to agents (`nso_contract`, `nso_status_set`, ...).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsConfig {
    /// Whether the tools are offered at all.
    pub enabled: bool,
    /// Tools or groups offered even where the project lacks what they need (names from
    /// [`crate::toolbox::NSO_TOOLS`] and [`crate::toolbox::GROUPS`]).
    pub include: Vec<String>,
    /// Tools or groups left out.
    pub exclude: Vec<String>,
    /// Per agent, the only tools or groups it sees.
    pub per_agent: std::collections::BTreeMap<String, Vec<String>>,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        ToolsConfig {
            enabled: true,
            include: Vec::new(),
            exclude: Vec::new(),
            per_agent: std::collections::BTreeMap::new(),
        }
    }
}

/// How the Conductor's claims are enforced (`conductor` in `.opencode/nso.json`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConductorConfig {
    /// `off` (no instance, no claims), `advisory` (a conflict is logged and the agent warned,
    /// the call passes) or `enforce` (a conflict refuses the call).
    pub mode: String,
    /// Claims of an instance with no activity for this long are released.
    pub idle_release_minutes: u64,
    /// Instances on other hosts whose last heartbeat is older than this lose their claims.
    pub ttl_seconds: u64,
    /// The state folder (absolute, or relative to the project); `None`: `$CONDUCTOR_HOME`,
    /// else `~/.conductor`.
    pub home: Option<String>,
    /// Where the claims are kept (`conductor.store`): `None` for the files of `home`, else
    /// a PostgreSQL database shared by several machines.
    pub store: Option<conductor_store::PostgresStore>,
}

impl Default for ConductorConfig {
    fn default() -> Self {
        ConductorConfig {
            mode: "enforce".to_string(),
            idle_release_minutes: 30,
            ttl_seconds: 600,
            home: None,
            store: None,
        }
    }
}

const CONDUCTOR_MODES: [&str; 3] = ["off", "advisory", "enforce"];

/// Settings for delegations (`task` calls).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DelegationConfig {
    /// Longest chain of delegations (main session = depth 0).
    pub max_depth: usize,
    /// Delegations of one task (re-delegations after questions) before escalating to the user.
    pub max_attempts: u32,
}

impl Default for DelegationConfig {
    fn default() -> Self {
        DelegationConfig {
            max_depth: 3,
            max_attempts: 3,
        }
    }
}

/// Bounds on what the shim passes into the core with a tool call.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LimitsConfig {
    /// The largest text of a change (`write` content, `edit` strings) and the largest
    /// current file content the shim passes in; larger ones are left out, and checks that
    /// need them (append-only, checkboxes, status machines) fail closed.
    pub content_bytes: u64,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            content_bytes: DEFAULT_CONTENT_BYTES,
        }
    }
}

/// Default of `limits.contentBytes`: 1 MiB (passing it in costs about a millisecond).
pub const DEFAULT_CONTENT_BYTES: u64 = 1024 * 1024;

/// The whole configuration, with defaults filled in.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// Memory files and the summary's bounds.
    pub memory: MemoryConfig,
    /// Project hook scripts.
    pub hooks: HooksConfig,
    /// Folder for NSO's logs, relative to the project root.
    pub log_dir: String,
    /// Delegation limits.
    pub delegation: DelegationConfig,
    /// NSO's tools for agents.
    pub tools: ToolsConfig,
    /// Bounds on what crosses into the core.
    pub limits: LimitsConfig,
    /// Claims across OpenCode windows and processes (the Conductor).
    pub conductor: ConductorConfig,
    /// The decision ledger, session transcripts and handoffs.
    pub continuity: ContinuityConfig,
    /// Who is calling when Claude Code runs NSO's hook.
    pub claude_code: ClaudeCodeConfig,
    /// The intent router's configuration (keywords, weights, thresholds, handlers).
    #[serde(skip)]
    pub routing: crate::routing::router::RoutingConfig,
    /// The authority policy section, passed to the authority engine as it is.
    #[serde(skip)]
    pub authority: Value,
    /// The `status` section as written (`None`: absent, the shipped machines). The
    /// machines are compiled and fully validated by the workflow package
    /// ([`crate::status::parse_status_section`]); here only its shape is checked and the
    /// globs it binds are read ([`Config::status_scope`]).
    pub status: Option<Value>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            memory: MemoryConfig::default(),
            hooks: HooksConfig::default(),
            log_dir: ".opencode/logs".to_string(),
            delegation: DelegationConfig::default(),
            tools: ToolsConfig::default(),
            limits: LimitsConfig::default(),
            conductor: ConductorConfig::default(),
            continuity: ContinuityConfig::default(),
            claude_code: ClaudeCodeConfig::default(),
            routing: crate::routing::router::RoutingConfig::default(),
            authority: Value::Object(Map::new()),
            status: None,
        }
    }
}

/// A configuration problem, precise enough to fix without reading NSO's source.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ConfigError {
    /// Stable machine-readable code: `config_json`, `config_unknown_key`, `config_type`,
    /// `config_value`.
    pub code: &'static str,
    /// The file the problem is in.
    pub file: String,
    /// JSON path of the offending value (`memory.files[2]`), or `line L column C` for syntax.
    pub path: String,
    /// What is wrong.
    pub problem: String,
    /// How to fix it.
    pub fix: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {} Fix: {}",
            self.file, self.path, self.problem, self.fix
        )
    }
}

impl std::error::Error for ConfigError {}

pub(crate) const TOP_KEYS: [&str; 13] = [
    "$schema",
    "claudeCode",
    "conductor",
    "continuity",
    "limits",
    "memory",
    "hooks",
    "logDir",
    "authority",
    "routing",
    "delegation",
    "status",
    "tools",
];
const TOOLS_KEYS: [&str; 4] = ["enabled", "include", "exclude", "perAgent"];
const DELEGATION_KEYS: [&str; 2] = ["maxDepth", "maxAttempts"];
const MEMORY_KEYS: [&str; 4] = ["enabled", "files", "maxBytes", "maxBytesPerFile"];
const HOOKS_KEYS: [&str; 2] = ["enabled", "timeoutMs"];
const LIMITS_KEYS: [&str; 1] = ["contentBytes"];
const CONDUCTOR_KEYS: [&str; 5] = ["mode", "idleReleaseMinutes", "ttlSeconds", "home", "store"];

/// Parses the text of `file` (absent file: pass `None`) into a [`Config`].
pub fn parse(file: &str, text: Option<&str>) -> Result<Config, ConfigError> {
    let mut config = Config::default();
    let Some(text) = text else { return Ok(config) };
    if text.trim().is_empty() {
        return Ok(config);
    }
    let ctx = Ctx { file };
    let root: Value = serde_json::from_str(text).map_err(|e| ConfigError {
        code: "config_json",
        file: file.to_string(),
        path: format!("line {} column {}", e.line(), e.column()),
        problem: format!("not valid JSON ({}).", strip_position(&e.to_string())),
        fix: "correct the JSON syntax (no comments or trailing commas are allowed).".to_string(),
    })?;
    let top = ctx.object(&root, "(document)")?;
    ctx.known_keys(top, "", &TOP_KEYS)?;
    if let Some(v) = top.get("memory") {
        let m = ctx.object(v, "memory")?;
        ctx.known_keys(m, "memory", &MEMORY_KEYS)?;
        if let Some(v) = m.get("enabled") {
            config.memory.enabled = ctx.boolean(v, "memory.enabled")?;
        }
        if let Some(v) = m.get("files") {
            config.memory.files = ctx.relative_paths(v, "memory.files")?;
        }
        if let Some(v) = m.get("maxBytes") {
            config.memory.max_bytes = ctx.positive(v, "memory.maxBytes", 1_000_000)? as usize;
        }
        if let Some(v) = m.get("maxBytesPerFile") {
            config.memory.max_bytes_per_file =
                ctx.positive(v, "memory.maxBytesPerFile", 1_000_000)? as usize;
        }
    }
    if let Some(v) = top.get("hooks") {
        let h = ctx.object(v, "hooks")?;
        ctx.known_keys(h, "hooks", &HOOKS_KEYS)?;
        if let Some(v) = h.get("enabled") {
            config.hooks.enabled = ctx.boolean(v, "hooks.enabled")?;
        }
        if let Some(v) = h.get("timeoutMs") {
            config.hooks.timeout_ms = ctx.positive(v, "hooks.timeoutMs", 600_000)?;
        }
    }
    if let Some(v) = top.get("tools") {
        let t = ctx.object(v, "tools")?;
        ctx.known_keys(t, "tools", &TOOLS_KEYS)?;
        if let Some(v) = t.get("enabled") {
            config.tools.enabled = ctx.boolean(v, "tools.enabled")?;
        }
        if let Some(v) = t.get("include") {
            config.tools.include = ctx.tool_names(v, "tools.include")?;
        }
        if let Some(v) = t.get("exclude") {
            config.tools.exclude = ctx.tool_names(v, "tools.exclude")?;
        }
        if let Some(v) = t.get("perAgent") {
            let agents = ctx.object(v, "tools.perAgent")?;
            for (agent, list) in agents {
                let names = ctx.tool_names(list, &format!("tools.perAgent.{agent}"))?;
                config.tools.per_agent.insert(agent.clone(), names);
            }
        }
    }
    if let Some(v) = top.get("limits") {
        let l = ctx.object(v, "limits")?;
        ctx.known_keys(l, "limits", &LIMITS_KEYS)?;
        if let Some(v) = l.get("contentBytes") {
            config.limits.content_bytes =
                ctx.positive(v, "limits.contentBytes", 64 * 1024 * 1024)?;
        }
    }
    if let Some(v) = top.get("conductor") {
        let c = ctx.object(v, "conductor")?;
        ctx.known_keys(c, "conductor", &CONDUCTOR_KEYS)?;
        if let Some(v) = c.get("mode") {
            let mode = ctx.string(v, "conductor.mode")?;
            if !CONDUCTOR_MODES.contains(&mode) {
                return Err(ctx.error(
                    "config_value",
                    "conductor.mode",
                    format!("`{mode}` is not a mode."),
                    "use \"off\", \"advisory\" or \"enforce\".".to_string(),
                ));
            }
            config.conductor.mode = mode.to_string();
        }
        if let Some(v) = c.get("idleReleaseMinutes") {
            config.conductor.idle_release_minutes =
                ctx.positive(v, "conductor.idleReleaseMinutes", 7 * 24 * 60)?;
        }
        if let Some(v) = c.get("ttlSeconds") {
            config.conductor.ttl_seconds =
                ctx.positive(v, "conductor.ttlSeconds", 7 * 24 * 3600)?;
        }
        if let Some(v) = c.get("home") {
            let home = ctx.string(v, "conductor.home")?;
            if home.trim().is_empty() {
                return Err(ctx.error(
                    "config_value",
                    "conductor.home",
                    "the folder is empty.".to_string(),
                    "name a folder, or remove the key to use $CONDUCTOR_HOME or ~/.conductor."
                        .to_string(),
                ));
            }
            config.conductor.home = Some(home.to_string());
        }
        if let Some(v) = c.get("store") {
            config.conductor.store = conductor_store::parse(&ctx, v)?;
        }
    }
    if let Some(v) = top.get("claudeCode") {
        config.claude_code = hosts::parse(&ctx, v)?;
    }
    if let Some(v) = top.get("continuity") {
        config.continuity = continuity::parse(&ctx, v)?;
    }
    if let Some(v) = top.get("logDir") {
        let s = ctx.string(v, "logDir")?;
        config.log_dir = ctx.relative_path(s, "logDir")?;
    }
    if let Some(v) = top.get("delegation") {
        let d = ctx.object(v, "delegation")?;
        ctx.known_keys(d, "delegation", &DELEGATION_KEYS)?;
        if let Some(v) = d.get("maxDepth") {
            config.delegation.max_depth = ctx.positive(v, "delegation.maxDepth", 10)? as usize;
        }
        if let Some(v) = d.get("maxAttempts") {
            config.delegation.max_attempts = ctx.positive(v, "delegation.maxAttempts", 20)? as u32;
        }
    }
    if let Some(v) = top.get("routing") {
        config.routing =
            crate::routing::router::RoutingConfig::from_json(v).map_err(|e| ConfigError {
                code: "config_routing",
                file: file.to_string(),
                path: if e.path.is_empty() {
                    "routing".into()
                } else {
                    format!("routing.{}", e.path)
                },
                problem: e.problem,
                fix: e.fix,
            })?;
    }
    if let Some(v) = top.get("authority") {
        ctx.object(v, "authority")?;
        config.authority = v.clone();
    }
    if let Some(v) = top.get("status") {
        let st = ctx.object(v, "status")?;
        if let Some(e) = st.get("enabled") {
            ctx.boolean(e, "status.enabled")?;
        }
        if let Some(m) = st.get("machines") {
            ctx.object(m, "status.machines")?;
        }
        config.status = Some(v.clone());
    }
    Ok(config)
}

impl Config {
    /// The globs of every file a status machine may govern (empty: status governance off):
    /// the shipped machines' unless `status.defaults` is `[]`, plus the project machines'.
    pub fn status_scope(&self) -> Vec<String> {
        let Some(section) = &self.status else {
            return crate::status::DEFAULT_BINDING_GLOBS
                .iter()
                .map(|g| g.to_string())
                .chain([crate::kord::plan::PLAN_GLOB.to_string()])
                .collect();
        };
        if section.get("enabled") == Some(&Value::Bool(false)) {
            return Vec::new();
        }
        let mut globs: Vec<String> = Vec::new();
        let no_defaults = section
            .get("defaults")
            .and_then(Value::as_array)
            .is_some_and(|d| d.is_empty());
        if !no_defaults {
            // Kord plans are checked when written (their quality gates, their squad).
            globs.push(crate::kord::plan::PLAN_GLOB.to_string());
            globs.extend(
                crate::status::DEFAULT_BINDING_GLOBS
                    .iter()
                    .map(|g| g.to_string()),
            );
        }
        let machines = section.get("machines").and_then(Value::as_object);
        for machine in machines.into_iter().flat_map(|m| m.values()) {
            let files = machine.get("files").and_then(Value::as_array);
            for file in files.into_iter().flatten() {
                let list = file.get("globs").and_then(Value::as_array);
                globs.extend(
                    list.into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_string),
                );
            }
        }
        globs
    }
}

/// serde_json appends " at line L column C", which the path already says.
fn strip_position(message: &str) -> &str {
    message.split(" at line ").next().unwrap_or(message)
}

pub(crate) struct Ctx<'a> {
    pub(crate) file: &'a str,
}

impl Ctx<'_> {
    pub(crate) fn error(
        &self,
        code: &'static str,
        path: &str,
        problem: String,
        fix: String,
    ) -> ConfigError {
        ConfigError {
            code,
            file: self.file.to_string(),
            path: path.to_string(),
            problem,
            fix,
        }
    }

    pub(crate) fn type_error(&self, path: &str, expected: &str, got: &Value) -> ConfigError {
        self.error(
            "config_type",
            path,
            format!("expected {expected}, found {}.", describe(got)),
            format!("make `{path}` {expected}, or remove it to use the default."),
        )
    }

    pub(crate) fn object<'v>(
        &self,
        v: &'v Value,
        path: &str,
    ) -> Result<&'v Map<String, Value>, ConfigError> {
        v.as_object()
            .ok_or_else(|| self.type_error(path, "an object", v))
    }

    pub(crate) fn boolean(&self, v: &Value, path: &str) -> Result<bool, ConfigError> {
        v.as_bool()
            .ok_or_else(|| self.type_error(path, "true or false", v))
    }

    pub(crate) fn string<'v>(&self, v: &'v Value, path: &str) -> Result<&'v str, ConfigError> {
        v.as_str()
            .ok_or_else(|| self.type_error(path, "a string", v))
    }

    /// A list of NSO's tool or group names (`tools.include` and the like).
    fn tool_names(&self, v: &Value, path: &str) -> Result<Vec<String>, ConfigError> {
        let items = v
            .as_array()
            .ok_or_else(|| self.type_error(path, "a list of tool or group names", v))?;
        let mut known: Vec<&str> = crate::toolbox::GROUPS.to_vec();
        known.extend(crate::toolbox::NSO_TOOLS);
        let mut names = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let p = format!("{path}[{i}]");
            let name = self.string(item, &p)?;
            if !crate::toolbox::is_tool_or_group(name) {
                let list = known.join(", ");
                let hint = match closest(name, &known) {
                    Some(k) => format!("did you mean `{k}`? NSO's tool groups and tools: {list}."),
                    None => format!("name one of NSO's tool groups or tools: {list}."),
                };
                return Err(self.error(
                    "config_value",
                    &p,
                    format!("`{name}` is not one of NSO's tools or tool groups."),
                    hint,
                ));
            }
            names.push(name.to_string());
        }
        Ok(names)
    }

    pub(crate) fn positive(&self, v: &Value, path: &str, max: u64) -> Result<u64, ConfigError> {
        match v.as_u64() {
            Some(n) if n > 0 && n <= max => Ok(n),
            _ => Err(self.type_error(path, &format!("a whole number from 1 to {max}"), v)),
        }
    }

    pub(crate) fn relative_path(&self, s: &str, path: &str) -> Result<String, ConfigError> {
        let escapes = s.starts_with('/') || s.split(['/', '\\']).any(|part| part == "..");
        if s.is_empty() || escapes {
            return Err(self.error(
                "config_value",
                path,
                format!("\"{s}\" is not a path inside the project."),
                "give a path relative to the project root, without `..`.".to_string(),
            ));
        }
        Ok(s.to_string())
    }

    pub(crate) fn relative_paths(&self, v: &Value, path: &str) -> Result<Vec<String>, ConfigError> {
        let items = v
            .as_array()
            .ok_or_else(|| self.type_error(path, "a list of paths", v))?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let p = format!("{path}[{i}]");
                self.relative_path(self.string(item, &p)?, &p)
            })
            .collect()
    }

    pub(crate) fn known_keys(
        &self,
        obj: &Map<String, Value>,
        prefix: &str,
        known: &[&str],
    ) -> Result<(), ConfigError> {
        for key in obj.keys() {
            if !known.contains(&key.as_str()) {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                let hint = match closest(key, known) {
                    Some(k) => format!("did you mean `{k}`? Allowed here: {}.", known.join(", ")),
                    None => format!("remove it; allowed here: {}.", known.join(", ")),
                };
                return Err(self.error(
                    "config_unknown_key",
                    &path,
                    format!("unknown key `{key}`."),
                    hint,
                ));
            }
        }
        Ok(())
    }
}

/// The known key nearest to a typo, if it is close enough to be a likely meaning.
pub(crate) fn closest<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    known
        .iter()
        .map(|k| (edit_distance(&key.to_lowercase(), &k.to_lowercase()), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.len() > 40 => "a string".to_string(),
        Value::String(s) => format!("the string \"{s}\""),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = ".opencode/nso.json";

    #[test]
    fn missing_or_empty_file_gives_defaults() {
        assert_eq!(parse(FILE, None).unwrap(), Config::default());
        assert_eq!(parse(FILE, Some("  \n")).unwrap(), Config::default());
        assert_eq!(parse(FILE, Some("{}")).unwrap().memory.files.len(), 3);
    }

    #[test]
    fn values_override_defaults() {
        let c = parse(
            FILE,
            Some(
                r#"{"$schema":"x","memory":{"files":["a.md","docs/b.md"],"maxBytes":100},
                 "hooks":{"timeoutMs":250,"enabled":false},"logDir":"logs/nso"}"#,
            ),
        )
        .unwrap();
        assert_eq!(c.memory.files, vec!["a.md", "docs/b.md"]);
        assert_eq!(c.memory.max_bytes, 100);
        assert_eq!(c.memory.max_bytes_per_file, 6_000);
        assert_eq!(
            c.hooks,
            HooksConfig {
                enabled: false,
                timeout_ms: 250
            }
        );
        assert_eq!(c.log_dir, "logs/nso");
    }

    #[test]
    fn syntax_error_names_file_line_and_column() {
        let e = parse(FILE, Some("{\n  \"memory\": {,}\n}")).unwrap_err();
        assert_eq!(e.code, "config_json");
        assert_eq!(e.path, "line 2 column 14");
        assert!(e
            .to_string()
            .starts_with(".opencode/nso.json: line 2 column 14: not valid JSON"));
    }

    #[test]
    fn unknown_key_suggests_the_nearest() {
        let e = parse(FILE, Some(r#"{"memory":{"maxbytes":5}}"#)).unwrap_err();
        assert_eq!(
            (e.code, e.path.as_str()),
            ("config_unknown_key", "memory.maxbytes")
        );
        assert!(e.fix.contains("did you mean `maxBytes`"), "{}", e.fix);
        let e = parse(FILE, Some(r#"{"zzzzzz":1}"#)).unwrap_err();
        assert_eq!(e.path, "zzzzzz");
        assert!(e.fix.starts_with("remove it"));
    }

    #[test]
    fn wrong_types_name_the_path_and_expected_type() {
        let e = parse(FILE, Some(r#"{"memory":{"files":["a.md",3]}}"#)).unwrap_err();
        assert_eq!(
            (e.code, e.path.as_str()),
            ("config_type", "memory.files[1]")
        );
        assert!(e.problem.contains("expected a string, found the number 3"));
        let c = parse(FILE, Some(r#"{"tools":{"exclude":["nso_task_archive"]}}"#)).unwrap();
        assert_eq!(
            (c.tools.enabled, c.tools.exclude.as_slice()),
            (true, ["nso_task_archive".to_string()].as_slice())
        );
        let e = parse(FILE, Some(r#"{"tools":{"exclude":["nso_task_archiv"]}}"#)).unwrap_err();
        assert_eq!(
            (e.code, e.path.as_str()),
            ("config_value", "tools.exclude[0]")
        );
        assert!(
            e.fix.contains("did you mean `nso_task_archive`?"),
            "{}",
            e.fix
        );
        let e = parse(FILE, Some(r#"{"hooks":{"timeoutMs":"5s"}}"#)).unwrap_err();
        assert_eq!(e.path, "hooks.timeoutMs");
        let e = parse(FILE, Some(r#"{"hooks":{"timeoutMs":0}}"#)).unwrap_err();
        assert_eq!(e.code, "config_type");
        let e = parse(FILE, Some("[1]")).unwrap_err();
        assert_eq!(e.path, "(document)");
        let e = parse(FILE, Some(r#"{"authority":true}"#)).unwrap_err();
        assert_eq!(e.path, "authority");
    }

    #[test]
    fn delegation_and_routing_sections() {
        let c = parse(
            FILE,
            Some(r#"{"delegation":{"maxDepth":2},"routing":{"minWords":5}}"#),
        )
        .unwrap();
        assert_eq!(
            c.delegation,
            DelegationConfig {
                max_depth: 2,
                max_attempts: 3
            }
        );
        assert_eq!(c.routing.min_words, 5);
        let e = parse(FILE, Some(r#"{"routing":{"minWordz":5}}"#)).unwrap_err();
        assert_eq!(
            (e.code, e.path.as_str()),
            ("config_routing", "routing.minWordz")
        );
    }

    #[test]
    fn paths_must_stay_inside_the_project() {
        for bad in [
            r#"{"logDir":"/var/log"}"#,
            r#"{"memory":{"files":["../x.md"]}}"#,
        ] {
            assert_eq!(
                parse(FILE, Some(bad)).unwrap_err().code,
                "config_value",
                "{bad}"
            );
        }
    }
}

/// The authority engine of a project's config, as every host builds it: the policy (with the
/// ledger's guarantees, [`crate::continuity::policy_with_ledger`], while continuity is on) and the files status
/// machines govern. `source` names the config file in messages.
pub fn project_engine(
    config: &Config,
    source: &str,
) -> Result<nso_decision::authority::Engine, nso_decision::authority::ConfigErrors> {
    let policy = if config.continuity.enabled {
        crate::continuity::policy_with_ledger(&config.authority, source, &config.continuity.ledger)
    } else {
        nso_decision::authority::Policy::from_config_value(&config.authority, source, "authority")
    }?;
    let mut engine = nso_decision::authority::Engine::new(policy);
    engine.set_status_scope(&config.status_scope());
    Ok(engine)
}

#[cfg(test)]
pub(crate) mod schema_tests {
    use super::*;

    pub(super) const SCHEMA: &str = include_str!("../../../../schema/nso.schema.json");

    /// The keys of a schema object's `properties`, sorted.
    pub(super) fn keys(v: &Value) -> Vec<String> {
        let mut k: Vec<String> = v["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        k.sort();
        k
    }

    /// `k` as sorted strings.
    pub(super) fn sorted(k: &[&str]) -> Vec<String> {
        let mut k: Vec<String> = k.iter().map(|s| s.to_string()).collect();
        k.sort();
        k
    }

    /// The schema shipped to editors and the parser must accept exactly the same keys, and
    /// the schema's defaults must be the parser's.
    #[test]
    fn schema_and_parser_agree() {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        assert_eq!(keys(&schema), sorted(&TOP_KEYS));
        let memory = &schema["properties"]["memory"];
        let hooks = &schema["properties"]["hooks"];
        assert_eq!(keys(memory), sorted(&MEMORY_KEYS));
        assert_eq!(keys(hooks), sorted(&HOOKS_KEYS));
        assert_eq!(keys(&schema["properties"]["tools"]), sorted(&TOOLS_KEYS));
        let mut names: Vec<&str> = crate::toolbox::GROUPS.to_vec();
        names.extend(crate::toolbox::NSO_TOOLS);
        for key in ["include", "exclude"] {
            assert_eq!(
                schema["properties"]["tools"]["properties"][key]["items"]["enum"],
                serde_json::json!(names)
            );
        }
        assert_eq!(
            schema["properties"]["tools"]["properties"]["perAgent"]["additionalProperties"]
                ["items"]["enum"],
            serde_json::json!(names)
        );
        assert_eq!(
            keys(&schema["properties"]["delegation"]),
            sorted(&DELEGATION_KEYS)
        );
        let d = Config::default();
        assert_eq!(
            memory["properties"]["files"]["default"],
            serde_json::json!(d.memory.files)
        );
        assert_eq!(
            memory["properties"]["maxBytes"]["default"],
            d.memory.max_bytes
        );
        assert_eq!(
            memory["properties"]["maxBytesPerFile"]["default"],
            d.memory.max_bytes_per_file
        );
        assert_eq!(
            hooks["properties"]["timeoutMs"]["default"],
            d.hooks.timeout_ms
        );
        assert_eq!(schema["properties"]["logDir"]["default"], d.log_dir);
    }
}
