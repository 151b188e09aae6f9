//! Compiled alternatives and how they match a path: a set-of-states simulation over the
//! pattern's segments (a bit set), with quick checks on the literal parts first.

use super::syntax::{fold, parse_segment, path_segments, Seg, Tok};
use super::{GlobError, MAX_SEGMENTS};

/// One `{a,b}` alternative of a pattern, compiled.
#[derive(Debug, Clone)]
pub struct Alt {
    segs: Vec<Seg>,
    specificity: u32,
    /// Quick checks for normalised paths, run before the state simulation (speed only, same
    /// result): the whole pattern when it has no wildcard at all,
    exact: Option<Box<str>>,
    /// its leading literal segments (`docs/kord` of `docs/kord/**`),
    prefix: Box<str>,
    /// and the literal tail of its last segment (`.css` of `**/*.css`).
    suffix: Box<str>,
}

/// Two alternatives are the same when their segments are.
impl PartialEq for Alt {
    fn eq(&self, other: &Alt) -> bool {
        self.segs == other.segs
    }
}

impl Eq for Alt {}

impl Alt {
    /// The segments, in order.
    pub fn segs(&self) -> &[Seg] {
        &self.segs
    }

    pub(super) fn specificity(&self) -> u32 {
        self.specificity
    }

    /// The whole path, when the alternative has no wildcard.
    pub fn literal(&self) -> Option<&str> {
        self.exact.as_deref()
    }

    /// Matches a normalised path (no `//`, no trailing `/`).
    pub fn matches_normalized(&self, path: &str, ci: bool) -> bool {
        self.may_match(path, ci) && self.run(path, ci).0
    }

    /// Cheap rejection for a normalised path: `false` = no match.
    fn may_match(&self, path: &str, ci: bool) -> bool {
        let p = path.strip_prefix('/').unwrap_or(path).as_bytes();
        let eq = |a: &[u8], b: &[u8]| {
            if ci {
                a.eq_ignore_ascii_case(b)
            } else {
                a == b
            }
        };
        if let Some(e) = &self.exact {
            return eq(p, e.as_bytes());
        }
        let pre = self.prefix.as_bytes();
        if !pre.is_empty()
            && !(p.len() >= pre.len()
                && eq(&p[..pre.len()], pre)
                && (p.len() == pre.len() || p[pre.len()] == b'/'))
        {
            return false;
        }
        let suf = self.suffix.as_bytes();
        suf.is_empty() || (p.len() >= suf.len() && eq(&p[p.len() - suf.len()..], suf))
    }

    /// Returns (matches exactly, could match a longer path below).
    pub(super) fn run(&self, path: &str, ci: bool) -> (bool, bool) {
        let n = self.segs.len();
        let mut states = States::new(n + 1);
        states.set(0);
        self.closure(&mut states);
        let mut next = States::new(n + 1);
        for seg in path_segments(path) {
            next.clear();
            for i in states.iter().filter(|&i| i < n) {
                match &self.segs[i] {
                    Seg::AnySegs => next.set(i),
                    Seg::Lit(l) => {
                        let eq = if ci {
                            l.eq_ignore_ascii_case(seg)
                        } else {
                            &**l == seg
                        };
                        if eq {
                            next.set(i + 1);
                        }
                    }
                    Seg::Pat(toks) => {
                        if seg_match(toks, seg, ci) {
                            next.set(i + 1);
                        }
                    }
                }
            }
            std::mem::swap(&mut states, &mut next);
            self.closure(&mut states);
            if states.is_empty() {
                return (false, false);
            }
        }
        let below = states.iter().any(|i| i < n);
        (states.has(n), below)
    }

    /// Adds the states reachable by letting `**` match zero segments.
    fn closure(&self, states: &mut States) {
        for (i, seg) in self.segs.iter().enumerate() {
            if matches!(seg, Seg::AnySegs) && states.has(i) {
                states.set(i + 1);
            }
        }
    }
}

/// The live states of a match, a bit per pattern position (one word for most patterns).
struct States(Vec<u64>);

impl States {
    fn new(bits: usize) -> States {
        States(vec![0; bits.div_ceil(64)])
    }

    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn has(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    fn clear(&mut self) {
        self.0.fill(0);
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    k * 64 + bit
                })
            })
        })
    }
}

/// One-segment wildcard match: greedy scan that backtracks only to the last `*`. With `ci`,
/// the pattern's letters are lower case already (folded when compiled).
pub fn seg_match(toks: &[Tok], s: &str, ci: bool) -> bool {
    let mut p = 0usize;
    let mut i = 0usize;
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p < toks.len() {
            if let Tok::Star = toks[p] {
                star = Some((p + 1, i));
                p += 1;
                continue;
            }
            if let Some(c) = s[i..].chars().next() {
                let accepted = match &toks[p] {
                    Tok::Char(x) => *x == fold(c, ci),
                    tok => tok.accepts(c),
                };
                if accepted {
                    p += 1;
                    i += c.len_utf8();
                    continue;
                }
            }
        } else if i == s.len() {
            return true;
        }
        match star {
            Some((sp, si)) => match s[si..].chars().next() {
                Some(c) => {
                    let ni = si + c.len_utf8();
                    star = Some((sp, ni));
                    p = sp;
                    i = ni;
                }
                None => return false,
            },
            None => return false,
        }
    }
}

/// Compiles one alternative (braces already expanded). Checked: `.` and `..` segments (but a
/// leading `./`) and more than [`MAX_SEGMENTS`] segments are errors; total: `.` segments are
/// dropped, `..` is a name, and nothing fails.
pub(super) fn compile_alt(pattern: &str, ci: bool, checked: bool) -> Result<Alt, GlobError> {
    let mut body = pattern.strip_prefix('/').unwrap_or(pattern);
    while let Some(rest) = body.strip_prefix("./") {
        body = rest;
    }
    let folder = body.ends_with('/') && !body.trim_end_matches('/').is_empty();
    let mut segs = Vec::new();
    let mut specificity = 0u32;
    let mut literal_so_far = true;
    // A trailing `/` is the folder and everything below: one `**` more, unless there is one.
    let last = body.split('/').rfind(|raw| !raw.is_empty() && *raw != ".");
    let below = (folder && last != Some("**")).then_some("**");
    let raws = body.split('/').filter(|raw| !raw.is_empty()).chain(below);
    for raw in raws {
        if raw == "." || raw == ".." {
            if checked {
                return Err(GlobError::new(
                    &format!("the pattern `{pattern}` contains a `{raw}` segment"),
                    "patterns are matched against normalised paths: remove `.`/`..`",
                ));
            }
            if raw == "." {
                continue;
            }
        }
        if checked && segs.len() >= MAX_SEGMENTS {
            return Err(GlobError::new(
                &format!("the pattern has more than {MAX_SEGMENTS} segments"),
                "shorten the pattern",
            ));
        }
        let seg = if raw == "**" {
            Seg::AnySegs
        } else {
            let toks = parse_segment(raw, ci, checked)?;
            if toks.iter().all(|t| matches!(t, Tok::Char(_))) {
                let lit: String = toks
                    .iter()
                    .filter_map(|t| match t {
                        Tok::Char(c) => Some(*c),
                        _ => None,
                    })
                    .collect();
                Seg::Lit(lit.into_boxed_str())
            } else {
                Seg::Pat(toks)
            }
        };
        if literal_so_far {
            match &seg {
                Seg::Lit(l) => specificity += l.chars().count() as u32 + 1,
                Seg::Pat(toks) => {
                    specificity += toks
                        .iter()
                        .take_while(|t| matches!(t, Tok::Char(_)))
                        .count() as u32;
                    literal_so_far = false;
                }
                Seg::AnySegs => literal_so_far = false,
            }
        }
        segs.push(seg);
    }
    let leading: Vec<&str> = segs
        .iter()
        .map_while(|s| match s {
            Seg::Lit(l) => Some(&**l),
            _ => None,
        })
        .collect();
    let exact = (leading.len() == segs.len()).then(|| leading.join("/").into_boxed_str());
    let prefix = leading.join("/").into_boxed_str();
    let suffix: String = match segs.last() {
        Some(Seg::Pat(toks)) => {
            let mut tail: Vec<char> = toks
                .iter()
                .rev()
                .map_while(|t| match t {
                    Tok::Char(c) => Some(*c),
                    _ => None,
                })
                .collect();
            tail.reverse();
            tail.into_iter().collect()
        }
        Some(Seg::Lit(l)) => l.to_string(),
        _ => String::new(),
    };
    Ok(Alt {
        segs,
        specificity,
        exact,
        prefix,
        suffix: suffix.into_boxed_str(),
    })
}
