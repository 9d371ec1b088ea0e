#!/bin/sh
# readme_c.sh - the README's C program (grow.c) builds, as the README says, without
# root: against the build tree, uninstalled (PKG_CONFIG_PATH=BUILD finds
# xio-uninstalled.pc; CMAKE_PREFIX_PATH=BUILD finds the CMake package with its
# exported targets), and against an install under a prefix of one's own with the
# lines `cmake --install` prints to set (PKG_CONFIG_PATH, ...). Each program built
# runs once on the test emulator.
#   readme_c.sh BUILD SOURCE_DIR
set -u
build=$1 src=$2
die() { echo "readme_c: $*" >&2; exit 1; }
[ -n "${XIO_TEST_BLOB_ENDPOINT:-}" ] || die "XIO_TEST_BLOB_ENDPOINT is not set (run under the azurite fixture)"
tmp=$(mktemp -d) || die "no scratch directory"
trap 'rm -rf "$tmp"' EXIT
KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
conn="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$KEY;BlobEndpoint=$XIO_TEST_BLOB_ENDPOINT/devstoreaccount1;"

# The program: the README's C block; the line that compiles it, as the README gives it.
awk '/^<!-- readme-test: c /{m=1; next} m && /^```c/{b=1; next} b && /^```/{exit} b' \
  "$src/README.md" >"$tmp/grow.c"
grep -q 'int main' "$tmp/grow.c" || die "no C program in README.md"
line='cc -o grow grow.c $(pkg-config --cflags --libs xio)'
grep -qF -- "$line" "$src/README.md" || die "README.md does not compile grow.c with: $line"

# Runs ./grow of directory $1 once on the emulator (a container of its own, $2).
run_grow() {
  AZURE_STORAGE_CONNECTION_STRING=$conn \
    "$1/grow" "$XIO_TEST_BLOB_ENDPOINT/devstoreaccount1/readme-c-$$-$2/grow.ldf" >"$1/run.out" 2>&1 ||
    { cat "$1/run.out"; die "grow built $3 did not run"; }
  echo "grow built $3: $(cat "$1/run.out")"
}

# Compiles grow.c in directory $1 with the README's line, in the environment given.
compile() {
  mkdir -p "$1" && cp "$tmp/grow.c" "$1/" || die "cannot copy grow.c"
  (cd "$1" && eval "$line") >"$1/cc.out" 2>&1 || { cat "$1/cc.out"; return 1; }
}

# ---- the build tree, uninstalled ----
flags=$(PKG_CONFIG_PATH=$build pkg-config --cflags xio) || die "PKG_CONFIG_PATH=BUILD: no xio"
case "$flags" in
  *"-I$src/xio/include"*) ;;
  *) die "PKG_CONFIG_PATH=BUILD: the flags do not name the source tree's headers: $flags" ;;
esac
PKG_CONFIG_PATH=$build compile "$tmp/pc" || die "grow.c does not build with PKG_CONFIG_PATH=BUILD"
run_grow "$tmp/pc" pc "with PKG_CONFIG_PATH=BUILD"

mkdir -p "$tmp/cm"
cat >"$tmp/cm/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(grow C)
find_package(xio REQUIRED)
add_executable(grow $tmp/grow.c)
target_link_libraries(grow PRIVATE xio::xio)
CMAKE
cmake -S "$tmp/cm" -B "$tmp/cm/b" -DCMAKE_PREFIX_PATH="$build" >"$tmp/cm.out" 2>&1 &&
  cmake --build "$tmp/cm/b" >>"$tmp/cm.out" 2>&1 ||
  { cat "$tmp/cm.out"; die "grow.c does not build with find_package(xio), CMAKE_PREFIX_PATH=BUILD"; }
run_grow "$tmp/cm/b" cm "with find_package(xio), CMAKE_PREFIX_PATH=BUILD"

# ---- installed under a prefix of one's own: what the install says to set ----
env -u DESTDIR -u PKG_CONFIG_PATH -u CMAKE_PREFIX_PATH cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.out" 2>&1 ||
  { cat "$tmp/install.out"; die "cmake --install failed"; }
grep -v '^-- ' "$tmp/install.out"
sed -n 's/^  \(export [A-Z_]*=.*\)$/\1/p' "$tmp/install.out" >"$tmp/exports"
for var in PATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH; do
  grep -q "^export $var=\"$tmp/prefix[/\$]" "$tmp/exports" || die "the install did not say to set $var"
done
ext=$(sed -n 's/^SQLite extension: \.load //p' "$tmp/install.out")
[ -f "$ext.so" ] || die "the install names the SQLite extension '$ext', and there is no $ext.so"
(
  unset PKG_CONFIG_PATH CMAKE_PREFIX_PATH
  . "$tmp/exports"
  command -v xio | grep -q "^$tmp/prefix/bin/xio$" || die "with the exports, xio is not the installed one"
  compile "$tmp/inst"
) || die "grow.c does not build against the install with the lines it printed"
run_grow "$tmp/inst" inst "against the install under a prefix of one's own"
echo "readme_c: grow.c built and ran uninstalled (pkg-config, CMake) and installed without root"
