//! The status machines as the authority engine's [`StatusOracle`]: one status change in,
//! the verdict out. An agent `like` another may make that agent's moves, so a move refused
//! only for the agent is tried again under the names it is like.

use super::extract::extract;
use super::machine::{Machine, StatusConfig};
use super::transition::{check_edit_for, legal_sentence, show_state, BlockCode, EditVerdict};
use nso_decision::authority::{StatusAnswer, StatusOracle, StatusQuery};

/// The verdict of the machines in `config` on `query`.
pub fn answer(query: &StatusQuery, config: &StatusConfig) -> StatusAnswer {
    let Some((machine, _)) = config.resolve(&query.file) else {
        return StatusAnswer {
            allowed: true,
            machine: None,
            builtin: true,
            detail: String::new(),
        };
    };
    if query.unseen {
        return StatusAnswer {
            allowed: false,
            machine: Some(machine.name.clone()),
            builtin: machine.builtin,
            detail: describe(machine, &query.file, query.old.as_deref(), &query.agents),
        };
    }
    let who: Vec<&str> = query.agents.iter().map(String::as_str).collect();
    let check = |agent: &str| {
        check_edit_for(
            &query.file,
            query.old.as_deref(),
            &query.new,
            agent,
            &who,
            config,
        )
    };
    let first = query.agents.first().map(String::as_str).unwrap_or("");
    let mut verdict = check(first);
    for other in query.agents.iter().skip(1) {
        let only_agent = matches!(&verdict, EditVerdict::Block { violations, .. }
            if violations.iter().all(|v| v.code == BlockCode::StatusWrongAgent));
        if !only_agent {
            break;
        }
        let v = check(other);
        if v.is_allowed() {
            verdict = v;
        }
    }
    let (allowed, detail) = match verdict {
        EditVerdict::Allow { changes, .. } => (
            true,
            changes
                .iter()
                .map(|c| {
                    format!(
                        "; {} → {}",
                        c.from.as_deref().unwrap_or("(new)"),
                        c.to.as_deref().unwrap_or("(removed)")
                    )
                })
                .collect(),
        ),
        EditVerdict::Block { violations, .. } => (
            false,
            violations
                .iter()
                .map(|v| v.message.trim_end_matches('.'))
                .collect::<Vec<_>>()
                .join(". "),
        ),
    };
    StatusAnswer {
        allowed,
        machine: Some(machine.name.clone()),
        builtin: machine.builtin,
        detail,
    }
}

/// The current state of a governed file and the legal moves from it (for refusals of
/// changes NSO cannot see).
fn describe(machine: &Machine, file: &str, old: Option<&str>, agents: &[String]) -> String {
    let who: Vec<&str> = agents.iter().map(String::as_str).collect();
    let Some(binding) = machine.binding_for(file) else {
        return String::new();
    };
    let ex = &binding.extract;
    let Some(old) = old else {
        return format!("{file} does not exist yet; create it with the write tool.");
    };
    if ex.is_multi() {
        return format!(
            "{file} holds the statuses of several {noun}s; move one with `nso status set <number> <STATUS>` (the nso_status_set tool), which updates TODO.md and state.json together.",
            noun = machine.def.noun
        );
    }
    let found = extract(machine, ex, old);
    match found.entries.first().and_then(|e| e.status.as_ref()) {
        Some(status) => match status.state {
            Some(s) => format!(
                "{file} is in {}. {}",
                show_state(ex, machine.state_name(s)),
                legal_sentence(machine, ex, s, &who)
            ),
            None => format!(
                "{file} has status `{}`, which names no state of {}.",
                status.raw, machine.name
            ),
        },
        None => format!("{file} has no status yet."),
    }
}

impl StatusOracle for StatusConfig {
    fn check(&self, query: &StatusQuery) -> StatusAnswer {
        answer(query, self)
    }
}
