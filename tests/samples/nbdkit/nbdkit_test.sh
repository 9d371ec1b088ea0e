#!/usr/bin/env bash
# nbdkit_test.sh - the nbdkit plugin (samples/engines/nbdkit) against the test Azurite, with
# the stock NBD tools: nbdkit serves a page blob on a unix socket, and nbdinfo,
# nbdcopy, qemu-img, nbdfuse, mkfs.ext4 and PostgreSQL use it.
#
#   nbdkit_test.sh CASE PLUGIN PROBE FAULTPROXY XIO
#
# CASE is one of: map, copy, counts, mkfs, exclusive, flush, run, sas, faults,
# postgres. PLUGIN is nbdkit-xio-plugin.so, PROBE the nbd_probe client, FAULTPROXY
# xio-faultproxy, XIO the xio command. XIO_TEST_BLOB_ENDPOINT names the emulator
# (azurite.sh run sets it). Request counts come from the plugin's trace (XIO_TRACE).
# Every case leaves no process, mount, loop device or file behind, however it ends
# (the EXIT trap). A case that needs root (mount, losetup) exits 77, skipped, with
# the reason when not root.
set -uo pipefail
case_=${1:?usage: nbdkit_test.sh CASE PLUGIN PROBE FAULTPROXY XIO}
plugin=${2:?} probe=${3:?} faultproxy=${4:?} xio=${5:?}
: "${XIO_TEST_BLOB_ENDPOINT:?not set: run under the azurite fixture}"

die() { echo "nbdkit_test[$case_]: FAIL: $*" >&2; exit 1; }
say() { echo "nbdkit_test[$case_]: $*"; }

key='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
account_conn() { # the emulator's connection string for endpoint $1
  echo "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$key;BlobEndpoint=$1/devstoreaccount1;"
}
export AZURE_STORAGE_CONNECTION_STRING=$(account_conn "$XIO_TEST_BLOB_ENDPOINT")
base="$XIO_TEST_BLOB_ENDPOINT/devstoreaccount1/nbdkit"
# Names carry the process id and a random tag: ids are reused within one run.
tag="$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"

# PostgreSQL runs as the postgres user, which must reach its data directory on the
# mount below the scratch directory: where it cannot pass through TMPDIR (a checkout
# under a private directory, as mktemp -d makes), the scratch goes to /tmp instead;
# the EXIT trap removes it all the same.
parent=${TMPDIR:-/tmp}
if [ "$(id -u)" = 0 ] && id postgres >/dev/null 2>&1 &&
  ! runuser -u postgres -- test -x "$parent" 2>/dev/null; then
  parent=/tmp
fi
scratch=$(mktemp -d "$parent/nbdkit_test.XXXXXX") || die "no scratch directory"
pids=() mounts=() loops=() fuses=()
pgbin=/usr/lib/postgresql/15/bin pgdata=""

# Teardown, whatever happened: PostgreSQL, mounts, loop devices, FUSE mounts, the
# processes this script started (by their ids), then the scratch directory.
cleanup() {
  local rc=$?
  if [ -n "$pgdata" ] && [ -f "$pgdata/postmaster.pid" ]; then
    runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdata" -m immediate stop >/dev/null 2>&1
  fi
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
  for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
  for f in "${fuses[@]}"; do fusermount3 -u "$f" 2>/dev/null || fusermount3 -uz "$f" 2>/dev/null; done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
  done
  rm -rf "$scratch"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_nbdkit NAME URL [KEY=VALUE...]: nbdkit in the foreground of a background job
# on $scratch/NAME.sock, tracing to $scratch/NAME.trace; waits until it serves: the
# plugin tries the open before nbdkit listens, but opens the target for good only
# after, so a first connection (nbdinfo) is what tells that the open worked.
# Returns 1 (its stderr in $scratch/NAME.err) when it exits instead.
start_nbdkit() {
  local name=$1 url=$2; shift 2
  local sock="$scratch/$name.sock"
  rm -f "$scratch/$name.pid"
  XIO_TRACE="$scratch/$name.trace" nbdkit -f -U "$sock" -P "$scratch/$name.pid" "$plugin" \
    url="$url" "$@" 2>"$scratch/$name.err" &
  local pid=$!
  pids+=("$pid")
  eval "pid_$name=$pid"
  for _ in $(seq 200); do
    if [ -s "$scratch/$name.pid" ]; then
      nbdinfo --size "$(uri "$name")" >/dev/null 2>&1 && return 0
      kill -0 "$pid" 2>/dev/null || { wait "$pid"; return 1; }
    fi
    kill -0 "$pid" 2>/dev/null || { wait "$pid"; return 1; }
    sleep 0.05
  done
  die "nbdkit $name did not listen within 10 s: $(cat "$scratch/$name.err")"
}
uri() { echo "nbd+unix:///?socket=$scratch/$1.sock"; }

# stop_nbdkit NAME: SIGTERM, and wait for it to exit (a clean stop releases the lease).
stop_nbdkit() {
  local pid; pid=$(eval echo "\$pid_$1")
  kill -TERM "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

# trace_sum TRACE TYPE: "COUNT BYTES" of the xio_send_complete events of TYPE.
trace_sum() {
  python3 - "$1" "$2" <<'PY'
import json, sys
n = b = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == "xio_send_complete" and e["request_type"] == sys.argv[2]:
        n += 1; b += e["length"]
print(n, b)
PY
}

blob() { echo "$base/$case_-$tag-$1"; }

# The data extents nbdinfo --map shows, one "START LENGTH" a line.
map_data() { nbdinfo --map "$1" | awk '$3 == 0 { print $1, $2 }'; }
# The blob's page ranges as the service lists them, one "START LENGTH" a line.
blob_ranges() { "$xio" --quiet ranges "$1" | awk 'NF >= 3 && $1 ~ /^[0-9]+$/ { print $1, $3 }'; }

# A sparse SIZE file with data (random) at the given MiB offsets, LEN MiB each.
sparse_file() {
  local f=$1 size=$2; shift 2
  truncate -s "$size" "$f"
  while [ $# -gt 1 ]; do
    dd if=/dev/urandom of="$f" bs=1M seek="$1" count="$2" conv=notrunc status=none
    shift 2
  done
}

. "$(dirname "$0")/cases.sh"
"case_$case_"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || die "case failed"
say "ok"
