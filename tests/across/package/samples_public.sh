#!/bin/sh
# samples_public.sh - fails when a program under samples/ reaches below the public
# API: an include of a header the install does not ship (an internal *_int.h of the
# libraries) or of the page-blob client's headers (<xio/blob*.h>), or a use of the
# libraries' internal prefix xio__ / XIO__. Programs stand where an engine author
# stands: on the installed headers of the file layer and the shared base.
#   samples_public.sh SOURCE_DIR
# Prints each offence as FILE:LINE: TEXT and exits 1 if there is any.
set -eu
src=${1:?usage: samples_public.sh SOURCE_DIR}
cd "$src"
allowed='xio.h credentials.h entra_sources.h auth.h alloc.h base.h error.h entra.h'
bad=0
files=$(find samples -name node_modules -prune -o -name '*.[ch]' -print | sort)
[ -n "$files" ] || { echo "no sources under $src/samples"; exit 1; }
# shellcheck disable=SC2086
includes=$(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]xio/' $files || true)
echo "$includes" | { found=0; while IFS= read -r line; do
  [ -n "$line" ] || continue
  h=$(printf '%s\n' "$line" | sed -E 's/.*[<"]xio\/([^>"]+)[>"].*/\1/')
  case " $allowed " in
    *" $h "*) ;;
    *) echo "$line: <xio/$h> is not a public header of the file layer or the shared base"
       found=1 ;;
  esac
done; exit "$found"; } || bad=1
# A quoted include names one of the samples' own headers (or a system one).
# shellcheck disable=SC2086
quoted=$(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+_int\.h"' $files || true)
for h in $(printf '%s\n' "$quoted" | sed -nE 's/.*"([^"]+)".*/\1/p' | sort -u); do
  if [ -z "$(find samples -name "$h")" ]; then
    printf '%s\n' "$quoted" | grep "\"$h\"" | sed "s/\$/: $h is a library's internal header/"
    bad=1
  fi
done
# shellcheck disable=SC2086
prefix=$(grep -n -E '\b(xio__|XIO__)[A-Za-z0-9_]' $files || true)
if [ -n "$prefix" ]; then
  printf '%s\n' "$prefix" | sed 's/$/: the libraries'"'"' internal prefix xio__/'
  bad=1
fi
[ "$bad" = 0 ] && echo "samples/: $(echo "$files" | wc -l) sources on the public headers only"
exit "$bad"
