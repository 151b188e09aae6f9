//! Every role a shipped status machine names is a known agent of the preset that ships with
//! it, so no machine move is reserved for an agent its preset would refuse as unknown.

use nso::authority::{Policy, PRESETS};
use nso::status::machine::{default_machines, Machine, DEFAULT_MACHINE_NAMES};

/// Which presets each shipped machine is made for (README, "Status machines"). `nso-task`
/// serves both NSO's roles and Kord's (its executors are @builder, @dev and @dev-junior, its
/// delegators @oracle, @build and @kord).
const SHIPS_WITH: &[(&str, &[&str])] = &[
    ("nso-task", &["nso", "kord"]),
    ("kord-story", &["kord"]),
    ("proofchecker", &["proofchecker"]),
];

/// The agents a machine names in its transitions (`*` left out), lowercased as the machine
/// compares them.
fn roles(m: &Machine) -> Vec<String> {
    let mut out: Vec<String> = m
        .def
        .transitions
        .iter()
        .flat_map(|t| t.agents.iter())
        .filter(|a| a.as_str() != "*")
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Canonical agent names of a preset, lowercased. Aliases do not count: the machine sees the
/// calling agent's canonical name (and those it is `like`), never an alias.
fn agent_names(preset: &str) -> Vec<String> {
    let p = Policy::preset(preset).unwrap_or_else(|e| panic!("preset {preset}: {e:?}"));
    p.agents().iter().map(|a| a.name.to_lowercase()).collect()
}

/// Roles of `m` that none of `presets` knows.
fn unknown_roles(m: &Machine, presets: &[&str]) -> Vec<String> {
    let known: Vec<String> = presets.iter().flat_map(|p| agent_names(p)).collect();
    roles(m)
        .into_iter()
        .filter(|r| !known.contains(r))
        .collect()
}

/// Transitions of `m` that no agent of `preset` may make (`from → to`).
fn unusable_moves(m: &Machine, preset: &str) -> Vec<String> {
    let known = agent_names(preset);
    m.def
        .transitions
        .iter()
        .filter(|t| !t.agents.iter().any(|a| a == "*" || known.contains(a)))
        .map(|t| format!("{} → {}", t.from, t.to))
        .collect()
}

fn machine(name: &str) -> Machine {
    default_machines()
        .into_iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no shipped machine {name}"))
}

#[test]
fn every_shipped_machine_ships_with_a_preset_and_every_preset_with_a_machine() {
    let shipped: Vec<&str> = SHIPS_WITH.iter().map(|(m, _)| *m).collect();
    assert_eq!(
        shipped, DEFAULT_MACHINE_NAMES,
        "assign every shipped machine its presets"
    );
    assert_eq!(default_machines().len(), DEFAULT_MACHINE_NAMES.len());
    for preset in PRESETS {
        assert!(
            SHIPS_WITH.iter().any(|(_, ps)| ps.contains(preset)),
            "preset {preset} ships with no machine"
        );
    }
    for (_, presets) in SHIPS_WITH {
        for p in *presets {
            assert!(PRESETS.contains(p), "{p} is not a preset");
        }
    }
}

#[test]
fn every_role_of_a_shipped_machine_is_a_known_agent_of_its_presets() {
    let mut failures = Vec::new();
    for (name, presets) in SHIPS_WITH {
        let m = machine(name);
        assert!(!roles(&m).is_empty(), "{name} names no roles");
        let unknown = unknown_roles(&m, presets);
        if !unknown.is_empty() {
            failures.push(format!(
                "machine {name}: roles {unknown:?} are agents of none of the presets {presets:?}"
            ));
        }
        // Under each preset alone, every move can be made by one of its agents.
        for p in *presets {
            let unusable = unusable_moves(&m, p);
            if !unusable.is_empty() {
                failures.push(format!(
                    "machine {name} under preset {p}: no agent may make {unusable:?}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_single_preset_machine_needs_all_its_roles_in_that_preset() {
    // The proofchecker machine names exactly the seed's seven roles, and the proofchecker
    // preset knows each one.
    let m = machine("proofchecker");
    assert_eq!(
        roles(&m),
        [
            "implementer",
            "lean-implementation-agent",
            "lean-planner",
            "lean-research-agent",
            "orchestrator",
            "planner",
            "researcher",
        ]
    );
    assert_eq!(unknown_roles(&m, &["proofchecker"]), Vec::<String>::new());
}

#[test]
fn the_check_fails_for_a_preset_that_does_not_know_the_roles() {
    // Before the proofchecker preset existed, every ProofChecker role was unknown: the check
    // must say so for the presets that do not ship with the machine.
    let m = machine("proofchecker");
    let unknown = unknown_roles(&m, &["nso", "kord"]);
    for role in [
        "researcher",
        "lean-research-agent",
        "planner",
        "lean-planner",
        "lean-implementation-agent",
    ] {
        assert!(unknown.contains(&role.to_string()), "{role}: {unknown:?}");
    }
    assert!(!unusable_moves(&m, "kord").is_empty());
    // nso-task needs both of its presets: either alone misses roles.
    let task = machine("nso-task");
    assert!(unknown_roles(&task, &["nso"]).contains(&"dev".to_string()));
    assert!(unknown_roles(&task, &["kord"]).contains(&"builder".to_string()));
    let story = machine("kord-story");
    assert!(unknown_roles(&story, &["proofchecker"]).contains(&"qa".to_string()));
}
