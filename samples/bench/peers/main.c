/*
 * main.c - xio-peers: the tool the peer benchmark (bench.js, `make bench-peers`)
 * runs for everything that is not the client under test itself:
 *   xio-peers run --out FILE -- CMD ARGS...   wall, CPU and peak RSS of one process
 *   xio-peers mkfile random|frag PATH ...     the input files
 *   xio-peers seed LOCAL URL                  the blob a download case starts from
 *   xio-peers verify LOCAL URL                does the blob hold LOCAL's bytes?
 *   xio-peers randwrite URL ...               xio's 8 KiB random writes
 */
#include <string.h>

#include "peers.h"

static const struct {
  const char *name;
  int (*fn)(int, char **);
} commands[] = {{"run", peers_run},
                {"mkfile", peers_mkfile},
                {"seed", peers_seed},
                {"verify", peers_verify},
                {"randwrite", peers_randwrite}};

static int usage(FILE *to) {
  fprintf(to, "usage: xio-peers run --out FILE -- CMD [ARGS...]\n"
              "       xio-peers mkfile random PATH SIZE [--seed N]\n"
              "       xio-peers mkfile frag PATH PAGES [--seed N]\n"
              "       xio-peers seed LOCAL URL [--depth N]\n"
              "       xio-peers verify LOCAL URL\n"
              "       xio-peers randwrite URL --size SIZE --io SIZE --depth N --ops N "
              "[--seed N]\n"
              "The tool of the peer benchmark (make bench-peers); page-blob URLs take their\n"
              "credentials and CA bundle from the environment as the xio command does.\n");
  return to == stdout ? 0 : 2;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage(stderr);
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return usage(stdout);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 2, argv + 2);
  fprintf(stderr, "xio-peers: unknown command '%s'\n", argv[1]);
  return usage(stderr);
}
