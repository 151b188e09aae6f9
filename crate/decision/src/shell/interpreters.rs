//! Shells and language interpreters. A shell's `-c` script, or a heredoc/here-string fed to
//! a shell, is code: it is analysed recursively (depth-limited). Interpreter one-liners
//! (`python -c`, `node -e`, ...) and programs read from a pipe or heredoc cannot be analysed
//! and are opaque; running a script file is not (like running any other program).

use super::analyze::{Analyzer, Exec, Stdin};
use super::args::{parse_opts, Arg, Spec};
use super::effects::{FileOp, OpaqueReason};

/// Programs that take `-c SCRIPT` in shell syntax.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish", "csh",
    "tcsh",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lang {
    Python,
    Node,
    Bun,
    Deno,
    Perl,
    Ruby,
    Php,
    Lua,
    Osascript,
    R,
    Awk,
}

/// `python3.12` → `python`, so versioned names match.
fn strip_version(name: &str) -> &str {
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

fn lang(name: &str) -> Option<Lang> {
    Some(match strip_version(name) {
        "python" | "pypy" => Lang::Python,
        "node" | "nodejs" => Lang::Node,
        "bun" => Lang::Bun,
        "deno" => Lang::Deno,
        "perl" => Lang::Perl,
        "ruby" => Lang::Ruby,
        "php" => Lang::Php,
        "lua" | "luajit" => Lang::Lua,
        "osascript" => Lang::Osascript,
        "Rscript" => Lang::R,
        "awk" | "gawk" | "mawk" | "nawk" => Lang::Awk,
        _ => return None,
    })
}

/// How an interpreter's command line gets its program.
struct Program<'x> {
    /// `-c`/`-e`/...: program text on the command line.
    one_liner: bool,
    /// Reads the program from stdin (no script operand, or `-`).
    from_stdin: bool,
    /// In-place editing (`perl -i`, `gawk -i inplace`) of these files.
    in_place: Vec<Arg<'x>>,
}

/// Short options (in clusters) and long options that take a value, per language.
fn spec(l: Lang) -> Spec<'static> {
    let (short_val, long_val): (&'static [u8], &'static [&'static str]) = match l {
        Lang::Python => (b"WXQ", &["check-hash-based-pycs"]),
        Lang::Node | Lang::Bun => (
            b"rC",
            &[
                "require",
                "import",
                "loader",
                "experimental-loader",
                "input-type",
                "conditions",
            ],
        ),
        Lang::Ruby => (b"rICEF", &[]),
        Lang::Php => (b"dcztfBRE", &[]),
        Lang::Lua => (b"l", &[]),
        Lang::Osascript => (b"ls", &[]),
        _ => (b"", &[]),
    };
    Spec {
        short_val,
        short_opt: b"",
        long_val,
    }
}

impl Analyzer {
    /// Handles shells and interpreters; false if `name` is neither.
    pub(crate) fn interpreter(&mut self, name: &str, args: &[Arg<'_>], ex: &mut Exec<'_>) -> bool {
        if SHELLS.contains(&name) {
            self.shell(args, ex);
            return true;
        }
        let Some(l) = lang(name) else {
            return false;
        };
        let rest = args.get(1..).unwrap_or(&[]);
        let prog = match l {
            Lang::Perl => perl(rest),
            Lang::Awk => {
                self.awk(rest, ex);
                return true;
            }
            Lang::Deno => Program {
                one_liner: rest.first().is_some_and(|a| a.is("eval")),
                from_stdin: rest.first().is_some_and(|a| a.is("run"))
                    && rest.get(1).is_some_and(|a| a.is("-")),
                in_place: Vec::new(),
            },
            _ => generic(l, rest),
        };
        for f in &prog.in_place {
            self.file(ex, FileOp::Write, *f, &format!("{name} -i"));
        }
        if prog.one_liner {
            self.opaque(ex, OpaqueReason::InterpreterOneLiner, ex.snippet);
        } else if prog.from_stdin && matches!(ex.stdin, Stdin::Pipe | Stdin::Text { .. }) {
            self.opaque(ex, OpaqueReason::ScriptFromStdin, ex.snippet);
        }
        true
    }

    /// `sh [options] [-c script | file | (stdin)]`.
    fn shell(&mut self, args: &[Arg<'_>], ex: &mut Exec<'_>) {
        let mut i = 1;
        let mut has_c = false;
        let mut stdin_flag = false;
        let mut attached = None;
        while let Some(a) = args.get(i) {
            if a.dyn_start() && has_c {
                break; // the script itself
            }
            if a.dyn_start() {
                // `bash $FLAGS`: could be `-c` with anything.
                self.opaque(ex, OpaqueReason::Eval, ex.snippet);
                return;
            }
            let s = a.s;
            if s == "--" || s == "-" {
                i += 1;
                break;
            }
            if let Some(long) = s.strip_prefix("--") {
                if let Some(cmd) = long.strip_prefix("command=") {
                    attached = Some(a.tail(s.len() - cmd.len()));
                    has_c = true;
                }
                i += if matches!(long, "rcfile" | "init-file") {
                    2
                } else {
                    1
                };
                has_c |= long == "command";
                continue;
            }
            if (s.starts_with('-') || s.starts_with('+')) && s.len() > 1 {
                let mut extra = 0;
                for c in s.bytes().skip(1) {
                    match c {
                        b'c' => has_c = true,
                        b's' => stdin_flag = true,
                        b'o' | b'O' => extra += 1,
                        _ => {}
                    }
                }
                i += 1 + extra;
                continue;
            }
            break;
        }
        if has_c {
            if let Some(script) = attached.or_else(|| args.get(i).copied()) {
                self.nested(ex, script.s, script.is_dynamic());
            }
            return;
        }
        if !stdin_flag && args.get(i).is_some_and(|a| !a.is("/dev/stdin")) {
            return; // runs a script file
        }
        match ex.stdin {
            Stdin::Text { text, dynamic } => self.nested(ex, text, dynamic),
            Stdin::Pipe => self.opaque(ex, OpaqueReason::ScriptFromStdin, ex.snippet),
            Stdin::Terminal | Stdin::File => {}
        }
    }

    /// awk: the program is the first operand (or `-f file`). Programs that can run commands
    /// (`system`, pipes) or write files (`>`) are treated as one-liners; `gawk -i inplace`
    /// writes its file operands.
    fn awk(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let spec = Spec {
            short_val: b"fvFie",
            short_opt: b"",
            long_val: &["file", "assign", "field-separator", "include", "source"],
        };
        let o = parse_opts(rest, &spec);
        let in_place = o
            .values(b"i", &["include"])
            .any(|v| v.s == "inplace" || v.s == "inplace.awk");
        let mut operands = o.operands.iter();
        let mut texts: Vec<Arg<'_>> = o.values(b"e", &["source"]).collect();
        if !o.has(b"fe", &["file", "source"]) {
            texts.extend(operands.next().copied());
        }
        if in_place {
            for f in operands.filter(|a| !super::parser::is_assignment(a.s)) {
                self.file(ex, FileOp::Write, *f, "awk -i inplace");
            }
        }
        if texts
            .iter()
            .any(|t| t.is_dynamic() || t.s.contains("system") || t.s.contains(['|', '>']))
        {
            self.opaque(ex, OpaqueReason::InterpreterOneLiner, ex.snippet);
        }
    }
}

/// Option scan shared by python, node, bun, ruby, php, lua, osascript, Rscript.
fn generic<'x>(l: Lang, rest: &[Arg<'x>]) -> Program<'x> {
    let sp = spec(l);
    let code_short: &[u8] = match l {
        Lang::Python => b"c",
        Lang::Node | Lang::Bun => b"ep",
        Lang::Php => b"rBRE",
        Lang::Ruby | Lang::Lua | Lang::Osascript | Lang::R => b"e",
        _ => b"",
    };
    let code_long: &[&str] = match l {
        Lang::Node | Lang::Bun => &["eval", "print"],
        _ => &[],
    };
    let mut prog = Program {
        one_liner: false,
        from_stdin: false,
        in_place: Vec::new(),
    };
    let mut i = 0;
    while let Some(a) = rest.get(i) {
        i += 1;
        let s = a.s;
        if a.dyn_start() {
            prog.one_liner = true; // `python $FLAGS` could be `-c ...`
            return prog;
        }
        if s == "-" {
            prog.from_stdin = true;
            return prog;
        }
        if s == "--" {
            prog.from_stdin = rest.get(i).is_none();
            return prog;
        }
        if let Some(long) = s.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or("");
            if code_long.contains(&name) {
                prog.one_liner = true;
                return prog;
            }
            if sp.long_val.contains(&name) && !long.contains('=') {
                i += 1;
            }
            continue;
        }
        if s.len() > 1 && s.starts_with('-') {
            for (k, c) in s.bytes().enumerate().skip(1) {
                if code_short.contains(&c) {
                    prog.one_liner = true;
                    return prog;
                }
                if l == Lang::Python && c == b'm' {
                    return prog; // `python -m module`
                }
                if sp.short_val.contains(&c) {
                    if k + 1 == s.len() {
                        i += 1;
                    }
                    break;
                }
            }
            continue;
        }
        prog.from_stdin = a.is("/dev/stdin");
        return prog; // script file
    }
    prog.from_stdin = true;
    prog
}

/// perl's clustered switches: `-e`/`-E` code, `-i[ext]` in place, `-I`/`-M` values.
fn perl<'x>(rest: &[Arg<'x>]) -> Program<'x> {
    let mut prog = Program {
        one_liner: false,
        from_stdin: false,
        in_place: Vec::new(),
    };
    let mut in_place = false;
    let mut i = 0;
    let mut script_seen = false;
    let mut files = Vec::new();
    while let Some(a) = rest.get(i) {
        i += 1;
        let s = a.s;
        if a.dyn_start() {
            prog.one_liner = true;
            continue;
        }
        if s == "--" {
            files.extend(rest.get(i..).unwrap_or(&[]).iter().copied());
            break;
        }
        if s.len() > 1 && s.starts_with('-') {
            for (k, c) in s.bytes().enumerate().skip(1) {
                match c {
                    b'e' | b'E' => {
                        prog.one_liner = true;
                        if k + 1 == s.len() {
                            i += 1; // the code
                        }
                        break;
                    }
                    b'i' => {
                        in_place = true;
                        break;
                    }
                    b'I' | b'M' | b'm' | b'x' | b'd' | b'D' | b'C' | b'F' => {
                        if k + 1 == s.len() && matches!(c, b'I' | b'M' | b'm') {
                            i += 1;
                        }
                        break;
                    }
                    _ => {}
                }
            }
            continue;
        }
        if !prog.one_liner && !script_seen {
            script_seen = true;
            continue;
        }
        files.push(*a);
    }
    if in_place {
        prog.in_place = files;
    }
    prog.from_stdin = !prog.one_liner && !script_seen;
    prog
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits<'a>(v: &[&'a str]) -> Vec<Arg<'a>> {
        v.iter().map(|s| Arg::lit(s)).collect()
    }

    #[test]
    fn versions() {
        assert!(lang("python3.12") == Some(Lang::Python));
        assert!(lang("perl5.36") == Some(Lang::Perl));
        assert!(lang("pythonista").is_none());
    }

    #[test]
    fn generic_scan() {
        assert!(generic(Lang::Python, &lits(&["-u", "-c", "x"])).one_liner);
        assert!(generic(Lang::Python, &lits(&["-Bc", "x"])).one_liner);
        assert!(!generic(Lang::Python, &lits(&["script.py", "-c"])).one_liner);
        assert!(!generic(Lang::Python, &lits(&["-m", "pip", "-c"])).one_liner);
        assert!(generic(Lang::Python, &lits(&[])).from_stdin);
        assert!(generic(Lang::Python, &lits(&["-"])).from_stdin);
        assert!(generic(Lang::Node, &lits(&["-pe", "1"])).one_liner);
        assert!(generic(Lang::Node, &lits(&["--eval=1"])).one_liner);
        assert!(!generic(Lang::Node, &lits(&["--version"])).one_liner);
        assert!(!generic(Lang::Node, &lits(&["-r", "e", "app.js"])).one_liner);
        assert!(generic(Lang::Php, &lits(&["-r", "x"])).one_liner);
        assert!(!generic(Lang::Php, &lits(&["-f", "x.php"])).one_liner);
    }

    #[test]
    fn perl_scan() {
        let p = perl(&lits(&["-i.bak", "-pe", "s/a/b/", "f1", "f2"]));
        assert!(p.one_liner);
        assert_eq!(
            p.in_place.iter().map(|a| a.s).collect::<Vec<_>>(),
            ["f1", "f2"]
        );
        let p = perl(&lits(&["-i.pre", "script.pl", "f"]));
        assert!(!p.one_liner);
        assert_eq!(p.in_place.len(), 1);
        assert!(!perl(&lits(&["-MFile::Temp", "x.pl"])).one_liner);
        assert!(perl(&lits(&[])).from_stdin);
        assert!(perl(&lits(&["-lne", "print"])).one_liner);
        assert!(perl(&lits(&["-0777", "-ne", "print"])).one_liner);
    }
}
