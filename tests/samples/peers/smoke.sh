#!/usr/bin/env bash
# smoke.sh XIO XIO_PEERS SOURCE_DIR OUT_DIR - runs the peer benchmark small (4 MiB
# file, 64 fragmented pages, 50 random writes; 1 run of each case, not the
# benchmark's RUNS + 2 of the short ones; HTTP and HTTPS; one Azurite per protocol
# shared by every case and client, where the benchmark starts one per client process)
# and checks its results with check.js. Exits 77 with the reason when Node.js or Azurite is missing.
set -euo pipefail
xio=$1 tool=$2 src=$3 out=$4
az="$src/samples/testers/emulator/azurite"
command -v node >/dev/null || { echo "skip: Node.js is not installed (scripts/install-deps.sh)"; exit 77; }
[ -x "$az/node_modules/.bin/azurite-blob" ] ||
  { echo "skip: Azurite is not installed (scripts/install-deps.sh)"; exit 77; }
[ -d "$az/node_modules/@azure/storage-blob" ] ||
  { echo "skip: @azure/storage-blob is not installed (scripts/install-deps.sh)"; exit 77; }
rm -rf "$out"
mkdir -p "$out"
trap '"$az/azurite.sh" stop "$out/azurite" >/dev/null 2>&1 || true' EXIT
rc=0
BENCH_PEERS_SIZE=4M BENCH_PEERS_RUNS=1 BENCH_PEERS_SHORT_RUNS=1 BENCH_PEERS_FRAG_PAGES=64 BENCH_PEERS_OPS=50 \
  BENCH_PEERS_PROTOCOLS=http,https BENCH_PEERS_CASES=. BENCH_PEERS_EMULATOR=shared \
  node "$src/samples/bench/peers/bench.js" --xio "$xio" --tool "$tool" \
    --azurite "$az/azurite.sh" --node-modules "$az/node_modules" \
    --out "$out" || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "FAIL: bench.js exited $rc; its log:"
  cat "$out/bench.log" 2>/dev/null | tail -n 60
  exit 1
fi
exec node "$src/tests/samples/peers/check.js" "$out" 4M 64
