//! Merging a preset with the project's config, and compiling the result into a [`Policy`].
//! The merge rules are documented on [`super::policy`].

use super::fast_map::FastMap;
use std::collections::{BTreeMap, HashMap};

use super::config::{
    codes, did_you_mean, err, index_path, key_path, ConfigError, ConfigErrors, Effect, RawAgent,
    RawAppendOnly, RawDefaults, RawOp, RawPolicy, RawRule, RawSacred, RawTool, GIT_OP_NAMES,
};
use super::policy::{
    Agent, AppendOnly, Policy, Rule, Sacred, ToolSpec, DEFAULT_NAMES, SLOTS, SLOT_CREATE,
    SLOT_DELETE, SLOT_GIT0, SLOT_OPAQUE, SLOT_READ, SLOT_WRITE,
};
use nso_text::glob::Glob;

/// Something merged, with where it came from and its JSON path there.
pub(super) struct Sourced<T> {
    item: T,
    source: String,
    path: String,
}

#[derive(Default)]
pub(super) struct Merged {
    pub(super) name: Option<String>,
    case_insensitive: Option<(bool, String)>,
    mode: Option<super::config::Mode>,
    agents: BTreeMap<String, (RawAgent, String, String)>,
    agent_order: Vec<String>,
    rules: Vec<Sourced<RawRule>>,
    disabled: HashMap<String, String>,
    defaults: [Option<(Effect, String)>; 6],
    append_only: Vec<Sourced<RawAppendOnly>>,
    sacred: Vec<Sourced<RawSacred>>,
    outside_allow: Option<Sourced<Vec<String>>>,
    outside_instead: Option<String>,
    tools: BTreeMap<String, RawTool>,
    /// Where an agent's per-category default was last set, when not where it was defined.
    agent_default_sources: HashMap<(String, usize), String>,
}

fn is_disable_only(r: &RawRule) -> bool {
    r.disabled == Some(true)
        && r.agents.is_none()
        && r.ops.is_none()
        && r.git.is_none()
        && r.paths.is_none()
        && r.effect.is_none()
}

fn check_dup_ids<'a>(
    ids: impl Iterator<Item = (usize, &'a str)>,
    what: &str,
    source: &str,
    errors: &mut Vec<ConfigError>,
) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, id) in ids {
        if let Some(prev) = seen.insert(id, i) {
            errors.push(err(
                codes::DUPLICATE_ID,
                source,
                &index_path(what, i),
                format!("the id `{id}` is already used by {what}[{prev}]"),
                "give each entry its own id, or merge the two",
            ));
        }
    }
}

impl Merged {
    pub(super) fn add(
        &mut self,
        raw: RawPolicy,
        source: &str,
        is_project: bool,
    ) -> Result<(), ConfigErrors> {
        let mut errors = Vec::new();
        if !is_project && raw.preset.is_some() {
            errors.push(err(
                codes::INVALID_RULE,
                source,
                "preset",
                "a preset cannot be based on another preset",
                "remove `preset`",
            ));
        }
        if let Some(n) = raw.name {
            if !valid_id(&n) {
                errors.push(err(
                    codes::INVALID_ID,
                    source,
                    "name",
                    format!("`{n}` is not a valid name"),
                    "use letters, digits, `.`, `_` and `-`",
                ));
            }
            self.name = Some(n);
        }
        if let Some(ci) = raw.case_insensitive {
            self.case_insensitive = Some((ci, source.to_string()));
        }
        if let Some(mode) = raw.mode {
            self.mode = Some(mode);
        }
        if let Some(agents) = raw.agents {
            for (name, a) in agents {
                let path = key_path("agents", &name);
                match self.agents.get_mut(&name) {
                    Some((existing, _, _)) => {
                        let ext = |dst: &mut Option<Vec<String>>, src: Option<Vec<String>>| {
                            if let Some(s) = src {
                                dst.get_or_insert_with(Vec::new).extend(s);
                            }
                        };
                        ext(&mut existing.aliases, a.aliases);
                        ext(&mut existing.display_names, a.display_names);
                        if a.description.is_some() {
                            existing.description = a.description;
                        }
                        if a.like.is_some() {
                            existing.like = a.like;
                        }
                        if let Some(d) = a.defaults {
                            for (i, e) in defaults_array(&d).into_iter().enumerate() {
                                if e.is_some() {
                                    self.agent_default_sources
                                        .insert((name.clone(), i), source.to_string());
                                }
                            }
                            let e = existing.defaults.get_or_insert_with(RawDefaults::default);
                            merge_defaults(e, d);
                        }
                    }
                    None => {
                        self.agent_order.push(name.clone());
                        self.agents.insert(name, (a, source.to_string(), path));
                    }
                }
            }
        }
        if let Some(d) = raw.defaults {
            for (i, e) in defaults_array(&d).into_iter().enumerate() {
                if let Some(e) = e {
                    self.defaults[i] = Some((e, source.to_string()));
                }
            }
        }
        if let Some(rules) = raw.rules {
            check_dup_ids(
                rules.iter().map(|r| r.id.as_str()).enumerate(),
                "rules",
                source,
                &mut errors,
            );
            for (i, r) in rules.into_iter().enumerate() {
                let path = index_path("rules", i);
                let existing = self.rules.iter().position(|x| x.item.id == r.id);
                match existing {
                    Some(_) if is_disable_only(&r) => {
                        self.disabled.insert(r.id.clone(), source.to_string());
                    }
                    Some(pos) => {
                        self.disabled.remove(&r.id);
                        self.rules[pos] = Sourced {
                            item: r,
                            source: source.to_string(),
                            path,
                        };
                    }
                    None if is_disable_only(&r) && is_project => errors.push(err(
                        codes::INVALID_RULE,
                        source,
                        &path,
                        format!("there is no rule `{}` to disable", r.id),
                        match did_you_mean(&r.id, self.rules.iter().map(|x| x.item.id.as_str())) {
                            Some(m) => format!("did you mean `{m}`?"),
                            None => "check the id with `nso explain`".to_string(),
                        },
                    )),
                    None => self.rules.push(Sourced {
                        item: r,
                        source: source.to_string(),
                        path,
                    }),
                }
            }
        }
        if let Some(list) = raw.append_only {
            merge_by_id(
                &mut self.append_only,
                list,
                |r| &r.id,
                ("appendOnly", source),
                &mut errors,
            );
        }
        if let Some(list) = raw.sacred {
            merge_by_id(
                &mut self.sacred,
                list,
                |r| &r.id,
                ("sacred", source),
                &mut errors,
            );
        }
        if let Some(o) = raw.outside_project {
            if let Some(allow) = o.allow {
                self.outside_allow = Some(Sourced {
                    item: allow,
                    source: source.to_string(),
                    path: "outsideProject.allow".to_string(),
                });
            }
            if o.instead.is_some() {
                self.outside_instead = o.instead;
            }
        }
        if let Some(tools) = raw.tools {
            for (name, t) in tools {
                self.tools.insert(name.to_lowercase(), t);
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ConfigErrors(errors))
        }
    }

    pub(super) fn compile(self, preset: Option<String>) -> Result<Policy, ConfigErrors> {
        let mut errors: Vec<ConfigError> = Vec::new();
        let ci = self.case_insensitive.as_ref().map(|c| c.0).unwrap_or(false);
        let name = self.name.clone().unwrap_or_else(|| "project".to_string());

        // Agents and their names.
        let mut agents: Vec<Agent> = Vec::new();
        let mut exact_names: FastMap<String, usize> = FastMap::default();
        let mut folded_names: HashMap<String, (usize, String)> = HashMap::new();
        for agent_name in &self.agent_order {
            let (raw, source, path) = &self.agents[agent_name];
            let idx = agents.len();
            if !valid_agent_name(agent_name) {
                errors.push(err(
                    codes::INVALID_ID,
                    source,
                    path,
                    format!("`{agent_name}` is not a valid agent name"),
                    "use the name without `@`, e.g. `dev-junior`",
                ));
            }
            let mut register = |n: &str, field: String| {
                let folded = n.trim().trim_start_matches('@').trim().to_lowercase();
                if folded.is_empty() {
                    errors.push(err(
                        codes::INVALID_ID,
                        source,
                        &field,
                        "an empty agent name",
                        "remove it",
                    ));
                    return;
                }
                match folded_names.get(&folded) {
                    Some((other, _)) if *other != idx => errors.push(err(
                        codes::DUPLICATE_AGENT_NAME,
                        source,
                        &field,
                        format!(
                            "`{n}` already names agent `{}`",
                            agents_name(&self.agent_order, *other)
                        ),
                        "each name, alias and display name must belong to one agent",
                    )),
                    _ => {
                        folded_names.insert(folded, (idx, field));
                        exact_names
                            .insert(n.trim().trim_start_matches('@').trim().to_string(), idx);
                    }
                }
            };
            register(agent_name, path.clone());
            for (i, a) in raw.aliases.iter().flatten().enumerate() {
                register(a, index_path(&format!("{path}.aliases"), i));
            }
            for (i, a) in raw.display_names.iter().flatten().enumerate() {
                register(a, index_path(&format!("{path}.displayNames"), i));
            }
            let mut defaults: [Option<(Effect, String)>; 6] = Default::default();
            if let Some(d) = &raw.defaults {
                for (i, e) in defaults_array(d).into_iter().enumerate() {
                    let src = self
                        .agent_default_sources
                        .get(&(agent_name.clone(), i))
                        .unwrap_or(source);
                    defaults[i] = e.map(|e| (e, src.clone()));
                }
            }
            agents.push(Agent {
                name: agent_name.clone(),
                description: raw.description.clone(),
                aliases: raw.aliases.clone().unwrap_or_default(),
                display_names: raw.display_names.clone().unwrap_or_default(),
                like: None,
                defaults,
                source: source.clone(),
            });
        }
        let lookup = |n: &str| -> Option<usize> {
            let f = n.trim().trim_start_matches('@').trim().to_lowercase();
            folded_names.get(&f).map(|x| x.0)
        };
        let unknown_agent = |n: &str, source: &str, path: &str| {
            err(
                codes::UNKNOWN_AGENT,
                source,
                path,
                format!("no agent is called `{n}`"),
                match did_you_mean(n, self.agent_order.iter().map(String::as_str)) {
                    Some(m) => format!("did you mean `{m}`? Or define it under `agents`"),
                    None => format!("define `{n}` under `agents`, or use `*` for every agent"),
                },
            )
        };
        for agent_name in &self.agent_order {
            let (raw, source, path) = &self.agents[agent_name];
            if let Some(l) = &raw.like {
                match lookup(l) {
                    Some(t) => {
                        let idx = lookup(agent_name).unwrap_or(0);
                        agents[idx].like = Some(t);
                    }
                    None => errors.push(unknown_agent(l, source, &format!("{path}.like"))),
                }
            }
        }
        for (i, a) in agents.iter().enumerate() {
            let mut seen = vec![i];
            let mut cur = a.like;
            while let Some(c) = cur {
                if seen.contains(&c) {
                    let (_, source, path) = &self.agents[&a.name];
                    errors.push(err(
                        codes::AGENT_CYCLE,
                        source,
                        &format!("{path}.like"),
                        format!("`like` of `{}` leads back to itself", a.name),
                        "break the loop: `like` must end at an agent without `like`",
                    ));
                    break;
                }
                seen.push(c);
                cur = agents[c].like;
            }
        }
        if !errors.is_empty() {
            return Err(ConfigErrors(errors));
        }
        // Effective membership: an agent counts as every agent on its `like` chain.
        let chain = |i: usize| -> Vec<usize> {
            let mut v = vec![i];
            let mut cur = agents[i].like;
            while let Some(c) = cur {
                if v.contains(&c) {
                    break;
                }
                v.push(c);
                cur = agents[c].like;
            }
            v
        };
        let chains: Vec<Vec<usize>> = (0..agents.len()).map(chain).collect();

        let compile_globs = |list: &Option<Vec<String>>,
                             source: &str,
                             path: &str,
                             errors: &mut Vec<ConfigError>| {
            let mut out = Vec::new();
            for (i, p) in list.iter().flatten().enumerate() {
                match Glob::new(p, ci) {
                    Ok(g) => out.push(g),
                    Err(e) => errors.push(err(
                        codes::INVALID_GLOB,
                        source,
                        &index_path(path, i),
                        e.message,
                        e.hint,
                    )),
                }
            }
            out
        };
        let resolve_list = |list: &Option<Vec<String>>,
                            source: &str,
                            path: &str,
                            errors: &mut Vec<ConfigError>|
         -> (bool, Vec<usize>, Vec<String>) {
            let mut all = false;
            let mut idx = Vec::new();
            let mut names = Vec::new();
            for (i, n) in list.iter().flatten().enumerate() {
                if n.trim() == "*" {
                    all = true;
                    names.push("*".to_string());
                    continue;
                }
                match lookup(n) {
                    Some(a) => {
                        idx.push(a);
                        names.push(agents[a].name.clone());
                    }
                    None => errors.push(unknown_agent(n, source, &index_path(path, i))),
                }
            }
            (all, idx, names)
        };

        // Rules.
        let mut rules: Vec<Rule> = Vec::new();
        let mut members: Vec<(bool, Vec<usize>)> = Vec::new();
        let mut all_raw: Vec<&Sourced<RawRule>> = self.rules.iter().collect();
        let outside_rule;
        if let Some(o) = &self.outside_allow {
            outside_rule = Sourced {
                item: RawRule {
                    id: format!("{name}.outside_project.allow"),
                    description: Some(
                        "folders outside the project every agent may change".to_string(),
                    ),
                    agents: Some(vec!["*".to_string()]),
                    ops: Some(vec![RawOp::Write, RawOp::Create, RawOp::Delete]),
                    paths: Some(o.item.clone()),
                    effect: Some(Effect::Allow),
                    ..RawRule::default()
                },
                source: o.source.clone(),
                path: o.path.clone(),
            };
            all_raw.push(&outside_rule);
        }
        for s in all_raw {
            let r = &s.item;
            let path = s.path.as_str();
            let source = s.source.as_str();
            let is_outside_sugar = path == "outsideProject.allow";
            if !valid_id(&r.id) {
                errors.push(err(
                    codes::INVALID_ID,
                    source,
                    &format!("{path}.id"),
                    format!("`{}` is not a valid rule id", r.id),
                    "use letters, digits, `.`, `_` and `-`, e.g. `myproject.docs.write`",
                ));
            }
            let disabled = r.disabled == Some(true);
            let disabled_by = if disabled {
                Some(source.to_string())
            } else {
                self.disabled.get(&r.id).cloned()
            };
            let effect = match r.effect {
                Some(e) => e,
                None if disabled_by.is_some() => Effect::Allow,
                None => {
                    errors.push(err(
                        codes::INCOMPLETE_RULE,
                        source,
                        path,
                        format!("rule `{}` has no `effect`", r.id),
                        "add \"effect\": \"allow\" | \"block\" | \"soft\" | \"warn\"",
                    ));
                    continue;
                }
            };
            let (all, idx, names) =
                resolve_list(&r.agents, source, &format!("{path}.agents"), &mut errors);
            if r.agents.as_ref().is_none_or(|a| a.is_empty()) && disabled_by.is_none() {
                errors.push(err(
                    codes::INCOMPLETE_RULE,
                    source,
                    path,
                    format!("rule `{}` names no agents", r.id),
                    "add \"agents\": [\"dev\"] (or [\"*\"] for every agent)",
                ));
            }
            let mut slots = Vec::new();
            let mut path_ops = false;
            for op in r.ops.iter().flatten() {
                let slot = match op {
                    RawOp::Read => SLOT_READ,
                    RawOp::Write => SLOT_WRITE,
                    RawOp::Create => SLOT_CREATE,
                    RawOp::Delete => SLOT_DELETE,
                    RawOp::Opaque => SLOT_OPAQUE,
                };
                path_ops |= slot != SLOT_OPAQUE;
                if !slots.contains(&slot) {
                    slots.push(slot);
                }
            }
            for (i, g) in r.git.iter().flatten().enumerate() {
                match GIT_OP_NAMES.iter().position(|n| n == g) {
                    Some(p) => slots.push(SLOT_GIT0 + p),
                    None => errors.push(err(
                        codes::INVALID_VALUE,
                        source,
                        &index_path(&format!("{path}.git"), i),
                        format!("`{g}` is not a git operation"),
                        format!("use one of: {}", GIT_OP_NAMES.join(", ")),
                    )),
                }
            }
            if slots.is_empty() && disabled_by.is_none() {
                errors.push(err(
                    codes::INCOMPLETE_RULE,
                    source,
                    path,
                    format!("rule `{}` names no operation", r.id),
                    "add \"ops\": [\"write\", \"create\"] and \"paths\", or \"git\": [\"push\"]",
                ));
            }
            if path_ops && r.paths.as_ref().is_none_or(|p| p.is_empty()) && disabled_by.is_none() {
                errors.push(err(
                    codes::INCOMPLETE_RULE,
                    source,
                    path,
                    format!("rule `{}` names file operations but no `paths`", r.id),
                    "add \"paths\": [\"**\"] for every path in the project",
                ));
            }
            if !path_ops && (r.paths.is_some() || r.except.is_some()) {
                errors.push(err(
                    codes::INVALID_RULE,
                    source,
                    &format!("{path}.paths"),
                    format!("rule `{}` has paths but only git/opaque operations", r.id),
                    "split it: paths belong to read/write/create/delete rules",
                ));
            }
            let paths_path = if is_outside_sugar {
                path.to_string()
            } else {
                format!("{path}.paths")
            };
            let paths = compile_globs(&r.paths, source, &paths_path, &mut errors);
            if is_outside_sugar {
                for (i, g) in paths.iter().enumerate() {
                    if !g.is_absolute() {
                        errors.push(err(
                            codes::INVALID_GLOB,
                            source,
                            &index_path(path, i),
                            format!("`{}` is not absolute", g.as_str()),
                            "outsideProject.allow holds absolute globs such as `/tmp/**`",
                        ));
                    }
                }
            }
            let except = compile_globs(&r.except, source, &format!("{path}.except"), &mut errors);
            let exclusive = r.exclusive == Some(true);
            if exclusive && effect != Effect::Allow {
                errors.push(err(
                    codes::INVALID_RULE,
                    source,
                    &format!("{path}.exclusive"),
                    format!("rule `{}` is exclusive but its effect is not `allow`", r.id),
                    "`exclusive` means \"only these agents may\": use it with \"effect\": \"allow\"",
                ));
            }
            members.push((all, idx));
            rules.push(Rule {
                id: r.id.clone(),
                source: source.to_string(),
                description: r.description.clone(),
                agent_names: names,
                slots,
                paths,
                except,
                tools: r.tools.iter().flatten().map(|t| t.to_lowercase()).collect(),
                except_tools: r
                    .except_tools
                    .iter()
                    .flatten()
                    .map(|t| t.to_lowercase())
                    .collect(),
                effect,
                exclusive,
                audit: r.mode == Some(super::config::Mode::Audit),
                enforce: r.mode == Some(super::config::Mode::Enforce),
                members: Vec::new(),
                reason: r.reason.clone(),
                instead: r.instead.clone(),
                disabled_by,
            });
        }

        let mut append_only = Vec::new();
        for s in &self.append_only {
            let r = &s.item;
            if r.disabled == Some(true) {
                continue;
            }
            let area = AreaRef {
                id: &r.id,
                source: &s.source,
                path: &s.path,
            };
            let (paths, except) = area.compile_paths(
                ("append-only", "docs/notes/**"),
                (&r.paths, &r.except),
                &compile_globs,
                &mut errors,
            );
            let agents = r.agents.as_ref().map(|_| {
                let (all, idx, _) = resolve_list(
                    &r.agents,
                    &s.source,
                    &format!("{}.agents", s.path),
                    &mut errors,
                );
                if all {
                    (0..agents.len()).collect()
                } else {
                    idx
                }
            });
            append_only.push(AppendOnly {
                id: r.id.clone(),
                source: s.source.clone(),
                description: r.description.clone(),
                paths,
                except,
                agents,
                instead: r.instead.clone(),
                enforce: false,
            });
        }
        let mut sacred = Vec::new();
        for s in &self.sacred {
            let r = &s.item;
            if r.disabled == Some(true) {
                continue;
            }
            let area = AreaRef {
                id: &r.id,
                source: &s.source,
                path: &s.path,
            };
            let (paths, except) = area.compile_paths(
                ("sacred", "docs/plans/*.md"),
                (&r.paths, &r.except),
                &compile_globs,
                &mut errors,
            );
            let (_, authors, _) = resolve_list(
                &r.authors,
                &s.source,
                &format!("{}.authors", s.path),
                &mut errors,
            );
            let (_, tickers, _) = resolve_list(
                &r.tickers,
                &s.source,
                &format!("{}.tickers", s.path),
                &mut errors,
            );
            sacred.push(Sacred {
                id: r.id.clone(),
                source: s.source.clone(),
                description: r.description.clone(),
                paths,
                except,
                authors,
                tickers,
                instead: r.instead.clone(),
            });
        }
        if !errors.is_empty() {
            return Err(ConfigErrors(errors));
        }

        // Index rules per agent and slot; `like` makes an agent a member of its model's rules.
        let mut index = vec![Vec::new(); agents.len() * SLOTS];
        for (ri, rule) in rules.iter_mut().enumerate() {
            let (all, idx) = &members[ri];
            rule.members = chains
                .iter()
                .map(|ch| *all || ch.iter().any(|c| idx.contains(c)))
                .collect();
            if rule.disabled_by.is_some() {
                continue;
            }
            for (ai, member) in rule.members.iter().enumerate() {
                if *member || rule.exclusive {
                    for &slot in &rule.slots {
                        index[ai * SLOTS + slot].push(ri as u32);
                    }
                }
            }
        }
        // Sacred/append-only membership also follows `like`.
        for s in &mut sacred {
            s.authors = expand_like(&s.authors, &chains);
            s.tickers = expand_like(&s.tickers, &chains);
        }
        for a in &mut append_only {
            if let Some(list) = &a.agents {
                a.agents = Some(expand_like(list, &chains));
            }
        }

        let builtin = match &preset {
            Some(p) => format!("preset {p}"),
            None => "built-in".to_string(),
        };
        let fallback = [
            Effect::Allow,
            Effect::Block,
            Effect::Block,
            Effect::Block,
            Effect::Block,
            Effect::Block,
        ];
        let defaults: [(Effect, String); 6] = std::array::from_fn(|i| {
            self.defaults[i]
                .clone()
                .unwrap_or_else(|| (fallback[i], builtin.clone()))
        });
        let tools = self
            .tools
            .into_iter()
            .map(|(k, t)| {
                (
                    k,
                    ToolSpec {
                        class: t.class,
                        path_args: t.path_args,
                    },
                )
            })
            .collect();
        let name_for_ids = name.clone();
        let mut policy = Policy {
            name,
            preset,
            case_insensitive: ci,
            audit: self.mode == Some(super::config::Mode::Audit),
            agents,
            exact_names,
            folded_names: folded_names.into_iter().map(|(k, v)| (k, v.0)).collect(),
            rules,
            index,
            defaults,
            append_only,
            sacred,
            outside_instead: self.outside_instead,
            tools,
            write_create_same: Vec::new(),
            default_ids: std::array::from_fn(|i| {
                format!("{name_for_ids}.default.{}", DEFAULT_NAMES[i])
            }),
        };
        // Rules limited to other tools never see a create-or-write call (write, edit,
        // multiedit, or a write NSO's own tools make on the agent's behalf).
        let relevant = |list: &[u32]| -> Vec<u32> {
            list.iter()
                .copied()
                .filter(|&r| {
                    let t = &policy.rules[r as usize].tools;
                    t.is_empty()
                        || t.iter().any(|x| {
                            matches!(x.as_str(), "write" | "edit" | "multiedit")
                                || super::tools::NSO_TOOLS.contains(&x.as_str())
                        })
                })
                .collect()
        };
        policy.write_create_same = (0..policy.agents.len())
            .map(|a| {
                relevant(policy.candidates(a, SLOT_WRITE))
                    == relevant(policy.candidates(a, SLOT_CREATE))
                    && policy.default_for(Some(a), SLOT_WRITE).0
                        == policy.default_for(Some(a), SLOT_CREATE).0
                    && !policy.sacred.iter().any(|s| s.tickers.contains(&a))
            })
            .collect();
        Ok(policy)
    }
}

fn agents_name(order: &[String], i: usize) -> &str {
    order.get(i).map(String::as_str).unwrap_or("?")
}

fn expand_like(list: &[usize], chains: &[Vec<usize>]) -> Vec<usize> {
    (0..chains.len())
        .filter(|&a| chains[a].iter().any(|c| list.contains(c)))
        .collect()
}

fn defaults_array(d: &RawDefaults) -> [Option<Effect>; 6] {
    [d.read, d.write, d.create, d.delete, d.git, d.opaque]
}

fn merge_defaults(dst: &mut RawDefaults, src: RawDefaults) {
    dst.read = src.read.or(dst.read);
    dst.write = src.write.or(dst.write);
    dst.create = src.create.or(dst.create);
    dst.delete = src.delete.or(dst.delete);
    dst.git = src.git.or(dst.git);
    dst.opaque = src.opaque.or(dst.opaque);
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn valid_agent_name(n: &str) -> bool {
    !n.trim().is_empty() && !n.starts_with('@') && n.trim() == n && n.len() <= 128
}

/// Compiles a list of globs (the policy's case-sensitivity applied), reporting bad ones.
type GlobCompiler<'c> =
    dyn Fn(&Option<Vec<String>>, &str, &str, &mut Vec<ConfigError>) -> Vec<Glob> + 'c;

/// An append-only or sacred area being compiled: where it is defined, for errors.
struct AreaRef<'a> {
    id: &'a str,
    source: &'a str,
    path: &'a str,
}

impl AreaRef<'_> {
    /// Compiles the area's `paths` (required) and `except` globs; `kind` names the area kind
    /// and an example glob for the error message.
    fn compile_paths(
        &self,
        (kind, example): (&str, &str),
        (paths, except): (&Option<Vec<String>>, &Option<Vec<String>>),
        compile_globs: &GlobCompiler,
        errors: &mut Vec<ConfigError>,
    ) -> (Vec<Glob>, Vec<Glob>) {
        if paths.as_ref().is_none_or(|p| p.is_empty()) {
            errors.push(err(
                codes::INCOMPLETE_RULE,
                self.source,
                self.path,
                format!("{kind} area `{}` has no `paths`", self.id),
                format!("add \"paths\": [\"{example}\"]"),
            ));
        }
        let paths = compile_globs(paths, self.source, &format!("{}.paths", self.path), errors);
        let except = compile_globs(
            except,
            self.source,
            &format!("{}.except", self.path),
            errors,
        );
        (paths, except)
    }
}

/// Merges a project's `list` into `into` by id: an entry whose id is already there replaces
/// it, others are added; duplicate ids within `list` are errors.
fn merge_by_id<T>(
    into: &mut Vec<Sourced<T>>,
    list: Vec<T>,
    id: impl Fn(&T) -> &String,
    (section, source): (&str, &str),
    errors: &mut Vec<ConfigError>,
) {
    check_dup_ids(
        list.iter().map(|r| id(r).as_str()).enumerate(),
        section,
        source,
        errors,
    );
    for (i, item) in list.into_iter().enumerate() {
        let s = Sourced {
            item,
            source: source.to_string(),
            path: index_path(section, i),
        };
        match into.iter().position(|x| id(&x.item) == id(&s.item)) {
            Some(pos) => into[pos] = s,
            None => into.push(s),
        }
    }
}
