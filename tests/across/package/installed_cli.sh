#!/usr/bin/env bash
# The installed xio command carries its commands and nothing else: installs the build
# into a temporary prefix and checks, with nm on the installed program, that it
# defines none of the global symbols of the libraries it must not link, the demo's
# (libxio_demo.a: the create-database experiment is the xio-demo program, not
# installed) and the fault proxy's (libxio_faultproxy.a: the xio-faultproxy program
# that `xio emulator` starts is installed beside it). So that a stripped program
# cannot pass for one without them, it must define a symbol of a library it does
# link (the backup library's xio_backup_run). Also checks that xio-demo is not
# installed.
#   installed_cli.sh BUILD_DIR ARCHIVE...     (the archives that xio must not link)
set -euo pipefail
build=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
xio="$tmp/prefix/bin/xio"
[ -x "$xio" ] || fail "bin/xio is not installed"
[ ! -e "$tmp/prefix/bin/xio-demo" ] || fail "xio-demo is installed; it is a program of the build tree"
nm --defined-only "$xio" 2>/dev/null | awk '{ print $NF }' | sort -u > "$tmp/xio.syms"
grep -qx xio_backup_run "$tmp/xio.syms" ||
  fail "the installed xio defines no xio_backup_run: no symbol table to check (stripped?)"
for a in "$@"; do
  [ -f "$a" ] || fail "no archive $a"
  nm -g --defined-only "$a" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/lib.syms"
  [ -s "$tmp/lib.syms" ] || fail "$a defines no global symbol"
  both=$(comm -12 "$tmp/xio.syms" "$tmp/lib.syms")
  [ -z "$both" ] || fail "the installed xio links $(basename "$a"): it defines $(echo $both | head -c 300)"
  echo "the installed xio defines none of the $(wc -l < "$tmp/lib.syms") symbols of $(basename "$a")"
done
