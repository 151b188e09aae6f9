//! Programs that run another program: `env`, `sudo`, `timeout`, `nice`, `xargs`,
//! `find -exec`, `watch`, ... Each returns where the wrapped command starts (or analyses it
//! itself when the argument list has to be rebuilt), so wrapped commands are classified
//! exactly like direct ones.

use super::analyze::{Analyzer, Dir, Exec, Stdin};
use super::args::{leading_opts, parse_opts, Arg, Spec};
use super::effects::{FileOp, OpaqueReason};

/// What a wrapper leaves to analyse.
pub(crate) enum Wrap {
    /// The wrapped command starts at this index of the argument list.
    Next(usize),
    /// Nothing (more) runs, or the wrapper analysed it already.
    Done,
    /// Not a wrapper.
    NotWrapper,
}

/// `n` arguments after the wrapper's options, or `Done` if there is no command.
fn next_if(args: &[Arg<'_>], k: usize) -> Wrap {
    if k < args.len() {
        Wrap::Next(k)
    } else {
        Wrap::Done
    }
}

const TIMEOUT: Spec<'static> = Spec {
    short_val: b"sk",
    short_opt: b"",
    long_val: &["signal", "kill-after"],
};
const NICE: Spec<'static> = Spec {
    short_val: b"n",
    short_opt: b"",
    long_val: &["adjustment"],
};
const IONICE: Spec<'static> = Spec {
    short_val: b"cnpPu",
    short_opt: b"",
    long_val: &["class", "classdata", "pid", "pgid", "uid"],
};
const STDBUF: Spec<'static> = Spec {
    short_val: b"ioe",
    short_opt: b"",
    long_val: &["input", "output", "error"],
};
const TIME: Spec<'static> = Spec {
    short_val: b"fo",
    short_opt: b"",
    long_val: &["format", "output"],
};
const EXEC: Spec<'static> = Spec {
    short_val: b"a",
    short_opt: b"",
    long_val: &[],
};
const CHROOT: Spec<'static> = Spec {
    short_val: b"",
    short_opt: b"",
    long_val: &["userspec", "groups"],
};
const SUDO: Spec<'static> = Spec {
    short_val: b"ugpChrtTUDR",
    short_opt: b"",
    long_val: &[
        "user",
        "group",
        "prompt",
        "close-from",
        "host",
        "role",
        "type",
        "command-timeout",
        "other-user",
        "chdir",
        "chroot",
    ],
};
const DOAS: Spec<'static> = Spec {
    short_val: b"uC",
    short_opt: b"",
    long_val: &[],
};
const ENV: Spec<'static> = Spec {
    short_val: b"uCSP",
    short_opt: b"",
    long_val: &["unset", "chdir", "split-string"],
};
const SU: Spec<'static> = Spec {
    short_val: b"csgGw",
    short_opt: b"",
    long_val: &[
        "command",
        "shell",
        "group",
        "supp-group",
        "whitelist-environment",
    ],
};
const FLOCK: Spec<'static> = Spec {
    short_val: b"wEc",
    short_opt: b"",
    long_val: &["timeout", "wait", "conflict-exit-code", "command"],
};
const XARGS: Spec<'static> = Spec {
    short_val: b"InLsPdaE",
    short_opt: b"iel",
    long_val: &[
        "max-args",
        "max-procs",
        "delimiter",
        "arg-file",
        "max-chars",
        "process-slot-var",
    ],
};
const WATCH: Spec<'static> = Spec {
    short_val: b"nq",
    short_opt: b"",
    long_val: &["interval", "equexit"],
};
const STRACE: Spec<'static> = Spec {
    short_val: b"oepsuEPIabSX",
    short_opt: b"",
    long_val: &[
        "output",
        "expr",
        "attach",
        "string-limit",
        "user",
        "env",
        "path",
    ],
};
const PARALLEL: Spec<'static> = Spec {
    short_val: b"jPSNnLlIdaCE",
    short_opt: b"",
    long_val: &[
        "jobs",
        "sshlogin",
        "max-args",
        "max-lines",
        "delimiter",
        "arg-file",
        "colsep",
        "joblog",
        "results",
        "timeout",
        "delay",
        "tmpdir",
        "workdir",
        "wd",
        "tagstring",
        "retries",
        "memfree",
        "load",
        "sshloginfile",
        "basefile",
        "env",
    ],
};

/// find tests/actions whose next argument is a value, not an expression word.
const FIND_VALUE: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-lname",
    "-ilname",
    "-type",
    "-xtype",
    "-size",
    "-perm",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-newer",
    "-anewer",
    "-cnewer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-maxdepth",
    "-mindepth",
    "-links",
    "-inum",
    "-samefile",
    "-fstype",
    "-context",
    "-printf",
    "-print0f",
    "-used",
    "-regextype",
    "-files0-from",
];

impl Analyzer {
    /// If `name` wraps another command, says where it starts (args[0] is the wrapper).
    pub(crate) fn wrapper(&mut self, name: &str, args: &[Arg<'_>], ex: &mut Exec<'_>) -> Wrap {
        let rest = args.get(1..).unwrap_or(&[]);
        match name {
            // Builtins that run the command in this shell (so `builtin cd` still counts).
            "builtin" => next_if(args, 1),
            "command" => {
                let (o, k) = leading_opts(rest, &Spec::FLAGS);
                if o.has(b"vV", &[]) {
                    return Wrap::Done; // lookup only
                }
                next_if(args, k + 1)
            }
            "exec" => {
                ex.direct = false;
                let (_, k) = leading_opts(rest, &EXEC);
                next_if(args, k + 1)
            }
            "nohup" | "setsid" | "unbuffer" | "coproc" | "busybox" => {
                ex.direct = false;
                let (_, k) = leading_opts(rest, &Spec::FLAGS);
                next_if(args, k + 1)
            }
            "nice" | "ionice" | "stdbuf" | "strace" | "ltrace" => {
                ex.direct = false;
                let spec = match name {
                    "nice" => &NICE,
                    "ionice" => &IONICE,
                    "stdbuf" => &STDBUF,
                    _ => &STRACE,
                };
                let (o, k) = leading_opts(rest, spec);
                if name == "ionice" && o.has(b"pPu", &["pid", "pgid", "uid"]) {
                    return Wrap::Done;
                }
                if name.ends_with("trace") {
                    for f in o.values(b"o", &["output"]) {
                        self.file(ex, FileOp::Write, f, name);
                    }
                }
                next_if(args, k + 1)
            }
            "time" => {
                ex.direct = false;
                let (o, k) = leading_opts(rest, &TIME);
                for f in o.values(b"o", &["output"]) {
                    self.file(ex, FileOp::Write, f, "time -o");
                }
                next_if(args, k + 1)
            }
            "timeout" => {
                ex.direct = false;
                let (_, k) = leading_opts(rest, &TIMEOUT);
                next_if(args, k + 2) // skip the duration
            }
            "chroot" => {
                ex.direct = false;
                let (_, k) = leading_opts(rest, &CHROOT);
                ex.cwd = Dir::Unknown; // paths are inside another root
                next_if(args, k + 2)
            }
            "env" => self.env(rest, ex),
            "sudo" | "doas" => self.sudo(name, rest, ex),
            "sudoedit" => {
                for f in parse_opts(rest, &SUDO).operands {
                    self.file(ex, FileOp::Write, f, "sudoedit");
                }
                Wrap::Done
            }
            "su" | "runuser" => {
                let o = parse_opts(rest, &SU);
                if let Some(cmd) = o.value(b"c", &["command"]) {
                    self.nested(ex, cmd.s, cmd.is_dynamic());
                }
                Wrap::Done
            }
            "flock" => {
                ex.direct = false;
                let (o, k) = leading_opts(rest, &FLOCK);
                if let Some(cmd) = o.value(b"c", &["command"]) {
                    self.nested(ex, cmd.s, cmd.is_dynamic());
                    return Wrap::Done;
                }
                // `flock FILE -c CMD`, `flock FILE cmd...` (a bare fd number runs nothing)
                let after_file = rest.get(k + 1..).unwrap_or(&[]);
                if let [c, script, ..] = after_file {
                    if c.is("-c") || c.is("--command") {
                        self.nested(ex, script.s, script.is_dynamic());
                        return Wrap::Done;
                    }
                }
                next_if(args, k + 2)
            }
            "xargs" => {
                self.xargs(rest, ex);
                Wrap::Done
            }
            "find" => {
                self.find(rest, ex);
                Wrap::Done
            }
            "watch" => {
                let (o, k) = leading_opts(rest, &WATCH);
                let cmd = rest.get(k..).unwrap_or(&[]);
                if o.has(b"x", &["exec"]) {
                    self.sub_run(cmd, ex);
                } else if !cmd.is_empty() {
                    // watch joins its arguments and runs them with `sh -c`.
                    let script = join_words(cmd);
                    self.nested(ex, &script, cmd.iter().any(Arg::is_dynamic));
                }
                Wrap::Done
            }
            "parallel" => {
                self.parallel(rest, ex);
                Wrap::Done
            }
            _ => Wrap::NotWrapper,
        }
    }

    /// Runs a rebuilt argument list as a separate process.
    fn sub_run(&mut self, args: &[Arg<'_>], ex: &Exec<'_>) {
        let mut sub = ex.clone();
        sub.direct = false;
        sub.stdin = Stdin::Terminal;
        let mut scratch = sub.cwd;
        self.run(args, &mut sub, &mut scratch);
    }

    fn env(&mut self, rest: &[Arg<'_>], ex: &mut Exec<'_>) -> Wrap {
        ex.direct = false;
        let (o, mut k) = leading_opts(rest, &ENV);
        for d in o.values(b"C", &["chdir"]) {
            ex.cwd = self.join(ex.cwd, &d);
        }
        // NAME=value words before the command
        while let Some(a) = rest
            .get(k)
            .filter(|a| !a.dyn_start() && super::parser::is_assignment(a.s))
        {
            self.assignment(*a, ex);
            k += 1;
        }
        if let Some(s) = o.value(b"S", &["split-string"]) {
            // -S splits a string into the command line (plus any remaining arguments).
            let mut script = s.s.to_string();
            for a in rest.get(k..).unwrap_or(&[]) {
                script.push(' ');
                script.push_str(a.s);
            }
            self.nested(ex, &script, s.is_dynamic());
            return Wrap::Done;
        }
        next_if(rest, k).shift()
    }

    fn sudo(&mut self, name: &str, rest: &[Arg<'_>], ex: &mut Exec<'_>) -> Wrap {
        ex.direct = false;
        let spec = if name == "sudo" { &SUDO } else { &DOAS };
        let (o, mut k) = leading_opts(rest, spec);
        if name == "sudo" {
            for d in o.values(b"D", &["chdir"]) {
                ex.cwd = self.join(ex.cwd, &d);
            }
            if o.value(b"R", &["chroot"]).is_some() {
                ex.cwd = Dir::Unknown;
            }
            if o.has(b"e", &["edit"]) {
                for f in rest.get(k..).unwrap_or(&[]) {
                    self.file(ex, FileOp::Write, *f, "sudoedit");
                }
                return Wrap::Done;
            }
            if o.has(
                b"lvkK",
                &["list", "validate", "reset-timestamp", "remove-timestamp"],
            ) && k >= rest.len()
            {
                return Wrap::Done;
            }
        }
        while let Some(a) = rest
            .get(k)
            .filter(|a| !a.dyn_start() && super::parser::is_assignment(a.s))
        {
            self.assignment(*a, ex);
            k += 1;
        }
        next_if(rest, k).shift()
    }

    fn xargs(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let (o, k) = leading_opts(rest, &XARGS);
        let cmd = rest.get(k..).unwrap_or(&[]);
        if cmd.is_empty() {
            return; // echo
        }
        let replace = o.opts.iter().rev().find_map(|(n, v)| match (n, v) {
            (super::args::OptName::Short(b'I'), Some(v)) => Some(v.s),
            (super::args::OptName::Short(b'i'), Some(v)) if !v.s.is_empty() => Some(v.s),
            (super::args::OptName::Short(b'i'), _) => Some("{}"),
            (super::args::OptName::Long("replace"), v) => {
                Some(v.map_or("{}", |v| v.s)).filter(|s| !s.is_empty())
            }
            _ => None,
        });
        let mut new: Vec<Arg<'_>> = Vec::with_capacity(cmd.len() + 1);
        match replace {
            Some(r) if !r.is_empty() => {
                for a in cmd {
                    new.push(match a.s.find(r) {
                        Some(at) => a.unknown_from(at),
                        None => *a,
                    });
                }
            }
            _ => {
                new.extend_from_slice(cmd);
                new.push(Arg::UNKNOWN);
            }
        }
        self.sub_run(&new, ex);
    }

    fn find(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let mut i = 0;
        // global options
        while let Some(a) = rest.get(i) {
            if a.is("-H") || a.is("-L") || a.is("-P") || (a.s.starts_with("-O") && !a.is_dynamic())
            {
                i += 1;
            } else if a.is("-D") {
                i += 2;
            } else {
                break;
            }
        }
        let first = i;
        while rest.get(i).is_some_and(|a| {
            a.dyn_start() || !(a.s.starts_with('-') || matches!(a.s, "(" | "!" | ")" | ","))
        }) {
            i += 1;
        }
        let starts = rest.get(first..i).unwrap_or(&[]);
        // What `{}` expands to: a path under the single start point.
        let (prefix, dynamic_start) = match starts {
            [] => (".".to_string(), false),
            [one] => (one.prefix().to_string(), one.is_dynamic()),
            _ => (String::new(), true),
        };
        let mut under = prefix.clone();
        if !dynamic_start && !under.ends_with('/') {
            under.push('/');
        }
        let found = Arg {
            s: &under,
            dyn_at: Some(under.len()),
        };
        while let Some(a) = rest.get(i) {
            i += 1;
            if a.is_dynamic() {
                continue;
            }
            match a.s {
                "-delete" => self.file(ex, FileOp::Delete, found, "find -delete"),
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let from = i;
                    while let Some(b) = rest.get(i) {
                        if b.is(";")
                            || (b.is("+")
                                && i > from
                                && rest.get(i - 1).is_some_and(|p| p.is("{}")))
                        {
                            break;
                        }
                        i += 1;
                    }
                    let cmd: Vec<Arg<'_>> = rest
                        .get(from..i)
                        .unwrap_or(&[])
                        .iter()
                        .map(|b| match b.s.find("{}") {
                            Some(0) => found,
                            Some(at) => b.unknown_from(at),
                            None => *b,
                        })
                        .collect();
                    i += 1;
                    self.sub_run(&cmd, ex);
                }
                "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                    if let Some(f) = rest.get(i) {
                        self.file(ex, FileOp::Write, *f, "find");
                    }
                    i += if a.s == "-fprintf" { 2 } else { 1 };
                }
                s if FIND_VALUE.contains(&s) || s.starts_with("-newer") => i += 1,
                _ => {}
            }
        }
    }

    fn parallel(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let (_, k) = leading_opts(rest, &PARALLEL);
        let cmd = rest.get(k..).unwrap_or(&[]);
        let end = cmd
            .iter()
            .position(|a| a.s.starts_with(":::"))
            .unwrap_or(cmd.len());
        let words = cmd.get(..end).unwrap_or(&[]);
        if words.is_empty() {
            // The commands themselves come from stdin or the ::: arguments.
            self.opaque(
                ex,
                OpaqueReason::ScriptFromStdin,
                "parallel without a command",
            );
            return;
        }
        // parallel runs the template through a shell; replacement strings become unknown.
        let mut script = String::new();
        let mut replaced = false;
        for (n, w) in words.iter().enumerate() {
            if n > 0 {
                script.push(' ');
            }
            replaced |= push_replacing(&mut script, w.s);
        }
        if !replaced {
            script.push_str(" $PARALLEL_ARG");
        }
        self.nested(ex, &script, words.iter().any(Arg::is_dynamic));
    }
}

impl Wrap {
    /// Converts an index into `rest` (arguments after the wrapper) to one into `args`.
    fn shift(self) -> Wrap {
        match self {
            Wrap::Next(k) => Wrap::Next(k + 1),
            other => other,
        }
    }
}

/// Arguments joined with spaces, as `watch` and `parallel` hand them to `sh -c`.
fn join_words(words: &[Arg<'_>]) -> String {
    let mut s = String::new();
    for (n, w) in words.iter().enumerate() {
        if n > 0 {
            s.push(' ');
        }
        s.push_str(w.s);
    }
    s
}

/// Appends `w`, replacing GNU parallel replacement strings (`{}`, `{.}`, `{/}`, `{1}`...)
/// by a variable so the analysis sees an unknown value. Returns whether any was replaced.
fn push_replacing(out: &mut String, w: &str) -> bool {
    let mut replaced = false;
    let mut rest = w;
    while let Some(open) = rest.find('{') {
        let after = rest.get(open + 1..).unwrap_or("");
        let close = after.find('}');
        let is_repl = close.is_some_and(|c| {
            after
                .get(..c)
                .is_some_and(|inner| inner.bytes().all(|b| b"0123456789./#%".contains(&b)))
        });
        match close {
            Some(c) if is_repl => {
                out.push_str(rest.get(..open).unwrap_or(""));
                out.push_str("$PARALLEL_ARG");
                rest = after.get(c + 1..).unwrap_or("");
                replaced = true;
            }
            _ => {
                out.push_str(rest.get(..=open).unwrap_or(""));
                rest = after;
            }
        }
    }
    out.push_str(rest);
    replaced
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_replacement() {
        let mut s = String::new();
        assert!(push_replacing(&mut s, "rm {} {.}x {a}"));
        assert_eq!(s, "rm $PARALLEL_ARG $PARALLEL_ARGx {a}");
        let mut s = String::new();
        assert!(!push_replacing(&mut s, "{"));
        assert_eq!(s, "{");
    }

    #[test]
    fn joined() {
        assert_eq!(join_words(&[Arg::lit("git"), Arg::lit("push")]), "git push");
    }
}
