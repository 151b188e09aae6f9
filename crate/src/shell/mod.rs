//! Shell analysis interface used by the authority engine.
//!
//! `effects` is the agreed interface (owned by the shell analyser). `analyze` here is a
//! STUB that understands only trivially split commands; the real analyser replaces it.
//! Cases that need real parsing live in `tests/bash_policy_cases.tsv`.

mod effects;
pub use effects::*;

/// STUB analyser: splits on `&&`, `||`, `;`, `|` and newlines (no quoting of separators),
/// splits words on whitespace with simple quote removal, and recognises a handful of
/// programs (`git`, `gh`, `rm`, `touch`, `cp`, `mv`, `tee`, `cd`, `eval`, `python -c`,
/// redirects `>`/`>>`).
pub fn analyze(cmd: &str) -> Analysis {
    let mut steps = Vec::new();
    let mut cwd = Cwd::Start;
    for piece in split_commands(cmd) {
        let snippet: String = piece.trim().chars().take(120).collect();
        if snippet.is_empty() {
            continue;
        }
        let mut words = split_words(piece);
        // Redirects.
        let mut i = 0;
        while i < words.len() {
            let w = words[i].clone();
            let (via, rest) = if let Some(r) = w.strip_prefix(">>") {
                (">>", r)
            } else if let Some(r) = w.strip_prefix('>') {
                (">", r)
            } else {
                i += 1;
                continue;
            };
            let (target, consumed) = if rest.is_empty() {
                (words.get(i + 1).cloned().unwrap_or_default(), 2)
            } else {
                (rest.to_string(), 1)
            };
            let end = (i + consumed).min(words.len());
            words.drain(i..end);
            if !target.is_empty() {
                steps.push(file_step(&snippet, &cwd, FileOp::Write, &target, via));
            }
        }
        let Some(prog) = words.first().cloned() else {
            continue;
        };
        let args = &words[1..];
        let step = |effect| Step {
            snippet: snippet.clone(),
            cwd: cwd.clone(),
            effect,
        };
        if prog.starts_with('$') {
            steps.push(step(Effect::Opaque {
                reason: OpaqueReason::DynamicProgram,
                detail: prog.clone(),
            }));
            continue;
        }
        match prog.as_str() {
            "cd" => {
                cwd = match args.first() {
                    Some(d) if !d.starts_with('$') && d != "-" => match &cwd {
                        Cwd::Start => Cwd::Dir(d.clone()),
                        Cwd::Dir(prev) if !d.starts_with('/') => Cwd::Dir(format!("{prev}/{d}")),
                        Cwd::Dir(_) => Cwd::Dir(d.clone()),
                        Cwd::Unknown => Cwd::Unknown,
                    },
                    _ => Cwd::Unknown,
                };
            }
            "eval" => steps.push(step(Effect::Opaque {
                reason: OpaqueReason::Eval,
                detail: args.join(" "),
            })),
            "python" | "python3" | "node" | "perl" | "ruby"
                if args.iter().any(|a| a == "-c" || a == "-e") =>
            {
                steps.push(step(Effect::Opaque {
                    reason: OpaqueReason::InterpreterOneLiner,
                    detail: prog.clone(),
                }))
            }
            "rm" | "rmdir" => {
                for a in args.iter().filter(|a| !a.starts_with('-')) {
                    steps.push(file_step(&snippet, &cwd, FileOp::Delete, a, &prog));
                }
            }
            "touch" | "mkdir" => {
                for a in args.iter().filter(|a| !a.starts_with('-')) {
                    steps.push(file_step(&snippet, &cwd, FileOp::Create, a, &prog));
                }
            }
            "tee" => {
                let append = args.iter().any(|a| a == "-a" || a == "--append");
                let via = if append { "tee -a" } else { "tee" };
                for a in args.iter().filter(|a| !a.starts_with('-')) {
                    steps.push(file_step(&snippet, &cwd, FileOp::Write, a, via));
                }
            }
            "cp" | "mv" => {
                let files: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
                if let Some((dest, srcs)) = files.split_last() {
                    if prog == "mv" {
                        for s in srcs {
                            steps.push(file_step(&snippet, &cwd, FileOp::Delete, s, "mv"));
                        }
                    }
                    steps.push(file_step(&snippet, &cwd, FileOp::Create, dest, &prog));
                }
            }
            "git" => {
                if let Some((sub, op)) = git_op(args) {
                    steps.push(step(Effect::Git {
                        op,
                        subcommand: sub,
                    }));
                }
            }
            "gh" => {
                if let Some(op) = gh_op(args) {
                    steps.push(step(Effect::Git {
                        op,
                        subcommand: args.iter().take(2).cloned().collect::<Vec<_>>().join(" "),
                    }));
                }
            }
            _ => {}
        }
    }
    Analysis { steps }
}

fn file_step(snippet: &str, cwd: &Cwd, op: FileOp, path: &str, via: &str) -> Step {
    let dynamic_at = path.find(['$', '*', '?', '`']);
    Step {
        snippet: snippet.to_string(),
        cwd: cwd.clone(),
        effect: Effect::File {
            op,
            path: path[..dynamic_at.unwrap_or(path.len())].to_string(),
            dynamic: dynamic_at.is_some(),
            via: via.to_string(),
        },
    }
}

fn git_op(args: &[String]) -> Option<(String, GitOp)> {
    let sub = args.first()?.clone();
    let rest = &args[1..];
    let has = |f: &str| rest.iter().any(|a| a == f);
    let op = match sub.as_str() {
        "push" if has("-f") || has("--force") || rest.iter().any(|a| a.starts_with('+')) => {
            GitOp::HistoryRewrite
        }
        "push" => GitOp::Push,
        "commit" if has("--amend") => GitOp::HistoryRewrite,
        "commit" => GitOp::Commit,
        "add" => GitOp::Add,
        "merge" => GitOp::Merge,
        "rebase" if has("-i") => GitOp::HistoryRewrite,
        "rebase" => GitOp::Rebase,
        "pull" if has("--rebase") => GitOp::PullRebase,
        "pull" => GitOp::Pull,
        "branch" if has("-d") || has("-D") => GitOp::BranchDelete,
        "branch" if rest.iter().any(|a| !a.starts_with('-')) => GitOp::BranchCreate,
        "tag" if rest.iter().any(|a| !a.starts_with('-')) => GitOp::Tag,
        "reset" if has("--hard") => GitOp::HistoryRewrite,
        "reset" => GitOp::Reset,
        "checkout" | "switch" => GitOp::Checkout,
        "stash" => GitOp::Stash,
        "clean" => GitOp::Clean,
        "cherry-pick" => GitOp::CherryPick,
        "revert" => GitOp::Revert,
        _ => GitOp::Read,
    };
    Some((sub, op))
}

fn gh_op(args: &[String]) -> Option<GitOp> {
    let a = args.first()?.as_str();
    let b = args.get(1).map(String::as_str).unwrap_or("");
    Some(match (a, b) {
        ("pr", "create") => GitOp::PrCreate,
        ("pr", "merge") => GitOp::PrMerge,
        ("pr", "close") => GitOp::PrClose,
        ("release", "create") => GitOp::ReleaseCreate,
        _ => GitOp::Read,
    })
}

fn split_commands(cmd: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = cmd.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let two = if i + 1 < bytes.len() {
            &bytes[i..i + 2]
        } else {
            &bytes[i..i + 1]
        };
        if two == b"&&" || two == b"||" {
            out.push(&cmd[start..i]);
            i += 2;
            start = i;
        } else if matches!(bytes[i], b';' | b'|' | b'\n') {
            out.push(&cmd[start..i]);
            i += 1;
            start = i;
        } else {
            i += 1;
        }
    }
    out.push(&cmd[start..]);
    out
}

fn split_words(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            None => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}
