#!/usr/bin/env bash
# The format check: every C source and header the `make format` target covers (the
# tracked *.c and *.h files) is already as clang-format 14 lays it out under the
# project's .clang-format, so drift fails the tests instead of piling up.
#   check.sh SOURCE_DIR
# Fails loudly, naming the problem, when clang-format 14 is missing (scripts/install-deps.sh
# installs it from Debian), when SOURCE_DIR is not a git work tree, or when a file drifts
# (clang-format's own messages name the file, line and column; `make format` fixes it).
set -euo pipefail
src=${1:?usage: check.sh SOURCE_DIR}

fmt=""
for c in clang-format-14 clang-format; do
  if command -v "$c" >/dev/null 2>&1; then fmt=$c; break; fi
done
if [ -z "$fmt" ]; then
  echo "format check: clang-format not found; run scripts/install-deps.sh (Debian clang-format)" >&2
  exit 1
fi
version=$("$fmt" --version)
case "$version" in
  *"version 14."*) ;;
  *) echo "format check: needs clang-format 14 (the layout differs between versions), found: $version" >&2
     exit 1 ;;
esac

if ! files=$(git -C "$src" ls-files '*.c' '*.h'); then
  echo "format check: $src is not a git work tree, so the files to check are unknown" >&2
  exit 1
fi
[ -n "$files" ] || { echo "format check: no C files found under $src" >&2; exit 1; }
count=$(printf '%s\n' "$files" | wc -l)

cd "$src"
if ! printf '%s\n' "$files" | xargs "$fmt" --dry-run -Werror; then
  echo "format check: files above drift from .clang-format; run make format" >&2
  exit 1
fi
echo "format check: $count files match .clang-format"
