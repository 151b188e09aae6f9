//! One project's NSO: its config and compiled policy, built exactly as the wasm boundary's
//! `Nso::new` builds them (crate/wasm/src/lib.rs) and checked as the plugin's `load()`
//! checks them (plugin/nso.js), or why NSO is not enforcing (fail closed).

use std::cell::OnceCell;
use std::path::Path;
use std::rc::Rc;

use nso_decision::authority::{self, Engine, StatusAnswer, StatusOracle, StatusQuery};
use nso_workflow::config::{self, Config};
use nso_workflow::status::{self, StatusConfig, StatusConfigError};

/// Where the config lives, relative to the project root (plugin/nso.js `CONFIG_FILE`).
pub const CONFIG_FILE: &str = ".opencode/nso.json";
/// Where project pre hooks live (plugin/decision/project-hooks.js `HOOK_DIRS.pre`).
const PRE_HOOKS: &str = ".opencode/hooks/pre_tool_use";
/// Git's variables that change where it finds a repository: with one set, git is asked.
const GIT_ENV: [&str; 4] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
];

/// Why NSO is not enforcing: the plugin's `state.failure` (`{code, message, fix}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Stable code (`config_json`, `config_unknown_agent`, ...).
    pub code: String,
    /// What is wrong, as agents read it.
    pub message: String,
    /// How to fix it.
    pub fix: String,
}

impl Failure {
    /// What agents read while NSO cannot enforce (the core's text, as every host shows it).
    pub fn text(&self) -> String {
        authority::not_enforcing(&self.message, &self.fix)
    }
}

/// A loaded project: its effective config and its engine.
pub struct Loaded {
    /// The effective configuration (defaults filled in).
    pub config: Config,
    /// The compiled policy with its status checker.
    pub engine: Engine,
}

/// The config and engine from the config text (`None`: no config file), or the failure
/// the plugin would record. The `Config` of a failure is kept when the plugin keeps it (a
/// status section problem is found after the config loaded): its `logDir` still applies.
pub fn load(text: Option<&str>) -> Result<Loaded, (Failure, Option<Box<Config>>)> {
    let config = config::parse(CONFIG_FILE, text).map_err(|e| {
        let failure = Failure {
            code: e.code.to_string(),
            message: format!("{}: {}: {}", e.file, e.path, e.problem),
            fix: e.fix.clone(),
        };
        (failure, None)
    })?;
    let mut engine = match nso_workflow::config::project_engine(&config, CONFIG_FILE) {
        Ok(engine) => engine,
        Err(errors) => return Err((policy_failure(&errors), None)),
    };
    // The plugin compiles the status machines on the first status check, except that a
    // project's own `status` section is validated at load, so a mistake in it fails closed.
    let machines = Rc::new(Machines {
        text: text.map(str::to_string),
        compiled: OnceCell::new(),
    });
    if config.status.is_some() {
        if let Err(e) = machines.compiled() {
            let failure = Failure {
                code: e.code.to_string(),
                message: format!("{CONFIG_FILE}: {}: {}", e.path, e.problem),
                fix: e.fix.clone(),
            };
            return Err((failure, Some(Box::new(config))));
        }
    }
    engine.set_status_oracle(machines);
    Ok(Loaded { config, engine })
}

/// The wasm boundary's `policy_error`, as the plugin's failure.
fn policy_failure(errors: &authority::ConfigErrors) -> Failure {
    let Some(first) = errors.first() else {
        return Failure {
            code: "internal".to_string(),
            message: "policy error without detail".to_string(),
            fix: format!("correct {CONFIG_FILE}."),
        };
    };
    let more = match errors.0.len() {
        1 => String::new(),
        n => format!(" ({} more problems: run `nso check` to list them)", n - 1),
    };
    Failure {
        code: format!("config_{}", first.code),
        message: format!("{CONFIG_FILE}: {}: {}{more}", first.path, first.message),
        fix: first.hint.clone(),
    }
}

/// The status machines, compiled on first use (the workflow package's `checkStatusEdit`
/// natively): most calls touch no status-governed file and never pay for them.
#[derive(Debug)]
struct Machines {
    text: Option<String>,
    compiled: OnceCell<Result<StatusConfig, StatusConfigError>>,
}

impl Machines {
    fn compiled(&self) -> &Result<StatusConfig, StatusConfigError> {
        self.compiled
            .get_or_init(|| status::parse_nso_json(CONFIG_FILE, self.text.as_deref()))
    }
}

impl StatusOracle for Machines {
    fn check(&self, query: &StatusQuery) -> StatusAnswer {
        match self.compiled() {
            Ok(config) => status::oracle::answer(query, config),
            Err(e) => StatusAnswer {
                allowed: false,
                machine: None,
                builtin: false,
                detail: format!("the status machines cannot be checked because {e}"),
            },
        }
    }
}

/// The folder `git rev-parse --show-toplevel` names for `cwd` (its real path), else `cwd`;
/// `Err` when only git can tell.
pub fn git_root(cwd: &str) -> Result<String, &'static str> {
    if GIT_ENV.iter().any(|v| std::env::var_os(v).is_some()) {
        return Err("git's environment decides where the project is");
    }
    let Ok(real) = std::fs::canonicalize(cwd) else {
        return Ok(cwd.to_string()); // git cannot run there: the adapter takes `cwd`
    };
    let Some(real) = real.to_str().map(str::to_string) else {
        return Err("the working folder's name is not UTF-8");
    };
    if real.split('/').any(|part| part == ".git") {
        return Err("the working folder is inside a .git folder");
    }
    let mut dir = real.as_str();
    loop {
        let dot_git = Path::new(dir).join(".git");
        if let Ok(meta) = std::fs::metadata(&dot_git) {
            let looks_right = if meta.is_dir() {
                dot_git.join("HEAD").is_file()
            } else {
                std::fs::read(&dot_git).is_ok_and(|b| b.starts_with(b"gitdir: "))
            };
            if !looks_right {
                return Err("a .git that does not look like a repository");
            }
            // git refuses a repository another user owns (safe.directory).
            use std::os::unix::fs::MetadataExt;
            let me = std::fs::metadata("/proc/self").map(|m| m.uid());
            let owner = std::fs::metadata(dir).map(|m| m.uid());
            return match (me, owner) {
                (Ok(me), Ok(owner)) if me == owner => Ok(dir.to_string()),
                _ => Err("a repository owned by another user"),
            };
        }
        if dir == "/" {
            return Ok(cwd.to_string());
        }
        dir = match dir.rfind('/') {
            Some(0) | None => "/",
            Some(i) => &dir[..i],
        };
    }
}

/// The config text (`None`: no config file); `Err` when it exists but cannot be read.
pub fn read_config(root: &str) -> Result<Option<String>, ()> {
    match std::fs::read(Path::new(root).join(CONFIG_FILE)) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if crate::paths::not_found(&e) => Ok(None),
        Err(_) => Err(()),
    }
}

/// Whether the project has a pre hook script to run: an executable file (or a link to one)
/// in [`PRE_HOOKS`] (plugin/decision/project-hooks.js `listHookScripts`).
pub fn has_pre_hooks(root: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Ok(entries) = std::fs::read_dir(Path::new(root).join(PRE_HOOKS)) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let kind = entry.file_type().ok();
        let candidate = kind.is_some_and(|k| k.is_file() || k.is_symlink());
        // Any execute bit stands for the plugin's access(X_OK): over-counting only sends
        // a call to the Node adapter, which then decides exactly.
        candidate
            && std::fs::metadata(entry.path())
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}
