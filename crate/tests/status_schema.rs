//! The shipped `schema/status.schema.json` accepts the shipped machines and a full project
//! configuration, and rejects what the parser rejects (checked with a small validator of the
//! JSON Schema subset the file uses).

use serde_json::{json, Value};

const SCHEMA: &str = include_str!("../../schema/status.schema.json");

fn resolve<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.strip_prefix("#/$defs/").expect("local refs only");
            &root["$defs"][name]
        }
        None => s,
    }
}

/// Problems of `v` against `s` (empty: valid), with JSON paths.
fn validate(root: &Value, s: &Value, v: &Value, at: &str, out: &mut Vec<String>) {
    let s = resolve(root, s);
    if let Some(c) = s.get("const") {
        if c != v {
            out.push(format!("{at}: expected {c}"));
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        if !e.contains(v) {
            out.push(format!("{at}: not one of {e:?}"));
        }
    }
    if let Some(alts) = s.get("oneOf").and_then(Value::as_array) {
        let ok = alts
            .iter()
            .filter(|a| {
                let mut p = Vec::new();
                validate(root, a, v, at, &mut p);
                p.is_empty()
            })
            .count();
        if ok != 1 {
            out.push(format!("{at}: matches {ok} alternatives, not exactly one"));
        }
    }
    let ty = s.get("type").and_then(Value::as_str);
    let type_ok = match ty {
        Some("object") => v.is_object(),
        Some("array") => v.is_array(),
        Some("string") => v.is_string(),
        Some("integer") => v.is_i64() || v.is_u64(),
        Some("boolean") => v.is_boolean(),
        _ => true,
    };
    if !type_ok {
        out.push(format!("{at}: expected {}", ty.unwrap_or("?")));
        return;
    }
    if let Some(o) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for r in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !o.contains_key(r.as_str().unwrap_or("")) {
                out.push(format!("{at}: missing {r}"));
            }
        }
        for (k, item) in o {
            let sub = format!("{at}.{k}");
            match (props.and_then(|p| p.get(k)), s.get("additionalProperties")) {
                (Some(ps), _) => validate(root, ps, item, &sub, out),
                (None, Some(Value::Bool(false))) => out.push(format!("{sub}: unknown key")),
                (None, Some(extra)) if extra.is_object() => validate(root, extra, item, &sub, out),
                _ => {}
            }
        }
    }
    if let Some(a) = v.as_array() {
        if let Some(min) = s.get("minItems").and_then(Value::as_u64) {
            if (a.len() as u64) < min {
                out.push(format!("{at}: fewer than {min} items"));
            }
        }
        if let Some(items) = s.get("items") {
            for (i, item) in a.iter().enumerate() {
                validate(root, items, item, &format!("{at}[{i}]"), out);
            }
        }
    }
}

fn problems(section: &Value) -> Vec<String> {
    let root: Value = serde_json::from_str(SCHEMA).expect("the schema is JSON");
    let mut out = Vec::new();
    validate(&root, &root, section, "status", &mut out);
    out
}

#[test]
fn the_shipped_machines_and_a_full_project_config_validate() {
    let defaults: Value = serde_json::from_str(nso::status::DEFAULT_MACHINES_JSON).unwrap();
    let section = json!({ "enabled": true, "defaults": [], "machines": defaults });
    assert_eq!(problems(&section), Vec::<String>::new());
    let full: Value = serde_json::from_str(include_str!("fixtures/status/nso_full.json")).unwrap();
    assert_eq!(problems(&full["status"]), Vec::<String>::new());
    // The parser accepts both too.
    nso::status::parse_status_section("x", Some(&section))
        .expect("the parser accepts the defaults");
}

#[test]
fn what_the_parser_rejects_the_schema_rejects() {
    let bad = [
        json!({ "enable": true }),
        json!({ "defaults": ["nso"] }),
        json!({ "machines": { "m": { "states": [{ "name": "A", "initial": true }], "transitions": [], "files": [{ "globs": ["a.md"], "extract": { "kind": "yaml" } }] } } }),
        json!({ "machines": { "m": { "states": [{ "name": "A", "final": true }], "transitions": [] } } }),
        json!({ "machines": { "m": { "states": [{ "name": "A" }], "transitions": [{ "from": "A", "to": "A" }] } } }),
    ];
    for section in bad {
        assert!(
            !problems(&section).is_empty(),
            "the schema accepts {section}"
        );
        assert!(
            nso::status::parse_status_section("x", Some(&section)).is_err(),
            "the parser accepts {section}"
        );
    }
}
