# cases.sh - the cases of nbdkit_test.sh (sourced by it: its helpers and variables
# are in scope). Each case_NAME returns 0 when everything it asserts holds, and
# fails through die with what differed.

# nbdinfo --map of a sparse blob equals the blob's page ranges.
case_map() {
  local url; url=$(blob m)
  start_nbdkit a "$url" size=64M || die "nbdkit: $(cat "$scratch/a.err")"
  "$probe" "$(uri a)" write 1M 4K 1 write 10M 1M 2 write 40M 64K 3 flush || die "writes"
  map_data "$(uri a)" > "$scratch/map" || die "nbdinfo --map"
  stop_nbdkit a
  blob_ranges "$url" > "$scratch/ranges" || die "xio ranges"
  say "map: $(tr '\n' ';' < "$scratch/map")"
  diff "$scratch/map" "$scratch/ranges" || die "nbdinfo --map differs from the page ranges"
  [ "$(wc -l < "$scratch/map")" -eq 3 ] || die "3 data extents expected"
  printf '1048576 4096\n10485760 1048576\n41943040 65536\n' | diff - "$scratch/map" ||
    die "the data extents are not the three written ranges"
  # A snapshot URL serves read-only, the same map and data, with no lease.
  local id; id=$("$xio" --quiet snapshot "$url") || die "xio snapshot"
  start_nbdkit s "$url?snapshot=$id" || die "nbdkit on the snapshot: $(cat "$scratch/s.err")"
  nbdinfo "$(uri s)" | grep -q 'is_read_only: true' || die "the snapshot export is writable"
  map_data "$(uri s)" | diff "$scratch/map" - || die "the snapshot's map differs"
  "$probe" "$(uri s)" expect 10M 1M 2 || die "the snapshot's data"
  local out; out=$("$probe" "$(uri s)" write 0 4K 1) && die "a write to the snapshot succeeded"
  stop_nbdkit s
}

# nbdcopy of a 256 MiB file with holes in and out: byte-identical, holes kept on the
# blob (page ranges: only the data) and in the copy back (allocated blocks); and
# qemu-img compare of the source against the export.
case_copy() {
  local url; url=$(blob c)
  sparse_file "$scratch/src" 256M 0 1 100 3 255 1
  start_nbdkit a "$url" size=256M || die "nbdkit: $(cat "$scratch/a.err")"
  nbdcopy "$scratch/src" "$(uri a)" || die "nbdcopy in"
  nbdcopy "$(uri a)" "$scratch/dst" || die "nbdcopy out"
  qemu-img compare -q -f raw -F raw "$scratch/src" "$(uri a)" || die "qemu-img compare: differs"
  stop_nbdkit a
  cmp "$scratch/src" "$scratch/dst" || die "the copy back differs from the source"
  local blob_bytes; blob_bytes=$(blob_ranges "$url" | awk '{ s += $2 } END { print s + 0 }')
  local dst_bytes; dst_bytes=$(( $(stat -c %b "$scratch/dst") * $(stat -c %B "$scratch/dst") ))
  say "copy: 256 MiB with 5 MiB of data: blob ranges $blob_bytes bytes, copy back allocates $dst_bytes"
  [ "$blob_bytes" -eq $((5 * 1048576)) ] || die "the blob holds $blob_bytes bytes, not the 5 MiB of data"
  [ "$dst_bytes" -le $((8 * 1048576)) ] || die "the copy back allocates $dst_bytes bytes: holes lost"
  local t; t=$(trace_sum "$scratch/a.trace" XIOTypeWriteFile)
  say "copy: writes $t"
  [ "${t#* }" -eq $((5 * 1048576)) ] || die "nbdcopy in shipped ${t#* } bytes, not 5 MiB"
}

# Request counts: a 2 GiB trim is 1 clear, a 4 MiB all-zero write 1 clear and no
# data, a 4 MiB write with 4 KiB of data 4 KiB shipped.
case_counts() {
  local url; url=$(blob n)
  start_nbdkit a "$url" size=4G || die "nbdkit: $(cat "$scratch/a.err")"
  "$probe" "$(uri a)" trim 0 2G flush || die "trim"
  local z; z=$(trace_sum "$scratch/a.trace" XIOTypeZeroFile)
  [ "$z" = "1 2147483648" ] || die "a 2 GiB trim made '$z' clears (count bytes), not '1 2147483648'"
  "$probe" "$(uri a)" write 3G 4M 0 flush || die "zero write"
  z=$(trace_sum "$scratch/a.trace" XIOTypeZeroFile)
  local w; w=$(trace_sum "$scratch/a.trace" XIOTypeWriteFile)
  [ "$z" = "2 2151677952" ] || die "a 4 MiB zero write: clears '$z', not '2 2151677952'"
  [ "$w" = "0 0" ] || die "a 4 MiB zero write shipped '$w' (writes bytes), not '0 0'"
  "$probe" "$(uri a)" head 3G 4M 5 flush expect 3G 4K 5 expect 3076M 1M 0 || die "head write"
  w=$(trace_sum "$scratch/a.trace" XIOTypeWriteFile)
  [ "$w" = "1 4096" ] || die "4 KiB of data in a 4 MiB write shipped '$w', not '1 4096'"
  stop_nbdkit a
  say "counts: 2 GiB trim = 1 clear; 4 MiB zeros = 1 clear, 0 bytes; 4 KiB in 4 MiB = 4096 bytes"
}

# mkfs.ext4 of a 4 GiB export (through nbdfuse) sends no write that is all zeros:
# every write it shipped reads back with data in it, and its zeroing went as clears.
case_mkfs() {
  need_root || return 77
  local url; url=$(blob f)
  start_nbdkit a "$url" size=4G || die "nbdkit: $(cat "$scratch/a.err")"
  fuse_attach a "$scratch/fuse" || die "nbdfuse"
  mkfs.ext4 -q -F "$scratch/fuse/nbd" || die "mkfs.ext4"
  fuse_detach "$scratch/fuse"
  stop_nbdkit a
  local w z; w=$(trace_sum "$scratch/a.trace" XIOTypeWriteFile)
  z=$(trace_sum "$scratch/a.trace" XIOTypeZeroFile)
  say "mkfs.ext4 4 GiB: writes (count bytes) $w; clears $z"
  [ "${z%% *}" -ge 1 ] || die "mkfs.ext4 made no clear"
  [ "${w#* }" -le $((8 * 1048576)) ] || die "mkfs.ext4 shipped ${w#* } bytes"
  start_nbdkit b "$url" || die "nbdkit (read back): $(cat "$scratch/b.err")"
  nbdcopy "$(uri b)" "$scratch/img" || die "nbdcopy out"
  stop_nbdkit b
  python3 - "$scratch/a.trace" "$scratch/img" <<'PY' || die "a shipped write is all zeros"
import json, sys
img = open(sys.argv[2], "rb")
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == "xio_send_complete" and e["request_type"] == "XIOTypeWriteFile":
        img.seek(e["offset"])
        if not any(img.read(e["length"])):
            sys.exit("all zeros: %d+%d" % (e["offset"], e["length"]))
PY
}

# A second export of the same blob is refused, naming the lease and takeover=1;
# takeover=1 works, and then the first export's writes fail with EIO. A clean stop
# releases the lease.
case_exclusive() {
  local url; url=$(blob x)
  start_nbdkit a "$url" size=64M || die "nbdkit a: $(cat "$scratch/a.err")"
  "$probe" "$(uri a)" write 0 4K 1 || die "write through a"
  if start_nbdkit b "$url"; then die "a second export of a leased blob started"; fi
  grep -q "lease" "$scratch/b.err" && grep -q "takeover=1" "$scratch/b.err" ||
    die "the refusal names neither the lease nor takeover=1: $(cat "$scratch/b.err")"
  say "refused: $(grep -o 'xio: .*' "$scratch/b.err" | head -1)"
  start_nbdkit c "$url" takeover=1 || die "takeover: $(cat "$scratch/c.err")"
  "$probe" "$(uri c)" write 4K 4K 2 flush expect 0 4K 1 || die "write through the new holder"
  local out; out=$("$probe" "$(uri a)" write 8K 4K 3) && die "the old holder's write succeeded"
  case "$out" in *EIO*) ;; *) die "the old holder's write failed without EIO: $out" ;; esac
  grep -q "XIO_ELEASELOST" "$scratch/a.err" || die "the old holder logged no lost lease"
  "$probe" "$(uri c)" expect 8K 4K 0 || die "the refused write reached the blob"
  stop_nbdkit c
  "$xio" stat "$url" | grep -Eq 'lease.*(available|expired|broken)' ||
    die "a clean stop left the lease held: $("$xio" stat "$url")"
  stop_nbdkit a
}

# A flush after another client broke and took the lease fails with EIO, naming the
# lost lease, though the old holder wrote nothing since: flush asks the service once
# its last confirmation of the lease is older than a second. The new holder's data
# stays as it wrote it.
case_flush() {
  local url; url=$(blob l)
  start_nbdkit a "$url" size=64M || die "nbdkit a: $(cat "$scratch/a.err")"
  "$probe" "$(uri a)" write 0 4K 1 flush || die "write and flush through a"
  start_nbdkit c "$url" takeover=1 || die "takeover: $(cat "$scratch/c.err")"
  "$probe" "$(uri c)" write 4K 4K 2 flush || die "write through the new holder"
  # Every confirmation of a's lease was sent before c broke it; past the flush's
  # one-second bound, a's flush must ask.
  sleep 1.5
  local out; out=$("$probe" "$(uri a)" flush) && die "the old holder's flush succeeded after the takeover"
  case "$out" in *EIO*) ;; *) die "the old holder's flush failed without EIO: $out" ;; esac
  grep -q "flush: the lease on .* is lost" "$scratch/a.err" ||
    die "the old holder's log does not name the lost lease: $(cat "$scratch/a.err")"
  say "refused: $(grep -o 'xio: flush.*' "$scratch/a.err" | head -1)"
  "$probe" "$(uri c)" flush expect 0 4K 1 expect 4K 4K 2 || die "the new holder's flush or data"
  stop_nbdkit c
  stop_nbdkit a
}

# nbdkit --run on a target it cannot open ends at once, non-zero, with the reason on
# stderr, without running the command (which would wait for a server that is gone):
# a blob leased by another client, a URL that names no blob, a SAS the service
# refuses. The timeout only catches the hang these once were.
case_run() {
  local url; url=$(blob r)
  "$xio" create "$url" --size 64M >/dev/null || die "xio create"
  local id; id=$("$xio" --quiet lease acquire "$url" --duration -1) || die "xio lease acquire"
  run_fails leased "is in use: another client holds its lease" "$url"
  grep -q "takeover=1" "$scratch/leased.err" || die "the refusal does not name takeover=1"
  "$xio" lease release "$url" --lease-id "$id" >/dev/null || die "xio lease release"
  run_fails missing "does not exist: give size= to create it" "$(blob r-none)"
  local sas; sas=$("$xio" --quiet sas "$url" --permissions rcw --expiry 1h) || die "xio sas"
  # A signature of the right shape that the service refuses: 43 A's and "=".
  local forged; forged=$(printf 'A%.0s' $(seq 43))
  local bad="${sas%%sig=*}sig=${forged}%3D"
  AZURE_STORAGE_CONNECTION_STRING= run_fails refused "cannot open" "$bad"
  grep -q "${forged:0:12}" "$scratch/refused.err" && die "the refusal shows the SAS signature"
  # The same command on a target it can open runs, and sees the export.
  timeout -k 10 60 nbdkit -U "$scratch/ok.sock" "$plugin" url="$url" \
    --run 'nbdinfo --size "$uri"' >"$scratch/ok.out" 2>"$scratch/ok.err" ||
    die "nbdkit --run on the free blob: $(cat "$scratch/ok.err")"
  [ "$(cat "$scratch/ok.out")" = 67108864 ] || die "nbdinfo saw $(cat "$scratch/ok.out")"
}

# run_fails NAME WHAT URL: nbdkit --run on URL exits non-zero with WHAT in its
# stderr ($scratch/NAME.err), and its command never ran.
run_fails() {
  local name=$1 what=$2 url=$3 rc
  timeout -k 10 60 nbdkit -U "$scratch/$name.sock" "$plugin" url="$url" \
    --run "touch '$scratch/$name.ran'; nbdinfo --size \"\$uri\"" >/dev/null 2>"$scratch/$name.err"
  rc=$?
  [ $rc -ne 124 ] && [ $rc -ne 137 ] || die "nbdkit --run on the $name target hung (killed after 60 s)"
  [ $rc -ne 0 ] || die "nbdkit --run on the $name target exited 0"
  [ ! -e "$scratch/$name.ran" ] || die "nbdkit ran the command on the $name target"
  grep -q "$what" "$scratch/$name.err" ||
    die "nbdkit on the $name target does not say '$what': $(cat "$scratch/$name.err")"
  say "$name: exit $rc: $(grep -o 'xio: .*' "$scratch/$name.err" | head -1)"
}

# url=@FILE: the SAS URL read from a file serves with no other credential. A SAS URL
# given inline works too, and once nbdkit serves, its command line (ps) shows the
# signature as '*' only. A url=@FILE that gives no URL is refused naming the file,
# never what it holds.
case_sas() {
  local url; url=$(blob s)
  "$xio" create "$url" --size 64M >/dev/null || die "xio create"
  local sas; sas=$("$xio" --quiet sas "$url" --permissions rcw --expiry 1h) || die "xio sas"
  local sig=${sas##*sig=}; sig=${sig%%&*}
  printf '  %s  \n\n' "$sas" > "$scratch/url"
  AZURE_STORAGE_CONNECTION_STRING= start_nbdkit a "@$scratch/url" ||
    die "nbdkit url=@FILE: $(cat "$scratch/a.err")"
  "$probe" "$(uri a)" write 0 4K 7 flush expect 0 4K 7 || die "I/O through url=@FILE"
  stop_nbdkit a
  AZURE_STORAGE_CONNECTION_STRING= start_nbdkit b "$sas" || die "nbdkit url=SAS: $(cat "$scratch/b.err")"
  local cmdline; cmdline=$(tr '\0' ' ' < "/proc/$pid_b/cmdline")
  case "$cmdline" in *"$sig"*) die "the running nbdkit's command line shows the SAS signature" ;; esac
  case "$cmdline" in *"sig=****"*) ;; *) die "no scrubbed signature in the command line: $cmdline" ;; esac
  "$probe" "$(uri b)" expect 0 4K 7 || die "I/O through url=SAS"
  stop_nbdkit b
  printf '%s\nsecond line\n' "$sas" > "$scratch/two"
  if start_nbdkit c "@$scratch/two"; then die "url=@FILE with two lines served"; fi
  grep -q "two holds more than one line" "$scratch/c.err" || die "no reason given: $(cat "$scratch/c.err")"
  if start_nbdkit d "@$scratch/none"; then die "url=@FILE of a missing file served"; fi
  grep -q "cannot open .*none: No such file" "$scratch/d.err" || die "no reason given: $(cat "$scratch/d.err")"
  grep -qF "$sig" "$scratch/a.err" "$scratch/b.err" "$scratch/c.err" "$scratch/d.err" &&
    die "a message shows the SAS signature"
  return 0
}

# nbdcopy in and out through the fault proxy (503s, resets, lost responses): the
# copy back is identical, and faults were injected.
case_faults() {
  "$faultproxy" --upstream "$XIO_TEST_BLOB_ENDPOINT" --faults 503=5%:50ms,reset=2%,lost=2% \
    --seed 7 --stats "$scratch/stats" --endpoint-file "$scratch/proxy" >/dev/null 2>&1 &
  pids+=("$!")
  for _ in $(seq 100); do [ -s "$scratch/proxy" ] && break; sleep 0.05; done
  [ -s "$scratch/proxy" ] || die "the fault proxy did not start"
  local ep; ep=$(cat "$scratch/proxy")
  local url="$ep/devstoreaccount1/nbdkit/$case_-$tag"
  sparse_file "$scratch/src" 64M 0 4 20 8 63 1
  AZURE_STORAGE_CONNECTION_STRING=$(account_conn "$ep") start_nbdkit a "$url" size=64M ||
    die "nbdkit: $(cat "$scratch/a.err")"
  nbdcopy "$scratch/src" "$(uri a)" || die "nbdcopy in"
  nbdcopy "$(uri a)" "$scratch/dst" || die "nbdcopy out"
  stop_nbdkit a
  cmp "$scratch/src" "$scratch/dst" || die "the copy back differs"
  local faults; faults=$(awk '$1 != "requests" { s += $2 } END { print s + 0 }' "$scratch/stats")
  say "faults: $(tr '\n' ' ' < "$scratch/stats")"
  [ "$faults" -gt 0 ] || die "no fault was injected"
}

# --------------------------------------------------------------- root cases ----

# need_root: 0 as root; else says why the case is skipped (the caller returns 77).
need_root() {
  [ "$(id -u)" -eq 0 ] && return 0
  echo "SKIP: nbdkit_test[$case_] needs root for mount and losetup (CI runs as root)"
  return 1
}

# fuse_attach NAME DIR: the export NAME as the file DIR/nbd through nbdfuse.
fuse_attach() {
  mkdir -p "$2"
  rm -f "$scratch/fuse-$1.pid"
  nbdfuse -P "$scratch/fuse-$1.pid" "$2/nbd" --unix "$scratch/$1.sock" 2>"$scratch/fuse-$1.err" &
  pids+=("$!")
  fuses+=("$2")
  for _ in $(seq 200); do [ -s "$scratch/fuse-$1.pid" ] && return 0; sleep 0.05; done
  echo "nbdfuse: $(cat "$scratch/fuse-$1.err")" >&2
  return 1
}
fuse_detach() { fusermount3 -u "$1" 2>/dev/null || fusermount3 -uz "$1" 2>/dev/null; }

# loop_attach FILE: a loop device with direct I/O on FILE, named in $loop (not a
# command substitution: the teardown must know it).
loop_attach() {
  loop=$(losetup --direct-io=on -f --show "$1") || return 1
  loops+=("$loop")
}

# pg CMD ARGS...: a PostgreSQL 15 program as the postgres user, on this case's
# socket directory and port.
pg() {
  local cmd=$1; shift
  runuser -u postgres -- "$pgbin/$cmd" "$@"
}
pgq() { pg psql -X -q -At -h "$scratch/run" -p 5439 -d postgres -v ON_ERROR_STOP=1 "$@"; }
pg_start() {
  pg pg_ctl -D "$pgdata" -l "$scratch/run/pg.log" -w -t 60 \
    -o "-k $scratch/run -p 5439 -c listen_addresses= -c shared_buffers=32MB" start >/dev/null ||
    { cat "$scratch/run/pg.log" >&2; return 1; }
}

# The export up to a mounted ext4 (nbdkit -> nbdfuse -> loop -> ext4) on $scratch/mnt.
# $1: mkfs to make the file system, fsck to check it first.
chain_up() {
  fuse_attach a "$scratch/fuse" || die "nbdfuse"
  loop_attach "$scratch/fuse/nbd" || die "losetup"
  local l=$loop
  if [ "$1" = mkfs ]; then
    mkfs.ext4 -q "$l" || die "mkfs.ext4"
  else
    e2fsck -fy "$l" >"$scratch/fsck.log" 2>&1
    local rc=$?
    [ $rc -le 1 ] || die "e2fsck exit $rc: $(tail -5 "$scratch/fsck.log")"
    say "e2fsck after the kill: exit $rc ($(tail -1 "$scratch/fsck.log"))"
  fi
  mkdir -p "$scratch/mnt"
  mount "$l" "$scratch/mnt" || die "mount"
  mounts+=("$scratch/mnt")
}

# Everything down after the kill: PostgreSQL (immediate), the mount, the loop
# device, the FUSE mount; each as it can, since the export under them is gone.
chain_down() {
  pg pg_ctl -D "$pgdata" -m immediate stop >/dev/null 2>&1
  local ppid_; ppid_=$(head -1 "$pgdata/postmaster.pid" 2>/dev/null)
  if [ -n "$ppid_" ]; then
    kill -9 "$ppid_" 2>/dev/null
    # Gone, or a zombie nobody reaps (a container's PID 1 may not): either way dead.
    for _ in $(seq 100); do
      [ -e "/proc/$ppid_" ] || break
      [ "$(awk '{ print $3 }' "/proc/$ppid_/stat" 2>/dev/null)" = Z ] && break
      sleep 0.1
    done
  fi
  umount "$scratch/mnt" 2>/dev/null || umount -l "$scratch/mnt" || die "umount"
  mounts=()
  for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
  loops=()
  fuse_detach "$scratch/fuse"
  fuses=()
}

# PostgreSQL 15 on ext4 on the export: pgbench -i, a load that records each commit
# PostgreSQL acknowledged, SIGKILL of nbdkit in the middle of it, a restart that
# takes the lease over (the stale socket removed), fsck, PostgreSQL's crash
# recovery: every acknowledged commit is there, pgbench's books balance and
# pg_amcheck finds nothing wrong.
case_postgres() {
  need_root || return 77
  [ -x "$pgbin/postgres" ] || die "PostgreSQL 15 is not installed ($pgbin): make deps"
  local url; url=$(blob p)
  chmod 755 "$scratch"
  start_nbdkit a "$url" size=4G || die "nbdkit: $(cat "$scratch/a.err")"
  chain_up mkfs
  pgdata="$scratch/mnt/pg"
  mkdir -p "$pgdata" "$scratch/run"
  chown postgres: "$pgdata" "$scratch/run"
  pg initdb -D "$pgdata" -A trust -U postgres >/dev/null || die "initdb"
  pg_start || die "PostgreSQL did not start"
  pg pgbench -i -q -s 1 -h "$scratch/run" -p 5439 postgres >/dev/null 2>&1 || die "pgbench -i"
  pgq -c "CREATE TABLE acks (n int PRIMARY KEY)" || die "create table"
  # The load: pgbench, and one session inserting 1, 2, 3, ... that prints "ack N"
  # once PostgreSQL acknowledged the commit of N (autocommit).
  pg pgbench -n -c 2 -T 60 -h "$scratch/run" -p 5439 postgres >"$scratch/pgbench.log" 2>&1 &
  local bench=$!; pids+=("$bench")
  seq 1 10000000 | sed 's/.*/INSERT INTO acks VALUES (&);\n\\echo ack &/' |
    pgq >"$scratch/acks.out" 2>&1 &
  local acker=$!; pids+=("$acker")
  sleep 4
  kill -9 "$pid_a"
  wait "$pid_a" 2>/dev/null
  say "nbdkit killed after $(grep -c '^ack ' "$scratch/acks.out") acknowledged commits"
  for _ in $(seq 300); do kill -0 "$acker" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$acker" 2>/dev/null && die "the load went on for 30 s without its storage"
  kill "$bench" 2>/dev/null
  local acked; acked=$(grep '^ack ' "$scratch/acks.out" | tail -1 | cut -d' ' -f2)
  [ -n "$acked" ] && [ "$acked" -gt 0 ] || die "no commit was acknowledged before the kill"
  chain_down

  rm -f "$scratch/a.sock" # the killed nbdkit's socket, left behind
  start_nbdkit a "$url" takeover=1 || die "restart: $(cat "$scratch/a.err")"
  chain_up fsck
  # The killed postmaster could not remove its lock file from the dead mount; its
  # pid may live on as an unreaped zombie, which PostgreSQL takes for a running
  # server. It is dead (chain_down), so the lock is stale: remove it, as an operator
  # does after a crash.
  rm -f "$pgdata/postmaster.pid"
  pg_start || die "PostgreSQL's crash recovery failed"
  grep -q "database system was interrupted\|redo done\|redo starts" "$scratch/run/pg.log" ||
    say "(no recovery message in the log)"
  local have; have=$(pgq -c "SELECT count(*) FROM acks WHERE n <= $acked") || die "query"
  local extra; extra=$(pgq -c "SELECT count(*) FROM acks WHERE n > $acked")
  say "acknowledged commits: $acked; present after recovery: $have (and $extra not yet acknowledged)"
  [ "$have" -eq "$acked" ] || die "$((acked - have)) acknowledged commits lost"
  local books; books=$(pgq -c "SELECT (SELECT sum(abalance) FROM pgbench_accounts) =
    (SELECT coalesce(sum(delta), 0) FROM pgbench_history)")
  [ "$books" = t ] || die "pgbench's accounts and history disagree after recovery"
  pg pg_amcheck -h "$scratch/run" -p 5439 --install-missing -d postgres >"$scratch/amcheck" 2>&1 ||
    die "pg_amcheck: $(head -20 "$scratch/amcheck")"
  pg pg_ctl -D "$pgdata" -m fast stop >/dev/null || die "PostgreSQL did not stop"
}
