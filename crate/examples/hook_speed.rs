//! The native baseline of `bench/hook-speed.bench.mjs`: the calls of `bench/hook-calls.json`
//! decided natively through the same decision loop every host uses
//! (`Engine::decide_call`), with facts answered from memory (every path is where it is
//! written, and exists), p50 and p99 in microseconds, as one JSON object on stdout that the
//! Bun benchmark prints beside its own figures.
//! `cargo run --release --example hook_speed`.
//!
//! The calls are decided in rotation, as an agent's calls come, twice: as they are
//! (`calls`: each call is one the engine saw a round before, as when an agent runs its tests
//! again), and each made new every round (`fresh`: the same call with a text the engine has
//! not seen, see [`fresh`]), so neither the shell analyser's memo nor the engine's memory
//! of recent decisions can answer it.
use nso::authority::{Call, Engine, Facts, FileText, Policy};
use serde_json::{json, Value};
use std::time::Instant;

const CALLS: &str = include_str!("../../bench/hook-calls.json");
const ROOT: &str = "/tmp/nso-hook-speed";
const ROUNDS: usize = 20_000;
const CONTENT_BYTES: u64 = 1 << 20;

/// Every path is where it is written, and exists; no file has content.
struct Memory;

impl Facts for Memory {
    fn real_path(&mut self, abs: &str) -> Result<(String, bool), String> {
        Ok((abs.to_string(), true))
    }
    fn read(&mut self, _: &str, _: u64) -> Result<FileText, String> {
        Ok(FileText::Missing)
    }
}

/// One call decided as a host decides it: the answer it would get (None: nothing to do), and
/// the time the decision took, in nanoseconds.
fn decide(engine: &mut Engine, agent: &str, tool: &str, args: Value) -> (Option<String>, u128) {
    let start = Instant::now();
    let call = Call {
        session_id: "ses_bench".to_string(),
        agent: Some(agent.to_string()),
        delegated_by: None,
        tool: tool.to_string(),
        args,
        via: None,
        directory: ROOT.to_string(),
        worktree: ROOT.to_string(),
        origin: None,
    };
    let answer = engine.decide_call(call, CONTENT_BYTES, &mut Memory);
    let brief = answer
        .brief(tool, Some(agent))
        .map(|b| serde_json::to_string(&b).expect("brief"));
    (brief, start.elapsed().as_nanos())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((p / 100.0) * sorted.len() as f64) as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// `args` made new for `round`, its verdict unchanged: a comment after a command, a line
/// after written content, a word after an edit's new text, an offset for a read. The same
/// rule as `fresh` in bench/hook-speed.bench.mjs.
fn fresh(tool: &str, args: &Value, round: usize) -> Value {
    let mut args = args.clone();
    let append = |args: &mut Value, key: &str, tail: String| {
        if let Some(text) = args[key].as_str() {
            args[key] = json!(format!("{text}{tail}"));
        }
    };
    match tool {
        "bash" => append(&mut args, "command", format!(" # {round}")),
        "write" => append(&mut args, "content", format!("\n// {round}\n")),
        "edit" => append(&mut args, "newString", format!(" // {round}")),
        _ => args["offset"] = json!(round + 1),
    }
    args
}

/// p50 and p99 of each run, decided in rotation (each call made new every round when
/// `make_fresh`).
fn measure(preset: &str, runs: &[(String, String, String, Value)], make_fresh: bool) -> Vec<Value> {
    let mut engine = Engine::new(Policy::preset(preset).expect("preset"));
    let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(ROUNDS); runs.len()];
    for round in 0..ROUNDS + ROUNDS / 10 {
        for (i, (_, agent, tool, args)) in runs.iter().enumerate() {
            let args = if make_fresh {
                fresh(tool, args, round)
            } else {
                args.clone()
            };
            let (answer, nanos) = decide(&mut engine, agent, tool, args);
            std::hint::black_box(answer);
            if round >= ROUNDS / 10 {
                times[i].push(nanos as f64 / 1000.0);
            }
        }
    }
    runs.iter()
        .zip(times.iter_mut())
        .map(|((name, agent, _, _), t)| {
            t.sort_by(f64::total_cmp);
            json!({ "name": name, "agent": agent, "p50": percentile(t, 50.0), "p99": percentile(t, 99.0) })
        })
        .collect()
}

fn main() {
    let spec: Value = serde_json::from_str(CALLS).expect("bench/hook-calls.json");
    let preset = spec["preset"].as_str().expect("preset");
    // Each call, and each refusal again as the agent it is allowed for.
    let mut runs: Vec<(String, String, String, Value)> = Vec::new();
    for call in spec["calls"].as_array().expect("calls") {
        let name = call["name"].as_str().unwrap_or("?");
        let tool = call["tool"].as_str().unwrap_or("");
        for agent in [&call["agent"], &call["allowedFor"]] {
            if let Some(agent) = agent.as_str() {
                let run = (name.to_string(), agent.to_string(), tool.to_string());
                runs.push((run.0, run.1, run.2, call["args"].clone()));
            }
        }
    }
    let calls = measure(preset, &runs, false);
    let fresh = measure(preset, &runs, true);
    println!(
        "{}",
        json!({ "runtime": "native", "calls": calls, "fresh": fresh })
    );
}
