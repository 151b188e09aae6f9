//! Every preset agrees with itself: a path an allow rule gives an agent is not silently taken
//! back by another part of the same preset. Each allow rule of each preset is walked: for each
//! of its agents and a few paths each of its globs matches, the write or create it allows is
//! decided. It must be allowed, unless a protection every agent is under (a block rule for
//! `*` with a reason, such as NSO's own config or the status files) says otherwise.

mod common;

use common::*;
use nso::authority::{Glob, Policy, Verdict};

/// Paths a glob matches: `**` as nothing and as two folders, `*` as a name, a character class
/// as its first character, alternatives as the first.
fn samples(glob: &str) -> Vec<String> {
    let mut outs = vec![String::new()];
    let chars: Vec<char> = glob.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '*' && chars.get(i + 1) == Some(&'*') {
            // `**/` or a trailing `**`
            let slash = chars.get(i + 2) == Some(&'/');
            outs = outs
                .into_iter()
                .flat_map(|o| {
                    let deep = if slash { "a/b/" } else { "a/b/sample.md" };
                    let none = if slash { "" } else { "sample.md" };
                    [format!("{o}{none}"), format!("{o}{deep}")]
                })
                .collect();
            i += if slash { 3 } else { 2 };
        } else if c == '*' {
            outs.iter_mut().for_each(|o| o.push_str("sample"));
            i += 1;
        } else if c == '[' {
            let end = chars[i..]
                .iter()
                .position(|&x| x == ']')
                .map_or(chars.len(), |e| i + e);
            let first = chars.get(i + 1).copied().unwrap_or('x');
            outs.iter_mut().for_each(|o| o.push(first));
            i = end + 1;
        } else if c == '{' {
            let end = chars[i..]
                .iter()
                .position(|&x| x == '}')
                .map_or(chars.len(), |e| i + e);
            let first: String = chars[i + 1..end]
                .iter()
                .take_while(|&&x| x != ',')
                .collect();
            outs.iter_mut().for_each(|o| o.push_str(&first));
            i = end + 1;
        } else if c == '?' {
            outs.iter_mut().for_each(|o| o.push('x'));
            i += 1;
        } else {
            outs.iter_mut().for_each(|o| o.push(c));
            i += 1;
        }
    }
    outs
}

#[test]
fn no_allow_rule_is_silently_taken_back_by_its_own_preset() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for preset in nso::authority::PRESETS {
        let raw: serde_json::Value =
            serde_json::from_str(nso::authority::preset_json(preset).expect("preset"))
                .expect("json");
        let policy = Policy::preset(preset).expect("preset compiles");
        let mut e = nso::authority::Engine::new(policy.clone());
        for rule in raw["rules"].as_array().expect("rules") {
            if rule["effect"] != "allow" || rule["paths"].is_null() {
                continue;
            }
            let ops: Vec<&str> = rule["ops"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|o| o.as_str())
                .collect();
            let via = rule["tools"]
                .as_array()
                .and_then(|t| t.first())
                .and_then(|t| t.as_str());
            let excepts: Vec<Glob> = rule["except"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|g| Glob::new(g.as_str()?, false).ok())
                .collect();
            let id = rule["id"].as_str().unwrap_or("?");
            let members: Vec<&str> = policy
                .rules()
                .iter()
                .find(|r| r.id == id)
                .map(|r| {
                    policy
                        .agents()
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| r.is_member(*i))
                        .map(|(_, a)| a.name.as_str())
                        .collect()
                })
                .unwrap_or_default();
            for glob in rule["paths"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|g| g.as_str())
            {
                if glob.starts_with('/') {
                    continue;
                }
                let matcher = Glob::new(glob, false).expect("glob");
                for path in samples(glob).into_iter().filter(|p| {
                    matcher.matches(p, false) && !excepts.iter().any(|x| x.matches(p, false))
                }) {
                    for agent in &members {
                        for op in ["write", "create"].into_iter().filter(|o| ops.contains(o)) {
                            let mut r = op_request(agent, op, &path);
                            if let Some(tool) = via {
                                r.via = Some(tool.to_string());
                            }
                            let d = e.evaluate(&r);
                            checked += 1;
                            if d.verdict == Verdict::Block {
                                let by = policy.rules().iter().find(|x| x.id == d.rule_id);
                                let protection = by.is_some_and(|x| {
                                    x.agent_names.iter().any(|a| a == "*") && x.reason.is_some()
                                });
                                if !protection {
                                    problems.push(format!("{preset}: {id} lets @{agent} {op} {path}, but {} refuses it", d.rule_id));
                                }
                            }
                        }
                    }
                }
            }
        }
        e.forget_session("ses_test");
    }
    assert!(checked > 200, "{checked} cases");
    assert!(
        problems.is_empty(),
        "{} silent overrides:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn samples_are_paths_of_their_glob() {
    assert_eq!(
        samples("src/**"),
        vec!["src/sample.md", "src/a/b/sample.md"]
    );
    assert_eq!(samples("**/*.md"), vec!["sample.md", "a/b/sample.md"]);
    assert_eq!(
        samples("docs/kord/plans/*[pP][rR][dD]*.md"),
        vec!["docs/kord/plans/sampleprdsample.md"]
    );
}
