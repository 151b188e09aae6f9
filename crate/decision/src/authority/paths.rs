//! Lexical path normalisation against the project.
//!
//! No file system access: `.`/`..`, repeated and trailing slashes are resolved on the text.
//! Symlinks are the shim's business: it passes real paths in `Request::resolved`.

use std::borrow::Cow;

/// Where a path lands, relative to the project (the worktree).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Location {
    /// Inside the worktree: relative, `/`-separated, without `.`/`..`/empty segments and
    /// without a trailing `/`. `""` is the worktree root itself.
    Inside(String),
    /// Outside the worktree: an absolute normalised path, or a `~` path (home is never treated
    /// as part of the project, whatever `$HOME` is).
    Outside(String),
    /// Not a usable path; the text says why.
    Invalid(&'static str),
}

impl Location {
    /// The path as used in messages: relative inside the project, absolute outside.
    pub fn display(&self) -> &str {
        match self {
            Location::Inside(p) if p.is_empty() => ".",
            Location::Inside(p) | Location::Outside(p) => p,
            Location::Invalid(_) => "(invalid path)",
        }
    }
}

/// The absolute folders a request is evaluated against. Borrows the request's strings when
/// they are already normalised (the common case), so building it does not allocate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots<'a> {
    /// Normalised absolute worktree (project root); `None` when the request had none usable.
    pub worktree: Option<Cow<'a, str>>,
    /// Normalised absolute base directory for relative paths (OpenCode's `directory`).
    pub base: Option<Cow<'a, str>>,
    /// Compare the worktree prefix ignoring ASCII case.
    pub case_insensitive: bool,
}

impl<'a> Roots<'a> {
    /// Builds the roots from a request's `worktree` and `directory`. A relative `directory`
    /// is taken relative to the worktree; a missing worktree falls back to the directory.
    pub fn new(worktree: &'a str, directory: &'a str, case_insensitive: bool) -> Roots<'a> {
        let wt = worktree.starts_with('/').then(|| clean_absolute(worktree));
        let base = if directory.starts_with('/') {
            Some(clean_absolute(directory))
        } else {
            wt.as_ref().map(|w| Cow::Owned(absolute(w, directory)))
        };
        let worktree = wt.or_else(|| base.clone());
        Roots {
            worktree,
            base,
            case_insensitive,
        }
    }

    /// Returns a copy whose base directory is `dir` (absolute, or relative to the current
    /// base); used for bash `workdir` and `cd`.
    pub fn with_base(&self, dir: &str) -> Roots<'a> {
        let base = match (&self.base, dir.starts_with('/')) {
            (_, true) => Some(Cow::Owned(absolute("/", dir))),
            (Some(b), false) => Some(Cow::Owned(absolute(b, dir))),
            (None, false) => None,
        };
        Roots {
            worktree: self.worktree.clone(),
            base,
            case_insensitive: self.case_insensitive,
        }
    }

    /// Places `input` (absolute, relative to the base directory, or `~...`).
    pub fn locate(&self, input: &str) -> Location {
        if input.is_empty() {
            return Location::Invalid("the path is empty");
        }
        if input.contains('\0') {
            return Location::Invalid("the path contains a NUL character");
        }
        if input.starts_with('~') {
            return Location::Outside(home_path(input));
        }
        if input.starts_with('/') {
            return match is_clean(input) {
                true => self.place_str(input),
                false => self.place_str(&absolute("/", input)),
            };
        }
        let Some(base) = &self.base else {
            return Location::Invalid("the request has no absolute directory");
        };
        // Fast path: a clean relative path from the worktree root itself.
        if self.worktree.as_deref() == Some(&**base) && is_clean(input) && base.len() > 1 {
            return Location::Inside(input.to_string());
        }
        self.place_str(&absolute(base, input))
    }

    /// Places an already absolute path (e.g. a real path from the symlink map).
    pub fn place(&self, abs: String) -> Location {
        self.place_str(&abs)
    }

    fn place_str(&self, abs: &str) -> Location {
        let owned;
        let abs = if abs.starts_with('/') && !is_clean(abs) {
            owned = absolute("/", abs);
            owned.as_str()
        } else {
            abs
        };
        let Some(wt) = self.worktree.as_deref() else {
            return Location::Invalid("the request has no absolute worktree");
        };
        if wt == "/" {
            return Location::Inside(abs.get(1..).unwrap_or("").to_string());
        }
        let (a, w) = (abs.as_bytes(), wt.as_bytes());
        let prefix_ok = a.len() >= w.len()
            && if self.case_insensitive {
                a[..w.len()].eq_ignore_ascii_case(w)
            } else {
                &a[..w.len()] == w
            };
        if prefix_ok && a.len() == w.len() {
            return Location::Inside(String::new());
        }
        if prefix_ok && a[w.len()] == b'/' {
            return Location::Inside(abs[w.len() + 1..].to_string());
        }
        Location::Outside(abs.to_string())
    }

    /// The absolute form of a location (for keys of the `contents`/`exists` maps).
    pub fn absolute_of(&self, loc: &Location) -> Option<String> {
        match loc {
            Location::Inside(rel) => {
                let wt = self.worktree.as_deref()?;
                if rel.is_empty() {
                    Some(wt.to_string())
                } else if wt == "/" {
                    Some(format!("/{rel}"))
                } else {
                    Some(format!("{wt}/{rel}"))
                }
            }
            Location::Outside(p) => Some(p.clone()),
            Location::Invalid(_) => None,
        }
    }
}

/// Is `p` already normalised (no empty, `.` or `..` segment, no trailing `/`)? `/` is.
fn is_clean(p: &str) -> bool {
    if p == "/" {
        return true;
    }
    // One pass over the bytes (this runs several times per decision): every part must be
    // neither empty nor "." or "..", which are the parts made of one or two dots only.
    let body = p.strip_prefix('/').unwrap_or(p).as_bytes();
    let bad_part = |len: usize, dots: usize| len == 0 || (len == dots && len <= 2);
    let (mut len, mut dots) = (0, 0);
    for &b in body {
        if b == b'/' {
            if bad_part(len, dots) {
                return false;
            }
            (len, dots) = (0, 0);
        } else {
            // `dots` counts the part's dots while it has nothing else.
            if b == b'.' && dots == len {
                dots += 1;
            }
            len += 1;
        }
    }
    !bad_part(len, dots)
}

fn clean_absolute(p: &str) -> Cow<'_, str> {
    if is_clean(p) {
        Cow::Borrowed(p)
    } else {
        Cow::Owned(absolute("/", p))
    }
}

/// Joins `input` onto the absolute `base` (unless `input` is absolute) and resolves `.`,
/// `..` (never above `/`), repeated and trailing slashes. Always returns an absolute path.
pub fn absolute(base: &str, input: &str) -> String {
    let mut out = String::with_capacity(base.len() + input.len() + 1);
    if !input.starts_with('/') {
        push_components(&mut out, base);
    }
    push_components(&mut out, input);
    if out.is_empty() {
        out.push('/');
    }
    out
}

fn push_components(out: &mut String, s: &str) {
    for comp in s.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                if let Some(pos) = out.rfind('/') {
                    out.truncate(pos);
                }
            }
            c => {
                out.push('/');
                out.push_str(c);
            }
        }
    }
}

fn home_path(input: &str) -> String {
    let (head, rest) = match input.find('/') {
        Some(i) => (&input[..i], &input[i..]),
        None => (input, ""),
    };
    let mut out = head.to_string();
    let mut tail = String::new();
    push_components(&mut tail, rest);
    out.push_str(&tail);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(input: &str, dir: &str) -> Location {
        Roots::new("/work/proj", dir, false).locate(input)
    }
    fn inside(p: &str) -> Location {
        Location::Inside(p.to_string())
    }
    fn outside(p: &str) -> Location {
        Location::Outside(p.to_string())
    }

    /// `is_clean` by its definition: after the leading `/`, parts neither empty nor `.`/`..`.
    fn clean_by_definition(p: &str) -> bool {
        p == "/" || {
            let body = p.strip_prefix('/').unwrap_or(p);
            body.split('/').all(|part| !matches!(part, "" | "." | ".."))
        }
    }

    #[test]
    fn is_clean_agrees_with_its_definition_on_every_short_path() {
        // Every string of up to seven of '/', '.', 'a': all the shapes a part can take.
        let mut paths = vec![String::new()];
        for _ in 0..7 {
            let longer: Vec<String> = paths
                .iter()
                .flat_map(|p| ['/', '.', 'a'].map(|c| format!("{p}{c}")))
                .collect();
            for p in paths.iter().chain(&longer) {
                assert_eq!(super::is_clean(p), clean_by_definition(p), "{p:?}");
            }
            paths = longer;
        }
        for p in ["/work/proj", "/work/proj/.git", "/w/..x/x..", "/w/.../x"] {
            assert!(super::is_clean(p), "{p}");
        }
        for p in [
            "/work/proj/",
            "/work//proj",
            "/work/./proj",
            "/work/..",
            "",
            "/w/.",
        ] {
            assert!(!super::is_clean(p), "{p}");
        }
    }

    #[test]
    fn normalisation_cases() {
        let cases: &[(&str, &str, Location)] = &[
            ("src/a.rs", "/work/proj", inside("src/a.rs")),
            ("./src//a.rs", "/work/proj", inside("src/a.rs")),
            ("src/../docs/x.md", "/work/proj", inside("docs/x.md")),
            ("src/a/", "/work/proj", inside("src/a")),
            (".", "/work/proj", inside("")),
            ("..", "/work/proj", outside("/work")),
            ("../other/x", "/work/proj", outside("/work/other/x")),
            ("../proj/src/x", "/work/proj", inside("src/x")),
            (
                "../../../../etc/passwd",
                "/work/proj",
                outside("/etc/passwd"),
            ),
            ("/work/proj/src/a.rs", "/work/proj/src", inside("src/a.rs")),
            ("/work/proj", "/work/proj", inside("")),
            (
                "/work/project2/a",
                "/work/proj",
                outside("/work/project2/a"),
            ),
            ("/work//proj///src/./a.rs", "/work/proj", inside("src/a.rs")),
            ("/tmp/x", "/work/proj", outside("/tmp/x")),
            ("a.rs", "/work/proj/pkg/web", inside("pkg/web/a.rs")),
            ("../../x.rs", "/work/proj/pkg/web", inside("x.rs")),
            ("../../../x.rs", "/work/proj/pkg/web", outside("/work/x.rs")),
            ("~/.bashrc", "/work/proj", outside("~/.bashrc")),
            ("~", "/work/proj", outside("~")),
            ("~root/x/../y", "/work/proj", outside("~root/y")),
            ("", "/work/proj", Location::Invalid("the path is empty")),
            (
                "a\0b",
                "/work/proj",
                Location::Invalid("the path contains a NUL character"),
            ),
            ("x", "pkg", inside("pkg/x")),
        ];
        for (input, dir, want) in cases {
            assert_eq!(&loc(input, dir), want, "{input:?} from {dir:?}");
        }
    }

    #[test]
    fn worktree_with_trailing_slash_and_case() {
        let r = Roots::new("/work/Proj/", "/work/Proj/", false);
        assert_eq!(r.locate("/work/Proj/a"), inside("a"));
        assert_eq!(r.locate("/work/proj/a"), outside("/work/proj/a"));
        let r = Roots::new("/work/Proj", "/work/Proj", true);
        assert_eq!(r.locate("/work/proj/a"), inside("a"));
    }

    #[test]
    fn missing_roots() {
        let r = Roots::new("", "", false);
        assert!(matches!(r.locate("a"), Location::Invalid(_)));
        let r = Roots::new("", "/work/p", false);
        assert_eq!(r.locate("a"), inside("a"));
        let r = Roots::new("/", "/", false);
        assert_eq!(r.locate("/etc/x"), inside("etc/x"));
    }
}
