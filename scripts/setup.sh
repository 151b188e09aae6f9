#!/usr/bin/env bash
# Installs everything NSO needs to build and test on a fresh Debian 12 machine.
# Idempotent: each step is skipped when what it installs is already present.
# Recipe and reasons: docs/contributing.md "Building from source".
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130
WASM_PACK_VERSION=0.15.1
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[setup] %s\n' "$*"; }

# Debian's rustc-web has the wasm32 std sources (rustup cannot add the target here);
# ripgrep is what OpenCode's grep/glob use (else they try to download it);
# util-linux/iproute2 give the end-to-end tests a loopback-only network namespace;
# chromium is the browser the Mission Control tests drive (playwright-core cannot download one);
# postgresql is the server the Conductor's PostgreSQL store is tested against (the tests start
# their own in a temporary folder on 127.0.0.1; the package's own cluster is not used).
wanted=(rustc-web cargo-web rust-web-src lld-22 ripgrep util-linux iproute2 chromium postgresql)
missing=()
for p in "${wanted[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  log "Debian packages present"
fi
# wasm-pack only checks that this folder exists; the std is built from source (-Zbuild-std).
mkdir -p /usr/lib/rustlib/wasm32-unknown-unknown/lib

if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
  log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  # no --locked: its lock file pins a crate the registry mirror lacks
  cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
else
  log "wasm-bindgen $WASM_BINDGEN_VERSION present"
fi
if ! wasm-pack --version 2>/dev/null | grep -q "$WASM_PACK_VERSION"; then
  log "cargo install wasm-pack $WASM_PACK_VERSION"
  cargo install -q wasm-pack --version "$WASM_PACK_VERSION"
else
  log "wasm-pack $WASM_PACK_VERSION present"
fi

if rustup toolchain list 2>/dev/null | grep -q nightly; then
  if ! cargo fuzz --version >/dev/null 2>&1; then
    log "cargo install cargo-fuzz"
    cargo install -q cargo-fuzz
  else
    log "cargo-fuzz present"
  fi
else
  log "no nightly toolchain: fuzzing (scripts/fuzz.sh) unavailable"
fi

if [ ! -d node_modules ] || ! npm ls --depth=0 >/dev/null 2>&1; then
  log "npm ci (from package-lock.json)"
  npm_config_fetch_retries=0 npm ci --no-audit --no-fund --loglevel=error
else
  log "node_modules present"
fi
# The test host (real OpenCode) in its own folder: the registry lacks OpenCode's packages for
# other platforms, so they never enter a lock file and `npm ci` would refuse it; `npm install`
# takes the versions pinned by tests/host/package-lock.json.
if [ ! -d tests/host/node_modules ] || ! (cd tests/host && npm ls --depth=0 >/dev/null 2>&1); then
  log "npm install in tests/host (OpenCode for the end-to-end tests)"
  (cd tests/host && npm_config_fetch_retries=0 npm install --no-audit --no-fund --loglevel=error)
else
  log "tests/host/node_modules present"
fi
log "wasm toolchain: $(/usr/bin/rustc --version)"
