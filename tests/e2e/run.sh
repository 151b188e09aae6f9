#!/usr/bin/env bash
# Runs the e2e tests (default: tests/e2e/*.test.mjs, or the files given) with no network but
# loopback (see netns.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- tests/e2e/*.test.mjs
exec bash tests/e2e/netns.sh node --test --test-concurrency=1 "$@"
