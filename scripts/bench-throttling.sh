#!/usr/bin/env bash
# The throttling benchmark: xio and the official JavaScript SDK against Azurite
# behind the fidelity front with the standard profile (a standard page blob: 500
# requests/s, 60 MiB/s) scaled by SCALE, for an emulator that cannot reach the real
# targets on the machine at hand: an upload and a download of SIZE_MIB each, and
# 8 KiB random I/O (xio-bench's random section, depth 32); xio without pacing (the
# retry storm) and with it. For each run: wall time, throughput, the requests the
# front answered and how many it refused with 503 ServerBusy (the front's counts
# before and after), and the front's limit for comparison.
#   scripts/bench-throttling.sh [BUILD_DIR] [SIZE_MIB] [SCALE]   (build, 1024, 1)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
mib=${2:-1024}
scale=${3:-1}
src=$(cd "$(dirname "$0")/.." && pwd)
xio="$build/samples/xio"
work=$(mktemp -d)
dir="$work/emu"
trap '"$xio" emulator stop --dir "$dir" >/dev/null 2>&1 || true; kill $(cat "$work/front.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT
"$xio" emulator start --dir "$dir" --profile none --quiet >/dev/null
azurite=$(sed -n 's/^azurite_url //p' "$dir/state")
"$build/samples/xio-faultproxy" --upstream "$azurite" --profile standard --scale "$scale" \
  --stats "$work/front.stats" --endpoint-file "$work/front.endpoint" >/dev/null 2>&1 &
echo $! > "$work/front.pid"
for _ in $(seq 1 100); do [ -s "$work/front.endpoint" ] && break; sleep 0.05; done
front=$(cat "$work/front.endpoint")
export AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=$front/devstoreaccount1;"
stats() { awk -v k="$1" '$1 == k { print $2 }' "$work/front.stats"; }
echo "front: standard profile x $scale: $(echo "500 * $scale" | bc) requests/s and $(echo "60 * $scale" | bc) MiB/s per blob"
head -c $((mib * 1024 * 1024)) /dev/urandom > "$work/file"
url="$front/devstoreaccount1/bench"
printf '| run | client | seconds | MiB/s | requests | 503 refused | refused %% | outcome |\n'
printf '|---|---|---:|---:|---:|---:|---:|---|\n'
# run NAME CLIENT CMD...: one measured run, its line of the table.
run() {
  local name=$1 client=$2 r0 t0 r1 t1 s0 s1
  shift 2
  r0=$(stats requests) t0=$(stats throttled) s0=$(date +%s.%N)
  local outcome="done"
  "$@" > "$work/out" 2>&1 ||
    outcome="FAILED: $(grep -m1 -o -e 'failed: .*' -e '"message":"[^"\\]*' "$work/out" | cut -c1-90 || true)"
  s1=$(date +%s.%N) r1=$(stats requests) t1=$(stats throttled)
  case "$name" in *random*) mb=0 ;; *) mb=$mib ;; esac
  awk -v n="$name" -v c="$client" -v s="$(echo "$s1 - $s0" | bc)" -v m="$mb" \
      -v r=$((r1 - r0)) -v t=$((t1 - t0)) -v o="$outcome" \
      'BEGIN { printf "| %s | %s | %.1f | %s | %d | %d | %.1f | %s |\n", n, c, s,
               m ? sprintf("%.1f", m / s) : "-", r, t, r ? 100 * t / r : 0, o }'
}
run "upload, no pacing" "xio put --pacing off" "$xio" --pacing off put "$work/file" "$url/off.mdf"
run "upload, pacing" "xio put --pacing on" "$xio" --pacing on put "$work/file" "$url/on.mdf"
cap=$(echo "60 * 1048576 * $scale / 1" | bc) # bytes/s: the pacer's start on Azure, the (scaled) target
run "upload, pacing at the target" "xio put --max-rate $cap" "$xio" --max-rate "$cap" put "$work/file" "$url/cap.mdf"
run "upload" "JS SDK 12.32.0" env NODE_PATH="$src/tests/azurite/node_modules" \
  node "$src/tests/azurite/sdk_transfer.js" upload bench sdk.mdf $((mib * 1024 * 1024))
# The downloads read what the paced upload put (the unpaced one may have failed).
run "download, no pacing" "xio get --pacing off" "$xio" --pacing off get "$url/on.mdf" "$work/got-off"
run "download, pacing" "xio get --pacing on" "$xio" --pacing on get "$url/on.mdf" "$work/got-on"
run "download, pacing at the target" "xio get --max-rate $cap" "$xio" --max-rate "$cap" get "$url/on.mdf" "$work/got-cap"
run "download" "JS SDK 12.32.0" env NODE_PATH="$src/tests/azurite/node_modules" \
  node "$src/tests/azurite/sdk_transfer.js" download bench on.mdf $((mib * 1024 * 1024))
for f in got-off got-on got-cap; do
  [ -f "$work/$f" ] && ! cmp -s "$work/file" "$work/$f" && echo "$f differs from what was put"
done
# 8 KiB random reads and writes at depth 32 on one blob (xio-bench's random section).
bench=("$build/samples/bench/xio-bench" --endpoint "$front" --sections random --random-file 64M
       --random-seconds 10 --random-depths 32)
run "8 KiB random, no pacing" "xio-bench XIO_PACING=off" env XIO_PACING=off "${bench[@]}" --out "$work/b-off"
run "8 KiB random, pacing" "xio-bench XIO_PACING=on" env XIO_PACING=on "${bench[@]}" --out "$work/b-on"
for m in off on; do
  echo "random, pacing $m (xio-bench: kind, depth, ops/s, p50, p99, ops):"
  grep -E '^\| (read|write) \|' "$work/b-$m/results.md" || true
done
