//! The intent router: decides whether a message starts a workflow (BUILD, DEBUG, REVIEW,
//! PLAN, RESEARCH, …) and which one, from keywords with weights (techspec section 6).
//!
//! Safety first, in this order:
//! 1. only messages whose source is `user` are routed (`AGENT_SOURCE` otherwise: agent and
//!    system messages pass through untouched);
//! 2. if `routedAgents` is set, only messages to those agents are routed (`AGENT_NOT_ROUTED`);
//! 3. while a workflow is active in the session, nothing is re-routed (`ACTIVE_WORKFLOW`);
//! 4. empty and trivial messages are not routed (`TRIVIAL`);
//! 5. then the scoring below decides (`PASSED`, `NO_MATCH` or `AMBIGUOUS`).
//!
//! # Scoring
//!
//! 1. Scan window: only the first `scanLimitBytes` bytes of the message are read (default
//!    16384), cut back to a UTF-8 character boundary. Time is linear in that window.
//! 2. Words: maximal runs of Unicode letters and digits, lowercased; anything else
//!    separates words (`don't` is `don` `t`, `bug-fix` is `bug` `fix`).
//! 3. Keywords are split into words the same way; a keyword word ending in `*` matches any
//!    message word that starts with it (`implement*` matches `implementing`). A keyword
//!    matches where its words occur consecutively in the message. Matching is therefore
//!    case-insensitive and on word boundaries: `fix` matches "Fix," but not "prefix".
//! 4. Trivial: a message with fewer than `minWords` words (default 3), or whose words are
//!    all in `trivialWords` (greetings, thanks, acknowledgements), is not routed. (Scores
//!    are still computed and reported for user messages, also for `ACTIVE_WORKFLOW`.)
//! 5. `raw(W)` = the sum of `weight(k)` over the distinct keywords `k` of workflow `W` that
//!    match at least once (repeating a keyword adds nothing).
//! 6. `confidence(W)` = `round3(min(1, raw(W) / fullScore(W)))`, where `round3` rounds to
//!    3 decimals, halves away from zero (default `fullScore` 6).
//! 7. Candidates are the workflows with `raw(W) > 0` and `confidence(W) ≥ threshold(W)`
//!    (default threshold 0.5). No candidate: `NO_MATCH`.
//! 8. Candidates are ranked by confidence, then raw, both descending. If the first two are
//!    equal in both: `AMBIGUOUS` (not routed, the orchestrator should ask). Otherwise the
//!    first one is routed (`PASSED`) with its confidence and handler.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;

/// The session state the router needs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouterState {
    /// The workflow running in this session, if any (then nothing is re-routed).
    #[serde(default)]
    pub active_workflow: Option<String>,
}

/// Router configuration (JSON keys in camelCase; see [`RoutingConfig::from_json`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct RoutingConfig {
    /// Bytes of a message that are scanned (256 to 1048576; default 16384).
    pub scan_limit_bytes: usize,
    /// Messages with fewer words are trivial (0 to 50; default 3).
    pub min_words: usize,
    /// Messages made only of these words are trivial (lowercase single words).
    pub trivial_words: Vec<String>,
    /// If not empty, only messages to these agents are routed (case-insensitive, `@` ignored).
    pub routed_agents: Vec<String>,
    /// The workflows. Their order gives no priority (ties are AMBIGUOUS); it only orders the
    /// names in tie messages.
    pub workflows: Vec<WorkflowRule>,
}

/// One workflow the router can pick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorkflowRule {
    /// Workflow name (`BUILD`): a letter, then letters, digits, `_` or `-`, at most 32.
    pub name: String,
    /// What handles it (returned as `handler`).
    pub handler: String,
    /// Minimum confidence to route (0 < threshold ≤ 1; default 0.5).
    #[serde(default = "default_threshold")]
    pub threshold: f64,
    /// Raw score that gives confidence 1 (> 0; default 6).
    #[serde(default = "default_full_score")]
    pub full_score: f64,
    /// Keyword (words, `*` suffix for prefixes) → weight (> 0, at most 100).
    pub keywords: BTreeMap<String, f64>,
}

fn default_threshold() -> f64 {
    0.5
}

fn default_full_score() -> f64 {
    6.0
}

const DEFAULT_TRIVIAL_WORDS: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "yo",
    "hiya",
    "thanks",
    "thank",
    "thx",
    "ty",
    "you",
    "ok",
    "okay",
    "k",
    "kk",
    "yes",
    "yep",
    "yeah",
    "yup",
    "no",
    "nope",
    "sure",
    "cool",
    "great",
    "nice",
    "good",
    "morning",
    "afternoon",
    "evening",
    "night",
    "bye",
    "goodbye",
    "please",
    "lol",
    "haha",
    "hmm",
    "oh",
    "ah",
    "wow",
    "awesome",
    "perfect",
    "right",
    "alright",
    "fine",
    "got",
    "it",
    "that",
    "works",
    "sounds",
    "so",
    "much",
    "very",
    "all",
    "done",
];

/// (name, handler, keyword → weight) of the default workflows.
type WorkflowDefaults = &'static [(&'static str, &'static str, &'static [(&'static str, f64)])];

const DEFAULT_WORKFLOWS: WorkflowDefaults = &[
    (
        "BUILD",
        "build_workflow",
        &[
            ("build*", 3.0),
            ("implement*", 3.0),
            ("scaffold*", 3.0),
            ("create*", 2.0),
            ("develop*", 2.0),
            ("feature*", 2.0),
            ("integrate", 2.0),
            ("refactor*", 2.0),
            ("set up", 2.0),
            ("write code", 2.0),
            ("add", 1.0),
            ("new", 1.0),
            ("endpoint*", 1.0),
            ("component*", 1.0),
        ],
    ),
    (
        "DEBUG",
        "debug_workflow",
        &[
            ("debug*", 3.0),
            ("fix", 3.0),
            ("fixes", 3.0),
            ("fixing", 3.0),
            ("bug*", 3.0),
            ("crash*", 3.0),
            ("traceback", 3.0),
            ("stack trace", 3.0),
            ("not working", 3.0),
            ("doesn't work", 3.0),
            ("does not work", 3.0),
            ("error*", 2.0),
            ("broken", 2.0),
            ("fail*", 2.0),
            ("exception*", 2.0),
            ("regression*", 2.0),
            ("issue*", 1.0),
            ("wrong", 1.0),
        ],
    ),
    (
        "REVIEW",
        "review_workflow",
        &[
            ("review*", 3.0),
            ("audit*", 3.0),
            ("inspect*", 2.0),
            ("critique", 2.0),
            ("feedback", 2.0),
            ("look over", 2.0),
            ("code review", 1.0),
            ("check", 1.0),
            ("quality", 1.0),
            ("lint*", 1.0),
            ("best practices", 1.0),
            ("security", 1.0),
            ("pr", 1.0),
        ],
    ),
    (
        "PLAN",
        "plan_workflow",
        &[
            ("plan*", 3.0),
            ("roadmap*", 3.0),
            ("techspec*", 3.0),
            ("prd", 3.0),
            ("design*", 2.0),
            ("architect*", 2.0),
            ("strategy", 2.0),
            ("spec", 2.0),
            ("specs", 2.0),
            ("specification*", 2.0),
            ("requirement*", 2.0),
            ("outline", 2.0),
            ("estimate*", 2.0),
            ("milestone*", 2.0),
            ("approach", 1.0),
            ("break down", 1.0),
        ],
    ),
    (
        "RESEARCH",
        "research_workflow",
        &[
            ("research*", 3.0),
            ("investigat*", 3.0),
            ("explor*", 2.0),
            ("compare", 2.0),
            ("comparison", 2.0),
            ("find out", 2.0),
            ("look into", 2.0),
            ("alternatives", 2.0),
            ("evaluate*", 2.0),
            ("study", 2.0),
            ("explain*", 2.0),
            ("learn*", 1.0),
            ("understand*", 1.0),
            ("options", 1.0),
            ("how does", 1.0),
            ("what is", 1.0),
            ("why does", 1.0),
        ],
    ),
];

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig {
            scan_limit_bytes: 16 * 1024,
            min_words: 3,
            trivial_words: DEFAULT_TRIVIAL_WORDS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            routed_agents: Vec::new(),
            workflows: DEFAULT_WORKFLOWS
                .iter()
                .map(|(name, handler, keywords)| WorkflowRule {
                    name: name.to_string(),
                    handler: handler.to_string(),
                    threshold: default_threshold(),
                    full_score: default_full_score(),
                    keywords: keywords.iter().map(|(k, w)| (k.to_string(), *w)).collect(),
                })
                .collect(),
        }
    }
}

/// The score of one workflow, for explanation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkflowScore {
    /// Sum of the weights of the matched keywords.
    pub raw: f64,
    /// `round3(min(1, raw / fullScore))`.
    pub confidence: f64,
    /// The matched keywords as configured, sorted.
    pub matched: Vec<String>,
}

/// The router's answer (field names as in the techspec).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteDecision {
    /// Whether to start `workflow`.
    pub should_route: bool,
    /// The routed workflow (only when `should_route`).
    pub workflow: Option<String>,
    /// Confidence of the routed workflow; 0 when not routed.
    pub confidence: f64,
    /// The workflow's handler when routed; otherwise `pass_through` (agent/system message or
    /// agent not routed), `continue_workflow` (a workflow is active), `direct` (trivial or no
    /// match: answer directly) or `clarify` (ambiguous: ask the user).
    pub handler: String,
    /// `AGENT_SOURCE`, `AGENT_NOT_ROUTED`, `ACTIVE_WORKFLOW`, `TRIVIAL`, `NO_MATCH`,
    /// `AMBIGUOUS` or `PASSED`.
    pub safety_check: String,
    /// One sentence explaining the decision.
    pub reason: String,
    /// Per workflow scores (empty for non-user messages and agents not routed).
    pub scores: BTreeMap<String, WorkflowScore>,
}

// ---------------------------------------------------------------------------------------
// Words and keywords

/// The words of `text` per the scoring rules (letters/digits runs, lowercased).
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
struct Pattern {
    text: String,
    prefix: bool,
}

/// Splits a keyword into patterns; `Err` says what is wrong with it.
fn compile_keyword(keyword: &str) -> Result<Vec<Pattern>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut star = false;
    let flush = |cur: &mut String, star: &mut bool, out: &mut Vec<Pattern>| -> Result<(), String> {
        if *star && cur.is_empty() {
            return Err("a `*` must follow at least one letter or digit".into());
        }
        if !cur.is_empty() {
            out.push(Pattern {
                text: std::mem::take(cur),
                prefix: *star,
            });
        }
        *star = false;
        Ok(())
    };
    for c in keyword.chars() {
        if c == '*' {
            if star {
                return Err("`**` is not allowed; use one `*` at the end of a word".into());
            }
            star = true;
        } else if c.is_alphanumeric() {
            if star {
                return Err("`*` is only allowed at the end of a word".into());
            }
            cur.extend(c.to_lowercase());
        } else {
            flush(&mut cur, &mut star, &mut out)?;
        }
    }
    flush(&mut cur, &mut star, &mut out)?;
    if out.is_empty() {
        return Err("it has no letters or digits".into());
    }
    Ok(out)
}

fn pattern_matches(words: &[String], patterns: &[Pattern]) -> bool {
    if patterns.is_empty() || patterns.len() > words.len() {
        return false;
    }
    words.windows(patterns.len()).any(|w| {
        w.iter().zip(patterns).all(|(word, p)| {
            if p.prefix {
                word.starts_with(&p.text)
            } else {
                *word == p.text
            }
        })
    })
}

fn round3(x: f64) -> f64 {
    if x.is_finite() {
        (x * 1000.0).round() / 1000.0
    } else {
        0.0
    }
}

/// Cuts `text` to at most `limit` bytes at a character boundary.
fn scan_window(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Keywords compiled once: per workflow, (keyword as configured, patterns, weight).
/// Unusable keywords and weights (possible only in a config built in Rust) are left out.
type Compiled = Vec<Vec<(String, Vec<Pattern>, f64)>>;

fn compile(config: &RoutingConfig) -> Compiled {
    config
        .workflows
        .iter()
        .map(|wf| {
            wf.keywords
                .iter()
                .filter(|(_, w)| w.is_finite() && **w > 0.0)
                .filter_map(|(k, w)| compile_keyword(k).ok().map(|p| (k.clone(), p, *w)))
                .collect()
        })
        .collect()
}

/// Scores every workflow of `config` on `words` (formula in the module docs).
pub fn score(words: &[String], config: &RoutingConfig) -> BTreeMap<String, WorkflowScore> {
    score_compiled(words, config, &compile(config))
}

fn score_compiled(
    words: &[String],
    config: &RoutingConfig,
    compiled: &Compiled,
) -> BTreeMap<String, WorkflowScore> {
    // Single exact words (most keywords) are looked up in a set of the message's words.
    let set: std::collections::HashSet<&str> = words.iter().map(String::as_str).collect();
    let mut out = BTreeMap::new();
    for (wf, keywords) in config.workflows.iter().zip(compiled) {
        let mut raw = 0.0;
        let mut matched = Vec::new();
        for (keyword, patterns, weight) in keywords {
            let hit = match patterns.as_slice() {
                [p] if !p.prefix => set.contains(p.text.as_str()),
                _ => pattern_matches(words, patterns),
            };
            if hit {
                raw += weight;
                matched.push(keyword.clone());
            }
        }
        let full = if wf.full_score.is_finite() && wf.full_score > 0.0 {
            wf.full_score
        } else {
            default_full_score()
        };
        out.insert(
            wf.name.clone(),
            WorkflowScore {
                raw: round3(raw),
                confidence: round3((raw / full).min(1.0)),
                matched,
            },
        );
    }
    out
}

fn norm_agent(a: &str) -> String {
    a.trim().trim_start_matches('@').to_lowercase()
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

fn not_routed(
    handler: &str,
    safety_check: &str,
    reason: String,
    scores: BTreeMap<String, WorkflowScore>,
) -> RouteDecision {
    RouteDecision {
        should_route: false,
        workflow: None,
        confidence: 0.0,
        handler: handler.to_string(),
        safety_check: safety_check.to_string(),
        reason,
        scores,
    }
}

fn fmt_num(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Decides whether `message` (from `source`, addressed to `agent`) starts a workflow.
///
/// `source` is `user` for a human message; anything else (`builder`, `system`, …) is never
/// routed. Deterministic and panic-free for any input; see the module docs for the order
/// of the checks and the scoring formula. Compiles the keywords on each call; [`Router`]
/// compiles them once.
pub fn should_route(
    message: &str,
    source: &str,
    agent: &str,
    state: &RouterState,
    config: &RoutingConfig,
) -> RouteDecision {
    decide(message, source, agent, state, config, None)
}

/// A router with its keywords compiled once (for a long-lived handle in the shim).
#[derive(Debug, Clone)]
pub struct Router {
    config: RoutingConfig,
    compiled: Compiled,
}

impl Router {
    /// Compiles `config`.
    pub fn new(config: RoutingConfig) -> Router {
        let compiled = compile(&config);
        Router { config, compiled }
    }

    /// The configuration.
    pub fn config(&self) -> &RoutingConfig {
        &self.config
    }

    /// Same as [`should_route`] with this router's configuration.
    pub fn route(
        &self,
        message: &str,
        source: &str,
        agent: &str,
        state: &RouterState,
    ) -> RouteDecision {
        decide(
            message,
            source,
            agent,
            state,
            &self.config,
            Some(&self.compiled),
        )
    }
}

fn decide(
    message: &str,
    source: &str,
    agent: &str,
    state: &RouterState,
    config: &RoutingConfig,
    compiled: Option<&Compiled>,
) -> RouteDecision {
    let src = source.trim();
    if !src.eq_ignore_ascii_case("user") {
        let shown = if src.is_empty() { "(no source)" } else { src };
        return not_routed(
            "pass_through",
            "AGENT_SOURCE",
            format!(
                "Message from {}, not user intent: only user messages are routed",
                clip(shown, 60)
            ),
            BTreeMap::new(),
        );
    }
    if !config.routed_agents.is_empty()
        && !config
            .routed_agents
            .iter()
            .any(|a| norm_agent(a) == norm_agent(agent))
    {
        return not_routed(
            "pass_through",
            "AGENT_NOT_ROUTED",
            format!(
                "Messages to @{} are not routed (routedAgents: {})",
                clip(&norm_agent(agent), 60),
                config.routed_agents.join(", ")
            ),
            BTreeMap::new(),
        );
    }
    let window = scan_window(message, config.scan_limit_bytes.max(1));
    let words = words(window);
    let scores = match compiled {
        Some(c) => score_compiled(&words, config, c),
        None => score(&words, config),
    };
    if let Some(active) = state
        .active_workflow
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty())
    {
        return not_routed(
            "continue_workflow",
            "ACTIVE_WORKFLOW",
            format!(
                "Workflow {} is active in this session: no re-routing until it ends",
                clip(active, 60)
            ),
            scores,
        );
    }
    let all_trivial = words.iter().all(|w| {
        config
            .trivial_words
            .iter()
            .any(|t| t.eq_ignore_ascii_case(w))
    });
    if words.len() < config.min_words || all_trivial {
        let why = if words.is_empty() {
            "it has no words".to_string()
        } else if words.len() < config.min_words {
            format!(
                "it has {} word(s), fewer than {}",
                words.len(),
                config.min_words
            )
        } else {
            "it is only greetings or acknowledgements".to_string()
        };
        return not_routed(
            "direct",
            "TRIVIAL",
            format!("Trivial message: {why}"),
            scores,
        );
    }
    let mut candidates: Vec<(&WorkflowRule, &WorkflowScore)> = config
        .workflows
        .iter()
        .filter_map(|wf| scores.get(&wf.name).map(|s| (wf, s)))
        .filter(|(wf, s)| s.raw > 0.0 && s.confidence >= wf.threshold)
        .collect();
    candidates.sort_by(|a, b| {
        b.1.confidence
            .total_cmp(&a.1.confidence)
            .then(b.1.raw.total_cmp(&a.1.raw))
    });
    let Some((best, best_score)) = candidates.first().copied() else {
        let top = config
            .workflows
            .iter()
            .filter_map(|wf| scores.get(&wf.name).map(|s| (wf, s)))
            .filter(|(_, s)| s.raw > 0.0)
            .max_by(|a, b| a.1.confidence.total_cmp(&b.1.confidence));
        let reason = match top {
            Some((wf, s)) => format!(
                "No workflow reached its threshold: best was {} at {} (needs {})",
                wf.name,
                fmt_num(s.confidence),
                fmt_num(wf.threshold)
            ),
            None => "No workflow keywords found".to_string(),
        };
        return not_routed("direct", "NO_MATCH", reason, scores);
    };
    if let Some((_, second_score)) = candidates.get(1) {
        if second_score.confidence == best_score.confidence && second_score.raw == best_score.raw {
            let tied: Vec<&str> = candidates
                .iter()
                .filter(|(_, s)| s.confidence == best_score.confidence && s.raw == best_score.raw)
                .map(|(wf, _)| wf.name.as_str())
                .collect();
            return not_routed(
                "clarify",
                "AMBIGUOUS",
                format!(
                    "Ambiguous: {} tie at confidence {}; ask the user which they mean",
                    tied.join(" and "),
                    fmt_num(best_score.confidence)
                ),
                scores,
            );
        }
    }
    let reason = format!(
        "Matched {} for {}: raw {} / {} → confidence {} ≥ {}",
        best_score.matched.join(", "),
        best.name,
        fmt_num(best_score.raw),
        fmt_num(best.full_score),
        fmt_num(best_score.confidence),
        fmt_num(best.threshold)
    );
    RouteDecision {
        should_route: true,
        workflow: Some(best.name.clone()),
        confidence: best_score.confidence,
        handler: best.handler.clone(),
        safety_check: "PASSED".to_string(),
        reason,
        scores,
    }
}

// ---------------------------------------------------------------------------------------
// Configuration from JSON

/// A routing configuration problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoutingConfigError {
    /// Stable code: `routing_config_json`, `routing_config_unknown_key`,
    /// `routing_config_type`, `routing_config_value`.
    pub code: &'static str,
    /// JSON path of the offending value (`workflows[1].keywords.fix`), or `line L column C`.
    pub path: String,
    /// What is wrong.
    pub problem: String,
    /// How to fix it.
    pub fix: String,
}

impl fmt::Display for RoutingConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "routing config: {}: {} Fix: {}",
            self.path, self.problem, self.fix
        )
    }
}

impl std::error::Error for RoutingConfigError {}

const TOP_KEYS: &[&str] = &[
    "scanLimitBytes",
    "minWords",
    "trivialWords",
    "routedAgents",
    "workflows",
];
const WORKFLOW_KEYS: &[&str] = &["name", "handler", "threshold", "fullScore", "keywords"];

fn cerr(code: &'static str, path: &str, problem: String, fix: String) -> RoutingConfigError {
    RoutingConfigError {
        code,
        path: if path.is_empty() {
            "(document)".into()
        } else {
            path.to_string()
        },
        problem,
        fix,
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string \"{}\"", clip(s, 40)),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn type_err(path: &str, expected: &str, got: &Value) -> RoutingConfigError {
    cerr(
        "routing_config_type",
        path,
        format!("expected {expected}, found {}.", describe(got)),
        format!("make `{path}` {expected}."),
    )
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

fn object<'v>(
    v: &'v Value,
    path: &str,
    known: &[&str],
) -> Result<&'v Map<String, Value>, RoutingConfigError> {
    let obj = v
        .as_object()
        .ok_or_else(|| type_err(path, "an object", v))?;
    for key in obj.keys() {
        if !known.contains(&key.as_str()) {
            return Err(cerr(
                "routing_config_unknown_key",
                &join(path, key),
                format!("unknown key `{}`.", clip(key, 40)),
                format!("remove it; allowed here: {}.", known.join(", ")),
            ));
        }
    }
    Ok(obj)
}

fn whole(v: &Value, path: &str, min: u64, max: u64) -> Result<usize, RoutingConfigError> {
    match v.as_u64() {
        Some(n) if (min..=max).contains(&n) => Ok(n as usize),
        _ => Err(type_err(
            path,
            &format!("a whole number from {min} to {max}"),
            v,
        )),
    }
}

fn number(
    v: &Value,
    path: &str,
    what: &str,
    ok: impl Fn(f64) -> bool,
) -> Result<f64, RoutingConfigError> {
    match v.as_f64() {
        Some(x) if ok(x) => Ok(x),
        _ => Err(type_err(path, what, v)),
    }
}

fn string<'v>(v: &'v Value, path: &str) -> Result<&'v str, RoutingConfigError> {
    v.as_str().ok_or_else(|| type_err(path, "a string", v))
}

fn strings(v: &Value, path: &str) -> Result<Vec<String>, RoutingConfigError> {
    let items = v
        .as_array()
        .ok_or_else(|| type_err(path, "a list of strings", v))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| string(item, &format!("{path}[{i}]")).map(str::to_string))
        .collect()
}

fn valid_workflow_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && name.len() <= 32
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl RoutingConfig {
    /// Parses a configuration from JSON text (see [`RoutingConfig::from_json`]).
    pub fn from_json_str(text: &str) -> Result<RoutingConfig, RoutingConfigError> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            let msg = e.to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            cerr(
                "routing_config_json",
                &format!("line {} column {}", e.line(), e.column()),
                format!("not valid JSON ({msg})."),
                "correct the JSON syntax (no comments or trailing commas).".into(),
            )
        })?;
        RoutingConfig::from_json(&value)
    }

    /// Parses a configuration from a JSON value.
    ///
    /// Keys: `scanLimitBytes`, `minWords`, `trivialWords`, `routedAgents`, `workflows`
    /// (each workflow: `name`, `handler`, `threshold`, `fullScore`, `keywords`). Missing
    /// top-level keys keep their defaults; `workflows`, when given, replaces the default list
    /// as a whole. Unknown keys, wrong types and invalid values are errors with the JSON path.
    pub fn from_json(value: &Value) -> Result<RoutingConfig, RoutingConfigError> {
        let mut config = RoutingConfig::default();
        let top = object(value, "", TOP_KEYS)?;
        if let Some(v) = top.get("scanLimitBytes") {
            config.scan_limit_bytes = whole(v, "scanLimitBytes", 256, 1_048_576)?;
        }
        if let Some(v) = top.get("minWords") {
            config.min_words = whole(v, "minWords", 0, 50)?;
        }
        if let Some(v) = top.get("trivialWords") {
            let list = strings(v, "trivialWords")?;
            for (i, w) in list.iter().enumerate() {
                if words(w).len() != 1 || words(w)[0] != w.to_lowercase() {
                    return Err(cerr(
                        "routing_config_value",
                        &format!("trivialWords[{i}]"),
                        format!("\"{}\" is not one word of letters or digits.", clip(w, 40)),
                        "list single words such as \"thanks\".".into(),
                    ));
                }
            }
            config.trivial_words = list.iter().map(|w| w.to_lowercase()).collect();
        }
        if let Some(v) = top.get("routedAgents") {
            let list = strings(v, "routedAgents")?;
            if let Some(i) = list.iter().position(|a| norm_agent(a).is_empty()) {
                return Err(cerr(
                    "routing_config_value",
                    &format!("routedAgents[{i}]"),
                    "an agent name is empty.".into(),
                    "give agent names such as \"oracle\", or an empty list for all agents.".into(),
                ));
            }
            config.routed_agents = list;
        }
        if let Some(v) = top.get("workflows") {
            let items = v
                .as_array()
                .ok_or_else(|| type_err("workflows", "a list of workflow objects", v))?;
            if items.is_empty() || items.len() > 32 {
                return Err(cerr(
                    "routing_config_value",
                    "workflows",
                    format!("{} workflows given.", items.len()),
                    "give 1 to 32 workflows, or leave `workflows` out for the defaults.".into(),
                ));
            }
            let mut workflows: Vec<WorkflowRule> = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let path = format!("workflows[{i}]");
                let wf = workflow(item, &path)?;
                if let Some(prev) = workflows
                    .iter()
                    .position(|w| w.name.eq_ignore_ascii_case(&wf.name))
                {
                    return Err(cerr(
                        "routing_config_value",
                        &format!("{path}.name"),
                        format!(
                            "workflow \"{}\" is already defined at workflows[{prev}].",
                            wf.name
                        ),
                        "give every workflow a distinct name.".into(),
                    ));
                }
                workflows.push(wf);
            }
            config.workflows = workflows;
        }
        Ok(config)
    }
}

fn workflow(v: &Value, path: &str) -> Result<WorkflowRule, RoutingConfigError> {
    let obj = object(v, path, WORKFLOW_KEYS)?;
    let required = |key: &str| {
        obj.get(key).ok_or_else(|| {
            cerr(
                "routing_config_value",
                &join(path, key),
                format!("`{key}` is missing."),
                format!("add `{key}` to the workflow."),
            )
        })
    };
    let name = string(required("name")?, &join(path, "name"))?;
    if !valid_workflow_name(name) {
        return Err(cerr(
            "routing_config_value",
            &join(path, "name"),
            format!("\"{}\" is not a workflow name.", clip(name, 40)),
            "use a letter followed by letters, digits, `_` or `-` (at most 32), e.g. \"BUILD\"."
                .into(),
        ));
    }
    let handler = string(required("handler")?, &join(path, "handler"))?;
    if handler.trim().is_empty() {
        return Err(cerr(
            "routing_config_value",
            &join(path, "handler"),
            "the handler is empty.".into(),
            "name what handles the workflow, e.g. \"build_workflow\".".into(),
        ));
    }
    let threshold = match obj.get("threshold") {
        Some(t) => number(
            t,
            &join(path, "threshold"),
            "a number above 0 and at most 1",
            |x| x > 0.0 && x <= 1.0,
        )?,
        None => default_threshold(),
    };
    let full_score = match obj.get("fullScore") {
        Some(t) => number(
            t,
            &join(path, "fullScore"),
            "a number above 0 and at most 1000",
            |x| x > 0.0 && x <= 1000.0,
        )?,
        None => default_full_score(),
    };
    let kpath = join(path, "keywords");
    let kv = required("keywords")?;
    let kobj = kv
        .as_object()
        .ok_or_else(|| type_err(&kpath, "an object of keyword → weight", kv))?;
    if kobj.is_empty() || kobj.len() > 200 {
        return Err(cerr(
            "routing_config_value",
            &kpath,
            format!("{} keywords given.", kobj.len()),
            "give 1 to 200 keywords, e.g. {\"fix\": 3}.".into(),
        ));
    }
    let mut keywords = BTreeMap::new();
    for (k, w) in kobj {
        let p = format!("{kpath}.{k}");
        if let Err(why) = compile_keyword(k) {
            return Err(cerr(
                "routing_config_value",
                &p,
                format!("keyword \"{}\" is not usable: {why}.", clip(k, 40)),
                "use words of letters and digits, optionally ending in `*` (\"implement*\")."
                    .into(),
            ));
        }
        let weight = number(w, &p, "a weight above 0 and at most 100", |x| {
            x > 0.0 && x <= 100.0
        })?;
        keywords.insert(k.clone(), weight);
    }
    Ok(WorkflowRule {
        name: name.to_string(),
        handler: handler.to_string(),
        threshold,
        full_score,
        keywords,
    })
}
