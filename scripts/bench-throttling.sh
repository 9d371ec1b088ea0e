#!/usr/bin/env bash
# The throttling benchmark: xio and the official JavaScript SDK against Azurite
# behind the fidelity front with the standard profile (a standard page blob: 500
# requests/s, 60 MiB/s) scaled by SCALE, for an emulator that cannot reach the real
# targets on the machine at hand: an upload and a download of SIZE_MIB each in 4 MiB
# (xio get: 8 MiB) requests, and COUNT 8 KiB random writes, 32 in flight, on an
# 1 MiB blob (xio-bench's random section, writes only); xio without pacing (the
# retry storm), pacing that must learn the scaled targets (it assumes the documented
# ones), and pacing at the scaled target given as --max-rate. Each repetition runs
# on an emulator and front of its own.
#
# For each run: wall time (for the random writes the client's own time of the
# writes, without its start and xio-bench's prefill), throughput and its share of the
# front's limit, the requests the front answered and how many it refused with 503
# ServerBusy (its counts before and after); every refused try is a retry unless the
# run gave up.
# Prints one table per repetition, then the medians over the repetitions.
#   scripts/bench-throttling.sh [BUILD_DIR] [SIZE_MIB] [SCALE] [REPS] [COUNT]
#   (defaults: build, 1024, 1, 1, 1000)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
mib=${2:-1024}
scale=${3:-1}
reps=${4:-1}
count=${5:-1000}
src=$(cd "$(dirname "$0")/.." && pwd)
xio="$build/samples/xio"
bench="$build/samples/bench/xio-bench"
sdk=(env NODE_PATH="$src/samples/testers/emulator/azurite/node_modules" node
     "$src/scripts/sdk_transfer.js")
work=$(mktemp -d)
dir="$work/emu"
stop_all() {
  "$xio" emulator stop --dir "$dir" >/dev/null 2>&1 || true
  if [ -s "$work/front.pid" ]; then kill "$(cat "$work/front.pid")" 2>/dev/null || true; fi
  rm -f "$work/front.pid"
}
trap 'stop_all; rm -rf "$work"' EXIT
limit_mib=$(echo "60 * $scale" | bc -l)
limit_rps=$(echo "500 * $scale" | bc -l)
cap=$(echo "60 * 1048576 * $scale / 1" | bc)   # bytes/s: the scaled byte target
rcap=$(echo "8192 * 500 * $scale / 1" | bc)    # bytes/s: the scaled request target in 8 KiB
echo "front: standard profile x $scale: $limit_rps requests/s and $limit_mib MiB/s per blob"
head -c $((mib * 1024 * 1024)) /dev/urandom > "$work/file"

# Starts Azurite and the front for one repetition; sets $front and the connection string.
start_all() {
  "$xio" emulator start --dir "$dir" --profile none --quiet >/dev/null
  local azurite
  azurite=$(sed -n 's/^azurite_url //p' "$dir/state")
  rm -f "$work/front.endpoint"
  "$build/samples/xio-faultproxy" --upstream "$azurite" --profile standard --scale "$scale" \
    --stats "$work/front.stats" --endpoint-file "$work/front.endpoint" >/dev/null 2>&1 &
  echo $! > "$work/front.pid"
  for _ in $(seq 1 100); do [ -s "$work/front.endpoint" ] && break; sleep 0.05; done
  front=$(cat "$work/front.endpoint")
  export AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=$front/devstoreaccount1;"
}
stats() { awk -v k="$1" '$1 == k { print $2 }' "$work/front.stats"; }

# The random writes' own time: xio-bench's randwrite row (results.json), or the SDK's
# "seconds"; into $work/seconds.
bench_writes() {
  rm -rf "$work/b"
  "$bench" "$@" --out "$work/b" || return 1
  node -e 'const r = require(process.argv[1]).random.find((x) => x.op === "randwrite");
           require("fs").writeFileSync(process.argv[2], String(r.median_s));' \
    "$work/b/results.json" "$work/seconds"
}
sdk_writes() {
  "${sdk[@]}" randwrite "$@" > "$work/sdk.json" || { cat "$work/sdk.json"; return 1; }
  node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
           require("fs").writeFileSync(process.argv[2], String(r.seconds));' \
    "$work/sdk.json" "$work/seconds"
}

# run NAME CLIENT UNITS CMD...: one measured run; a line of the table and of
# $work/runs.tsv. UNITS: MiB moved, or "wN" for N random writes.
run() {
  local name=$1 client=$2 units=$3 r0 t0 r1 t1 s0 s1
  shift 3
  sleep 1.5 # the front's buckets of the blob before refill (they hold a second)
  rm -f "$work/seconds"
  r0=$(stats requests) t0=$(stats throttled) s0=$(date +%s.%N)
  local outcome="done"
  "$@" > "$work/out" 2>&1 ||
    outcome="FAILED: $(grep -m1 -o -e 'failed: .*' -e '"message":"[^"\\]*' "$work/out" | cut -c1-90 || true)"
  s1=$(date +%s.%N) r1=$(stats requests) t1=$(stats throttled)
  local secs
  secs=$(echo "$s1 - $s0" | bc)
  [ -s "$work/seconds" ] && secs=$(cat "$work/seconds")
  awk -v n="$name" -v c="$client" -v s="$secs" -v u="$units" \
      -v r=$((r1 - r0)) -v t=$((t1 - t0)) -v o="$outcome" -v lm="$limit_mib" -v lr="$limit_rps" \
      -v tsv="$work/runs.tsv" '
    BEGIN {
      ok = o == "done"
      if (u ~ /^w/) { rate = substr(u, 2) / s; unit = "writes/s"; share = rate / lr }
      else { rate = u / s; unit = "MiB/s"; share = rate / lm }
      printf "| %s | %s | %.1f | %s | %s | %d | %d | %.1f | %s |\n", n, c, s,
             ok ? sprintf("%.1f %s", rate, unit) : "-", ok ? sprintf("%.0f%%", 100 * share) : "-",
             r, t, r ? 100 * t / r : 0, o
      printf "%s\t%s\t%.2f\t%.3f\t%s\t%.3f\t%d\t%d\t%.2f\t%s\n", n, c, s, ok ? rate : 0, unit,
             ok ? share : 0, r, t, r ? 100 * t / r : 0, ok ? "done" : "failed" >> tsv
    }'
}

header() {
  printf '| run | client | seconds | throughput | of the limit | requests | 503 refused | refused %% | outcome |\n'
  printf '|---|---|---:|---:|---:|---:|---:|---:|---|\n'
}

one_rep() {
  local url="$front/devstoreaccount1/bench"
  header
  run "upload, no pacing" "xio put --pacing off" "$mib" "$xio" --pacing off put "$work/file" "$url/off.mdf"
  run "upload, pacing (learning)" "xio put --pacing on" "$mib" "$xio" --pacing on put "$work/file" "$url/on.mdf"
  run "upload, pacing at the target" "xio put --max-rate $cap" "$mib" \
    "$xio" --max-rate "$cap" put "$work/file" "$url/cap.mdf"
  run "upload" "JS SDK 12.32.0" "$mib" "${sdk[@]}" upload bench sdk.mdf $((mib * 1024 * 1024))
  # The downloads read what the paced upload put (the unpaced one may have failed).
  run "download, no pacing" "xio get --pacing off" "$mib" "$xio" --pacing off get "$url/on.mdf" "$work/got"
  rm -f "$work/got"
  run "download, pacing (learning)" "xio get --pacing on" "$mib" "$xio" --pacing on get "$url/on.mdf" "$work/got"
  cmp -s "$work/file" "$work/got" || echo "the paced download differs from what was put"
  rm -f "$work/got"
  run "download, pacing at the target" "xio get --max-rate $cap" "$mib" \
    "$xio" --max-rate "$cap" get "$url/on.mdf" "$work/got"
  cmp -s "$work/file" "$work/got" || echo "the capped download differs from what was put"
  rm -f "$work/got"
  run "download" "JS SDK 12.32.0" "$mib" "${sdk[@]}" download bench on.mdf $((mib * 1024 * 1024))
  local rnd=(--endpoint "$front" --sections random --random-kinds write --random-file 1M
             --random-depths 32 --random-ops "$count" --random-seconds 3600 --no-plots)
  run "8 KiB random writes, no pacing" "xio-bench --pacing off" "w$count" \
    bench_writes "${rnd[@]}" --pacing off
  run "8 KiB random writes, pacing (learning)" "xio-bench --pacing on" "w$count" \
    bench_writes "${rnd[@]}" --pacing on
  run "8 KiB random writes, pacing at the target" "xio-bench --max-rate $rcap" "w$count" \
    bench_writes "${rnd[@]}" --max-rate "$rcap"
  run "8 KiB random writes" "JS SDK 12.32.0" "w$count" sdk_writes bench sdk-rand.mdf 1048576 \
    "$count" 32
}

for rep in $(seq 1 "$reps"); do
  echo
  echo "repetition $rep of $reps"
  start_all
  one_rep
  stop_all
done

# The medians over the repetitions, per run: seconds, throughput, share, requests,
# refused, refused % (of the runs that finished; failed ones count in "finished").
echo
echo "medians of $reps repetition(s):"
printf '| run | client | seconds | throughput | of the limit | requests | 503 refused | refused %% | finished |\n'
printf '|---|---|---:|---:|---:|---:|---:|---:|---:|\n'
awk -F'\t' '
  function med(list, n,   a, k, i, j, t) {
    k = split(list, a, " ")
    for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
      t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
    }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  {
    key = $1 "\t" $2
    if (!(key in n)) order[++m] = key
    n[key]++; s[key] = s[key] " " $3; r[key] = r[key] " " $7; t[key] = t[key] " " $8
    p[key] = p[key] " " $9; unit[key] = $5
    if ($10 == "done") { d[key]++; rate[key] = rate[key] " " $4; sh[key] = sh[key] " " $6 }
  }
  END {
    for (i = 1; i <= m; i++) {
      k = order[i]; split(k, nc, "\t")
      printf "| %s | %s | %.1f | %s | %s | %.0f | %.0f | %.1f | %d of %d |\n", nc[1], nc[2],
             med(s[k]), d[k] ? sprintf("%.1f %s", med(rate[k]), unit[k]) : "-",
             d[k] ? sprintf("%.0f%%", 100 * med(sh[k])) : "-", med(r[k]), med(t[k]), med(p[k]),
             d[k] + 0, n[k]
    }
  }' "$work/runs.tsv"
