#!/bin/sh
# tmpdir.sh - the temporary directories of the test suites: every test runs with
# TMPDIR=ROOT/SUITE (tests/CMakeLists.txt), so what a suite leaves behind is found
# there, whoever else writes to /tmp at the same time.
#   tmpdir.sh setup ROOT SUITE...  empty ROOT, then make ROOT/SUITE for each suite
#   tmpdir.sh check ROOT           exit 1, naming each suite and what it left, when
#                                  any ROOT/SUITE is not empty; 0 when all are
#   tmpdir.sh sources DIR          exit 1, naming the lines, when a C file below DIR
#                                  makes a unique name under a fixed "/tmp/" (a
#                                  mkstemp template or a %-format): such a test
#                                  ignores TMPDIR, so the check above cannot see it
set -eu
usage="usage: tmpdir.sh setup ROOT SUITE... | check ROOT | sources DIR"
cmd=${1:?$usage}
root=${2:?$usage}
shift 2
case "$cmd" in
setup)
  rm -rf "$root"
  for suite in "$@"; do mkdir -p "$root/$suite"; done
  ;;
check)
  [ -d "$root" ] || { echo "tmpdir.sh: no $root (tmpdir.setup has not run)" >&2; exit 1; }
  left=0
  for d in "$root"/*/; do
    [ -d "$d" ] || continue
    d=${d%/}
    entries=$(ls -A "$d")
    [ -n "$entries" ] || continue
    left=1
    echo "suite $(basename "$d") left in its TMPDIR $d:" >&2
    echo "$entries" | head -n 20 | sed 's/^/  /' >&2
  done
  [ "$left" -eq 0 ] || exit 1
  echo "no suite left anything in $root"
  ;;
sources)
  if grep -rnE '"/tmp/[^"]*(XXXXXX|%)' --include='*.c' --include='*.h' \
    --exclude-dir=node_modules "$root" >&2; then
    echo "tmpdir.sh: the lines above name temporary files under /tmp: use" \
      "test_scratch_dir/test_scratch_file (tests/harness/scratch.h), which honour TMPDIR" >&2
    exit 1
  fi
  echo "no test source names a temporary file under a fixed /tmp"
  ;;
*)
  echo "$usage" >&2
  exit 2
  ;;
esac
