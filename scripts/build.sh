#!/usr/bin/env bash
# Builds one target of a configured CMake build for the Makefile (make demo, samples,
# install) the way a person waiting wants it: a line says what is being built and how
# long it takes, on a terminal the percent done follows below it, the compiler's
# output shows only when the build fails, and a last line says how long it took.
#   build.sh BUILD TARGET JOBS WHAT
# WHAT is the first line, e.g. "demo: building the samples (about 2 min the first
# time)". Exit status: the build's.
set -uo pipefail
[ $# -eq 4 ] || { echo "usage: build.sh BUILD TARGET JOBS WHAT" >&2; exit 2; }
build=$1 target=$2 jobs=$3 what=$4
tag=${what%%:*}
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
start=$SECONDS

echo "$what..."
if [ -t 1 ]; then
  # The generator's progress ("[ 42%]" from Makefiles, "[12/80]" from Ninja) on one
  # line, redrawn; everything kept in the log.
  cmake --build "$build" -j "$jobs" --target "$target" 2>&1 | tee "$log" | {
    pct=""
    while IFS= read -r line; do
      if [[ $line =~ ^\[\ *([0-9]+)%\] ]]; then
        pct=${BASH_REMATCH[1]}
      elif [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
        pct=$((BASH_REMATCH[1] * 100 / BASH_REMATCH[2]))
      else
        continue
      fi
      printf '\r  %3d%% built, %d s' "$pct" $((SECONDS - start))
    done
    [ -z "$pct" ] || printf '\r%40s\r' ''
  }
  rc=${PIPESTATUS[0]}
else
  cmake --build "$build" -j "$jobs" --target "$target" >"$log" 2>&1
  rc=$?
fi
if [ "$rc" -ne 0 ]; then
  cat "$log"
  echo "$tag: the build failed (exit $rc); its output is above" >&2
  exit "$rc"
fi
echo "$tag: built in $((SECONDS - start)) s"
