# bash completion for xio, installed as share/bash-completion/completions/xio.
# The words come from xio itself: `xio __complete WORDS...` prints those that may
# follow WORDS (commands, a command's actions and options), from the tables its
# parser uses, so completion never drifts from the program. Where none fits (an
# argument, an option's value), file names are offered.

_xio() {
  local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n' w
  local -a words plain=()
  mapfile -t words < <("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null)
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${words[*]}" -- "$cur")
    return
  fi
  for w in "${words[@]}"; do
    [[ $w == -* ]] || plain+=("$w")
  done
  mapfile -t COMPREPLY < <(compgen -W "${plain[*]}" -- "$cur")
  if [ ${#COMPREPLY[@]} -eq 0 ]; then
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
complete -F _xio xio
