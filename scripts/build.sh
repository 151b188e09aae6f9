#!/usr/bin/env bash
# Regenerates pkg/ from the wasm binding crates (crate/wasm, crate/wasm-workflow): for each,
# cargo builds the wasm, wasm-bindgen writes its JS glue (target nodejs: loads in Node 20 and
# OpenCode's Bun), then wasm-opt -O3 from the npm binaryen package (speed: see Cargo.toml).
# Reproducible: source paths are remapped, so clones at different paths produce
# byte-identical output.
set -euo pipefail
shopt -s inherit_errexit
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# Debian's rustc-web (with wasm32 std sources) first; ~/.cargo/bin for wasm-bindgen.
export PATH="/usr/bin:$HOME/.cargo/bin:$PATH"
export RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort
export CARGO_TARGET_DIR="$root/target/wasm"
# wasm-bindgen's CLI must be the version of the wasm-bindgen crate the wasm is built with.
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ ! -d /usr/lib/rustlib/src/rust ] || ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $bindgen_version"; then
  echo "build: the wasm toolchain (rustc-web's std sources, wasm-bindgen $bindgen_version) is not installed; run: bash scripts/setup.sh" >&2
  exit 1
fi
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
export RUSTFLAGS="--remap-path-prefix=$root=/nso --remap-path-prefix=$registry=/cargo --remap-path-prefix=/usr/lib/rustlib/src/rust=/rustsrc"

# One package: `build_package OUT_NAME CARGO_ARGS...` builds the crate the cargo arguments
# select and writes pkg/OUT_NAME.js, .d.ts, _bg.wasm and _bg.wasm.d.ts; sets `manifest` to the
# crate's Cargo.toml.
build_package() {
  local name=$1 artifact wasm
  shift
  artifact=$(cargo build --quiet --lib --release --target wasm32-unknown-unknown --message-format=json-render-diagnostics "$@" |
    node -e '
      let last;
      for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
        const m = line.startsWith("{") ? JSON.parse(line) : {};
        if (m.reason === "compiler-artifact" && m.filenames.some((f) => f.endsWith(".wasm"))) last = m;
      }
      if (!last) process.exit(1);
      console.log(last.filenames.find((f) => f.endsWith(".wasm")));
      console.log(last.manifest_path);')
  { read -r wasm; read -r manifest; } <<< "$artifact"
  wasm-bindgen "$wasm" --out-dir pkg --typescript --target nodejs --out-name "$name"
  node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-reference-types --enable-multivalue --enable-sign-ext "pkg/${name}_bg.wasm" -o "pkg/${name}_bg.wasm"
}

# pkg/package.json for the package OUT_NAME, from the crate at MANIFEST (name, description,
# version, license, repository) in the layout npm tools expect of a wasm package.
write_package_json() {
  local name=$1 manifest=$2
  cargo metadata --no-deps --format-version 1 --manifest-path "$manifest" | node -e '
    const [name, manifest] = process.argv.slice(1);
    const crate = JSON.parse(require("fs").readFileSync(0, "utf8")).packages.find((p) => p.manifest_path === manifest);
    const json = {
      name: crate.name,
      collaborators: crate.authors.length ? crate.authors : undefined,
      description: crate.description ?? undefined,
      version: crate.version,
      license: crate.license ?? undefined,
      repository: crate.repository ? { type: "git", url: crate.repository } : undefined,
      files: [`${name}_bg.wasm`, `${name}.js`, `${name}.d.ts`],
      main: `${name}.js`,
      homepage: crate.homepage ?? undefined,
      types: `${name}.d.ts`,
      keywords: crate.keywords.length ? crate.keywords : undefined,
    };
    require("fs").writeFileSync("pkg/package.json", `${JSON.stringify(json, null, 2)}\n`);' "$name" "$manifest"
}

# The main package: what every tool call needs, loaded at startup.
build_package nso -p nso-wasm
write_package_json nso "$manifest"
# The workflow package (routing, contracts, status, continuity, Mind, Kord), loaded lazily.
build_package nso_workflow -p nso-wasm-workflow
# The policy schema ships next to the config schema that references it.
cp crate/presets/policy.schema.json schema/policy.schema.json
# The compiler decides the bytes: record it so a mismatch with CI names its cause.
/usr/bin/rustc --version > pkg/TOOLCHAIN
for w in pkg/nso_bg.wasm pkg/nso_workflow_bg.wasm; do
  echo "$w: $(wc -c < "$w") bytes raw, $(gzip -9n < "$w" | wc -c) bytes gzipped"
done
echo "toolchain: $(cat pkg/TOOLCHAIN)"
