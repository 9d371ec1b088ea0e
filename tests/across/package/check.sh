#!/usr/bin/env bash
# Installs the build into a temporary prefix, checks that the installed headers hold
# the API only (each compiles alone; no internal header or helper is installed), then
# builds a consumer program against the installed files twice, with find_package(xio)
# and with pkg-config, and runs both.
#   check.sh BUILD_DIR SOURCE_DIR [sqlite]
# With "sqlite", the installed SQLite VFS instead: xio_sqlite.h, libxio_sqlite.a, the
# CMake target xio::xio_sqlite and xio_sqlite.pc, used by a program that embeds it.
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
if [ "${3:-}" = sqlite ]; then
  test -f "$tmp/prefix/include/xio/xio_sqlite.h"
  cmake -S "$src/tests/across/package/consumer_sqlite" -B "$tmp/consumer_sqlite" \
    -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
  cmake --build "$tmp/consumer_sqlite" >/dev/null
  out=$("$tmp/consumer_sqlite/consumer_sqlite" "$tmp/via-cmake.db")
  [ "$out" = "hello, xio_sqlite" ] || { echo "consumer_sqlite (CMake) printed: $out"; exit 1; }
  pc=$(dirname "$(find "$tmp/prefix" -name xio_sqlite.pc | head -n1)")
  flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags xio_sqlite)
  libs=$(PKG_CONFIG_PATH="$pc" pkg-config --libs xio_sqlite)
  cc -std=c11 $flags "$src/tests/across/package/consumer_sqlite/main.c" -o "$tmp/consumer_sqlite-pc" $libs
  out=$("$tmp/consumer_sqlite-pc" "$tmp/via-pkgconfig.db")
  [ "$out" = "hello, xio_sqlite" ] || { echo "consumer_sqlite (pkg-config) printed: $out"; exit 1; }
  echo "installed SQLite VFS works with find_package and pkg-config"
  exit 0
fi
test -f "$tmp/prefix/include/xio/xio.h"
test -f "$tmp/prefix/lib/pkgconfig/xio.pc" || test -f "$tmp"/prefix/lib*/pkgconfig/xio.pc
# The installed headers are the API and nothing else: each compiles on its own with
# only the install's include directory, no internal header (*_int.h) is installed, and
# the helpers internal to the libraries (an error record's reason, URLs taken apart,
# percent-encoding, base64) are declared in none of them; what an engine needs to
# report a failure in xio's form (xio_error_set and its kin) is.
inc="$tmp/prefix/include"
internal=$(find "$inc" -name '*_int.h')
[ -z "$internal" ] || { echo "internal headers installed: $internal"; exit 1; }
headers=$(cd "$inc" && find xio -name '*.h' | sort)
for h in $headers; do
  printf '#include <%s>\nint main(void) { return 0; }\n' "$h" > "$tmp/only.c"
  cc -std=c11 -Wall -Wextra -Werror -I"$inc" -c "$tmp/only.c" -o "$tmp/only.o" ||
    { echo "installed header $h does not compile on its own"; exit 1; }
done
helpers='xio_error_set_reason xio_error_set_status xio_auth_url_parse xio_auth_url_clear xio_auth_url_of_account
  xio_auth_url_strip_query xio_auth_sas_param xio_auth_check_container_name
  xio_auth_encode_path xio_auth_host_is_loopback xio_auth_host_is_link_local
  xio_auth_pct_encode xio_auth_pct_decode xio_auth_base64_encode xio_auth_base64_decode'
all=$(for h in $headers; do printf '#include <%s>\n' "$h"; done)
for f in $helpers; do
  if grep -rqw "$f" "$inc"; then echo "installed headers name the internal $f"; exit 1; fi
  # The compiler agrees: with every installed header, a call of it is undeclared.
  printf '%s\nvoid (*p)(void) = (void (*)(void))%s;\n' "$all" "$f" > "$tmp/internal.c"
  if cc -std=c11 -I"$inc" -c "$tmp/internal.c" -o "$tmp/internal.o" 2>/dev/null; then
    echo "internal helper $f is declared by the installed headers"; exit 1
  fi
done
echo "installed headers: $(echo "$headers" | wc -l) compile alone, none declares the $(echo $helpers | wc -w) internal helpers"
# find_package
cmake -S "$src/tests/across/package/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
out=$("$tmp/consumer/consumer" "$tmp/via-cmake.ldf")
[ "$out" = "hello, xio" ] || { echo "consumer (CMake) printed: $out"; exit 1; }
# pkg-config
pc=$(dirname "$(find "$tmp/prefix" -name xio.pc | head -n1)")
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags xio)
libs=$(PKG_CONFIG_PATH="$pc" pkg-config --libs xio)
cc -std=c11 $flags "$src/tests/across/package/consumer/main.c" -o "$tmp/consumer-pc" $libs
out=$("$tmp/consumer-pc" "$tmp/via-pkgconfig.ldf")
[ "$out" = "hello, xio" ] || { echo "consumer (pkg-config) printed: $out"; exit 1; }
echo "installed package works with find_package and pkg-config"
