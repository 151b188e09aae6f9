//! What the analysis knows about the shell's variables at one point of a command.
//!
//! A variable is known only when the command itself gave it a value (`X=v;`, `export X=v`,
//! `declare`, a `for` loop); anything else (the environment, `read`, `$(...)`, a branch that
//! may not run) is unknown, which is what an absent entry means. The analyser keeps one
//! [`Vars`] per shell: subshells, pipeline members and substitutions get a copy that is
//! dropped afterwards; alternative branches are merged (a value survives a merge only if every
//! branch agrees on it, or as a bounded set of alternatives).
//!
//! Everything is bounded: the number of variables, the length of a value and the number of
//! alternatives, so a hostile command cannot make the analysis grow.

/// Most variables tracked; assignments past it leave the variable unknown.
const MAX_VARS: usize = 64;

/// Longest value kept, in bytes; a longer one keeps its prefix and is unknown after it.
pub(crate) const MAX_VALUE: usize = 4096;

/// Most alternatives a variable can have (loop words, values from different branches).
pub(crate) const MAX_CHOICES: usize = 16;

/// Variables the shell changes by itself (`cd` sets `PWD`, every command sets `_`...):
/// what the command assigns to them does not stay.
const SHELL_MANAGED: &[&str] = &[
    "_",
    "BASHPID",
    "BASH_ARGC",
    "BASH_ARGV",
    "BASH_ARGV0",
    "BASH_COMMAND",
    "BASH_LINENO",
    "BASH_REMATCH",
    "BASH_SOURCE",
    "BASH_SUBSHELL",
    "COLUMNS",
    "DIRSTACK",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "FUNCNAME",
    "HISTCMD",
    "LINENO",
    "LINES",
    "MAPFILE",
    "OLDPWD",
    "OPTARG",
    "OPTIND",
    "PIPESTATUS",
    "PWD",
    "RANDOM",
    "REPLY",
    "SECONDS",
    "SRANDOM",
];

/// A piece of text known up to `dyn_at` (the whole text when `None`). Past `dyn_at` the
/// text is kept verbatim as written (`$HOME/bin/git`), like a word of the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    pub text: String,
    pub dyn_at: Option<usize>,
}

impl Field {
    /// A fully known text.
    #[cfg(test)]
    pub(crate) fn lit(text: &str) -> Field {
        Field {
            text: text.to_string(),
            dyn_at: None,
        }
    }

    /// Cut to [`MAX_VALUE`] bytes at a character boundary (unknown from the cut on).
    pub(crate) fn bounded(mut self) -> Field {
        if self.text.len() > MAX_VALUE {
            let mut cut = MAX_VALUE;
            while !self.text.is_char_boundary(cut) {
                cut -= 1;
            }
            self.text.truncate(cut);
            self.dyn_at = Some(self.dyn_at.map_or(cut, |d| d.min(cut)));
        }
        self
    }
}

/// The value of a known variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// One value.
    One(Field),
    /// One of these values (2 to [`MAX_CHOICES`]): a loop variable, or branches that
    /// assigned different values.
    Choice(Vec<Field>),
}

impl Value {
    /// A value from alternatives (`None` when there are none: the variable is unknown).
    pub(crate) fn from_choices(mut alts: Vec<Field>) -> Option<Value> {
        alts.dedup();
        match alts.len() {
            0 => None,
            1 => alts.pop().map(Value::One),
            n if n <= MAX_CHOICES => Some(Value::Choice(alts)),
            _ => Some(Value::One(common_prefix(&alts))),
        }
    }

    /// The value as one field: alternatives become their common prefix, unknown after it.
    pub(crate) fn as_one(&self) -> Field {
        match self {
            Value::One(f) => f.clone(),
            Value::Choice(alts) => common_prefix(alts),
        }
    }

    fn alternatives(&self) -> &[Field] {
        match self {
            Value::One(f) => std::slice::from_ref(f),
            Value::Choice(alts) => alts,
        }
    }
}

/// The longest text every alternative starts with (within their known parts), unknown after.
pub(crate) fn common_prefix(alts: &[Field]) -> Field {
    fn known(f: &Field) -> &str {
        f.text.get(..f.dyn_at.unwrap_or(f.text.len())).unwrap_or("")
    }
    let Some(first) = alts.first() else {
        return Field {
            text: String::new(),
            dyn_at: Some(0),
        };
    };
    let mut len = known(first).len();
    for f in alts.iter().skip(1) {
        let k = known(f);
        len = first
            .text
            .bytes()
            .zip(k.bytes())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count();
    }
    while !first.text.is_char_boundary(len) {
        len -= 1;
    }
    Field {
        text: first.text.get(..len).unwrap_or("").to_string(),
        dyn_at: Some(len),
    }
}

/// One known variable.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: String,
    value: Value,
    /// Exported by this command: child processes (`sh -c`) see it.
    exported: bool,
}

/// The known variables of one shell. Empty (nothing known) is the common case and costs
/// nothing to copy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Vars {
    entries: Vec<Entry>,
    /// Something made every later value uncertain (`declare -n`, an assignment to `IFS`):
    /// nothing is learned any more.
    poisoned: bool,
}

impl Vars {
    /// Nothing is known (so nothing needs expanding).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of `name`, if known.
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|e| e.name == name)
            .map(|e| &e.value)
    }

    /// `raw` (a word's source text) uses some known variable.
    pub(crate) fn used_in(&self, raw: &str) -> bool {
        raw.contains('$')
            && self
                .entries
                .iter()
                .any(|e| super::expand::mentions(raw, &e.name))
    }

    /// Some variable has alternatives (commands using it are analysed once per value).
    pub(crate) fn has_choices(&self) -> bool {
        self.entries
            .iter()
            .any(|e| matches!(e.value, Value::Choice(_)))
    }

    /// Gives `name` a value (`None`: it becomes unknown). `exported` keeps the flag if the
    /// variable was exported before, as the shell does.
    pub(crate) fn set(&mut self, name: &str, value: Option<Value>, exported: bool) {
        if name == "IFS" {
            // Word splitting is no longer the default one: stop trusting what we know.
            self.poison();
            return;
        }
        let pos = self.entries.iter().position(|e| e.name == name);
        let value = match value {
            Some(v) if !self.poisoned && !SHELL_MANAGED.contains(&name) => v,
            _ => {
                if let Some(i) = pos {
                    self.entries.remove(i);
                }
                return;
            }
        };
        let full = self.entries.len() >= MAX_VARS;
        match pos.and_then(|i| self.entries.get_mut(i)) {
            Some(e) => {
                e.value = value;
                e.exported |= exported;
            }
            None if !full => self.entries.push(Entry {
                name: name.to_string(),
                value,
                exported,
            }),
            None => {}
        }
    }

    /// `name` becomes unknown.
    pub(crate) fn forget(&mut self, name: &str) {
        self.entries.retain(|e| e.name != name);
    }

    /// Every variable becomes unknown (`source`, a function call, a dynamic `eval`).
    pub(crate) fn forget_all(&mut self) {
        self.entries.clear();
    }

    /// Nothing is known from now on, and nothing will be learned.
    pub(crate) fn poison(&mut self) {
        self.entries.clear();
        self.poisoned = true;
    }

    /// Marks `name` exported (`export X` without a value).
    pub(crate) fn export(&mut self, name: &str) {
        if let Some(e) = self.entries.iter_mut().find(|e| e.name == name) {
            e.exported = true;
        }
    }

    /// Forgets what expanding a word may assign: `${X:=v}`, `${X=v}`, and in arithmetic
    /// (`$((X=1))`) any known name it mentions, or everything when it computes a name.
    pub(crate) fn forget_assigned_in(&mut self, raw: &str) {
        // (a byte scan first: most words have neither `$` nor `(`)
        if self.entries.is_empty() || !raw.bytes().any(|b| b == b'$' || b == b'(') {
            return;
        }
        if let Some(k) = raw.find("((").or_else(|| raw.find("$[")) {
            self.forget_arith(raw.get(k + 2..).unwrap_or(""));
        }
        let mut rest = raw;
        while let Some(k) = rest.find("${") {
            rest = rest.get(k + 2..).unwrap_or("");
            let n = name_len(rest);
            let op = rest.get(n..).unwrap_or("");
            if n > 0 && (op.starts_with('=') || op.starts_with(":=")) {
                let name = rest.get(..n).unwrap_or("").to_string();
                self.forget(&name);
            }
        }
    }

    /// Forgets what an arithmetic expression may assign: the known names it mentions, or
    /// everything when it computes names (`$n = 1` assigns the variable named by `n`).
    pub(crate) fn forget_arith(&mut self, text: &str) {
        if text.contains('$') {
            self.forget_all();
        } else {
            self.forget_mentioned(text);
        }
    }

    /// Forgets every known variable whose name occurs in `text`.
    pub(crate) fn forget_mentioned(&mut self, text: &str) {
        self.entries.retain(|e| !text.contains(e.name.as_str()));
    }

    /// The entry of `name` (value and exported flag), to put back with [`Vars::restore`].
    pub(crate) fn snapshot(&self, name: &str) -> Option<(Value, bool)> {
        self.entries
            .iter()
            .find(|e| e.name == name)
            .map(|e| (e.value.clone(), e.exported))
    }

    /// Puts back what [`Vars::snapshot`] returned (`None`: unknown).
    pub(crate) fn restore(&mut self, name: &str, saved: Option<(Value, bool)>) {
        self.forget(name);
        if let Some((value, exported)) = saved {
            self.set(name, Some(value), exported);
        }
    }

    /// What a child process (`sh -c`, a heredoc fed to a shell) knows: the exported
    /// variables only.
    pub(crate) fn exported(&self) -> Vars {
        Vars {
            entries: self
                .entries
                .iter()
                .filter(|e| e.exported)
                .cloned()
                .collect(),
            poisoned: self.poisoned,
        }
    }

    /// Names of the variables that have alternatives, with them.
    pub(crate) fn choices(&self) -> impl Iterator<Item = (&str, &[Field])> {
        self.entries.iter().filter_map(|e| match &e.value {
            Value::Choice(alts) => Some((e.name.as_str(), alts.as_slice())),
            Value::One(_) => None,
        })
    }

    /// The state after one of two alternative paths ran: values both agree on, values that
    /// differ as alternatives (bounded), and nothing that only one path knows.
    pub(crate) fn merge(&self, other: &Vars) -> Vars {
        if self == other {
            return self.clone();
        }
        let mut out = Vars {
            entries: Vec::new(),
            poisoned: self.poisoned || other.poisoned,
        };
        if out.poisoned {
            return out;
        }
        for a in &self.entries {
            let Some(b) = other.entries.iter().find(|b| b.name == a.name) else {
                continue;
            };
            let value = if a.value == b.value {
                Some(a.value.clone())
            } else {
                let mut alts = a.value.alternatives().to_vec();
                for f in b.value.alternatives() {
                    if !alts.contains(f) {
                        alts.push(f.clone());
                    }
                }
                Value::from_choices(alts)
            };
            if let Some(value) = value {
                out.entries.push(Entry {
                    name: a.name.clone(),
                    value,
                    exported: a.exported && b.exported,
                });
            }
        }
        out
    }
}

/// Merges an optional accumulated state with another path's state.
pub(crate) fn merge_into(acc: Option<Vars>, v: &Vars) -> Vars {
    match acc {
        None => v.clone(),
        Some(a) => a.merge(v),
    }
}

/// `NAME` is a valid shell variable name.
pub(crate) fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// Length of the name at the start of `s` (0 if none).
pub(crate) fn name_len(s: &str) -> usize {
    let b = s.as_bytes();
    match b.first() {
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
            1 + b
                .iter()
                .skip(1)
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count()
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Option<Value> {
        Some(Value::One(Field::lit(s)))
    }

    #[test]
    fn set_get_forget() {
        let mut v = Vars::default();
        assert!(v.is_empty());
        v.set("g", one("git"), false);
        assert_eq!(v.get("g"), one("git").as_ref());
        v.set("g", one("echo"), true);
        assert_eq!(v.get("g"), one("echo").as_ref());
        assert_eq!(v.exported().get("g"), one("echo").as_ref());
        v.set("g", None, false);
        assert!(v.get("g").is_none());
        v.set("a", one("1"), false);
        assert!(v.exported().is_empty());
        v.forget("a");
        assert!(v.is_empty());
    }

    #[test]
    fn ifs_and_namerefs_poison() {
        let mut v = Vars::default();
        v.set("g", one("git"), false);
        v.set("IFS", one(":"), false);
        assert!(v.is_empty());
        v.set("g", one("git"), false);
        assert!(v.is_empty(), "nothing is learned after poisoning");
    }

    #[test]
    fn merges_keep_agreement_or_alternatives() {
        let mut a = Vars::default();
        a.set("same", one("x"), true);
        a.set("diff", one("git"), false);
        a.set("only_a", one("1"), false);
        let mut b = Vars::default();
        b.set("same", one("x"), false);
        b.set("diff", one("echo"), false);
        let m = a.merge(&b);
        assert_eq!(m.get("same"), one("x").as_ref());
        assert!(m.get("only_a").is_none());
        assert_eq!(
            m.get("diff"),
            Some(&Value::Choice(vec![Field::lit("git"), Field::lit("echo")]))
        );
        assert!(
            m.exported().is_empty(),
            "exported only if both paths export"
        );
    }

    #[test]
    fn too_many_choices_become_a_prefix() {
        let alts: Vec<Field> = (0..=MAX_CHOICES)
            .map(|i| Field::lit(&format!("src/f{i}.ts")))
            .collect();
        let v = Value::from_choices(alts);
        assert_eq!(
            v,
            Some(Value::One(Field {
                text: "src/f".into(),
                dyn_at: Some(5)
            }))
        );
        assert_eq!(Value::from_choices(Vec::new()), None);
    }

    #[test]
    fn bounded_values() {
        let f = Field::lit(&"é".repeat(MAX_VALUE)).bounded();
        assert!(f.text.len() <= MAX_VALUE);
        assert_eq!(f.dyn_at, Some(f.text.len()));
    }

    #[test]
    fn names() {
        assert!(is_name("_a1") && !is_name("1a") && !is_name("") && !is_name("a-b"));
        assert_eq!(name_len("abc=1"), 3);
        assert_eq!(name_len("9"), 0);
    }

    #[test]
    fn variable_count_is_capped() {
        let mut v = Vars::default();
        for i in 0..MAX_VARS + 10 {
            v.set(&format!("v{i}"), one("x"), false);
        }
        assert_eq!(v.entries.len(), MAX_VARS);
    }
}
