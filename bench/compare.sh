#!/usr/bin/env bash
# The hook-speed benchmark of this checkout beside another commit's, in one Bun process:
# `bash bench/compare.sh REF` (default: HEAD). The other commit is checked out into a
# temporary worktree with its own committed pkg/ (no build needed).
set -euo pipefail
cd "$(dirname "$0")/.."
ref="${1:-HEAD}"
base=$(mktemp -d)
trap 'git worktree remove --force "$base" >/dev/null 2>&1 || rm -rf "$base"' EXIT
git worktree add --detach --quiet "$base" "$ref"
ln -s "$PWD/node_modules" "$base/node_modules"
BUN_BE_BUN=1 tests/host/node_modules/.bin/opencode bench/hook-speed.bench.mjs --baseline "$base/plugin/nso-plugin.js"
