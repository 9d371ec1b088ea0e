/*
 * table.c - a small table of text cells, printed as markdown (| a | b |) for
 * results.md or as aligned columns for the terminal, so both reports show the
 * same numbers laid out the same way.
 */
#include <string.h>

#include "bench.h"

void bench_table_init(bench_table *t, int ncols) {
  memset(t, 0, sizeof *t);
  t->ncols = ncols < BENCH_TABLE_COLS ? ncols : BENCH_TABLE_COLS;
}

char *bench_table_cell(bench_table *t, int row, int col) {
  static char scratch[BENCH_TABLE_CELL];
  if (row >= BENCH_TABLE_ROWS || col >= t->ncols) return scratch; /* dropped */
  if (row >= t->nrows) t->nrows = row + 1;
  return t->cells[row][col];
}

/* Display width: UTF-8 continuation bytes take no column. */
static int width(const char *s) {
  int w = 0;
  for (; *s; s++)
    w += ((unsigned char)*s & 0xC0) != 0x80;
  return w;
}

static void print_md(const bench_table *t, FILE *out) {
  for (int r = 0; r < t->nrows; r++) {
    fputc('|', out);
    for (int c = 0; c < t->ncols; c++)
      fprintf(out, " %s |", t->cells[r][c]);
    fputc('\n', out);
    if (r == 0) {
      fputc('|', out);
      for (int c = 0; c < t->ncols; c++)
        fputs(c ? "---:|" : "---|", out);
      fputc('\n', out);
    }
  }
}

static void print_text(const bench_table *t, FILE *out) {
  int w[BENCH_TABLE_COLS] = {0};
  for (int r = 0; r < t->nrows; r++)
    for (int c = 0; c < t->ncols; c++)
      if (width(t->cells[r][c]) > w[c]) w[c] = width(t->cells[r][c]);
  for (int r = 0; r < t->nrows; r++) {
    fputs("  ", out);
    for (int c = 0; c < t->ncols; c++) {
      const char *s = t->cells[r][c];
      int pad = w[c] - width(s);
      if (c == 0)
        fprintf(out, "%s%*s", s, pad, "");
      else
        fprintf(out, "  %*s%s", pad, "", s);
    }
    fputc('\n', out);
  }
}

void bench_table_print(const bench_table *t, int md, FILE *out) {
  if (md)
    print_md(t, out);
  else
    print_text(t, out);
}
