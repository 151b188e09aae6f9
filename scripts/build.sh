#!/usr/bin/env bash
# Regenerates pkg/ from the wasm binding crates (crate/wasm, crate/wasm-workflow): wasm-pack (target nodejs: loads in Node 20 and OpenCode's Bun),
# then wasm-opt -O3 from the npm binaryen package (speed: see Cargo.toml). Reproducible: source paths are remapped,
# so clones at different paths produce byte-identical output.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# Debian's rustc-web (with wasm32 std sources) first; ~/.cargo/bin for wasm-pack/wasm-bindgen.
export PATH="/usr/bin:$HOME/.cargo/bin:$PATH"
export RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort
export CARGO_TARGET_DIR="$root/target/wasm"
if [ ! -d /usr/lib/rustlib/wasm32-unknown-unknown/lib ] || ! command -v wasm-pack >/dev/null; then
  echo "build: the wasm toolchain is not installed; run: bash scripts/setup.sh" >&2
  exit 1
fi
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
export RUSTFLAGS="--remap-path-prefix=$root=/nso --remap-path-prefix=$registry=/cargo --remap-path-prefix=/usr/lib/rustlib/src/rust=/rustsrc"

wasm_opt() {
  node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-reference-types --enable-multivalue --enable-sign-ext "$1" -o "$1"
}
# The main package: what every tool call needs, loaded at startup.
wasm-pack --quiet build crate/wasm --release --target nodejs --no-opt --out-dir "$root/pkg" --out-name nso
wasm_opt pkg/nso_bg.wasm
# The workflow package (routing, contracts, status, continuity, Mind, Kord), loaded lazily.
wf=$(mktemp -d)
trap 'rm -rf "$wf"' EXIT
wasm-pack --quiet build crate/wasm-workflow --release --target nodejs --no-opt --out-dir "$wf" --out-name nso_workflow
cp "$wf"/nso_workflow.js "$wf"/nso_workflow.d.ts "$wf"/nso_workflow_bg.wasm "$wf"/nso_workflow_bg.wasm.d.ts pkg/
wasm_opt pkg/nso_workflow_bg.wasm
rm -f pkg/.gitignore pkg/README.md
# The policy schema ships next to the config schema that references it.
cp crate/presets/policy.schema.json schema/policy.schema.json
# The compiler decides the bytes: record it so a mismatch with CI names its cause.
/usr/bin/rustc --version > pkg/TOOLCHAIN
for w in pkg/nso_bg.wasm pkg/nso_workflow_bg.wasm; do
  echo "$w: $(wc -c < "$w") bytes raw, $(gzip -9n < "$w" | wc -c) bytes gzipped"
done
echo "toolchain: $(cat pkg/TOOLCHAIN)"
