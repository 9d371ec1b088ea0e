#!/bin/sh
# bare_alloc.sh - fails when library or command-line code allocates or frees with the
# C library directly instead of through xio's seam (xio_malloc, xio_calloc,
# xio_realloc, xio_strdup, xio_strndup, xio_free in <xio/alloc.h>), which the
# allocation-failure tests and a program's own allocator depend on.
#   bare_alloc.sh SOURCE_DIR
# Looks at the C sources and headers under auth/, blobio/, xio/, samples/xio/,
# samples/backup/ and samples/testers/emulator/ (the libraries behind the command
# line's backups and its emulator), comments and string literals left out;
# auth/base/alloc.c is the seam itself.
# Prints each offending line as FILE:LINE: TEXT and exits 1 if there is any.
set -eu
src=${1:?usage: bare_alloc.sh SOURCE_DIR}
cd "$src"
files=$(find auth blobio xio samples/xio samples/backup samples/testers/emulator -name '*.[ch]' ! -path auth/base/alloc.c | sort)
# shellcheck disable=SC2086
perl -e '
  my $bad = 0;
  for my $f (@ARGV) {
    open my $in, "<", $f or die "$f: $!";
    local $/;
    my $s = <$in>;
    # Blank out comments and literals, keeping newlines so line numbers hold.
    $s =~ s{(/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\x27(?:\\.|[^\x27\\\n])*\x27)}{
      my $t = $1; $t =~ s/[^\n]/ /g; $t }gse;
    my @lines = split /\n/, $s, -1;
    for my $i (0 .. $#lines) {
      next unless $lines[$i] =~ /(?<![A-Za-z0-9_.>])(malloc|calloc|realloc|reallocarray|strdup|strndup|free|asprintf|vasprintf|aligned_alloc|posix_memalign)\s*\(/;
      print "$f:", $i + 1, ": $1() bypasses the allocation seam (use the xio_ functions of <xio/alloc.h>)\n";
      $bad = 1;
    }
  }
  exit $bad;
' $files
