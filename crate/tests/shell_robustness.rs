//! Native stand-in for fuzzing: ~100k pseudo-random and mutated inputs through `analyze`,
//! asserting no panic, bounded output and bounded time. Deterministic (xorshift), so any
//! failure reproduces.

use nso::shell::{analyze, Effect, OpaqueReason, MAX_INPUT};
use std::time::{Duration, Instant};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Fragments that exercise the grammar: quotes, substitutions, heredocs, wrappers.
const PIECES: &[&str] = &[
    "git",
    " push",
    " -f",
    " --force",
    "'",
    "\"",
    "`",
    "$(",
    ")",
    "(",
    "((",
    "))",
    "{",
    "}",
    "${",
    "$((",
    "<<EOF\n",
    "\nEOF\n",
    "<<-'E'\n",
    "<<<",
    "|",
    "||",
    "&&",
    ";",
    ";;",
    "&",
    "\n",
    "\\",
    "\\\n",
    "#",
    " ",
    "\t",
    "cd ",
    "sub",
    "rm -rf ",
    "x",
    "*",
    "?",
    "[a]",
    "~",
    "$X",
    "sh -c ",
    "bash -lc ",
    "xargs ",
    "find . -exec ",
    " {} \\;",
    "env -C d ",
    "sudo -u u ",
    "eval ",
    "python -c ",
    "> f",
    "2>&1",
    ">&",
    "<(",
    ">(",
    "if ",
    "then ",
    "fi",
    "for i in a; do ",
    "done",
    "case x in ",
    "a) ",
    "esac",
    "while ",
    "f() ",
    "$'\\x41'",
    "$\"",
    "=",
    "a=(",
    "[[ ",
    " ]]",
    "!",
    "time ",
    "tee ",
    "sed -i ",
    "git -C d ",
    "gh pr merge",
    "é",
    "\u{0}",
    "\r",
    // indirection written out in the command: variables, eval, git aliases
    "g=git; ",
    "$g",
    "\"$g\"",
    "${g}",
    "c='git push'; ",
    "export G=git && ",
    "declare -n r=",
    "${g:=x}",
    "for f in a b *.ts; do ",
    "eval \"",
    "eval '",
    "git -c alias.p=",
    "'!git push' p",
    "git config alias.p push; git p",
    "X+=/",
];

const ALPHABET: &[u8] = b" \t\n!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~azAZ09";
const META: &[u8] = b"'\"`$()\\;|&<>{}\n ";

fn random_input(rng: &mut XorShift) -> String {
    let mut s = String::new();
    let n = rng.below(24);
    for _ in 0..n {
        if rng.below(4) == 0 {
            // raw byte soup from an ASCII-heavy alphabet
            let c = match rng.below(10) {
                0 => char::from_u32(rng.below(0x2FF) as u32).unwrap_or('x'),
                _ => char::from(ALPHABET[rng.below(ALPHABET.len())]),
            };
            s.push(c);
        } else {
            s.push_str(PIECES[rng.below(PIECES.len())]);
        }
    }
    s
}

fn mutate(rng: &mut XorShift, base: &str) -> String {
    let mut chars: Vec<char> = base.chars().collect();
    for _ in 0..=rng.below(4) {
        let len = chars.len();
        match rng.below(5) {
            0 if len > 0 => {
                chars.remove(rng.below(len));
            }
            1 => {
                let piece: Vec<char> = PIECES[rng.below(PIECES.len())].chars().collect();
                let at = rng.below(len + 1);
                chars.splice(at..at, piece);
            }
            2 if len > 0 => {
                let at = rng.below(len);
                chars[at] = char::from(META[rng.below(META.len())]);
            }
            3 if len > 1 => {
                // duplicate a slice (nesting growth)
                let a = rng.below(len);
                let b = (a + rng.below(len - a) + 1).min(len);
                let dup: Vec<char> = chars[a..b].to_vec();
                chars.splice(a..a, dup);
            }
            _ => {
                chars.truncate(rng.below(len + 1));
            }
        }
    }
    chars.into_iter().collect()
}

fn corpus_commands() -> Vec<String> {
    include_str!("shell_corpus.tsv")
        .lines()
        .filter(|l| l.contains('\t'))
        .filter_map(|l| l.split('\t').next())
        .map(|c| c.replace('↵', "\n").replace('⇥', "\t"))
        .collect()
}

fn check(input: &str) -> Duration {
    let t = Instant::now();
    let a = analyze(input);
    let took = t.elapsed();
    assert!(
        a.steps.len() <= 1025,
        "too many steps ({}) for {input:?}",
        a.steps.len()
    );
    for s in &a.steps {
        assert!(s.snippet.len() <= 124, "snippet too long for {input:?}");
        if let Effect::Opaque { detail, .. } = &s.effect {
            assert!(detail.len() <= 124, "detail too long for {input:?}");
        }
    }
    took
}

#[test]
fn random_and_mutated_inputs_never_panic() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let corpus = corpus_commands();
    let mut worst = (Duration::ZERO, String::new());
    let (mut parse_errors, mut with_steps) = (0usize, 0usize);
    let total = Instant::now();
    for i in 0..100_000 {
        let input = if i % 2 == 0 {
            random_input(&mut rng)
        } else {
            let base = &corpus[rng.below(corpus.len())];
            mutate(&mut rng, base)
        };
        let mut took = check(&input);
        // A slow input is timed again: a blowup is slow every time, a busy machine is not.
        if took > Duration::from_millis(50) {
            for _ in 0..5 {
                let start = Instant::now();
                let _ = analyze(&input);
                took = took.min(start.elapsed());
            }
        }
        let a = analyze(&input);
        parse_errors += usize::from(a.steps.iter().any(|s| {
            matches!(
                s.effect,
                Effect::Opaque {
                    reason: OpaqueReason::ParseError,
                    ..
                }
            )
        }));
        with_steps += usize::from(!a.steps.is_empty());
        if took > worst.0 {
            worst = (took, input);
        }
    }
    eprintln!(
        "parse errors: {parse_errors}, with steps: {with_steps}, slowest {:?}",
        worst.0
    );
    // The generator must reach past the parser most of the time.
    assert!(parse_errors < 70_000, "{parse_errors} parse errors");
    // Generous bounds (debug build, shared machine): catches super-linear blowups only.
    assert!(
        worst.0 < Duration::from_millis(200),
        "slowest input took {:?}: {:?}",
        worst.0,
        worst.1
    );
    assert!(total.elapsed() < Duration::from_secs(120));
}

/// Runs the pathological inputs on a 1 MiB stack (a typical wasm stack); debug-build frames
/// are larger than release ones, so passing here leaves headroom.
#[test]
fn pathological_inputs_fit_a_small_stack() {
    let t = std::thread::Builder::new()
        .stack_size(
            std::env::var("STACK")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(1 << 20),
        )
        .spawn(pathological_inputs_are_bounded)
        .expect("spawn");
    t.join().expect("no stack overflow or panic");
}

fn pathological_inputs_are_bounded() {
    let deep =
        |open: &str, close: &str, n: usize| format!("{}x{}", open.repeat(n), close.repeat(n));
    let cases = [
        deep("(", ")", 10_000),
        deep("$(", ")", 10_000),
        deep("{ ", "; }", 5_000),
        deep("${x:-", "}", 10_000),
        deep("((", "))", 10_000),
        deep("$((", "))", 10_000),
        deep("\"$(", ")\"", 5_000),
        deep("if true; then ", "; fi", 3_000),
        deep("`", "`", 1_000),
        deep("sh -c '", "'", 1_000),
        deep("bash -c \"", "\"", 1_000),
        deep("bash <<E\n", "\nE\n", 500),
        "sh -c 'xargs xargs xargs xargs sh -c \"".repeat(200),
        "a `b \\`c \\\\\\`d\\\\\\` \\` `".repeat(500),
        deep("f() { ", "; }", 3_000),
        deep("case x in a) ", ";; esac", 3_000),
        deep("while x; do ", "; done", 3_000),
        "x=$(".repeat(10_000),
        "((".repeat(20_000),
        "$((".repeat(15_000),
        "(( ".repeat(15_000) + "x",
        "'".repeat(40_000),
        "\\".repeat(60_000),
        "<<EOF\n".repeat(5_000),
        "cat <<A <<B <<C\n".repeat(3_000),
        "xargs ".repeat(5_000) + "git push",
        "find . -exec ".repeat(3_000) + "rm {} \\;",
        "rm a ".repeat(6_000),
        "echo x > f; ".repeat(5_000),
        "env -C a ".repeat(4_000) + "git push",
        "sudo ".repeat(10_000) + "git push",
        "{a,b}".repeat(10_000),
        "[".repeat(30_000) + &"]".repeat(30_000),
        "a=(".repeat(10_000),
        "@(".repeat(10_000),
        "x".repeat(MAX_INPUT),
        "x".repeat(MAX_INPUT + 1),
    ];
    for c in &cases {
        let t = Instant::now();
        check(c);
        let took = t.elapsed();
        assert!(
            took < Duration::from_secs(2),
            "{took:?} for input starting {:?}",
            c.get(..40).unwrap_or(c)
        );
    }
    let big = analyze(&"x".repeat(MAX_INPUT + 1));
    assert_eq!(big.steps.len(), 1);
    assert!(matches!(
        big.steps[0].effect,
        Effect::Opaque {
            reason: OpaqueReason::TooLarge,
            ..
        }
    ));
}
