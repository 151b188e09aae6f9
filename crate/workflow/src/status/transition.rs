//! Edit checks: the old and new text of a governed file are compared entry by entry, and
//! each status change must be a transition of the machine, made by an allowed agent, with
//! its conditions holding in the new text and its iteration limit not exceeded.
//!
//! Rules, per entry (the file for one-status files, each task number for TODO.md and
//! state.json):
//!
//! * unchanged status: allowed (append-only counters are still checked);
//! * changed status: the move must be a transition (`status_illegal_transition`), the agent
//!   must be listed (`status_wrong_agent`), its conditions must hold on the new text
//!   (`status_condition_failed`) and its limit must not be exceeded (`status_iteration_limit`);
//! * a status that names no state: `status_unknown_state`;
//! * a new file, a new entry, or a status added where there was none, must start in one of
//!   the binding's `createIn` states (default: the initial states): `status_bad_initial_state`;
//!   an old status that named no state counts as none;
//! * a status (or a whole entry) may disappear only from a terminal state: `status_removed`;
//! * a task number may not appear twice where it did not before: `status_duplicate_entry`;
//! * a state.json that was readable must stay valid JSON: `status_unreadable`;
//! * counters marked `appendOnly` may not lose records: `status_history_rewritten`.
//!
//! Iteration numbers: the counter of a limited transition is read from the old and the new
//! text; the larger value is the iteration this move makes (QA records its verdict in the
//! same edit or an earlier one; deleting records does not lower it). The move is blocked when
//! that number exceeds `max`.

use super::conditions::{all_records, counter_value, failures, number_value, Facts};
use super::extract::{extract, facts_of, Extraction, FoundEntry};
use super::glob::normalize_path;
use super::machine::{Extractor, Machine, StatusConfig};
use super::state_json::EntryKey;
use super::text::{agents_phrase, join_or, norm_agent};
use std::collections::BTreeMap;

/// Stable codes of blocked edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockCode {
    /// The move is not a transition of the machine.
    StatusIllegalTransition,
    /// The move is a transition, but not one this agent may make.
    StatusWrongAgent,
    /// A condition of the transition fails in the new text.
    StatusConditionFailed,
    /// The transition's iteration limit would be exceeded.
    StatusIterationLimit,
    /// The new status names no state of the machine.
    StatusUnknownState,
    /// A new file or entry does not start in an allowed initial state.
    StatusBadInitialState,
    /// A status or entry disappears from a non-terminal state.
    StatusRemoved,
    /// A task number appears twice.
    StatusDuplicateEntry,
    /// The new text cannot be read (invalid JSON).
    StatusUnreadable,
    /// Records counted by an append-only counter were removed or rewritten.
    StatusHistoryRewritten,
}

impl BlockCode {
    /// The code as a string (`status_illegal_transition`).
    pub fn as_str(self) -> &'static str {
        match self {
            BlockCode::StatusIllegalTransition => "status_illegal_transition",
            BlockCode::StatusWrongAgent => "status_wrong_agent",
            BlockCode::StatusConditionFailed => "status_condition_failed",
            BlockCode::StatusIterationLimit => "status_iteration_limit",
            BlockCode::StatusUnknownState => "status_unknown_state",
            BlockCode::StatusBadInitialState => "status_bad_initial_state",
            BlockCode::StatusRemoved => "status_removed",
            BlockCode::StatusDuplicateEntry => "status_duplicate_entry",
            BlockCode::StatusUnreadable => "status_unreadable",
            BlockCode::StatusHistoryRewritten => "status_history_rewritten",
        }
    }
}

/// A legal next state and who may move there.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LegalMove {
    /// The state's name.
    pub state: String,
    /// Agents allowed (`*` = any).
    pub agents: Vec<String>,
}

/// One reason an edit is blocked.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// Stable code.
    pub code: BlockCode,
    /// The file (as given, normalised).
    pub file: String,
    /// The entry (`story`, `task 258`).
    pub entry: String,
    /// 1-based line in the new text (or the old text for removals).
    pub line: Option<usize>,
    /// The current state (as written).
    pub from: Option<String>,
    /// The attempted state (as written).
    pub to: Option<String>,
    /// Legal next states from the current state.
    pub legal: Vec<LegalMove>,
    /// The sentence describing this violation.
    pub message: String,
}

/// A status change that was allowed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StatusChange {
    /// The entry's key.
    pub key: EntryKey,
    /// The old state (None: new entry).
    pub from: Option<String>,
    /// The new state (None: removed).
    pub to: Option<String>,
}

/// The result of [`check_edit`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum EditVerdict {
    /// The edit may proceed.
    Allow {
        /// The governing machine, if the file is governed.
        machine: Option<String>,
        /// Status changes the edit makes.
        changes: Vec<StatusChange>,
    },
    /// The edit must be refused.
    Block {
        /// Code of the first violation.
        code: BlockCode,
        /// The full message for the agent (`NSO blocked edit for @dev: …`).
        message: String,
        /// Every violation found.
        violations: Vec<Violation>,
    },
}

impl EditVerdict {
    /// True for `Allow`.
    pub fn is_allowed(&self) -> bool {
        matches!(self, EditVerdict::Allow { .. })
    }
}

/// Why a move between two known states is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MoveProblem {
    Illegal,
    WrongAgent(Vec<String>),
    Conditions(Vec<super::conditions::Failed>),
    Limit {
        n: u64,
        max: u32,
        counter: String,
        escalation: String,
    },
}

/// Checks one move of a known state to another; returns the transition index.
pub(crate) fn check_move(
    machine: &Machine,
    from: usize,
    to: usize,
    agent: &str,
    old: Option<&dyn Facts>,
    new: &dyn Facts,
) -> Result<usize, MoveProblem> {
    let Some(t) = machine.transition_between(from, to) else {
        return Err(MoveProblem::Illegal);
    };
    let Some((def, _, _)) = machine.transition(t) else {
        return Err(MoveProblem::Illegal);
    };
    if !machine.agent_allowed(t, agent) {
        return Err(MoveProblem::WrongAgent(def.agents.clone()));
    }
    let failed = failures(machine, &def.conditions, new);
    if !failed.is_empty() {
        return Err(MoveProblem::Conditions(failed));
    }
    if let Some(limit) = &def.limit {
        if let Some(counter) = machine.def.counters.get(&limit.counter) {
            let n = counter_value(counter, new)
                .max(old.map(|o| counter_value(counter, o)).unwrap_or(0));
            if n > u64::from(limit.max) {
                return Err(MoveProblem::Limit {
                    n,
                    max: limit.max,
                    counter: if counter.description.is_empty() {
                        limit.counter.clone()
                    } else {
                        counter.description.clone()
                    },
                    escalation: limit.escalation.clone(),
                });
            }
        }
    }
    Ok(t)
}

/// How states are shown for a file kind.
pub(crate) fn show_state(extractor: &Extractor, name: &str) -> String {
    match extractor {
        Extractor::TodoEntries { .. } => format!("[{name}]"),
        _ => name.to_string(),
    }
}

/// The legal next states of `from`.
pub(crate) fn legal_moves(machine: &Machine, from: usize) -> Vec<LegalMove> {
    machine
        .transitions_from(from)
        .into_iter()
        .filter_map(|t| machine.transition(t))
        .map(|(d, _, to)| LegalMove {
            state: machine.state_name(to).to_string(),
            agents: d.agents.clone(),
        })
        .collect()
}

/// "From DRAFT the legal next state is READY (by @sm or @po)." followed, for the agents
/// `who` (an agent and the agents it acts like; none: unknown), by the moves they may make
/// themselves: "You (@sm) may move it to READY." or "You (@dev) may make none of them."
pub(crate) fn legal_sentence(
    machine: &Machine,
    extractor: &Extractor,
    from: usize,
    who: &[&str],
) -> String {
    let moves = legal_moves(machine, from);
    let from_s = show_state(extractor, machine.state_name(from));
    if moves.is_empty() {
        return format!("{from_s} is a final state: no further transitions are allowed.");
    }
    let parts: Vec<String> = moves
        .iter()
        .map(|m| {
            format!(
                "{} (by {})",
                show_state(extractor, &m.state),
                agents_phrase(&m.agents)
            )
        })
        .collect();
    let all = if parts.len() == 1 {
        format!("From {from_s} the legal next state is {}.", parts[0])
    } else {
        format!(
            "From {from_s} the legal next states are {}.",
            join_or(&parts, "and")
        )
    };
    match who.iter().find(|a| !a.trim().is_empty()) {
        Some(agent) => format!("{all} {}", own_moves(machine, extractor, from, who, agent)),
        None => all,
    }
}

/// The moves from `from` that one of `who` may make, as a sentence addressed to `agent`.
fn own_moves(
    machine: &Machine,
    extractor: &Extractor,
    from: usize,
    who: &[&str],
    agent: &str,
) -> String {
    let mine: Vec<String> = machine
        .transitions_from(from)
        .into_iter()
        .filter(|&t| who.iter().any(|a| machine.agent_allowed(t, a)))
        .filter_map(|t| machine.transition(t))
        .map(|(_, _, to)| show_state(extractor, machine.state_name(to)))
        .collect();
    let you = format!("You (@{})", agent.trim_start_matches('@'));
    if mine.is_empty() {
        format!("{you} may make none of them.")
    } else {
        format!("{you} may move it to {}.", join_or(&mine, "or"))
    }
}

fn states_list(machine: &Machine, extractor: &Extractor, states: &[usize]) -> String {
    let v: Vec<String> = states
        .iter()
        .map(|&s| show_state(extractor, machine.state_name(s)))
        .collect();
    join_or(&v, "or")
}

/// The sentence for a refused move (without the `NSO blocked … for @agent:` prefix).
#[allow(clippy::too_many_arguments)] // the move, where it is, and whose it is
pub(crate) fn move_problem_sentence(
    machine: &Machine,
    extractor: &Extractor,
    file: &str,
    label: &str,
    from: usize,
    to: usize,
    problem: &MoveProblem,
    who: &[&str],
) -> (BlockCode, String) {
    let f = show_state(extractor, machine.state_name(from));
    let t = show_state(extractor, machine.state_name(to));
    let legal = legal_sentence(machine, extractor, from, who);
    let tlabel = machine
        .transition_between(from, to)
        .and_then(|i| machine.transition(i))
        .and_then(|(d, _, _)| d.label.clone())
        .map(|l| format!(" ({l})"))
        .unwrap_or_default();
    match problem {
        MoveProblem::Illegal => (
            BlockCode::StatusIllegalTransition,
            format!("{file} moves {label} from {f} to {t}, which is not a legal transition. {legal}"),
        ),
        MoveProblem::WrongAgent(agents) => (
            BlockCode::StatusWrongAgent,
            format!("{file} moves {label} from {f} to {t}{tlabel}, which only {} may do. {legal}", agents_phrase(agents)),
        ),
        MoveProblem::Conditions(failed) => {
            let parts: Vec<String> = failed
                .iter()
                .map(|c| {
                    let fix = if c.fix.is_empty() { String::new() } else { format!("; fix: {}", c.fix) };
                    format!("`{}`: {} — {}{fix}", c.name, c.description, c.detail)
                })
                .collect();
            let what = if failed.len() == 1 { "a condition fails" } else { "these conditions fail" };
            (
                BlockCode::StatusConditionFailed,
                format!("{file} moves {label} from {f} to {t}{tlabel}, but {what}: {}.", parts.join("; ")),
            )
        }
        MoveProblem::Limit { n, max, counter, escalation } => (
            BlockCode::StatusIterationLimit,
            format!(
                "{file} moves {label} from {f} to {t}{tlabel}, but this would be iteration {n} and at most {max} are allowed (counted from the {counter} recorded in the file).{}",
                if escalation.is_empty() { String::new() } else { format!(" {escalation}") }
            ),
        ),
    }
}

fn entry_label(machine: &Machine, key: &EntryKey) -> String {
    match key {
        EntryKey::Single => machine.def.noun.clone(),
        EntryKey::Task(n) => format!("{} {n}", machine.def.noun),
    }
}

fn agent_tag(agent: &str) -> String {
    let a = norm_agent(agent);
    if a.is_empty() {
        "an unnamed agent".to_string()
    } else {
        format!("@{a}")
    }
}

/// Checks an edit of `file_path` by `agent`: `old_text` is the file before (None: the file
/// is being created), `new_text` after. Files no machine governs are always allowed.
pub fn check_edit(
    file_path: &str,
    old_text: Option<&str>,
    new_text: &str,
    agent: &str,
    config: &StatusConfig,
) -> EditVerdict {
    check_edit_for(file_path, old_text, new_text, agent, &[agent], config)
}

/// [`check_edit`] by `agent`, whose refusals tell the moves any of `who` (the agent and the
/// agents it acts like) may make.
pub(crate) fn check_edit_for(
    file_path: &str,
    old_text: Option<&str>,
    new_text: &str,
    agent: &str,
    who: &[&str],
    config: &StatusConfig,
) -> EditVerdict {
    let file = normalize_path(file_path);
    let Some((machine, binding)) = config.resolve(&file) else {
        return EditVerdict::Allow {
            machine: None,
            changes: Vec::new(),
        };
    };
    let ex = &binding.extract;
    let new = extract(machine, ex, new_text);
    let old = old_text.map(|t| (t, extract(machine, ex, t)));
    let mut violations = Vec::new();
    let mut changes = Vec::new();
    let mk = |code,
              entry: &str,
              line,
              from: Option<String>,
              to: Option<String>,
              legal,
              message: String| Violation {
        code,
        file: file.clone(),
        entry: entry.to_string(),
        line,
        from,
        to,
        legal,
        message,
    };

    if let Some((l, c, m)) = &new.unreadable {
        let old_readable = old
            .as_ref()
            .map(|(_, o)| o.unreadable.is_none() && !o.entries.is_empty())
            .unwrap_or(true);
        if old_readable {
            violations.push(mk(
                BlockCode::StatusUnreadable,
                "file",
                Some(*l),
                None,
                None,
                Vec::new(),
                format!("{file} would not be valid JSON (line {l}, column {c}: {m}), so its task statuses could not be read; fix the syntax."),
            ));
        }
        return verdict(machine, agent, violations, changes);
    }

    let new_map = by_key(&new);
    let empty = Extraction {
        entries: Vec::new(),
        unreadable: None,
    };
    let (old_text_s, old_ex) = match &old {
        Some((t, e)) if e.unreadable.is_none() => (*t, e),
        Some((t, _)) => (*t, &empty),
        None => ("", &empty),
    };
    let old_map = by_key(old_ex);

    // Duplicates introduced by the edit.
    for (key, list) in &new_map {
        if list.len() > 1 && old_map.get(key).map(|o| o.len()).unwrap_or(0) < list.len() {
            let lines: Vec<String> = list.iter().map(|e| e.line.to_string()).collect();
            let label = entry_label(machine, key);
            violations.push(mk(
                BlockCode::StatusDuplicateEntry,
                &label,
                list.last().map(|e| e.line),
                None,
                None,
                Vec::new(),
                format!(
                    "{file} lists {label} {} times (lines {}); task numbers must be unique.",
                    list.len(),
                    lines.join(", ")
                ),
            ));
        }
    }

    // Entries compared pairwise: the i-th occurrence of a key in the old text with the i-th
    // in the new text (duplicates included).
    let mut keys: Vec<&EntryKey> = new_map.keys().chain(old_map.keys()).copied().collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let nl: &[&FoundEntry] = new_map.get(key).map(|v| v.as_slice()).unwrap_or(&[]);
        let ol: &[&FoundEntry] = old_map.get(key).map(|v| v.as_slice()).unwrap_or(&[]);
        let label = entry_label(machine, key);
        for i in 0..nl.len().max(ol.len()) {
            let o = ol.get(i).copied();
            let Some(n) = nl.get(i).copied() else {
                // The entry disappeared.
                if let Some((o, s)) =
                    o.and_then(|o| o.status.as_ref().and_then(|s| s.state).map(|s| (o, s)))
                {
                    if machine.is_terminal(s) {
                        changes.push(StatusChange {
                            key: (*key).clone(),
                            from: Some(machine.state_name(s).to_string()),
                            to: None,
                        });
                    } else {
                        let verb = if ex.is_multi() {
                            "removes"
                        } else {
                            "removes the status of"
                        };
                        violations.push(removed(machine, ex, &file, &label, o.line, s, verb, who));
                    }
                }
                continue;
            };
            let old_state = o.and_then(|o| o.status.as_ref()).and_then(|s| s.state);
            let Some(ns) = &n.status else {
                // The entry has no status now.
                if let Some((o, s)) =
                    o.and_then(|o| o.status.as_ref().and_then(|s| s.state).map(|s| (o, s)))
                {
                    if machine.is_terminal(s) {
                        changes.push(StatusChange {
                            key: (*key).clone(),
                            from: Some(machine.state_name(s).to_string()),
                            to: None,
                        });
                    } else {
                        violations.push(removed(
                            machine,
                            ex,
                            &file,
                            &label,
                            o.line,
                            s,
                            "removes the status of",
                            who,
                        ));
                    }
                }
                continue;
            };
            let Some(to) = ns.state else {
                if o.and_then(|o| o.status.as_ref())
                    .map(|s| s.raw == ns.raw)
                    .unwrap_or(false)
                {
                    continue; // unchanged unknown value: not this edit's doing
                }
                let names: Vec<String> = machine
                    .def
                    .states
                    .iter()
                    .map(|s| show_state(ex, &s.name))
                    .collect();
                let tail = match old_state {
                    Some(f) => legal_sentence(machine, ex, f, who),
                    None => format!(
                        "A new {} must start in {}.",
                        machine.def.noun,
                        states_list(machine, ex, &machine.create_states(binding))
                    ),
                };
                violations.push(mk(
                    BlockCode::StatusUnknownState,
                    &label,
                    Some(n.line),
                    old_state.map(|s| machine.state_name(s).to_string()),
                    Some(ns.raw.clone()),
                    old_state.map(|f| legal_moves(machine, f)).unwrap_or_default(),
                    format!(
                        "{file} sets {label} to `{}`, which is not a state of {}. The states are {}. {tail}",
                        ns.raw,
                        machine.name,
                        join_or(&names, "and")
                    ),
                ));
                continue;
            };
            match old_state {
                None => {
                    let allowed = machine.create_states(binding);
                    if !allowed.contains(&to) {
                        let verb = if old_text.is_none() || o.is_none() {
                            "creates"
                        } else {
                            "gives a status to"
                        };
                        violations.push(mk(
                            BlockCode::StatusBadInitialState,
                            &label,
                            Some(n.line),
                            None,
                            Some(machine.state_name(to).to_string()),
                            Vec::new(),
                            format!(
                                "{file} {verb} {label} in {}, but a new {} must start in {}.",
                                show_state(ex, machine.state_name(to)),
                                machine.def.noun,
                                states_list(machine, ex, &allowed)
                            ),
                        ));
                    } else {
                        changes.push(StatusChange {
                            key: (*key).clone(),
                            from: None,
                            to: Some(machine.state_name(to).to_string()),
                        });
                    }
                }
                Some(from) => {
                    if from == to && !machine.def.counters.values().any(|c| c.append_only) {
                        continue;
                    }
                    let new_facts = facts_of(ex, new_text, n);
                    let old_facts = o.map(|o| facts_of(ex, old_text_s, o));
                    if let Some(v) = history_rewritten(
                        machine,
                        &file,
                        &label,
                        n.line,
                        old_facts.as_deref(),
                        new_facts.as_ref(),
                    ) {
                        violations.push(v);
                    }
                    if from == to {
                        continue;
                    }
                    match check_move(
                        machine,
                        from,
                        to,
                        agent,
                        old_facts.as_deref(),
                        new_facts.as_ref(),
                    ) {
                        Ok(_) => changes.push(StatusChange {
                            key: (*key).clone(),
                            from: Some(machine.state_name(from).to_string()),
                            to: Some(machine.state_name(to).to_string()),
                        }),
                        Err(p) => {
                            let (code, message) = move_problem_sentence(
                                machine, ex, &file, &label, from, to, &p, who,
                            );
                            violations.push(mk(
                                code,
                                &label,
                                Some(n.line),
                                Some(machine.state_name(from).to_string()),
                                Some(machine.state_name(to).to_string()),
                                legal_moves(machine, from),
                                message,
                            ));
                        }
                    }
                }
            }
        }
    }
    verdict(machine, agent, violations, changes)
}

#[allow(clippy::too_many_arguments)] // the entry, where it is, and whose the edit is
fn removed(
    machine: &Machine,
    ex: &Extractor,
    file: &str,
    label: &str,
    line: usize,
    s: usize,
    verb: &str,
    who: &[&str],
) -> Violation {
    let terminals: Vec<usize> = (0..machine.state_count())
        .filter(|&i| machine.is_terminal(i))
        .collect();
    let finals = if terminals.is_empty() {
        "this machine has no final state, so it may never".to_string()
    } else {
        format!(
            "only a {} in {} may",
            machine.def.noun,
            states_list(machine, ex, &terminals)
        )
    };
    let what = if ex.is_multi() && verb == "removes" {
        "be removed"
    } else {
        "lose its status"
    };
    Violation {
        code: BlockCode::StatusRemoved,
        file: file.to_string(),
        entry: label.to_string(),
        line: Some(line),
        from: Some(machine.state_name(s).to_string()),
        to: None,
        legal: legal_moves(machine, s),
        message: format!(
            "{file} {verb} {label} while it is {}; {finals} {what}. {}",
            show_state(ex, machine.state_name(s)),
            legal_sentence(machine, ex, s, who)
        ),
    }
}

fn history_rewritten(
    machine: &Machine,
    file: &str,
    label: &str,
    line: usize,
    old: Option<&dyn Facts>,
    new: &dyn Facts,
) -> Option<Violation> {
    let old = old?;
    for (name, c) in &machine.def.counters {
        if !c.append_only {
            continue;
        }
        let before = all_records(c, old);
        let after = all_records(c, new);
        let lost: Vec<String> = before
            .iter()
            .filter(|(v, n)| after.get(*v).copied().unwrap_or(0) < **n)
            .map(|(v, n)| format!("{v} ({n} → {})", after.get(v).copied().unwrap_or(0)))
            .collect();
        let (nb, na) = (number_value(c, old), number_value(c, new));
        if lost.is_empty() && na >= nb {
            continue;
        }
        let what = if c.description.is_empty() {
            name.clone()
        } else {
            c.description.clone()
        };
        let detail = if lost.is_empty() {
            format!("the recorded count drops from {nb} to {na}")
        } else {
            format!("records disappear: {}", lost.join(", "))
        };
        return Some(Violation {
            code: BlockCode::StatusHistoryRewritten,
            file: file.to_string(),
            entry: label.to_string(),
            line: Some(line),
            from: None,
            to: None,
            legal: Vec::new(),
            message: format!("{file} rewrites the {what} history of {label} ({detail}); review records are append-only, add a new record instead."),
        });
    }
    None
}

fn by_key(e: &Extraction) -> BTreeMap<&EntryKey, Vec<&FoundEntry>> {
    let mut m: BTreeMap<&EntryKey, Vec<&FoundEntry>> = BTreeMap::new();
    for x in &e.entries {
        m.entry(&x.key).or_default().push(x);
    }
    m
}

fn verdict(
    machine: &Machine,
    agent: &str,
    violations: Vec<Violation>,
    changes: Vec<StatusChange>,
) -> EditVerdict {
    match violations.first() {
        None => EditVerdict::Allow {
            machine: Some(machine.name.clone()),
            changes,
        },
        Some(first) => {
            let body: Vec<&str> = violations.iter().map(|v| v.message.as_str()).collect();
            EditVerdict::Block {
                code: first.code,
                message: format!(
                    "NSO blocked edit for {}: {}",
                    agent_tag(agent),
                    body.join(" ")
                ),
                violations,
            }
        }
    }
}
