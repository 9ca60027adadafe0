#!/bin/sh
# Link step of the static `pincer` binary (CMake's CXX_LINKER_LAUNCHER, see CMakeLists.txt): runs
# the link command given as arguments and replaces GNU ld's warnings
#   "Using 'getaddrinfo' in statically linked applications requires at runtime the shared
#    libraries from the glibc version used for linking"
# (one per glibc function that loads NSS or dlopen modules: host and user look-ups) by a single
# note. They are expected for any static glibc binary and are not errors. Every other line of the
# linker's output is kept, and the link's exit status is returned unchanged.
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out" | awk '
  /in statically linked applications requires at runtime the shared libraries/ {
    if (match($0, /Using '\''[^'\'']+'\''/)) names = names (names ? ", " : "") substr($0, RSTART + 7, RLENGTH - 8)
    held = ""; next
  }
  { if (held != "") print held; held = "" }
  /: in function `.*'\'':$/ { held = $0; next }
  /^$/ { next }
  { print }
  END {
    if (held != "") print held
    if (names != "")
      print "note: pincer is linked statically; the glibc functions " names " load shared glibc modules at run time (ld warns \"Using ... in statically linked applications\" for each: expected, not an error). Run pincer on the system it was built on, or configure with -DPINCER_STATIC=OFF."
  }'
exit $status
