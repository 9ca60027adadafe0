#!/usr/bin/env bash
# Installs the official ACP SDK (@agentclientprotocol/sdk) and MCP SDK (@modelcontextprotocol/sdk),
# pinned in package.json and package-lock.json, into tests/interop_servers/.cache/ (git-ignored),
# for mcp_server.test.mjs and acp_server.test.mjs. One `npm ci` installs both; the check is made
# on the ACP SDK (the MCP SDK has no require()-able root export), then the MCP SDK's version.
#
#   tests/interop_servers/setup.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/../support/npm-install-pinned.sh" "$here" @agentclientprotocol/sdk
want="$(node -p "require('$here/package.json').dependencies['@modelcontextprotocol/sdk']")"
have="$(node -p "require('$here/.cache/node_modules/@modelcontextprotocol/sdk/package.json').version")"
[ "$want" = "$have" ] || { echo "setup.sh: @modelcontextprotocol/sdk is $have, want $want" >&2; exit 1; }
