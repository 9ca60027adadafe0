#!/usr/bin/env bash
# gcc's front end over the gateway's and the benchmark clients' sources, as the release tree compiles
# them (warnings as errors), without generating code:
#   scripts/gcc-check.sh RELEASE_TREE JOBS
# `make test` builds and tests the sanitizer tree (clang) only; this keeps gcc's errors and warnings
# out of main — gcc builds `make run`'s gateway — at a fifth of the CPU of a release build
# (-fsyntax-only: 19 s against 95 s for pincer_cli's largest unity batch; CI budget, 35 min).
# Warnings that only gcc's optimisers find (-O2) are left to `make build`. Prints each failing
# batch's diagnostics and exits 1 when any batch fails.
set -uo pipefail
tree="$1" jobs="$2"
targets=(pincer gateway_bench floor_gateway memory_bench dreaming_bench)
out="$tree/gcc-check"
rm -rf "$out" && mkdir -p "$out"

# Sources the build generates (the embedded web UI's bytes) are made first: a unity batch includes
# them. Each by its own command only (`-t commands -s`): building them through ninja would first
# build the libraries of their target (CMake orders a target's custom commands after its dependencies).
mapfile -t generated < <(ninja -C "$tree" -t targets all |
  sed -n -E 's#^(\S+\.(c|cc|cpp|cxx|h|hpp)): CUSTOM_COMMAND$#\1#p' | sort -u)
for g in "${generated[@]}"; do
  if ! (cd "$tree" && sh -c "$(ninja -t commands -s "$g")") >> "$out/generate.log" 2>&1; then
    cat "$out/generate.log"; echo "gcc-check: $g (generated) could not be made"; exit 1
  fi
done

# The compile commands of those targets (ninja's, so exactly the tree's flags), less the launcher
# (ccache does not cache -fsyntax-only) and the object and dependency files this pass does not write.
mapfile -t commands < <(ninja -C "$tree" -t commands "${targets[@]}" |
  grep -E '^(\S*ccache )?\S*(c\+\+|g\+\+|gcc|cc) .* -c ' |
  sed -E 's#^\S*ccache ##; s# -MD -MT \S+ -MF \S+##; s# -o \S+# -fsyntax-only#')
[ "${#commands[@]}" -gt 0 ] || { echo "gcc-check: no compile commands for ${targets[*]} in $tree"; exit 1; }

check_one() {  # $1: index, $2: command
  local source="${2##* -c }"
  (cd "$tree" && sh -c "$2") > "$out/$1.log" 2>&1 || { echo "$source" > "$out/$1.failed"; }
}
for i in "${!commands[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  check_one "$i" "${commands[$i]}" &
done
wait

failed=("$out"/*.failed)
if [ -e "${failed[0]}" ]; then
  for f in "${failed[@]}"; do
    echo "gcc-check: $(cat "$f") failed:"
    cat "${f%.failed}.log"
  done
  exit 1
fi
echo "gcc-check: ${#commands[@]} translation units of ${targets[*]} pass gcc -fsyntax-only -Werror"
