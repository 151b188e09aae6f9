//! Seed 002, "Planner never writes code (plan-md-only hook blocks non-.md writes)": under
//! `kord`, every file @plan writes or creates, with any tool or shell command, is Markdown,
//! also inside the folders @plan may write (docs/kord/plans/**, drafts).

mod common;

use common::*;
use nso::authority::Verdict;
use serde_json::json;

const RULE: &str = "kord.plan.md_only";

fn patch(body: &str) -> serde_json::Value {
    json!({ "patchText": format!("*** Begin Patch\n{body}*** End Patch\n") })
}

#[test]
fn plan_writes_markdown_in_its_folders() {
    let e = engine("kord");
    for path in [
        "docs/kord/plans/auth.md",
        "docs/kord/plans/auth/plan.md",
        "docs/kord/plans/auth/drafts/interview.md",
        "docs/kord/notepads/auth/drafts/questions.md",
    ] {
        for op in ["write", "create"] {
            let d = e.evaluate(&op_request("plan", op, path));
            assert!(allowed(d.verdict), "{op} {path}: {:?}", d.message);
        }
    }
    for cmd in [
        "echo '- [ ] step' >> docs/kord/plans/auth/drafts/interview.md",
        "cat > docs/kord/plans/auth/drafts/notes.md <<'EOF'\n```ts\nconst x = 1;\n```\nEOF",
        "tee docs/kord/plans/auth/drafts/research.md < /dev/null",
    ] {
        let d = e.evaluate(&bash("plan", cmd));
        assert!(allowed(d.verdict), "{cmd}: {:?}", d.message);
    }
}

#[test]
fn a_non_markdown_write_by_plan_is_refused_by_its_own_rule_even_in_its_folders() {
    let e = engine("kord");
    let code_in_plans = [
        "docs/kord/plans/auth/login.ts",
        "docs/kord/plans/auth/drafts/schema.sql",
        "docs/kord/plans/auth/drafts/notes.txt",
        "docs/kord/plans/auth.md.bak",
        "docs/kord/plans/auth/plan.MD",
        "docs/kord/notepads/auth/drafts/script.py",
    ];
    for path in code_in_plans {
        for op in ["write", "create"] {
            let d = e.evaluate(&op_request("plan", op, path));
            assert_eq!(d.verdict, Verdict::Block, "{op} {path}");
            assert_eq!(d.rule_id, RULE, "{op} {path}");
            let m = d.message.unwrap();
            assert!(m.starts_with("NSO blocked "), "{m}");
            assert!(m.contains("the planner never writes code"), "{m}");
            assert!(m.contains("Markdown file (*.md)"), "{m}");
            assert!(
                m.contains("Instead: write the plan or draft as a .md file"),
                "{m}"
            );
        }
    }
    // Every route to the file: shell redirections and file programs, apply_patch (add,
    // update, move), and a write whose name is only known at run time.
    let requests = [
        bash("plan", "echo 'export const x = 1' > docs/kord/plans/auth/login.ts"),
        bash("plan", "printf x | tee docs/kord/plans/auth/drafts/a.json"),
        bash("plan", "cp docs/kord/plans/auth/plan.md docs/kord/plans/auth/plan.txt"),
        bash("plan", "touch docs/kord/plans/auth/drafts/x.sh"),
        bash("plan", "cd docs/kord/plans/auth && echo x > run.py"),
        bash("plan", "echo x > docs/kord/plans/auth/drafts/$NAME"),
        req("plan", "apply_patch", patch("*** Add File: docs/kord/plans/auth/login.ts\n+x\n")),
        req(
            "plan",
            "apply_patch",
            patch("*** Update File: docs/kord/plans/auth/plan.md\n*** Move to: docs/kord/plans/auth/plan.ts\n@@\n-a\n+a\n"),
        ),
    ];
    for r in &requests {
        let d = e.evaluate(r);
        assert_eq!(d.verdict, Verdict::Block, "{:?}", r.args);
        assert_eq!(d.rule_id, RULE, "{:?}: {:?}", r.args, d.message);
    }
}

#[test]
fn only_plan_is_bound_by_it() {
    let e = engine("kord");
    // @pm shares docs/kord/plans/ with @plan and writes PRDs in any format.
    let d = e.evaluate(&op_request("pm", "create", "docs/kord/plans/auth/prd.yaml"));
    assert!(allowed(d.verdict), "{:?}", d.message);
    // Implementers write code outside docs/kord/ as before.
    assert!(allowed(
        e.evaluate(&op_request("dev", "create", "src/login.ts"))
            .verdict
    ));
    // Outside its folders @plan's non-Markdown writes are refused by the md-only rule too
    // (the more telling reason), its Markdown ones by the matrix (no write right there).
    let d = e.evaluate(&op_request("plan", "create", "src/login.ts"));
    assert_eq!(d.rule_id, RULE);
    let d = e.evaluate(&op_request("plan", "create", "docs/guide.md"));
    assert_eq!(d.rule_id, "kord.default.create");
}

#[test]
fn nso_explain_shows_the_rule() {
    let e = engine("kord");
    let text = e.explain(&op_request(
        "plan",
        "create",
        "docs/kord/plans/auth/drafts/x.ts",
    ));
    assert!(
        text.contains("rule kord.plan.md_only (preset kord): matches, block"),
        "{text}"
    );
    assert!(
        text.contains("decision: block by kord.plan.md_only (preset kord)"),
        "{text}"
    );
    let text = e.explain(&op_request(
        "plan",
        "create",
        "docs/kord/plans/auth/drafts/x.md",
    ));
    assert!(
        text.contains("rule kord.plan.md_only (preset kord): path matches but is excepted"),
        "{text}"
    );
    assert!(
        text.contains("decision: allow by kord.plans.write"),
        "{text}"
    );
}
