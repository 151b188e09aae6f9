//! Evaluation of named conditions and counters over the facts of one entry (a Markdown
//! document, a TODO.md entry or a state.json task object).

use super::json_text::{JKind, JNode};
use super::machine::{Check, CounterDef, Machine};
use super::markdown::{is_placeholder, MdDoc};
use super::text::{canon_state, norm_agent, norm_key};
use super::todo::artifacts_of_doc;
use std::collections::BTreeMap;

/// What a section looks like.
pub(crate) struct SectionFacts {
    pub content: bool,
    pub boxes: usize,
    pub ticked: usize,
}

/// The facts conditions are evaluated over.
pub(crate) trait Facts {
    /// Values of the named fields, in document order.
    fn values(&self, names: &[String]) -> Vec<String>;
    /// The title.
    fn title(&self) -> Option<String>;
    /// The first section named like one of `names`.
    fn section(&self, names: &[String]) -> Option<SectionFacts>;
    /// Linked artifact paths.
    fn artifacts(&self) -> Vec<String>;
}

/// Facts of a Markdown document (a story, a status.md, or one TODO.md entry).
pub(crate) struct MdFacts<'a>(pub MdDoc<'a>);

impl Facts for MdFacts<'_> {
    fn values(&self, names: &[String]) -> Vec<String> {
        self.0
            .field_values(names)
            .into_iter()
            .map(|f| f.value.clone())
            .collect()
    }
    fn title(&self) -> Option<String> {
        self.0.title()
    }
    fn section(&self, names: &[String]) -> Option<SectionFacts> {
        let r = self.0.section(names)?;
        let (boxes, ticked) = self.0.checkboxes(r);
        Some(SectionFacts {
            content: self.0.has_content(r),
            boxes,
            ticked,
        })
    }
    fn artifacts(&self) -> Vec<String> {
        artifacts_of_doc(&self.0).into_iter().map(|a| a.0).collect()
    }
}

/// Facts of a JSON task object.
pub(crate) struct JsonFacts(pub JNode);

impl Facts for JsonFacts {
    fn values(&self, names: &[String]) -> Vec<String> {
        let wanted: Vec<String> = names.iter().map(|n| norm_key(n)).collect();
        self.0
            .members()
            .iter()
            .filter(|m| wanted.contains(&norm_key(&m.key)))
            .filter_map(|m| match &m.value.kind {
                JKind::Array(items) if !items.is_empty() => Some(
                    items
                        .iter()
                        .filter_map(|i| i.scalar_text())
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                _ => m.value.scalar_text(),
            })
            .collect()
    }
    fn title(&self) -> Option<String> {
        self.values(&["title".into(), "project_name".into(), "name".into()])
            .into_iter()
            .find(|v| !is_placeholder(v))
    }
    fn section(&self, _names: &[String]) -> Option<SectionFacts> {
        None
    }
    fn artifacts(&self) -> Vec<String> {
        json_artifacts(&self.0)
    }
}

/// Artifact paths of a state.json task object: strings of `artifacts`, or `path` of objects.
pub(crate) fn json_artifacts(obj: &JNode) -> Vec<String> {
    obj.get("artifacts")
        .map(|a| {
            a.items()
                .iter()
                .filter_map(|i| {
                    i.as_str()
                        .map(str::to_string)
                        .or_else(|| i.get("path").and_then(|p| p.as_str()).map(str::to_string))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A failed condition: its name, description, what was found, and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failed {
    pub name: String,
    pub description: String,
    pub detail: String,
    pub fix: String,
}

fn first_name(l: &[String]) -> String {
    l.first().cloned().unwrap_or_default()
}

/// Evaluates condition `name`; `Err` holds what is wrong.
pub(crate) fn eval(
    machine: &Machine,
    name: &str,
    facts: &dyn Facts,
    depth: usize,
) -> Result<(), String> {
    let Some(def) = machine.def.conditions.get(name) else {
        return Err(format!("the condition `{name}` is not defined"));
    };
    if depth > 16 {
        return Err("conditions nest too deeply".to_string());
    }
    match &def.check {
        Check::FieldPresent { fields } => {
            if facts.values(fields).iter().any(|v| !is_placeholder(v)) {
                Ok(())
            } else {
                Err(format!(
                    "there is no `{}:` field with a value",
                    first_name(fields)
                ))
            }
        }
        Check::FieldEquals {
            fields,
            values,
            last,
        } => {
            let vals = facts.values(fields);
            let wanted: Vec<String> = values.iter().map(|v| canon_state(v)).collect();
            let matches = |v: &String| {
                let c = canon_state(v);
                wanted
                    .iter()
                    .any(|w| c == *w || c.starts_with(&format!("{w}_")))
            };
            let ok = if *last {
                vals.last().map(matches).unwrap_or(false)
            } else {
                vals.iter().any(matches)
            };
            if ok {
                Ok(())
            } else if let Some(l) = vals.last() {
                Err(format!(
                    "the {}`{}:` is `{l}`, not {}",
                    if *last { "latest " } else { "" },
                    first_name(fields),
                    values.join(" or ")
                ))
            } else {
                Err(format!("no `{}:` is recorded", first_name(fields)))
            }
        }
        Check::SectionNotEmpty { sections } => match facts.section(sections) {
            None => Err(format!("there is no `## {}` section", first_name(sections))),
            Some(s) if !s.content => Err(format!(
                "the `## {}` section is empty",
                first_name(sections)
            )),
            Some(_) => Ok(()),
        },
        Check::HasCheckboxes { sections } => match facts.section(sections) {
            None => Err(format!("there is no `## {}` section", first_name(sections))),
            Some(s) if s.boxes == 0 => Err(format!(
                "the `## {}` section has no `- [ ]` checkboxes",
                first_name(sections)
            )),
            Some(_) => Ok(()),
        },
        Check::AllChecked { sections, optional } => match facts.section(sections) {
            None if *optional => Ok(()),
            None => Err(format!("there is no `## {}` section", first_name(sections))),
            Some(s) if s.boxes == 0 && *optional => Ok(()),
            Some(s) if s.boxes == 0 => Err(format!(
                "the `## {}` section has no checkboxes",
                first_name(sections)
            )),
            Some(s) if s.ticked < s.boxes => Err(format!(
                "{} of {} checkboxes in `## {}` are not ticked",
                s.boxes - s.ticked,
                s.boxes,
                first_name(sections)
            )),
            Some(_) => Ok(()),
        },
        Check::FieldsDiffer { fields, other } => {
            let a = facts
                .values(fields)
                .into_iter()
                .find(|v| !is_placeholder(v));
            let b = facts.values(other).into_iter().find(|v| !is_placeholder(v));
            match (a, b) {
                (Some(a), Some(b)) => {
                    if norm_agent(&a) == norm_agent(&b) {
                        Err(format!(
                            "`{}` and `{}` are both `{}`",
                            first_name(fields),
                            first_name(other),
                            a
                        ))
                    } else {
                        Ok(())
                    }
                }
                _ => Err(format!(
                    "`{}` or `{}` is missing",
                    first_name(fields),
                    first_name(other)
                )),
            }
        }
        Check::HasTitle {} => facts
            .title()
            .map(|_| ())
            .ok_or_else(|| "there is no title".to_string()),
        Check::HasArtifacts {} => {
            if facts.artifacts().is_empty() {
                Err("no artifact is linked".to_string())
            } else {
                Ok(())
            }
        }
        Check::AnyOf { conditions } => {
            let mut why = Vec::new();
            for c in conditions {
                match eval(machine, c, facts, depth + 1) {
                    Ok(()) => return Ok(()),
                    Err(e) => why.push(e),
                }
            }
            Err(why.join("; "))
        }
    }
}

/// Evaluates every named condition, returning the failures.
pub(crate) fn failures(machine: &Machine, names: &[String], facts: &dyn Facts) -> Vec<Failed> {
    names
        .iter()
        .filter_map(|n| {
            eval(machine, n, facts, 0).err().map(|detail| {
                let def = machine.def.conditions.get(n);
                Failed {
                    name: n.clone(),
                    description: def.map(|d| d.description.clone()).unwrap_or_default(),
                    detail,
                    fix: def.map(|d| d.fix.clone()).unwrap_or_default(),
                }
            })
        })
        .collect()
}

/// The counter's value.
pub(crate) fn counter_value(def: &CounterDef, facts: &dyn Facts) -> u64 {
    let counted = records(def, facts).values().sum::<usize>() as u64;
    let number = facts
        .values(&def.number_fields)
        .iter()
        .filter_map(|v| {
            v.split_whitespace()
                .next()
                .and_then(|w| w.parse::<u64>().ok())
        })
        .max()
        .unwrap_or(0);
    counted.max(number)
}

/// Counted records per canonical value.
pub(crate) fn records(def: &CounterDef, facts: &dyn Facts) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    if def.count_fields.is_empty() {
        return out;
    }
    let wanted: Vec<String> = def.equals.iter().map(|v| canon_state(v)).collect();
    for v in facts.values(&def.count_fields) {
        let c = canon_state(&v);
        let hit = wanted.is_empty()
            || wanted
                .iter()
                .any(|w| c == *w || c.starts_with(&format!("{w}_")));
        if hit {
            *out.entry(c).or_insert(0) += 1;
        }
    }
    out
}

/// All records of the counter's fields (any value), per canonical value, for append-only checks.
pub(crate) fn all_records(def: &CounterDef, facts: &dyn Facts) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for v in facts.values(&def.count_fields) {
        *out.entry(canon_state(&v)).or_insert(0) += 1;
    }
    out
}

/// The largest `numberFields` value.
pub(crate) fn number_value(def: &CounterDef, facts: &dyn Facts) -> u64 {
    facts
        .values(&def.number_fields)
        .iter()
        .filter_map(|v| {
            v.split_whitespace()
                .next()
                .and_then(|w| w.parse::<u64>().ok())
        })
        .max()
        .unwrap_or(0)
}
