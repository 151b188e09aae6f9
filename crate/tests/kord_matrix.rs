//! The whole Kord AIOS matrix (seed 002, tables 1.1, 1.2, 1.3), transcribed by hand from the
//! seed — not generated from the preset.

mod common;

use common::*;

const AGENTS: &[&str] = &[
    "kord",
    "dev",
    "dev-junior",
    "build",
    "plan",
    "qa",
    "architect",
    "analyst",
    "sm",
    "pm",
    "po",
    "devops",
    "data-engineer",
    "ux-design-expert",
    "librarian",
    "explore",
    "vision",
    "squad-creator",
    "plan-analyzer",
    "plan-reviewer",
    "general",
];

/// Areas: (name, representative paths, agents with WRITE/EDIT and CREATE).
/// Table 1.1 rows: implementers (kord, dev, dev-junior) write all source code, which includes
/// CI, migration and design files; devops / data-engineer / ux-design-expert write only their
/// area. Table 1.2 columns for docs/kord/, with the narrower sub-paths of the table's notes and
/// of section 4.1. Agents missing from table 1.2 (librarian, explore, vision, squad-creator,
/// ux-design-expert, general) are read-only there.
const AREAS: &[(&str, &[&str], &[&str])] = &[
    (
        "source",
        &[
            "src/app.ts",
            "README.md",
            "packages/api/index.js",
            "docs/guide.md",
        ],
        &["kord", "dev", "dev-junior"],
    ),
    (
        "ci",
        &[
            ".github/workflows/ci.yml",
            "Dockerfile",
            "services/api/Dockerfile",
            "docker-compose.yml",
            "docker-compose.prod.yaml",
            ".gitlab-ci.yml",
            ".circleci/config.yml",
            "Jenkinsfile",
            ".travis.yml",
            "azure-pipelines.yml",
        ],
        &["kord", "dev", "dev-junior", "devops"],
    ),
    (
        "migrations",
        &[
            "migrations/001_init.sql",
            "db/migrations/002_users.sql",
            "prisma/schema.prisma",
            "schema.sql",
            "supabase/config.toml",
            "supabase/functions/hello/index.ts",
        ],
        &["kord", "dev", "dev-junior", "data-engineer"],
    ),
    (
        "design",
        &[
            "styles/app.css",
            "src/theme/vars.scss",
            "design-tokens/colors.json",
            "src/design-tokens/spacing.json",
            "src/components/Button.tsx",
            "components/Card.tsx",
            "src/components/forms/Input.tsx",
        ],
        &["kord", "dev", "dev-junior", "ux-design-expert"],
    ),
    (
        "docs/kord/plans",
        &[
            "docs/kord/plans/auth/prd.md",
            "docs/kord/plans/auth/notes.md",
        ],
        &["plan", "pm"],
    ),
    (
        "docs/kord/plans drafts",
        &["docs/kord/plans/auth/drafts/interview.md"],
        &["plan", "pm"],
    ),
    (
        "docs/kord/plans research",
        &["docs/kord/plans/auth/research/oauth.md"],
        &["plan", "pm", "analyst"],
    ),
    (
        "docs/kord/plans reviews",
        &["docs/kord/plans/auth/reviews/story-1.md"],
        &["plan", "pm", "qa"],
    ),
    (
        "docs/kord/stories",
        &[
            "docs/kord/stories/1.1.auth.md",
            "docs/kord/plans/auth/stories/1.2.md",
        ],
        &["sm"],
    ),
    (
        "docs/kord/adrs",
        &["docs/kord/adrs/0001-use-jwt.md"],
        &["architect"],
    ),
    (
        "docs/kord/notepads",
        &["docs/kord/notepads/auth/learnings.md"],
        &["build", "dev", "dev-junior"],
    ),
    (
        "docs/kord/notepads drafts",
        &["docs/kord/notepads/auth/drafts/questions.md"],
        &["build", "dev", "dev-junior", "plan"],
    ),
    (
        "docs/kord/notepads reviews",
        &["docs/kord/notepads/auth/reviews/findings.md"],
        &["build", "dev", "dev-junior", "qa"],
    ),
    (
        "docs/kord/runs",
        &["docs/kord/runs/auth/wave-1.md"],
        &["build"],
    ),
    (
        "docs/kord/architecture",
        &["docs/kord/architecture/overview.md"],
        &["architect"],
    ),
    ("docs/kord other", &["docs/kord/README.md"], &[]),
];

#[test]
fn file_matrix_every_agent_every_area() {
    let e = engine("kord");
    let mut failures = Vec::new();
    let mut checked = 0;
    for (area, paths, writers) in AREAS {
        for path in *paths {
            for agent in AGENTS {
                for op in ["read", "write", "create", "delete"] {
                    let want = match op {
                        "read" => true,
                        "delete" => false,
                        _ => writers.contains(agent),
                    };
                    check_plain(&e, &op_request(agent, op, path));
                    let d = e.evaluate(&op_request(agent, op, path));
                    checked += 1;
                    if allowed(d.verdict) != want {
                        failures.push(format!(
                            "{area}: @{agent} {op} {path}: want {}, got {:?} by {}",
                            if want { "allow" } else { "block" },
                            d.verdict,
                            d.rule_id
                        ));
                    }
                }
            }
        }
    }
    assert!(checked > 1500, "{checked}");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Table 1.3, one command per row.
const GIT_TABLE: &[(&str, &str, &[&str])] = &[
    (
        "git add",
        "git add src/app.ts",
        &[
            "dev",
            "dev-junior",
            "devops",
            "data-engineer",
            "ux-design-expert",
        ],
    ),
    (
        "git commit",
        "git commit -m 'feat: login'",
        &["dev", "dev-junior", "devops"],
    ),
    ("git push", "git push origin main", &["devops"]),
    (
        "git branch (create)",
        "git branch feature/login",
        &["dev", "devops"],
    ),
    ("git merge", "git merge feature/login", &["devops"]),
    ("git rebase", "git rebase main", &["devops"]),
    ("PR creation", "gh pr create --fill", &["devops"]),
    ("PR merge", "gh pr merge 12 --squash", &["devops"]),
];

#[test]
fn git_table_every_agent() {
    let e = engine("kord");
    let mut failures = Vec::new();
    for (row, cmd, allowed_agents) in GIT_TABLE {
        for agent in AGENTS {
            let want = allowed_agents.contains(agent);
            let d = e.evaluate(&bash(agent, cmd));
            if allowed(d.verdict) != want {
                failures.push(format!(
                    "{row}: @{agent} `{cmd}`: want {want}, got {:?} by {}",
                    d.verdict, d.rule_id
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn git_blocks_name_the_table_rule() {
    let e = engine("kord");
    for (cmd, id) in [
        ("git push origin main", "kord.git.push"),
        ("git merge x", "kord.git.merge"),
        ("git rebase main", "kord.git.rebase"),
        ("gh pr create", "kord.gh.pr_create"),
        ("gh pr merge 3", "kord.gh.pr_merge"),
        ("git commit -m x", "kord.git.commit"),
        ("git add .", "kord.git.add"),
        ("git branch topic", "kord.git.branch"),
        // a force push is a push and a history rewrite: @qa may do neither, the first is named
        ("git push --force origin main", "kord.git.push"),
    ] {
        let d = e.evaluate(&bash("qa", cmd));
        assert_eq!(d.rule_id, id, "{cmd}");
    }
    // @devops may push, but not rewrite history.
    let d = e.evaluate(&bash("devops", "git push --force origin main"));
    assert_eq!(d.rule_id, "kord.git.destructive");
    // Read-only git is allowed for everyone, even unknown agents.
    for agent in ["qa", "explore", "who-knows"] {
        assert!(allowed(e.evaluate(&bash(agent, "git status")).verdict));
        assert!(allowed(
            e.evaluate(&bash(agent, "git log --oneline")).verdict
        ));
    }
}

#[test]
fn kord_extra_git_decisions() {
    let e = engine("kord");
    // Beyond the seed table (preset decisions, documented in kord.json).
    let cases: &[(&str, &str, bool)] = &[
        ("dev", "git checkout -b x", true),
        ("dev", "git stash", true),
        ("qa", "git stash", false),
        ("dev", "git pull", false),
        ("devops", "git pull", true),
        ("devops", "git tag v1.0", true),
        ("dev", "git tag v1.0", false),
        ("devops", "git push --force origin main", false),
        ("devops", "git reset --hard HEAD~1", false),
        ("devops", "git clean -fd", false),
        ("dev", "git commit --amend", false),
    ];
    for (agent, cmd, want) in cases {
        assert_eq!(
            allowed(e.evaluate(&bash(agent, cmd)).verdict),
            *want,
            "@{agent} {cmd}"
        );
    }
}

#[test]
fn native_agents_are_never_a_silent_pass() {
    let e = engine("kord");
    // build/plan are the seed's @build/@plan: no source writes (@plan's code is refused by
    // the plan-md-only rule, the others' by the matrix default).
    for agent in ["build", "plan", "general", "explore"] {
        let d = e.evaluate(&op_request(agent, "write", "src/app.ts"));
        assert_eq!(d.verdict, nso::authority::Verdict::Block, "{agent}");
        let want = if agent == "plan" {
            "kord.plan.md_only"
        } else {
            "kord.default.write"
        };
        assert_eq!(d.rule_id, want, "{agent}");
    }
    // nso: build and general implement (as in OpenCode itself); the rest do not write code,
    // but every known agent may file its task reports.
    let n = engine("nso");
    for agent in ["build", "general"] {
        let d = n.evaluate(&op_request(agent, "write", "src/app.ts"));
        assert!(allowed(d.verdict), "{agent}");
    }
    for agent in ["plan", "general", "explore", "janitor", "oracle", "builder"] {
        let report = ".opencode/context/active_tasks/build_20260101_x_abc123/questions.md";
        let d = n.evaluate(&op_request(agent, "create", report));
        assert!(allowed(d.verdict), "{agent}");
    }
    let d = n.evaluate(&op_request(
        "janitor",
        "write",
        ".opencode/context/active_tasks/t/contract.md",
    ));
    assert!(!allowed(d.verdict));
    // OpenCode's build agent delegates too: it may create a contract, not rewrite one.
    let contract = ".opencode/context/active_tasks/build_20260101_x_abc123/contract.md";
    assert!(allowed(
        n.evaluate(&op_request("build", "create", contract)).verdict
    ));
    assert!(!allowed(
        n.evaluate(&op_request("build", "write", contract)).verdict
    ));
    assert!(!allowed(
        n.evaluate(&op_request("general", "create", contract))
            .verdict
    ));
    for agent in ["plan", "explore", "janitor", "oracle"] {
        assert!(
            !allowed(
                n.evaluate(&op_request(agent, "write", "src/app.ts"))
                    .verdict
            ),
            "{agent}"
        );
    }
}

#[test]
fn stories_update_only_through_story_update() {
    let e = engine("kord");
    let story = "docs/kord/stories/1.1.md";
    for agent in ["dev", "dev-junior", "po", "qa"] {
        let via_tool = req(
            agent,
            "story_update",
            serde_json::json!({"story_path": story, "status": "REVIEW"}),
        );
        assert!(allowed(e.evaluate(&via_tool).verdict), "{agent} via tool");
        assert!(
            !allowed(e.evaluate(&op_request(agent, "write", story)).verdict),
            "{agent} direct"
        );
    }
    let via_tool = req(
        "architect",
        "story_update",
        serde_json::json!({"story_path": story}),
    );
    assert!(!allowed(e.evaluate(&via_tool).verdict));
}
