/*
 * results.c - the rows every section appends to: one row per measured (or derived,
 * or skipped) combination, in the order the reports print them; and per section
 * the page-blob requests and the tries refused on the way.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const char *const bench_section_names[BENCH_SECTIONS] = {"growth", "bulk", "random", "append"};

bench_counts *bench_results_section(bench_results *r, const char *name) {
  int i = 0;
  while (i < BENCH_SECTIONS - 1 && strcmp(bench_section_names[i], name) != 0)
    i++;
  r->measured[i] = 1;
  return &r->sections[i];
}

bench_row *bench_results_add(bench_results *r) {
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 64;
    bench_row *rows = realloc(r->rows, cap * sizeof *rows);
    if (!rows) {
      fprintf(stderr, "xio-bench: out of memory\n");
      exit(1);
    }
    r->rows = rows;
    r->cap = cap;
  }
  bench_row *row = &r->rows[r->n++];
  memset(row, 0, sizeof *row);
  row->status = "ok";
  row->policy = "";
  return row;
}

const bench_row *bench_results_find(const bench_results *r, const char *backend, const char *op,
                                    const char *policy, uint64_t size) {
  for (size_t i = 0; i < r->n; i++) {
    const bench_row *w = &r->rows[i];
    if (strcmp(w->kind, "growth") == 0 && strcmp(w->backend, backend) == 0 &&
        strcmp(w->op, op) == 0 && strcmp(w->policy, policy) == 0 && w->size == size)
      return w;
  }
  return NULL;
}

int bench_row_usable(const bench_row *w) {
  return w && strcmp(w->status, "ok") == 0 && w->runs > 0;
}

int bench_results_failed(const bench_results *r) {
  int n = 0;
  for (size_t i = 0; i < r->n; i++)
    n += strcmp(r->rows[i].status, "failed") == 0;
  return n;
}

void bench_results_free(bench_results *r) {
  free(r->rows);
  memset(r, 0, sizeof *r);
}

void bench_row_summarize(bench_row *row) {
  bench_summarize(row->times, (size_t)row->runs, &row->t_min, &row->t_med, &row->t_max);
}
