#!/usr/bin/env bash
# Runs the benchmarks in Node and in OpenCode's own Bun runtime: the hook's cost per decision
# beside the native core's, real paths by depth, the plugin, then conductor
# claims through the file store (scaling with the claims held, 16 processes at once), the file
# and PostgreSQL stores side by side (a real server started for it), then
# continuity (per event, T0 of 10,000 events, handoff composition, raw → T0 sizes).
set -euo pipefail
cd "$(dirname "$0")/.."
# What a hook pays per decision (bench/hook-calls.json), in Bun beside the same calls decided
# natively in the same run (crate/examples/hook_speed.rs).
native=$(mktemp)
trap 'rm -f "$native"' EXIT
cargo run --release --quiet --example hook_speed > "$native"
BUN_BE_BUN=1 tests/host/node_modules/.bin/opencode bench/hook-speed.bench.mjs --native "$native"
BUN_BE_BUN=1 tests/host/node_modules/.bin/opencode bench/real-paths.bench.mjs
node bench/plugin.bench.mjs
BUN_BE_BUN=1 tests/host/node_modules/.bin/opencode bench/plugin.bench.mjs
node bench/conductor-claims.bench.mjs
BUN_BE_BUN=1 tests/host/node_modules/.bin/opencode bench/conductor-claims.bench.mjs
node bench/conductor-store.bench.mjs
node bench/continuity.bench.mjs
BUN_BE_BUN=1 tests/host/node_modules/.bin/opencode bench/continuity.bench.mjs
node bench/replay.bench.mjs
BUN_BE_BUN=1 tests/host/node_modules/.bin/opencode bench/replay.bench.mjs
node bench/mind.bench.mjs
node bench/mc.bench.mjs
node bench/hook.bench.mjs # whole-process Claude Code hook calls: native nso-hook (cargo build --release -p nso-hook), Node, Python
