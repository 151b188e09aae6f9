//! Claim pattern intersection and coverage: a table of cases, then a property test against
//! brute force over a small alphabet, with the authority engine's glob as the independent
//! matcher.

mod rng;

use nso::authority::Glob;
use nso::conductor::{covers, intersects, overlap, Overlap, Pattern};
use rng::Rng;

#[test]
fn intersection_table() {
    let cases = [
        ("/r/src/api/**", "/r/src/api/users.ts", true),
        ("/r/src/api/**", "/r/src/**/*.ts", true),
        ("/r/src/*.ts", "/r/src/a/b.ts", false),
        ("/r/**", "/s/**", false),
        ("/r/src/a.ts", "/s/src/a.ts", false),
        ("/r/a/**", "/r/a", true),
        ("/r/a/", "/r/a/b/c", true),
        ("/r/src/**", "/r/srcx/a", false),
        ("/r/src/*.ts", "/r/src/*.js", false),
        ("/r/src/*.ts", "/r/src/a*", true),
        ("/r/src/[ab].ts", "/r/src/c.ts", false),
        ("/r/src/[!a].ts", "/r/src/a.ts", false),
        ("/r/src/[!a].ts", "/r/src/?.ts", true),
        ("/r/src/[a-c]x", "/r/src/[c-e]x", true),
        ("/r/src/[a-b]x", "/r/src/[c-e]x", false),
        ("/r/{a,b}/x", "/r/b/*", true),
        ("/r/{a,b}/x", "/r/c/*", false),
        ("/r/{a,b/c}/x", "/r/b/*/x", true),
        ("/r/**/x", "/r/**/y", false),
        ("/r/**/x/**", "/r/**/y/**", true),
        ("/r/a*b", "/r/a", false),
        ("/r/a*b", "/r/ab", true),
        ("/r/*", "/r/*/*", false),
        ("/r/**", "/r", true),
        ("/r/?", "/r/??", false),
        ("/r/*?*", "/r/?", true),
        ("/r/*", "/r", false),
        ("/**", "/anything/at/all", true),
        ("r/**", "/r/**", false),
        ("/r/a.ts", "/r/a.ts", true),
        ("/r/a.ts", "/r/a.ts.bak", false),
        ("/r/\\*.ts", "/r/a.ts", false),
        ("/r/\\*.ts", "/r/*.ts", true),
        ("/r/x[", "/r/x[", true),
        ("/r/x[", "/r/xa", false),
        ("/r/*a*a*a*b", "/r/*b*b*b*b", true),
        ("/r/*a*a*a*b", "/r/*b*b*b*a", false),
        ("/r/*a", "/r/*b", false),
    ];
    for (a, b, want) in cases {
        assert_eq!(intersects(a, b), want, "{a} ∩ {b}");
        assert_eq!(intersects(b, a), want, "{b} ∩ {a}");
        if let Overlap::Witness(path) = overlap(&Pattern::parse(a), &Pattern::parse(b)) {
            assert!(Pattern::parse(a).matches(&path) && Pattern::parse(b).matches(&path));
        }
    }
}

#[test]
fn too_many_alternatives_are_conservative() {
    let wide = "/r/{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}";
    let p = Pattern::parse(wide);
    assert!(p.is_approximate());
    assert_eq!(
        overlap(&p, &Pattern::parse("/r/zzz")),
        Overlap::Assumed,
        "past the bound, a pattern conflicts with everything below its fixed segments"
    );
    assert!(!intersects(wide, "/s/x"));
    assert!(!p.matches("/r/aaaaaaa"), "an approximation covers nothing");
}

#[test]
fn pathological_patterns_stay_fast() {
    let a = format!("/r/{}", "*a".repeat(200));
    let b = format!("/r/{}", "a*".repeat(200));
    let t = std::time::Instant::now();
    assert!(intersects(&a, &b));
    let deep_a = "/**/a".repeat(300) + "/**";
    let deep_b = "/**/b".repeat(300) + "/**";
    assert!(intersects(&deep_a, &deep_b));
    assert!(!intersects(
        &("/**/a".repeat(300) + "/c"),
        &("/**/b".repeat(300) + "/d")
    ));
    let big = format!("/r/{}", "?*".repeat(2000));
    let p = Pattern::parse(&big);
    assert!(!p.is_approximate());
    assert_eq!(overlap(&p, &p), Overlap::Assumed, "past the budget");
    let huge = format!("/r/{}", "?*".repeat(3000));
    assert!(Pattern::parse(&huge).is_approximate(), "over 4096 bytes");
    assert!(intersects(&huge, "/r/x") && !intersects(&huge, "/s/x"));
    let members: String = (0..4000u32)
        .filter_map(|i| char::from_u32(0x7E - i % 80))
        .filter(|c| !matches!(c, '/' | ']' | '\\' | '-' | '!' | '^' | '{' | '}'))
        .collect();
    let class = format!("/r/[{members}]");
    assert!(!Pattern::parse(&class).is_approximate());
    assert!(intersects(&class, "/r/a") && !intersects(&class, "/r/aa"));
    assert!(t.elapsed().as_secs() < 5, "took {:?}", t.elapsed());
}

#[test]
fn coverage() {
    let held = |p: &str| vec![p.to_string()];
    assert!(covers(&held("/r/src/**"), "/r/src/a/b.ts"));
    assert!(covers(&held("/r/src/**"), "/r/src"));
    assert!(covers(&held("/r/src/**"), "/r/src/"));
    assert!(!covers(&held("/r/src/**"), "/r/srcx"));
    assert!(covers(&held("/r/src/*.ts"), "/r/src/a.ts"));
    assert!(!covers(&held("/r/src/*.ts"), "/r/src/a/b.ts"));
    assert!(covers(&held("/r/a[1].ts"), "/r/a1.ts"));
    assert!(covers(&held("/r/a\\[1\\].ts"), "/r/a[1].ts"));
    assert!(!covers(&[], "/r/a"));
    for (pattern, path, want) in [
        ("/r/./a", "/r/a", true),
        ("/r/a/.", "/r/a", true),
        ("/r//a/**", "/r/a/b", true),
        ("/r/a/", "/r/a/b", true),
        ("/", "/", true),
        ("/**", "/", true),
        ("/r/a/**", "/r/ab", false),
        ("r/a", "/r/a", false),
        ("**", "a/b", true),
        ("src/**", "src/a", true),
        ("*.ts", "a.ts", true),
    ] {
        assert_eq!(covers(&held(pattern), path), want, "{pattern} on {path}");
    }
    let p = |s: &str| Pattern::parse(s);
    assert!(p("/r/src/**").covers(&p("/r/src/api/**")));
    assert!(p("/r/*/**").covers(&p("/r/src/*.ts")));
    assert!(p("/r/{a,b}/**").covers(&p("/r/a/x")));
    assert!(!p("/r/src/**").covers(&p("/r/**")));
    assert!(!p("/r/src/*.ts").covers(&p("/r/src/**")));
}

const TOKENS: &[&str] = &["a", "b", "c", "*", "?", "[ab]", "[!a]", "[b-c]"];

fn random_segment(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 | 1 => "**".to_string(),
        2 => {
            let x = random_tokens(rng, 1);
            let y = random_tokens(rng, 2);
            format!("{{{x},{y}}}")
        }
        _ => random_tokens(rng, 2),
    }
}

fn random_tokens(rng: &mut Rng, max: usize) -> String {
    let n = 1 + rng.below(max);
    (0..n).map(|_| TOKENS[rng.below(TOKENS.len())]).collect()
}

fn random_pattern(rng: &mut Rng) -> String {
    let n = 1 + rng.below(3);
    let segs: Vec<String> = (0..n).map(|_| random_segment(rng)).collect();
    format!("/{}", segs.join("/"))
}

/// Every absolute path of at most 4 segments, each 1 or 2 characters of `abc`.
fn all_paths() -> Vec<String> {
    let mut segs = Vec::new();
    for a in ["a", "b", "c"] {
        segs.push(a.to_string());
        for b in ["a", "b", "c"] {
            segs.push(format!("{a}{b}"));
        }
    }
    let mut paths = vec![String::new()];
    let mut level = vec![String::new()];
    for _ in 0..4 {
        let next: Vec<String> = level
            .iter()
            .flat_map(|p| segs.iter().map(move |s| format!("{p}/{s}")))
            .collect();
        paths.extend(next.iter().cloned());
        level = next;
    }
    paths
        .iter_mut()
        .filter(|p| p.is_empty())
        .for_each(|p| p.push('/'));
    paths
}

fn oracle(pattern: &str, path: &str) -> bool {
    Glob::new(pattern, false)
        .expect("generated patterns compile")
        .matches(path, false)
}

#[test]
fn intersection_agrees_with_brute_force() {
    let paths = all_paths();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let patterns: Vec<String> = (0..160).map(|_| random_pattern(&mut rng)).collect();
    // Which enumerated paths each pattern matches, as bit sets; our matcher must agree with
    // the authority engine's on every one.
    let words = paths.len().div_ceil(64);
    let mut sets = Vec::with_capacity(patterns.len());
    for p in &patterns {
        let ours = Pattern::parse(p);
        let glob = Glob::new(p, false).expect("generated patterns compile");
        let mut bits = vec![0u64; words];
        for (i, path) in paths.iter().enumerate() {
            let hit = glob.matches(path, false);
            assert_eq!(ours.matches(path), hit, "matcher: {p} on {path}");
            assert_eq!(
                covers(std::slice::from_ref(p), path),
                hit,
                "covers: {p} on {path}"
            );
            // The same pattern and path, relative.
            let (rel, rel_path) = (&p[1..], &path[1..]);
            assert_eq!(
                covers(&[rel.to_string()], rel_path),
                hit,
                "{rel} on {rel_path:?}"
            );
            if hit {
                bits[i / 64] |= 1 << (i % 64);
            }
        }
        sets.push(bits);
    }
    let (mut met, mut apart) = (0, 0);
    for (i, a) in patterns.iter().enumerate() {
        for (j, b) in patterns.iter().enumerate().skip(i) {
            let shared = sets[i].iter().zip(&sets[j]).any(|(x, y)| x & y != 0);
            match overlap(&Pattern::parse(a), &Pattern::parse(b)) {
                Overlap::Witness(path) => {
                    met += 1;
                    assert!(
                        oracle(a, &path) && oracle(b, &path),
                        "witness {path} of {a} ∩ {b} does not match both"
                    );
                }
                Overlap::Disjoint => {
                    apart += 1;
                    assert!(!shared, "{a} ∩ {b}: said disjoint, but a path matches both");
                }
                Overlap::Assumed => panic!("{a} ∩ {b}: small patterns must be decided"),
            }
            // Coverage is sound: what `a` covers, it matches.
            if Pattern::parse(a).covers(&Pattern::parse(b)) {
                let subset = sets[j].iter().zip(&sets[i]).all(|(y, x)| y & !x == 0);
                assert!(subset, "{a} said to cover {b}, but does not");
            }
        }
    }
    assert!(
        met > 1000 && apart > 1000,
        "both outcomes exercised: {met} / {apart}"
    );
}
