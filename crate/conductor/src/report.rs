//! `status`: the seed's output plus, per instance, liveness, ages and claims; and the claims
//! of different instances that intersect (none while every write goes through `claim`, but
//! a seed 1.0 writer or a hand edit may have left some).

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::glob::{literal_head, Pattern};
use super::intersect::{overlap, Overlap};
use super::liveness::{age_minutes, heartbeat_age, life, Life};
use super::request::Request;
use super::state::State;

/// Most pattern pairs compared when looking for intersecting claims.
const MAX_PAIRS: usize = 1_000_000;

/// The `status` result (read only).
pub(crate) fn status(state: &State, req: &Request) -> Value {
    let now = req.now_secs;
    let mut instances = Vec::with_capacity(state.instances.len());
    let mut active = 0usize;
    let mut oldest = 0u64;
    let mut total = 0usize;
    for instance in &state.instances {
        let alive = life(instance, req, req.ttl_seconds) == Life::Alive;
        active += usize::from(alive);
        let age = age_minutes(instance, now);
        oldest = oldest.max(age);
        total += instance.files_claimed.len();
        let mut entry = match serde_json::to_value(instance) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        entry.insert("alive".into(), alive.into());
        entry.insert("age_minutes".into(), age.into());
        entry.insert(
            "heartbeat_age_seconds".into(),
            heartbeat_age(instance, now).into(),
        );
        entry.insert("claims".into(), instance.files_claimed.clone().into());
        instances.push(Value::Object(entry));
    }
    let (conflicts, complete) = intersecting_claims(state);
    let mut result = json!({
        "status": "ok",
        "instances": instances,
        "conflicts": conflicts,
        "drift_warnings": state.drift_warnings,
        "summary": {
            "active_count": active,
            "instance_count": state.instances.len(),
            "total_files_claimed": total,
            "oldest_instance_age_minutes": oldest,
        },
    });
    if !complete {
        result["conflicts_truncated"] = Value::Bool(true);
    }
    result
}

/// Pairs of claims of different instances that intersect, and whether the search finished
/// within [`MAX_PAIRS`]. Two patterns can only meet when one's literal head is a segment
/// prefix of the other's, so each claim is compared only with the claims whose head is one
/// of its head's prefixes (found by lookups), not with every claim.
fn intersecting_claims(state: &State) -> (Vec<Value>, bool) {
    let claims: Vec<(usize, &str)> = state
        .instances
        .iter()
        .enumerate()
        .flat_map(|(i, inst)| inst.files_claimed.iter().map(move |p| (i, p.as_str())))
        .collect();
    let mut by_head: HashMap<&str, Vec<usize>> = HashMap::new();
    for (c, (_, pattern)) in claims.iter().enumerate() {
        by_head.entry(literal_head(pattern)).or_default().push(c);
    }
    let mut out = Vec::new();
    let mut pairs = 0usize;
    for (c, &(owner, pattern)) in claims.iter().enumerate() {
        let head = literal_head(pattern);
        let prefixes = head
            .match_indices('/')
            .map(|(at, _)| &head[..at])
            .chain(std::iter::once(head));
        for prefix in prefixes {
            let Some(candidates) = by_head.get(prefix) else {
                continue;
            };
            for &d in candidates {
                let (other, theirs) = claims[d];
                // Equal heads find each other both ways: report the pair once.
                if other == owner || (prefix == head && d <= c) {
                    continue;
                }
                pairs += 1;
                if pairs > MAX_PAIRS {
                    return (out, false);
                }
                let meeting = overlap(&Pattern::parse(pattern), &Pattern::parse(theirs));
                if meeting == Overlap::Disjoint {
                    continue;
                }
                let mut entry = json!({
                    "instances": [state.instances[other].id, state.instances[owner].id],
                    "patterns": [theirs, pattern],
                });
                if let Overlap::Witness(example) = meeting {
                    entry["example"] = Value::String(example);
                }
                out.push(entry);
            }
        }
    }
    (out, true)
}
