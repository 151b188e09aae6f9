//! NSO's log files as the plugin writes them (plugin/logs.js): the same names, folders and
//! stamps, with the lines the core formats (`Decision::log_lines`, `AuditRecord`), so `nso
//! audit` and a person reading `nso.log` cannot tell which host decided.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Where the init marker and the alive log live (plugin/logs.js `INIT_DIR`).
pub const INIT_DIR: &str = ".opencode/logs";

/// The current time as the logs write it: JavaScript's `Date.prototype.toISOString`
/// (`2026-11-23T15:22:15.123Z`, UTC, milliseconds).
pub fn stamp() -> String {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    iso_millis(since.as_millis() as i64)
}

/// `ms` milliseconds after the epoch in `toISOString` form (the core's clock helper).
pub use nso_conductor::clock::iso_millis;

/// The first line of the `.gitignore` in NSO's state folders (plugin/state-dirs.js).
pub const STATE_MARK: &str = "# NSO runtime state: never committed (see docs/state.md)";

/// Creates the state folder `dir` and makes it ignore itself in git, as the plugin does
/// (plugin/state-dirs.js `makeStateDir`): a `.gitignore` of `*` when it has none; never in
/// `root` itself, its `.opencode/` or a folder above it.
pub fn make_state_dir(dir: &Path, root: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    if dir == root || dir == root.join(".opencode") || root.starts_with(dir) {
        return Ok(());
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.join(".gitignore"))
    {
        Ok(mut file) => file.write_all(format!("{STATE_MARK}\n*\n").as_bytes()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// The logs of one project: `log_dir` is the configured folder (relative to `root`), `None`
/// while no config is loaded (then [`INIT_DIR`], as the plugin does).
pub struct Logs {
    root: PathBuf,
    dir: PathBuf,
}

impl Logs {
    /// The logs of the project at `root`.
    pub fn new(root: &Path, log_dir: Option<&str>) -> Logs {
        Logs {
            root: root.to_path_buf(),
            dir: root.join(log_dir.unwrap_or(INIT_DIR)),
        }
    }

    /// Appends `line` (a newline added when missing) to the log `name`. A log that cannot
    /// be written is reported on stderr and never stops a decision.
    pub fn append(&self, name: &str, line: &str) {
        let result = make_state_dir(&self.dir, &self.root).and_then(|()| {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.dir.join(name))?;
            // One write call per line, as Node's appendFileSync does: concurrent hooks
            // appending to the same log do not interleave inside a line.
            let mut text = String::with_capacity(line.len() + 1);
            text.push_str(line);
            if !line.ends_with('\n') {
                text.push('\n');
            }
            file.write_all(text.as_bytes())
        });
        if let Err(e) = result {
            // Not eprintln!: a closed stderr must not panic (panic = abort).
            let _ = writeln!(std::io::stderr(), "[nso] cannot write {name}: {e}");
        }
    }

    /// A line in `nso.log`, NSO's decisions.
    pub fn decision(&self, line: &str) {
        self.append("nso.log", line);
    }

    /// A time-stamped line in `nso-errors.log`, what went wrong inside NSO.
    pub fn error(&self, text: &str) {
        self.append("nso-errors.log", &format!("{} {text}", stamp()));
    }
}

/// The `audit.jsonl` line of a call audit mode let through: the core's record, after the time.
pub fn audit_line(time: &str, record: &nso_decision::authority::AuditRecord) -> String {
    #[derive(serde::Serialize)]
    struct Line<'a> {
        t: &'a str,
        #[serde(flatten)]
        record: &'a nso_decision::authority::AuditRecord,
    }
    serde_json::to_string(&Line { t: time, record }).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_like_to_iso_string() {
        // Values checked with node: new Date(ms).toISOString().
        assert_eq!(iso_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_millis(1_795_447_335_123), "2026-11-23T15:22:15.123Z");
        assert_eq!(iso_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn log_folders_ignore_themselves_but_never_the_project() {
        let root = std::env::temp_dir().join(format!("nso-hook-logs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        Logs::new(&root, None).decision("a line");
        let ignore = std::fs::read_to_string(root.join(INIT_DIR).join(".gitignore")).unwrap();
        assert_eq!(ignore, format!("{STATE_MARK}\n*\n"));
        // A user's own .gitignore is left as it is; the root and .opencode/ are never ignored.
        std::fs::create_dir_all(root.join("mine")).unwrap();
        std::fs::write(root.join("mine/.gitignore"), "x\n").unwrap();
        Logs::new(&root, Some("mine")).decision("b");
        assert_eq!(
            std::fs::read_to_string(root.join("mine/.gitignore")).unwrap(),
            "x\n"
        );
        Logs::new(&root, Some(".")).decision("c");
        Logs::new(&root, Some(".opencode")).decision("d");
        make_state_dir(&root, &root.join("sub")).unwrap();
        assert!(!root.join(".gitignore").exists());
        assert!(!root.join(".opencode/.gitignore").exists());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
