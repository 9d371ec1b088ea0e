#!/bin/sh
# xio-man.sh - makes the xio(1) man page from xio's own help, so that it says what
# the program says: help2man reads `xio --help` and `xio --version`, and a COMMANDS
# section gathers `xio help CMD` for every command `xio __complete help` lists.
#   xio-man.sh XIO OUT.1 [HELP2MAN]
set -eu
xio=$1
out=$2
help2man=${3:-help2man}
inc=$(mktemp)
trap 'rm -f "$inc" "$inc.action" "$out.tmp"' EXIT
# The output of the command "$@" as a block of lines as they are. In roff a
# backslash is \e, and a line starting with . or ' is a request unless after \&.
roff() {
  echo '.nf'
  "$@" | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
  echo '.fi'
}
{
  echo '[COMMANDS]'
  for cmd in $("$xio" __complete help); do
    echo ".SS $cmd"
    roff "$xio" help "$cmd"
    # Actions with a help of their own (emulator start): theirs too.
    for action in $("$xio" __complete "$cmd" | grep -v '^-' || true); do
      "$xio" "$cmd" "$action" --help >"$inc.action" 2>/dev/null || continue
      "$xio" help "$cmd" | cmp -s - "$inc.action" && continue
      echo ".SS $cmd $action"
      roff cat "$inc.action"
    done
  done
  echo '[SEE ALSO]'
  echo 'The manual: docs/cli.md, docs/emulator.md and docs/credentials.md in the source tree.'
} >"$inc"
"$help2man" --no-info --section=1 --include="$inc" \
  --name='database files on Azure page blobs or local disks' \
  --output="$out.tmp" "$xio"
mv "$out.tmp" "$out"
