//! Redaction of transcript text and the T0 policy: secrets go, prose stays, and a policy with
//! a mistake names the key to fix.

mod rng;

use nso::continuity::policy::{T0Policy, MAX_SNIPPET_BYTES, POLICY_KEYS};
use nso::continuity::redact::{redact, Redactor, REDACTED};
use rng::Rng;
use serde_json::json;

/// (input, expected output).
const SECRETS: &[(&str, &str)] = &[
    ("key sk-abcdef0123456789ABCDEF now", "key sk-[REDACTED] now"),
    ("sk-ant-api03-AbCdEfGhIjKlMnOpQrSt", "sk-ant-[REDACTED]"),
    ("OPENAI=sk-proj-abcDEF123456ghiJKL", "OPENAI=sk-proj-[REDACTED]"),
    ("stripe sk_live_51HabcdefGHIJKLmnop", "stripe sk_live_[REDACTED]"),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_[REDACTED]"),
    ("(gho_ABCDEFGHIJKLMNOPQRSTUVWX)", "(gho_[REDACTED])"),
    ("github_pat_11ABCDEFG0123456789_abcdefghij", "github_pat_[REDACTED]"),
    ("slack xoxb-123456789012-abcdefABCDEF", "slack xoxb-[REDACTED]"),
    ("AWS AKIAIOSFODNN7EXAMPLE!", "AWS AKIA[REDACTED]!"),
    ("glpat-abcdefghij0123456789", "glpat-[REDACTED]"),
    ("//registry/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "//registry/:_authToken=[REDACTED]"),
    ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_[REDACTED]"),
    (
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end",
        "jwt [REDACTED] end",
    ),
    ("Authorization: Bearer abc123def456ghi789", "Authorization: Bearer [REDACTED]"),
    ("curl -H 'authorization: bearer 0123456789abcdef'", "curl -H 'authorization: bearer [REDACTED]'"),
    ("postgres://admin:hunter2@db.local:5432/app", "postgres://admin:[REDACTED]@db.local:5432/app"),
    ("git clone https://user:p%40ss@github.com/x", "git clone https://user:[REDACTED]@github.com/x"),
    ("DB_PASSWORD=correct-horse", "DB_PASSWORD=[REDACTED]"),
    ("export API_KEY=abc123", "export API_KEY=[REDACTED]"),
    ("{\"apiKey\": \"AIzaSomething\", \"x\": 1}", "{\"apiKey\": \"[REDACTED]\", \"x\": 1}"),
    ("client_secret: 'shh-it-is-secret'", "client_secret: '[REDACTED]'"),
    ("auth_token = \"a\\\"b\"", "auth_token = \"[REDACTED]\""),
    ("access_token=xyz123&next=1", "access_token=[REDACTED]&next=1"),
    ("passwd:   hunter22", "passwd:   [REDACTED]"),
    ("token: Bearer abc", "token: [REDACTED]"),
    ("x-auth-token: deadbeefcafe", "x-auth-token: [REDACTED]"),
    ("privateKey => 'abc'", "privateKey => '[REDACTED]'"),
    ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG", "aws_secret_access_key=[REDACTED]"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter",
        "-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nafter",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk",
        "-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]",
    ),
    ("ünï sk-ant-REALLYsecret0123456789 ✓", "ünï sk-ant-[REDACTED] ✓"),
];

/// Prose and code that must survive.
const PROSE: &[&str] = &[
    "we use sk-learn and scikit-learn for the model",
    "the task-abcdefghijklmnopqrst1234 flag",
    "mask-0123456789abcdef0123 is not a key",
    "Bearer tokens are explained in RFC 6750",
    "Bearer authentication",
    "tokens: 1234",
    "max_tokens=4096",
    "secretary: Bob",
    "the password is long",
    "password:",
    "password = \"\"",
    "\"password\": null",
    "password=$DB_PASS",
    "if password == other {",
    "token: {",
    "https://github.com/nso-dev/nso",
    "user@example.com wrote",
    "AKIA is a prefix",
    "AKIAIOSFODNN7EXAMPLEXX is too long for an access key id",
    "eyJ alone",
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
    "ghp_short",
    "npm_package_version_for_the_current_build",
    "build_20260208_auth_abc123",
    "日本語のテキスト",
];

#[test]
fn secrets_are_redacted_and_prose_survives() {
    for (input, expected) in SECRETS {
        assert_eq!(redact(input), *expected, "{input}");
    }
    for prose in PROSE {
        assert_eq!(redact(prose), *prose, "{prose}");
    }
}

#[test]
fn redaction_is_idempotent() {
    for (input, _) in SECRETS {
        let once = redact(input).into_owned();
        assert_eq!(redact(&once), once, "{input}");
    }
}

#[test]
fn policy_prefixes_and_keys_extend_the_rules() {
    let r = Redactor::new(
        &["acme_".to_string()],
        &["pin".to_string(), "Session-Cookie".to_string()],
    );
    assert_eq!(r.redact("t=acme_0123456789 x"), "t=acme_[REDACTED] x");
    assert_eq!(r.redact("acme_short"), "acme_short");
    assert_eq!(r.redact("card pin: 4711"), "card pin: [REDACTED]");
    assert_eq!(
        r.redact("SESSION_COOKIE=abcdef"),
        "SESSION_COOKIE=[REDACTED]"
    );
    assert_eq!(
        r.redact("sessionCookie: \"abcdef\""),
        "sessionCookie: \"[REDACTED]\""
    );
    assert_eq!(redact("card pin: 4711"), "card pin: 4711");
    let policy =
        T0Policy::from_json(&json!({"redact": {"prefixes": ["acme_"], "keys": ["PIN"]}})).unwrap();
    let r = Redactor::from_policy(&policy);
    assert_eq!(
        r.redact("pin=1234 acme_0123456789"),
        "pin=[REDACTED] acme_[REDACTED]"
    );
}

#[test]
fn nothing_found_borrows() {
    assert!(matches!(
        redact("plain text"),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[test]
fn random_text_never_panics_and_keeps_what_is_not_secret() {
    let pieces = [
        "sk-",
        "ghp_",
        "AKIA",
        "eyJ",
        ".",
        "=",
        ":",
        "\"",
        "'",
        "@",
        "://",
        "-----BEGIN ",
        "PRIVATE KEY-----",
        "-----END ",
        "password",
        "Token",
        "_",
        "-",
        " ",
        "\n",
        "é",
        "日",
        "✓",
        "a",
        "Z",
        "0",
        "9",
        "Bearer ",
        "\\",
        "`",
        "=>",
        "[REDACTED]",
        "\u{0}",
    ];
    let mut rng = Rng(0x5eed);
    for _ in 0..20_000 {
        let mut s = String::new();
        for _ in 0..rng.below(40) {
            s.push_str(pieces[rng.below(pieces.len())]);
        }
        let out = redact(&s);
        // Redacting again changes nothing more.
        assert_eq!(redact(&out), out, "{s:?}");
        if !out.contains(REDACTED) {
            assert_eq!(out, s);
        }
    }
}

#[test]
fn adversarial_inputs_stay_linear() {
    let cases = [
        "-----BEGIN PRIVATE KEY----- ".repeat(40_000),
        "-----BEGIN x ".repeat(80_000),
        "password=".repeat(100_000),
        "a".repeat(1_000_000),
        "eyJaaaaaaaaaaaaa.".repeat(60_000),
        "https://".repeat(100_000),
        "Bearer ".repeat(100_000),
        "sk-".repeat(300_000),
        format!("password: \"{}", "x".repeat(1_000_000)),
    ];
    let start = std::time::Instant::now();
    for c in &cases {
        let _ = redact(c);
    }
    // Quadratic behaviour on a megabyte would take minutes; linear takes milliseconds.
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
}

// ---------------------------------------------------------------------------------------------
// The policy

#[test]
fn a_full_policy_is_read() {
    let p = T0Policy::from_json(&json!({
        "name": "team-t0",
        "version": 4,
        "reasoning": true,
        "snippets": {"bash": 400, "nso_*": 2000, "*": 10, "nso_status_*": 50},
        "redact": {"prefixes": ["acme_", "acme_"], "keys": ["Pin"]},
        "storyGlobs": ["docs/stories/**/*.md"]
    }))
    .unwrap();
    assert_eq!(p.label(), "team-t0 v4");
    assert!(p.reasoning);
    assert_eq!(p.redact_prefixes, ["acme_"]);
    assert_eq!(p.redact_keys, ["pin"]);
    assert_eq!(p.story_globs, ["docs/stories/**/*.md"]);
    assert_eq!(p.snippet_bytes("bash"), Some(400));
    assert_eq!(p.snippet_bytes("nso_decide"), Some(2000));
    assert_eq!(p.snippet_bytes("nso_status_set"), Some(50));
    assert_eq!(p.snippet_bytes("read"), Some(10));
    let d = T0Policy::default();
    assert_eq!(d.label(), "nso-t0 v1");
    assert_eq!(d.snippet_bytes("bash"), None);
    assert_eq!(d.story_globs, ["**/stories/*.md"]);
    assert_eq!(T0Policy::from_json(&json!({})).unwrap(), d);
    assert_eq!(POLICY_KEYS.len(), 6);
}

#[test]
fn policy_mistakes_name_their_path() {
    let cases = [
        (json!([]), ""),
        (json!({"snipets": {}}), "snipets"),
        (json!({"name": ""}), "name"),
        (json!({"name": "a\nb"}), "name"),
        (json!({"version": 0}), "version"),
        (json!({"version": 1.5}), "version"),
        (json!({"version": 5_000_000_000u64}), "version"),
        (json!({"reasoning": "yes"}), "reasoning"),
        (json!({"snippets": []}), "snippets"),
        (json!({"snippets": {"bash": 0}}), "snippets.bash"),
        (
            json!({"snippets": {"bash": MAX_SNIPPET_BYTES + 1}}),
            "snippets.bash",
        ),
        (json!({"snippets": {"bash": "400"}}), "snippets.bash"),
        (json!({"snippets": {"a*b": 4}}), "snippets.a*b"),
        (json!({"snippets": {"": 4}}), "snippets."),
        (json!({"redact": {"prefix": []}}), "redact.prefix"),
        (json!({"redact": {"prefixes": ["a"]}}), "redact.prefixes.0"),
        (
            json!({"redact": {"keys": ["ok", "has space"]}}),
            "redact.keys.1",
        ),
        (json!({"redact": {"keys": "pin"}}), "redact.keys"),
        (json!({"storyGlobs": "x"}), "storyGlobs"),
        (json!({"storyGlobs": ["ok/*.md", ""]}), "storyGlobs.1"),
        (json!({"storyGlobs": [3]}), "storyGlobs.0"),
    ];
    for (v, path) in cases {
        let e = T0Policy::from_json(&v).expect_err(&v.to_string());
        assert_eq!(e.path, path, "{v}: {e}");
        assert!(!e.problem.is_empty() && !e.fix.is_empty());
        assert!(e.to_string().contains("Fix:"));
    }
    assert!(T0Policy::from_json(&json!({"snippets": {"bash": MAX_SNIPPET_BYTES}})).is_ok());
}
