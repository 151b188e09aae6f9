//! The glob syntax and matcher on cases written by hand.

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
                let slow = g.alts().iter().any(|a| a.run(path, ci).0);
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

#[test]
fn total_reading_reads_every_text() {
    // Mistakes of a checked reading are literal characters in a total one, as in bash.
    for (p, path) in [("[ab", "[ab"), ("a{b", "a{b"), ("a}", "a}"), ("x\\", "x\\")] {
        let g = Glob::total(p);
        assert!(
            !g.is_approximate() && g.matches(path, false),
            "{p:?} on {path:?}"
        );
    }
    assert!(Glob::total("src/./a").matches("src/a", false));
    // Past the limits, a wider pattern stands for it.
    let many = "/r/{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}";
    let g = Glob::total(many);
    assert!(g.is_approximate() && g.matches("/r/anything/below", false));
    // A claim may be deeper than a person's pattern may be.
    let deep = format!("/{}", vec!["d"; 70].join("/"));
    let g = Glob::total(&deep);
    assert!(!g.is_approximate() && g.matches(&deep, false));
    assert!(!g.matches(&format!("{deep}/d"), false));
    assert!(Glob::total(&format!("/{}/**", vec!["**/d"; 60].join("/"))).matches(&deep, false));
    assert!(!Glob::total(&format!("/{}/**", vec!["**/d"; 80].join("/"))).matches(&deep, false));
    assert!(Glob::new(&deep, false).is_err());
}

#[test]
fn checked_and_total_readings_agree_on_valid_patterns() {
    let patterns = [
        "**/x", "a/**", "docs/", "{a,b}/c", "[!a]b", "x?z", "/tmp/**", "a/**/",
    ];
    let paths = [
        "x", "a/x", "a", "docs/q", "b/c", "bb", "ab", "xyz", "/tmp/t", "a/b/c",
    ];
    for p in patterns {
        let (checked, total) = (Glob::new(p, false).unwrap(), Glob::total(p));
        assert_eq!(checked.alts(), total.alts(), "{p:?}");
        for path in paths {
            assert_eq!(
                checked.matches(path, false),
                total.matches(path, false),
                "{p:?} {path:?}"
            );
        }
    }
}
