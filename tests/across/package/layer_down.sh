#!/bin/sh
# layer_down.sh - fails when a part of the file layer calls the layer's own public
# file API (xio_file_*, xio_io_*): its parts call down through internal functions,
# so a write or a flush goes down without coming back through the entry checks.
# Only the API itself (xio/file.c) and the composition root (xio/ctx.c, which closes
# the files still open when a context goes) may.
#   layer_down.sh SOURCE_DIR
# Prints each offence as FILE:LINE: TEXT and exits 1 if there is any.
set -eu
src=${1:?usage: layer_down.sh SOURCE_DIR}
cd "$src"
names=$(grep -oE '\bxio_(file|io)_[a-z_]+\(' xio/include/xio/xio.h | tr -d '(' | sort -u)
[ -n "$names" ] || { echo "no public file API found in $src/xio/include/xio/xio.h"; exit 1; }
files=$(find xio -name '*.c' ! -path xio/file.c ! -path xio/ctx.c | sort)
pattern=$(echo "$names" | paste -sd'|' -)
# Calls are indented; a definition starts at the line's start; comments are skipped.
# shellcheck disable=SC2086
found=$(grep -nE "^[[:space:]]+.*\b($pattern)\(" $files | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' || true)
if [ -n "$found" ]; then
  printf '%s\n' "$found" | sed 's/$/: a part of the file layer calls its public API/'
  exit 1
fi
echo "xio/: $(echo "$files" | wc -l) parts call down only ($(echo "$names" | wc -l) public functions)"
