#!/bin/sh
# readme_examples.sh - the README's examples, checked against the program so they
# cannot drift from it.
#
#   readme_examples.sh run README XIO        runs every ```sh block that follows a
#                                            "<!-- readme-test: run -->" line
#   readme_examples.sh names README          checks every container name in a URL
#
# run: each `xio ...` line runs against the emulator named by XIO_TEST_BLOB_ENDPOINT
# (set by the azurite fixture): https://ACCOUNT.blob.core.windows.net/ becomes
# $XIO_TEST_BLOB_ENDPOINT/devstoreaccount1/, and an `export
# AZURE_STORAGE_CONNECTION_STRING=...` line gets the emulator's connection string
# (its public development key). Each command must exit 0 and print the phrase its
# command prints on success (created, grew, size, a SAS); output is shown except a
# SAS, which is never printed. Comment and blank lines are skipped; any other line
# fails the test, as does a README without a marked block.
#
# names: every container in a blob URL (https://ACCOUNT.blob.core.windows.net/C/...,
# http://HOST:PORT/ACCOUNT/C/...) must be a valid name: 3-63 characters, lowercase
# letters, digits and single dashes, starting and ending with a letter or digit.
set -uf # no globbing: the README's words are split, never expanded

die() { echo "readme_examples: $*" >&2; exit 1; }

# The lines of the marked ```sh blocks, one per line.
marked_lines() {
  awk '
    /^<!-- readme-test: run -->/ { armed = 1; next }
    armed && /^```sh[ \t]*$/   { inblock = 1; armed = 0; next }
    inblock && /^```/          { inblock = 0; next }
    inblock                    { print }
    armed && NF                { armed = 0 }
  ' "$1"
}

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
  # shellcheck disable=SC2086 # the README's words, split as a shell would
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

cmd_run() {
  readme=$1 xio=$2
  [ -n "${XIO_TEST_BLOB_ENDPOINT:-}" ] || die "XIO_TEST_BLOB_ENDPOINT is not set (run under the azurite fixture)"
  [ -x "$xio" ] || die "no xio program at $xio"
  key='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
  conn="DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$key;BlobEndpoint=$XIO_TEST_BLOB_ENDPOINT/devstoreaccount1;"
  lines=$(marked_lines "$readme")
  [ -n "$lines" ] || die "no marked sh block in $readme"
  n=0
  # The loop reads from a here-document so that its exports stay in this shell.
  while IFS= read -r line; do
    case "$line" in
      '' | '#'*) ;;
      'export AZURE_STORAGE_CONNECTION_STRING='*)
        export AZURE_STORAGE_CONNECTION_STRING="$conn"
        echo "\$ export AZURE_STORAGE_CONNECTION_STRING='(the emulator's)'" ;;
      'xio '*)
        run_line "$line" "$xio"
        n=$((n + 1)) ;;
      *) die "a line the test cannot run: $line" ;;
    esac
  done <<LINES
$lines
LINES
  [ "$n" -gt 0 ] || die "no xio command in the marked blocks of $readme"
  echo "readme_examples: $n commands ran as written"
}

cmd_names() {
  readme=$1
  names=$(grep -oE 'https?://[A-Za-z0-9.:-]+/[^ `")?]*' "$readme" | awk -F/ '
    $3 ~ /\.blob\.core\.windows\.net$/ { if ($4 != "") print $4; next }
    $3 ~ /^(127\.0\.0\.1|localhost)(:[0-9]+)?$/ && $4 != "" && $5 != "" { print $5 }')
  [ -n "$names" ] || die "no blob URL in $readme"
  bad=0 n=0
  for c in $names; do
    n=$((n + 1))
    case "$c" in ACCOUNT | CONTAINER | C | ...) continue ;; esac # placeholders
    if ! printf '%s\n' "$c" | grep -qE '^[a-z0-9]([a-z0-9]|-[a-z0-9]){2,62}$' ||
      [ ${#c} -gt 63 ]; then
      echo "readme_examples: invalid container name '$c' (3-63 lowercase letters, digits, single dashes)" >&2
      bad=1
    fi
  done
  [ $bad -eq 0 ] || exit 1
  echo "readme_examples: $n container names checked"
}

case "${1:-}" in
  run) [ $# -eq 3 ] || die "usage: $0 run README XIO"; cmd_run "$2" "$3" ;;
  names) [ $# -eq 2 ] || die "usage: $0 names README"; cmd_names "$2" ;;
  *) die "usage: $0 run README XIO | names README" ;;
esac
