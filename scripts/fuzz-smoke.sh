#!/usr/bin/env bash
# Runs every fuzzer in $1 (a fuzz build tree) for $2 seconds over its seeds and saved corpus,
# $3 fuzzers at a time (one per core: each is single-threaded and CPU-bound). Prints each
# fuzzer's last lines; on a crash prints its log's tail and exits 1 after the others finish.
set -uo pipefail
tree="$1" secs="$2" jobs="${3:-2}"
run_one() {
  local f="$1" secs="$2" tree="$3" name
  name="$(basename "$f")"
  mkdir -p "fuzz/corpus-$name"
  if "$f" -max_total_time="$secs" -print_final_stats=0 "fuzz/corpus-$name" "fuzz/seeds/$name" \
      > "$tree/$name.log" 2>&1; then
    echo "fuzz: $name ok ($secs s): $(tail -1 "$tree/$name.log")"
  else
    tail -40 "$tree/$name.log"
    echo "fuzz: $name FAILED (log: $tree/$name.log)"
    return 1
  fi
}
export -f run_one
ls "$tree"/fuzz/*_fuzz >/dev/null || { echo "fuzz-smoke: no fuzzers in $tree/fuzz (build the sanitizer tree first: make asan)"; exit 1; }
printf '%s\n' "$tree"/fuzz/*_fuzz | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} "$secs" "$tree"
