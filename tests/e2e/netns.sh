#!/usr/bin/env bash
# Runs a command with no network but loopback: inside `unshare -n` when possible (root),
# else behind a dead HTTP(S) proxy. NSO_E2E_NETNS=0 forces the proxy mode.
set -euo pipefail
if [ "${NSO_E2E_IN_NETNS:-}" = 1 ]; then
  ip link set lo up
  echo "[e2e] network: unshare -n (loopback only)"
  exec "$@"
fi
if [ "${NSO_E2E_NETNS:-1}" != 0 ] && [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
  if command -v ip >/dev/null 2>&1; then
    NSO_E2E_IN_NETNS=1 exec unshare -n "$0" "$@"
  fi
  echo "[e2e] 'ip' not found: install iproute2 to run inside unshare -n" >&2
fi
dead=http://127.0.0.1:9
export HTTP_PROXY=$dead HTTPS_PROXY=$dead ALL_PROXY=$dead http_proxy=$dead https_proxy=$dead all_proxy=$dead
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
echo "[e2e] network: proxy fallback (HTTP(S)/ALL_PROXY=$dead; NOT isolated at the OS level)"
exec "$@"
