//! Programs that write, create or delete files, and which of their arguments they touch.
//!
//! Convention: `Create` when a new directory entry is the point (mkdir, touch, ln, the
//! destination of mv); `Write` when content is (over)written (redirects, cp, tee, sed -i,
//! downloads, archives); `Delete` when entries are removed. Writes whose names come from
//! data (tar/unzip extraction, patch, `curl -O` of a dynamic URL) are dynamic writes under
//! the target directory (`dir/` + unknown; `""` + unknown means the current directory).

use super::analyze::{Analyzer, Exec};
use super::args::{parse_opts, spec, Arg, Opts, Spec};
use super::effects::FileOp;

const TOUCH: Spec<'static> = spec(b"dtr", &["date", "reference", "time"]);
const TRUNCATE: Spec<'static> = spec(b"sr", &["size", "reference"]);
const MKDIR: Spec<'static> = spec(b"mZ", &["mode", "context"]);
const SHRED: Spec<'static> = spec(b"ns", &["iterations", "size", "random-source"]);
const COPY: Spec<'static> = spec(b"tS", &["target-directory", "suffix"]);
#[rustfmt::skip]
const INSTALL: Spec<'static> = spec(
    b"mogtS",
    &["mode", "owner", "group", "target-directory", "suffix", "strip-program"],
);
const SED: Spec<'static> = Spec {
    short_val: b"efl",
    short_opt: b"i",
    long_val: &["expression", "file", "line-length"],
};
#[rustfmt::skip]
const CURL: Spec<'static> = spec(
    b"AbcCdDeEFHKmoPQrtTuUwxXyYz",
    &[
        "output", "dump-header", "cookie-jar", "output-dir", "data", "data-raw", "data-binary",
        "data-urlencode", "data-ascii", "header", "request", "user", "user-agent", "referer",
        "cookie", "form", "form-string", "upload-file", "proxy", "url", "config", "max-time",
        "connect-timeout", "retry", "write-out", "cert", "key", "cacert", "range", "continue-at",
        "trace", "trace-ascii", "stderr", "etag-save", "etag-compare", "time-cond", "resolve",
        "connect-to", "interface", "limit-rate", "max-filesize", "oauth2-bearer", "json",
        "variable", "proxy-user", "retry-delay", "retry-max-time", "speed-limit", "speed-time",
    ],
);
#[rustfmt::skip]
const WGET: Spec<'static> = spec(
    b"OoaPiUeTtwQlADRIXBd",
    &[
        "output-document", "output-file", "append-output", "directory-prefix", "input-file",
        "user-agent", "execute", "timeout", "tries", "wait", "quota", "level", "accept",
        "reject", "domains", "include-directories", "exclude-directories", "base", "header",
        "user", "password", "post-data", "post-file", "referer", "load-cookies", "save-cookies",
    ],
);
#[rustfmt::skip]
const TAR: Spec<'static> = spec(
    b"fCbKLNgTXVHFI",
    &[
        "file", "directory", "exclude", "exclude-from", "transform", "xform", "owner", "group",
        "mode", "mtime", "newer", "after-date", "format", "use-compress-program", "files-from",
        "label", "suffix", "to-command", "strip-components", "blocking-factor", "record-size",
        "listed-incremental", "starting-file", "info-script", "new-volume-script",
        "rsh-command", "rmt-command", "checkpoint-action", "index-file", "volno-file",
    ],
);
const UNZIP: Spec<'static> = spec(b"dP", &[]);
const ZIP: Spec<'static> = spec(b"bnPt", &[]);
#[rustfmt::skip]
const PATCH: Spec<'static> = spec(
    b"pdioDBFrVYzg",
    &[
        "strip", "directory", "input", "output", "ifdef", "prefix", "fuzz", "reject-file",
        "version-control", "basename-prefix", "suffix", "get", "quoting-style",
    ],
);
#[rustfmt::skip]
const RSYNC: Spec<'static> = spec(
    b"efTBM",
    &[
        "exclude", "include", "filter", "exclude-from", "include-from", "files-from", "rsh",
        "rsync-path", "log-file", "partial-dir", "backup-dir", "suffix", "temp-dir",
        "compare-dest", "copy-dest", "link-dest", "chmod", "chown", "port", "timeout",
        "bwlimit", "max-size", "min-size", "password-file", "out-format", "info", "debug",
    ],
);
const SCP: Spec<'static> = spec(b"cFiJloPS", &[]);
#[rustfmt::skip]
const SORT: Spec<'static> = spec(
    b"kotST",
    &[
        "output", "key", "field-separator", "buffer-size", "temporary-directory", "parallel",
        "batch-size", "files0-from", "compress-program", "random-source",
    ],
);
const GZIP: Spec<'static> = spec(b"S", &["suffix"]);

/// The last path component of a URL (what `curl -O` / `wget` name the file), if static.
fn url_basename<'x>(url: &Arg<'x>) -> Option<&'x str> {
    if url.is_dynamic() {
        return None;
    }
    let s = url.s;
    let s = s.split(['?', '#']).next().unwrap_or("");
    let path = match s.find("://") {
        Some(k) => s.get(k + 3..).unwrap_or(""),
        None => s,
    };
    let slash = path.find('/')?;
    let base = path.get(slash..)?.rsplit('/').next().unwrap_or("");
    (!base.is_empty()).then_some(base)
}

/// `dir/` unknown below, or unknown in the current directory when `dir` is absent.
fn under(dir: Option<Arg<'_>>) -> String {
    match dir {
        Some(d) if !d.is_dynamic() => {
            let mut s = d.s.to_string();
            if !s.ends_with('/') {
                s.push('/');
            }
            s
        }
        Some(d) => d.prefix().to_string(),
        None => String::new(),
    }
}

/// A remote `host:path` (scp/rsync) rather than a local path.
fn is_remote(a: &Arg<'_>) -> bool {
    let s = a.prefix();
    s.starts_with("rsync://")
        || s.find(':')
            .is_some_and(|c| !s.get(..c).unwrap_or("").contains('/'))
}

impl Analyzer {
    /// A write (or `op`) somewhere below `dir`.
    fn under_dir_op(&mut self, ex: &Exec<'_>, op: FileOp, dir: Option<Arg<'_>>, via: &str) {
        let path = under(dir);
        let arg = Arg {
            s: &path,
            dyn_at: Some(path.len()),
        };
        self.file(ex, op, arg, via);
    }

    fn under_dir(&mut self, ex: &Exec<'_>, dir: Option<Arg<'_>>, via: &str) {
        self.under_dir_op(ex, FileOp::Write, dir, via);
    }

    fn each(&mut self, ex: &Exec<'_>, op: FileOp, args: &[Arg<'_>], via: &str) {
        for a in args {
            self.file(ex, op, *a, via);
        }
    }

    /// Handles file-changing programs; false if `name` is not one.
    pub(crate) fn files(&mut self, name: &str, args: &[Arg<'_>], ex: &Exec<'_>) -> bool {
        let rest = args.get(1..).unwrap_or(&[]);
        match name {
            "rm" | "rmdir" | "unlink" => self.each(
                ex,
                FileOp::Delete,
                &parse_opts(rest, &Spec::FLAGS).operands,
                name,
            ),
            "shred" => {
                let o = parse_opts(rest, &SHRED);
                let op = if o.has(b"u", &["remove"]) {
                    FileOp::Delete
                } else {
                    FileOp::Write
                };
                self.each(ex, op, &o.operands, name);
            }
            "touch" => self.each(ex, FileOp::Create, &parse_opts(rest, &TOUCH).operands, name),
            "mkdir" => self.each(ex, FileOp::Create, &parse_opts(rest, &MKDIR).operands, name),
            "truncate" => self.each(
                ex,
                FileOp::Write,
                &parse_opts(rest, &TRUNCATE).operands,
                name,
            ),
            "tee" => {
                // `tee -a` appends, which append-only files accept.
                let appends = rest.iter().take_while(|a| a.s != "--").any(|a| {
                    a.s == "--append"
                        || (a.s.starts_with('-') && !a.s.starts_with("--") && a.s.contains('a'))
                });
                let via = if appends { "tee -a" } else { name };
                self.each(
                    ex,
                    FileOp::Write,
                    &parse_opts(rest, &Spec::FLAGS).operands,
                    via,
                )
            }
            "dos2unix" | "unix2dos" => self.each(
                ex,
                FileOp::Write,
                &parse_opts(rest, &Spec::FLAGS).operands,
                name,
            ),
            "chmod" | "chown" | "chgrp" => self.ownership(name, rest, ex),
            "cp" | "mv" | "ln" | "install" => self.copy(name, rest, ex),
            "dd" => {
                for a in rest {
                    if a.s.starts_with("of=") {
                        self.file(ex, FileOp::Write, a.tail(3), name);
                    }
                }
            }
            "sed" => self.sed(rest, ex),
            "curl" => self.curl(rest, ex),
            "wget" => self.wget(rest, ex),
            "tar" | "bsdtar" | "gtar" => self.tar(rest, ex),
            "unzip" => {
                let o = parse_opts(rest, &UNZIP);
                if !o.has(b"ltvZpc", &[]) {
                    self.under_dir(ex, o.value(b"d", &[]), name);
                }
            }
            "zip" => {
                if let Some(archive) = parse_opts(rest, &ZIP).operands.first() {
                    self.file(ex, FileOp::Write, *archive, name);
                }
            }
            "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "zstd" | "unzstd" => {
                let o = parse_opts(rest, &GZIP);
                if !o.has(b"cltk", &["stdout", "to-stdout", "list", "test", "keep"]) {
                    self.each(ex, FileOp::Write, &o.operands, name);
                }
            }
            "patch" => {
                let o = parse_opts(rest, &PATCH);
                if o.has(b"", &["dry-run"]) {
                    return true;
                }
                if let Some(out) = o.value(b"o", &["output"]) {
                    self.file(ex, FileOp::Write, out, name);
                } else if let Some(target) = o.operands.first() {
                    self.file(ex, FileOp::Write, *target, name);
                } else {
                    self.under_dir(ex, o.value(b"d", &["directory"]), name);
                }
            }
            "rsync" => self.rsync(rest, ex),
            "scp" => {
                let o = parse_opts(rest, &SCP);
                if let [_, .., dest] = o.operands.as_slice() {
                    if !is_remote(dest) {
                        self.file(ex, FileOp::Write, *dest, name);
                    }
                }
            }
            "sort" => {
                for f in parse_opts(rest, &SORT).values(b"o", &["output"]) {
                    self.file(ex, FileOp::Write, f, name);
                }
            }
            _ => return false,
        }
        true
    }

    /// chmod/chown/chgrp: the first operand is the mode/owner unless `--reference`.
    fn ownership(&mut self, name: &str, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let mut spec_seen = false;
        let mut dd = false;
        for a in rest {
            if !dd && a.is("--") {
                dd = true;
                continue;
            }
            let s = a.s;
            if !dd && !a.dyn_start() && s.starts_with("--") {
                spec_seen |= s.starts_with("--reference");
                continue;
            }
            // `chmod -x f`: a mode, not an option.
            let mode_like = name == "chmod"
                && s.len() > 1
                && s.bytes()
                    .skip(1)
                    .all(|c| b"rwxXstugoa+-=,01234567".contains(&c));
            if !dd && !a.dyn_start() && s.len() > 1 && s.starts_with('-') && !mode_like {
                continue;
            }
            if !spec_seen {
                spec_seen = true;
                continue;
            }
            self.file(ex, FileOp::Write, *a, name);
        }
    }

    /// cp/mv/ln/install: destination (last operand or `-t DIR`), and for mv the sources.
    fn copy(&mut self, name: &str, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let o: Opts<'_> = parse_opts(rest, if name == "install" { &INSTALL } else { &COPY });
        if name == "install" && o.has(b"d", &["directory"]) {
            self.each(ex, FileOp::Create, &o.operands, name);
            return;
        }
        let target = o.value(b"t", &["target-directory"]);
        let (sources, dest) = match (target, o.operands.as_slice()) {
            (Some(t), ops) => (ops, Some(t)),
            (None, [one]) if name == "ln" => {
                // `ln -s path`: link named after the target's basename, here.
                let base = one.s.rsplit('/').next().unwrap_or("");
                let link = Arg {
                    s: base,
                    dyn_at: one
                        .dyn_at
                        .map(|d| d.saturating_sub(one.s.len() - base.len())),
                };
                (&[][..], Some(link))
            }
            (None, [sources @ .., last]) if !sources.is_empty() => (sources, Some(*last)),
            _ => (&[][..], None),
        };
        let Some(dest) = dest else {
            return;
        };
        let op = if matches!(name, "cp" | "install") {
            FileOp::Write
        } else {
            FileOp::Create
        };
        if name == "mv" {
            self.each(ex, FileOp::Delete, sources, name);
        }
        self.file(ex, op, dest, name);
    }

    fn sed(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        // BSD `sed -i '' script files`: the empty word is the backup suffix.
        let mut filtered: Vec<Arg<'_>> = Vec::with_capacity(rest.len());
        let mut prev_i = false;
        for a in rest {
            if prev_i && a.is("") {
                prev_i = false;
                continue;
            }
            prev_i = a.is("-i");
            filtered.push(*a);
        }
        let o = parse_opts(&filtered, &SED);
        if !(o.has(b"i", &["in-place"]) || o.dyn_opt) {
            return;
        }
        let skip = usize::from(!o.has(b"ef", &["expression", "file"]));
        for f in o.operands.iter().skip(skip) {
            self.file(ex, FileOp::Write, *f, "sed -i");
        }
    }

    fn curl(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let o = parse_opts(rest, &CURL);
        let outputs = [
            (&b"o"[..], &["output"][..]),
            (b"D", &["dump-header"]),
            (b"c", &["cookie-jar"]),
            (b"", &["trace", "trace-ascii", "stderr", "etag-save"]),
        ];
        for (short, long) in outputs {
            for f in o.values(short, long) {
                if !f.is("-") {
                    self.file(ex, FileOp::Write, f, "curl");
                }
            }
        }
        if o.has(b"O", &["remote-name", "remote-name-all"]) {
            let dir = o.value(b"", &["output-dir"]);
            let urls = o.operands.iter().copied().chain(o.values(b"", &["url"]));
            for url in urls {
                match (url_basename(&url), dir) {
                    (Some(base), None) => self.file(ex, FileOp::Write, Arg::lit(base), "curl -O"),
                    (Some(base), Some(d)) if !d.is_dynamic() => {
                        let path = format!("{}/{base}", d.s.trim_end_matches('/'));
                        self.file(ex, FileOp::Write, Arg::lit(&path), "curl -O");
                    }
                    _ => self.under_dir(ex, dir, "curl -O"),
                }
            }
        }
    }

    fn wget(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let o = parse_opts(rest, &WGET);
        for f in o.values(b"oa", &["output-file", "append-output", "save-cookies"]) {
            self.file(ex, FileOp::Write, f, "wget");
        }
        if o.has(b"", &["spider"]) {
            return;
        }
        if let Some(doc) = o.value(b"O", &["output-document"]) {
            if !doc.is("-") {
                self.file(ex, FileOp::Write, doc, "wget");
            }
            return;
        }
        let prefix = o.value(b"P", &["directory-prefix"]);
        let recursive = o.has(
            b"rmi",
            &["recursive", "mirror", "input-file", "page-requisites"],
        );
        if recursive {
            self.under_dir(ex, prefix, "wget");
            return;
        }
        for url in &o.operands {
            let base = url_basename(url).unwrap_or("index.html");
            match prefix {
                _ if url.is_dynamic() => self.under_dir(ex, prefix, "wget"),
                None => self.file(ex, FileOp::Write, Arg::lit(base), "wget"),
                Some(p) if !p.is_dynamic() => {
                    let path = format!("{}/{base}", p.s.trim_end_matches('/'));
                    self.file(ex, FileOp::Write, Arg::lit(&path), "wget");
                }
                Some(_) => self.under_dir(ex, prefix, "wget"),
            }
        }
    }

    fn tar(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        // Old-style `tar xzf archive`: the first word is a bundle of letters without `-`.
        let mut normalized: Vec<Arg<'_>> = Vec::with_capacity(rest.len());
        let mut mode = String::new();
        let mut body = rest;
        if let Some(first) = rest.first() {
            if !first.is_dynamic()
                && !first.s.starts_with('-')
                && first.s.bytes().all(|c| c.is_ascii_alphabetic())
            {
                mode.push_str(first.s);
                body = rest.get(1..).unwrap_or(&[]);
                // letters taking values consume the following words in order
                let mut values = body.iter();
                for c in first.s.bytes() {
                    if TAR.short_val.contains(&c) {
                        if let Some(v) = values.next() {
                            normalized.push(Arg::lit(match c {
                                b'f' => "--file",
                                b'C' => "--directory",
                                _ => "--label",
                            }));
                            normalized.push(*v);
                        }
                    }
                }
                body = values.as_slice();
            }
        }
        normalized.extend_from_slice(body);
        let o = parse_opts(&normalized, &TAR);
        let has = |c: u8, long: &[&str]| mode.as_bytes().contains(&c) || o.has(&[c], long);
        let extract = has(b'x', &["extract", "get"]);
        let create = has(b'c', &["create"])
            || has(b'r', &["append"])
            || has(b'u', &["update"])
            || has(b'A', &["concatenate", "catenate"]);
        for prog in o.values(
            b"FI",
            &[
                "to-command",
                "use-compress-program",
                "info-script",
                "new-volume-script",
                "rsh-command",
                "rmt-command",
            ],
        ) {
            self.nested(ex, prog.s, prog.is_dynamic());
        }
        if create {
            if let Some(archive) = o.value(b"f", &["file"]) {
                if !archive.is("-") {
                    self.file(ex, FileOp::Write, archive, "tar");
                }
            }
            if o.has(b"", &["remove-files"]) {
                self.each(ex, FileOp::Delete, &o.operands, "tar --remove-files");
            }
        }
        if extract && !has(b'O', &["to-stdout"]) {
            let dirs: Vec<Arg<'_>> = o.values(b"C", &["directory"]).collect();
            if dirs.is_empty() {
                self.under_dir(ex, None, "tar -x");
            }
            for d in dirs {
                self.under_dir(ex, Some(d), "tar -x");
            }
        }
    }

    fn rsync(&mut self, rest: &[Arg<'_>], ex: &Exec<'_>) {
        let o = parse_opts(rest, &RSYNC);
        if o.has(b"n", &["dry-run", "list-only"]) {
            return;
        }
        let [sources @ .., dest] = o.operands.as_slice() else {
            return;
        };
        if sources.is_empty() || is_remote(dest) {
            return;
        }
        self.file(ex, FileOp::Write, *dest, "rsync");
        let deletes = o
            .opts
            .iter()
            .any(|(n, _)| matches!(n, super::args::OptName::Long(l) if l.starts_with("del")));
        if deletes {
            self.under_dir_op(ex, FileOp::Delete, Some(*dest), "rsync --delete");
        }
        if o.has(b"", &["remove-source-files"]) {
            for s in sources.iter().filter(|s| !is_remote(s)) {
                self.file(ex, FileOp::Delete, *s, "rsync --remove-source-files");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_names() {
        assert_eq!(
            url_basename(&Arg::lit("https://x.org/a/b.tgz?x=1")),
            Some("b.tgz")
        );
        assert_eq!(url_basename(&Arg::lit("https://x.org/")), None);
        assert_eq!(url_basename(&Arg::lit("https://x.org")), None);
        assert_eq!(url_basename(&Arg::UNKNOWN), None);
    }

    #[test]
    fn remotes() {
        assert!(is_remote(&Arg::lit("host:/x")));
        assert!(is_remote(&Arg::lit("rsync://h/m")));
        assert!(!is_remote(&Arg::lit("./a:b")));
        assert!(!is_remote(&Arg::lit("dir/")));
    }

    #[test]
    fn under_dirs() {
        assert_eq!(under(Some(Arg::lit("out"))), "out/");
        assert_eq!(under(Some(Arg::lit("out/"))), "out/");
        assert_eq!(under(None), "");
    }
}
