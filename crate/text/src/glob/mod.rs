//! Path globs: the one syntax and matcher of NSO, for authority rules, status bindings,
//! Conductor claims and Mind's segments. Compiled once, matched without backtracking blow-up.
//!
//! Syntax (matched against `/`-separated paths, no leading `/` for project paths):
//! - `*` any run of characters inside one path segment (never `/`); `?` one character;
//!   `[abc]`, `[a-z]`, `[!a-z]` / `[^a-z]` one character from a class; `\x` a literal `x`.
//! - `**` as a whole segment: zero or more segments. `**/x` matches `x` and `a/b/x`;
//!   `a/**` matches `a` itself and everything below it; `**` elsewhere in a segment acts as `*`.
//! - `{a,b}` alternatives (expanded when compiled, nesting allowed, at most 64 alternatives).
//! - A pattern starting with `/` is absolute (for paths outside the project); a trailing `/`
//!   means "this folder and everything below" (`docs/` = `docs/**`); empty segments and a
//!   leading `./` are dropped (`./src//a` = `src/a`).
//! - Dot files are not special: `**` matches `.github/x` and `*` matches `.env`.
//!
//! Two readings of a text. [`Glob::new`] checks it (patterns a person writes in a config: a
//! mistake is an error naming it). [`Glob::total`] reads every text (claims kept in a shared
//! state must take part in conflict decisions even when hand-edited): an unclosed `[` or `{`,
//! a stray `}` and a lone trailing `\` are literal characters (as in bash), `.` segments are
//! dropped and `..` is a name (checked, both are errors), [`MAX_SEGMENTS`] does not apply, and
//! a pattern that expands past [`MAX_ALTERNATIVES`] stands for a wider one
//! ([`Glob::is_approximate`]).
//!
//! Matching runs a set-of-states simulation over pattern segments (a bit set), so a path is
//! scanned once per pattern: O(path segments × pattern segments), never exponential. Inside a
//! segment the classic one-star-backtrack scan is used (O(n·m) worst case).

mod matcher;
mod syntax;

pub use matcher::seg_match;
pub use syntax::{approximation, path_segments, ranges_contain, Seg, Tok, MAX_ALTERNATIVES};

use matcher::compile_alt;
pub use matcher::Alt;

/// Most segments in one alternative of a checked pattern (a person's pattern deeper than this
/// is a mistake; a total reading has no such limit).
pub const MAX_SEGMENTS: usize = 63;

/// A compiled glob pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    source: String,
    absolute: bool,
    alts: Vec<Alt>,
    /// Literal prefix length (chars before the first wildcard), the most specific alternative.
    specificity: u32,
    approximate: bool,
}

/// Why a pattern does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError {
    /// What is wrong, in one sentence.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

impl GlobError {
    pub(crate) fn new(message: &str, hint: &str) -> GlobError {
        GlobError {
            message: message.to_string(),
            hint: hint.to_string(),
        }
    }
}

impl Glob {
    /// Compiles `pattern`, checked (see the module doc). With `case_insensitive`, ASCII
    /// letters match either case.
    pub fn new(pattern: &str, case_insensitive: bool) -> Result<Glob, GlobError> {
        if pattern.is_empty() {
            return Err(GlobError::new(
                "the pattern is empty",
                "use `**` for every path",
            ));
        }
        if pattern.starts_with('~') {
            return Err(GlobError::new(
                "`~` is not expanded in patterns",
                "write the absolute folder, e.g. `/home/me/.cache/**`",
            ));
        }
        if pattern.contains('\0') {
            return Err(GlobError::new(
                "the pattern contains a NUL character",
                "remove it",
            ));
        }
        let expanded = syntax::expand_braces(pattern, true)?.unwrap_or_default();
        let alts = expanded
            .iter()
            .map(|text| compile_alt(text, case_insensitive, true))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Glob::from_alts(pattern, alts, false))
    }

    /// Reads any `pattern` text, case-sensitively (see the module doc): never fails.
    pub fn total(pattern: &str) -> Glob {
        let approximate = |text: &str| {
            let alt = compile_alt(text, false, false).expect("a total reading never fails");
            Glob::from_alts(pattern, vec![alt], true)
        };
        let Some(expanded) = syntax::expand_braces(pattern, false).ok().flatten() else {
            return approximate(&approximation(pattern));
        };
        let alts = expanded
            .iter()
            .map(|text| compile_alt(text, false, false).expect("a total reading never fails"))
            .collect();
        Glob::from_alts(pattern, alts, false)
    }

    /// A total reading of `wider`, marked as standing for the pattern `source` (for a caller
    /// with its own limits: the Conductor reads a claim longer than it allows as its literal
    /// start, then `**`).
    pub fn standing_for(source: &str, wider: &str) -> Glob {
        let mut glob = Glob::total(wider);
        glob.source = source.to_string();
        glob.approximate = true;
        glob
    }

    fn from_alts(source: &str, alts: Vec<Alt>, approximate: bool) -> Glob {
        Glob {
            source: source.to_string(),
            absolute: source.starts_with('/'),
            specificity: alts.iter().map(|a| a.specificity()).max().unwrap_or(0),
            alts,
            approximate,
        }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// True for patterns starting with `/` (they match absolute paths).
    pub fn is_absolute(&self) -> bool {
        self.absolute
    }

    /// True when a total reading replaced the pattern by a wider one.
    pub fn is_approximate(&self) -> bool {
        self.approximate
    }

    /// The `{a,b}` alternatives, each as its segments.
    pub fn alts(&self) -> &[Alt] {
        &self.alts
    }

    /// Length of the literal prefix before the first wildcard (used to rank rules).
    pub fn specificity(&self) -> u32 {
        self.specificity
    }

    /// Does the pattern match `path` (relative without leading `/`, or absolute)?
    /// `case_insensitive` must be the flag the pattern was compiled with.
    pub fn matches(&self, path: &str, case_insensitive: bool) -> bool {
        if path.contains("//") || (path.len() > 1 && path.ends_with('/')) {
            return self.alts.iter().any(|a| a.run(path, case_insensitive).0);
        }
        self.matches_normalized(path, case_insensitive)
    }

    /// [`Glob::matches`] for a path already normalised (no `//`, no trailing `/`): skips the
    /// normalisation check.
    pub fn matches_normalized(&self, path: &str, case_insensitive: bool) -> bool {
        self.alts
            .iter()
            .any(|a| a.matches_normalized(path, case_insensitive))
    }

    /// Does the pattern match `path` or could it match something below `path` (when `path`
    /// is a folder)? Used for deletes, where removing a folder removes what it holds.
    pub fn matches_or_below(&self, path: &str, case_insensitive: bool) -> bool {
        self.alts.iter().any(|a| {
            let (full, below) = a.run(path, case_insensitive);
            full || below
        })
    }
}

#[cfg(test)]
mod tests;
