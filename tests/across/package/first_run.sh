#!/bin/sh
# first_run.sh - the long steps of a first `make demo` say what they do: the
# dependency installer (scripts/install-deps.sh) names the Debian packages it fetches
# and the Azurite version it installs from npm, each with how long it takes, and is
# quiet when nothing is missing; the build (scripts/build.sh, which make demo, make
# samples and make install run) says what it builds, shows the percent done on a
# terminal, prints how long it took, shows the compiler's output only when the build
# fails and keeps its exit status. apt-get, npm and cmake are stand-ins here (nothing
# is installed or built), so the test takes a second.
#   first_run.sh SOURCE_DIR
set -u
src=$1
die() { echo "first_run: $*" >&2; exit 1; }
tmp=$(mktemp -d) || die "no scratch directory"
trap 'rm -rf "$tmp"' EXIT
stub="$tmp/bin"
mkdir -p "$stub"

# A stand-in program NAME with body BODY.
fake() {
  printf '#!/bin/sh\n%s\n' "$2" >"$stub/$1"
  chmod +x "$stub/$1"
}

# ---- install-deps.sh: a copy in a tree of its own, one Debian package missing ----
tree="$tmp/tree"
az="$tree/samples/testers/emulator/azurite"
mkdir -p "$tree/scripts" "$az"
cp "$src/scripts/install-deps.sh" "$tree/scripts/"
cp "$src/samples/testers/emulator/azurite/package-lock.json" "$az/"
version=$(grep -A1 '"node_modules/azurite": {' "$az/package-lock.json" |
  sed -n 's/.*"version": *"\([^"]*\)".*/\1/p')
[ -n "$version" ] || die "no Azurite version in the lock file"
fake dpkg-query 'case "$*" in *" fio") echo "unknown ok not-installed" ;; *) echo "install ok installed" ;; esac'
fake apt-get 'echo "apt-get $*" >>"'"$tmp"'/apt.log"'
fake sudo 'exec "$@"'
fake node 'exit 0'
fake npm 'mkdir -p node_modules/.bin && printf "#!/bin/sh\n" >node_modules/.bin/azurite-blob &&
  chmod +x node_modules/.bin/azurite-blob && echo "npm $*" >>"'"$tmp"'/npm.log"'
PATH="$stub:$PATH" bash "$tree/scripts/install-deps.sh" >"$tmp/deps.out" 2>&1 ||
  { cat "$tmp/deps.out"; die "install-deps.sh failed"; }
cat "$tmp/deps.out"
for want in "deps: installing with apt-get (a few minutes for all of them" "fio..." \
  "deps: Debian packages installed in " \
  "deps: installing Azurite $version and the JavaScript SDK from npm" "(about 1.5 min)..." \
  "deps: Azurite installed in "; do
  grep -qF -- "$want" "$tmp/deps.out" || die "install-deps.sh did not say '$want'"
done
grep -q "install .*fio" "$tmp/apt.log" || die "apt-get was not asked for fio"
grep -q "^npm ci" "$tmp/npm.log" || die "npm ci did not run"
# Nothing missing (the lock's stamp written, every package there): not a word.
fake dpkg-query 'echo "install ok installed"'
PATH="$stub:$PATH" bash "$tree/scripts/install-deps.sh" >"$tmp/deps2.out" 2>&1 ||
  { cat "$tmp/deps2.out"; die "install-deps.sh failed the second time"; }
[ ! -s "$tmp/deps2.out" ] || { cat "$tmp/deps2.out"; die "install-deps.sh spoke with nothing to do"; }

# ---- build.sh: a stand-in cmake that builds in two steps, or fails ----
build="$src/scripts/build.sh"
[ -x "$build" ] || die "no $build"
fake cmake 'echo "[ 50%] Building C object a.o"; echo "[100%] Built target a"
  [ -z "${FAIL:-}" ] || { echo "a.c:1:1: error: expected something"; exit 2; }'
PATH="$stub:$PATH" "$build" B samples 2 "samples: building the samples (about 3 min)" \
  >"$tmp/b.out" 2>&1 || { cat "$tmp/b.out"; die "build.sh failed on a build that worked"; }
cat "$tmp/b.out"
grep -qx "samples: building the samples (about 3 min)..." "$tmp/b.out" || die "build.sh did not say what it builds"
grep -qE "^samples: built in [0-9]+ s$" "$tmp/b.out" || die "build.sh did not say how long it took"
! grep -q "Building C object" "$tmp/b.out" || die "build.sh showed the build's output though it worked"
FAIL=1 PATH="$stub:$PATH" "$build" B samples 2 "samples: building the samples" >"$tmp/f.out" 2>&1
rc=$?
cat "$tmp/f.out"
[ $rc -eq 2 ] || die "build.sh exited $rc on a build that failed with 2"
grep -q "error: expected something" "$tmp/f.out" || die "build.sh hid the compiler's error"
grep -q "^samples: the build failed (exit 2)" "$tmp/f.out" || die "build.sh did not say the build failed"
# On a terminal the percent done follows (script(1) gives it one).
if command -v script >/dev/null 2>&1; then
  PATH="$stub:$PATH" script -qec "'$build' B samples 2 'samples: building'" /dev/null \
    >"$tmp/t.out" 2>&1 </dev/null || { cat "$tmp/t.out"; die "build.sh failed on a terminal"; }
  grep -q " 50% built" "$tmp/t.out" || { cat -A "$tmp/t.out"; die "no percent done on a terminal"; }
fi

# ---- make demo builds through build.sh every sample ----
make -s -n -C "$src" demo BUILD=build-first-run-test MAKEFLAGS= >"$tmp/make.out" 2>&1 ||
  { cat "$tmp/make.out"; die "make -n demo failed"; }
grep -q "scripts/build.sh build-first-run-test samples" "$tmp/make.out" ||
  { cat "$tmp/make.out"; die "make demo does not build the samples target through scripts/build.sh"; }
echo "first_run: the installer and the build say what they do, and how long it took"
