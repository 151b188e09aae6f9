//! Path globs, compiled once, matched without backtracking blow-up.
//!
//! Syntax (matched against `/`-separated paths, no leading `/` for project paths):
//! - `*` any run of characters inside one path segment (never `/`); `?` one character;
//!   `[abc]`, `[a-z]`, `[!a-z]` / `[^a-z]` one character from a class; `\x` a literal `x`.
//! - `**` as a whole segment: zero or more segments. `**/x` matches `x` and `a/b/x`;
//!   `a/**` matches `a` itself and everything below it; `**` elsewhere in a segment acts as `*`.
//! - `{a,b}` alternatives (expanded when compiled, nesting allowed, at most 64 alternatives).
//! - A pattern starting with `/` is absolute (for paths outside the project); a trailing `/`
//!   means "this folder and everything below" (`docs/` = `docs/**`); a leading `./` is dropped.
//! - Dot files are not special: `**` matches `.github/x` and `*` matches `.env`.
//!
//! Matching runs a set-of-states simulation over pattern segments (a bit mask), so a path is
//! scanned once per pattern: O(path segments × pattern segments), never exponential. Inside a
//! segment the classic one-star-backtrack scan is used (O(n·m) worst case).

/// Maximum number of segments in one pattern alternative (states fit in a `u64`).
const MAX_SEGMENTS: usize = 63;
/// Maximum number of `{a,b}` alternatives one pattern may expand to.
const MAX_ALTERNATIVES: usize = 64;

/// A compiled glob pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    source: String,
    absolute: bool,
    alts: Vec<Alt>,
    /// Literal prefix length (chars before the first wildcard), the most specific alternative.
    specificity: u32,
}

#[derive(Debug, Clone)]
struct Alt {
    segs: Vec<Seg>,
    /// Bit i set when `segs[i]` is `**`.
    any_mask: u64,
    specificity: u32,
    /// Quick checks for normalised paths, run before the state simulation (speed only, same
    /// result): the whole pattern when it has no wildcard at all,
    exact: Option<Box<str>>,
    /// its leading literal segments (`docs/kord` of `docs/kord/**`),
    prefix: Box<str>,
    /// and the literal tail of its last segment (`.css` of `**/*.css`).
    suffix: Box<str>,
}

#[derive(Debug, Clone)]
enum Seg {
    /// `**`: zero or more whole segments.
    AnySegs,
    /// A segment without wildcards.
    Lit(Box<str>),
    /// A segment with wildcards.
    Pat(Vec<Tok>),
}

#[derive(Debug, Clone)]
enum Tok {
    Char(char),
    One,
    Star,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

/// Why a pattern does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError {
    /// What is wrong, in one sentence.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

impl Glob {
    /// Compiles `pattern`. With `case_insensitive`, ASCII letters match either case.
    pub fn new(pattern: &str, case_insensitive: bool) -> Result<Glob, GlobError> {
        let err = |m: &str, h: &str| GlobError {
            message: m.to_string(),
            hint: h.to_string(),
        };
        if pattern.is_empty() {
            return Err(err("the pattern is empty", "use `**` for every path"));
        }
        if pattern.starts_with('~') {
            return Err(err(
                "`~` is not expanded in patterns",
                "write the absolute folder, e.g. `/home/me/.cache/**`",
            ));
        }
        if pattern.contains('\0') {
            return Err(err("the pattern contains a NUL character", "remove it"));
        }
        let absolute = pattern.starts_with('/');
        let mut alts = Vec::new();
        for expanded in expand_braces(pattern)? {
            alts.push(compile_alt(&expanded, case_insensitive)?);
        }
        let specificity = alts.iter().map(|a| a.specificity).max().unwrap_or(0);
        Ok(Glob {
            source: pattern.to_string(),
            absolute,
            alts,
            specificity,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// True for patterns starting with `/` (they match absolute paths).
    pub fn is_absolute(&self) -> bool {
        self.absolute
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

    /// [`Glob::matches`] for a path already normalised (no `//`, no trailing `/`, as every
    /// [`super::Location`] is): skips the normalisation check.
    pub fn matches_normalized(&self, path: &str, case_insensitive: bool) -> bool {
        self.alts
            .iter()
            .any(|a| a.may_match(path, case_insensitive) && a.run(path, case_insensitive).0)
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

impl Alt {
    /// Cheap rejection for a normalised path (no `//`, no trailing `/`): `false` = no match.
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
    fn run(&self, path: &str, ci: bool) -> (bool, bool) {
        let n = self.segs.len();
        let end_bit = 1u64 << n;
        let mut states = self.closure(1);
        let trimmed = path.strip_prefix('/').unwrap_or(path);
        if !trimmed.is_empty() {
            for seg in trimmed.split('/') {
                if seg.is_empty() {
                    continue;
                }
                let mut next = 0u64;
                let mut live = states & !end_bit;
                while live != 0 {
                    let i = live.trailing_zeros() as usize;
                    live &= live - 1;
                    match &self.segs[i] {
                        Seg::AnySegs => next |= 1 << i,
                        Seg::Lit(l) => {
                            let eq = if ci {
                                l.eq_ignore_ascii_case(seg)
                            } else {
                                &**l == seg
                            };
                            if eq {
                                next |= 1 << (i + 1);
                            }
                        }
                        Seg::Pat(toks) => {
                            if seg_match(toks, seg, ci) {
                                next |= 1 << (i + 1);
                            }
                        }
                    }
                }
                states = self.closure(next);
                if states == 0 {
                    return (false, false);
                }
            }
        }
        (states & end_bit != 0, states & !end_bit != 0)
    }

    /// Adds the states reachable by letting `**` match zero segments.
    fn closure(&self, mut states: u64) -> u64 {
        let mut i = 0;
        while i < self.segs.len() {
            if states & (1 << i) != 0 && self.any_mask & (1 << i) != 0 {
                states |= 1 << (i + 1);
            }
            i += 1;
        }
        states
    }
}

fn fold(c: char, ci: bool) -> char {
    if ci {
        c.to_ascii_lowercase()
    } else {
        c
    }
}

fn tok_match(tok: &Tok, c: char, ci: bool) -> bool {
    match tok {
        Tok::Char(p) => *p == fold(c, ci),
        Tok::One => true,
        Tok::Star => false,
        Tok::Class { negated, ranges } => {
            let hit = |x: char| ranges.iter().any(|&(lo, hi)| lo <= x && x <= hi);
            let inside = if ci {
                hit(c) || hit(c.to_ascii_lowercase()) || hit(c.to_ascii_uppercase())
            } else {
                hit(c)
            };
            inside != *negated
        }
    }
}

/// One-segment wildcard match: greedy scan that backtracks only to the last `*`.
fn seg_match(toks: &[Tok], s: &str, ci: bool) -> bool {
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
                if tok_match(&toks[p], c, ci) {
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

fn compile_alt(pattern: &str, ci: bool) -> Result<Alt, GlobError> {
    let mut body = pattern.strip_prefix('/').unwrap_or(pattern);
    while let Some(rest) = body.strip_prefix("./") {
        body = rest;
    }
    let folder_form: String;
    if body.ends_with('/') {
        folder_form = format!("{}/**", body.trim_end_matches('/'));
        body = &folder_form;
    }
    let mut segs = Vec::new();
    let mut any_mask = 0u64;
    let mut specificity = 0u32;
    let mut literal_so_far = true;
    for raw in body.split('/') {
        if raw.is_empty() {
            continue;
        }
        if raw == "." || raw == ".." {
            return Err(GlobError {
                message: format!("the pattern `{pattern}` contains a `{raw}` segment"),
                hint: "patterns are matched against normalised paths: remove `.`/`..`".to_string(),
            });
        }
        if segs.len() >= MAX_SEGMENTS {
            return Err(GlobError {
                message: format!("the pattern has more than {MAX_SEGMENTS} segments"),
                hint: "shorten the pattern".to_string(),
            });
        }
        let seg = if raw == "**" {
            Seg::AnySegs
        } else {
            let toks = parse_segment(raw, ci)?;
            if toks.iter().all(|t| matches!(t, Tok::Char(_))) {
                Seg::Lit(
                    toks.iter()
                        .map(|t| match t {
                            Tok::Char(c) => *c,
                            _ => '?',
                        })
                        .collect::<String>()
                        .into_boxed_str(),
                )
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
        if let Seg::AnySegs = seg {
            any_mask |= 1 << segs.len();
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
        any_mask,
        specificity,
        exact,
        prefix,
        suffix: suffix.into_boxed_str(),
    })
}

fn parse_segment(raw: &str, ci: bool) -> Result<Vec<Tok>, GlobError> {
    let mut toks = Vec::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => {
                while chars.peek() == Some(&'*') {
                    chars.next();
                }
                toks.push(Tok::Star);
            }
            '?' => toks.push(Tok::One),
            '\\' => match chars.next() {
                Some(e) => toks.push(Tok::Char(fold(e, ci))),
                None => {
                    return Err(GlobError {
                        message: "the pattern ends with a lone `\\`".to_string(),
                        hint: "write `\\\\` for a literal backslash".to_string(),
                    })
                }
            },
            '[' => {
                let mut negated = false;
                if matches!(chars.peek(), Some('!') | Some('^')) {
                    negated = true;
                    chars.next();
                }
                let mut ranges = Vec::new();
                let mut closed = false;
                let mut first = true;
                while let Some(x) = chars.next() {
                    if x == ']' && !first {
                        closed = true;
                        break;
                    }
                    first = false;
                    let lo = if x == '\\' {
                        chars.next().unwrap_or('\\')
                    } else {
                        x
                    };
                    if chars.peek() == Some(&'-') {
                        let mut look = chars.clone();
                        look.next();
                        match look.peek() {
                            Some(&hi) if hi != ']' => {
                                chars.next();
                                chars.next();
                                ranges.push((
                                    fold(lo, ci).min(fold(hi, ci)),
                                    fold(lo, ci).max(fold(hi, ci)),
                                ));
                                continue;
                            }
                            _ => {}
                        }
                    }
                    ranges.push((fold(lo, ci), fold(lo, ci)));
                }
                if !closed {
                    return Err(GlobError {
                        message: format!("unclosed `[` in `{raw}`"),
                        hint: "close the class with `]`, or write `\\[` for a literal bracket"
                            .to_string(),
                    });
                }
                toks.push(Tok::Class { negated, ranges });
            }
            _ => toks.push(Tok::Char(fold(c, ci))),
        }
    }
    Ok(toks)
}

/// Expands `{a,b}` alternatives (nested allowed). Backslash-escaped braces stay literal.
fn expand_braces(pattern: &str) -> Result<Vec<String>, GlobError> {
    let mut out = Vec::new();
    expand_into(pattern, &mut out, 0)?;
    Ok(out)
}

fn expand_into(p: &str, out: &mut Vec<String>, depth: usize) -> Result<(), GlobError> {
    let too_many = || GlobError {
        message: format!("the pattern expands to more than {MAX_ALTERNATIVES} alternatives"),
        hint: "split it into several patterns".to_string(),
    };
    if depth > 16 {
        return Err(too_many());
    }
    // Find the first unescaped `{` and its matching `}`.
    let bytes = p.as_bytes();
    let mut i = 0;
    let mut open = None;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'{' => {
                open = Some(i);
                break;
            }
            b'}' => {
                return Err(GlobError {
                    message: format!("unbalanced `}}` in `{p}`"),
                    hint: "write `\\}` for a literal brace".to_string(),
                })
            }
            _ => {}
        }
        i += 1;
    }
    let Some(start) = open else {
        if out.len() >= MAX_ALTERNATIVES {
            return Err(too_many());
        }
        out.push(p.to_string());
        return Ok(());
    };
    let mut level = 0usize;
    let mut j = start;
    let mut parts = Vec::new();
    let mut part_start = start + 1;
    let mut close = None;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 1,
            b'{' => level += 1,
            b'}' => {
                level -= 1;
                if level == 0 {
                    parts.push(&p[part_start..j]);
                    close = Some(j);
                    break;
                }
            }
            b',' if level == 1 => {
                parts.push(&p[part_start..j]);
                part_start = j + 1;
            }
            _ => {}
        }
        j += 1;
    }
    let Some(end) = close else {
        return Err(GlobError {
            message: format!("unclosed `{{` in `{p}`"),
            hint: "close the alternatives with `}`, or write `\\{` for a literal brace".to_string(),
        });
    };
    for part in parts {
        let mut s = String::with_capacity(p.len());
        s.push_str(&p[..start]);
        s.push_str(part);
        s.push_str(&p[end + 1..]);
        expand_into(&s, out, depth + 1)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, s: &str) -> bool {
        Glob::new(p, false).unwrap().matches(s, false)
    }

    #[test]
    fn globstar_semantics() {
        let cases = [
            ("**/x", "x", true),
            ("**/x", "a/b/x", true),
            ("**/x", "a/bx", false),
            ("**/migrations/**", "migrations/a.sql", true),
            ("**/migrations/**", "db/migrations/2024/a.sql", true),
            ("**/migrations/**", "migrationsx/a.sql", false),
            ("**/migrations/**", "x.y/migrations/a.sql", true),
            ("**/components/**/*.tsx", "components/a.tsx", true),
            ("**/components/**/*.tsx", "src/components/x/y/a.tsx", true),
            ("**/components/**/*.tsx", "a.b/components/c.d/x.tsx", true),
            ("**/components/**/*.tsx", "src/components/a.ts", false),
            ("**/*.js", "a/b.c/c.js", true),
            ("**/*a", "a/a", true),
            ("test/**/*.json", "test/one/.two/three/file.json", true),
            ("**/*.css", "a.css", true),
            ("**/*.css", "a/b/c.css", true),
            ("*.md", "a/b.md", false),
            ("*.md", "b.md", true),
            ("docs/kord/plans/*.md", "docs/kord/plans/a.md", true),
            ("docs/kord/plans/*.md", "docs/kord/plans/a/b.md", false),
            ("a/**", "a", true),
            ("a/**", "a/b/c", true),
            ("a/**", "ab", false),
            ("a/**/b", "a/b", true),
            ("a/**/b", "a/x/y/b", true),
            ("**", "", true),
            ("**", ".github/workflows/ci.yml", true),
            ("*", ".env", true),
            ("a*b", "a/b", false),
            ("docker-compose.*", "docker-compose.yml", true),
            ("docker-compose.*", "sub/docker-compose.yml", false),
            ("**/schema.*", "schema.sql", true),
            ("**/schema.*", "db/schema.prisma", true),
            ("**/Dockerfile", "Dockerfile", true),
            ("?.rs", "a.rs", true),
            ("?.rs", "ab.rs", false),
            ("[ab].rs", "b.rs", true),
            ("[!ab].rs", "b.rs", false),
            ("[a-c]x", "bx", true),
            ("{a,b}/x", "b/x", true),
            ("{a,b{c,d}}/x", "bd/x", true),
            ("docker-compose.{yml,yaml}", "docker-compose.yaml", true),
            ("docs/", "docs/a/b", true),
            ("./src/**", "src/a", true),
            ("/tmp/**", "/tmp/a/b", true),
            ("/tmp/**", "/tmpx/a", false),
            ("/dev/null", "/dev/null", true),
            ("\\*.md", "*.md", true),
            ("\\*.md", "a.md", false),
            ("src//a", "src/a", true),
            ("a**b", "axxb", true),
            ("a**b", "a/b", false),
            ("é*", "été", true),
        ];
        for (p, s, want) in cases {
            assert_eq!(m(p, s), want, "pattern {p:?} on {s:?}");
        }
    }

    #[test]
    fn quick_checks_agree_with_the_state_simulation() {
        let patterns = [
            "**/Dockerfile",
            "Dockerfile",
            "docs/kord/**",
            "docs/kord/plans/*.md",
            "**/*.css",
            "a/**/b",
            "**",
            "*",
            "/tmp/**",
            "/dev/null",
            "src/[a-c]*.rs",
            "x?z",
            "**/schema.*",
            "{a,b}/c",
            "docs/",
            "A/**/*.MD",
        ];
        let paths = [
            "",
            "Dockerfile",
            "a/Dockerfile",
            "xDockerfile",
            "docs",
            "docs/kord",
            "docs/kordx",
            "docs/kord/plans/a.md",
            "docs/kord/plans/a/b.md",
            "a.css",
            "b/c.css",
            "a/b",
            "a/x/b",
            "/tmp",
            "/tmp/x",
            "/dev/null",
            "src/b1.rs",
            "xyz",
            "db/schema.sql",
            "b/c",
            "a/q/z.md",
            "A/B/C.md",
            "a/b/c.md",
        ];
        for p in patterns {
            for ci in [false, true] {
                let g = Glob::new(p, ci).unwrap();
                for path in paths {
                    let slow = g.alts.iter().any(|a| a.run(path, ci).0);
                    assert_eq!(g.matches(path, ci), slow, "{p:?} on {path:?} (ci {ci})");
                }
            }
        }
    }

    #[test]
    fn case_folding() {
        let g = Glob::new("Docs/**/*.MD", true).unwrap();
        assert!(g.matches("docs/a/b.md", true));
        assert!(g.matches("DOCS/A/B.Md", true));
        let g = Glob::new("Docs/**", false).unwrap();
        assert!(!g.matches("docs/a", false));
        let g = Glob::new("[A-C]x", true).unwrap();
        assert!(g.matches("bX", true));
    }

    #[test]
    fn below() {
        let g = Glob::new(".opencode/**", false).unwrap();
        assert!(g.matches_or_below("", false));
        assert!(g.matches_or_below(".opencode", false));
        assert!(!g.matches_or_below("src", false));
        let g = Glob::new("docs/kord/plans/*.md", false).unwrap();
        assert!(g.matches_or_below("docs", false));
        assert!(g.matches_or_below("docs/kord/plans", false));
        assert!(!g.matches_or_below("docs/kord/plans/a.md/x", false));
        assert!(!g.matches("docs", false));
    }

    #[test]
    fn errors() {
        for p in ["", "[ab", "{a,b", "a}", "~/x", "a/../b", "x\\"] {
            assert!(Glob::new(p, false).is_err(), "{p:?} should not compile");
        }
        let many = "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}";
        assert!(Glob::new(many, false).is_err());
    }

    #[test]
    fn specificity_is_literal_prefix() {
        let s = |p: &str| Glob::new(p, false).unwrap().specificity();
        assert!(s("docs/kord/plans/*.md") > s("docs/kord/**"));
        assert!(s("docs/kord/**") > s("**"));
        assert_eq!(s("**/migrations/**"), 0);
    }

    #[test]
    fn pathological_inputs_are_fast() {
        let p = "*a*a*a*a*a*a*a*a*a*a*a*a*b";
        let g = Glob::new(p, false).unwrap();
        assert!(!g.matches(&"a".repeat(5000), false));
        let g = Glob::new("**/a/**/a/**/a/**/a/**/a/**/b", false).unwrap();
        let path = "a/".repeat(2000) + "c";
        assert!(!g.matches(&path, false));
    }
}
