#!/usr/bin/env bash
# The dreaming benchmark (not part of `make bench`): one full sweep — Light, REM, Deep, the reports
# and MEMORY.md — over BENCH_DREAM_DAYS (90) synthetic daily notes of BENCH_DREAM_ENTRIES (30)
# recalled lines each, run in process by bench/dreaming_bench.cpp. Prints the sweep's wall time and
# the process's peak RSS (JSON on the last line).
# Knobs: BENCH_DREAM_DAYS, BENCH_DREAM_ENTRIES, BUILD_DIR (build), BENCH_NO_BUILD=1.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
DAYS="${BENCH_DREAM_DAYS:-90}"
ENTRIES="${BENCH_DREAM_ENTRIES:-30}"
if [ -z "${BENCH_NO_BUILD:-}" ]; then
  flock /tmp/pincer-build.lock ninja -C "$BUILD_DIR" dreaming_bench >/dev/null
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
RESULT="$("$BUILD_DIR/bench/dreaming_bench" "$DAYS" "$ENTRIES" "$WORK/ws")"
echo "dreaming sweep: $DAYS days × $ENTRIES recalled lines"
echo "$RESULT" | sed -e 's/[{}"]//g' -e 's/,/\n  /g' -e 's/^/  /'
echo "$RESULT"
