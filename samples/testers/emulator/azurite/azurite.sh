#!/usr/bin/env bash
# The one program that starts and stops the Azure Storage emulator (Azurite, blob
# service only), for the tests, the benchmarks, the demo and `xio emulator start`
# (which runs it from where xio is installed, share/xio/azurite.sh): in memory,
# telemetry off, on 127.0.0.1 at a free port the kernel picks.
#   azurite.sh start STATE_DIR [--front PROGRAM [--profile NAME]] [AZURITE_OPTION...]
#                                   start; write STATE_DIR/endpoint (http://127.0.0.1:PORT)
#                                   and STATE_DIR/pid (Azurite's, a session leader). With
#                                   --front, PROGRAM (xio-faultproxy) runs in front of it
#                                   with the fidelity profile NAME (default standard; see
#                                   xio-faultproxy --help): endpoint is then the front's,
#                                   azurite.endpoint Azurite's, front.pid and front.stats
#                                   the front's pid and counts
#   azurite.sh start-tls STATE_DIR  the same over HTTPS (--cert/--key): first make a
#                                   throwaway private CA and a server certificate it signs
#                                   for 127.0.0.1 and localhost; write STATE_DIR/endpoint
#                                   (https://127.0.0.1:PORT) and STATE_DIR/ca.pem
#   azurite.sh start-oauth STATE_DIR  start-tls with Entra ID bearer tokens accepted
#                                   (--oauth basic: Azurite checks a token's audience,
#                                   issuer prefix and lifetime, not its signature)
#   azurite.sh stop STATE_DIR       stop the emulator started with that STATE_DIR (and
#                                   remove the keys and certificates start-tls made)
#   azurite.sh run STATE_DIR CMD... run CMD with XIO_TEST_BLOB_ENDPOINT set from STATE_DIR,
#                                   and XIO_TEST_CA_FILE (STATE_DIR/ca.pem) when present
# Azurite is found, in this order: $XIO_AZURITE (an azurite-blob program);
# node_modules/.bin/azurite-blob beside this script (scripts/install-deps.sh puts it
# there in the source tree; `npm ci` in share/xio does for an installed xio, whose
# package.json and package-lock.json pin the same version); azurite-blob on PATH;
# the global npm prefix's bin. None: a message naming each place, exit 1.
# Blob data is kept in memory, at most XIO_AZURITE_MEMORY_MB MiB (default 6144). Its
# garbage collector sweeps when that store nears its limit or a write finds it full,
# else every XIO_AZURITE_GC_INTERVAL_MS (gc_interval.js: default 6 hours instead of
# Azurite's 10 minutes, since a sweep stalls the emulator; XIO_AZURITE_GC_IDLE_MS
# adds a sweep once it is idle).
# An XIO_TEST_BLOB_ENDPOINT already in the environment wins (an emulator started
# elsewhere), except for an HTTPS state: its endpoint only works with its own CA.
#
# start-tls also leaves, for tests of refused certificates, beside ca.pem:
#   other-ca.pem       an unrelated CA with the same subject name as ca.pem
#   wrong-host.pem/key a server certificate signed by ca.pem for wrong-host.invalid only
# The CA private keys are deleted once they have signed: nothing else can be issued.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd) # a link to it: where it lies
usage="usage: azurite.sh start|start-tls|start-oauth|stop|run STATE_DIR [CMD...]"
cmd=${1:?$usage}
state=${2:?$usage}
mkdir -p "$state"
state=$(cd "$state" && pwd) # absolute: the emulator runs in it
tls_files=(ca.pem other-ca.pem server.pem server.key wrong-host.pem wrong-host.key
           ca.key other-ca.key openssl.cnf openssl.log)

# The openssl configuration of every certificate start-tls makes; independent of the
# system's openssl.cnf.
write_openssl_cnf() {
  cat > "$state/openssl.cnf" <<'CNF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = xio test CA
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = none
[wrong_host_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:wrong-host.invalid
subjectKeyIdentifier = hash
authorityKeyIdentifier = none
CNF
}

# ossl ARGS...: openssl with its chatter in openssl.log, shown only on failure.
ossl() {
  if ! openssl "$@" >>"$state/openssl.log" 2>&1; then
    echo "azurite.sh: openssl $1 failed:" >&2
    cat "$state/openssl.log" >&2
    exit 1
  fi
}

# new_ca NAME: a self-signed CA, NAME.key and NAME.pem (EC P-256: fast to make).
new_ca() {
  ossl req -x509 -config "$state/openssl.cnf" -extensions ca_ext -newkey ec \
    -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=xio test CA" \
    -keyout "$state/$1.key" -out "$state/$1.pem"
}

# new_server NAME SUBJECT EXTENSIONS: a server key and certificate signed by ca.
new_server() {
  ossl req -new -config "$state/openssl.cnf" -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
    -nodes -subj "/CN=$2" -keyout "$state/$1.key" -out "$state/$1.csr"
  ossl x509 -req -in "$state/$1.csr" -CA "$state/ca.pem" -CAkey "$state/ca.key" \
    -set_serial "0x$(openssl rand -hex 8)" -days 2 -extfile "$state/openssl.cnf" \
    -extensions "$3" -out "$state/$1.pem"
  rm -f "$state/$1.csr"
}

make_certificates() {
  command -v openssl >/dev/null ||
    { echo "azurite.sh: openssl is not installed; run scripts/install-deps.sh" >&2; exit 1; }
  (umask 077 && : > "$state/openssl.log")
  write_openssl_cnf
  (umask 077 && new_ca ca && new_ca other-ca &&
     new_server server 127.0.0.1 server_ext &&
     new_server wrong-host wrong-host.invalid wrong_host_ext)
  rm -f "$state/ca.key" "$state/other-ca.key"
}

# find_azurite: prints the azurite-blob program to run, or says where it looked.
find_azurite() {
  if [ -n "${XIO_AZURITE:-}" ]; then
    [ -f "$XIO_AZURITE" ] && [ -x "$XIO_AZURITE" ] && { echo "$XIO_AZURITE"; return; }
    echo "azurite.sh: XIO_AZURITE names $XIO_AZURITE, which is no program: point it at" \
      "Azurite's azurite-blob (node_modules/.bin/azurite-blob), or unset it to use the" \
      "one scripts/install-deps.sh installs (or \`npm ci\` beside this script)" >&2
    return 1
  fi
  local local_bin="$here/node_modules/.bin/azurite-blob" prefix=""
  [ -x "$local_bin" ] && { echo "$local_bin"; return; }
  command -v azurite-blob 2>/dev/null && return
  command -v npm >/dev/null 2>&1 && prefix=$(npm prefix -g 2>/dev/null || true)
  [ -n "$prefix" ] && [ -x "$prefix/bin/azurite-blob" ] && { echo "$prefix/bin/azurite-blob"; return; }
  echo "azurite.sh: Azurite is not installed: no XIO_AZURITE, no $local_bin, no" \
    "azurite-blob on PATH${prefix:+ or in $prefix/bin}. Run scripts/install-deps.sh in the" \
    "source tree, or \`npm ci\` in $here (the pinned version), or set XIO_AZURITE to an" \
    "azurite-blob program" >&2
  return 1
}

# start [AZURITE_OPTION...]: the emulator, over HTTPS when given a certificate (--cert).
start() {
  local bin scheme=http
  case " $* " in *" --cert "*) scheme=https ;; esac
  bin=$(find_azurite) || exit 1
  local memory=${XIO_AZURITE_MEMORY_MB:-6144}
  case "$memory" in
    "" | *[!0-9]* | 0*)
      echo "azurite.sh: XIO_AZURITE_MEMORY_MB must be a positive whole number of MiB," \
        "not '$memory'" >&2
      exit 2 ;;
  esac
  rm -f "$state/endpoint"
  # The log exists before the emulator starts: the wait loop below reads it at once,
  # and a missing file would end this script (set -e, pipefail).
  : > "$state/azurite.log"
  # setsid: the emulator outlives this script and is stopped by pid.
  # gc_interval.js: a garbage-collection sweep (which stalls the emulator) only when
  # the store needs it.
  (cd "$state" && NODE_PATH="$here/node_modules" \
      NODE_OPTIONS="--require $here/gc_interval.js ${NODE_OPTIONS:-}" exec setsid "$bin" --blobHost 127.0.0.1 --blobPort 0 --inMemoryPersistence \
      --extentMemoryLimit "$memory" --silent --disableTelemetry "$@" \
      >"$state/azurite.log" 2>&1 </dev/null) &
  echo $! > "$state/pid"
  # Azurite says "Azurite Blob service successfully listens on http://127.0.0.1:PORT"
  # (https:// when serving TLS).
  local i url=""
  for i in $(seq 1 300); do
    url=$(sed -n "s/.*successfully listens on \\($scheme:\\/\\/127\\.0\\.0\\.1:[0-9]*\\).*/\\1/p" \
          "$state/azurite.log" | head -n1)
    [ -n "$url" ] && break
    kill -0 "$(cat "$state/pid")" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "azurite.sh: Azurite did not start ($scheme); its log:" >&2
    cat "$state/azurite.log" >&2
    stop_quietly
    exit 1
  fi
  echo "$url" > "$state/endpoint"
  echo "azurite.sh: Azurite listening on $url"
}

# start_front PROGRAM PROFILE: the fidelity front before the Azurite in
# $state/endpoint, which it then replaces.
start_front() {
  local url ep=""
  url=$(cat "$state/endpoint")
  rm -f "$state/front.endpoint"
  (cd "$state" && exec setsid "$1" --upstream "$url" --profile "$2" \
      --endpoint-file "$state/front.endpoint" --stats "$state/front.stats" \
      >"$state/front.log" 2>&1 </dev/null) &
  echo $! > "$state/front.pid"
  for _ in $(seq 1 100); do
    ep=$(cat "$state/front.endpoint" 2>/dev/null || true)
    [ -n "$ep" ] && break
    kill -0 "$(cat "$state/front.pid")" 2>/dev/null || break
    sleep 0.05
  done
  if [ -z "$ep" ]; then
    echo "azurite.sh: the front ($1) did not start; its log:" >&2
    cat "$state/front.log" >&2
    stop_quietly
    exit 1
  fi
  echo "$url" > "$state/azurite.endpoint"
  echo "$ep" > "$state/endpoint"
  echo "azurite.sh: front ($2) listening on $ep"
}

# stop_pid FILE: ends the process FILE names (TERM, then KILL after 5 s).
stop_pid() {
  local pid
  pid=$(cat "$1" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}

stop_quietly() {
  stop_pid "$state/front.pid"
  rm -f "$state/front.endpoint" "$state/azurite.endpoint"
  # Azurite keeps everything in memory (--inMemoryPersistence): nothing is lost by
  # killing it at once, where its own close on SIGTERM takes 1.7 s.
  local pid
  pid=$(cat "$state/pid" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
  fi
  rm -f "$state/pid" "$state/endpoint"
  for f in "${tls_files[@]}"; do rm -f "$state/$f"; done
}

case "$cmd" in
  start)
    shift 2
    front="" profile=standard
    while [ $# -gt 0 ]; do
      case "$1" in
        --front) front=${2:?--front needs a program}; shift 2 ;;
        --profile) profile=${2:?--profile needs a name}; shift 2 ;;
        *) break ;;
      esac
    done
    stop_quietly
    if [ -n "$front" ] && [ "$profile" != none ]; then
      # Loose: Azurite ignores x-ms-range-get-content-crc64 (strict, it answers 500
      # FeatureNotSupported), which the front answers as Azure does.
      start --loose "$@"
      start_front "$front" "$profile"
    else
      start "$@"
    fi ;;
  start-tls)
    stop_quietly
    make_certificates
    start --cert "$state/server.pem" --key "$state/server.key" ;;
  start-oauth)
    stop_quietly
    make_certificates
    start --cert "$state/server.pem" --key "$state/server.key" --oauth basic ;;
  stop) stop_quietly ;;
  run)
    shift 2
    if [ -s "$state/ca.pem" ]; then
      [ -s "$state/endpoint" ] || { echo "azurite.sh: no emulator running for $state" >&2; exit 1; }
      XIO_TEST_BLOB_ENDPOINT=$(cat "$state/endpoint")
      XIO_TEST_CA_FILE="$state/ca.pem"
      export XIO_TEST_BLOB_ENDPOINT XIO_TEST_CA_FILE
    elif [ -z "${XIO_TEST_BLOB_ENDPOINT:-}" ]; then
      [ -s "$state/endpoint" ] || { echo "azurite.sh: no emulator running for $state" >&2; exit 1; }
      XIO_TEST_BLOB_ENDPOINT=$(cat "$state/endpoint")
      export XIO_TEST_BLOB_ENDPOINT
    fi
    exec "$@" ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
