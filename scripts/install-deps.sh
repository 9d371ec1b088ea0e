#!/usr/bin/env bash
# Installs what building and testing xio needs, and nothing when it is all present:
# the Debian development packages, clang-format (the format check in make test), Node.js
# for the emulator, and Azurite pinned by
# samples/testers/emulator/azurite/package-lock.json, into node_modules beside the
# script that starts it (azurite.sh). Safe to run again; quiet when there is nothing
# to do. Before each long step it says what it installs and about how long that takes,
# and after it how long it took.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

packages=(build-essential cmake pkg-config libcurl4-openssl-dev libssl-dev libxml2-dev
          libcjson-dev ca-certificates openssl valgrind libsqlite3-dev sqlite3
          python3 # the SQLite examples and tests from Python
          clang-format # the format check in make test
          help2man # xio's man page, made from its help
          # the nbdkit plugin (samples/engines/nbdkit), its tests and its benchmark
          nbdkit nbdkit-plugin-dev libnbd-bin libnbd-dev qemu-utils fuse3 e2fsprogs procps
          postgresql-15 fio)
for extra in "$@"; do packages+=("$extra"); done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing with apt-get (a few minutes for all of them, less for a few):" \
       "${missing[*]}..."
  start=$SECONDS
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "deps: Debian packages installed in $((SECONDS - start)) s"
fi

# Azurite, from the committed lock file. The stamp records the lock file's hash so a
# changed lock reinstalls and an unchanged one costs nothing.
az="$here/samples/testers/emulator/azurite"
want=$(sha256sum "$az/package-lock.json" | cut -d' ' -f1)
have=$(cat "$az/node_modules/.xio-lock-sha256" 2>/dev/null || true)
if [ "$want" != "$have" ] || [ ! -x "$az/node_modules/.bin/azurite-blob" ]; then
  # The version the lock file pins: the entry after "node_modules/azurite".
  version=$(grep -A1 '"node_modules/azurite": {' "$az/package-lock.json" |
    sed -n 's/.*"version": *"\([^"]*\)".*/\1/p')
  echo "deps: installing Azurite ${version:-(version unknown)} and the JavaScript SDK from npm," \
       "as samples/testers/emulator/azurite/package-lock.json pins them (about 1.5 min)..."
  start=$SECONDS
  (cd "$az" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$want" > "$az/node_modules/.xio-lock-sha256"
  echo "deps: Azurite installed in $((SECONDS - start)) s"
fi
