#!/usr/bin/env bash
# run.sh FUZZ_BUILD_DIR [TARGET...] - runs the libFuzzer targets built in
# FUZZ_BUILD_DIR/tests (make fuzz), one after the other, each for FUZZ_SECONDS
# (default 60) or, when FUZZ_RUNS is set, for that many executions. Each starts from
# its committed corpus (tests/across/fuzz/corpus/TARGET, read only); new inputs go to
# FUZZ_BUILD_DIR/fuzz-work/TARGET, findings to FUZZ_BUILD_DIR/fuzz-artifacts/ and the
# log to FUZZ_BUILD_DIR/fuzz-work/TARGET.log. Prints the executions per target from
# libFuzzer's final statistics; exits 1 when any target found something.
# FUZZ_NICE (default 19) is the niceness, FUZZ_ARGS extra libFuzzer options.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: run.sh FUZZ_BUILD_DIR [TARGET...]}" && pwd) || exit 1
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for d in "$here"/corpus/*/; do targets+=("$(basename "$d")"); done
fi
seconds=${FUZZ_SECONDS:-60}
limit=(-max_total_time="$seconds")
[ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
work="$build/fuzz-work"
artifacts="$build/fuzz-artifacts"
mkdir -p "$work" "$artifacts"

failed=0
printf '%-16s %14s %8s  %s\n' target executions seconds result
for t in "${targets[@]}"; do
  exe="$build/tests/fuzz_$t"
  if [ ! -x "$exe" ]; then
    echo "run.sh: no $exe (build the xio_fuzzers target first)" >&2
    exit 1
  fi
  mkdir -p "$work/$t"
  dict=()
  [ -f "$here/dict/$t.dict" ] && dict=(-dict="$here/dict/$t.dict")
  # A connection string, SAS, URL, date or size longer than 1 KiB only repeats
  # itself: shorter inputs keep these targets fast. Bodies get libFuzzer's 4 KiB.
  case $t in
    connstr | sas | url | dates | size | redact) dict+=(-max_len=1024) ;;
  esac
  # One job in one worker process; libFuzzer writes the job's fuzz-0.log into the
  # current directory, hence the cd. shellcheck disable=SC2086
  mkdir -p "$work/$t.job"
  (cd "$work/$t.job" && nice -n "${FUZZ_NICE:-19}" "$exe" "${limit[@]}" "${dict[@]}" -jobs=1 \
    -workers=1 -print_final_stats=1 -artifact_prefix="$artifacts/$t-" ${FUZZ_ARGS:-} \
    "$work/$t" "$here/corpus/$t" >"$work/$t.log" 2>&1)
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -n 1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$work/$t.log" | tail -n 1)
  result=ok
  if [ $rc -ne 0 ]; then
    result="FOUND (see $work/$t.log and $artifacts/)"
    failed=1
  fi
  printf '%-16s %14s %8s  %s\n' "$t" "${execs:-?}" "${secs:-?}" "$result"
done
exit $failed
