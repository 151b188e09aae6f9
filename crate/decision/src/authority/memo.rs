//! The engine's memory of recent decisions: agents make the same calls again and again
//! (`npm test`, `git status`, a refused push retried), and a decision depends on nothing but
//! the policy and the request, so a repeated call is answered from memory (and so is what
//! the shim must look up before a call can be decided). Its repeat count,
//! which does depend on the session, is counted afresh every time ([`Engine::answer`]).
//!
//! A call is remembered the second time it is decided: most calls an agent makes once (a
//! new compound command, a write of new content) pay only for a hash, not for a copy. Plain
//! allows are not kept: deciding one again costs little more than finding it, and the shim
//! remembers the lasting ones itself (see [`Engine::answer`]).
//!
//! What is remembered is exactly what the decision was made from: the agent, the tool, the
//! arguments, the directories and every lookup the shim answered (real paths, existence).
//! Left out, and decided afresh each time: calls carrying file contents (append-only and
//! sacred checks: too large to keep), calls with large arguments, calls made `via` an NSO
//! tool, calls whose agent is not recorded (their message names the session), and every
//! decision that asked the status machines (their answer is not the policy's alone).
//!
//! [`Engine::answer`]: super::Engine::answer
//! [`Engine::answer`]: super::Engine::answer

use super::fast_map::FastMap;
use super::repeats::call_hash;
use super::request::{Decision, Lookups, Request};
use serde_json::Value;
use std::collections::VecDeque;

/// How many decisions are remembered (the oldest go first).
const ENTRIES: usize = 64;
/// How many calls decided once are noted (by their hash), to be remembered when they come
/// again (the oldest go first).
const SEEN: usize = 512;
/// The largest arguments remembered, in bytes of their strings and keys.
const MAX_ARGS_BYTES: usize = 4096;

/// What a remembered decision was made from (all of [`Request`] but the session; its
/// `delegated_by` changes what a refusal tells the agent to do).
#[derive(Debug, Clone, PartialEq)]
struct Key {
    agent: Option<String>,
    delegated_by: Option<String>,
    tool: String,
    args: Value,
    directory: String,
    worktree: String,
    resolved: FastMap<String, String>,
    exists: FastMap<String, bool>,
}

impl Key {
    fn of(req: &Request) -> Key {
        Key {
            agent: req.agent.clone(),
            delegated_by: req.delegated_by.clone(),
            tool: req.tool.clone(),
            args: req.args.clone(),
            directory: req.directory.clone(),
            worktree: req.worktree.clone(),
            resolved: req.resolved.clone(),
            exists: req.exists.clone(),
        }
    }

    fn matches(&self, req: &Request) -> bool {
        self.agent == req.agent
            && self.delegated_by == req.delegated_by
            && self.tool == req.tool
            && self.directory == req.directory
            && self.worktree == req.worktree
            && self.resolved == req.resolved
            && self.exists == req.exists
            && self.args == req.args
    }
}

/// What the engine answered a call: `Ok(None)` is a plain allow, `Err` what the shim must
/// look up first; a decision is kept before its repeats are counted.
pub(crate) type Answer = Result<Option<Decision>, Lookups>;

/// Recent answers, and the calls decided once lately. Both are found by the call's hash in
/// constant time: a miss, which most new calls are, costs a hash and two probes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Memo {
    /// Remembered answers by the call's hash; `order` has their hashes, oldest first.
    recent: FastMap<u64, (Key, Answer)>,
    order: VecDeque<u64>,
    /// The hashes of calls decided once lately; `seen_order` has them oldest first.
    seen: FastMap<u64, ()>,
    seen_order: VecDeque<u64>,
}

impl Memo {
    /// The remembered answer to `req`, and the call's [`call_hash`], which the caller passes
    /// back to [`Memo::keep`] (and may use for its repeats); `None` for a call that may not
    /// be remembered.
    pub(crate) fn recall(&mut self, req: &Request) -> (Option<Answer>, Option<u64>) {
        if !rememberable(req) {
            return (None, None);
        }
        let call = call_hash(req);
        match self.recent.get(&slot(call, req)) {
            Some((key, answer)) if key.matches(req) => (Some(answer.clone()), Some(call)),
            _ => (None, Some(call)),
        }
    }

    /// Remembers the answer to `req` (its call hash from [`Memo::recall`]) if the call was
    /// decided lately already; else notes that it was.
    pub(crate) fn keep(&mut self, call: u64, req: &Request, answer: &Answer) {
        let hash = slot(call, req);
        if !self.seen.contains_key(&hash) {
            if self.seen.len() >= SEEN {
                if let Some(oldest) = self.seen_order.pop_front() {
                    self.seen.remove(&oldest);
                }
            }
            self.seen.insert(hash, ());
            self.seen_order.push_back(hash);
            return;
        }
        if self.recent.len() >= ENTRIES && !self.recent.contains_key(&hash) {
            if let Some(oldest) = self.order.pop_front() {
                self.recent.remove(&oldest);
            }
        }
        if self
            .recent
            .insert(hash, (Key::of(req), answer.clone()))
            .is_none()
        {
            self.order.push_back(hash);
        }
    }

    /// Forgets everything (the policy or the status machines changed).
    pub(crate) fn clear(&mut self) {
        self.recent.clear();
        self.order.clear();
        self.seen.clear();
        self.seen_order.clear();
    }
}

/// Where the answer to `req`, whose [`call_hash`] is `call`, is kept: a call's lookup rounds
/// differ in what the shim answered, so they are told apart.
fn slot(call: u64, req: &Request) -> u64 {
    call ^ (req.resolved.len() as u64) << 48 ^ (req.exists.len() as u64) << 56
}

/// Whether a decision on `req` may be remembered at all (see the module's comment).
fn rememberable(req: &Request) -> bool {
    req.via.is_none()
        && req.contents.is_empty()
        && req.oversized.is_empty()
        && req.agent.as_deref().is_some_and(|a| !a.trim().is_empty())
        && {
            let mut budget = MAX_ARGS_BYTES;
            fits(&req.args, &mut budget)
        }
}

/// Whether `value`'s strings, keys and items fit in `budget` bytes (which it uses up).
fn fits(value: &Value, budget: &mut usize) -> bool {
    let cost = match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.len(),
        Value::Object(map) => map.len() + map.keys().map(String::len).sum::<usize>(),
        _ => 8,
    };
    let Some(left) = budget.checked_sub(cost) else {
        return false;
    };
    *budget = left;
    match value {
        Value::Array(items) => items.iter().all(|v| fits(v, budget)),
        Value::Object(map) => map.values().all(|v| fits(v, budget)),
        _ => true,
    }
}
