#!/usr/bin/env bash
# The throttling benchmark: xio and the official JavaScript SDK against `xio emulator`
# with the standard profile (a standard page blob: 500 requests/s, 60 MiB/s), a
# 1 GiB upload and download each; xio without pacing (the retry storm) and with it.
# For each run: wall time, throughput, the requests the front answered and how many
# it refused with 503 ServerBusy (from the front's counts, before and after).
#   scripts/bench-throttling.sh [BUILD_DIR] [SIZE_MIB]   (default build, 1024)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
mib=${2:-1024}
src=$(cd "$(dirname "$0")/.." && pwd)
xio="$build/samples/xio"
work=$(mktemp -d)
dir="$work/emu"
trap '"$xio" emulator stop --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
eval "$("$xio" emulator start --dir "$dir" --shell)"
front=$(sed -n 's/^proxy_url //p' "$dir/state")
stats() { awk -v k="$1" '$1 == k { print $2 }' "$dir/proxy.stats"; }
head -c $((mib * 1024 * 1024)) /dev/urandom > "$work/file"
url="$front/devstoreaccount1/bench"
printf '| run | client | seconds | MiB/s | requests | 503 refused | refused %% |\n'
printf '|---|---|---:|---:|---:|---:|---:|\n'
# run NAME CLIENT CMD...: one measured run, its line of the table.
run() {
  local name=$1 client=$2 r0 t0 r1 t1 s0 s1
  shift 2
  r0=$(stats requests) t0=$(stats throttled) s0=$(date +%s.%N)
  "$@" > "$work/out" 2>&1 || { echo "run $name failed:"; cat "$work/out"; exit 1; }
  s1=$(date +%s.%N) r1=$(stats requests) t1=$(stats throttled)
  awk -v n="$name" -v c="$client" -v s="$(echo "$s1 - $s0" | bc)" -v m="$mib" \
      -v r=$((r1 - r0)) -v t=$((t1 - t0)) \
      'BEGIN { printf "| %s | %s | %.1f | %.1f | %d | %d | %.1f |\n", n, c, s, m / s, r, t, 100 * t / r }'
}
run "upload, no pacing" "xio put --pacing off" "$xio" --pacing off put "$work/file" "$url/off.mdf"
run "upload, pacing" "xio put --pacing on" "$xio" --pacing on put "$work/file" "$url/on.mdf"
run "upload" "JS SDK 12.32.0" env NODE_PATH="$src/tests/azurite/node_modules" \
  node "$src/tests/azurite/sdk_transfer.js" upload bench sdk.mdf $((mib * 1024 * 1024))
run "download, no pacing" "xio get --pacing off" "$xio" --pacing off get "$url/off.mdf" "$work/got-off"
run "download, pacing" "xio get --pacing on" "$xio" --pacing on get "$url/on.mdf" "$work/got-on"
run "download" "JS SDK 12.32.0" env NODE_PATH="$src/tests/azurite/node_modules" \
  node "$src/tests/azurite/sdk_transfer.js" download bench sdk.mdf $((mib * 1024 * 1024))
cmp "$work/file" "$work/got-on" && cmp "$work/file" "$work/got-off"
