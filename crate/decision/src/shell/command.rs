//! One program invocation: unwrap wrappers (`wrappers.rs`), then dispatch on the program's
//! name to git/gh, shells and interpreters, file commands, or the shell builtins that matter
//! (`cd`, `eval`, `source`, `alias`, `trap`, and those that set variables).
//!
//! `eval` whose arguments are known is code written out in the command: its text is
//! analysed in this shell (same directory, same variables), as deep as `sh -c` may nest.

use super::analyze::{Analyzer, Dir, Exec};
use super::args::{program_name, Arg};
use super::effects::OpaqueReason;
use super::wrappers::Wrap;

/// Environment variables whose value is a command that programs (git, editors, pagers)
/// run through the shell.
const EXEC_VARS: &[&str] = &[
    "GIT_SSH_COMMAND",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND",
    "PAGER",
    "EDITOR",
    "VISUAL",
];

/// Environment variables that make programs load code or git settings we cannot see.
const OPAQUE_VARS: &[&str] = &["GIT_EXEC_PATH", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES"];

/// Which part of the analyser handles a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Wrapper,
    Builtin,
    Git,
    Gh,
    Interpreter,
    Files,
}

/// Every program the analyser knows, sorted by name, so each command costs one binary
/// search; anything else (`ls`, `make`, `cargo`...) has no effect of its own.
const PROGRAMS: &[(&str, Stage)] = &[
    (".", Stage::Builtin),
    ("Rscript", Stage::Interpreter),
    ("alias", Stage::Builtin),
    ("ash", Stage::Interpreter),
    ("awk", Stage::Interpreter),
    ("bash", Stage::Interpreter),
    ("bsdtar", Stage::Files),
    ("builtin", Stage::Wrapper),
    ("bun", Stage::Interpreter),
    ("bunzip2", Stage::Files),
    ("busybox", Stage::Wrapper),
    ("bzip2", Stage::Files),
    ("cd", Stage::Builtin),
    ("chgrp", Stage::Files),
    ("chmod", Stage::Files),
    ("chown", Stage::Files),
    ("chroot", Stage::Wrapper),
    ("command", Stage::Wrapper),
    ("coproc", Stage::Wrapper),
    ("cp", Stage::Files),
    ("csh", Stage::Interpreter),
    ("curl", Stage::Files),
    ("dash", Stage::Interpreter),
    ("dd", Stage::Files),
    ("declare", Stage::Builtin),
    ("deno", Stage::Interpreter),
    ("doas", Stage::Wrapper),
    ("dos2unix", Stage::Files),
    ("env", Stage::Wrapper),
    ("eval", Stage::Builtin),
    ("exec", Stage::Wrapper),
    ("export", Stage::Builtin),
    ("find", Stage::Wrapper),
    ("fish", Stage::Interpreter),
    ("flock", Stage::Wrapper),
    ("gawk", Stage::Interpreter),
    ("getopts", Stage::Builtin),
    ("gh", Stage::Gh),
    ("git", Stage::Git),
    ("gtar", Stage::Files),
    ("gunzip", Stage::Files),
    ("gzip", Stage::Files),
    ("install", Stage::Files),
    ("ionice", Stage::Wrapper),
    ("ksh", Stage::Interpreter),
    ("let", Stage::Builtin),
    ("ln", Stage::Files),
    ("local", Stage::Builtin),
    ("ltrace", Stage::Wrapper),
    ("lua", Stage::Interpreter),
    ("luajit", Stage::Interpreter),
    ("mapfile", Stage::Builtin),
    ("mawk", Stage::Interpreter),
    ("mkdir", Stage::Files),
    ("mksh", Stage::Interpreter),
    ("mv", Stage::Files),
    ("nawk", Stage::Interpreter),
    ("nice", Stage::Wrapper),
    ("node", Stage::Interpreter),
    ("nodejs", Stage::Interpreter),
    ("nohup", Stage::Wrapper),
    ("osascript", Stage::Interpreter),
    ("parallel", Stage::Wrapper),
    ("patch", Stage::Files),
    ("perl", Stage::Interpreter),
    ("php", Stage::Interpreter),
    ("popd", Stage::Builtin),
    ("posh", Stage::Interpreter),
    ("printf", Stage::Builtin),
    ("pushd", Stage::Builtin),
    ("pypy", Stage::Interpreter),
    ("pypy3", Stage::Interpreter),
    ("python", Stage::Interpreter),
    ("python2", Stage::Interpreter),
    ("python3", Stage::Interpreter),
    ("rbash", Stage::Interpreter),
    ("read", Stage::Builtin),
    ("readarray", Stage::Builtin),
    ("readonly", Stage::Builtin),
    ("rm", Stage::Files),
    ("rmdir", Stage::Files),
    ("rsync", Stage::Files),
    ("ruby", Stage::Interpreter),
    ("runuser", Stage::Wrapper),
    ("scp", Stage::Files),
    ("sed", Stage::Files),
    ("setsid", Stage::Wrapper),
    ("sh", Stage::Interpreter),
    ("shred", Stage::Files),
    ("sort", Stage::Files),
    ("source", Stage::Builtin),
    ("stdbuf", Stage::Wrapper),
    ("strace", Stage::Wrapper),
    ("su", Stage::Wrapper),
    ("sudo", Stage::Wrapper),
    ("sudoedit", Stage::Wrapper),
    ("tar", Stage::Files),
    ("tcsh", Stage::Interpreter),
    ("tee", Stage::Files),
    ("time", Stage::Wrapper),
    ("timeout", Stage::Wrapper),
    ("touch", Stage::Files),
    ("trap", Stage::Builtin),
    ("truncate", Stage::Files),
    ("typeset", Stage::Builtin),
    ("unbuffer", Stage::Wrapper),
    ("unix2dos", Stage::Files),
    ("unlink", Stage::Files),
    ("unset", Stage::Builtin),
    ("unxz", Stage::Files),
    ("unzip", Stage::Files),
    ("unzstd", Stage::Files),
    ("watch", Stage::Wrapper),
    ("wget", Stage::Files),
    ("xargs", Stage::Wrapper),
    ("xz", Stage::Files),
    ("yash", Stage::Interpreter),
    ("zip", Stage::Files),
    ("zsh", Stage::Interpreter),
    ("zstd", Stage::Files),
];

/// A name of at most 16 bytes as a big-endian, zero-padded integer: integer order equals
/// byte-wise order of the names, so lookups compare integers instead of calling `memcmp`.
const fn pack(name: &str) -> Option<u128> {
    if name.len() > 16 {
        return None;
    }
    let mut rest = name.as_bytes();
    let mut key = 0u128;
    while let [c, tail @ ..] = rest {
        key = (key << 8) | *c as u128;
        rest = tail;
    }
    // (a shift by 128 for the empty name would overflow: checked_shl gives None → 0)
    match key.checked_shl(8 * (16 - name.len() as u32)) {
        Some(k) => Some(k),
        None => Some(0),
    }
}

/// `PROGRAMS` names packed at compile time (sorted because `PROGRAMS` is). The indexing is
/// evaluated by the compiler: out of bounds would fail the build, it cannot panic at run time.
#[allow(clippy::indexing_slicing)]
const KEYS: [u128; PROGRAMS.len()] = {
    let mut keys = [0u128; PROGRAMS.len()];
    let mut i = 0;
    while i < PROGRAMS.len() {
        keys[i] = match pack(PROGRAMS[i].0) {
            Some(k) => k,
            None => u128::MAX,
        };
        i += 1;
    }
    keys
};

fn stage_of(name: &str) -> Option<Stage> {
    let find = |n: &str| {
        let i = KEYS.binary_search(&pack(n)?).ok()?;
        PROGRAMS.get(i).map(|(_, s)| *s)
    };
    find(name).or_else(|| {
        // versioned interpreters: python3.12, perl5.36, lua5.4
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        (base.len() < name.len())
            .then(|| find(base))
            .flatten()
            .filter(|s| *s == Stage::Interpreter)
    })
}

/// Most wrapper hops followed for one command (`xargs xargs ...`); bounds recursion.
pub(crate) const MAX_HOPS: usize = 64;

impl Analyzer {
    /// Analyses `args` (program first) run in `ex`; `shell` is the directory of the shell
    /// running it, changed by a `cd` that runs in that shell.
    pub(crate) fn run(&mut self, args: &[Arg<'_>], ex: &mut Exec<'_>, shell: &mut Dir) {
        let mut args = args;
        loop {
            ex.hops += 1;
            if ex.hops > MAX_HOPS {
                self.opaque(ex, OpaqueReason::DepthLimit, "too many nested wrappers");
                return;
            }
            let Some(prog) = args.first() else {
                return;
            };
            let Some(name) = program_name(prog) else {
                self.opaque(ex, OpaqueReason::DynamicProgram, prog.s);
                if ex.direct {
                    // `$cmd` could be `cd` or `eval`.
                    *shell = Dir::Unknown;
                }
                return;
            };
            if ex.direct && self.funcs.iter().any(|f| f == name) {
                // a function of this command (even one named like a builtin) may assign
                // any variable
                self.vars.forget_all();
            }
            match stage_of(name) {
                Some(Stage::Wrapper) => match self.wrapper(name, args, ex) {
                    Wrap::Next(k) if k > 0 => {
                        args = args.get(k..).unwrap_or(&[]);
                        continue;
                    }
                    Wrap::Next(_) | Wrap::Done | Wrap::NotWrapper => {}
                },
                Some(Stage::Builtin) => self.builtin(name, args, ex, shell),
                Some(Stage::Git) => self.git(args, ex),
                Some(Stage::Gh) => self.gh(args, ex),
                Some(Stage::Interpreter) => {
                    self.interpreter(name, args, ex);
                }
                Some(Stage::Files) => {
                    self.files(name, args, ex);
                }
                None => {
                    // calling a function that changes directory
                    if ex.direct && self.cd_funcs.iter().any(|f| f == name) {
                        *shell = Dir::Unknown;
                    }
                }
            }
            return;
        }
    }

    /// Shell builtins that matter: directory changes, eval/source, code stored for later.
    fn builtin(&mut self, name: &str, args: &[Arg<'_>], ex: &mut Exec<'_>, shell: &mut Dir) {
        let rest = args.get(1..).unwrap_or(&[]);
        match name {
            "cd" | "pushd" | "popd" => {
                if ex.direct {
                    *shell = match change_dir(name, rest) {
                        CdTo::Stay => *shell,
                        CdTo::Unknown => Dir::Unknown,
                        CdTo::Join(a) => self.join(*shell, &a),
                    };
                }
            }
            "eval" => {
                if !rest.is_empty() {
                    self.eval(rest, ex, shell);
                }
            }
            "source" | "." => {
                if !rest.is_empty() {
                    self.opaque(ex, OpaqueReason::Source, ex.snippet);
                    if ex.direct {
                        *shell = Dir::Unknown;
                        self.vars.forget_all();
                    }
                }
            }
            "alias" => {
                // Alias values are code that later commands may run, assignments included
                // (with `expand_aliases`), which the parser does not expand.
                if rest.iter().any(|a| a.s.contains('=')) {
                    self.vars.poison();
                }
                for a in rest {
                    if let Some(k) = a.s.find('=') {
                        let value = a.tail(k + 1);
                        self.nested(ex, value.s, value.is_dynamic());
                    }
                }
            }
            "trap" => {
                // A trap's code may run between any two commands (DEBUG) and assign.
                if rest.len() > 1 && !rest.iter().any(|a| a.is("-p") || a.is("-l")) {
                    self.vars.poison();
                }
                self.trap(rest, ex);
            }
            "read" | "readarray" | "mapfile" | "getopts" | "unset" | "let" | "printf" => {
                self.forget_named(name, rest, ex);
            }
            _ => {
                // export / declare / typeset / local / readonly
                for a in rest {
                    self.assignment(*a, &mut ex.clone());
                }
                self.declare(name, rest, ex);
            }
        }
    }

    /// `eval ARGS`: the arguments joined by spaces are a script run in this shell. When they
    /// are all known it is analysed like any code of the command; otherwise what is known
    /// of it is analysed too, but the step is opaque and the shell's state unknown after it.
    fn eval(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>, shell: &mut Dir) {
        let mut text = String::new();
        for (n, a) in rest.iter().enumerate() {
            if n > 0 {
                text.push(' ');
            }
            text.push_str(a.s);
        }
        let dynamic = rest.iter().any(Arg::is_dynamic);
        let forget = |this: &mut Self, shell: &mut Dir| {
            if ex.direct {
                *shell = Dir::Unknown;
                this.vars.forget_all();
            }
        };
        let limit = if ex.depth >= super::MAX_DEPTH {
            Some((OpaqueReason::DepthLimit, "eval nested too deep"))
        } else if !self.spend(1, &text) {
            Some((OpaqueReason::TooLarge, "too much indirection to follow"))
        } else {
            None
        };
        if let Some((reason, detail)) = limit {
            self.opaque(ex, reason, detail);
            forget(self, shell);
            return;
        }
        let outer = self.enter_indirection(ex, true);
        self.level += 1;
        if dynamic || !ex.direct {
            let vars = self.vars.clone();
            let mut cwd = if ex.direct { *shell } else { ex.cwd };
            self.script(&text, &mut cwd, ex.depth + 1);
            self.vars = vars;
        } else {
            self.script(&text, shell, ex.depth + 1);
        }
        self.level -= 1;
        self.leave_indirection(outer);
        if dynamic {
            self.opaque(ex, OpaqueReason::Eval, ex.snippet);
            forget(self, shell);
        }
    }

    /// An environment assignment (`NAME=value` before a command, in `env` or `export`).
    /// Variables whose value programs run as commands (`GIT_PAGER`, `EDITOR`...) are
    /// analysed as scripts; ones that inject code or git configuration are opaque.
    pub(crate) fn assignment(&mut self, a: Arg<'_>, ex: &mut Exec<'_>) {
        let Some(len) = super::parser::assignment_name_len(a.s) else {
            return;
        };
        if a.dyn_at.is_some_and(|d| d < len) {
            return; // `a[$i]=...`: an array element, not an environment variable
        }
        let name = a.s.get(..len).unwrap_or("").trim_end_matches(['=', '+']);
        let value = a.tail(len);
        if name == "GIT_DIR" || name == "GIT_WORK_TREE" {
            let dir = super::git::repo_dir(value);
            ex.git_repo = Some(self.join(ex.cwd, &dir));
        } else if EXEC_VARS.contains(&name) {
            self.nested(ex, value.s, value.is_dynamic());
        } else if name == "BASH_ENV" || name == "ENV" {
            self.opaque(ex, OpaqueReason::Source, a.s);
        } else if name.starts_with("GIT_CONFIG") || OPAQUE_VARS.contains(&name) {
            self.opaque(ex, OpaqueReason::Eval, a.s);
        }
    }

    /// `trap ACTION SIGNAL...`: the action is code run later.
    fn trap(&mut self, rest: &[Arg<'_>], ex: &mut Exec<'_>) {
        let mut i = 0;
        while let Some(a) = rest.get(i) {
            if a.is("--") {
                i += 1;
                break;
            }
            if a.s.starts_with('-') && a.s.len() > 1 && !a.is_dynamic() {
                if a.is("-l") || a.is("-p") {
                    return;
                }
                i += 1;
                continue;
            }
            break;
        }
        if let Some(action) = rest.get(i) {
            if rest.len() > i + 1 && !action.is("-") && !action.s.is_empty() {
                self.nested(ex, action.s, action.is_dynamic());
            }
        }
    }
}

/// Where `cd`/`pushd`/`popd` with `rest` as arguments goes.
#[derive(Debug, PartialEq, Eq)]
enum CdTo<'x> {
    Stay,
    Unknown,
    Join(Arg<'x>),
}

fn change_dir<'x>(name: &str, rest: &[Arg<'x>]) -> CdTo<'x> {
    let mut no_change = false;
    let mut operand = None;
    let mut dd = false;
    for a in rest {
        if !dd && a.is("--") {
            dd = true;
            continue;
        }
        let option = !dd && a.s.len() > 1 && a.s.starts_with('-') && !a.is_dynamic();
        if option && name != "cd" {
            // pushd/popd: `-n` keeps the directory; `-N` rotates the stack.
            if a.is("-n") {
                no_change = true;
            } else if a.s.bytes().skip(1).all(|c| c.is_ascii_digit()) {
                return CdTo::Unknown;
            }
            continue;
        }
        if option {
            continue;
        }
        if operand.is_none() {
            operand = Some(*a);
        }
    }
    if no_change {
        return CdTo::Stay;
    }
    match (name, operand) {
        ("popd", _) | (_, None) => CdTo::Unknown,
        (_, Some(a)) if a.is("-") || (name == "pushd" && a.s.starts_with('+')) => CdTo::Unknown,
        (_, Some(a)) => CdTo::Join(a),
    }
}

#[cfg(test)]
mod tests {
    use super::super::analyze::Stdin;
    use super::*;

    #[test]
    fn program_table_is_sorted_and_consistent() {
        assert!(PROGRAMS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(KEYS.windows(2).all(|w| w[0] < w[1]));
        assert!(PROGRAMS.iter().all(|(n, _)| n.len() <= 16));
        let mut a = Analyzer::new();
        for (name, stage) in PROGRAMS {
            let args = [Arg::lit(name)];
            let mut ex = Exec {
                snippet: "",
                cwd: Dir::Start,
                direct: true,
                stdin: Stdin::Terminal,
                depth: 0,
                hops: 0,
                git_repo: None,
                env: &[],
            };
            let handled = match stage {
                Stage::Wrapper => !matches!(a.wrapper(name, &args, &mut ex), Wrap::NotWrapper),
                Stage::Interpreter => a.interpreter(name, &args, &mut ex),
                Stage::Files => a.files(name, &args, &ex),
                Stage::Builtin | Stage::Git | Stage::Gh => true,
            };
            assert!(handled, "{name} is not handled by {stage:?}");
        }
        assert_eq!(stage_of("python3.12"), Some(Stage::Interpreter));
        assert_eq!(stage_of("sort2"), None);
        assert_eq!(stage_of("ls"), None);
        assert_eq!(stage_of(""), None);
        assert_eq!(stage_of(&"x".repeat(40)), None);
    }

    fn cd<'x>(name: &str, args: &[&'x str]) -> CdTo<'x> {
        let a: Vec<Arg<'x>> = args.iter().map(|s| Arg::lit(s)).collect();
        change_dir(name, &a)
    }

    #[test]
    fn directory_changes() {
        let j = |s| CdTo::Join(Arg::lit(s));
        assert_eq!(cd("cd", &["sub"]), j("sub"));
        assert_eq!(cd("cd", &["-P", "--", "sub"]), j("sub"));
        assert_eq!(cd("cd", &[]), CdTo::Unknown);
        assert_eq!(cd("cd", &["-"]), CdTo::Unknown);
        assert_eq!(cd("pushd", &["x"]), j("x"));
        assert_eq!(cd("pushd", &["-n", "x"]), CdTo::Stay);
        assert_eq!(cd("pushd", &["+1"]), CdTo::Unknown);
        assert_eq!(cd("popd", &[]), CdTo::Unknown);
        assert_eq!(cd("popd", &["-n"]), CdTo::Stay);
    }
}
