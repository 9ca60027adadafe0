#!/usr/bin/env bash
# The phases of `make test` after the release tree's gateway is built:
#   scripts/test-phases.sh RELEASE_TREE SANITIZER_TREE TEST_JOBS BUILD_JOBS FUZZ_SECS
#   1. the release tree's tests — those labelled `release-tree` (tests/CMakeLists.txt: the OpenClaw
#      client, Control UI and import tests, the browser tests, the mock LLM's own checks) — while the
#      sanitizer tree builds beside them at the lowest CPU priority (`make asan`, its output in
#      SANITIZER_TREE/make-asan.log);
#   2. every other test, in the sanitizer tree (ASan + UBSan, leaks checked);
#   3. a short run of every fuzzer over its seeds.
# Each test runs once, in the tree that suits it. Why the build runs beside the tests: they wait on
# npm installs, Node and browsers much of the time, and nice 19 lets them keep the CPU whenever they
# want it (CI budget, 35 min). Stops at the first failed phase; a failed test phase ends with each
# failed test's own failure lines (ctest-failures.sh).
set -uo pipefail
release="$1" sanitizer="$2" test_jobs="$3" build_jobs="$4" fuzz_secs="$5"
here="$(cd "$(dirname "$0")/.." && pwd)"
failures="$here/scripts/ctest-failures.sh"
# Each phase line carries the time since `make test` began (MAKE_TEST_START, set by the Makefile), so a
# CI log shows where the budget goes.
start="${MAKE_TEST_START:-$(date +%s)}"
phase() { local s=$(( $(date +%s) - start )); printf '== [%d:%02d] %s\n' $((s / 60)) $((s % 60)) "$*"; }

mkdir -p "$sanitizer"
asan_log="$(cd "$sanitizer" && pwd)/make-asan.log"
phase "release tests; the sanitizer tree builds meanwhile at low priority (log: $asan_log)"
nice -n 19 make -C "$here" --no-print-directory asan JOBS="$build_jobs" ASAN="$sanitizer" > "$asan_log" 2>&1 &
asan_build=$!

(cd "$release" && ctest --output-on-failure -j "$test_jobs" -L release-tree) || release_failed=1

phase "waiting for the sanitizer build"
wait "$asan_build" || asan_build_failed=1
if [ -n "${asan_build_failed:-}" ]; then
  tail -n 80 "$asan_log"
  echo "the sanitizer tree did not build (whole log: $asan_log)"
else
  tail -n 1 "$asan_log"
  phase "the sanitizer tree is built"
fi
# Last, so that a log cut to its tail shows it.
[ -n "${release_failed:-}" ] && (cd "$release" && "$failures" .)
[ -n "${release_failed:-}${asan_build_failed:-}" ] && exit 1

phase "sanitizer tests (all but the release tree's)"
if ! (cd "$sanitizer" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
      ctest --output-on-failure -j "$test_jobs" -LE release-tree); then
  (cd "$sanitizer" && "$failures" .)
  exit 1
fi

phase "fuzzers, $fuzz_secs s each"
cd "$here" && ./scripts/fuzz-smoke.sh "$sanitizer" "$fuzz_secs" "$build_jobs" || exit 1
phase "done"
