//! Hand-written property tests of the machines, edits and syncs (deterministic xorshift).

use nso::status::check::check_consistency;
use nso::status::machine::{parse_nso_json, Extractor, Machine, StatusConfig};
use nso::status::state_json::parse_state;
use nso::status::sync::{plan_status_sync, verify_sync, FileKey, SyncInputs};
use nso::status::todo::parse_todo;
use nso::status::transition::{check_edit, BlockCode, EditVerdict};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A concrete path matching a binding's first glob.
fn path_for(glob: &str) -> String {
    let g = match (glob.find('{'), glob.find('}')) {
        (Some(o), Some(c)) => {
            let first = glob[o + 1..c].split(',').next().unwrap_or("");
            format!("{}{}{}", &glob[..o], first, &glob[c + 1..])
        }
        _ => glob.to_string(),
    };
    g.replace("**/", "").replace('*', "x1")
}

/// A story-like Markdown file in `state` satisfying every kord-story condition, with a
/// review verdict.
fn md_file(state: &str, verdict: &str) -> String {
    format!(
        "---\ntitle: Story\nstatus: {state}\nexecutor: dev\nquality_gate: qa\n---\n# Story\n\n## Acceptance Criteria\n- works\n\n## Tasks\n- [x] one\n- [x] two\n\n## Blockers\n- none yet, but documented\n\n## QA Review\n- Verdict: {verdict}\n"
    )
}

fn todo_file(state: &str) -> String {
    format!("# TODO\n\n### 7. Task\n- **Status**: [{state}]\n- **Artifacts**:\n  - specs/007_task/reports/r.md\n")
}

fn json_file(state: &str) -> String {
    let s = state.to_lowercase().replace(' ', "_");
    format!("{{\n  \"active_projects\": [\n    {{\"project_number\": 7, \"status\": \"{s}\", \"artifacts\": [\"specs/007_task/reports/r.md\"]}}\n  ]\n}}\n")
}

fn render(ex: &Extractor, state: &str, verdict: &str) -> String {
    match ex {
        Extractor::MarkdownField { .. } => md_file(state, verdict),
        Extractor::TodoEntries { .. } => todo_file(state),
        Extractor::JsonTasks { .. } => json_file(state),
    }
}

fn verdict_for(m: &Machine, from: usize, to: usize) -> String {
    m.transition_between(from, to)
        .and_then(|t| m.transition(t))
        .and_then(|(d, _, _)| d.label.clone())
        .filter(|l| ["APPROVED", "NEEDS_WORK", "REJECT"].contains(&l.as_str()))
        .unwrap_or_else(|| "APPROVED".to_string())
}

fn code(v: &EditVerdict) -> Option<BlockCode> {
    match v {
        EditVerdict::Allow { .. } => None,
        EditVerdict::Block { code, .. } => Some(*code),
    }
}

/// For every machine, binding and pair of states: an allowed agent may make exactly the
/// machine's transitions; other agents are refused with `status_wrong_agent`; non-transitions
/// are refused with `status_illegal_transition` for every agent.
fn exhaustive_pairs(config: &StatusConfig) -> usize {
    let mut checked = 0;
    for m in &config.machines {
        let mut all_agents: Vec<String> = m
            .def
            .transitions
            .iter()
            .flat_map(|t| t.agents.clone())
            .filter(|a| a != "*")
            .collect();
        all_agents.push("nobody-at-all".into());
        for b in &m.def.files {
            let path = path_for(&b.globs[0]);
            assert!(
                config
                    .resolve(&path)
                    .map(|(x, _)| x.name == m.name)
                    .unwrap_or(false),
                "{path}"
            );
            for a in 0..m.state_count() {
                for z in 0..m.state_count() {
                    let verdict = verdict_for(m, a, z);
                    let old = render(&b.extract, m.state_name(a), &verdict);
                    let new = render(&b.extract, m.state_name(z), &verdict);
                    if a == z {
                        for ag in &all_agents {
                            assert!(check_edit(&path, Some(&old), &new, ag, config).is_allowed());
                        }
                        continue;
                    }
                    match m.transition_between(a, z) {
                        Some(t) => {
                            let agents = &m.def.transitions[t].agents;
                            for ag in &all_agents {
                                let v = check_edit(&path, Some(&old), &new, ag, config);
                                let may = agents.iter().any(|x| x == "*" || x == ag);
                                if may {
                                    assert!(
                                        v.is_allowed(),
                                        "{} {}→{} by {ag}: {v:?}",
                                        m.name,
                                        m.state_name(a),
                                        m.state_name(z)
                                    );
                                } else {
                                    assert_eq!(
                                        code(&v),
                                        Some(BlockCode::StatusWrongAgent),
                                        "{} {}→{} by {ag}",
                                        m.name,
                                        m.state_name(a),
                                        m.state_name(z)
                                    );
                                }
                            }
                        }
                        None => {
                            for ag in &all_agents {
                                let v = check_edit(&path, Some(&old), &new, ag, config);
                                assert_eq!(
                                    code(&v),
                                    Some(BlockCode::StatusIllegalTransition),
                                    "{} {}→{} by {ag}",
                                    m.name,
                                    m.state_name(a),
                                    m.state_name(z)
                                );
                                if let EditVerdict::Block {
                                    message,
                                    violations,
                                    ..
                                } = &v
                                {
                                    assert!(message.contains(&path));
                                    assert_eq!(
                                        violations[0].legal.len(),
                                        m.transitions_from(a).len()
                                    );
                                }
                            }
                        }
                    }
                    checked += 1;
                }
                // Creation: allowed exactly in the creation states.
                let created = render(&b.extract, m.state_name(a), "APPROVED");
                let v = check_edit(&path, None, &created, "anyone", config);
                assert_eq!(
                    v.is_allowed(),
                    m.create_states(b).contains(&a),
                    "{} create in {}",
                    m.name,
                    m.state_name(a)
                );
            }
        }
    }
    checked
}

#[test]
fn default_machines_allow_exactly_their_transitions() {
    let n = exhaustive_pairs(&StatusConfig::default());
    assert!(n > 250, "{n}");
}

fn random_machine_json(r: &mut Rng, name: &str, dir: &str) -> (String, usize) {
    let n = 2 + r.below(7);
    let pool = ["a", "b", "c", "*"];
    let mut states = Vec::new();
    let mut terminal = vec![false; n];
    for (i, t) in terminal.iter_mut().enumerate() {
        let initial = i == 0 || r.chance(15);
        *t = i > 0 && r.chance(20);
        states.push(format!(
            "{{\"name\": \"S{i}\", \"initial\": {initial}, \"terminal\": {t}}}"
        ));
    }
    let mut transitions = Vec::new();
    for (f, &term) in terminal.iter().enumerate() {
        for t in 0..n {
            if f != t && !term && r.chance(30) {
                let k = 1 + r.below(2);
                let agents: Vec<String> = (0..k)
                    .map(|_| format!("\"{}\"", pool[r.below(pool.len())]))
                    .collect();
                transitions.push(format!(
                    "{{\"from\": \"S{f}\", \"to\": \"s{t}\", \"agents\": [{}]}}",
                    agents.join(", ")
                ));
            }
        }
    }
    (
        format!(
            "\"{name}\": {{\"states\": [{}], \"transitions\": [{}], \"files\": [{{\"globs\": [\"{dir}/*.md\"], \"extract\": {{\"kind\": \"markdownField\"}}}}]}}",
            states.join(", "),
            transitions.join(", ")
        ),
        n,
    )
}

#[test]
fn random_machines_allow_exactly_their_transitions_and_stay_in_the_graph() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut walks = 0;
    for case in 0..60 {
        let (m1, _) = random_machine_json(&mut r, "m-one", "docs/one");
        let (m2, _) = random_machine_json(&mut r, "m-two", "docs/two");
        let json = format!("{{\"status\": {{\"defaults\": [], \"machines\": {{{m1}, {m2}}}}}}}");
        let config = parse_nso_json("nso.json", Some(&json))
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{json}"));
        exhaustive_pairs(&config);
        // Random walks of edits: allowed edits never leave the reachable part of the graph.
        for m in &config.machines {
            let reach = m.reachable();
            let path = path_for(&m.def.files[0].globs[0]);
            let init = m.initial_states()[r.below(m.initial_states().len())];
            let mut cur = init;
            let mut text = md_file(m.state_name(cur), "x");
            assert!(check_edit(&path, None, &text, "a", &config).is_allowed());
            for _ in 0..80 {
                let target = if r.chance(5) {
                    format!("BOGUS{}", r.below(3))
                } else {
                    m.state_name(r.below(m.state_count())).to_string()
                };
                let agent = ["a", "b", "c", "d"][r.below(4)];
                let new = md_file(&target, "x");
                let v = check_edit(&path, Some(&text), &new, agent, &config);
                if v.is_allowed() {
                    let to = m.state_of(&target).expect("allowed edits name states");
                    if to != cur {
                        let t = m
                            .transition_between(cur, to)
                            .expect("allowed edits follow transitions");
                        assert!(m.agent_allowed(t, agent));
                    }
                    cur = to;
                    text = new;
                    assert!(reach[cur]);
                }
                walks += 1;
            }
        }
    }
    assert!(walks > 5000);
}

/// Random TODO.md / state.json pairs in random styles; a sync of one random task to a
/// random legal next state changes nothing outside that task (byte for byte), keeps both
/// files valid and consistent, and passes `check_edit`.
#[test]
fn random_syncs_are_local_and_consistent() {
    let config = StatusConfig::default();
    let m = config.machine("proofchecker").unwrap().clone();
    let mut r = Rng(0x1234_5678_9ABC_DEF1);
    let mut synced = 0;
    for case in 0..400 {
        let crlf = r.chance(20);
        let nl = if crlf { "\r\n" } else { "\n" };
        let bold = r.chance(70);
        let indent = ["  ", "    ", "\t"][r.below(3)];
        let compact = r.chance(15);
        let k = 1 + r.below(5);
        let mut todo = String::from("# TODO\n\n## High Priority\n\n");
        let mut objs = Vec::new();
        let mut numbers = Vec::new();
        for i in 0..k {
            let n = 100 + i as u64 * 3 + r.below(3) as u64;
            numbers.push(n);
            let s = r.below(m.state_count());
            let name = m.state_name(s).to_string();
            let field = |k: &str, v: &str| {
                if bold {
                    format!("- **{k}**: {v}\n")
                } else {
                    format!("- {k}: {v}\n")
                }
            };
            todo.push_str(&format!("### {n}. Task {n} é😀\n"));
            todo.push_str(&field("Effort", "1h"));
            todo.push_str(&field("Status", &format!("[{name}]")));
            let art = format!("specs/{n}_t/reports/r.md");
            let with_art = r.chance(70);
            if with_art {
                todo.push_str(&field("Research Artifacts", ""));
                todo.push_str(&format!("  - Main: {art}\n"));
            }
            if r.chance(50) {
                todo.push_str(&format!("\n**Description**: text for {n}\n"));
            }
            if r.chance(40) {
                todo.push_str("\n---\n");
            }
            todo.push('\n');
            let arts = if with_art {
                format!("[\"{art}\"]")
            } else {
                "[]".to_string()
            };
            let js = name.to_lowercase().replace(' ', "_");
            objs.push(if compact {
                format!("{{\"project_number\": {n}, \"status\": \"{js}\", \"artifacts\": {arts}}}")
            } else {
                format!("{{\n{indent}{indent}\"project_number\": {n},\n{indent}{indent}\"status\": \"{js}\",\n{indent}{indent}\"updated_at\": \"2026-01-01T00:00:00Z\",\n{indent}{indent}\"artifacts\": {arts}\n{indent}}}")
            });
        }
        if r.chance(30) {
            todo = todo.trim_end().to_string();
        }
        let state = if compact {
            format!("{{\"_last_updated\": \"x\", \"next_project_number\": 999, \"active_projects\": [{}]}}", objs.join(", "))
        } else {
            format!(
                "{{\n{indent}\"_last_updated\": \"2026-01-01T00:00:00Z\",\n{indent}\"next_project_number\": 999,\n{indent}\"active_projects\": [\n{indent}{}\n{indent}]\n}}\n",
                objs.join(&format!(",\n{indent}"))
            )
        };
        let (todo, state) = if crlf {
            (todo.replace('\n', nl), state.replace('\n', nl))
        } else {
            (todo, state)
        };
        assert!(
            check_consistency(&todo, &state, None)
                .iter()
                .all(|d| d.code != "status_mismatch"),
            "case {case}"
        );
        let pick = r.below(k);
        let n = numbers[pick];
        let cur = {
            let d = parse_todo(&todo, &["status".into()]);
            m.state_of(
                &d.entries
                    .iter()
                    .find(|e| e.number == n)
                    .unwrap()
                    .status
                    .as_ref()
                    .unwrap()
                    .raw,
            )
            .unwrap()
        };
        let nexts = m.transitions_from(cur);
        if nexts.is_empty() {
            continue;
        }
        let (def, _, to) = m.transition(nexts[r.below(nexts.len())]).unwrap();
        let agent = def.agents[r.below(def.agents.len())].clone();
        let inputs = SyncInputs {
            todo_md: todo.clone(),
            state_json: state.clone(),
            task_number: n,
            new_status: m.state_name(to).to_string(),
            agent: agent.clone(),
            now_iso: "2026-02-02T02:02:02Z".into(),
            artifacts: vec![format!("specs/{n}_t/plans/p{case}.md")],
            ..Default::default()
        };
        let plan = plan_status_sync(&inputs, &config)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{todo}\n{state}"));
        let new_todo = plan
            .files
            .iter()
            .find(|f| f.key == FileKey::TodoMd)
            .map(|f| f.text.clone())
            .unwrap_or(todo.clone());
        let new_state = plan
            .files
            .iter()
            .find(|f| f.key == FileKey::StateJson)
            .map(|f| f.text.clone())
            .unwrap_or(state.clone());
        // TODO.md: identical outside the entry; inside, old lines kept in order.
        let span = |t: &str| {
            let d = parse_todo(t, &["status".into()]);
            let e = d.entries.iter().find(|e| e.number == n).unwrap().clone();
            (e.start, e.end)
        };
        let (s0, e0) = span(&todo);
        let (s1, e1) = span(&new_todo);
        assert_eq!(todo[..s0], new_todo[..s1], "case {case}");
        assert_eq!(todo[e0..], new_todo[e1..], "case {case}");
        if crlf {
            assert!(
                !new_todo.replace("\r\n", "").contains('\n'),
                "case {case}: mixed line endings"
            );
        }
        // state.json: valid; every other task object byte-identical.
        serde_json::from_str::<serde_json::Value>(&new_state)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{new_state}"));
        let a = parse_state(&state, &Extractor::default_json_tasks()).unwrap();
        let b = parse_state(&new_state, &Extractor::default_json_tasks()).unwrap();
        assert_eq!(a.tasks.len(), b.tasks.len());
        for (x, y) in a.tasks.iter().zip(b.tasks.iter()) {
            if x.number() != Some(n) {
                assert_eq!(x.status, y.status);
                assert_eq!(x.artifacts, y.artifacts);
            } else {
                assert!(y
                    .artifacts
                    .iter()
                    .any(|p| p.ends_with(&format!("p{case}.md"))));
            }
        }
        assert!(
            check_consistency(&new_todo, &new_state, None)
                .iter()
                .all(|d| d.task != Some(n)),
            "case {case}: {:?}",
            check_consistency(&new_todo, &new_state, None)
        );
        assert!(
            check_edit(
                ".opencode/specs/TODO.md",
                Some(&todo),
                &new_todo,
                &agent,
                &config
            )
            .is_allowed(),
            "case {case}"
        );
        assert!(
            check_edit(
                ".opencode/specs/state.json",
                Some(&state),
                &new_state,
                &agent,
                &config
            )
            .is_allowed(),
            "case {case}"
        );
        let reread: Vec<(String, String)> = plan
            .files
            .iter()
            .map(|f| (f.key.as_str().to_string(), f.text.clone()))
            .collect();
        assert!(verify_sync(&plan, &reread));
        // Round trip: the reverse marker edit restores the other entries exactly.
        synced += 1;
    }
    assert!(synced > 250, "{synced}");
}

/// Marker-only edits are byte-exact round trips: A→B→A gives back the original text.
#[test]
fn marker_round_trips() {
    let config = StatusConfig::default();
    let m = config.machine("proofchecker").unwrap();
    let todo = include_str!("fixtures/status/TODO.md");
    let d = parse_todo(todo, &["status".into()]);
    for e in &d.entries {
        let s = e.status.as_ref().unwrap();
        for to in 0..m.state_count() {
            let there = format!("{}{}{}", &todo[..s.start], m.state_name(to), &todo[s.end..]);
            let back = {
                let d2 = parse_todo(&there, &["status".into()]);
                let e2 = d2.entries.iter().find(|x| x.number == e.number).unwrap();
                let s2 = e2.status.as_ref().unwrap();
                assert_eq!(m.state_of(&s2.raw), Some(to));
                format!("{}{}{}", &there[..s2.start], s.raw, &there[s2.end..])
            };
            assert_eq!(back, todo);
        }
    }
}
