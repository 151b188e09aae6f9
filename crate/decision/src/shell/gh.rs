//! gh (GitHub CLI): pull-request and release operations by name; mutating `gh api` calls
//! are opaque (`GitAlias`: an unknown git-hosting operation, since the API can merge, push
//! refs or delete branches); unknown top-level commands may be aliases or extensions.

use super::analyze::{Analyzer, Exec};
use super::args::{parse_opts, spec, Arg, Spec};
use super::effects::{GitOp, OpaqueReason};

#[rustfmt::skip]
const GH_API: Spec<'static> = spec(
    b"XfFHqtp",
    &[
        "method", "field", "raw-field", "header", "jq", "template", "cache", "preview",
        "hostname", "input",
    ],
);

/// Top-level gh commands (anything else may be an alias or extension).
#[rustfmt::skip]
const GH_COMMANDS: &[&str] = &[
    "agent-task", "alias", "api", "attestation", "auth", "browse", "cache", "co", "codespace",
    "completion", "config", "copilot", "extension", "ext", "gist", "gpg-key", "help", "issue",
    "label", "org", "pr", "preview", "project", "release", "repo", "ruleset", "run", "search",
    "secret", "ssh-key", "status", "variable", "version", "workflow",
];

impl Analyzer {
    /// `gh COMMAND [SUBCOMMAND] ...`.
    pub(crate) fn gh(&mut self, args: &[Arg<'_>], ex: &Exec<'_>) {
        use GitOp::*;
        let rest = args.get(1..).unwrap_or(&[]);
        let Some(top) = rest.first() else {
            self.git_op(ex, Read, "");
            return;
        };
        if top.dyn_start() {
            self.opaque(ex, OpaqueReason::DynamicProgram, ex.snippet);
            return;
        }
        if top.s.starts_with('-') {
            self.git_op(ex, Read, top.s);
            return;
        }
        if !GH_COMMANDS.contains(&top.s) {
            self.opaque(ex, OpaqueReason::GitAlias, &format!("gh {}", top.s));
            return;
        }
        // the subcommand: first word after persistent flags like `-R owner/repo`
        let after = rest.get(1..).unwrap_or(&[]);
        let mut k = 0;
        while let Some(a) = after.get(k) {
            if a.is("-R") || a.is("--repo") {
                k += 2;
            } else if a.s.starts_with('-') && !a.is_dynamic() {
                k += 1;
            } else {
                break;
            }
        }
        let sub = after.get(k).map_or("", |a| a.s);
        let label = format!("{} {sub}", top.s);
        let label = label.trim_end();
        if super::git::asks_help(rest) {
            self.git_op(ex, Read, label);
            return;
        }
        let op = match (top.s, sub) {
            ("pr", "create" | "new") => PrCreate,
            ("pr", "merge") => PrMerge,
            ("pr", "close") => PrClose,
            ("pr", "checkout") | ("co", _) => Checkout,
            ("release", "create" | "new" | "delete" | "edit" | "upload" | "delete-asset") => {
                ReleaseCreate
            }
            ("api", _) => {
                if self.gh_api_mutates(after) {
                    self.opaque(
                        ex,
                        OpaqueReason::GitAlias,
                        &format!("gh api {}", ex.snippet),
                    );
                    return;
                }
                Read
            }
            _ => Read,
        };
        self.git_op(ex, op, label);
    }

    /// Whether `gh api` would send a mutating request (explicit method, or fields, which
    /// make gh default to POST; for GraphQL, a `mutation`).
    fn gh_api_mutates(&self, after: &[Arg<'_>]) -> bool {
        let o = parse_opts(after, &GH_API);
        let graphql = o.operands.first().is_some_and(|e| e.is("graphql"));
        let method = o.value(b"X", &["method"]);
        if let Some(m) = method {
            if m.is_dynamic() {
                return true;
            }
            if !m.s.eq_ignore_ascii_case("GET") && !m.s.eq_ignore_ascii_case("HEAD") && !graphql {
                return true;
            }
        }
        if o.dyn_opt {
            return true;
        }
        let fields = o.has(b"fF", &["field", "raw-field", "input"]);
        if graphql {
            return o.has(b"", &["input"])
                || o.values(b"fF", &["field", "raw-field"])
                    .any(|v| v.is_dynamic() || v.s.to_ascii_lowercase().contains("mutation"));
        }
        fields && method.is_none()
    }
}
