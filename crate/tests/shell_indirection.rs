//! Indirection written out in a bash command (`eval "git push"`, `g=git; $g push`,
//! `git -c alias.ship=push ship`, loop variables) is decided on what it resolves to, and
//! the refusal names the resolved form. Expectations are written from the shell's semantics.

mod common;

use common::*;
use nso::authority::Verdict;
use nso::shell::{analyze, summary, Effect, OpaqueReason, RESOLVED_SEP};
use std::time::{Duration, Instant};

fn message(agent: &str, cmd: &str) -> String {
    let mut e = engine("kord");
    let d = e.decide(&bash(agent, cmd));
    assert_eq!(d.verdict, Verdict::Block, "{cmd}");
    d.message.unwrap_or_default()
}

#[test]
fn refusal_of_an_eval_names_what_it_runs() {
    assert_eq!(
        message("dev", "eval \"git push\""),
        "NSO blocked bash for @dev: \"eval \"git push\"\" runs `git push`, a push. Rule kord.git.push (preset kord): only @devops may push. Who may: @devops. Instead: finish your task and leave the push to @devops. If the work needs this, ask the person."
    );
}

#[test]
fn refusals_of_variables_aliases_and_loops_name_the_resolved_form() {
    let cases = [
        ("dev", "g=git; $g push", "\"$g push\" runs `git push`, a push."),
        (
            "dev",
            "git -c alias.ship=push ship",
            "\"git -c alias.ship=push ship\" runs `git push`, a push.",
        ),
        (
            "dev",
            "c=\"git push\"; eval \"$c\"",
            "\"eval \"$c\"\" runs `git push`, a push.",
        ),
        (
            "dev",
            "for f in a.ts b.ts; do rm \"$f\"; done",
            "\"rm \"$f\"\" runs `rm a.ts`, which deletes a.ts.",
        ),
        (
            "qa",
            "for f in src/*.ts; do sed -i 's/x/y/' \"$f\"; done",
            "\"sed -i 's/x/y/' \"$f\"\" runs `sed -i s/x/y/ src/*.ts`, which writes a path under src only known at run time.",
        ),
        (
            "dev",
            "git -c alias.d='!rm -rf build' d",
            "runs `rm -rf build`, which deletes build.",
        ),
    ];
    for (agent, cmd, want) in cases {
        let m = message(agent, cmd);
        assert!(m.contains(want), "{cmd}\n{m}");
    }
}

#[test]
fn commands_without_indirection_keep_their_message() {
    let m = message("dev", "git push origin main");
    assert!(m.contains(": \"git push origin main\" is a push."), "{m}");
    let a = analyze("X=1 git push; echo $X > out");
    assert!(a.steps.iter().all(|s| !s.snippet.contains(RESOLVED_SEP)));
}

#[test]
fn snippets_show_written_and_resolved_forms_within_bounds() {
    let a = analyze("g=git; $g push origin main");
    assert_eq!(
        a.steps[0].snippet,
        format!("$g push origin main{RESOLVED_SEP}git push origin main")
    );
    let a = analyze("eval \"cd sub && git push\"");
    assert_eq!(
        a.steps[0].snippet,
        format!("eval \"cd sub && git push\"{RESOLVED_SEP}git push")
    );
    let long = format!("x={}; eval \"git push origin $x\"", "b".repeat(300));
    for s in analyze(&long).steps {
        assert!(s.snippet.len() <= 120, "{}", s.snippet);
        assert!(s.snippet.contains(RESOLVED_SEP), "{}", s.snippet);
    }
}

#[test]
fn lookalikes_stay_allowed_for_every_agent() {
    let e = engine("kord");
    for cmd in [
        "eval \"echo git push\"",
        "g=echo; $g push",
        "g=git; echo \"$g push\"",
        "c=\"git push\"; \"$c\"",
        "X=\"rm -rf src\"; echo \"$X\"",
    ] {
        assert_eq!(summary(&analyze(cmd)), "none", "{cmd}");
        for agent in ["dev", "qa", "plan", "devops"] {
            let d = e.evaluate(&bash(agent, cmd));
            assert_eq!(d.verdict, Verdict::Allow, "@{agent} {cmd}");
        }
    }
}

#[test]
fn truly_opaque_steps_stay_opaque() {
    for cmd in [
        "eval \"$(cat x)\"",
        "eval $UNKNOWN",
        "(g=git); $g push",
        "g=git $g push",
        "$(echo git) push",
        "python3 -c 'import os'",
    ] {
        let a = analyze(cmd);
        assert!(
            a.steps
                .iter()
                .any(|s| matches!(s.effect, Effect::Opaque { .. })),
            "{cmd}: {}",
            summary(&a)
        );
    }
}

/// Each command must be analysed in bounded time, with bounded output.
fn bounded(cmd: &str) -> String {
    let t = Instant::now();
    let a = analyze(cmd);
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "{} took {:?}",
        &cmd[..cmd.len().min(80)],
        t.elapsed()
    );
    assert!(a.steps.len() <= 1025);
    assert!(a.steps.iter().all(|s| s.snippet.len() <= 124));
    summary(&a)
}

#[test]
fn indirection_is_bounded() {
    // values that double: capped, then unknown
    let doubling = format!("x=aaaaaaaa; {}rm $x", "x=$x$x; ".repeat(40));
    assert!(bounded(&doubling).starts_with("delete:aaaa"));
    // one word expanding a long value many times
    let wide = format!("x={}; echo {} > $x", "a".repeat(4000), "$x".repeat(5000));
    bounded(&wide);
    // loops over loops: at most a few runs per command
    let nested = "for a in 1 2 3 4; do ".repeat(8) + "rm $a" + &"; done".repeat(8);
    bounded(&nested);
    // eval within eval: the depth limit
    let mut deep = "git push".to_string();
    for _ in 0..6 {
        deep = format!("eval '{}'", deep.replace('\'', r"'\''"));
    }
    assert!(bounded(&deep).contains("opaque:depth_limit"));
    // alias loops end
    assert_eq!(
        bounded("git -c alias.a=b -c alias.b=a a"),
        "opaque:git_alias"
    );
    // many evals: a budget, then opaque
    let many = "eval 'eval \"eval x\"'; ".repeat(200);
    let s = bounded(&many);
    assert!(s.contains("opaque:too_large"), "{s}");
    // evals of a long value: the budget counts the text analysed again
    let big = format!(
        "x='{}'; {}",
        "true; ".repeat(600),
        "eval \"$x\"; ".repeat(100)
    );
    assert!(big.len() < 64 * 1024);
    assert!(bounded(&big).contains("opaque:too_large"));
    // a command referring to a variable with alternatives in many words
    let combos = format!(
        "for a in 1 2; do for b in 1 2; do for c in 1 2; do for d in 1 2; do for e in 1 2; do rm $a$b$c$d$e {}; done; done; done; done; done",
        "$a".repeat(1000)
    );
    bounded(&combos);
}

#[test]
fn too_many_alternatives_collapse_to_their_common_prefix() {
    let words: Vec<String> = (0..40).map(|i| format!("src/f{i}.ts")).collect();
    let cmd = format!("for f in {}; do rm \"$f\"; done", words.join(" "));
    assert_eq!(summary(&analyze(&cmd)), "delete:src/f*");
    // two small loops: every combination is analysed
    let a = analyze("for a in x y; do for b in 1 2; do rm $a$b; done; done");
    assert_eq!(summary(&a), "delete:x1, delete:y1, delete:x2, delete:y2");
}

#[test]
fn dynamic_eval_is_reported_as_eval() {
    let a = analyze("eval \"git status $X\"");
    assert!(matches!(
        a.steps.last().map(|s| &s.effect),
        Some(Effect::Opaque {
            reason: OpaqueReason::Eval,
            ..
        })
    ));
}
