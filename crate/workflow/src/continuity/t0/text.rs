//! Shaping text for a transcript: sizes, durations, cuts at character boundaries, one-line
//! quoted values, and indented blocks.

/// `text` without a leading `Error: ` / `SomethingError: ` (how OpenCode shows a thrown error).
pub(super) fn strip_error_name(text: &str) -> &str {
    match text.split_once(": ") {
        Some((name, rest))
            if name.ends_with("Error") && name.bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            rest
        }
        _ => text,
    }
}

/// `n` bytes as `12B`, `2.3KB`, `4.0MB`, `1.5GB` (1024-based, one decimal, rounded).
pub fn format_size(n: u64) -> String {
    if n < 1024 {
        return format!("{n}B");
    }
    let mut unit = 1024u128;
    for name in ["KB", "MB", "GB"] {
        let tenths = (n as u128 * 10 + unit / 2) / unit;
        if tenths < 10_240 || name == "GB" {
            return format!("{}.{}{name}", tenths / 10, tenths % 10);
        }
        unit *= 1024;
    }
    format!("{n}B")
}

/// A duration: `120ms` under a second, else `2.3s` (one decimal, rounded down).
pub fn format_duration(ms: i64) -> String {
    let ms = ms.max(0);
    if ms < 1000 {
        format!("{ms}ms")
    } else {
        format!("{}.{}s", ms / 1000, (ms % 1000) / 100)
    }
}

/// The longest prefix of `s` of at most `bytes` bytes that ends at a character boundary.
pub(super) fn cut(s: &str, bytes: usize) -> &str {
    if s.len() <= bytes {
        return s;
    }
    let mut end = bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `s` clipped to `chars` characters, with `…` when cut.
pub(super) fn clip(s: &str, chars: usize) -> String {
    match s.char_indices().nth(chars) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Line ends as `\n`, ANSI escape sequences removed, other control characters (but tab)
/// as `�`.
pub(super) fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\n' | '\t' => out.push(c),
            '\u{1b}' => {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    // CSI: parameters, then one final byte in @..~.
                    for k in chars.by_ref() {
                        if ('@'..='~').contains(&k) {
                            break;
                        }
                    }
                }
            }
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// One line: whitespace runs (line ends included) as one space, trimmed.
pub(super) fn one_line(s: &str) -> String {
    sanitize(s).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `"s"` with `\` and `"` escaped; `s` is one line, clipped to `chars`.
pub(super) fn quote(s: &str, chars: usize) -> String {
    let mut out = String::from("\"");
    for c in clip(&one_line(s), chars).chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Appends `label` and `text` as a block: the first line after the label, further lines
/// indented two spaces; blank lines at both ends dropped. False when the text is empty.
pub(super) fn push_block(out: &mut String, label: &str, text: &str) -> bool {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let Some(first) = lines.iter().position(|l| !l.trim().is_empty()) else {
        return false;
    };
    let last = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .unwrap_or(first);
    out.push_str(label);
    for (k, line) in lines[first..=last].iter().enumerate() {
        if k == 0 {
            out.push(' ');
            out.push_str(line);
        } else if line.is_empty() {
            out.push('\n');
            continue;
        } else {
            out.push_str("\n  ");
            out.push_str(line);
        }
    }
    out.push('\n');
    true
}
