//! git aliases written out in the command: `git -c alias.ship=push ship`, or
//! `git config alias.ship push` earlier in the same command followed by `git ship`. The
//! alias is expanded the way git does it and the expansion is classified; a `!` alias is
//! shell code run from the top of the work tree, analysed as such.
//!
//! git's own commands win over aliases of the same name (git ignores such aliases), and an
//! alias may name another alias, up to [`MAX_ALIAS_HOPS`] (git stops at loops; we stop at
//! the bound). An alias we do not know, or whose value is only known at run time, stays
//! opaque.

use super::analyze::{Analyzer, Dir, Exec};
use super::args::Arg;
use super::effects::OpaqueReason;
use super::expand::render;
use super::git::is_git_command;
use super::vars::Field;

/// Most alias-to-alias expansions followed for one git command.
const MAX_ALIAS_HOPS: usize = 8;

/// Most aliases remembered from `git config`, and most values tried for one name.
const MAX_ALIASES: usize = 32;
const MAX_VALUES: usize = 4;

/// What the global options of one `git` invocation set that its subcommand needs.
pub(crate) struct GitCmd<'c, 'x> {
    /// `-c alias.NAME=VALUE` (name as written, value).
    pub aliases: &'c [(&'x str, Arg<'x>)],
    /// `-c pull.rebase=...`.
    pub pull_rebase_cfg: Option<bool>,
}

/// Splits an alias value into words as git does (`split_cmdline`): blanks separate words,
/// `'...'` and `"..."` quote, a backslash escapes the next character outside single
/// quotes. `None` for an unclosed quote (git refuses such an alias).
fn split_cmdline(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"') | None, '\\') => {
                cur.push(chars.next()?);
                in_word = true;
            }
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return None;
    }
    if in_word {
        words.push(cur);
    }
    Some(words)
}

impl Analyzer {
    /// Remembers `git config alias.NAME VALUE` for later `git NAME` in this command.
    pub(super) fn remember_alias(&mut self, key: &str, value: Arg<'_>) {
        let Some(name) = key
            .get(..6)
            .filter(|p| p.eq_ignore_ascii_case("alias."))
            .and_then(|_| key.get(6..))
        else {
            return;
        };
        if self.git_aliases.len() < MAX_ALIASES {
            let value = Field {
                text: value.s.to_string(),
                dyn_at: value.dyn_at,
            };
            self.git_aliases
                .push((name.to_ascii_lowercase(), value.bounded()));
        }
    }

    /// The values `git NAME` may expand to: the last `-c alias.NAME=...` of this
    /// invocation, else every value `git config` gave it earlier in the command.
    fn alias_values(&self, name: &str, cmd: &GitCmd<'_, '_>) -> Vec<Field> {
        if let Some((_, v)) = cmd
            .aliases
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            return vec![Field {
                text: v.s.to_string(),
                dyn_at: v.dyn_at,
            }];
        }
        let mut out: Vec<Field> = Vec::new();
        for (n, v) in &self.git_aliases {
            if n.eq_ignore_ascii_case(name) && !out.contains(v) && out.len() < MAX_VALUES {
                out.push(v.clone());
            }
        }
        out
    }

    /// `git SUB REST...` after the global options: a git command, or an alias expanded.
    pub(super) fn git_command(
        &mut self,
        sub: Arg<'_>,
        rest: &[Arg<'_>],
        ex: &mut Exec<'_>,
        cmd: &GitCmd<'_, '_>,
        hops: usize,
    ) {
        let name = sub.s;
        if !sub.is_dynamic() && is_git_command(name) {
            self.git_builtin(name, rest, ex, cmd.pull_rebase_cfg);
            return;
        }
        let values = if sub.is_dynamic() {
            Vec::new()
        } else {
            self.alias_values(name, cmd)
        };
        if values.is_empty() {
            self.opaque(ex, OpaqueReason::GitAlias, &format!("git {name}"));
        }
        for v in values {
            self.expand_alias(name, &v, rest, ex, cmd, hops);
        }
    }

    fn expand_alias(
        &mut self,
        name: &str,
        value: &Field,
        rest: &[Arg<'_>],
        ex: &mut Exec<'_>,
        cmd: &GitCmd<'_, '_>,
        hops: usize,
    ) {
        let words = match value.text.strip_prefix('!') {
            _ if value.dyn_at.is_some() || hops >= MAX_ALIAS_HOPS => None,
            _ if !self.spend(1, &value.text) => None,
            Some(_) => Some(Vec::new()),
            None => split_cmdline(&value.text).filter(|w| {
                // options in an alias (`-c`, `--git-dir`) are refused by git or change
                // what we cannot follow
                w.first().is_some_and(|f| !f.starts_with('-'))
            }),
        };
        let Some(words) = words else {
            self.opaque(ex, OpaqueReason::GitAlias, &format!("git alias {name}"));
            return;
        };
        if let Some(code) = value.text.strip_prefix('!') {
            // `sh -c 'CODE "$@"' CODE REST...`, from the top of the work tree: taken to be
            // where the command started (OpenCode runs commands there), unless the command
            // moved or named another repository first.
            let mut script = code.to_string();
            for a in rest {
                script.push(' ');
                render(&mut script, a.s, a.is_dynamic());
            }
            let mut sh = ex.clone();
            if sh.cwd != Dir::Start {
                sh.cwd = Dir::Unknown;
            }
            let outer = self.enter_indirection(ex, true);
            self.nested(&sh, &script, rest.iter().any(Arg::is_dynamic));
            self.leave_indirection(outer);
            return;
        }
        let mut shown = String::from("git");
        for w in &words {
            shown.push(' ');
            render(&mut shown, w, false);
        }
        for a in rest {
            shown.push(' ');
            render(&mut shown, a.s, a.is_dynamic());
        }
        let args: Vec<Arg<'_>> = words
            .iter()
            .map(|w| Arg::lit(w))
            .chain(rest.iter().copied())
            .collect();
        let outer = self.resolved.replace(shown);
        if let Some((sub, more)) = args.split_first() {
            self.git_command(*sub, more, ex, cmd, hops + 1);
        }
        self.resolved = outer;
    }
}

#[cfg(test)]
mod tests {
    use super::split_cmdline;

    #[test]
    fn splits_like_git() {
        let w = |s: &str| split_cmdline(s).map(|v| v.join("|"));
        assert_eq!(w("push  --force"), Some("push|--force".into()));
        assert_eq!(
            w(r#"log --format="%h %s" -n 1"#),
            Some("log|--format=%h %s|-n|1".into())
        );
        assert_eq!(w(r"commit -m 'a b' c\ d"), Some("commit|-m|a b|c d".into()));
        assert_eq!(w("  "), Some(String::new()));
        assert_eq!(w("log 'x"), None);
    }
}
