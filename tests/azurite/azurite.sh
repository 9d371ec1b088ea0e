#!/usr/bin/env bash
# Starts and stops the Azure Storage emulator (Azurite, blob service only) for the tests
# and the demo: in memory, telemetry off, on 127.0.0.1 at a free port the kernel picks.
#   azurite.sh start STATE_DIR   start; write STATE_DIR/endpoint (http://127.0.0.1:PORT)
#   azurite.sh stop STATE_DIR    stop the emulator started with that STATE_DIR
#   azurite.sh run STATE_DIR CMD...  run CMD with XIO_TEST_BLOB_ENDPOINT set from STATE_DIR
# An XIO_TEST_BLOB_ENDPOINT already in the environment wins (an emulator started elsewhere).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:?usage: azurite.sh start|stop|run STATE_DIR [CMD...]}
state=${2:?usage: azurite.sh start|stop|run STATE_DIR [CMD...]}
mkdir -p "$state"
state=$(cd "$state" && pwd) # absolute: the emulator runs in it

start() {
  mkdir -p "$state"
  stop_quietly
  local bin="$here/node_modules/.bin/azurite-blob"
  [ -x "$bin" ] || { echo "azurite.sh: Azurite is not installed; run scripts/install-deps.sh" >&2; exit 1; }
  rm -f "$state/endpoint"
  # The log exists before the emulator starts: the wait loop below reads it at once,
  # and a missing file would end this script (set -e, pipefail).
  : > "$state/azurite.log"
  # setsid: the emulator outlives this script and is stopped by pid.
  (cd "$state" && exec setsid "$bin" --blobHost 127.0.0.1 --blobPort 0 --inMemoryPersistence \
      --extentMemoryLimit 6144 --silent --disableTelemetry \
      >"$state/azurite.log" 2>&1 </dev/null) &
  echo $! > "$state/pid"
  local i url=""
  for i in $(seq 1 300); do
    url=$(sed -n 's/.*successfully listens on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$state/azurite.log" | head -n1)
    [ -n "$url" ] && break
    kill -0 "$(cat "$state/pid")" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "azurite.sh: Azurite did not start; its log:" >&2
    cat "$state/azurite.log" >&2
    stop_quietly
    exit 1
  fi
  echo "$url" > "$state/endpoint"
  echo "azurite.sh: Azurite listening on $url"
}

stop_quietly() {
  local pid
  pid=$(cat "$state/pid" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$state/pid" "$state/endpoint"
}

case "$cmd" in
  start) start ;;
  stop) stop_quietly ;;
  run)
    shift 2
    if [ -z "${XIO_TEST_BLOB_ENDPOINT:-}" ]; then
      [ -s "$state/endpoint" ] || { echo "azurite.sh: no emulator running for $state" >&2; exit 1; }
      XIO_TEST_BLOB_ENDPOINT=$(cat "$state/endpoint")
      export XIO_TEST_BLOB_ENDPOINT
    fi
    exec "$@" ;;
  *) echo "usage: azurite.sh start|stop|run STATE_DIR [CMD...]" >&2; exit 2 ;;
esac
