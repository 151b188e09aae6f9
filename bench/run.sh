#!/usr/bin/env bash
# Runs the benchmarks in Node and in OpenCode's own Bun runtime: the plugin, then conductor
# claims through the file store (scaling with the claims held, 16 processes at once), then
# continuity (per event, T0 of 10,000 events, handoff composition, raw → T0 sizes).
set -euo pipefail
cd "$(dirname "$0")/.."
node bench/plugin.bench.mjs
BUN_BE_BUN=1 node_modules/.bin/opencode bench/plugin.bench.mjs
node bench/conductor-claims.bench.mjs
BUN_BE_BUN=1 node_modules/.bin/opencode bench/conductor-claims.bench.mjs
node bench/continuity.bench.mjs
BUN_BE_BUN=1 node_modules/.bin/opencode bench/continuity.bench.mjs
node bench/replay.bench.mjs
BUN_BE_BUN=1 node_modules/.bin/opencode bench/replay.bench.mjs
node bench/mc.bench.mjs
