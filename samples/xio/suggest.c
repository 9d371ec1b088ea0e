/*
 * suggest.c - "did you mean": the name closest to a mistyped command, action or
 * option, by edit distance (insertions, deletions, substitutions and swaps of two
 * neighbours each count one, as git counts), offered only when it is close enough
 * to be the likely intent: at most two edits, and at most one per three characters
 * typed. The caller offers each name it knows and asks for the best.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "cli.h"

#define MAX_NAME 64 /* longer words are never matched */

static int min3(int a, int b, int c) {
  int m = a < b ? a : b;
  return m < c ? m : c;
}

/* The optimal string alignment distance between a[0..na) and b[0..nb). */
static int distance(const char *a, size_t na, const char *b, size_t nb) {
  int d[MAX_NAME + 1][MAX_NAME + 1];
  for (size_t i = 0; i <= na; i++)
    d[i][0] = (int)i;
  for (size_t j = 0; j <= nb; j++)
    d[0][j] = (int)j;
  for (size_t i = 1; i <= na; i++)
    for (size_t j = 1; j <= nb; j++) {
      int cost = a[i - 1] != b[j - 1];
      d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < d[i][j])
        d[i][j] = d[i - 2][j - 2] + 1;
    }
  return d[na][nb];
}

void cli_guess_init(cli_guess *g, const char *word) {
  g->word = word;
  g->len = strcspn(word, "="); /* an option's name, without "=value" */
  g->best = NULL;
  g->dist = 3; /* more than any guess offered */
}

void cli_guess_offer(cli_guess *g, const char *name) {
  size_t n = strlen(name);
  if (!name[0] || g->len > MAX_NAME || n > MAX_NAME) return;
  int d = distance(g->word, g->len, name, n);
  if (d > 0 && d < g->dist && (size_t)d * 3 <= g->len) {
    g->best = name;
    g->dist = d;
  }
}

const char *cli_guess_best(const cli_guess *g) { return g->best; }
