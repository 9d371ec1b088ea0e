#!/bin/sh
# readme_examples.sh - the examples of the README and the manual (docs/*.md), run as
# written so they cannot drift from the program.
#
#   readme_examples.sh doc DOC BUILD CC CFLAGS LIBS PYTHON
#                                     runs every marked block of DOC (below)
#   readme_examples.sh names DOC...   checks every container name in a URL
#
# A block is marked by the line before its opening fence:
#
#   <!-- readme-test: run -->             ```sh lines of `xio ...` (and an `export
#       AZURE_STORAGE_CONNECTION_STRING=...`) for real Azure, run against the emulator
#       named by XIO_TEST_BLOB_ENDPOINT (set by the azurite fixture):
#       https://ACCOUNT.blob.core.windows.net/ becomes
#       $XIO_TEST_BLOB_ENDPOINT/devstoreaccount1/ and the export gets the emulator's
#       connection string. Each command must exit 0 and print the phrase its command
#       prints on success (created, grew, size, a SAS); a SAS is never shown. Comment
#       and blank lines are skipped; any other line fails the test.
#   <!-- readme-test: script prints "TEXT"... fails-without "FILE"... -->   a ```sh
#       block run whole by `sh -e` in a scratch directory that stands for a reader's
#       repository root: it holds only `build`, which is BUILD (so build/samples/xio
#       and the SQLite extension are where the docs say); with an XDG_RUNTIME_DIR of
#       its own, so `xio emulator start` starts a private emulator there (stopped
#       again however the block ends), and a TMPDIR of its own. It must exit 0, print
#       every TEXT and leave nothing in that directory (an example works in a
#       temporary directory of its own). Then, for each FILE (a path in the build
#       tree, e.g. samples/engines/sqlite/xio_sqlite.so), it runs again on a copy of
#       the build tree without FILE and must exit non-zero, printing none of the
#       TEXTs as a line: an example whose extension or plugin is missing fails where
#       it needs it instead of looking like success.
#   <!-- readme-test: script root prints "TEXT"... -->   such a block that needs root
#       (it mounts, attaches loop devices): skipped, saying so, when not root. It may
#       exit 77 to be skipped, having printed why (a tool `make deps` installs is
#       missing). Its TMPDIR is a fresh directory under /tmp that every user can
#       traverse (daemons it starts as their own user, such as PostgreSQL, reach what
#       it makes there); no mount, loop device or process may name that directory
#       after the block: the test fails naming them, and removes them.
#   <!-- readme-test: python prints "TEXT"... stored "CONTAINER/BLOB"... -->   a
#       ```python block run by PYTHON in such a directory, with a private emulator's
#       exports (AZURE_STORAGE_CONNECTION_STRING, XIO_BLOB_ENDPOINT) in its
#       environment. PYTHON must have sqlite3's enable_load_extension, else the test
#       fails saying so. It must exit 0, print every TEXT and leave nothing in the
#       directory, and every $XIO_BLOB_ENDPOINT/CONTAINER/BLOB must then exist on the
#       emulator (so a database that never reached storage cannot pass).
#   <!-- readme-test: c prints "TEXT"... -->   a ```c block that is a complete
#       program: compiled by CC with CFLAGS against LIBS (the built libraries) and the
#       libraries they need, then run with one argument, a blob URL of a container of
#       its own on XIO_TEST_BLOB_ENDPOINT; it must exit 0 and print every TEXT.
#       `... again prints "TEXT"...` runs it a second time on the same URL, which must
#       exit 0 and print every TEXT after `again`; `again fails "TEXT"` wants that
#       second run to exit non-zero and print TEXT (a program that refuses to redo).
#
# A DOC with no marked block fails; one with a block skipped exits 77 after running
# the others. names: every container in a blob URL
# (https://ACCOUNT.blob.core.windows.net/C/..., http://HOST:PORT/ACCOUNT/C/...) must be
# a valid name: 3-63 characters, lowercase letters, digits and single dashes, starting
# and ending with a letter or digit.
set -uf # no globbing: the docs' words are split, never expanded

die() { echo "readme_examples: $*" >&2; exit 1; }

KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='

# The emulator's connection string for blob endpoint $1 (http://HOST:PORT).
conn_for() {
  echo "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$KEY;BlobEndpoint=$1/devstoreaccount1;"
}

# Splits DOC's marked blocks into DIR: N.kind (run, script, python or c), N.attrs
# (the rest of the marker line) and N.body (the block's lines), N = 1, 2, ...
split_blocks() {
  awk -v dir="$2" '
    /^<!-- readme-test: [a-z]+.*-->[ \t]*$/ {
      armed = 1; n++
      line = $0
      sub(/^<!-- readme-test: /, "", line); sub(/[ \t]*-->[ \t]*$/, "", line)
      kind = line; sub(/ .*$/, "", kind)
      attrs = line; sub(/^[a-z]+[ ]*/, "", attrs)
      print kind > (dir "/" n ".kind"); print attrs > (dir "/" n ".attrs")
      close(dir "/" n ".kind"); close(dir "/" n ".attrs")
      next
    }
    armed && /^```[a-z]+[ \t]*$/ { inblock = 1; armed = 0; printf "" > (dir "/" n ".body"); next }
    inblock && /^```/            { inblock = 0; close(dir "/" n ".body"); next }
    inblock                      { print > (dir "/" n ".body") }
    armed && NF                  { print "marker not followed by a fenced block: line " NR > "/dev/stderr"; exit 1 }
  ' "$1"
}

# The quoted values of attribute $1 in the attribute line $2, one per line.
attr_values() {
  printf '%s\n' "$2" | grep -oE "$1 \"[^\"]*\"" | sed -e "s/^$1 \"//" -e 's/"$//'
}

# Fails unless the output file $1 holds every `prints` text (or the texts of
# attribute $4) of the attributes $2.
check_prints() {
  attr_values "${4:-prints}" "$2" >"$1.want"
  while IFS= read -r want; do
    grep -qF -- "$want" "$1" || die "block $3: '$want' is not in its output"
  done <"$1.want"
}

# ---- run: xio lines written for Azure, on the fixture's emulator ----

# What a command prints when it worked.
phrase_for() {
  case "$1" in
    create) echo "created " ;;
    grow) echo "grew " ;;
    stat) echo "size " ;;
    sas) echo "sig=" ;;
    *) echo "" ;;
  esac
}

run_line() {
  line=$1 xio=$2
  emu="$XIO_TEST_BLOB_ENDPOINT/devstoreaccount1/"
  cmdline=$(printf '%s\n' "$line" | sed -e 's/[ \t]*#.*$//' \
    -e "s|https://[a-z0-9]*\.blob\.core\.windows\.net/|$emu|g")
  # shellcheck disable=SC2086 # the doc's words, split as a shell would
  set -- $cmdline
  [ "$1" = xio ] || die "not an xio command: $line"
  shift
  verb=$1
  want=$(phrase_for "$verb")
  out=$("$xio" "$@" 2>&1)
  rc=$?
  if [ "$verb" = sas ]; then
    shown="(a SAS URL of $(printf '%s' "$out" | wc -c) characters, not shown)"
    [ $rc -ne 0 ] && shown=$(printf '%s\n' "$out" | sed -e 's/sig=[^&[:space:]]*/sig=REDACTED/g')
  else
    shown=$out
  fi
  printf '$ %s\n%s\n' "$cmdline" "$shown"
  [ $rc -eq 0 ] || die "exit $rc, wanted 0: $line"
  if [ -n "$want" ]; then
    case "$out" in
      *"$want"*) ;;
      *) die "no '$want' in the output of: $line" ;;
    esac
  fi
}

# Runs the xio lines of block file $1 with the program $2; prints how many ran.
block_run() {
  n=0
  # The loop reads from a here-document so that its exports stay in this shell.
  while IFS= read -r line; do
    case "$line" in
      '' | '#'*) ;;
      'export AZURE_STORAGE_CONNECTION_STRING='*)
        AZURE_STORAGE_CONNECTION_STRING=$(conn_for "$XIO_TEST_BLOB_ENDPOINT")
        export AZURE_STORAGE_CONNECTION_STRING
        echo "\$ export AZURE_STORAGE_CONNECTION_STRING='(the emulator's)'" ;;
      'xio '*)
        run_line "$line" "$2"
        n=$((n + 1)) ;;
      *) die "a line the test cannot run: $line" ;;
    esac
  done <<LINES
$(cat "$1")
LINES
  [ "$n" -gt 0 ] || die "no xio command in a run block"
}

# ---- script, python, c: run whole, as written ----

# A fresh directory $WORK/bN for block $1, holding only `build` (pointing at BUILD,
# or at $2 when given): a reader's repository root. What the harness keeps of the
# block (its text, its output, its emulator's runtime directory, its TMPDIR) lives
# beside it, as $WORK/bN.*, so that whatever the block leaves in its directory is its own.
block_dir() {
  d="$WORK/b$1"
  if ! mkdir -p "$d" "$d.run" "$d.tmp" || ! ln -s "${2:-$BUILD}" "$d/build"; then
    die "cannot make $d"
  fi
  echo "$d"
}

# Stops the private emulator of runtime directory $1 (the XDG_RUNTIME_DIR a block
# ran with), if one runs there.
stop_emulator() {
  [ -d "$1/xio-emulator" ] || return 0
  XDG_RUNTIME_DIR="$1" "$XIO" emulator stop --dir "$1/xio-emulator" >/dev/null 2>&1
  for sd in $(ls "$1/xio-emulator"); do # a shell's own directory (no globbing here)
    case "$sd" in
      session-*) XDG_RUNTIME_DIR="$1" "$XIO" emulator stop --dir "$1/xio-emulator/$sd" >/dev/null 2>&1 ;;
    esac
  done
  return 0
}

# Fails unless block directory $1 (a reader's repository root) holds only `build`:
# an example leaves nothing in the tree it is run from.
check_left_nothing() {
  left=$(ls -A "$1" | grep -vx build | tr '\n' ' ')
  [ -z "$left" ] || die "block $2 left files in the directory it ran in (a reader's repository root): $left"
}

# Runs the sh block $2 (number $1) in the block directory $3, with TMPDIR $4 (default
# $3.tmp): the exit status.
run_script_in() {
  (cd "$3" && XDG_RUNTIME_DIR="$3.run" TMPDIR="${4:-$3.tmp}" sh -e "$2") >"$3.out" 2>&1
}

# Prints what names directory $1 (mounts, loop devices, processes: a root block's
# leftovers) and removes it: kills the processes by their ids, detaches the loop
# devices (once unused), unmounts (lazily).
root_leftovers() {
  for p in $(pgrep -f -- "$1/"); do
    echo "process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
    kill -9 "$p" 2>/dev/null
  done
  losetup -nl -O NAME,BACK-FILE | awk -v p="$1/" 'index($2, p) == 1 { print $1 }' |
    while read -r l; do echo "loop device $l" && losetup -d "$l"; done
  awk -v p="$1/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r |
    while read -r m; do echo "mount $m" && umount -l "$m"; done
}

# A fresh TMPDIR for root block $1 (block directory $2) that every user can
# traverse, recorded in $2.roottmp; prints it.
root_tmp() {
  rt=$(mktemp -d /tmp/readme-root.XXXXXX) || die "block $1: cannot make a directory in /tmp"
  { chmod 755 "$rt" && echo "$rt" >"$2.roottmp"; } || die "block $1: cannot set up $rt"
  echo "$rt"
}

# A copy of the build tree $1 at $3 without its file $2 (relative to it): symbolic
# links to everything but the directories on the way to $2, which are made afresh.
# (Its variables are its own: sh has no locals, and it calls itself.)
shadow_without() {
  sw_src=$1 sw_rel=$2 sw_dst=$3
  mkdir -p "$sw_dst" || return 1
  sw_first=${sw_rel%%/*}
  for sw_e in $(ls -A "$sw_src"); do
    [ "$sw_e" = "$sw_first" ] || ln -s "$sw_src/$sw_e" "$sw_dst/$sw_e" || return 1
  done
  [ "$sw_first" = "$sw_rel" ] || shadow_without "$sw_src/$sw_first" "${sw_rel#*/}" "$sw_dst/$sw_first"
}

# The block run again on a build tree that lacks each file of its `fails-without`
# attributes: it must then exit non-zero, and before it prints any of its TEXTs as a
# line (a missing extension or plugin fails the example where it is used, instead of
# letting it look like success).
block_fails_without() {
  attr_values fails-without "$3" >"$WORK/b$1.without"
  k=0
  while IFS= read -r rel; do
    k=$((k + 1))
    [ -e "$BUILD/$rel" ] || die "block $1: fails-without \"$rel\": the build has no such file to leave out"
    shadow_without "$BUILD" "$rel" "$WORK/b$1.shadow$k" || die "cannot shadow $BUILD without $rel"
    dw=$(block_dir "$1w$k" "$WORK/b$1.shadow$k")
    echo "--- block $1 again, on a build without $rel:"
    run_script_in "$1" "$2" "$dw"
    rc=$?
    cat "$dw.out"
    stop_emulator "$dw.run"
    [ $rc -ne 0 ] || die "block $1: exit 0 on a build without $rel, wanted a failure"
    attr_values prints "$3" >"$dw.want"
    while IFS= read -r want; do
      ! grep -qxF -- "$want" "$dw.out" ||
        die "block $1: on a build without $rel it printed '$want' before failing (it must fail where it needs $rel)"
    done <"$dw.want"
    echo "(exit $rc before printing what it prints on success, as it should without $rel)"
  done <"$WORK/b$1.without"
}

block_script() {
  d=$(block_dir "$1")
  tmp=""
  case "$3" in
    root | "root "*)
      if [ "$(id -u)" -ne 0 ]; then
        echo "--- block $1: SKIP: it needs root (mount, losetup) and this is uid $(id -u); CI runs as root"
        skipped=$((skipped + 1))
        return 0
      fi
      tmp=$(root_tmp "$1" "$d") ;;
  esac
  cp "$2" "$d.sh"
  echo "--- block $1 (sh, in a scratch directory):"
  sed 's/^/  | /' "$d.sh"
  run_script_in "$1" "$d.sh" "$d" "$tmp"
  rc=$?
  cat "$d.out"
  stop_emulator "$d.run"
  if [ -n "$tmp" ]; then
    root_leftovers "$tmp" >"$d.left" 2>&1
    rm -rf "$tmp" "$d.roottmp"
    [ -s "$d.left" ] && { cat "$d.left"; die "block $1 left these behind (removed now)"; }
    if [ $rc -eq 77 ]; then
      echo "--- block $1: SKIP (the reason is above)"
      skipped=$((skipped + 1))
      return 0
    fi
  fi
  [ $rc -eq 0 ] || die "block $1: exit $rc, wanted 0"
  check_prints "$d.out" "$3" "$1"
  check_left_nothing "$d" "$1"
  block_fails_without "$1" "$d.sh" "$3"
}

block_python() {
  if [ -z "$PYTHON" ] || ! command -v "$PYTHON" >/dev/null 2>&1; then
    die "block $1 is Python, and there is no Python at '$PYTHON' (install python3)"
  fi
  "$PYTHON" -c 'import sqlite3; sqlite3.Connection.enable_load_extension' >/dev/null 2>&1 ||
    die "block $1 is Python, and $PYTHON's sqlite3 module lacks enable_load_extension (built without loadable extensions): run the test with a Python that has it (Debian's /usr/bin/python3 does; -DXIO_README_PYTHON=...)"
  d=$(block_dir "$1")
  cp "$2" "$d.py"
  echo "--- block $1 (python, $PYTHON, on a private emulator):"
  sed 's/^/  | /' "$d.py"
  XDG_RUNTIME_DIR="$d.run" "$XIO" emulator start --dir "$d.run/xio-emulator" --shell \
    >"$d.env" 2>"$d.err" ||
    { cat "$d.err"; die "block $1: the emulator did not start"; }
  # shellcheck disable=SC1090 # the emulator's exports, written just above
  (cd "$d" && . "$d.env" && TMPDIR="$d.tmp" "$PYTHON" "$d.py") >"$d.out" 2>&1
  rc=$?
  cat "$d.out"
  ok=1
  if [ $rc -eq 0 ]; then
    attr_values stored "$3" >"$d.stored"
    while IFS= read -r blob; do
      # shellcheck disable=SC1090 # the same exports
      (. "$d.env" && "$XIO" stat "$XIO_BLOB_ENDPOINT/$blob") >"$d.stat" 2>&1 || {
        cat "$d.stat"
        echo "readme_examples: block $1: $blob is not on the emulator" >&2
        ok=0
      }
    done <"$d.stored"
  fi
  stop_emulator "$d.run"
  [ $rc -eq 0 ] || die "block $1: exit $rc, wanted 0"
  [ $ok -eq 1 ] || exit 1
  check_prints "$d.out" "$3" "$1"
  check_left_nothing "$d" "$1"
}

block_c() {
  d=$(block_dir "$1")
  cp "$2" "$d.c"
  echo "--- block $1 (C, compiled against the built libraries):"
  # shellcheck disable=SC2086,SC2046 # flag lists, split as a shell would
  $CC $CFLAGS -o "$d.bin" "$d.c" $LIBS \
    $(pkg-config --libs libcurl libxml-2.0 openssl libcjson) -pthread >"$d.cc" 2>&1 || {
    cat "$d.cc"
    die "block $1: the C example does not compile"
  }
  url="$XIO_TEST_BLOB_ENDPOINT/devstoreaccount1/readme-c-$$-$1/example.ldf"
  run_c "$1" "$d" "$url" "${3%% again *}"
  case "$3" in *" again "*) run_c "$1" "$d" "$url" "${3#* again }" ;; esac
}

# Runs the program of block $1 (built as $2.bin) on blob URL $3, wanting what the
# attributes $4 say: exit 0 and every `prints` text, or with `fails "TEXT"` a
# non-zero exit and every TEXT.
run_c() {
  echo "\$ ./example $3"
  AZURE_STORAGE_CONNECTION_STRING=$(conn_for "$XIO_TEST_BLOB_ENDPOINT") \
    "$2.bin" "$3" >"$2.out" 2>&1
  rc=$?
  cat "$2.out"
  if [ -n "$(attr_values fails "$4")" ]; then
    [ $rc -ne 0 ] || die "block $1: exit 0, wanted a failure"
    check_prints "$2.out" "$4" "$1" fails
  else
    [ $rc -eq 0 ] || die "block $1: exit $rc, wanted 0"
  fi
  check_prints "$2.out" "$4" "$1"
}

# Stops every private emulator a block left running and removes the scratch.
cleanup() {
  for e in $(ls "$WORK" 2>/dev/null); do
    case "$e" in
      *.run) stop_emulator "$WORK/$e" ;;
      *.roottmp) root_leftovers "$(cat "$WORK/$e")" && rm -rf "$(cat "$WORK/$e")" ;;
    esac
  done
  rm -rf "$WORK"
}

cmd_doc() {
  DOC=$1 BUILD=$2 CC=$3 CFLAGS=$4 LIBS=$5 PYTHON=$6
  XIO="$BUILD/samples/xio"
  [ -n "${XIO_TEST_BLOB_ENDPOINT:-}" ] || die "XIO_TEST_BLOB_ENDPOINT is not set (run under the azurite fixture)"
  [ -x "$XIO" ] || die "no xio program at $XIO"
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/readme.XXXXXX") || die "no scratch directory"
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  split_blocks "$DOC" "$WORK" || die "cannot read the marked blocks of $DOC"
  n=0 i=1 skipped=0
  while [ -f "$WORK/$i.kind" ]; do
    kind=$(cat "$WORK/$i.kind") attrs=$(cat "$WORK/$i.attrs")
    [ -f "$WORK/$i.body" ] || die "block $i: no fenced block after its marker"
    case "$kind" in
      run) block_run "$WORK/$i.body" "$XIO" ;;
      script) block_script "$i" "$WORK/$i.body" "$attrs" ;;
      python) block_python "$i" "$WORK/$i.body" "$attrs" ;;
      c) block_c "$i" "$WORK/$i.body" "$attrs" ;;
      *) die "block $i: unknown kind '$kind' (run, script, python, c)" ;;
    esac
    n=$((n + 1)) i=$((i + 1))
  done
  [ "$n" -gt 0 ] || die "no marked block in $DOC"
  if [ "$skipped" -gt 0 ]; then
    echo "readme_examples: SKIP: $skipped of the $n blocks of $DOC skipped (why: above); $((n - skipped)) ran as written"
    exit 77
  fi
  echo "readme_examples: $n blocks of $DOC ran as written"
}

# ---- names ----

cmd_names() {
  bad=0 n=0
  for doc in "$@"; do
    [ -f "$doc" ] || die "no file $doc"
    names=$(grep -oE 'https?://[A-Za-z0-9.:-]+/[^ `")?]*' "$doc" | awk -F/ '
      $3 ~ /\.blob\.core\.windows\.net$/ { if ($4 != "") print $4; next }
      $3 ~ /^(127\.0\.0\.1|localhost)(:[0-9]+)?$/ && $4 != "" && $5 != "" { print $5 }')
    for c in $names; do
      n=$((n + 1))
      case "$c" in ACCOUNT | CONTAINER | C | ...) continue ;; esac # placeholders
      if ! printf '%s\n' "$c" | grep -qE '^[a-z0-9]([a-z0-9]|-[a-z0-9]){2,62}$' ||
        [ ${#c} -gt 63 ]; then
        echo "readme_examples: $doc: invalid container name '$c' (3-63 lowercase letters, digits, single dashes)" >&2
        bad=1
      fi
    done
  done
  [ "$n" -gt 0 ] || die "no blob URL in $*"
  [ $bad -eq 0 ] || exit 1
  echo "readme_examples: $n container names checked in $# files"
}

case "${1:-}" in
  doc) [ $# -eq 7 ] || die "usage: $0 doc DOC BUILD CC CFLAGS LIBS PYTHON"; shift; cmd_doc "$@" ;;
  names) [ $# -ge 2 ] || die "usage: $0 names DOC..."; shift; cmd_names "$@" ;;
  *) die "usage: $0 doc DOC BUILD CC CFLAGS LIBS PYTHON | names DOC..." ;;
esac
