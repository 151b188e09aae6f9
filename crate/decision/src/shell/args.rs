//! Arguments as the analyser sees them (quote-removed text plus where it stops being
//! statically known) and a GNU-style option splitter shared by the program handlers.

/// One argument after quote removal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Arg<'x> {
    /// Cooked text; expansions are kept verbatim.
    pub s: &'x str,
    /// Byte offset of the first statically-unknown character, if any.
    pub dyn_at: Option<usize>,
}

impl<'x> Arg<'x> {
    /// An argument whose whole value is unknown (xargs input, `find {}`).
    pub(crate) const UNKNOWN: Arg<'static> = Arg {
        s: "",
        dyn_at: Some(0),
    };

    /// A fully static argument.
    pub(crate) fn lit(s: &'x str) -> Self {
        Arg { s, dyn_at: None }
    }

    pub(crate) fn is_dynamic(&self) -> bool {
        self.dyn_at.is_some()
    }

    /// Unknown from the first character: could expand to anything, even an option.
    pub(crate) fn dyn_start(&self) -> bool {
        self.dyn_at == Some(0)
    }

    /// The statically known prefix (the whole text when static).
    pub(crate) fn prefix(&self) -> &'x str {
        match self.dyn_at {
            Some(d) => self.s.get(..d).unwrap_or(""),
            None => self.s,
        }
    }

    /// Exactly this static text.
    pub(crate) fn is(&self, lit: &str) -> bool {
        self.dyn_at.is_none() && self.s == lit
    }

    /// The argument from byte `off` on (for attached option values).
    pub(crate) fn tail(self, off: usize) -> Arg<'x> {
        Arg {
            s: self.s.get(off..).unwrap_or(""),
            dyn_at: self.dyn_at.map(|d| d.saturating_sub(off)),
        }
    }

    /// The argument cut before byte `at`, unknown from there (a replacement string).
    pub(crate) fn unknown_from(self, at: usize) -> Arg<'x> {
        let at = self.dyn_at.map_or(at, |d| d.min(at));
        Arg {
            s: self.s.get(..at).unwrap_or(""),
            dyn_at: Some(at),
        }
    }
}

/// The name the shell looks the program up by: the basename of the word. `None` when the
/// name itself is not static (`$g`, `$(echo git)`, `/bin/g*`); a dynamic directory with a
/// static basename (`$HOME/bin/tool`) still names `tool`.
pub(crate) fn program_name<'x>(arg: &Arg<'x>) -> Option<&'x str> {
    let s = arg.s;
    let base_start = s.rfind('/').map_or(0, |i| i + 1);
    let base = s.get(base_start..).unwrap_or("");
    match arg.dyn_at {
        None => Some(base),
        Some(d) if d < base_start && !base.is_empty() => {
            (!base.contains(['$', '`', '*', '?', '[', '{', '~'])).then_some(base)
        }
        Some(_) => None,
    }
}

/// Which options take values, for one program.
pub(crate) struct Spec<'s> {
    /// Short options whose value is the rest of the cluster or the next argument.
    pub short_val: &'s [u8],
    /// Short options whose value can only be attached (`-i.bak`, `xargs -i{}`).
    pub short_opt: &'s [u8],
    /// Long options (without `--`) whose value may be the next argument.
    pub long_val: &'s [&'s str],
}

impl Spec<'static> {
    /// No option takes a value.
    pub(crate) const FLAGS: Spec<'static> = Spec {
        short_val: b"",
        short_opt: b"",
        long_val: &[],
    };
}

/// A [`Spec`] whose short options with values take them from the cluster or next word.
pub(crate) const fn spec(
    short_val: &'static [u8],
    long_val: &'static [&'static str],
) -> Spec<'static> {
    Spec {
        short_val,
        short_opt: b"",
        long_val,
    }
}

/// An option name: a short letter or a long name without `--` and `=value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OptName<'x> {
    Short(u8),
    Long(&'x str),
}

/// Options and operands of a command line.
#[derive(Debug, Default)]
pub(crate) struct Opts<'x> {
    pub opts: Vec<(OptName<'x>, Option<Arg<'x>>)>,
    pub operands: Vec<Arg<'x>>,
    /// Index in `operands` of the first operand after `--` (`operands.len()` if none).
    pub after_dd: usize,
    /// Saw `--`.
    pub dd: bool,
    /// Some word before `--` is unknown from its first character: it could be any option.
    pub dyn_opt: bool,
}

impl<'x> Opts<'x> {
    /// Any of these short letters or long names was given.
    pub(crate) fn has(&self, shorts: &[u8], longs: &[&str]) -> bool {
        self.opts.iter().any(|(n, _)| match n {
            OptName::Short(c) => shorts.contains(c),
            OptName::Long(l) => longs.contains(l),
        })
    }

    /// Values of these options, in order.
    pub(crate) fn values<'o>(
        &'o self,
        shorts: &'o [u8],
        longs: &'o [&'o str],
    ) -> impl Iterator<Item = Arg<'x>> + 'o {
        self.opts.iter().filter_map(move |(n, v)| {
            let hit = match n {
                OptName::Short(c) => shorts.contains(c),
                OptName::Long(l) => longs.contains(l),
            };
            if hit {
                *v
            } else {
                None
            }
        })
    }

    /// The last value of these options.
    pub(crate) fn value(&self, shorts: &[u8], longs: &[&str]) -> Option<Arg<'x>> {
        self.values(shorts, longs).last()
    }
}

/// Splits `args` GNU-style (options may follow operands, `--` ends options).
pub(crate) fn parse_opts<'x>(args: &[Arg<'x>], spec: &Spec<'_>) -> Opts<'x> {
    split(args, spec, false).0
}

/// Splits options up to the first operand (POSIX style, for wrappers); returns them and the
/// index of the first operand (after a `--`).
pub(crate) fn leading_opts<'x>(args: &[Arg<'x>], spec: &Spec<'_>) -> (Opts<'x>, usize) {
    split(args, spec, true)
}

fn split<'x>(args: &[Arg<'x>], spec: &Spec<'_>, stop: bool) -> (Opts<'x>, usize) {
    let mut o = Opts::default();
    let mut i = 0;
    while let Some(a) = args.get(i).copied() {
        if o.dd {
            if stop {
                break;
            }
            o.operands.push(a);
            i += 1;
            continue;
        }
        if a.dyn_start() {
            if stop {
                break;
            }
            o.dyn_opt = true;
            o.operands.push(a);
            i += 1;
            continue;
        }
        i += 1;
        let s = a.s;
        if a.is("--") {
            o.dd = true;
            o.after_dd = o.operands.len();
            continue;
        }
        if let Some(long) = s.strip_prefix("--") {
            let (name, val) = match long.find('=') {
                Some(k) => (long.get(..k).unwrap_or(""), Some(a.tail(k + 3))),
                None => (long, None),
            };
            let val = match val {
                None if spec.long_val.contains(&name) => {
                    let v = args.get(i).copied();
                    if v.is_some() {
                        i += 1;
                    }
                    v
                }
                v => v,
            };
            o.opts.push((OptName::Long(name), val));
            continue;
        }
        let b = s.as_bytes();
        if b.len() > 1 && b.first() == Some(&b'-') {
            let mut k = 1;
            while let Some(&c) = b.get(k) {
                if spec.short_opt.contains(&c) {
                    o.opts.push((OptName::Short(c), Some(a.tail(k + 1))));
                    break;
                }
                if spec.short_val.contains(&c) {
                    let val = if k + 1 < b.len() {
                        Some(a.tail(k + 1))
                    } else {
                        let v = args.get(i).copied();
                        if v.is_some() {
                            i += 1;
                        }
                        v
                    };
                    o.opts.push((OptName::Short(c), val));
                    break;
                }
                o.opts.push((OptName::Short(c), None));
                k += 1;
            }
            continue;
        }
        if stop {
            i -= 1;
            break;
        }
        o.operands.push(a);
    }
    if !o.dd {
        o.after_dd = o.operands.len();
    }
    (o, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits<'a>(v: &[&'a str]) -> Vec<Arg<'a>> {
        v.iter().map(|s| Arg::lit(s)).collect()
    }

    #[test]
    fn program_names() {
        assert_eq!(program_name(&Arg::lit("/usr/bin/git")), Some("git"));
        assert_eq!(program_name(&Arg::lit("./x")), Some("x"));
        let dyn_dir = Arg {
            s: "$HOME/bin/git",
            dyn_at: Some(0),
        };
        assert_eq!(program_name(&dyn_dir), Some("git"));
        let dyn_name = Arg {
            s: "$g",
            dyn_at: Some(0),
        };
        assert_eq!(program_name(&dyn_name), None);
        let dyn_base = Arg {
            s: "/bin/$g",
            dyn_at: Some(5),
        };
        assert_eq!(program_name(&dyn_base), None);
    }

    #[test]
    fn gnu_split() {
        let spec = Spec {
            short_val: b"m",
            short_opt: b"i",
            long_val: &["file"],
        };
        let a = lits(&[
            "-am", "msg", "x", "--file", "f", "--k=v", "-i.bak", "--", "-y",
        ]);
        let o = parse_opts(&a, &spec);
        assert!(o.has(b"a", &[]));
        assert_eq!(o.value(b"m", &[]).map(|a| a.s), Some("msg"));
        assert_eq!(o.value(b"", &["file"]).map(|a| a.s), Some("f"));
        assert_eq!(o.value(b"", &["k"]).map(|a| a.s), Some("v"));
        assert_eq!(o.value(b"i", &[]).map(|a| a.s), Some(".bak"));
        assert_eq!(
            o.operands.iter().map(|a| a.s).collect::<Vec<_>>(),
            ["x", "-y"]
        );
        assert_eq!(o.after_dd, 1);
    }

    #[test]
    fn posix_split() {
        let a = lits(&["-n", "5", "git", "-x"]);
        let spec = Spec {
            short_val: b"n",
            short_opt: b"",
            long_val: &[],
        };
        let (o, k) = leading_opts(&a, &spec);
        assert_eq!(k, 2);
        assert!(o.has(b"n", &[]));
        let (_, k) = leading_opts(&lits(&["--", "git"]), &Spec::FLAGS);
        assert_eq!(k, 1);
    }

    #[test]
    fn unknown_from() {
        let a = Arg::lit("dir/{}.bak");
        let u = a.unknown_from(4);
        assert_eq!((u.s, u.dyn_at), ("dir/", Some(4)));
    }
}
