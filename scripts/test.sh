#!/usr/bin/env bash
# The whole test suite: lints, Rust core tests, JS tests against pkg/ and the real shim, and
# end-to-end tests through the real OpenCode binary with a scripted model on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"

echo "== cargo fmt / clippy (native; see docs/limitations.md for wasm32)"
cargo fmt --all --check
cargo clippy --quiet --all-targets -- -D warnings
echo "== eslint (plugin/, bin/, tests/, bench/)"
node_modules/.bin/eslint .
echo "== cargo test"
cargo test --quiet 2>&1
echo "== fuzz (no panics: shell analyser, policy parser, patch parser)"
if cargo +nightly fuzz --version >/dev/null 2>&1; then
  FUZZ_SECONDS=${FUZZ_SECONDS:-15} bash scripts/fuzz.sh
else
  echo "SKIPPED: no nightly toolchain with cargo-fuzz (the deterministic random-input tests above still ran)"
fi
echo "== native Claude Code hook (release build: the parity and hook tests hold it to the Node hook)"
cargo build --quiet --release -p nso-hook
export NSO_NATIVE_HOOK="$PWD/target/release/nso-hook"
echo "== node tests (pkg/ and plugin/)"
node --test --test-reporter=spec tests/node/
echo "== end-to-end through real OpenCode"
bash tests/e2e/run.sh
