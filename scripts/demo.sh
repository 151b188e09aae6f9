#!/usr/bin/env bash
# The demo: NSO inside real OpenCode with a scripted model on 127.0.0.1. Needs only Node 20:
# pkg/ is committed, so no Rust is built. Installs the npm dev dependencies if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/opencode ]; then
  echo "[demo] installing npm dev dependencies (OpenCode among them)"
  # `npm install` from package-lock.json (see scripts/setup.sh for why not `npm ci`)
  npm_config_fetch_retries=0 npm install --no-audit --no-fund --loglevel=error
fi
exec bash tests/e2e/netns.sh node tests/e2e/demo.mjs
