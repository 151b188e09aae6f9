//! `cargo run --example explain -- '<policy json>' '<request json>'`: prints the decision
//! (JSON) and the `explain` text. A stand-in for the later `nso explain` CLI.
use nso::authority::{Engine, Policy, Request};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(cfg), Some(req)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: explain '<policy json>' '<request json>'");
        std::process::exit(2);
    };
    let policy = match Policy::from_config_json(cfg, ".opencode/nso.json") {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let engine = Engine::new(policy);
    let request: Request = match serde_json::from_str(req) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bad request JSON: {e}");
            std::process::exit(1);
        }
    };
    let decision = engine.evaluate(&request);
    println!(
        "{}",
        serde_json::to_string_pretty(&decision).unwrap_or_default()
    );
    print!("{}", engine.explain(&request));
}
