//! Every problem of a configuration text at once, for `nso check` and `nso doctor`.
//!
//! [`super::parse`] stops at the first problem (a plugin that loads needs only that one). A
//! person fixing a file wants them all in one run: each top-level section is checked on its
//! own, so a mistake in `memory` does not hide one in `conductor`, and the authority policy
//! reports every rule's problems.

use serde_json::{Map, Value};

use super::{parse, ConfigError};
use nso_decision::authority::Policy;

/// One problem: a stable code, the JSON path, what is wrong and the fix.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Stable code (`config_unknown_key`, `config_type`, ...).
    pub code: String,
    /// Where in the file (`memory.files[0]`, `line 3 column 5`, `(document)`).
    pub path: String,
    /// What is wrong.
    pub problem: String,
    /// How to fix it.
    pub fix: String,
}

impl From<ConfigError> for Problem {
    fn from(e: ConfigError) -> Self {
        Problem {
            code: e.code.to_string(),
            path: e.path,
            problem: e.problem,
            fix: e.fix,
        }
    }
}

/// Every problem of `text` (the contents of `file`), in the order of the file's sections;
/// empty when the configuration is valid.
pub fn every_problem(file: &str, text: &str) -> Vec<Problem> {
    let whole = parse(file, Some(text)).err();
    // Not JSON or not an object: nothing more can be said.
    let top = match serde_json::from_str::<InFileOrder>(text) {
        Ok(InFileOrder(top)) => top,
        _ => return whole.into_iter().map(Problem::from).collect(),
    };
    let mut problems = Vec::new();
    for (key, value) in &top {
        let mut alone = Map::new();
        alone.insert(key.clone(), value.clone());
        let section = Value::Object(alone).to_string();
        if let Err(e) = parse(file, Some(&section)) {
            problems.push(Problem::from(e));
            continue;
        }
        if key == "authority" {
            if let Err(errors) = Policy::from_config_value(value, file, "authority") {
                problems.extend(errors.0.iter().map(|e| Problem {
                    code: format!("config_{}", e.code),
                    path: e.path.clone(),
                    problem: e.message.clone(),
                    fix: e.hint.clone(),
                }));
            }
        }
    }
    // A problem only the whole file shows is never lost.
    if problems.is_empty() {
        problems.extend(whole.map(Problem::from));
    }
    problems
}

/// A JSON object's members in the order the file has them (a `serde_json::Map` sorts its keys),
/// so that problems are listed as a person reads the file.
struct InFileOrder(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for InFileOrder {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = InFileOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<InFileOrder, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Value>()? {
                    members.push(member);
                }
                Ok(InFileOrder(members))
            }
        }
        deserializer.deserialize_map(Members)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_section_reports_its_problem_in_one_run() {
        let text = r#"{"memory": {"enabled": "yes"}, "hooks": {"timeoutMs": -1},
            "logdir": "x", "authority": {"rules": [{"id": "a", "effect": "allow"}]}}"#;
        let paths: Vec<String> = every_problem(".opencode/nso.json", text)
            .into_iter()
            .map(|p| p.path)
            .collect();
        assert!(paths.contains(&"memory.enabled".to_string()), "{paths:?}");
        assert!(paths.contains(&"hooks.timeoutMs".to_string()), "{paths:?}");
        assert!(paths.contains(&"logdir".to_string()), "{paths:?}");
        assert!(
            paths.iter().any(|p| p.starts_with("authority.rules[0]")),
            "{paths:?}"
        );
    }

    #[test]
    fn problems_come_in_the_order_of_the_file() {
        let text = r#"{"memory": {"enabled": "yes"}, "logdir": "x", "hooks": {"timeoutMs": -1}}"#;
        let paths: Vec<String> = every_problem("f", text)
            .into_iter()
            .map(|p| p.path)
            .collect();
        assert_eq!(paths, ["memory.enabled", "logdir", "hooks.timeoutMs"]);
    }

    #[test]
    fn valid_and_empty_texts_have_no_problems() {
        assert!(every_problem("f", "{}").is_empty());
        assert!(every_problem("f", "").is_empty());
        assert!(every_problem("f", r#"{"logDir": "logs"}"#).is_empty());
    }

    #[test]
    fn bad_json_is_one_problem() {
        let p = every_problem("f", "{ nope");
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].code, "config_json");
    }
}
