//! The activity feed record of one PreToolUse call, as the Node adapter writes it
//! (plugin/activity.js with the feed plugin/hosts/claude-code.js names): one JSON-lines file
//! per Claude Code session under `<conductor home>/activity/`, an `instance` line first, the
//! file rotated past 2 MiB. Mission Control (`nso mc`) reads it; it cannot tell which
//! process wrote a line.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Version of the feed's records (`v`).
const FEED_VERSION: u32 = 1;
/// A feed larger than this is renamed to `<name>.1` and a new one started.
const ROTATE_BYTES: usize = 2 << 20;
/// Processes between a hook and Claude Code itself (plugin/hosts/claude-code.js `SHELLS`).
const SHELLS: [&str; 8] = [
    "sh", "bash", "dash", "zsh", "fish", "env", "timeout", "nso-hook",
];

/// A JSON value of the feed, encoded as JavaScript's `JSON.stringify` encodes it.
pub enum Field {
    /// A string, clipped to its bound (in UTF-16 units, as the plugin counts).
    Text(String),
    /// A number.
    Number(u128),
    /// `null`.
    Null,
}

/// Milliseconds since the epoch (`Date.now()`).
pub fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// The machine's name (`os.hostname()`).
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim_end_matches('\n').to_string())
        .unwrap_or_default()
}

/// The feed file's name for the Claude Code session `session_id` (`None`: absent).
pub fn feed_name(session_id: Option<&str>) -> String {
    let host: String = hostname()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    // The plugin replaces each UTF-16 unit outside [A-Za-z0-9_-], then keeps 64 units.
    let mut session = String::new();
    for c in session_id.unwrap_or("none").chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            session.push(c);
        } else {
            session.push_str(&"_".repeat(c.len_utf16()));
        }
    }
    session.truncate(64);
    format!("claude-code-{host}-{session}.jsonl")
}

/// One record line: `{"v":1,"t":..,"kind":..,<fields>}` with the plugin's clipping.
pub fn record_line(t: u128, kind: &str, fields: &[(&str, Field)]) -> String {
    let mut line = format!(
        "{{\"v\":{FEED_VERSION},\"t\":{t},\"kind\":{}",
        js_string(kind, usize::MAX)
    );
    for (key, value) in fields {
        let bound = match *key {
            "message" => 2000,
            "target" => 500,
            "task" | "title" => 300,
            _ => 200,
        };
        let encoded = match value {
            Field::Text(s) => js_string(s, bound),
            Field::Number(n) => n.to_string(),
            Field::Null => "null".to_string(),
        };
        line.push_str(&format!(",{}:{encoded}", js_string(key, usize::MAX)));
    }
    line.push_str("}\n");
    line
}

/// `JSON.stringify(clip(s, max))`: at most `max` UTF-16 units, a cut marked `…`; a surrogate
/// pair the cut splits leaves its first half, escaped, as JavaScript leaves it.
fn js_string(s: &str, max: usize) -> String {
    let units: Vec<u16> = s.encode_utf16().collect();
    let mut kept: Vec<u16> = if units.len() > max {
        let mut k = units[..max - 1].to_vec();
        k.push(0x2026);
        k
    } else {
        units
    };
    let mut out = String::with_capacity(kept.len() + 2);
    out.push('"');
    for unit in char::decode_utf16(kept.drain(..)) {
        match unit {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\r') => out.push_str("\\r"),
            Ok('\t') => out.push_str("\\t"),
            Ok('\u{8}') => out.push_str("\\b"),
            Ok('\u{c}') => out.push_str("\\f"),
            Ok(c) if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            Ok(c) => out.push(c),
            Err(e) => out.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
        }
    }
    out.push('"');
    out
}

/// Where the feeds live: `conductor.home` (from the project root), else `$CONDUCTOR_HOME`,
/// else `~/.conductor` (plugin/claims.js `home`, plugin/conductor/home.js `resolveHome`).
pub fn home(root: &str, configured: Option<&str>, process_dir: &str) -> String {
    if let Some(h) = configured.filter(|h| !h.is_empty()) {
        return crate::paths::resolve(root, h);
    }
    let env = std::env::var("CONDUCTOR_HOME")
        .ok()
        .filter(|h| !h.is_empty());
    let dir = env.unwrap_or_else(|| {
        let user = std::env::var("HOME").unwrap_or_default();
        format!("{user}/.conductor")
    });
    crate::paths::resolve(process_dir, &dir)
}

/// What the `instance` line says about the process the feed stands for.
pub struct Instance {
    /// `project`: the root's last part.
    pub project: String,
    /// `root`: the project root.
    pub root: String,
    /// `started`: when this process began (ms).
    pub started: u128,
}

/// Appends `records` (encoded lines) to the feed `name` under `home`, with the `instance`
/// line first in a new or rotated file. Errors are returned as text for `nso-errors.log`.
pub fn append(home: &str, name: &str, records: &str, instance: &Instance) -> Result<(), String> {
    let dir = PathBuf::from(home).join("activity");
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .map_err(|e| e.to_string())?;
    let file = dir.join(name);
    let size = std::fs::metadata(&file).map_or(0, |m| m.len() as usize);
    let mut text = if size == 0 {
        instance_line(instance)
    } else {
        String::new()
    };
    text.push_str(records);
    // The plugin compares the file's bytes with the text's UTF-16 length.
    if size > 0 && size + text.encode_utf16().count() > ROTATE_BYTES {
        let mut old = file.clone().into_os_string();
        old.push(".1");
        std::fs::rename(&file, &old).map_err(|e| e.to_string())?;
        text = instance_line(instance) + &text;
    }
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&file)
        .map_err(|e| e.to_string())?;
    out.write_all(text.as_bytes()).map_err(|e| e.to_string())
}

fn instance_line(i: &Instance) -> String {
    let pid = host_pid();
    let token = process_start_token(pid).map_or(Field::Null, Field::Text);
    record_line(
        now_ms(),
        "instance",
        &[
            ("pid", Field::Number(u128::from(pid))),
            ("host", Field::Text(hostname())),
            ("started", Field::Number(i.started)),
            ("processStarted", token),
            ("project", Field::Text(i.project.clone())),
            ("root", Field::Text(i.root.clone())),
            ("serverUrl", Field::Null),
            ("nso", Field::Text(nso_workflow::VERSION.to_string())),
        ],
    )
}

/// What /proc says about process `pid`: its name, state, parent and start time (field 22).
struct Proc {
    name: String,
    state: String,
    parent: u32,
    start: String,
}

fn proc_info(pid: u32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat.get(open + 1..close)?.to_string();
    // The name may hold spaces and parentheses: fields are counted from the last ")".
    let fields: Vec<&str> = stat.get(close + 2..)?.split(' ').collect();
    Some(Proc {
        name,
        state: fields.first()?.to_string(),
        parent: fields.get(1)?.parse().ok()?,
        start: fields.get(19).unwrap_or(&"").to_string(),
    })
}

/// The long-lived Claude Code process this hook runs for: the first ancestor that is not a
/// shell or a launcher (plugin/hosts/claude-code.js `hostPid`).
pub fn host_pid() -> u32 {
    let start = std::os::unix::process::parent_id();
    let mut pid = start;
    for _ in 0..8 {
        if pid <= 1 {
            break;
        }
        let Some(found) = proc_info(pid) else {
            return pid;
        };
        if !SHELLS.contains(&found.name.as_str()) {
            return pid;
        }
        pid = found.parent;
    }
    start
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The start token of process `pid` (plugin/conductor/liveness.js `processStartToken`).
fn process_start_token(pid: u32) -> Option<String> {
    let found = proc_info(pid)?;
    (!found.start.is_empty()).then(|| format!("{}@{}", found.start, boot_id()))
}

/// The state (`R`, `S`, `Z`, ...) of process `pid` and its start token as liveness checks
/// compare it; `None` when it does not exist.
pub fn process_state(pid: u32) -> Option<(String, Option<String>)> {
    let found = proc_info(pid)?;
    Some((found.state, Some(format!("{}@{}", found.start, boot_id()))))
}

/// The project's name as the feed shows it (`path.basename(root)`).
pub fn project_name(root: &str) -> String {
    Path::new(root)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
