//! The `continuity` section of `.opencode/nso.json`: the decision ledger, session transcripts
//! (the raw lane and its T0 view) and handoffs. Every key is optional.

use super::{ConfigError, Ctx};
use serde_json::Value;

/// Default ledger file, relative to the project root.
pub const DEFAULT_LEDGER: &str = ".opencode/context/decisions.md";

/// Settings of handoffs (`continuity.handoff`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandoffConfig {
    /// Lines of a handoff (one screen).
    pub lines: usize,
    /// Longest line, in characters.
    pub width: usize,
    /// Lines of an expanded handoff (`nso handoff --expand`, the tool's `expand`).
    pub expand_lines: usize,
    /// Whether a new main session's start summary carries the project's latest handoff.
    pub at_session_start: bool,
    /// Whether a compaction's context carries the session's handoff.
    pub at_compaction: bool,
    /// How many recent sessions' digests the mind layer lists.
    pub recent_sessions: usize,
}

impl Default for HandoffConfig {
    fn default() -> Self {
        HandoffConfig {
            lines: 40,
            width: 160,
            expand_lines: 400,
            at_session_start: true,
            at_compaction: true,
            recent_sessions: 3,
        }
    }
}

/// Settings of continuity (`continuity`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinuityConfig {
    /// Whether any of it runs (off: no ledger enforcement, transcripts or handoffs).
    pub enabled: bool,
    /// The decision ledger, relative to the project root; always append-only.
    pub ledger: String,
    /// Where transcripts and handoffs are kept, relative to the project root.
    pub dir: String,
    /// Whether each session's events are recorded (the raw lane) and compacted (T0).
    pub transcripts: bool,
    /// Longest tool output kept in the raw lane (its size is always recorded).
    pub raw_output_bytes: usize,
    /// Largest raw lane of one session: records past it are left out (and counted in the T0).
    pub lane_max_bytes: usize,
    /// How long events wait in memory before they are appended (batched writes).
    pub flush_ms: u64,
    /// The T0 policy as written (`None`: the built-in `nso-t0` v1); validated here,
    /// compiled where transcripts are made.
    pub t0: Option<Value>,
    /// Handoffs.
    pub handoff: HandoffConfig,
    /// Mind's settings as written (`None`: the defaults); validated here.
    pub mind: Option<Value>,
}

impl Default for ContinuityConfig {
    fn default() -> Self {
        ContinuityConfig {
            enabled: true,
            ledger: DEFAULT_LEDGER.to_string(),
            dir: ".opencode/nso".to_string(),
            transcripts: true,
            raw_output_bytes: 64 * 1024,
            lane_max_bytes: 1024 * 1024,
            flush_ms: 250,
            t0: None,
            handoff: HandoffConfig::default(),
            mind: None,
        }
    }
}

const KEYS: [&str; 10] = [
    "enabled",
    "mind",
    "ledger",
    "dir",
    "transcripts",
    "rawOutputBytes",
    "laneMaxBytes",
    "flushMs",
    "t0",
    "handoff",
];
const HANDOFF_KEYS: [&str; 6] = [
    "lines",
    "width",
    "expandLines",
    "atSessionStart",
    "atCompaction",
    "recentSessions",
];

/// Parses the `continuity` section.
pub(super) fn parse(ctx: &Ctx, v: &Value) -> Result<ContinuityConfig, ConfigError> {
    let mut c = ContinuityConfig::default();
    let o = ctx.object(v, "continuity")?;
    ctx.known_keys(o, "continuity", &KEYS)?;
    if let Some(v) = o.get("enabled") {
        c.enabled = ctx.boolean(v, "continuity.enabled")?;
    }
    if let Some(v) = o.get("ledger") {
        let s = ctx.string(v, "continuity.ledger")?;
        c.ledger = ctx.relative_path(s, "continuity.ledger")?;
        if c.ledger.ends_with('/') {
            return Err(ctx.error(
                "config_value",
                "continuity.ledger",
                format!("\"{s}\" names a folder."),
                "name the ledger file, e.g. \".opencode/context/decisions.md\".".to_string(),
            ));
        }
    }
    if let Some(v) = o.get("dir") {
        let s = ctx.string(v, "continuity.dir")?;
        c.dir = ctx.relative_path(s, "continuity.dir")?;
    }
    if let Some(v) = o.get("transcripts") {
        c.transcripts = ctx.boolean(v, "continuity.transcripts")?;
    }
    if let Some(v) = o.get("rawOutputBytes") {
        c.raw_output_bytes =
            ctx.positive(v, "continuity.rawOutputBytes", 16 * 1024 * 1024)? as usize;
    }
    if let Some(v) = o.get("laneMaxBytes") {
        c.lane_max_bytes = ctx.positive(v, "continuity.laneMaxBytes", 1024 * 1024 * 1024)? as usize;
    }
    if let Some(v) = o.get("flushMs") {
        c.flush_ms = ctx.positive(v, "continuity.flushMs", 60_000)?;
    }
    if let Some(v) = o.get("t0") {
        ctx.object(v, "continuity.t0")?;
        crate::continuity::policy::T0Policy::from_json(v).map_err(|e| {
            let path = if e.path.is_empty() {
                "continuity.t0".to_string()
            } else {
                format!("continuity.t0.{}", e.path)
            };
            ctx.error("config_value", &path, e.problem, e.fix)
        })?;
        c.t0 = Some(v.clone());
    }
    // A snippet longer than what the raw lane keeps would differ between the live lane and
    // an export of the same session.
    let snippets =
        c.t0.as_ref()
            .and_then(|t| t.get("snippets"))
            .and_then(Value::as_object);
    for (tool, bytes) in snippets.into_iter().flatten() {
        if bytes
            .as_u64()
            .is_some_and(|b| b > c.raw_output_bytes as u64)
        {
            return Err(ctx.error(
                "config_value",
                &format!("continuity.t0.snippets.{tool}"),
                format!(
                    "{bytes} bytes is more than the raw lane keeps (continuity.rawOutputBytes: {}).",
                    c.raw_output_bytes
                ),
                "lower the snippet, or raise continuity.rawOutputBytes.".to_string(),
            ));
        }
    }
    if let Some(v) = o.get("mind") {
        crate::mind::MindSettings::from_json(v).map_err(|e| {
            let path = format!(
                "continuity.mind{}{}",
                if e.path.is_empty() { "" } else { "." },
                e.path
            );
            ctx.error("config_value", &path, e.problem, e.fix)
        })?;
        c.mind = Some(v.clone());
    }
    if let Some(v) = o.get("handoff") {
        let h = ctx.object(v, "continuity.handoff")?;
        ctx.known_keys(h, "continuity.handoff", &HANDOFF_KEYS)?;
        let lines = |key: &str, max: u64| -> Result<Option<usize>, ConfigError> {
            h.get(key)
                .map(|v| ctx.positive(v, &format!("continuity.handoff.{key}"), max))
                .transpose()
                .map(|n| n.map(|n| n as usize))
        };
        if let Some(n) = lines("lines", 10_000)? {
            c.handoff.lines = n;
        }
        if let Some(n) = lines("width", 10_000)? {
            c.handoff.width = n;
        }
        if let Some(n) = lines("expandLines", 100_000)? {
            c.handoff.expand_lines = n;
        }
        if let Some(n) = lines("recentSessions", 100)? {
            c.handoff.recent_sessions = n;
        }
        if let Some(v) = h.get("atSessionStart") {
            c.handoff.at_session_start = ctx.boolean(v, "continuity.handoff.atSessionStart")?;
        }
        if let Some(v) = h.get("atCompaction") {
            c.handoff.at_compaction = ctx.boolean(v, "continuity.handoff.atCompaction")?;
        }
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::config::schema_tests::{keys, sorted, SCHEMA};

    /// The schema and the parser accept the same keys and agree on every default.
    #[test]
    fn schema_and_parser_agree() {
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        let c = &schema["properties"]["continuity"];
        assert_eq!(keys(c), sorted(&KEYS));
        assert_eq!(keys(&c["properties"]["handoff"]), sorted(&HANDOFF_KEYS));
        let d = ContinuityConfig::default();
        let p = &c["properties"];
        assert_eq!(p["enabled"]["default"], d.enabled);
        assert_eq!(p["ledger"]["default"], d.ledger);
        assert_eq!(p["dir"]["default"], d.dir);
        assert_eq!(p["transcripts"]["default"], d.transcripts);
        assert_eq!(p["rawOutputBytes"]["default"], d.raw_output_bytes);
        assert_eq!(p["laneMaxBytes"]["default"], d.lane_max_bytes);
        assert_eq!(p["flushMs"]["default"], d.flush_ms);
        let h = &p["handoff"]["properties"];
        assert_eq!(h["lines"]["default"], d.handoff.lines);
        assert_eq!(h["width"]["default"], d.handoff.width);
        assert_eq!(h["expandLines"]["default"], d.handoff.expand_lines);
        assert_eq!(h["atSessionStart"]["default"], d.handoff.at_session_start);
        assert_eq!(h["atCompaction"]["default"], d.handoff.at_compaction);
        assert_eq!(h["recentSessions"]["default"], d.handoff.recent_sessions);
        // The T0 policy's schema names the keys its parser knows.
        let t0 = &p["t0"];
        let policy = crate::continuity::policy::T0Policy::default();
        assert_eq!(t0["properties"]["name"]["default"], policy.name);
        assert_eq!(t0["properties"]["version"]["default"], policy.version);
        for (key, value) in t0["properties"].as_object().unwrap() {
            let one = serde_json::json!({ key: value["default"].clone() });
            let default_ok = value.get("default").is_none()
                || crate::continuity::policy::T0Policy::from_json(&one).is_ok();
            assert!(default_ok, "t0.{key}: its schema default is refused");
        }
        let typo = serde_json::json!({ "snippet": {} });
        assert!(crate::continuity::policy::T0Policy::from_json(&typo).is_err());
    }

    fn parse_text(text: &str) -> Result<crate::config::Config, ConfigError> {
        crate::config::parse(".opencode/nso.json", Some(text))
    }

    /// Every mistake names its JSON path and a fix.
    #[test]
    fn mistakes_name_the_path() {
        let cases = [
            (r#"{"continuity":{"ledgr":"x.md"}}"#, "continuity.ledgr"),
            (
                r#"{"continuity":{"ledger":"../x.md"}}"#,
                "continuity.ledger",
            ),
            (
                r#"{"continuity":{"ledger":"/etc/x.md"}}"#,
                "continuity.ledger",
            ),
            (r#"{"continuity":{"ledger":"notes/"}}"#, "continuity.ledger"),
            (r#"{"continuity":{"flushMs":0}}"#, "continuity.flushMs"),
            (
                r#"{"continuity":{"laneMaxBytes":0}}"#,
                "continuity.laneMaxBytes",
            ),
            (
                r#"{"continuity":{"handoff":{"lines":"40"}}}"#,
                "continuity.handoff.lines",
            ),
            (
                r#"{"continuity":{"handoff":{"line":40}}}"#,
                "continuity.handoff.line",
            ),
            (r#"{"continuity":[]}"#, "continuity"),
        ];
        for (text, path) in cases {
            let e = parse_text(text).expect_err(text);
            assert_eq!(e.path, path, "{text}");
            assert!(!e.fix.is_empty(), "{text}");
        }
        let e = parse_text(r#"{"continuity":{"t0":{"snippets":{"bash":0}}}}"#).unwrap_err();
        assert!(e.path.starts_with("continuity.t0"), "{}", e.path);
        let e =
            parse_text(r#"{"continuity":{"rawOutputBytes":100,"t0":{"snippets":{"bash":400}}}}"#)
                .unwrap_err();
        assert_eq!(e.path, "continuity.t0.snippets.bash");
        assert!(e.problem.contains("rawOutputBytes"), "{}", e.problem);
    }

    /// Set values arrive; unset ones keep their defaults.
    #[test]
    fn values_are_read() {
        let c = parse_text(
            r#"{"continuity":{"ledger":"docs/decisions.md","transcripts":false,"laneMaxBytes":4096,
                "handoff":{"lines":12,"atSessionStart":false}}}"#,
        )
        .unwrap()
        .continuity;
        assert_eq!(c.ledger, "docs/decisions.md");
        assert!(!c.transcripts);
        assert_eq!(c.handoff.lines, 12);
        assert_eq!(c.lane_max_bytes, 4096);
        assert!(!c.handoff.at_session_start);
        assert_eq!(c.handoff.width, 160);
        assert_eq!(c.dir, ".opencode/nso");
    }
}
