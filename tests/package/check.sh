#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds a consumer program against
# the installed files twice, with find_package(xio) and with pkg-config, and runs both.
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
  cmake -S "$src/tests/package/consumer_sqlite" -B "$tmp/consumer_sqlite" \
    -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
  cmake --build "$tmp/consumer_sqlite" >/dev/null
  out=$("$tmp/consumer_sqlite/consumer_sqlite" "$tmp/via-cmake.db")
  [ "$out" = "hello, xio_sqlite" ] || { echo "consumer_sqlite (CMake) printed: $out"; exit 1; }
  pc=$(dirname "$(find "$tmp/prefix" -name xio_sqlite.pc | head -n1)")
  flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags xio_sqlite)
  libs=$(PKG_CONFIG_PATH="$pc" pkg-config --libs xio_sqlite)
  cc -std=c11 $flags "$src/tests/package/consumer_sqlite/main.c" -o "$tmp/consumer_sqlite-pc" $libs
  out=$("$tmp/consumer_sqlite-pc" "$tmp/via-pkgconfig.db")
  [ "$out" = "hello, xio_sqlite" ] || { echo "consumer_sqlite (pkg-config) printed: $out"; exit 1; }
  echo "installed SQLite VFS works with find_package and pkg-config"
  exit 0
fi
test -f "$tmp/prefix/include/xio/xio.h"
test -f "$tmp/prefix/lib/pkgconfig/xio.pc" || test -f "$tmp"/prefix/lib*/pkgconfig/xio.pc
# find_package
cmake -S "$src/tests/package/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
out=$("$tmp/consumer/consumer" "$tmp/via-cmake.ldf")
[ "$out" = "hello, xio" ] || { echo "consumer (CMake) printed: $out"; exit 1; }
# pkg-config
pc=$(dirname "$(find "$tmp/prefix" -name xio.pc | head -n1)")
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags xio)
libs=$(PKG_CONFIG_PATH="$pc" pkg-config --libs xio)
cc -std=c11 $flags "$src/tests/package/consumer/main.c" -o "$tmp/consumer-pc" $libs
out=$("$tmp/consumer-pc" "$tmp/via-pkgconfig.ldf")
[ "$out" = "hello, xio" ] || { echo "consumer (pkg-config) printed: $out"; exit 1; }
echo "installed package works with find_package and pkg-config"
