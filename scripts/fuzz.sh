#!/usr/bin/env bash
# Runs every cargo-fuzz target for FUZZ_SECONDS each (default 20): the shell analyser, the
# policy parser/compiler, the patch parser and the conductor must never panic. Needs a nightly
# toolchain (rustup's, present on these machines) and cargo-fuzz (installed by scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/../crate"
seconds=${FUZZ_SECONDS:-20}
for target in $(cargo +nightly fuzz list); do
  echo "== fuzz $target (${seconds}s)"
  cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" 2>&1 | grep -E "^Done|ERROR|panicked|SUMMARY" || true
  # a crash leaves an artifact and a non-zero exit; re-check explicitly
  if ls "fuzz/artifacts/$target"/crash-* >/dev/null 2>&1; then
    echo "fuzz: $target crashed; inputs in crate/fuzz/artifacts/$target/" >&2
    exit 1
  fi
done
