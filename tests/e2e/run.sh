#!/usr/bin/env bash
# Runs the e2e tests (default: tests/e2e/*.test.mjs, or the files given) with no network but
# loopback (see netns.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- tests/e2e/*.test.mjs
# The Conductor's machine-wide claim store: a fresh one for the run, never the user's.
export CONDUCTOR_HOME="${CONDUCTOR_HOME:-$(mktemp -d)}"
exec bash tests/e2e/netns.sh node --test --test-concurrency=1 "$@"
