#!/usr/bin/env bash
# The installed xio runs the emulator without the source or build tree: installs the
# build into a temporary prefix and checks that
#   - no path to the emulator's files in the source or build tree is compiled into
#     the installed xio (file names in assertions and debug information are fine);
#   - with no Azurite anywhere it looks, `xio emulator start` fails with a message
#     naming each place it looked and what to run (`npm ci` in share/xio);
#   - told where Azurite is (XIO_AZURITE), it starts, answers status, and stops.
#   emulator_check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
dir="$tmp/state"
trap '"$tmp/prefix/bin/xio" emulator stop --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
xio="$tmp/prefix/bin/xio"
fail() { echo "FAIL: $*" >&2; exit 1; }
for f in azurite.sh gc_interval.js package.json package-lock.json; do
  [ -f "$tmp/prefix/share/xio/$f" ] || fail "share/xio/$f is not installed"
done
if grep -aqF -e "$src/samples/testers/emulator/azurite" -e "$build/share" "$xio"; then
  fail "the installed xio holds a path to the source or build tree's emulator files"
fi
# Nowhere to find Azurite: no XIO_AZURITE, nothing beside the installed script, a PATH
# without azurite-blob (and no global npm prefix holding one).
set +e
out=$(env -u XIO_AZURITE PATH=/usr/bin:/bin "$xio" emulator start --dir "$dir" 2>&1)
rc=$?
set -e
[ "$rc" = 1 ] || fail "start without Azurite exited $rc: $out"
case "$out" in
  *"Azurite is not installed"*"$tmp/prefix/share/xio/node_modules/.bin/azurite-blob"*"npm ci"*) ;;
  *) fail "start without Azurite said: $out" ;;
esac
# Told where it is.
XIO_AZURITE="$src/samples/testers/emulator/azurite/node_modules/.bin/azurite-blob" \
  "$xio" emulator start --dir "$dir" --quiet >/dev/null || fail "start with XIO_AZURITE failed"
"$xio" emulator status --dir "$dir" | grep -q "running" || fail "status does not say running"
"$xio" emulator stop --dir "$dir" >/dev/null || fail "stop failed"
echo "the installed xio starts the emulator on its own and says what is missing"
