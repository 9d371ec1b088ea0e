#!/usr/bin/env bash
# shell_test.sh - what `cmake --install` puts beside xio for shells and man: the bash
# completion (sourced, its function called as bash calls it, with COMP_WORDS), the
# zsh one (checked by zsh -n where zsh is installed, else by its first line and the
# word source it calls), and the man page (man -l renders it without a warning, with
# a section for every command xio lists, each with its example).
#   shell_test.sh BUILD_DIR
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
bash_comp=$tmp/prefix/share/bash-completion/completions/xio
zsh_comp=$tmp/prefix/share/zsh/site-functions/_xio
man_page=$tmp/prefix/share/man/man1/xio.1
[ -f "$bash_comp" ] || fail "no share/bash-completion/completions/xio installed"
[ -f "$zsh_comp" ] || fail "no share/zsh/site-functions/_xio installed"
[ -f "$man_page" ] ||
  fail "no share/man/man1/xio.1 installed (help2man makes it: scripts/install-deps.sh installs it)"
export PATH="$tmp/prefix/bin:$PATH"
commands=$(xio __complete help)
[ "$(echo "$commands" | wc -l)" -ge 16 ] || fail "xio __complete help lists: $commands"

# ---- bash: the completion function as bash calls it ----
# shellcheck disable=SC1090 # the installed script
source "$bash_comp"
complete -p xio | grep -q -- '-F _xio' || fail "the bash script binds no function to xio"
offered() { # offered WORD... : what _xio offers for the last word
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _xio
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
expect() { # expect "WANT" WORD...
  local want=$1 got
  shift
  got=$(offered "$@" | tr '\n' ' ')
  [ "$got" = "$want" ] || fail "completing '$*': got '$got', wanted '$want'"
}
mkdir "$tmp/work" && cd "$tmp/work" && : >local.mdf
expect "put " xio pu
expect "get grow " xio --json g
expect "--resume " xio put --res
expect "start status stop " xio emulator st
expect "acquire " xio lease acq
expect "--since " xio snapshot diff --si
expect "local.mdf " xio put --kind log lo  # an argument: a file
expect "local.mdf " xio put --kind ""      # an option's value: a file
MANWIDTH=100 man -l "$man_page" >"$tmp/man.txt" 2>"$tmp/man.err" || fail "man -l $man_page fails"
globals=$(xio __complete | grep -- '^-')
for c in $commands; do
  offered xio "$c" - >"$tmp/options"
  grep -qx -- --help "$tmp/options" || fail "no options offered for $c"
  # The command's own options (not the global ones) are those its help names: its
  # sections of the man page (the command's, and its actions').
  awk -v c="$c" '/^   [a-z]/ { on = ($1 == c) } on' "$tmp/man.txt" >"$tmp/help"
  { grep -vxF -- "$globals" "$tmp/options" || true; } | while read -r o; do
    grep -q -- "$o" "$tmp/help" || fail "$o is offered for $c, whose help does not name it"
  done
done

# ---- zsh ----
head -1 "$zsh_comp" | grep -qx '#compdef xio' || fail "_xio does not start with #compdef xio"
grep -q '__complete' "$zsh_comp" || fail "_xio does not ask xio __complete for its words"
if command -v zsh >/dev/null; then zsh -n "$zsh_comp" || fail "_xio: zsh -n refuses it"; fi

# ---- the man page ----
[ ! -s "$tmp/man.err" ] || fail "man -l warns: $(cat "$tmp/man.err")"
for c in $commands; do
  grep -q "^   $c\$" "$tmp/man.txt" || fail "the man page has no section for $c"
  grep -q "^ *usage: xio $c" "$tmp/man.txt" || fail "the man page lacks the usage of $c"
done
examples=$(grep -c '^ *Example:$' "$tmp/man.txt")
[ "$examples" -ge "$(echo "$commands" | wc -l)" ] || fail "the man page has $examples examples"
echo "completion and man page installed: $(echo "$commands" | wc -l) commands"
