#!/usr/bin/env bash
# After a failed ctest run, prints what each failed test said, briefly, as the very last output:
#   scripts/ctest-failures.sh BUILD_DIR [LINES]
# ctest --output-on-failure prints a failure's output when the test ends, often thousands of lines
# before the summary; a CI log cut to its tail then shows only "The following tests FAILED".
# Here, per failed test: its lines that say FAIL, ERROR, Failure or "did not", then its last LINES
# lines (default 40), from BUILD_DIR/Testing/Temporary/LastTest.log. Exits 0 (it only reports).
set -uo pipefail
dir="${1:?usage: ctest-failures.sh BUILD_DIR [LINES]}"
lines="${2:-40}"
log="$dir/Testing/Temporary/LastTest.log"
failed="$dir/Testing/Temporary/LastTestsFailed.log"
[ -f "$failed" ] && [ -f "$log" ] || exit 0
while IFS=: read -r _ name; do
  [ -n "$name" ] || continue
  # The test's output: from its "Output:" line after "Test: <name>" to "<end of output>".
  out="$(awk -v name="$name" '
    $0 ~ "^[0-9]+/[0-9]+ Test: " && $3 == name { found = 1; next }
    found && /^Output:/ { inside = 1; getline; next }
    inside && /^<end of output>/ { exit }
    inside { print }' "$log")"
  echo
  echo "==== $name (failed) — its failure lines, then its last $lines lines ($log)"
  grep -E 'FAIL|ERROR|Failure|did not|Expected|Which is|error:' <<<"$out" | grep -v -E '^\[ *PASSED|PASS ' | head -n 30
  echo "---- last $lines lines"
  tail -n "$lines" <<<"$out"
done < "$failed"
exit 0
