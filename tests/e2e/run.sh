#!/usr/bin/env bash
# Runs the e2e tests (default: tests/e2e/*.test.mjs, or the files given) with no network but
# loopback: inside `unshare -n` when possible (root), else behind a dead HTTP(S) proxy.
# NSO_E2E_NETNS=0 forces the proxy mode.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- tests/e2e/*.test.mjs

if [ "${NSO_E2E_IN_NETNS:-}" = 1 ]; then
  ip link set lo up
  echo "[e2e] network: unshare -n (loopback only)"
  exec node --test "$@"
fi

if [ "${NSO_E2E_NETNS:-1}" != 0 ] && [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
  if command -v ip >/dev/null 2>&1; then
    NSO_E2E_IN_NETNS=1 exec unshare -n "$0" "$@"
  fi
  echo "[e2e] 'ip' not found: install iproute2 to run the tests inside unshare -n" >&2
fi

# Fallback: every proxy-aware client gets a closed local port; only 127.0.0.1 is reached directly.
dead=http://127.0.0.1:9
export HTTP_PROXY=$dead HTTPS_PROXY=$dead ALL_PROXY=$dead http_proxy=$dead https_proxy=$dead all_proxy=$dead
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
echo "[e2e] network: proxy fallback (HTTP(S)/ALL_PROXY=$dead; NOT isolated at the OS level)"
exec node --test "$@"
