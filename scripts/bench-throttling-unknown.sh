#!/usr/bin/env bash
# Transfers through a limit they were not told: Azurite behind the fidelity front
# with the standard profile scaled to SCALE (0.1: 50 requests/s and 6 MiB/s per
# blob), its token buckets holding one second of the limit or three (--burst-s),
# 503 ServerBusy with no retry hint over them. For each build given (BUILD_DIR:
# its samples/xio and samples/bench/xio-bench), `xio --pacing on put` and `get` of
# SIZE_MIB, and COUNT 8 KiB random writes, 32 in flight, on a 1 MiB blob
# (xio-bench's random section): each starts from the documented targets and must
# learn the limit. Each run has a front of its own (full buckets, its own clock),
# whose --timeline says what its throttle took and refused in each second; from it,
# past the run's first SETTLE seconds (the last, partial second left out): the tries,
# the refused ones and the share of the limit taken (bytes for put and get, requests
# for the random writes). Each repetition runs on an emulator of its own. Prints a
# line per run, then the medians per build, burst and transfer (of the runs that
# finished, for the figures past the first seconds) and how many finished.
#   scripts/bench-throttling-unknown.sh [SIZE_MIB] [SCALE] [REPS] [COUNT] [SETTLE] BUILD_DIR...
#   (defaults: 192, 0.1, 3, 1000, 5, build)
# TRANSFERS in the environment picks some of them ("get", "put random"; default all
# three: put get random).
set -euo pipefail
mib=${1:-192}
scale=${2:-0.1}
reps=${3:-3}
count=${4:-1000}
settle=${5:-5}
transfers=${TRANSFERS:-put get random}
for t in $transfers; do
  case "$t" in put | get | random) ;; *) echo "TRANSFERS: '$t' is not put, get or random" >&2; exit 2 ;; esac
done
shift $(($# < 5 ? $# : 5))
builds=("$@")
[ ${#builds[@]} -gt 0 ] || builds=(build)
for i in "${!builds[@]}"; do builds[$i]=$(cd "${builds[$i]}" && pwd); done
first="${builds[0]}"
work=$(mktemp -d)
dir="$work/emu"
fp=""
stop_front() {
  if [ -n "$fp" ]; then kill "$fp" 2>/dev/null || true; wait "$fp" 2>/dev/null || true; fi
  fp=""
}
azurite_sh="$(cd "$(dirname "$0")/.." && pwd)/samples/testers/emulator/azurite/azurite.sh"
trap 'stop_front; "$azurite_sh" stop "$dir" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
limit_bps=$(echo "60 * 1048576 * $scale" | bc -l)
limit_rps=$(echo "500 * $scale" | bc -l)
echo "front: standard x $scale: $limit_rps requests/s, $(echo "$limit_bps / 1048576" | bc -l | cut -c1-5) MiB/s per blob"
head -c $((mib * 1024 * 1024)) /dev/urandom > "$work/file"

# front BURST: a front of its own in front of $azurite; sets $front.
front() {
  rm -f "$work/front.endpoint" "$work/timeline"
  "$first/samples/xio-faultproxy" --upstream "$azurite" --profile standard --scale "$scale" \
    --burst-s "$1" --timeline "$work/timeline" --endpoint-file "$work/front.endpoint" \
    >/dev/null 2>&1 &
  fp=$!
  for _ in $(seq 1 200); do [ -s "$work/front.endpoint" ] && break; sleep 0.05; done
  front=$(cat "$work/front.endpoint")
  export AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=$front/devstoreaccount1;"
}

# The transfers, through the front of the run ($front, set when it starts).
do_put() { "$xio" --pacing on put "$work/file" "$front/devstoreaccount1/bench/$1.mdf"; }
do_get() {
  rm -f "$work/got"
  "$xio" --pacing on get "$front/devstoreaccount1/bench/src.mdf" "$work/got"
  cmp -s "$work/file" "$work/got" || { echo "get: the file differs from what was put"; return 1; }
}
do_random() {
  "$bench" --endpoint "$front" --sections random --random-kinds write --random-file 1M \
    --random-depths 32 --random-ops "$count" --random-seconds 3600 --no-plots --pacing on \
    --out "$work/b-$1"
}

# run BUILD_NO BURST WHAT CMD...: one run through a front of its own; a line of
# $work/runs.tsv: build, burst, what, finished, tries, refused, refused %, share.
run() {
  local b=$1 burst=$2 what=$3 per=bytes
  shift 3
  [ "$what" = "random writes" ] && per=requests
  front "$burst"
  local ok=1
  "$@" > "$work/out" 2>&1 || ok=0
  stop_front
  awk -v b="$b" -v burst="$burst" -v what="$what" -v ok="$ok" -v settle="$settle" \
      -v per="$per" -v lb="$limit_bps" -v lr="$limit_rps" -v tsv="$work/runs.tsv" '
    { acc[$1] = $2; bytes[$1] = $3; thr[$1] = $4; if ($2 || $4) { if (first == "") first = $1; last = $1 } }
    END {
      tries = refused = taken = moved = 0
      for (s = first + settle; s < last; s++) {
        tries += acc[s] + thr[s]; refused += thr[s]; taken += acc[s]; moved += bytes[s]
      }
      secs = last - first - settle
      share = secs > 0 ? (per == "bytes" ? moved / secs / lb : taken / secs / lr) : 0
      pct = tries ? 100 * refused / tries : 0
      printf "build %d, %s s burst, %s: %s; past the first %d s: %d tries, %d refused (%.1f%%), %.0f%% of the limit\n",
             b, burst, what, ok ? "done" : "FAILED", settle, tries, refused, pct, 100 * share
      printf "%d\t%s\t%s\t%d\t%d\t%d\t%.2f\t%.3f\n", b, burst, what, ok, tries, refused, pct, share >> tsv
    }' "$work/timeline"
  [ $ok = 1 ] || grep -m1 -e 'failed' "$work/out" | cut -c1-160 || true
}

for rep in $(seq 1 "$reps"); do
  echo "repetition $rep of $reps"
  # --loose, as behind every front (xio emulator, make test): Azurite ignores
  # x-ms-range-get-content-crc64, which the front answers as Azure does; strict, it
  # answers 500 FeatureNotSupported after the front's throttle took the read's bytes.
  mkdir -p "$dir"
  "$azurite_sh" start "$dir" --loose >/dev/null
  azurite=$(cat "$dir/endpoint")
  direct="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=$azurite/devstoreaccount1;"
  AZURE_STORAGE_CONNECTION_STRING="$direct" "$first/samples/xio" put "$work/file" \
    "$azurite/devstoreaccount1/bench/src.mdf" >/dev/null
  for b in "${!builds[@]}"; do
    xio="${builds[$b]}/samples/xio"
    bench="${builds[$b]}/samples/bench/xio-bench"
    for burst in 1 3; do
      case " $transfers " in *" put "*) run "$b" "$burst" put do_put "put-$rep-$b-$burst" ;; esac
      case " $transfers " in *" get "*) run "$b" "$burst" get do_get ;; esac
      case " $transfers " in
        *" random "*) run "$b" "$burst" "random writes" do_random "$rep-$b-$burst" ;;
      esac
    done
  done
  "$azurite_sh" stop "$dir" >/dev/null
done

echo
echo "medians of $reps repetition(s) (past the first $settle s; of the runs that finished):"
printf '| build | burst | transfer | finished | tries | refused | refused %% | of the limit |\n'
printf '|---|---:|---|---:|---:|---:|---:|---:|\n'
awk -F'\t' -v builds="${builds[*]}" '
  function med(list,   a, k, i, j, t) {
    k = split(list, a, " ")
    if (!k) return 0
    for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
      t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
    }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  BEGIN { split(builds, bn, " ") }
  {
    key = $1 "\t" $2 "\t" $3
    if (!(key in n)) order[++m] = key
    n[key]++
    if ($4) { d[key]++; tr[key] = tr[key] " " $5; rf[key] = rf[key] " " $6; pc[key] = pc[key] " " $7; sh[key] = sh[key] " " $8 }
  }
  END {
    for (i = 1; i <= m; i++) {
      k = order[i]; split(k, f, "\t")
      printf "| %s | %s s | %s | %d of %d | %s | %s | %s | %s |\n", bn[f[1] + 1], f[2], f[3], d[k] + 0, n[k],
             d[k] ? sprintf("%.0f", med(tr[k])) : "-", d[k] ? sprintf("%.0f", med(rf[k])) : "-",
             d[k] ? sprintf("%.1f", med(pc[k])) : "-", d[k] ? sprintf("%.0f%%", 100 * med(sh[k])) : "-"
    }
  }' "$work/runs.tsv"
