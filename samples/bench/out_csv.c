/*
 * out_csv.c - results.csv: one row per measurement, every section in one table
 * (columns that do not apply to a row are empty). plot.gp and the tests read it.
 */
#include <string.h>

#include "bench.h"

static const char header[] =
    "kind,backend,op,policy,size_bytes,size,io_bytes,depth,runs,min_s,median_s,max_s,"
    "requests,request_types,extrapolated,status,mib_s,cpu_s_per_gib,iops,p50_us,p99_us,note\n";

/* A text field, quoted when it holds a comma, a quote or a line break. */
static void field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s == '\r' || *s == '\n' ? ' ' : *s, f);
  }
  fputc('"', f);
}

/* A number, or nothing when `show` is 0. */
static void num(FILE *f, int show, double v) {
  if (show) fprintf(f, "%.9g", v);
  fputc(',', f);
}

static void row_out(FILE *f, const bench_row *w) {
  char size[32], types[512];
  int timed = w->runs > 0;
  int bulk = strcmp(w->kind, "bulk") == 0, rnd = strcmp(w->kind, "random") == 0;
  fprintf(f, "%s,%s,%s,%s,%llu,%s,", w->kind, w->backend, w->op, w->policy,
          (unsigned long long)w->size, samples_fmt_size(w->size, size, sizeof size));
  num(f, w->io_size > 0, (double)w->io_size);
  num(f, w->depth > 0, w->depth);
  fprintf(f, "%d,", w->runs);
  num(f, timed, w->t_min);
  num(f, timed, w->t_med);
  num(f, timed, w->t_max);
  num(f, timed, (double)w->req.total);
  field(f, timed ? bench_counts_detail(&w->req, types, sizeof types) : "");
  fprintf(f, ",%d,%s,", w->extrapolated, w->status);
  num(f, timed && bulk, w->mib_s);
  num(f, timed && bulk, w->cpu_s_per_gib);
  num(f, timed && rnd, w->iops);
  num(f, timed && rnd, w->p50_us);
  num(f, timed && rnd, w->p99_us);
  field(f, w->note);
  fputc('\n', f);
}

int bench_write_csv(const bench_report *rep, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    return 1;
  }
  fputs(header, f);
  for (size_t i = 0; i < rep->res->n; i++)
    row_out(f, &rep->res->rows[i]);
  return fclose(f) == 0 ? 0 : 1;
}
