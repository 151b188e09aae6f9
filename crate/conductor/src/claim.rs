//! `claim`: all or nothing. A requested pattern that intersects any claim of another instance
//! is a conflict; one conflict and nothing is claimed (no partial claim to clean up). Claims
//! of the same instance never conflict (its subagents share it). With `force`, the conflicting
//! claims are taken from their holders (each learns it through `notices`) and logged.
//!
//! Cost: the other instances' claims are indexed by literal head ([`HeldIndex`]); a requested
//! pattern is intersected only with the claims whose heads meet its own, so the check grows
//! with the claims that could meet it, not with every claim held.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::glob::{heads_meet, normalize, Pattern};
use super::held::HeldIndex;
use super::intersect::{overlap, Overlap};
use super::liveness::age_minutes;
use super::ops::{clip, Ctx};
use super::request::Claim;
use super::state::{ForcedNotice, MAX_CLAIMS, MAX_PATTERN_BYTES};
use super::{ConductorError, ErrorCode};

/// Forced-claim notices kept per instance (the oldest are dropped).
const MAX_NOTICES: usize = 100;

/// One requested pattern meeting one claim of another instance.
struct Found {
    file: String,
    holder: usize,
    pattern: String,
    example: Option<String>,
}

/// Runs `claim` for the instance `op.instance_id`.
pub(crate) fn claim(ctx: &mut Ctx, op: &Claim) -> Result<Value, ConductorError> {
    // The patterns first: their error depends on the request alone, so a store that keeps
    // patterns under other names can ask again with the user's text and get the same answer.
    let wanted = checked_patterns(&op.files)?;
    let me = ctx.index(&op.instance_id)?;
    let fresh = not_yet_held(&ctx.state.instances[me].files_claimed, &wanted);
    let mut found = Vec::new();
    let index = HeldIndex::new(&ctx.state.instances, me);
    for (file, pattern) in &fresh {
        for (k, j) in index.candidates(file) {
            let held = &ctx.state.instances[k].files_claimed[j];
            let example = match overlap(pattern, &Pattern::parse(held)) {
                Overlap::Disjoint => continue,
                Overlap::Witness(path) => Some(path),
                Overlap::Assumed => None,
            };
            found.push(Found {
                file: file.clone(),
                holder: k,
                pattern: held.clone(),
                example,
            });
        }
    }
    let mut forced = Vec::new();
    if !found.is_empty() {
        match &op.force {
            None => return Ok(refuse(ctx, me, &found)),
            Some(justification) => forced = take_over(ctx, me, op, justification, &found),
        }
    }
    let total: usize = ctx
        .state
        .instances
        .iter()
        .map(|i| i.files_claimed.len())
        .sum();
    if total + fresh.len() > MAX_CLAIMS {
        return Err(ConductorError::new(
            ErrorCode::BadRequest,
            format!(
                "the conductor holds {total} claims; more would pass the limit of {MAX_CLAIMS}"
            ),
            "claim folders (`<folder>/**`) rather than many single files, or clean up",
        ));
    }
    let added = fresh.len();
    ctx.state.instances[me]
        .files_claimed
        .extend(fresh.into_iter().map(|(file, _)| file));
    ctx.changed |= added > 0;
    ctx.touch(me);
    let message = if forced.is_empty() {
        "Files claimed. Safe to edit.".to_string()
    } else {
        format!(
            "Files claimed by force: {} claim(s) taken over (logged in conflicts.log; the \
             former holders are told).",
            forced.len()
        )
    };
    let mut result = json!({"status": "ok", "claimed": wanted, "message": message});
    if !forced.is_empty() {
        result["forced"] = Value::Array(forced);
    }
    Ok(result)
}

/// The requested patterns, normalised and deduplicated, or `bad_request` for one that is not
/// an absolute canonical pattern.
fn checked_patterns(files: &[String]) -> Result<Vec<String>, ConductorError> {
    let bad = |file: &str, why: &str| {
        ConductorError::new(
            ErrorCode::BadRequest,
            format!("claim pattern {:?}: {why}", clip(file, 200)),
            "claim absolute canonical paths or globs (`/home/u/repo/src/a.ts`, \
             `/home/u/repo/src/api/**`); the shim resolves and canonicalises them",
        )
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for file in files {
        if !file.starts_with('/') {
            return Err(bad(file, "not absolute"));
        }
        if file.len() > MAX_PATTERN_BYTES {
            return Err(bad(file, "longer than 4096 bytes"));
        }
        if file.contains('\0') {
            return Err(bad(file, "contains a NUL character"));
        }
        if file.split('/').any(|s| s == "..") {
            return Err(bad(file, "contains a `..` segment (not canonical)"));
        }
        let normal = normalize(file);
        if Pattern::parse(&normal).is_approximate() {
            return Err(bad(
                file,
                "its {a,b} alternatives expand to more than 64 patterns; split it",
            ));
        }
        if seen.insert(normal.clone()) {
            out.push(normal);
        }
    }
    Ok(out)
}

/// The wanted patterns no claim of the instance already covers, parsed.
fn not_yet_held(own: &[String], wanted: &[String]) -> Vec<(String, Pattern)> {
    let own_set: HashSet<&str> = own.iter().map(String::as_str).collect();
    wanted
        .iter()
        .filter(|w| !own_set.contains(w.as_str()))
        .filter_map(|w| {
            let pattern = Pattern::parse(w);
            let covered = own
                .iter()
                .filter(|p| heads_meet(p, w))
                .any(|p| Pattern::parse(p).covers(&pattern));
            (!covered).then(|| (w.clone(), pattern))
        })
        .collect()
}

/// The seed's conflict output; one CONFLICT line per conflict.
fn refuse(ctx: &mut Ctx, me: usize, found: &[Found]) -> Value {
    let my_id = ctx.state.instances[me].id.clone();
    let mut holders: Vec<&str> = Vec::new();
    let mut conflicts = Vec::new();
    let mut lines = Vec::new();
    for f in found {
        let holder = &ctx.state.instances[f.holder];
        if !holders.contains(&holder.id.as_str()) {
            holders.push(&holder.id);
        }
        let mut entry = json!({
            "file": f.file,
            "pattern": f.pattern,
            "held_by": holder.id,
            "holder_task": holder.task,
            "holder_started": holder.started_at,
            "holder_agent": holder.agent,
            "holder_project": holder.project,
            "holder_age_minutes": age_minutes(holder, ctx.req.now_secs),
        });
        if let Some(example) = &f.example {
            entry["example"] = Value::String(example.clone());
        }
        conflicts.push(entry);
        let also = if f.pattern == f.file {
            String::new()
        } else {
            format!(" (as {})", f.pattern)
        };
        lines.push(format!(
            "{my_id} tried to claim {} already held by {}{also}",
            f.file, holder.id
        ));
    }
    let who = holders.join(", ");
    for line in lines {
        ctx.log("CONFLICT", &line);
    }
    json!({
        "status": "conflict",
        "conflicts": conflicts,
        "claimed": [],
        "message": format!(
            "{} conflict(s) detected. Coordinate with {who} or wait for release. Nothing was \
             claimed (a claim is all or nothing).",
            found.len()
        ),
        "options": [
            format!("Wait until {who} releases the files or finishes (conductor status shows the tasks)"),
            format!("Coordinate with {who}: ask for a release of the contested files, or split the work"),
            "Claim again with force and a justification to take the files over (logged)".to_string(),
        ],
    })
}

/// Takes the conflicting claims from their holders; returns `[{pattern, held_by}]`.
fn take_over(
    ctx: &mut Ctx,
    me: usize,
    op: &Claim,
    justification: &str,
    found: &[Found],
) -> Vec<Value> {
    let mine = &ctx.state.instances[me];
    let by = op
        .by
        .clone()
        .or_else(|| mine.agent.clone())
        .unwrap_or_else(|| mine.id.clone());
    let by = clip(&by, 200);
    let my_id = mine.id.clone();
    let justification = clip(justification, 1000);
    let mut taken: HashSet<(usize, &str)> = HashSet::new();
    let mut out = Vec::new();
    for f in found {
        if !taken.insert((f.holder, f.pattern.as_str())) {
            continue;
        }
        let holder = &mut ctx.state.instances[f.holder];
        holder.files_claimed.retain(|p| *p != f.pattern);
        holder.forced.push(ForcedNotice {
            pattern: f.pattern.clone(),
            by: by.clone(),
            claimant: my_id.clone(),
            justification: justification.clone(),
            at: ctx.req.now.clone(),
        });
        let excess = holder.forced.len().saturating_sub(MAX_NOTICES);
        holder.forced.drain(..excess);
        let holder_id = holder.id.clone();
        out.push(json!({"pattern": f.pattern, "held_by": holder_id}));
        ctx.log(
            "FORCE",
            &format!(
                "{by} ({my_id}) took {} from {holder_id} to claim {}: {justification}",
                f.pattern, f.file
            ),
        );
    }
    ctx.changed = true;
    out
}
