//! The workflow package's Mind exports: distilling a lane into observation records, reflecting,
//! and answering questions (Insight) over the artifacts. The shim reads the lanes and the
//! artifacts, appends the records under Mind's lock and keeps the checkpoints.

use crate::common::{js_error, json};
use crate::Workflow;
use nso_workflow::config;
use nso_workflow::continuity::redact::Redactor;
use nso_workflow::mind::provider::{self, ProviderSettings};
use nso_workflow::mind::reflect::Reflection;
use nso_workflow::mind::{self, insight, MindSettings, Observation};
use std::collections::HashMap;
use wasm_bindgen::prelude::*;

fn from_json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, JsValue> {
    serde_json::from_str(text).map_err(|e| js_error("bad_input", &format!("{what}: {e}")))
}

/// The artifacts of a project, indexed for questions (see `nso_workflow::mind::insight`).
#[wasm_bindgen]
pub struct MindIndex {
    insight: insight::Insight,
}

#[wasm_bindgen]
impl MindIndex {
    /// Reads and indexes a corpus (`Corpus` JSON: `{observations, reflections, moves,
    /// ledger, handoffs}`).
    #[wasm_bindgen(constructor)]
    pub fn new(corpus_json: &str) -> Result<MindIndex, JsValue> {
        let corpus: insight::Corpus = from_json("mind corpus", corpus_json)?;
        Ok(MindIndex {
            insight: insight::Insight::new(&corpus),
        })
    }

    /// The answer to `question` (`mode`: `brief`, `refs` or `snips`), as `Answer` JSON.
    #[wasm_bindgen(js_name = ask)]
    pub fn ask(
        &self,
        question: &str,
        mode: &str,
        segment: Option<String>,
    ) -> Result<String, JsValue> {
        json(&self.insight.ask(question, mode, segment.as_deref()))
    }

    /// Lines for a handoff's mind layer (JSON list of strings).
    #[wasm_bindgen(js_name = handoffLines)]
    pub fn handoff_lines(
        &self,
        segments_json: &str,
        tasks_json: &str,
        except: Option<String>,
        limit: usize,
    ) -> Result<String, JsValue> {
        let segments: Vec<String> = from_json("segments", segments_json)?;
        let tasks: Vec<String> = from_json("tasks", tasks_json)?;
        json(
            &self
                .insight
                .handoff_lines(&segments, &tasks, except.as_deref(), limit),
        )
    }
}

/// Mind by segment (`Overview` JSON) from a corpus (`Corpus` JSON), at most `limit`
/// reflections and open questions per segment.
#[wasm_bindgen(js_name = mindOverview)]
pub fn mind_overview(corpus_json: &str, limit: usize) -> Result<String, JsValue> {
    let corpus: insight::Corpus = from_json("mind corpus", corpus_json)?;
    json(&mind::overview::overview(&corpus, limit))
}

#[wasm_bindgen]
impl Workflow {
    /// Distills a lane (`export`: `opencode export` JSON) into the records to append, given
    /// what is kept (`{id: {rev, basis}}` JSON): `Distilled` JSON.
    #[wasm_bindgen(js_name = mindDistill)]
    pub fn mind_distill(
        &self,
        text: &str,
        export: bool,
        root: Option<String>,
        known_json: &str,
    ) -> Result<String, JsValue> {
        let known: HashMap<String, mind::distill::Kept> = from_json("kept revisions", known_json)?;
        let settings = self.mind_settings()?;
        json(&mind::distill::distill(
            text,
            export,
            root.as_deref(),
            &settings,
            &known,
            &self.redactor()?,
        ))
    }

    /// The provider of `continuity.mind.provider` (`ProviderSettings` JSON), or `null`.
    #[wasm_bindgen(js_name = mindProvider)]
    pub fn mind_provider(&self) -> Result<String, JsValue> {
        json(&self.mind_settings()?.provider)
    }

    /// The provider's pass over one reflection (`Reflection` JSON): `ProviderPass` JSON.
    #[wasm_bindgen(js_name = mindReflectionPass)]
    pub fn mind_reflection_pass(&self, reflection_json: &str) -> Result<String, JsValue> {
        let r: Reflection = from_json("reflection", reflection_json)?;
        json(&provider::reflection_pass(
            &r,
            &self.redactor()?,
            &self.provider()?,
        ))
    }

    /// Merges a provider's `answer` into the records of its pass (`kind`: `observations`, a
    /// JSON list of observations, or `reflection`, one reflection): the records as JSON, or
    /// the error `provider_answer` saying why the answer was refused.
    #[wasm_bindgen(js_name = mindRefine)]
    pub fn mind_refine(
        &self,
        kind: &str,
        records_json: &str,
        answer: &str,
    ) -> Result<String, JsValue> {
        let (redactor, p) = (self.redactor()?, self.provider()?);
        let refused = |e: provider::Refused| js_error("provider_answer", &e.0);
        if kind == "reflection" {
            let r: Reflection = from_json("reflection", records_json)?;
            json(&provider::refine_reflection(&r, answer, &redactor, &p).map_err(refused)?)
        } else {
            let list: Vec<Observation> = from_json("observations", records_json)?;
            json(&provider::refine_observations(&list, answer, &redactor, &p).map_err(refused)?)
        }
    }

    /// The reflections of the current observations (`observations.jsonl` and `moves.jsonl`
    /// texts): a JSON list.
    #[wasm_bindgen(js_name = mindReflect)]
    pub fn mind_reflect(&self, observations: &str, moves: &str) -> Result<String, JsValue> {
        let settings = self.mind_settings()?;
        let (moves, _) = insight::read_moves(moves);
        let (current, _) = insight::current_observations(observations, &moves);
        json(&mind::reflect::reflect(&current, &settings))
    }

    /// The segments of `continuity.mind` (JSON list of names).
    #[wasm_bindgen(js_name = mindSegments)]
    pub fn mind_segments(&self) -> Result<String, JsValue> {
        let names: Vec<String> = self
            .mind_settings()?
            .segments
            .into_iter()
            .map(|s| s.name)
            .collect();
        json(&names)
    }
}

impl Workflow {
    /// The configured provider (an error when there is none).
    fn provider(&self) -> Result<ProviderSettings, JsValue> {
        self.mind_settings()?
            .provider
            .ok_or_else(|| js_error("bad_input", "continuity.mind.provider is not configured"))
    }

    /// The project's redaction rules (`continuity.t0`).
    fn redactor(&self) -> Result<Redactor, JsValue> {
        Ok(Redactor::from_policy(&self.t0_policy()?))
    }

    /// The project's Mind settings (`continuity.mind`, else the defaults).
    fn mind_settings(&self) -> Result<MindSettings, JsValue> {
        let config = config::parse(&self.config_file, self.config_text.as_deref())
            .map_err(|e| js_error(e.code, &e.to_string()))?;
        match &config.continuity.mind {
            Some(v) => MindSettings::from_json(v).map_err(|e| {
                js_error(
                    "config_value",
                    &format!(
                        "{}: continuity.mind.{}: {} Fix: {}",
                        self.config_file, e.path, e.problem, e.fix
                    ),
                )
            }),
            None => Ok(MindSettings::default()),
        }
    }
}
