#!/usr/bin/env bash
# The demo: NSO inside real OpenCode with a scripted model on 127.0.0.1. Needs only Node 20:
# pkg/ is committed, so no Rust is built. Installs the npm dev dependencies if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x tests/host/node_modules/.bin/opencode ]; then
  echo "[demo] installing OpenCode into tests/host"
  # `npm install`, not `npm ci`: see scripts/setup.sh
  (cd tests/host && npm_config_fetch_retries=0 npm install --no-audit --no-fund --loglevel=error)
fi
if [ ! -d node_modules ]; then
  echo "[demo] installing NSO's dependencies"
  npm_config_fetch_retries=0 npm ci --no-audit --no-fund --loglevel=error
fi
exec bash tests/e2e/netns.sh node tests/e2e/demo.mjs
