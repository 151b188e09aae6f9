//! Language-based routing (ProofChecker design): routing tables from command frontmatter,
//! the language of a task, and the agent a command goes to for that language.
//!
//! A command file (`.opencode/command/research.md`) declares:
//!
//! ```yaml
//! routing:
//!   language_based: true        # false: always `default`
//!   lean: lean-research-agent   # one key per language → agent
//!   default: researcher         # required: any other language
//! ```
//!
//! The language of a task comes, in this order, from its state.json (`language`), from the
//! TODO.md entry of the task (`- **Language**: lean`), else it is `general`.

use nso_text::documents::frontmatter::{self, FrontmatterError, Yaml};
use nso_text::documents::markdown::{self, Block, Document};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The routing table of one command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutingTable {
    /// Command name: the file name without directories and `.md` (`research`).
    pub command: String,
    /// Whether the language decides the agent.
    pub language_based: bool,
    /// Language (lowercase) → agent (without `@`).
    pub languages: BTreeMap<String, String>,
    /// Agent for any other language, or for every task when not language-based.
    pub default: String,
    /// Line of `routing:` in the file.
    pub line: usize,
}

/// Which rule chose the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteRule {
    /// The language has its own key.
    Language,
    /// The language has no key: `default`.
    Default,
    /// The table is not language-based: `default`.
    NotLanguageBased,
    /// No routing table for the command: OpenCode's own agent selection applies.
    NoTable,
}

/// The agent a command goes to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageRoute {
    /// The agent (without `@`), or `None` when the command has no routing table.
    pub agent: Option<String>,
    /// Which rule decided.
    pub rule: RouteRule,
    /// One sentence for the orchestrator.
    pub reason: String,
}

/// Where the language of a task came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LanguageSource {
    /// The `language` of the task in state.json.
    StateJson,
    /// The `Language` field of the task's TODO.md entry.
    TodoMd,
    /// Neither had one: `general`.
    Default,
}

/// The detected language of a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DetectedLanguage {
    /// Lowercase, trimmed (`lean`, `general`).
    pub language: String,
    /// Where it came from.
    pub source: LanguageSource,
    /// Line of the TODO.md field, when it came from there.
    pub line: Option<usize>,
    /// Why earlier sources were skipped (invalid JSON, task not found, …).
    pub notes: Vec<String>,
}

fn command_name(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let base = base.strip_suffix(".md").unwrap_or(base);
    base.trim_start_matches('/').to_lowercase()
}

fn invalid(file: &str, line: usize, message: String) -> FrontmatterError {
    FrontmatterError {
        code: "routing_table_invalid",
        file: file.to_string(),
        line,
        message,
    }
}

/// An agent name: letters, digits, `_`, `-`, `.`, at most 64, an optional leading `@` dropped.
fn agent_name(file: &str, path: &str, line: usize, v: &Yaml) -> Result<String, FrontmatterError> {
    let text = match v {
        Yaml::Scalar { text, .. } => text.trim(),
        _ => "",
    };
    let name = text.strip_prefix('@').unwrap_or(text);
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(name.to_string())
    } else {
        let found = match v {
            Yaml::Null => "nothing".to_string(),
            Yaml::Scalar { text, .. } => format!("`{}`", text.chars().take(40).collect::<String>()),
            Yaml::Seq(_) => "a list".to_string(),
            Yaml::Map(_) => "a nested mapping".to_string(),
        };
        Err(invalid(
            file,
            line,
            format!(
                "`{path}` must be an agent name (letters, digits, `_`, `-`, `.`), found {found}"
            ),
        ))
    }
}

/// Reads the routing table from a command file's YAML frontmatter.
///
/// `Ok(None)` when the file has no frontmatter or no `routing` key. Only the `routing`
/// entry must be in the YAML subset of [`nso_text::documents::frontmatter`]; other keys may use any YAML.
/// Errors: an unclosed frontmatter, a malformed `routing` entry, `language_based` not
/// `true`/`false`, a missing `default`, an invalid agent name, language keys without
/// `language_based`, or a language given twice (keys compare case-insensitively).
pub fn parse_command_routing(
    file_name: &str,
    markdown_text: &str,
) -> Result<Option<RoutingTable>, FrontmatterError> {
    let file = file_name;
    let Some(fm) = frontmatter::extract(file, markdown_text)? else {
        return Ok(None);
    };
    let entries = frontmatter::parse_document(file, &fm)?;
    let Some((_, line, value)) = entries.into_iter().find(|(k, _, _)| k == "routing") else {
        return Ok(None);
    };
    let value = value?;
    let Yaml::Map(map) = value else {
        return Err(invalid(
            file,
            line,
            "`routing` must be a mapping: `language_based`, language keys and `default` on indented lines"
                .into(),
        ));
    };
    let mut language_based: Option<bool> = None;
    let mut default: Option<String> = None;
    let mut languages: BTreeMap<String, String> = BTreeMap::new();
    let mut language_lines: BTreeMap<String, usize> = BTreeMap::new();
    for (key, kline, v) in &map {
        match key.as_str() {
            "language_based" => {
                language_based = Some(match v {
                    Yaml::Scalar {
                        text,
                        quoted: false,
                    } if text.eq_ignore_ascii_case("true") => true,
                    Yaml::Scalar {
                        text,
                        quoted: false,
                    } if text.eq_ignore_ascii_case("false") => false,
                    _ => {
                        return Err(invalid(
                            file,
                            *kline,
                            "`routing.language_based` must be true or false (unquoted)".into(),
                        ))
                    }
                })
            }
            "default" => default = Some(agent_name(file, "routing.default", *kline, v)?),
            lang => {
                let lang_key = lang.trim().to_lowercase();
                let agent = agent_name(file, &format!("routing.{lang}"), *kline, v)?;
                if let Some(prev) = language_lines.get(&lang_key) {
                    return Err(invalid(
                        file,
                        *kline,
                        format!("language `{lang_key}` is routed twice (first on line {prev})"),
                    ));
                }
                language_lines.insert(lang_key.clone(), *kline);
                languages.insert(lang_key, agent);
            }
        }
    }
    let language_based = match language_based {
        Some(b) => b,
        None if !languages.is_empty() => {
            let keys: Vec<&str> = languages.keys().map(String::as_str).collect();
            return Err(invalid(
                file,
                line,
                format!(
                    "`routing` has language keys ({}) but no `language_based`; add `language_based: true`",
                    keys.join(", ")
                ),
            ));
        }
        None => false,
    };
    let Some(default) = default else {
        return Err(invalid(
            file,
            line,
            "`routing` needs `default: <agent>`, the agent for languages without their own key"
                .into(),
        ));
    };
    Ok(Some(RoutingTable {
        command: command_name(file_name),
        language_based,
        languages,
        default,
        line,
    }))
}

/// Picks the agent for `command` (with or without `/`) and a task `language`.
///
/// The language is compared lowercase; when it has no key of its own, its first word is
/// tried (`lean 4` → `lean`), then `default`.
pub fn route_language(tables: &[RoutingTable], command: &str, language: &str) -> LanguageRoute {
    let cmd = command.trim().trim_start_matches('/').to_lowercase();
    let Some(table) = tables.iter().find(|t| t.command == cmd) else {
        return LanguageRoute {
            agent: None,
            rule: RouteRule::NoTable,
            reason: format!("/{cmd} has no routing table; OpenCode's own agent selection applies"),
        };
    };
    if !table.language_based {
        return LanguageRoute {
            agent: Some(table.default.clone()),
            rule: RouteRule::NotLanguageBased,
            reason: format!(
                "/{cmd} is not language-based: routing.default → @{}",
                table.default
            ),
        };
    }
    let lang = language.trim().to_lowercase();
    let first_word = lang
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .next()
        .unwrap_or("")
        .to_string();
    for key in [&lang, &first_word] {
        if let Some(agent) = table.languages.get(key.as_str()) {
            return LanguageRoute {
                agent: Some(agent.clone()),
                rule: RouteRule::Language,
                reason: format!("/{cmd}: task language `{lang}` → routing.{key} → @{agent}"),
            };
        }
    }
    LanguageRoute {
        agent: Some(table.default.clone()),
        rule: RouteRule::Default,
        reason: format!(
            "/{cmd}: task language `{}` has no entry → routing.default → @{}",
            if lang.is_empty() { "(none)" } else { &lang },
            table.default
        ),
    }
}

/// The task number in `Task: 258`, `#258`, `258` (leading zeros ignored).
fn task_number(task: &str) -> Option<u64> {
    let t = task.trim();
    let t = match t.get(..5) {
        Some(head) if head.eq_ignore_ascii_case("task:") => t[5..].trim(),
        _ => t,
    };
    let t = t.trim_start_matches('#').trim();
    if t.is_empty() || t.len() > 18 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

fn clean_language(s: &str) -> Option<String> {
    let l = s.trim().trim_matches('`').trim().to_lowercase();
    (!l.is_empty() && l.len() <= 64).then_some(l)
}

fn json_matches(v: &serde_json::Value, number: Option<u64>, id: &str) -> bool {
    match v {
        serde_json::Value::Number(n) => number.is_some() && n.as_u64() == number,
        serde_json::Value::String(s) => {
            let s = s.trim();
            (number.is_some() && task_number(s) == number) || (!id.is_empty() && s == id)
        }
        _ => false,
    }
}

fn from_state(
    json: &str,
    number: Option<u64>,
    id: &str,
    notes: &mut Vec<String>,
) -> Option<String> {
    let v: serde_json::Value = match serde_json::from_str(json) {
        Ok(v) => v,
        Err(e) => {
            notes.push(format!(
                "state.json ignored: not valid JSON (line {} column {})",
                e.line(),
                e.column()
            ));
            return None;
        }
    };
    let obj = v.as_object()?;
    if let Some(l) = obj
        .get("language")
        .and_then(|l| l.as_str())
        .and_then(clean_language)
    {
        return Some(l);
    }
    const ID_KEYS: [&str; 5] = ["project_number", "task_number", "number", "task_id", "id"];
    for (key, list) in obj {
        let Some(items) = list.as_array() else {
            continue;
        };
        for item in items {
            let Some(entry) = item.as_object() else {
                continue;
            };
            let hit = ID_KEYS
                .iter()
                .any(|k| entry.get(*k).is_some_and(|v| json_matches(v, number, id)));
            if hit {
                match entry
                    .get("language")
                    .and_then(|l| l.as_str())
                    .and_then(clean_language)
                {
                    Some(l) => return Some(l),
                    None => notes.push(format!("state.json: the task in `{key}` has no language")),
                }
            }
        }
    }
    notes.push("state.json: no language for this task".into());
    None
}

/// Whether a TODO.md heading (`258. Title`, `Task 258: Title`, `#258 Title`) is the task's.
fn heading_is_task(text: &str, number: Option<u64>, id: &str) -> bool {
    let t = text.trim();
    if !id.is_empty() && t.starts_with(id) {
        return true;
    }
    let Some(number) = number else { return false };
    let t = match t.get(..5) {
        Some(head) if head.eq_ignore_ascii_case("task ") => t[5..].trim_start(),
        _ => t,
    };
    let t = t.trim_start_matches('#');
    let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
    !digits.is_empty() && digits.len() <= 18 && digits.parse::<u64>().ok() == Some(number)
}

fn from_todo(
    todo: &str,
    number: Option<u64>,
    id: &str,
    notes: &mut Vec<String>,
) -> Option<(String, usize)> {
    let doc = Document::parse(todo);
    // All headings and blocks in order: the preamble, then each section with its blocks.
    let mut flat: Vec<Block> = doc.preamble.clone();
    for s in &doc.sections {
        flat.push(Block::Heading(s.heading.clone()));
        flat.extend(s.blocks.iter().cloned());
    }
    if let Some(t) = &doc.title {
        flat.insert(0, Block::Heading(t.clone()));
    }
    let start = flat
        .iter()
        .position(|b| matches!(b, Block::Heading(h) if heading_is_task(&h.text, number, id)));
    let Some(start) = start else {
        notes.push("TODO.md: no entry for this task".into());
        return None;
    };
    let level = match &flat[start] {
        Block::Heading(h) => h.level,
        _ => 6,
    };
    let end = flat[start + 1..]
        .iter()
        .position(|b| matches!(b, Block::Heading(h) if h.level <= level))
        .map_or(flat.len(), |i| start + 1 + i);
    let entry = &flat[start + 1..end];
    for f in markdown::fields(entry) {
        if f.norm == "language" || f.norm == "lang" {
            if let Some(l) = clean_language(&f.value) {
                return Some((l, f.line));
            }
        }
    }
    notes.push("TODO.md: the task's entry has no Language field".into());
    None
}

/// The language of a task: state.json `language` (a project state.json's top-level
/// `language`, or the entry of a top-level list such as `active_projects` whose
/// `project_number`/`task_number`/`number`/`task_id`/`id` is the task), else the TODO.md
/// entry's `Language` field (the entry is the heading starting with the task number, e.g.
/// `### 258. Title`, up to the next heading of the same level), else `general`.
///
/// `task` is a number (`258`, `Task: 258`, `#258`) or a task id. Never fails: unreadable
/// sources are skipped and explained in `notes`.
pub fn detect_language(
    state_json: Option<&str>,
    todo_md: Option<&str>,
    task: &str,
) -> DetectedLanguage {
    let number = task_number(task);
    let id = if number.is_none() { task.trim() } else { "" };
    let mut notes = Vec::new();
    if let Some(json) = state_json {
        if let Some(language) = from_state(json, number, id, &mut notes) {
            return DetectedLanguage {
                language,
                source: LanguageSource::StateJson,
                line: None,
                notes,
            };
        }
    }
    if let Some(todo) = todo_md {
        if let Some((language, line)) = from_todo(todo, number, id, &mut notes) {
            return DetectedLanguage {
                language,
                source: LanguageSource::TodoMd,
                line: Some(line),
                notes,
            };
        }
    }
    DetectedLanguage {
        language: "general".into(),
        source: LanguageSource::Default,
        line: None,
        notes,
    }
}
