#!/bin/sh
# message_match.sh - fails when the command-line programs under samples/ look for
# words in an error's message (strstr, strcasestr, strcmp, strncmp, strcasecmp,
# strncasecmp or memcmp with a `message` field among its arguments) to decide what
# to tell people: an error's code and reason say what went wrong, and its message is
# for people to read, so a library rewording a message must not change a hint.
#   message_match.sh SOURCE_DIR
# Looks at the C sources and headers under samples/ (comments and string literals
# left out; Azurite's node_modules too). Prints each offending call as FILE:LINE: TEXT and exits 1 if there is any.
set -eu
src=${1:?usage: message_match.sh SOURCE_DIR}
cd "$src"
files=$(find samples -name node_modules -prune -o -name '*.[ch]' -print | sort)
# shellcheck disable=SC2086
perl -e '
  my $bad = 0;
  for my $f (@ARGV) {
    open my $in, "<", $f or die "$f: $!";
    local $/;
    my $s = <$in>;
    my @text = split /\n/, $s, -1;
    # Blank out comments and literals, keeping newlines so line numbers hold.
    $s =~ s{(/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\x27(?:\\.|[^\x27\\\n])*\x27)}{
      my $t = $1; $t =~ s/[^\n]/ /g; $t }gse;
    # A call to one of the matchers, its arguments up to the parenthesis that closes it.
    while ($s =~ /\b(str(?:case)?str|strn?(?:case)?cmp|memcmp)\s*(\(((?:[^()]++|(?2))*)\))/gs) {
      my ($fn, $args, $at) = ($1, $3, $-[0]);
      next unless $args =~ /\bmessage\b/;
      my $line = 1 + (substr($s, 0, $at) =~ tr/\n//);
      (my $src = $text[$line - 1]) =~ s/^\s+//;
      print "$f:$line: $fn reads an error message (decide by the code and reason): $src\n";
      $bad = 1;
    }
  }
  exit $bad;
' $files
