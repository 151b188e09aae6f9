//! Session start: the init marker, the alive log line and the bounded summary of the
//! project's memory files that the agent sees in its system prompt.
//!
//! The shim reads the files and the clock; this module only turns them into text.

use crate::config::MemoryConfig;

/// One memory file as the shim found it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct MemoryFile {
    /// Path relative to the project root, as configured.
    pub path: String,
    /// The file's text, or `None` when it does not exist or could not be read.
    pub content: Option<String>,
}

/// The summary given to the agent, and what went into it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Text for the system prompt; empty when no memory file had content.
    pub text: String,
    /// Files whose content is (at least partly) in the summary.
    pub loaded: Vec<String>,
    /// Files that were configured but absent or empty.
    pub missing: Vec<String>,
    /// Whether any file was cut to fit the bounds.
    pub truncated: bool,
}

const OPEN: &str = "<nso-session-context>\nProject memory loaded by NSO at session start \
(read-only context; the files named below hold the full text).\n";
const CLOSE: &str = "</nso-session-context>";

/// Builds the session summary within the configured byte bounds.
///
/// Files are taken in order; each is cut at `max_bytes_per_file`, and the whole text at
/// `max_bytes`, always at a character boundary and with a note saying how much was left out,
/// so the agent knows to read the file itself.
pub fn build_summary(files: &[MemoryFile], limits: &MemoryConfig) -> Summary {
    let mut summary = Summary {
        text: String::new(),
        loaded: vec![],
        missing: vec![],
        truncated: false,
    };
    if !limits.enabled {
        return summary;
    }
    let mut body = String::new();
    let budget = limits.max_bytes.saturating_sub(OPEN.len() + CLOSE.len());
    for file in files {
        let content = file.content.as_deref().map(str::trim).unwrap_or("");
        if content.is_empty() {
            summary.missing.push(file.path.clone());
            continue;
        }
        let heading = format!("\n## {}\n", file.path);
        let room = budget.saturating_sub(body.len() + heading.len());
        // Below this, an excerpt says nothing useful: name the file instead.
        const MIN_EXCERPT: usize = 64;
        let cap = limits.max_bytes_per_file.min(room);
        if cap < MIN_EXCERPT {
            summary.truncated = true;
            let note = format!("\n(omitted for space: {})\n", file.path);
            if body.len() + note.len() <= budget {
                body.push_str(&note);
            }
            continue;
        }
        body.push_str(&heading);
        if content.len() <= cap {
            body.push_str(content);
            body.push('\n');
        } else {
            let note_room = 80;
            let cut = floor_char_boundary(content, cap.saturating_sub(note_room));
            body.push_str(&content[..cut]);
            body.push_str(&format!(
                "\n[… truncated: {} more bytes in {}]\n",
                content.len() - cut,
                file.path
            ));
            summary.truncated = true;
        }
        summary.loaded.push(file.path.clone());
    }
    if !summary.loaded.is_empty() {
        summary.text = format!("{OPEN}{body}{CLOSE}");
    }
    summary
}

/// The largest index `<= at` that is a char boundary of `s`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

/// Text of `.opencode/logs/session_init_marker.txt`.
pub fn marker_text(session_id: &str, now_iso: &str, summary: &Summary) -> String {
    let list = |v: &[String]| {
        if v.is_empty() {
            "(none)".to_string()
        } else {
            v.join(", ")
        }
    };
    format!(
        "initialized: {now_iso}\nsession: {session_id}\nplugin: nso {}\nmemory loaded: {}\nmemory missing: {}\n",
        crate::VERSION,
        list(&summary.loaded),
        list(&summary.missing),
    )
}

/// One line for `.opencode/logs/plugin_alive.log`.
pub fn alive_line(session_id: &str, now_iso: &str) -> String {
    format!(
        "{now_iso} nso {} session.created {session_id}\n",
        crate::VERSION
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, content: Option<&str>) -> MemoryFile {
        MemoryFile {
            path: path.to_string(),
            content: content.map(str::to_string),
        }
    }

    fn limits(max_bytes: usize, per_file: usize) -> MemoryConfig {
        MemoryConfig {
            max_bytes,
            max_bytes_per_file: per_file,
            ..MemoryConfig::default()
        }
    }

    #[test]
    fn loads_present_files_and_lists_missing_ones() {
        let s = build_summary(
            &[
                file("a.md", Some("alpha")),
                file("b.md", None),
                file("c.md", Some("  \n")),
            ],
            &MemoryConfig::default(),
        );
        assert_eq!(s.loaded, vec!["a.md"]);
        assert_eq!(s.missing, vec!["b.md", "c.md"]);
        assert!(s.text.starts_with("<nso-session-context>"));
        assert!(s.text.contains("## a.md\nalpha\n"));
        assert!(s.text.ends_with("</nso-session-context>"));
        assert!(!s.truncated);
    }

    #[test]
    fn nothing_to_load_gives_empty_text() {
        let s = build_summary(&[file("a.md", None)], &MemoryConfig::default());
        assert_eq!(s.text, "");
        let disabled = MemoryConfig {
            enabled: false,
            ..MemoryConfig::default()
        };
        assert_eq!(
            build_summary(&[file("a.md", Some("x"))], &disabled).text,
            ""
        );
    }

    #[test]
    fn stays_within_bounds_on_char_boundaries() {
        let big = "é".repeat(5_000); // 10,000 bytes of two-byte chars
        for (max, per) in [(1_000, 600), (400, 10_000), (100_000, 300), (200, 200)] {
            let s = build_summary(
                &[file("a.md", Some(&big)), file("b.md", Some(&big))],
                &limits(max, per),
            );
            assert!(s.text.len() <= max, "{} > {max}", s.text.len());
            assert!(s.truncated);
        }
        let s = build_summary(&[file("a.md", Some(&big))], &limits(1_000, 600));
        assert!(s.text.contains("more bytes in a.md]"));
    }

    #[test]
    fn marker_names_time_and_session() {
        let s = build_summary(
            &[file("a.md", Some("x")), file("b.md", None)],
            &MemoryConfig::default(),
        );
        let m = marker_text("ses_1", "2026-11-22T08:00:00.000Z", &s);
        assert!(m.starts_with("initialized: 2026-11-22T08:00:00.000Z\nsession: ses_1\n"));
        assert!(m.contains("memory loaded: a.md\n") && m.contains("memory missing: b.md\n"));
        assert_eq!(alive_line("ses_1", "T").lines().count(), 1);
    }
}
