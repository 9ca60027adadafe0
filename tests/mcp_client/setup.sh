#!/usr/bin/env bash
# Installs the reference MCP servers (@modelcontextprotocol/server-everything, server-memory and
# server-filesystem, pinned in package.json and package-lock.json) into tests/mcp_client/.cache/
# (git-ignored), for the MCP client's integration tests (tests/integration/mcp_client_test.cpp).
# As tests/support/npm-install-pinned.sh, except the check: these packages are programs (their
# bin scripts), not modules to require. Idempotent, safe to run concurrently (flock).
#
#   tests/mcp_client/setup.sh
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/.cache"
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

ok=1
for package in @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem @modelcontextprotocol/server-memory; do
  want="$(node -p "require('$here/package.json').dependencies['$package']")"
  have="$(node -p "try { require('$cache/node_modules/$package/package.json').version } catch { '' }")"
  [ "$have" = "$want" ] || ok=0
done
if [ "$ok" = 1 ] && cmp -s "$here/package-lock.json" "$cache/package-lock.json"; then
  exit 0
fi

echo "mcp_client/setup.sh: installing the reference MCP servers into $cache" >&2
cp "$here/package.json" "$here/package-lock.json" "$cache/"
cd "$cache"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
test -x node_modules/.bin/mcp-server-everything
test -x node_modules/.bin/mcp-server-filesystem
test -x node_modules/.bin/mcp-server-memory
