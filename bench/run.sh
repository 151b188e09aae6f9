#!/usr/bin/env bash
# Runs the plugin benchmark in Node and in OpenCode's own Bun runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
node bench/plugin.bench.mjs
BUN_BE_BUN=1 node_modules/.bin/opencode bench/plugin.bench.mjs
