//! The native baseline of `bench/hook-speed.bench.mjs`: the calls of `bench/hook-calls.json`
//! decided natively, doing what the wasm boundary's `decideCall` does for each (parse the
//! arguments' JSON and, when there are any, the lookups' JSON, fill in the request's fixed
//! parts, ask for lookups, answer them, decide, encode a decision that is not a plain allow
//! as its brief, `Decision::brief`), p50 and p99 in microseconds, as one JSON object on
//! stdout that the Bun benchmark prints beside its own figures.
//! `cargo run --release --example hook_speed`.
//!
//! The calls are decided in rotation, as an agent's calls come, twice: as they are
//! (`calls`: each call is one the engine saw a round before, as when an agent runs its tests
//! again), and each made new every round (`fresh`: the same call with a text the engine has
//! not seen, see [`fresh`]), so neither the shell analyser's memo nor the engine's memory
//! of recent decisions can answer it.
use nso::authority::{Engine, Policy, Request};
use serde_json::{json, Map, Value};
use std::time::Instant;

const CALLS: &str = include_str!("../../bench/hook-calls.json");
const ROOT: &str = "/tmp/nso-hook-speed";
const ROUNDS: usize = 20_000;

/// The request JSON the shim sends first: the usual path arguments already resolved.
fn first_request(agent: &str, tool: &str, args: &Value) -> Value {
    let mut resolved = Map::new();
    let mut exists = Map::new();
    for key in ["filePath", "path"] {
        if let Some(p) = args.get(key).and_then(Value::as_str) {
            resolved.insert(p.to_string(), json!(format!("{ROOT}/{p}")));
            exists.insert(p.to_string(), json!(true));
        }
    }
    json!({
        "sessionId": "ses_bench", "agent": agent, "tool": tool, "args": args,
        "directory": ROOT, "worktree": ROOT, "resolved": resolved, "contents": {}, "exists": exists,
    })
}

/// One call as the boundary decides it; the answer the shim would get (None: plain allow).
fn decide(engine: &mut Engine, request: &mut Value) -> Option<String> {
    for _ in 0..3 {
        // What the shim sends: the arguments, and the lookups only when it has some.
        let args = request["args"].to_string();
        let has_lookups = ["resolved", "contents", "exists"]
            .iter()
            .any(|k| request[k].as_object().is_some_and(|m| !m.is_empty()));
        let lookups = has_lookups.then(|| {
            json!({ "resolved": request["resolved"], "contents": request["contents"],
                "exists": request["exists"] })
            .to_string()
        });
        let start = Instant::now();
        // As the boundary does: one request kept between calls, its strings refilled.
        let mut req = KEPT.take();
        req.args = serde_json::from_str(&args).expect("arguments");
        if let Some(text) = &lookups {
            let l: Request = serde_json::from_str(text).expect("lookups");
            (req.resolved, req.contents, req.exists) = (l.resolved, l.contents, l.exists);
        }
        req.session_id.clear();
        req.session_id.push_str("ses_bench");
        req.agent = request["agent"].as_str().map(str::to_string);
        req.tool.clear();
        req.tool
            .push_str(request["tool"].as_str().unwrap_or_default());
        if req.directory.is_empty() {
            (req.directory, req.worktree) = (ROOT.to_string(), ROOT.to_string());
        }
        let outcome = engine.decide_unless_plain(&req);
        req.args = Value::Null;
        (req.resolved, req.contents, req.exists) = Default::default();
        KEPT.set(req);
        let answer = match outcome {
            Err(need) => {
                // The shim's answers: real paths as given, every file present, no contents.
                for p in &need.resolve {
                    request["resolved"][p] = json!(p);
                }
                for p in &need.exists {
                    request["exists"][p] = json!(true);
                }
                for p in &need.content {
                    request["contents"][p] = Value::Null;
                }
                TIMED.with(|t| t.set(t.get() + start.elapsed().as_nanos()));
                continue;
            }
            Ok(d) => d.map(|d| serde_json::to_string(&d.brief()).expect("decision")),
        };
        TIMED.with(|t| t.set(t.get() + start.elapsed().as_nanos()));
        return answer;
    }
    Some("lookups did not converge".to_string())
}

thread_local! {
    /// The request kept between calls, as the boundary keeps it (`Nso::decide_call`).
    static KEPT: std::cell::Cell<Request> = std::cell::Cell::new(Request::default());
    /// Time spent in the boundary's work, excluding the building of the request text (the
    /// shim's work, measured in Bun).
    static TIMED: std::cell::Cell<u128> = const { std::cell::Cell::new(0) };
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
fn measure(preset: &str, runs: &[(String, String, Value)], make_fresh: bool) -> Vec<Value> {
    let mut engine = Engine::new(Policy::preset(preset).expect("preset"));
    let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(ROUNDS); runs.len()];
    for round in 0..ROUNDS + ROUNDS / 10 {
        for (i, (_, _, request)) in runs.iter().enumerate() {
            let mut request = request.clone();
            if make_fresh {
                let tool = request["tool"].as_str().unwrap_or_default().to_string();
                request["args"] = fresh(&tool, &request["args"], round);
            }
            TIMED.with(|t| t.set(0));
            std::hint::black_box(decide(&mut engine, &mut request));
            if round >= ROUNDS / 10 {
                times[i].push(TIMED.with(|t| t.get()) as f64 / 1000.0);
            }
        }
    }
    runs.iter()
        .zip(times.iter_mut())
        .map(|((name, agent, _), t)| {
            t.sort_by(f64::total_cmp);
            json!({ "name": name, "agent": agent, "p50": percentile(t, 50.0), "p99": percentile(t, 99.0) })
        })
        .collect()
}

fn main() {
    let spec: Value = serde_json::from_str(CALLS).expect("bench/hook-calls.json");
    let preset = spec["preset"].as_str().expect("preset");
    // Each call, and each refusal again as the agent it is allowed for.
    let mut runs: Vec<(String, String, Value)> = Vec::new();
    for call in spec["calls"].as_array().expect("calls") {
        let name = call["name"].as_str().unwrap_or("?");
        for agent in [&call["agent"], &call["allowedFor"]] {
            if let Some(agent) = agent.as_str() {
                let request =
                    first_request(agent, call["tool"].as_str().unwrap_or(""), &call["args"]);
                runs.push((name.to_string(), agent.to_string(), request));
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
