#!/usr/bin/env bash
# Installs the official ACP SDK (@agentclientprotocol/sdk) and MCP SDK (@modelcontextprotocol/sdk),
# pinned in package.json and package-lock.json, into tests/interop_servers/.cache/ (git-ignored),
# for mcp_server.test.mjs and acp_server.test.mjs. One `npm ci` installs both; the second call
# only checks the MCP SDK's installed version.
#
#   tests/interop_servers/setup.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/../support/npm-install-pinned.sh" "$here" @agentclientprotocol/sdk
"$here/../support/npm-install-pinned.sh" "$here" @modelcontextprotocol/sdk
