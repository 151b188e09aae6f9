//! The file system as NSO's decisions see it, answered to the core (`authority::Facts`)
//! exactly as the plugin answers it (plugin/decision/files.js): lexical path resolution (Node's
//! `path.resolve`), real locations behind symlinks, bounded reads of current contents.

use std::collections::HashMap;
use std::io;

use nso_decision::authority::FileText;

/// Node's `path.resolve(base, p)` on POSIX: `p` taken from `base` unless absolute, `.` and
/// `..` applied lexically (no symlinks followed), no trailing slash.
pub fn resolve(base: &str, p: &str) -> String {
    let joined = if p.starts_with('/') {
        p.to_string()
    } else {
        format!("{base}/{p}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

fn parent_of(p: &str) -> &str {
    match p.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &p[..i],
    }
}

fn name_of(p: &str) -> &str {
    p.rfind('/').map_or(p, |i| &p[i + 1..])
}

fn join_to(dir: &str, name: &str) -> String {
    if dir == "/" {
        format!("/{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// Real locations of folders seen during this call (one process is one call here).
#[derive(Default)]
pub struct RealPaths {
    dirs: HashMap<String, String>,
}

impl RealPaths {
    fn real_dir(&mut self, dir: &str) -> String {
        if let Some(real) = self.dirs.get(dir) {
            return real.clone();
        }
        let real = if dir == "/" {
            dir.to_string()
        } else {
            let base = self.real_dir(parent_of(dir));
            let candidate = join_to(&base, name_of(dir));
            self.resolve_link(&base, candidate, 0).0
        };
        self.dirs.insert(dir.to_string(), real.clone());
        real
    }

    /// `(real path, exists)` of `candidate` inside the real folder `dir`, following a
    /// symlink in its last part (at most 40 deep, as the plugin).
    fn resolve_link(&mut self, dir: &str, candidate: String, depth: u32) -> (String, bool) {
        // Not reachable (a file on the way, no permission, a loop, too long): nothing there
        // that a call could use or write either.
        let Ok(meta) = std::fs::symlink_metadata(&candidate) else {
            return (candidate, false);
        };
        if !meta.file_type().is_symlink() || depth > 40 {
            return (candidate, true);
        }
        let Ok(target) = std::fs::read_link(&candidate) else {
            return (candidate, true);
        };
        let Some(target) = target.to_str() else {
            // Node would read the link text as lossy UTF-8; a non-UTF-8 target cannot be a
            // path NSO names, so it is reported as the link itself.
            return (candidate, true);
        };
        let next = resolve(dir, target);
        let next_dir = self.real_dir(parent_of(&next));
        let next_candidate = join_to(&next_dir, name_of(&next));
        self.resolve_link(&next_dir, next_candidate, depth + 1)
    }

    /// `(real path, exists)` of the absolute path `abs`: symlinks in every folder on the
    /// way and in the last part are followed (a dangling link: where a write would land,
    /// not existing); parts that do not exist yet are kept as written. Never fails.
    pub fn info(&mut self, abs: &str) -> (String, bool) {
        let clean = resolve("/", abs);
        if clean == "/" {
            return (clean, true);
        }
        let dir = self.real_dir(parent_of(&clean));
        let candidate = join_to(&dir, name_of(&clean));
        self.resolve_link(&dir, candidate, 0)
    }
}

impl nso_decision::authority::Facts for RealPaths {
    fn real_path(&mut self, abs: &str) -> Result<(String, bool), String> {
        Ok(self.info(abs))
    }

    fn read(&mut self, abs: &str, max_bytes: u64) -> Result<FileText, String> {
        match read_bounded(abs, max_bytes) {
            Ok(None) => Ok(FileText::Missing),
            Ok(Some(text)) => Ok(FileText::Text(text)),
            Err(Read::Oversized(size)) => Ok(FileText::TooLarge(size)),
            Err(Read::Failed(why)) => Err(why),
        }
    }
}

/// A file's current content for a content check (plugin/decision/files.js `readForDecision`):
/// `Ok(None)` when it does not exist, `Err(Oversized(size))` past `limit`, an I/O error
/// other than "not found" as [`Read::Failed`].
pub fn read_bounded(file: &str, limit: u64) -> Result<Option<String>, Read> {
    let meta = match std::fs::metadata(file) {
        Ok(meta) => meta,
        // Node's statSync(throwIfNoEntry: false) yields nothing only when nothing is there.
        Err(e) if not_found(&e) => return Ok(None),
        Err(e) => return Err(Read::Failed(e.to_string())),
    };
    if meta.is_file() && meta.len() > limit {
        return Err(Read::Oversized(meta.len()));
    }
    match std::fs::read(file) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if not_found(&e) => Ok(None),
        Err(e) => Err(Read::Failed(e.to_string())),
    }
}

/// Why [`read_bounded`] gave no content.
#[derive(Debug)]
pub enum Read {
    /// Larger than the limit: its size in bytes.
    Oversized(u64),
    /// Could not be read (a folder, no permission, ...): why.
    Failed(String),
}

/// ENOENT or ENOTDIR: Node's "does not exist".
pub fn not_found(e: &io::Error) -> bool {
    // ENOTDIR is 20 on Linux and the BSDs; io::ErrorKind::NotADirectory is not stable on
    // older toolchains, so the raw code is compared.
    e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_node() {
        // Expected values from node: path.resolve(base, p).
        assert_eq!(resolve("/a/b", "c/../d/./e/"), "/a/b/d/e");
        assert_eq!(resolve("/a", "/x//y/.."), "/x");
        assert_eq!(resolve("/", "../.."), "/");
        assert_eq!(resolve("/a/b/", ""), "/a/b");
    }

    #[test]
    fn a_dangling_link_is_where_a_write_lands() {
        let dir = std::env::temp_dir().join(format!("nso-hook-paths-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("real")).unwrap();
        std::os::unix::fs::symlink("real", dir.join("via")).unwrap();
        std::os::unix::fs::symlink("../elsewhere/x", dir.join("real/dangling")).unwrap();
        let base = dir.to_str().unwrap();
        let mut paths = RealPaths::default();
        assert_eq!(
            paths.info(&format!("{base}/via/new.txt")),
            (format!("{base}/real/new.txt"), false)
        );
        assert_eq!(
            paths.info(&format!("{base}/via/dangling")),
            (format!("{base}/elsewhere/x"), false)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
