//! Native timing of `analyze` (not a test): `cargo run --release --example bench`.
//!
//! Prints wall-clock ns per call (best of 7 runs) and, on Linux, CPU ns per call from
//! `/proc/self/stat`, which excludes time the process spent descheduled on a busy machine.
use nso::shell::analyze;
use std::hint::black_box;
use std::time::Instant;

const CASES: &[(&str, &str)] = &[
    (
        "compound",
        r#"cd sub && git -C . status --short | tee out.txt && VAR=1 bash -lc "git push origin main" 2>/dev/null"#,
    ),
    ("simple", "git status"),
    ("heredoc", "cat > Dockerfile <<'EOF'\nFROM rust:1\nRUN cargo build\nEOF"),
    (
        "find-xargs",
        "find . -name '*.tmp' -print0 | xargs -0 rm -f && git add -A && git commit -m \"clean $(date)\"",
    ),
];

/// User+system CPU time of this process in seconds (Linux), if available.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // fields after the parenthesised command name; utime and stime are fields 14 and 15
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0) // USER_HZ is 100 on Linux
}

fn main() {
    for (name, cmd) in CASES {
        for _ in 0..10_000 {
            black_box(analyze(black_box(cmd)));
        }
        let mut best = f64::MAX;
        for _ in 0..7 {
            let n = 100_000;
            let t = Instant::now();
            for _ in 0..n {
                black_box(analyze(black_box(cmd)));
            }
            best = best.min(t.elapsed().as_secs_f64() * 1e9 / f64::from(n));
        }
        // CPU time over a longer run (10 ms tick resolution)
        let n = 1_000_000;
        let cpu = cpu_seconds().and_then(|c0| {
            for _ in 0..n {
                black_box(analyze(black_box(cmd)));
            }
            cpu_seconds().map(|c1| (c1 - c0) * 1e9 / f64::from(n))
        });
        let cpu = cpu.map_or_else(|| "n/a".to_string(), |c| format!("{c:.0}"));
        println!(
            "{name:<11} {:>4} bytes  wall {best:>5.0} ns  cpu {cpu:>5} ns  per analyze",
            cmd.len()
        );
    }
}
