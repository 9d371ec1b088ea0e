#!/usr/bin/env bash
# bench.sh - the nbdkit plugin's benchmark (make bench-nbdkit), on an Azurite of its
# own on this machine:
#  1. fio through NBD (--ioengine=nbd), 4 KiB random reads and writes at queue depth
#     1 and 16, on a page blob served by the plugin, on nbdkit's memory plugin (what
#     nbdkit and NBD cost alone), and xio-bench's own random I/O on the same Azurite
#     (what xio costs without NBD);
#  2. pgbench (-s 10, 4 clients) on ext4 on the export (nbdkit -> nbdfuse -> loop ->
#     ext4) against the same chain on a local file served by the same plugin; storage
#     requests per transaction from the trace;
#  3. bytes shipped and cleared by mkfs.ext4 of a 4 GiB export, and by PostgreSQL
#     creating 16 new WAL segments (pg_switch_wal).
# Writes the report to OUT (markdown) and prints it. Needs root (mount, losetup).
#
#   bench.sh BUILD_DIR OUT.md
#   FIO_SECONDS=10 PGBENCH_SECONDS=30 PGBENCH_SCALE=10 (defaults)
set -uo pipefail
build=$(cd "${1:?usage: bench.sh BUILD_DIR OUT.md}" && pwd)
out=${2:?usage: bench.sh BUILD_DIR OUT.md}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
plugin="$build/samples/engines/nbdkit/nbdkit-xio-plugin.so"
fio_s=${FIO_SECONDS:-10} pg_s=${PGBENCH_SECONDS:-30} pg_scale=${PGBENCH_SCALE:-10}
pgbin=/usr/lib/postgresql/15/bin
[ "$(id -u)" -eq 0 ] || { echo "bench-nbdkit: needs root (mount, losetup)" >&2; exit 1; }
[ -f "$plugin" ] || { echo "bench-nbdkit: no plugin at $plugin (nbdkit-plugin-dev missing?)" >&2; exit 1; }

work="$build/bench-nbdkit"
rm -rf "$work"; mkdir -p "$work"; chmod 755 "$work"
state="$work/azurite"
pids=() mounts=() loops=() fuses=() pgdata=""
cleanup() {
  [ -n "$pgdata" ] && runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdata" -m immediate stop >/dev/null 2>&1
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done
  for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
  for f in "${fuses[@]}"; do fusermount3 -u "$f" 2>/dev/null; done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  "$src/samples/testers/emulator/azurite/azurite.sh" stop "$state" >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM
"$src/samples/testers/emulator/azurite/azurite.sh" start "$state" >/dev/null || exit 1
ep=$(cat "$state/endpoint")
key='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
export AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$key;BlobEndpoint=$ep/devstoreaccount1;"
blobs="$ep/devstoreaccount1/bench"

# serve NAME PLUGIN ARGS...: nbdkit on $work/NAME.sock, traced to $work/NAME.trace,
# once it answers.
serve() {
  local name=$1; shift
  rm -f "$work/$name.sock" "$work/$name.pid"
  XIO_TRACE="$work/$name.trace" nbdkit -f -U "$work/$name.sock" -P "$work/$name.pid" "$@" \
    2>"$work/$name.err" &
  pids+=("$!")
  eval "pid_$name=$!"
  for _ in $(seq 400); do
    [ -s "$work/$name.pid" ] && nbdinfo --size "nbd+unix:///?socket=$work/$name.sock" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "bench-nbdkit: nbdkit $name did not start: $(cat "$work/$name.err")" >&2
  exit 1
}
unserve() { local p; p=$(eval echo "\$pid_$1"); kill "$p"; wait "$p" 2>/dev/null; }
uri() { echo "nbd+unix:///?socket=$work/$1.sock"; }
# sum TRACE TYPE [SINCE_LINE]: "COUNT BYTES" of xio_send_complete events of TYPE.
sum() {
  python3 - "$@" <<'PY'
import json, sys
n = b = 0
lines = open(sys.argv[1]).readlines()[int(sys.argv[3]) if len(sys.argv) > 3 else 0:]
for line in lines:
    e = json.loads(line)
    if e["event"] == "xio_send_complete" and (sys.argv[2] == "*" or e["request_type"] == sys.argv[2]):
        n += 1; b += e["length"]
print(n, b)
PY
}
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
lines() { wc -l < "$1"; }

# ------------------------------------------------------------------- fio ----
# fio_run URI RW DEPTH: IOPS of 4 KiB random RW at DEPTH for $fio_s seconds.
fio_run() {
  fio --name=b --ioengine=nbd --uri="$1" --rw="$2" --bs=4k --iodepth="$3" --size=256M \
    --time_based --runtime="$fio_s" --output-format=json 2>/dev/null | sed -n '/^{/,$p' |
    python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(round(j["read"]["iops"] + j["write"]["iops"]))'
}
fill() { # fills an export with 256 MiB of data, so reads are of written pages
  head -c 256M /dev/urandom > "$work/fill"
  nbdcopy "$work/fill" "$(uri "$1")"
}
echo "bench-nbdkit: fio, ${fio_s} s per run" >&2
serve blob "$plugin" url="$blobs/fio" size=256M
serve mem memory size=256M
fill blob; fill mem; rm -f "$work/fill"
declare -A iops
for rw in randread randwrite; do
  for qd in 1 16; do
    iops[blob-$rw-$qd]=$(fio_run "$(uri blob)" $rw $qd)
    iops[mem-$rw-$qd]=$(fio_run "$(uri mem)" $rw $qd)
  done
done
fio_requests=$(sum "$work/blob.trace" '*')
unserve blob; unserve mem
"$build/samples/bench/xio-bench" --endpoint "$ep" --backends pageblob --sections random \
  --random-io 4K --random-depths 1,16 --random-seconds "$fio_s" --no-plots \
  --out "$work/xio-bench" >/dev/null 2>&1
xb() { python3 - "$work/xio-bench/results.json" "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
def walk(o):
    if isinstance(o, dict):
        if o.get("op") == sys.argv[2] and str(o.get("queue_depth", o.get("depth"))) == sys.argv[3] and "iops" in o:
            print(round(o["iops"])); sys.exit(0)
        for v in o.values(): walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(j)
print("?")
PY
}

# -------------------------------------------------- the chain and PostgreSQL ----
# chain NAME: the export NAME as ext4 mounted on $work/NAME.mnt (mkfs first).
chain() {
  mkdir -p "$work/$1.fuse" "$work/$1.mnt"
  nbdfuse -P "$work/$1.fpid" "$work/$1.fuse/nbd" --unix "$work/$1.sock" 2>/dev/null &
  pids+=("$!"); fuses+=("$work/$1.fuse")
  for _ in $(seq 200); do [ -s "$work/$1.fpid" ] && break; sleep 0.05; done
  loop=$(losetup --direct-io=on -f --show "$work/$1.fuse/nbd"); loops+=("$loop")
  mkfs.ext4 -q "$loop"
  mount "$loop" "$work/$1.mnt"; mounts+=("$work/$1.mnt")
}
unchain() {
  umount "$work/$1.mnt"; mounts=()
  losetup -d "$loop"; loops=()
  fusermount3 -u "$work/$1.fuse"; fuses=()
}
pg() { local c=$1; shift; runuser -u postgres -- "$pgbin/$c" "$@"; }
pgq() { pg psql -X -q -At -h "$work" -p 5440 -d postgres -c "$1"; }
# pgbench_on NAME: initdb, pgbench -i, pgbench -T; sets tps and txns.
pgbench_on() {
  pgdata="$work/$1.mnt/pg"; mkdir -p "$pgdata"; chown postgres: "$pgdata" "$work"
  pg initdb -D "$pgdata" -A trust -U postgres >/dev/null
  pg pg_ctl -D "$pgdata" -l "$work/$1.pglog" -w -o "-k $work -p 5440 -c listen_addresses=" start >/dev/null
  pg pgbench -i -q -s "$pg_scale" -h "$work" -p 5440 postgres >/dev/null 2>&1
  local before; before=$(lines "$work/$1.trace")
  pg pgbench -c 4 -j 2 -T "$pg_s" -h "$work" -p 5440 postgres > "$work/$1.pgbench" 2>&1
  tps=$(awk '/^tps/ { printf "%d", $3 }' "$work/$1.pgbench")
  txns=$(awk '/number of transactions actually processed/ { print $6 }' "$work/$1.pgbench" | cut -d/ -f1)
  reqs=$(sum "$work/$1.trace" '*' "$before" | cut -d' ' -f1)
}
echo "bench-nbdkit: pgbench -s $pg_scale, 4 clients, $pg_s s, page blob then local file" >&2
serve pgb "$plugin" url="$blobs/pg" size=4G
chain pgb
mkfs_w=$(sum "$work/pgb.trace" XIOTypeWriteFile) mkfs_z=$(sum "$work/pgb.trace" XIOTypeZeroFile)
pgbench_on pgb
blob_tps=$tps blob_txns=$txns blob_reqs=$reqs
# 16 new WAL segments: each pg_switch_wal after a little WAL makes PostgreSQL create
# (recycle or zero-fill) a segment.
# A checkpoint first, so that what pgbench left dirty is not counted, and a moment
# for ext4's background work to settle.
pgq "CREATE TABLE w(x int); CHECKPOINT" >/dev/null; sync; sleep 2
before=$(lines "$work/pgb.trace")
for _ in $(seq 16); do pgq "INSERT INTO w VALUES (1); SELECT pg_switch_wal();" >/dev/null; done
pgq "CHECKPOINT" >/dev/null
wal_w=$(sum "$work/pgb.trace" XIOTypeWriteFile "$before") wal_z=$(sum "$work/pgb.trace" XIOTypeZeroFile "$before")
pg pg_ctl -D "$pgdata" -m fast stop >/dev/null; pgdata=""
unchain pgb; unserve pgb

truncate -s 4G "$work/local.img"
serve loc "$plugin" url="$work/local.img"
chain loc
pgbench_on loc
loc_tps=$tps
pg pg_ctl -D "$pgdata" -m fast stop >/dev/null; pgdata=""
unchain loc; unserve loc; rm -f "$work/local.img"

# ---------------------------------------------------------------- report ----
rpt() { printf '%s\n' "$@"; }
{
rpt "# nbdkit plugin benchmark" ""
rpt "Measured with \`make bench-nbdkit\` ($(date -u +%Y-%m-%d), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg))." \
    "Page blobs are Azurite's, an in-memory emulator on this machine's loopback sharing its CPUs: the" \
    "numbers say what the plugin and xio add, not what Azure does." ""
rpt "## 4 KiB random I/O (IOPS, ${fio_s} s each)" "" \
    "| | page blob via nbdkit-xio-plugin (fio, NBD) | nbdkit memory plugin (fio, NBD) | xio-bench on the same Azurite (no NBD) |" \
    "|---|---:|---:|---:|"
for rw in randread randwrite; do for qd in 1 16; do
  rpt "| $rw QD$qd | ${iops[blob-$rw-$qd]} | ${iops[mem-$rw-$qd]} | $(xb "$rw" "$qd") |"
done; done
rpt "" "Storage requests of the fio runs on the blob (fill included): ${fio_requests%% *}." ""
rpt "## pgbench (-s $pg_scale, 4 clients, ${pg_s} s) on ext4 on the export" "" \
    "| storage under nbdkit-xio-plugin | tps | transactions | storage requests | requests per transaction |" "|---|---:|---:|---:|---:|"
rpt "| page blob (Azurite) | $blob_tps | $blob_txns | $blob_reqs | $(awk -v r="$blob_reqs" -v t="$blob_txns" 'BEGIN { printf "%.2f", r / t }') |"
rpt "| local file (same chain) | $loc_tps | | | |"
rpt "" "## Zeros: shipped vs cleared" "" \
    "| workload | writes | bytes shipped | clears | bytes cleared |" "|---|---:|---:|---:|---:|"
rpt "| mkfs.ext4 of a 4 GiB export | ${mkfs_w%% *} | $(mib "${mkfs_w#* }") | ${mkfs_z%% *} | $(mib "${mkfs_z#* }") |"
rpt "| 16 new PostgreSQL WAL segments (pg_switch_wal, then CHECKPOINT) | ${wal_w%% *} | $(mib "${wal_w#* }") | ${wal_z%% *} | $(mib "${wal_z#* }") |"
} > "$out"
cat "$out"
