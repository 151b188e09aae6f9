//! How commands change the shell's variables: assignment statements (`X=v`), the
//! declaration builtins (`export`, `declare`, `typeset`, `local`, `readonly`), and builtins
//! that set variables from run-time data (`read`, `mapfile`, `getopts`, `printf -v`, `let`)
//! or remove them (`unset`). Also [`collect`]: the names a loop body may assign, which are
//! unknown at the start of every iteration.
//!
//! Whatever is not understood makes variables unknown, never known: a dynamic name forgets
//! every variable, and a nameref (`declare -n`) stops the tracking for the rest of the
//! command, since assignments through it reach variables by names we cannot see.

use super::analyze::{Analyzer, Exec};
use super::args::{program_name, Arg};
use super::ast::{Kind, List, Word};
use super::expand::{expand, Mode};
use super::parser::assignment_name_len;
use super::vars::{is_name, name_len, Field, Value, Vars};

/// The name and operator prefix of `NAME=`, `NAME+=`, `NAME[i]=` at the start of `s`:
/// (name, whether it appends, whether it is an array element, prefix length).
fn split_assignment(s: &str) -> Option<(&str, bool, bool, usize)> {
    let len = assignment_name_len(s)?;
    let head = s.get(..len)?;
    let n = name_len(head);
    let name = head.get(..n)?;
    let element = head.get(n..).is_some_and(|r| r.starts_with('['));
    Some((name, head.ends_with("+="), element, len))
}

impl Analyzer {
    /// `NAME=value` (after expansion) assigned in this shell.
    pub(crate) fn assign_var(&mut self, a: Arg<'_>, exported: bool) {
        let Some((name, append, element, len)) = split_assignment(a.s) else {
            return;
        };
        let value = a.tail(len);
        let array = value.dyn_at == Some(0) && value.s.starts_with('(');
        if element || array || a.dyn_at.is_some_and(|d| d < len) {
            self.vars.forget(name);
            return;
        }
        let mut field = Field {
            text: value.s.to_string(),
            dyn_at: value.dyn_at,
        };
        if append {
            let Some(Value::One(old)) = self.vars.get(name) else {
                self.vars.forget(name);
                return;
            };
            let base = old.text.len();
            field = Field {
                text: format!("{}{}", old.text, field.text),
                dyn_at: old.dyn_at.or(field.dyn_at.map(|d| base + d)),
            };
        }
        self.vars
            .set(name, Some(Value::One(field.bounded())), exported);
    }

    /// `export`/`declare`/`typeset`/`local`/`readonly` with their arguments.
    pub(crate) fn declare(&mut self, builtin: &str, rest: &[Arg<'_>], ex: &Exec<'_>) {
        if !ex.direct {
            return;
        }
        let mut export = builtin == "export";
        // arrays, integers and case conversions: the value is not the text
        let mut unknown_values = false;
        let mut i = 0;
        while let Some(a) = rest.get(i) {
            if a.dyn_start() {
                // could be any option, `-n` included
                self.vars.poison();
                return;
            }
            if a.is("--") {
                i += 1;
                break;
            }
            let Some(flags) = a.s.strip_prefix(['-', '+']).filter(|f| !f.is_empty()) else {
                break;
            };
            let on = a.s.starts_with('-');
            for c in flags.bytes() {
                match c {
                    b'n' if builtin != "export" => {
                        self.vars.poison();
                        return;
                    }
                    b'f' | b'F' | b'p' => return, // functions, or printing
                    b'x' if on => export = true,
                    b'n' => unknown_values = true, // `export -n`: no longer exported
                    b'a' | b'A' | b'i' | b'l' | b'u' | b'c' => unknown_values = true,
                    _ => {}
                }
            }
            i += 1;
        }
        for a in rest.get(i..).unwrap_or(&[]) {
            if a.dyn_at.is_some_and(|d| d <= name_len(a.s)) {
                self.vars.forget_all(); // an unknown name
            } else if let Some((name, ..)) = split_assignment(a.s) {
                if unknown_values {
                    self.vars.forget(name);
                } else {
                    self.assign_var(*a, export);
                }
            } else if is_name(a.s) {
                match builtin {
                    "export" if !unknown_values => self.vars.export(a.s),
                    "readonly" => {}
                    _ if export && !unknown_values => self.vars.export(a.s),
                    // a local without a value is unset in the function
                    _ => self.vars.forget(a.s),
                }
            }
        }
    }

    /// `read`, `mapfile`, `readarray`, `getopts`, `unset`, `let`, `printf -v`: the named
    /// variables become unknown (any name-like argument counts, options' values included).
    pub(crate) fn forget_named(&mut self, builtin: &str, rest: &[Arg<'_>], ex: &Exec<'_>) {
        if !ex.direct {
            return;
        }
        if builtin == "printf" && !rest.iter().any(|a| a.dyn_start() || a.s.starts_with("-v")) {
            return; // prints only
        }
        if builtin == "unset" && rest.iter().any(|a| a.is("-f")) {
            return; // functions
        }
        for a in rest {
            if a.is_dynamic() {
                self.vars.forget_all();
                return;
            }
            if builtin == "let" {
                for n in idents(a.s) {
                    self.vars.forget(n);
                }
            } else {
                let s = a.s.strip_prefix("-v").unwrap_or(a.s);
                self.vars.forget(s.get(..name_len(s)).unwrap_or(""));
            }
        }
        for implicit in ["REPLY", "MAPFILE", "OPTARG", "OPTIND"] {
            self.vars.forget(implicit);
        }
    }
}

/// The identifiers in `s` (over-approximates the names an arithmetic expression assigns).
pub(crate) fn idents(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = s;
    std::iter::from_fn(move || loop {
        let start = rest.find(|c: char| c.is_ascii_alphabetic() || c == '_')?;
        // skip identifiers glued to a preceding digit (`1e5`)
        let glued = start > 0
            && rest
                .as_bytes()
                .get(start - 1)
                .is_some_and(u8::is_ascii_digit);
        let tail = rest.get(start..)?;
        let n = name_len(tail);
        rest = tail.get(n..)?;
        if !glued {
            return tail.get(..n);
        }
    })
}

/// Names a list may assign in the shell that runs it (over-approximated).
#[derive(Debug, Default)]
pub(crate) struct Assigned<'a> {
    pub names: Vec<&'a str>,
    /// It may assign any variable (`eval`, `source`, a function, a dynamic program).
    pub all: bool,
}

/// What the analysis knows where a loop starts: the functions defined so far (calling one
/// may assign anything) and the variables (a program named by a known variable is known).
pub(crate) struct Known<'k> {
    pub funcs: &'k [String],
    pub vars: &'k Vars,
}

/// Builtins whose arguments name variables they set.
const SETTERS: &[&str] = &[
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "read",
    "mapfile",
    "readarray",
    "unset",
    "getopts",
    "let",
    "printf",
];

/// Adds to `out` what `l` may assign. Subshells, pipelines of several commands, background
/// jobs and substitutions are skipped: their assignments do not reach this shell.
pub(crate) fn collect<'a>(l: &List<'a>, cx: &Known<'_>, out: &mut Assigned<'a>) {
    for item in l.items.iter().filter(|i| !i.background) {
        for p in std::iter::once(&item.first).chain(item.rest.iter().map(|(_, p)| p)) {
            if let (Some(c), true) = (&p.head, p.tail.is_empty()) {
                collect_kind(&c.kind, cx, out);
            }
        }
        if out.all {
            return;
        }
    }
}

fn collect_words<'a>(words: &[Word<'a>], out: &mut Assigned<'a>) {
    for w in words {
        // `${X:=v}`, `$((X=1))`: any identifier may be assigned
        if w.raw.contains("${") || w.raw.contains("((") || w.raw.contains("$[") {
            out.names.extend(idents(w.raw));
        }
    }
}

fn collect_kind<'a>(kind: &Kind<'a>, cx: &Known<'_>, out: &mut Assigned<'a>) {
    match kind {
        Kind::Simple { assigns, words } => {
            for a in assigns {
                if let Some((name, ..)) = split_assignment(a.raw) {
                    out.names.push(name);
                }
            }
            collect_words(assigns, out);
            collect_words(words, out);
            let mut k = 0;
            while let Some(w) = words.get(k) {
                let arg = Arg {
                    s: &w.cooked,
                    dyn_at: w.dyn_at,
                };
                // `$g` with `g` known names a program too
                let resolved = match program_name(&arg) {
                    Some(_) => None,
                    None => expand(w.raw, cx.vars, Mode::Args, &mut 4096)
                        .and_then(|e| e.fields.into_iter().next())
                        .filter(|f| f.dyn_at.is_none()),
                };
                let name = match &resolved {
                    Some(f) => program_name(&Arg::lit(&f.text)),
                    None => program_name(&arg),
                };
                let Some(name) = name else {
                    out.all = true;
                    return;
                };
                match name {
                    "command" | "builtin" => k += 1,
                    "eval" | "source" | "." => out.all = true,
                    _ if cx.funcs.iter().any(|f| f == name) => out.all = true,
                    _ if SETTERS.contains(&name) => {
                        let args = words.get(k + 1..).unwrap_or(&[]);
                        let every = matches!(name, "let" | "printf");
                        if name == "printf" && !args.iter().any(|a| a.raw.starts_with("-v")) {
                            return;
                        }
                        for a in args {
                            out.all |= a.dyn_at == Some(0);
                            if every {
                                out.names.extend(idents(a.raw));
                            } else if !a.raw.starts_with('-') {
                                out.names.extend(idents(a.raw).take(1));
                            }
                        }
                    }
                    _ => {}
                }
                if !matches!(name, "command" | "builtin") {
                    return;
                }
            }
        }
        Kind::Subshell(_) => {}
        Kind::Group(l) => collect(l, cx, out),
        Kind::If { arms, otherwise } => {
            for (c, b) in arms {
                collect(c, cx, out);
                collect(b, cx, out);
            }
            if let Some(e) = otherwise {
                collect(e, cx, out);
            }
        }
        Kind::Loop { cond, body } => {
            collect(cond, cx, out);
            collect(body, cx, out);
        }
        Kind::For { var, words, body } => {
            out.names.extend(var.iter().copied());
            collect_words(words, out);
            for w in words.iter().filter(|_| var.is_none()) {
                out.names.extend(idents(w.raw)); // `for ((i=0; ...))`
            }
            collect(body, cx, out);
        }
        Kind::Case { subject, arms } => {
            collect_words(std::slice::from_ref(subject), out);
            for (pats, body) in arms {
                collect_words(pats, out);
                collect(body, cx, out);
            }
        }
        Kind::Function { body, .. } => collect_kind(&body.kind, cx, out),
        Kind::Arith(w) => out.names.extend(idents(w.raw)),
        Kind::Cond(ws) => collect_words(ws, out),
    }
}

#[cfg(test)]
mod tests {
    use super::super::parser::parse;
    use super::*;

    fn assigned(src: &str, funcs: &[&str]) -> (Vec<String>, bool) {
        let p = parse(src, 0).expect("parses");
        let funcs: Vec<String> = funcs.iter().map(|s| s.to_string()).collect();
        let mut out = Assigned::default();
        let vars = Vars::default();
        let cx = Known {
            funcs: &funcs,
            vars: &vars,
        };
        collect(&p.list, &cx, &mut out);
        let mut names: Vec<String> = out.names.iter().map(|s| s.to_string()).collect();
        names.sort();
        names.dedup();
        (names, out.all)
    }

    #[test]
    fn collects_assigned_names() {
        let (n, all) = assigned(
            "a=1; b+=2 c[1]=3 cmd; export d=1; read -r e; (f=1); g=1 | h; if x; then i=1; fi",
            &[],
        );
        assert_eq!(n, ["a", "b", "c", "d", "e", "i"]);
        assert!(!all);
        let (n, _) = assigned("for x in a; do :; done; ((n++)); echo ${m:=1}", &[]);
        assert_eq!(n, ["m", "n", "x"]);
        let (n, _) = assigned("printf -v out %s x; let k=1", &[]);
        assert!(n.contains(&"out".to_string()) && n.contains(&"k".to_string()));
    }

    #[test]
    fn code_we_cannot_see_may_assign_anything() {
        for src in [
            "eval x",
            "source f",
            "$cmd",
            "command eval x",
            "f",
            "read $v",
        ] {
            assert!(assigned(src, &["f"]).1, "{src}");
        }
        assert!(!assigned("f &", &["f"]).1);
        assert!(!assigned("(eval x)", &[]).1);
    }

    #[test]
    fn identifiers() {
        let v: Vec<&str> = idents("i=i+1e5*_x; $y").collect();
        assert_eq!(v, ["i", "i", "_x", "y"]);
    }

    #[test]
    fn assignment_heads() {
        assert_eq!(split_assignment("a=1"), Some(("a", false, false, 2)));
        assert_eq!(split_assignment("a+=1"), Some(("a", true, false, 3)));
        assert_eq!(split_assignment("a[2]=1"), Some(("a", false, true, 5)));
        assert_eq!(split_assignment("1a=1"), None);
    }
}
