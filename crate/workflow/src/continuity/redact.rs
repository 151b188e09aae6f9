//! Redaction of secrets in transcript text: hand-written scanners, one pass, linear time, UTF-8
//! safe (every cut is at an ASCII byte), and idempotent (redacting twice changes nothing more).
//!
//! What is replaced by [`REDACTED`] (a recognizable prefix is kept):
//! - well-known token shapes: `sk-`, `sk-ant-`, `sk-proj-`, `sk_live_`/`sk_test_`/`rk_…`,
//!   `ghp_`/`gho_`/`ghs_`/`ghu_`/`ghr_`/`github_pat_`, `xoxb-`/`xoxp-`/…, `AKIA`/`ASIA` + 16,
//!   `glpat-`, `npm_`, `hf_`, `AIza`, JWTs (`eyJ….eyJ….…`), `Bearer <token>`, and the policy's
//!   extra prefixes. A token needs a minimum length after its prefix (and for the generic
//!   `sk-`, a digit), so prose such as `sk-learn` survives;
//! - `-----BEGIN … PRIVATE KEY-----` blocks (to the end of the text when the end line is
//!   missing);
//! - passwords in URLs: `postgres://user:[REDACTED]@host`;
//! - values of secret keys: `key=value`, `key: value`, `"key": "value"`, `key => value`, where
//!   the key is an identifier with a part (split at `_`, `-` and camelCase humps, consecutive
//!   parts joined) equal to password, passwd, pwd, passphrase, secret, token, apikey,
//!   accesskey or privatekey, or one of the policy's extra keys: `DB_PASSWORD`, `apiKey`,
//!   `client_secret`, `x-auth-token`. `tokens: 12` and `secretary: Bob` survive.
//!
//! Tokens match only at a word start (the byte before is not `[A-Za-z0-9_-]`), so `task-…`
//! never looks like `sk-…`.

use super::policy::T0Policy;
use std::borrow::Cow;

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Secret key names, compact (no `_`/`-`), lowercase.
const SECRET_KEYS: [&str; 9] = [
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
];

/// Longest identifier read as a key.
const MAX_KEY_LEN: usize = 64;

/// Longest URL authority (`user:pass@host:port`) looked at.
const MAX_AUTHORITY: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Charset {
    /// `[A-Za-z0-9_-]`.
    Word,
    /// `[A-Za-z0-9]`.
    Alnum,
    /// `[A-Z0-9]`.
    UpperDigit,
}

#[derive(Debug, Clone)]
struct Rule {
    prefix: String,
    /// Characters needed after the prefix.
    min: usize,
    /// At most this many after the prefix (the token must end there).
    max: usize,
    charset: Charset,
    needs_digit: bool,
}

fn rule(prefix: &str, min: usize, charset: Charset, needs_digit: bool) -> Rule {
    Rule {
        prefix: prefix.to_string(),
        min,
        max: usize::MAX,
        charset,
        needs_digit,
    }
}

fn builtin_rules() -> Vec<Rule> {
    use Charset::*;
    let mut r = vec![
        rule("sk-ant-", 16, Word, false),
        rule("sk-proj-", 16, Word, false),
        rule("sk-", 16, Word, true),
        rule("github_pat_", 20, Word, false),
        rule("glpat-", 16, Word, false),
        rule("npm_", 30, Alnum, false),
        rule("hf_", 30, Alnum, false),
        rule("AIza", 30, Word, false),
    ];
    for p in ["sk_live_", "sk_test_", "rk_live_", "rk_test_"] {
        r.push(rule(p, 16, Alnum, false));
    }
    for p in ["ghp_", "gho_", "ghs_", "ghu_", "ghr_"] {
        r.push(rule(p, 20, Alnum, false));
    }
    for p in ["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-"] {
        r.push(rule(p, 10, Word, false));
    }
    for p in ["AKIA", "ASIA"] {
        r.push(Rule {
            max: 16,
            ..rule(p, 16, UpperDigit, false)
        });
    }
    r
}

/// A redactor: the built-in rules plus a policy's extra prefixes and keys.
#[derive(Debug, Clone)]
pub struct Redactor {
    /// Longest prefix first, so `sk-ant-` is tried before `sk-`.
    rules: Vec<Rule>,
    /// `first[b]`: some rule's prefix starts with byte `b` (skips the rules quickly).
    first: [bool; 256],
    keys: Vec<String>,
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new(&[], &[])
    }
}

impl Redactor {
    /// The built-in rules plus extra token `prefixes` (at least 8 word characters after
    /// them) and extra secret `keys`.
    pub fn new(prefixes: &[String], keys: &[String]) -> Redactor {
        let mut rules = builtin_rules();
        for p in prefixes.iter().filter(|p| !p.is_empty()) {
            rules.push(rule(p, 8, Charset::Word, false));
        }
        rules.sort_by(|a, b| {
            b.prefix
                .len()
                .cmp(&a.prefix.len())
                .then(a.prefix.cmp(&b.prefix))
        });
        let mut all: Vec<String> = SECRET_KEYS.iter().map(|k| k.to_string()).collect();
        for k in keys {
            let compact: String = k
                .chars()
                .filter(|c| *c != '_' && *c != '-')
                .flat_map(char::to_lowercase)
                .collect();
            if !compact.is_empty() && !all.contains(&compact) {
                all.push(compact);
            }
        }
        let mut first = [false; 256];
        for r in &rules {
            if let Some(&b) = r.prefix.as_bytes().first() {
                first[b as usize] = true;
            }
        }
        Redactor {
            rules,
            first,
            keys: all,
        }
    }

    /// The redactor of a policy.
    pub fn from_policy(policy: &T0Policy) -> Redactor {
        Redactor::new(&policy.redact_prefixes, &policy.redact_keys)
    }

    /// `text` with its secrets replaced; borrowed when nothing was found.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let b = text.as_bytes();
        let mut out = String::new();
        let mut copied = 0; // text[..copied] is in `out`
        let mut changed = false;
        let mut i = 0;
        while i < b.len() {
            // Every secret starts with a word byte or an extra prefix's first byte, at a
            // word boundary.
            let starts = is_word(b[i]) || self.first[b[i] as usize];
            if !starts || (i > 0 && is_word(b[i - 1])) {
                i += 1;
                continue;
            }
            if let Some(m) = self.at_boundary(text, i) {
                out.push_str(&text[copied..m.keep_to]);
                out.push_str(REDACTED);
                out.push_str(m.then);
                copied = m.resume;
                changed = true;
                i = m.resume.max(i + 1);
                continue;
            }
            // Nothing starts here: skip the whole word (no rescans inside it).
            let j = word_end(b, i);
            i = if j > i { j } else { i + 1 };
        }
        if !changed {
            return Cow::Borrowed(text);
        }
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    }

    /// A secret starting at word boundary `i`, if any.
    fn at_boundary<'t>(&self, text: &'t str, i: usize) -> Option<Match<'t>> {
        let b = text.as_bytes();
        let rest = &b[i..];
        if rest.starts_with(b"-----BEGIN ") {
            if let Some(m) = private_key(text, i) {
                return Some(m);
            }
        }
        if rest.starts_with(b"eyJ") {
            if let Some(m) = jwt(b, i) {
                return Some(m);
            }
        }
        let rules = if self.first[b[i] as usize] {
            &self.rules[..]
        } else {
            &[]
        };
        for r in rules {
            if rest.starts_with(r.prefix.as_bytes()) {
                if let Some(m) = token(b, i, r) {
                    return Some(m);
                }
            }
        }
        if !is_word(b[i]) {
            return None;
        }
        let j = word_end(b, i);
        let word = &text[i..j];
        if word.eq_ignore_ascii_case("bearer") {
            if let Some(m) = bearer(b, j) {
                return Some(m);
            }
        }
        if b[j..].starts_with(b"://") {
            return url_password(b, j + 3);
        }
        if word.len() <= MAX_KEY_LEN && self.is_secret_key(word) {
            return key_value(b, j);
        }
        None
    }

    fn is_secret_key(&self, word: &str) -> bool {
        // Cheap test first, without allocating: some key inside the compact lowercase word.
        let mut buf = [0u8; MAX_KEY_LEN];
        let mut n = 0;
        for &c in word.as_bytes().iter().take(MAX_KEY_LEN) {
            if c != b'_' && c != b'-' {
                buf[n] = c.to_ascii_lowercase();
                n += 1;
            }
        }
        if !self
            .keys
            .iter()
            .any(|k| find(&buf[..n], k.as_bytes()).is_some())
        {
            return false;
        }
        let parts = key_parts(word);
        for start in 0..parts.len() {
            let mut joined = String::new();
            for p in &parts[start..] {
                joined.push_str(p);
                if joined.len() > MAX_KEY_LEN {
                    break;
                }
                if self.keys.contains(&joined) {
                    return true;
                }
            }
        }
        false
    }
}

/// A secret found: keep `text[copied..keep_to]`, write [`REDACTED`] and `then`, and go on
/// at `resume`.
struct Match<'t> {
    keep_to: usize,
    then: &'t str,
    resume: usize,
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn word_end(b: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < b.len() && is_word(b[j]) {
        j += 1;
    }
    j
}

fn token(b: &[u8], i: usize, r: &Rule) -> Option<Match<'static>> {
    let start = i + r.prefix.len();
    let end = word_end(b, start);
    let body = &b[start..end];
    let fits = match r.charset {
        Charset::Word => true,
        Charset::Alnum => body.iter().all(u8::is_ascii_alphanumeric),
        Charset::UpperDigit => body
            .iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()),
    };
    let long = body.len() >= r.min && body.len() <= r.max;
    let digit = !r.needs_digit || body.iter().any(u8::is_ascii_digit);
    (fits && long && digit).then_some(Match {
        keep_to: start,
        then: "",
        resume: end,
    })
}

fn jwt(b: &[u8], i: usize) -> Option<Match<'static>> {
    let e1 = word_end(b, i);
    if e1 - i < 10 || b.get(e1) != Some(&b'.') || !b[e1 + 1..].starts_with(b"eyJ") {
        return None;
    }
    let e2 = word_end(b, e1 + 1);
    if e2 - (e1 + 1) < 10 || b.get(e2) != Some(&b'.') {
        return None;
    }
    let e3 = word_end(b, e2 + 1);
    Some(Match {
        keep_to: i,
        then: "",
        resume: e3,
    })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

fn private_key(text: &str, i: usize) -> Option<Match<'_>> {
    let b = text.as_bytes();
    // The header is short: look at a bounded window, so a line of repeated `-----BEGIN `
    // stays linear.
    let header_start = i + "-----BEGIN ".len();
    let window = &b[header_start..(header_start + 120).min(b.len())];
    let close = find(window, b"-----")?;
    let header = &window[..close];
    // PEM labels are upper-case words (`RSA PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`).
    let label = header
        .iter()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b' ');
    if !label || find(header, b"PRIVATE KEY").is_none() {
        return None;
    }
    let begin_end = header_start + close + "-----".len();
    let Some(rel) = find(&b[begin_end..], b"-----END ") else {
        return Some(Match {
            keep_to: begin_end,
            then: "",
            resume: b.len(),
        });
    };
    let end = begin_end + rel;
    let after = end + "-----END ".len();
    let footer = find(&b[after..(after + 120).min(b.len())], b"-----")
        .map_or(after, |r| after + r + "-----".len());
    Some(Match {
        keep_to: begin_end,
        then: &text[end..footer],
        resume: footer,
    })
}

fn bearer(b: &[u8], j: usize) -> Option<Match<'static>> {
    let mut k = j;
    while k < b.len() && k - j < 3 && b[k] == b' ' {
        k += 1;
    }
    if k == j {
        return None;
    }
    let start = k;
    while k < b.len() && (is_word(b[k]) || b"._~+/=".contains(&b[k])) {
        k += 1;
    }
    let tok = &b[start..k];
    let digit = tok.iter().any(u8::is_ascii_digit);
    let secret = (tok.len() >= 12 && digit) || tok.len() >= 32;
    (secret && !tok.starts_with(b"[")).then_some(Match {
        keep_to: start,
        then: "",
        resume: k,
    })
}

fn url_password(b: &[u8], from: usize) -> Option<Match<'static>> {
    let mut end = from;
    while end < b.len() && !b"/?#\"'<>`\\ \t\r\n".contains(&b[end]) {
        end += 1;
        if end - from > MAX_AUTHORITY {
            return None;
        }
    }
    let at = (from..end).rev().find(|&k| b[k] == b'@')?;
    let colon = (from..at).find(|&k| b[k] == b':')?;
    // An already redacted password matches too (and is written again unchanged), so that a
    // second pass skips the same text as the first: redaction stays idempotent.
    (at > colon + 1).then_some(Match {
        keep_to: colon + 1,
        then: "",
        resume: at,
    })
}

/// Splits an identifier into lowercase parts at `_`, `-` and lower→upper humps.
fn key_parts(word: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in word.chars() {
        if c == '_' || c == '-' {
            if !cur.is_empty() {
                parts.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            parts.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}

fn skip_blanks(b: &[u8], mut k: usize) -> usize {
    let start = k;
    while k < b.len() && (b[k] == b' ' || b[k] == b'\t') && k - start < 16 {
        k += 1;
    }
    k
}

/// The end of an unquoted value starting at `k`: a blank or a delimiter. A `[REDACTED]`
/// inside counts as part of the value (its `]` is no delimiter), so that a second pass ends
/// the value where the first did.
fn unquoted_end(b: &[u8], k: usize) -> usize {
    let mut e = k;
    while e < b.len() && !b[e].is_ascii_whitespace() && !b",;&)}]<>\"'".contains(&b[e]) {
        e += if b[e..].starts_with(REDACTED.as_bytes()) {
            REDACTED.len()
        } else {
            1
        };
    }
    e
}

/// The value after a secret key ending at `j`: `= v`, `: v`, `": "v"`, `=> v`.
fn key_value(b: &[u8], j: usize) -> Option<Match<'static>> {
    let mut k = j;
    if matches!(b.get(k), Some(b'"') | Some(b'\'')) {
        k += 1;
    }
    k = skip_blanks(b, k);
    match b.get(k) {
        Some(b'=') if b.get(k + 1) == Some(&b'=') => return None,
        Some(b'=') if b.get(k + 1) == Some(&b'>') => k += 2,
        Some(b'=') => k += 1,
        Some(b':') if b[k + 1..].starts_with(b"//") => return None,
        Some(b':') => k += 1,
        _ => return None,
    }
    k = skip_blanks(b, k);
    let q = *b.get(k)?;
    let (start, end) = if q == b'"' || q == b'\'' || q == b'`' {
        let start = k + 1;
        let mut e = start;
        while e < b.len() && b[e] != q && b[e] != b'\n' {
            e += if b[e] == b'\\' && e + 1 < b.len() && b[e + 1] != b'\n' {
                2
            } else {
                1
            };
        }
        (start, e.min(b.len()))
    } else {
        (k, unquoted_end(b, k))
    };
    let quoted = start > k;
    let mut end = end;
    // `token: Bearer abc…`: the scheme is not the secret, the word after it is.
    let scheme = [&b"bearer"[..], b"basic", b"token"]
        .iter()
        .any(|s| b[start..end].eq_ignore_ascii_case(s));
    if !quoted && scheme && b.get(end) == Some(&b' ') {
        end = unquoted_end(b, skip_blanks(b, end));
    }
    let value = &b[start..end];
    let skip = value.is_empty()
        || (!quoted && value.len() < 3)
        || matches!(value[0], b'{' | b'[' | b'(' | b'$')
        || [&b"null"[..], b"true", b"false", b"undefined", b"None"].contains(&value);
    (!skip).then_some(Match {
        keep_to: start,
        then: "",
        resume: end,
    })
}

/// [`Redactor::redact`] with the built-in rules only.
pub fn redact(text: &str) -> Cow<'_, str> {
    Redactor::default().redact(text)
}
