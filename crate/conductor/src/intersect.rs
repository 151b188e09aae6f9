//! Whether two claim patterns can match one same path: the decision behind every conflict.
//!
//! Each pattern alternative is an automaton over path segments (`**` loops on any segment);
//! the two are run together as a product: a state `(i, j)` means "some path prefix took the
//! first pattern to segment `i` and the second to segment `j`". From a state, `**` may match
//! nothing (skip it), a `**` of one pattern may absorb a segment the other's segment accepts,
//! or both segments accept one same segment. The patterns intersect iff `(end, end)` is
//! reachable. Whether one segment can satisfy two segment patterns is the same construction
//! one level down, over characters (`*` loops on any character, `?` and classes are
//! character sets, a segment is never empty). Every state is visited once (breadth-first,
//! which also yields a short witness path), so the work is O(segments × segments) at the path
//! level and O(tokens × tokens) per segment pair, bounded by a step budget: past it the
//! answer is [`Overlap::Assumed`], a conflict, because a false conflict is safe and a missed
//! one is not.

use super::glob::{Alt, Pattern};
use nso_text::glob::{ranges_contain, seg_match, Seg, Tok};

/// Work allowed for one decision (states visited, characters compared).
const STEP_BUDGET: u64 = 2_000_000;
/// Largest product automaton built at either level.
const MAX_STATES: usize = 1 << 20;
const UNSEEN: u32 = u32::MAX;

/// How two patterns meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlap {
    /// No path matches both.
    Disjoint,
    /// This path matches both.
    Witness(String),
    /// Treated as intersecting without proof: the work budget ran out, or a pattern is an
    /// over-approximation (too many `{a,b}` alternatives).
    Assumed,
}

impl Overlap {
    /// True unless the patterns are proven disjoint.
    pub fn meets(&self) -> bool {
        !matches!(self, Overlap::Disjoint)
    }
}

struct OutOfBudget;

struct Budget(u64);

impl Budget {
    fn spend(&mut self, steps: u64) -> Result<(), OutOfBudget> {
        self.0 = self.0.checked_sub(steps).ok_or(OutOfBudget)?;
        Ok(())
    }
}

/// Decides whether `a` and `b` share a path, with a witness when they do.
pub fn overlap(a: &Pattern, b: &Pattern) -> Overlap {
    if a.is_absolute() != b.is_absolute() {
        return Overlap::Disjoint;
    }
    let mut budget = Budget(STEP_BUDGET);
    for x in a.alts() {
        for y in b.alts() {
            if !leading_literals_meet(x, y) {
                continue;
            }
            match alt_overlap(x, y, &mut budget) {
                Ok(None) => {}
                Ok(Some(_)) if a.is_approximate() || b.is_approximate() => return Overlap::Assumed,
                Ok(Some(segs)) => {
                    let path = segs.join("/");
                    return Overlap::Witness(if a.is_absolute() {
                        format!("/{path}")
                    } else {
                        path
                    });
                }
                Err(OutOfBudget) => return Overlap::Assumed,
            }
        }
    }
    Overlap::Disjoint
}

/// Quick rejection: two leading literal segments at the same depth that differ.
fn leading_literals_meet(x: &Alt, y: &Alt) -> bool {
    for pair in x.segs().iter().zip(y.segs()) {
        match pair {
            (Seg::Lit(a), Seg::Lit(b)) if a != b => return false,
            (Seg::Lit(_), Seg::Lit(_)) => {}
            _ => return true,
        }
    }
    true
}

#[derive(Clone, Copy)]
enum Move {
    /// A `**` of the first pattern matches no segment.
    SkipA,
    /// A `**` of the second pattern matches no segment.
    SkipB,
    /// The first pattern's segment takes a segment the second's `**` absorbs.
    SegA,
    /// The second pattern's segment takes a segment the first's `**` absorbs.
    SegB,
    /// Both segments accept one same segment.
    SegBoth,
}

/// The product over segments; returns the witness path's segments when `(n, m)` is reached.
fn alt_overlap(a: &Alt, b: &Alt, budget: &mut Budget) -> Result<Option<Vec<String>>, OutOfBudget> {
    let (n, m) = (a.segs().len(), b.segs().len());
    let width = m + 1;
    let total = (n + 1).saturating_mul(width);
    if total > MAX_STATES {
        return Err(OutOfBudget);
    }
    let mut parent = vec![UNSEEN; total];
    let mut via = vec![Move::SkipA; total];
    let mut sat_a: Vec<Option<bool>> = vec![None; n];
    let mut sat_b: Vec<Option<bool>> = vec![None; m];
    let mut queue = vec![0usize];
    parent[0] = 0;
    let mut head = 0;
    while head < queue.len() {
        let s = queue[head];
        head += 1;
        budget.spend(1)?;
        let (i, j) = (s / width, s % width);
        if i == n && j == m {
            return rebuild(a, b, &parent, &via, width, s, budget).map(Some);
        }
        let mut push = |to: usize, mv: Move| {
            if parent[to] == UNSEEN {
                parent[to] = s as u32;
                via[to] = mv;
                queue.push(to);
            }
        };
        let a_any = i < n && matches!(a.segs()[i], Seg::AnySegs);
        let b_any = j < m && matches!(b.segs()[j], Seg::AnySegs);
        if a_any {
            push(s + width, Move::SkipA);
        }
        if b_any {
            push(s + 1, Move::SkipB);
        }
        if i == n || j == m {
            continue;
        }
        match (a_any, b_any) {
            (true, true) => {}
            (true, false) => {
                if satisfiable(&b.segs()[j], &mut sat_b[j], budget)? {
                    push(s + 1, Move::SegB);
                }
            }
            (false, true) => {
                if satisfiable(&a.segs()[i], &mut sat_a[i], budget)? {
                    push(s + width, Move::SegA);
                }
            }
            (false, false) => {
                if segment_common(&a.segs()[i], &b.segs()[j], budget)?.is_some() {
                    push(s + width + 1, Move::SegBoth);
                }
            }
        }
    }
    Ok(None)
}

/// Walks the parents back from the end state, recomputing each segment of the witness.
fn rebuild(
    a: &Alt,
    b: &Alt,
    parent: &[u32],
    via: &[Move],
    width: usize,
    end: usize,
    budget: &mut Budget,
) -> Result<Vec<String>, OutOfBudget> {
    let any = Seg::Pat(vec![Tok::Star]);
    let mut segs = Vec::new();
    let mut s = end;
    while s != 0 {
        let from = parent[s] as usize;
        let (i, j) = (from / width, from % width);
        let seg = match via[s] {
            Move::SkipA | Move::SkipB => None,
            Move::SegA => segment_common(&a.segs()[i], &any, budget)?,
            Move::SegB => segment_common(&any, &b.segs()[j], budget)?,
            Move::SegBoth => segment_common(&a.segs()[i], &b.segs()[j], budget)?,
        };
        segs.extend(seg);
        s = from;
    }
    segs.reverse();
    Ok(segs)
}

fn satisfiable(
    seg: &Seg,
    memo: &mut Option<bool>,
    budget: &mut Budget,
) -> Result<bool, OutOfBudget> {
    if let Some(known) = *memo {
        return Ok(known);
    }
    let known = segment_common(seg, &Seg::Pat(vec![Tok::Star]), budget)?.is_some();
    *memo = Some(known);
    Ok(known)
}

/// A non-empty segment both segment patterns accept, if there is one.
fn segment_common(x: &Seg, y: &Seg, budget: &mut Budget) -> Result<Option<String>, OutOfBudget> {
    match (x, y) {
        (Seg::Lit(a), Seg::Lit(b)) => {
            budget.spend(a.len() as u64)?;
            Ok((a == b).then(|| a.to_string()))
        }
        (Seg::Lit(l), Seg::Pat(toks)) | (Seg::Pat(toks), Seg::Lit(l)) => {
            budget.spend((l.len() as u64 + 1).saturating_mul(toks.len() as u64 + 1))?;
            Ok(seg_match(toks, l, false).then(|| l.to_string()))
        }
        _ => token_product(&x.toks(), &y.toks(), budget),
    }
}

/// The product over characters of two segment patterns; state `(p, q, non-empty yet)`.
fn token_product(t: &[Tok], u: &[Tok], budget: &mut Budget) -> Result<Option<String>, OutOfBudget> {
    let (tl, ul) = (t.len(), u.len());
    let width = ul + 1;
    let total = (tl + 1).saturating_mul(width).saturating_mul(2);
    if total > MAX_STATES {
        return Err(OutOfBudget);
    }
    let index = |p: usize, q: usize, ne: bool| (p * width + q) * 2 + usize::from(ne);
    let mut parent = vec![UNSEEN; total];
    let mut step = vec!['\0'; total];
    let mut queue = vec![0usize];
    parent[0] = 0;
    let mut head = 0;
    while head < queue.len() {
        let s = queue[head];
        head += 1;
        budget.spend(1)?;
        let (p, q, ne) = ((s / 2) / width, (s / 2) % width, s % 2 == 1);
        if p == tl && q == ul && ne {
            let mut chars = Vec::new();
            let mut at = s;
            while at != 0 {
                if step[at] != '\0' {
                    chars.push(step[at]);
                }
                at = parent[at] as usize;
            }
            return Ok(Some(chars.into_iter().rev().collect()));
        }
        let mut push = |to: usize, c: char| {
            if parent[to] == UNSEEN {
                parent[to] = s as u32;
                step[to] = c;
                queue.push(to);
            }
        };
        let t_star = p < tl && matches!(t[p], Tok::Star);
        let u_star = q < ul && matches!(u[q], Tok::Star);
        if t_star {
            push(index(p + 1, q, ne), '\0');
        }
        if u_star {
            push(index(p, q + 1, ne), '\0');
        }
        if p == tl || q == ul {
            continue;
        }
        match (t_star, u_star) {
            (true, true) => {
                if !ne {
                    push(index(p, q, true), 'a');
                }
            }
            (true, false) => {
                if let Some(c) = common_char(&Tok::One, &u[q]) {
                    push(index(p, q + 1, true), c);
                }
            }
            (false, true) => {
                if let Some(c) = common_char(&t[p], &Tok::One) {
                    push(index(p + 1, q, true), c);
                }
            }
            (false, false) => {
                if let Some(c) = common_char(&t[p], &u[q]) {
                    push(index(p + 1, q + 1, true), c);
                }
            }
        }
    }
    Ok(None)
}

/// A character both (non-`*`) tokens accept, preferring readable ones for the witness.
fn common_char(x: &Tok, y: &Tok) -> Option<char> {
    match (x, y) {
        (Tok::Char(a), other) | (other, Tok::Char(a)) => other.accepts(*a).then_some(*a),
        (Tok::One, Tok::One) => Some('a'),
        (Tok::Class(r), Tok::One) | (Tok::One, Tok::Class(r)) => pick(r),
        (Tok::Class(r), Tok::Class(s)) => pick(&intersect_ranges(r, s)),
        (Tok::Star, _) | (_, Tok::Star) => None,
    }
}

fn intersect_ranges(r: &[(u32, u32)], s: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < r.len() && j < s.len() {
        let lo = r[i].0.max(s[j].0);
        let hi = r[i].1.min(s[j].1);
        if lo <= hi {
            out.push((lo, hi));
        }
        if r[i].1 < s[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// A member of a character set (ranges inside the universe, so every member is a `char`).
fn pick(ranges: &[(u32, u32)]) -> Option<char> {
    let readable = ('a'..='z').chain('0'..='9');
    if let Some(c) = readable
        .into_iter()
        .find(|&c| ranges_contain(ranges, c as u32))
    {
        return Some(c);
    }
    let first = ranges
        .iter()
        .find(|r| r.1 > 0x20)
        .map(|r| r.0.max(0x21))
        .or_else(|| ranges.first().map(|r| r.0))?;
    char::from_u32(first)
}

/// `overlap(a, b).meets()` on pattern texts.
pub fn intersects(a: &str, b: &str) -> bool {
    overlap(&Pattern::parse(a), &Pattern::parse(b)).meets()
}
