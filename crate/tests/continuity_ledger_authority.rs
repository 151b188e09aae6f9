//! The decision ledger's guarantees in the authority engine: every agent may record through
//! `nso_decide`, and the file is append-only for every agent and every tool, bash included,
//! whatever the preset (`nso::continuity::policy_with_ledger`).

mod common;

use common::*;
use nso::authority::{Engine, Verdict};
use nso::continuity::{policy_with_ledger, LEDGER_AREA, LEDGER_RULE};
use serde_json::json;

const LEDGER: &str = ".opencode/context/decisions.md";
const OLD: &str = "# Decision ledger\n\n## D-0001 · Keep the API\n- **Why**: clients\n";

fn engine_for(preset: &str, ledger: &str) -> Engine {
    let authority = json!({ "preset": preset });
    Engine::new(policy_with_ledger(&authority, ".opencode/nso.json", ledger).unwrap())
}

fn via(mut r: nso::authority::Request, tool: &str) -> nso::authority::Request {
    r.via = Some(tool.to_string());
    r
}

#[test]
fn every_agent_records_through_nso_decide_and_only_appends() {
    for (preset, agents) in [
        ("nso", ["build", "plan", "oracle", "janitor"]),
        ("kord", ["dev", "plan", "qa", "sm"]),
        (
            "proofchecker",
            ["orchestrator", "planner", "reviewer", "build"],
        ),
    ] {
        let e = engine_for(preset, LEDGER);
        for agent in agents {
            let append = format!("{OLD}\n## D-0002 · Ship it\n- **Why**: ready\n");
            let create = via(
                req(agent, "write", json!({"filePath": LEDGER, "content": OLD})),
                "nso_decide",
            );
            let d = e.evaluate(&with_content(create, LEDGER, None));
            assert_eq!(
                d.verdict,
                Verdict::Allow,
                "{preset} @{agent} create: {:?}",
                d.message
            );
            let add = via(
                req(
                    agent,
                    "write",
                    json!({"filePath": LEDGER, "content": append}),
                ),
                "nso_decide",
            );
            let d = e.evaluate(&with_content(add, LEDGER, Some(OLD)));
            assert_eq!(
                d.verdict,
                Verdict::Allow,
                "{preset} @{agent} append: {:?}",
                d.message
            );
            // Even through the tool, a rewrite is refused by the append-only area.
            let rewrite = via(
                req(
                    agent,
                    "write",
                    json!({"filePath": LEDGER, "content": "# gone\n"}),
                ),
                "nso_decide",
            );
            let d = e.evaluate(&with_content(rewrite, LEDGER, Some(OLD)));
            assert_eq!(
                (d.verdict, d.rule_id.as_str()),
                (Verdict::Block, LEDGER_AREA),
                "{preset} @{agent}"
            );
            let m = d.message.unwrap();
            assert!(m.contains("append-only") && m.contains("nso_decide"), "{m}");
        }
    }
}

#[test]
fn the_rule_opens_only_nso_decide_on_the_ledger() {
    let e = engine_for("nso", LEDGER);
    // The same write with the agent's own write tool: @plan may write nothing.
    let own = req("plan", "write", json!({"filePath": LEDGER, "content": OLD}));
    assert_eq!(
        e.evaluate(&with_content(own, LEDGER, None)).verdict,
        Verdict::Block
    );
    // Another file through nso_decide: not opened.
    let other = via(
        req(
            "plan",
            "write",
            json!({"filePath": "src/a.rs", "content": "x"}),
        ),
        "nso_decide",
    );
    assert_eq!(
        e.evaluate(&with_content(other, "src/a.rs", None)).verdict,
        Verdict::Block
    );
    // An unknown agent stays refused.
    let unknown = via(
        req(
            "intruder",
            "write",
            json!({"filePath": LEDGER, "content": OLD}),
        ),
        "nso_decide",
    );
    assert_eq!(
        e.evaluate(&with_content(unknown, LEDGER, None)).verdict,
        Verdict::Block
    );
    // The rule is explained by its id.
    let ok = via(
        req("plan", "write", json!({"filePath": LEDGER, "content": OLD})),
        "nso_decide",
    );
    assert_eq!(
        e.evaluate(&with_content(ok, LEDGER, None)).rule_id,
        LEDGER_RULE
    );
}

#[test]
fn bash_may_append_but_never_rewrite_the_ledger() {
    let e = engine_for("nso", LEDGER);
    for command in [
        format!("echo x > {LEDGER}"),
        format!(": > {LEDGER}"),
        format!("sed -i 's/API/api/' {LEDGER}"),
        format!("f={LEDGER}; cp /dev/null \"$f\""),
        format!("truncate -s 0 {LEDGER}"),
    ] {
        // @oracle may write .opencode/context/** under the nso preset: only the ledger's
        // append-only area refuses it.
        let r = with_content(bash("oracle", &command), LEDGER, Some(OLD));
        let d = e.evaluate(&r);
        assert_eq!(
            (d.verdict, d.rule_id.as_str()),
            (Verdict::Block, LEDGER_AREA),
            "{command}: {:?}",
            d.message
        );
    }
    // Deleting or moving it away: refused (here by the preset's default for deletes, which
    // comes first; the append-only area would refuse it too).
    for command in [format!("rm {LEDGER}"), format!("mv {LEDGER} old.md")] {
        let r = with_content(bash("oracle", &command), LEDGER, Some(OLD));
        assert_eq!(e.evaluate(&r).verdict, Verdict::Block, "{command}");
    }
    let r = with_content(
        bash("oracle", &format!("echo note >> {LEDGER}")),
        LEDGER,
        Some(OLD),
    );
    let d = e.evaluate(&r);
    assert!(allowed(d.verdict), "{:?}", d.message);
}

#[test]
fn a_ledger_path_with_glob_characters_is_matched_literally() {
    let path = "docs/[decisions]*.md";
    let e = engine_for("nso", path);
    let rewrite = with_content(
        req("build", "write", json!({"filePath": path, "content": "x"})),
        path,
        Some(OLD),
    );
    assert_eq!(e.evaluate(&rewrite).rule_id, LEDGER_AREA);
    let other = "docs/d.md";
    let w = with_content(
        req("build", "write", json!({"filePath": other, "content": "x"})),
        other,
        Some(OLD),
    );
    assert_ne!(
        e.evaluate(&w).rule_id,
        LEDGER_AREA,
        "the brackets and star are not glob syntax here"
    );
}
