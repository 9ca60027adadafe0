#!/usr/bin/env bash
# The phases of `make test`, once both trees are configured:
#   scripts/test-phases.sh RELEASE_TREE SANITIZER_TREE TEST_JOBS BUILD_JOBS FUZZ_SECS
#   1. the sanitizer tree's gateway (clang, ASan + UBSan), while every test's npm peers install
#      beside it (scripts/fetch-test-peers.sh; at normal priority: at nice 19 the compiler starved
#      npm, and the early tests wait for the OpenClaw package);
#   2. the tests labelled `early` (tests/CMakeLists.txt: OpenClaw's CLI, Control UI and import round
#      trip, the web chat in Chromium, the mock LLM's own checks) against that gateway, while the rest
#      of the tree (the gtests, the fuzzers) builds beside them at the lowest CPU priority, and then
#      gcc checks the gateway's sources (scripts/gcc-check.sh: no code generated);
#   3. every other test in the sanitizer tree;
#   4. a short run of every fuzzer over its seeds.
# Each test runs once, under the sanitizers. The release tree is only configured: its compile
# commands are gcc's check; `make build` builds it. Why things run beside each other: the early tests
# wait on npm, Node and browsers much of the time, and at nice 19 the build takes only the CPU they
# leave (CI budget, 35 min). Stops at the first failed phase; a failed test phase ends with each
# failed test's own failure lines (ctest-failures.sh).
set -uo pipefail
release="$1" sanitizer="$2" test_jobs="$3" build_jobs="$4" fuzz_secs="$5"
here="$(cd "$(dirname "$0")/.." && pwd)"
failures="$here/scripts/ctest-failures.sh"
# Each phase line carries the time since `make test` began (MAKE_TEST_START, set by the Makefile), so a
# CI log shows where the budget goes.
start="${MAKE_TEST_START:-$(date +%s)}"
phase() { local s=$(( $(date +%s) - start )); printf '== [%d:%02d] %s\n' $((s / 60)) $((s % 60)) "$*"; }
sanitized_ctest() {
  (cd "$sanitizer" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j "$test_jobs" "$@")
}
sanitizer="$(cd "$sanitizer" && pwd)"
peers_log="$sanitizer/fetch-test-peers.log" build_log="$sanitizer/make-asan.log"

phase "the sanitizer tree's gateway; the tests' npm peers install meanwhile (log: $peers_log)"
"$here/scripts/fetch-test-peers.sh" > "$peers_log" 2>&1 &
if ! cmake --build "$sanitizer" -j "$build_jobs" --target pincer; then
  echo "the sanitizer tree's gateway did not build"
  exit 1
fi

phase "early tests; the rest of the sanitizer tree builds meanwhile at low priority, then gcc's check (log: $build_log)"
nice -n 19 bash -c "cmake --build '$sanitizer' -j '$build_jobs' && '$here/scripts/gcc-check.sh' '$release' '$build_jobs'" \
  > "$build_log" 2>&1 &
build=$!
sanitized_ctest -L early || early_failed=1

phase "waiting for the sanitizer build and gcc's check"
wait "$build" || build_failed=1
if [ -n "${build_failed:-}" ]; then
  tail -n 80 "$build_log"
  echo "the sanitizer tree did not build or gcc's check failed (whole log: $build_log)"
else
  tail -n 1 "$build_log"
  phase "the sanitizer tree is built and gcc's check passed"
fi
# Last, so that a log cut to its tail shows it.
[ -n "${early_failed:-}" ] && (cd "$sanitizer" && "$failures" .)
[ -n "${early_failed:-}${build_failed:-}" ] && exit 1

phase "sanitizer tests (all but the early ones)"
if ! sanitized_ctest -LE early; then
  (cd "$sanitizer" && "$failures" .)
  exit 1
fi

phase "fuzzers, $fuzz_secs s each"
cd "$here" && ./scripts/fuzz-smoke.sh "$sanitizer" "$fuzz_secs" "$build_jobs" || exit 1
phase "done"
