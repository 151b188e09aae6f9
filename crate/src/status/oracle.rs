//! The status machines as the authority engine's [`StatusOracle`]: one status change in,
//! the verdict out. An agent `like` another may make that agent's moves, so a move refused
//! only for the agent is tried again under the names it is like.

use super::machine::StatusConfig;
use super::transition::{check_edit, BlockCode, EditVerdict};
use crate::authority::{StatusAnswer, StatusOracle, StatusQuery};

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
    let check =
        |agent: &str| check_edit(&query.file, query.old.as_deref(), &query.new, agent, config);
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

impl StatusOracle for StatusConfig {
    fn check(&self, query: &StatusQuery) -> StatusAnswer {
        answer(query, self)
    }
}
