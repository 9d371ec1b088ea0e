#!/bin/sh
# samples_target.sh - the `samples` target (cmake/samples.cmake, what `make demo`
# builds) reaches every target defined under samples/ (the xio command line, the
# demo, the SQLite VFS and extension, the nbdkit plugin, the benchmarks, the example
# engine) and the libraries `cmake --install` installs, and no target of the tests.
# Read from the Makefile generator's own rules: `make -n samples` names every target
# it would build ("Built target NAME"), CMakeFiles/Makefile2 every target there is and
# its directory. Nothing is built.
#   samples_target.sh BUILD
set -u
build=$1
die() { echo "samples_target: $*" >&2; exit 1; }
[ -f "$build/CMakeFiles/Makefile2" ] || die "no $build/CMakeFiles/Makefile2 (a Unix Makefiles build)"
tmp=$(mktemp -d) || die "no scratch directory"
trap 'rm -rf "$tmp"' EXIT

# Every target: "DIR NAME" (DIR "." at the top).
grep -o '^[^ :#]*CMakeFiles/[^/ ]*\.dir/all:' "$build/CMakeFiles/Makefile2" | sort -u |
  sed -e 's|/all:$||' -e 's|\.dir$||' -e 's|^CMakeFiles/|./CMakeFiles/|' \
      -e 's|^\(.*\)/CMakeFiles/\(.*\)$|\1 \2|' >"$tmp/all"
[ -s "$tmp/all" ] || die "no target found in $build/CMakeFiles/Makefile2"
grep -q '^\. samples$' "$tmp/all" || die "no target named samples"

# What `samples` builds.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$build" -n samples >"$tmp/plan" 2>"$tmp/err" || { cat "$tmp/err"; die "make -n samples failed"; }
grep -o 'Built target [^" ]*' "$tmp/plan" | sed 's/^Built target //' | sort -u >"$tmp/built"

bad=0
while read -r dir name; do
  case "$dir" in
    samples | samples/*) want=1 ;;
    auth | blobio | xio) want=1 ;; # the installed libraries
    tests | tests/*) want=0 ;;
    *) continue ;;
  esac
  if grep -qx -- "$name" "$tmp/built"; then have=1; else have=0; fi
  if [ $want -eq 1 ] && [ $have -eq 0 ]; then echo "samples does not build $name ($dir)" >&2; bad=1; fi
  if [ $want -eq 0 ] && [ $have -eq 1 ]; then echo "samples builds the test target $name ($dir)" >&2; bad=1; fi
done <"$tmp/all"
[ $bad -eq 0 ] || exit 1
for must in xio_cli xio-demo xio_sqlite xio_sqlite_ext xio-engine-example; do
  grep -qx -- "$must" "$tmp/built" || die "samples does not build $must"
done
echo "samples_target: samples builds $(wc -l <"$tmp/built") targets, every one under samples/ and the libraries, no test"
