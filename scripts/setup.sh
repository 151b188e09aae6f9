#!/usr/bin/env bash
# Installs everything NSO needs to build and test on a fresh Debian 12 machine.
# Idempotent: each step is skipped when what it installs is already present.
# Recipe and reasons: docs/contributing.md "Building from source".
set -euo pipefail
cd "$(dirname "$0")/.."

# wasm-bindgen's CLI must be the version of the wasm-bindgen crate in Cargo.lock.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[setup] %s\n' "$*"; }

# The npm installs wait mostly on the network, the cargo installs on the CPU: on a fresh machine
# they run side by side, npm's in the background (its failure fails the setup at the `wait`).
npm_installs() {
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
}
npm_installs &
npm_pid=$!

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

# wasm-bindgen's CLI writes pkg/'s JS glue (scripts/build.sh). No registry reachable here ships
# it prebuilt (npm's wasm-pack downloads binaries from GitHub at install time), so it is
# compiled: only the wasm-bindgen binary, without the TLS stack of the default features (used
# by wasm-bindgen-test-runner's downloads, not by the bindings).
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WASM_BINDGEN_VERSION"; then
  log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  # no --locked: its lock file pins a crate the registry mirror lacks
  cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features --bin wasm-bindgen
else
  log "wasm-bindgen $WASM_BINDGEN_VERSION present"
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

wait "$npm_pid"
log "wasm toolchain: $(/usr/bin/rustc --version)"
