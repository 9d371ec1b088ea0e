/*
 * report_tables.c - the tables both reports print: per backend and operation, time
 * by size and init policy with the zero/clear ratio and the requests each run
 * sent; then bulk throughput and random I/O. Extrapolated entries carry a "*"
 * and a footnote; skipped and failed ones say why under the table.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const char *bench_op_title(const char *op) {
  if (strcmp(op, "create") == 0) return "create a file of SIZE (open CREATE_ONLY with size)";
  if (strcmp(op, "grow") == 0) return "grow an 8 MiB file by SIZE (set_size)";
  return "zero SIZE of an existing file (xio_file_zero)";
}

const char *bench_backend_title(const bench_report *rep, const char *backend, char *buf, size_t n) {
  if (strcmp(backend, "pageblob") == 0 && rep->ctx->target[0])
    snprintf(buf, n, "page blob on the target account");
  else if (strcmp(backend, "pageblob") == 0)
    snprintf(buf, n, "page blob on Azurite (emulator)");
  else
    snprintf(buf, n, "local file (%s)", rep->ctx->local_fs ? rep->ctx->local_fs : "?");
  return buf;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The distinct sizes of growth rows of backend/op, ascending. */
static int sizes_of(const bench_results *r, const char *backend, const char *op, uint64_t *out) {
  int n = 0;
  for (size_t i = 0; i < r->n && n < BENCH_MAX_SIZES + 1; i++) {
    const bench_row *w = &r->rows[i];
    if (strcmp(w->kind, "growth") != 0 || strcmp(w->backend, backend) != 0 ||
        strcmp(w->op, op) != 0)
      continue;
    int seen = 0;
    for (int k = 0; k < n; k++)
      seen |= out[k] == w->size;
    if (!seen) out[n++] = w->size;
  }
  qsort(out, (size_t)n, sizeof *out, cmp_u64);
  return n;
}

/* The extrapolation mark: escaped in markdown, where a bare "*" may start emphasis. */
static const char *mark(const bench_row *w, int md) {
  return !w->extrapolated ? "" : md ? "\\*" : "*";
}

/* A time cell: the median (md: with min and max), marked when extrapolated. */
static void time_cell(const bench_row *w, int md, char *out) {
  char a[32], b[32], c[32];
  if (!w)
    snprintf(out, BENCH_TABLE_CELL, "n/a");
  else if (!bench_row_usable(w))
    snprintf(out, BENCH_TABLE_CELL, "%s", w->status);
  else if (md && w->runs > 1)
    snprintf(out, BENCH_TABLE_CELL, "%s (%s – %s)%s%s", samples_fmt_secs(w->t_med, a, sizeof a),
             samples_fmt_secs(w->t_min, b, sizeof b), samples_fmt_secs(w->t_max, c, sizeof c),
             w->extrapolated ? " " : "", mark(w, md));
  else
    snprintf(out, BENCH_TABLE_CELL, "%s%s%s", samples_fmt_secs(w->t_med, a, sizeof a),
             w->extrapolated ? " " : "", mark(w, md));
}

static void ratio_cell(const bench_row *zero, const bench_row *clear, int md, char *out) {
  char r[32];
  if (!bench_row_usable(zero) || !bench_row_usable(clear) || clear->t_med <= 0)
    snprintf(out, BENCH_TABLE_CELL, "-");
  else
    snprintf(out, BENCH_TABLE_CELL, "%s%s%s",
             samples_fmt_ratio(zero->t_med / clear->t_med, r, sizeof r),
             zero->extrapolated ? " " : "", mark(zero, md));
}

static void requests_cell(const bench_row *const w[3], int first, int md, char *out) {
  size_t used = 0;
  out[0] = '\0';
  for (int p = first; p < 3; p++) {
    char one[32];
    if (bench_row_usable(w[p]))
      snprintf(one, sizeof one, "%llu%s", (unsigned long long)w[p]->req.total, mark(w[p], md));
    else
      snprintf(one, sizeof one, "-");
    int k = snprintf(out + used, BENCH_TABLE_CELL - used, "%s%s", p > first ? " / " : "", one);
    if (k > 0 && (size_t)k < BENCH_TABLE_CELL - used) used += (size_t)k;
  }
}

static void header(bench_table *t, int first) {
  int col = 0;
  snprintf(bench_table_cell(t, 0, col++), BENCH_TABLE_CELL, "size");
  for (int p = first; p < 3; p++)
    snprintf(bench_table_cell(t, 0, col++), BENCH_TABLE_CELL, "%s", bench_policies[p]);
  snprintf(bench_table_cell(t, 0, col++), BENCH_TABLE_CELL, "zero ÷ clear");
  snprintf(bench_table_cell(t, 0, col), BENCH_TABLE_CELL, "requests %s",
           first ? "zero / clear" : "none / zero / clear");
}

/* Footnotes: the extrapolation, and why entries were skipped or failed. */
static void footnotes(const bench_report *rep, const char *backend, const char *op, int md,
                      FILE *out) {
  const char *pre = md ? "- " : "    ";
  const bench_row *cap = bench_results_find(rep->res, backend, op, "zero", rep->cfg->zero_cap);
  int extrap = 0;
  for (size_t i = 0; i < rep->res->n; i++) {
    const bench_row *w = &rep->res->rows[i];
    if (strcmp(w->kind, "growth") != 0 || strcmp(w->backend, backend) != 0 ||
        strcmp(w->op, op) != 0)
      continue;
    extrap |= w->extrapolated;
    char s[32];
    int ok = strcmp(w->status, "ok") == 0;
    if (!ok || (w->note[0] && !w->extrapolated))
      fprintf(out, "%s%s %s: %s%s%s\n", pre, w->policy, samples_fmt_size(w->size, s, sizeof s),
              ok ? "" : w->status, !ok && w->note[0] ? ": " : "", w->note);
  }
  if (extrap && bench_row_usable(cap)) {
    char s[32];
    fprintf(out,
            "%s%s extrapolated: not run; the zero-write time measured at %s (%.0f MiB/s) "
            "scaled linearly to the size, and its zeroing requests likewise\n",
            pre, md ? "\\*" : "*", samples_fmt_size(cap->size, s, sizeof s),
            (double)cap->size / BENCH_MiB / cap->t_med);
  }
}

void bench_growth_table(const bench_report *rep, const char *backend, const char *op, int md,
                        FILE *out) {
  uint64_t sizes[BENCH_MAX_SIZES + 1] = {0};
  int n = sizes_of(rep->res, backend, op, sizes);
  if (n == 0) return;
  bench_table *t = malloc(sizeof *t);
  if (!t) return;
  int first = strcmp(op, "zero") == 0; /* zero-range: no "none" */
  bench_table_init(t, 3 + (3 - first));
  header(t, first);
  for (int i = 0; i < n; i++) {
    const bench_row *w[3];
    for (int p = 0; p < 3; p++)
      w[p] = bench_results_find(rep->res, backend, op, bench_policies[p], sizes[i]);
    int col = 0;
    samples_fmt_size(sizes[i], bench_table_cell(t, i + 1, col++), BENCH_TABLE_CELL);
    for (int p = first; p < 3; p++)
      time_cell(w[p], md, bench_table_cell(t, i + 1, col++));
    ratio_cell(w[1], w[2], md, bench_table_cell(t, i + 1, col++));
    requests_cell(w, first, md, bench_table_cell(t, i + 1, col));
  }
  char title[64];
  if (md)
    fprintf(out, "\n### %s: %s\n\n", bench_backend_title(rep, backend, title, sizeof title),
            bench_op_title(op));
  else
    fprintf(out, "\n%s: %s\n", bench_backend_title(rep, backend, title, sizeof title),
            bench_op_title(op));
  bench_table_print(t, md, out);
  if (md) fputc('\n', out);
  footnotes(rep, backend, op, md, out);
  free(t);
}

static const bench_row *find_io(const bench_results *r, const char *kind, const char *op,
                                int depth) {
  for (size_t i = 0; i < r->n; i++) {
    const bench_row *w = &r->rows[i];
    if (strcmp(w->kind, kind) == 0 && strcmp(w->op, op) == 0 && w->depth == depth) return w;
  }
  return NULL;
}

static void rate_cell(const bench_row *w, double v, const char *fmt, char *out) {
  if (!w)
    snprintf(out, BENCH_TABLE_CELL, "n/a");
  else if (!bench_row_usable(w))
    snprintf(out, BENCH_TABLE_CELL, "%s", w->status);
  else
    snprintf(out, BENCH_TABLE_CELL, fmt, v);
}

static void io_notes(const bench_results *r, const char *kind, int md, FILE *out) {
  for (size_t i = 0; i < r->n; i++) {
    const bench_row *w = &r->rows[i];
    if (strcmp(w->kind, kind) == 0 && w->note[0])
      fprintf(out, "%s%s depth %d: %s: %s\n", md ? "- " : "    ", w->op, w->depth, w->status,
              w->note);
  }
}

void bench_bulk_table(const bench_report *rep, int md, FILE *out) {
  const bench_config *c = rep->cfg;
  if (!find_io(rep->res, "bulk", "write", c->depths[0])) return;
  bench_table t;
  bench_table_init(&t, 7);
  const char *head[7] = {"in flight",      "write MiB/s",       "read MiB/s",     "write CPU s/GiB",
                         "read CPU s/GiB", "requests per pass", "throttled (w/r)"};
  for (int k = 0; k < 7; k++)
    snprintf(bench_table_cell(&t, 0, k), BENCH_TABLE_CELL, "%s", head[k]);
  for (int i = 0; i < c->ndepths; i++) {
    const bench_row *w = find_io(rep->res, "bulk", "write", c->depths[i]);
    const bench_row *rd = find_io(rep->res, "bulk", "read", c->depths[i]);
    snprintf(bench_table_cell(&t, i + 1, 0), BENCH_TABLE_CELL, "%d", c->depths[i]);
    rate_cell(w, w ? w->mib_s : 0, "%.1f", bench_table_cell(&t, i + 1, 1));
    rate_cell(rd, rd ? rd->mib_s : 0, "%.1f", bench_table_cell(&t, i + 1, 2));
    rate_cell(w, w ? w->cpu_s_per_gib : 0, "%.3f", bench_table_cell(&t, i + 1, 3));
    rate_cell(rd, rd ? rd->cpu_s_per_gib : 0, "%.3f", bench_table_cell(&t, i + 1, 4));
    rate_cell(w, w ? (double)w->req.total : 0, "%.0f", bench_table_cell(&t, i + 1, 5));
    snprintf(bench_table_cell(&t, i + 1, 6), BENCH_TABLE_CELL, "%llu/%llu",
             (unsigned long long)(w ? w->req.throttled : 0),
             (unsigned long long)(rd ? rd->req.throttled : 0));
  }
  char s[32], q[32];
  fprintf(out,
          md ? "\n### Bulk I/O on a page blob (Azurite): %s written, then read, in %s requests\n\n"
             : "\nbulk I/O on a page blob (Azurite): %s written, then read, in %s requests\n",
          samples_fmt_size(c->bulk_size, s, sizeof s),
          samples_fmt_size(c->bulk_request, q, sizeof q));
  bench_table_print(&t, md, out);
  if (md) fputc('\n', out);
  io_notes(rep->res, "bulk", md, out);
}

void bench_random_table(const bench_report *rep, int md, FILE *out) {
  const bench_config *c = rep->cfg;
  const char *ops[2] = {"randread", "randwrite"};
  bench_table t;
  bench_table_init(&t, 7);
  const char *head[7] = {"op",          "queue depth", "IOPS",     "p50 latency",
                         "p99 latency", "requests",    "throttled"};
  for (int k = 0; k < 7; k++)
    snprintf(bench_table_cell(&t, 0, k), BENCH_TABLE_CELL, "%s", head[k]);
  int row = 1, on[2] = {c->do_randread, c->do_randwrite};
  for (int o = 0; o < 2; o++)
    for (int d = 0; d < c->nrandom_depths && on[o]; d++, row++) {
      const bench_row *w = find_io(rep->res, "random", ops[o], c->random_depths[d]);
      if (!w) return;
      snprintf(bench_table_cell(&t, row, 0), BENCH_TABLE_CELL, "%s", o ? "write" : "read");
      snprintf(bench_table_cell(&t, row, 1), BENCH_TABLE_CELL, "%d", w->depth);
      rate_cell(w, w->iops, "%.0f", bench_table_cell(&t, row, 2));
      rate_cell(w, w->p50_us / 1000, "%.2f ms", bench_table_cell(&t, row, 3));
      rate_cell(w, w->p99_us / 1000, "%.2f ms", bench_table_cell(&t, row, 4));
      rate_cell(w, (double)w->ops, "%.0f", bench_table_cell(&t, row, 5));
      snprintf(bench_table_cell(&t, row, 6), BENCH_TABLE_CELL, "%llu",
               (unsigned long long)w->req.throttled);
    }
  char s[32], q[32];
  fprintf(out,
          md ? "\n### Random I/O on a page blob (Azurite): %s requests at random aligned offsets "
               "of a %s file, %.1f s each\n\n"
             : "\nrandom I/O on a page blob (Azurite): %s requests at random aligned offsets of a "
               "%s file, %.1f s each\n",
          samples_fmt_size(c->random_io, s, sizeof s),
          samples_fmt_size(c->random_file, q, sizeof q), c->random_seconds);
  bench_table_print(&t, md, out);
  if (md) fputc('\n', out);
  io_notes(rep->res, "random", md, out);
}

const char *bench_pacing_name(xio_pacing p) {
  return p == XIO_PACING_ON ? "on" : p == XIO_PACING_OFF ? "off" : "auto";
}

/* The pacing a run used, in words. */
static void pacing_words(const bench_config *c, char *out, size_t n) {
  char r[32];
  if (c->max_rate_bps > 0)
    snprintf(out, n, "pacing %s, at most %s/s per blob", bench_pacing_name(c->pacing),
             samples_fmt_size((uint64_t)c->max_rate_bps, r, sizeof r));
  else
    snprintf(out, n, "pacing %s%s", bench_pacing_name(c->pacing),
             c->pacing == XIO_PACING_AUTO ? " (on for --target, off for the emulator)" : "");
}

void bench_throttling_table(const bench_report *rep, int md, FILE *out) {
  const bench_results *r = rep->res;
  bench_table t;
  bench_table_init(&t, 6);
  const char *head[6] = {"section",     "requests",           "throttled tries",
                         "throttled %", "other failed tries", "retries"};
  for (int k = 0; k < 6; k++)
    snprintf(bench_table_cell(&t, 0, k), BENCH_TABLE_CELL, "%s", head[k]);
  int row = 1;
  for (int i = 0; i < BENCH_SECTIONS; i++) {
    if (!r->measured[i]) continue;
    const bench_counts *k = &r->sections[i];
    uint64_t tries = k->total + k->throttled + k->failed;
    snprintf(bench_table_cell(&t, row, 0), BENCH_TABLE_CELL, "%s", bench_section_names[i]);
    snprintf(bench_table_cell(&t, row, 1), BENCH_TABLE_CELL, "%llu", (unsigned long long)k->total);
    snprintf(bench_table_cell(&t, row, 2), BENCH_TABLE_CELL, "%llu",
             (unsigned long long)k->throttled);
    snprintf(bench_table_cell(&t, row, 3), BENCH_TABLE_CELL, "%.1f",
             tries ? 100.0 * (double)k->throttled / (double)tries : 0.0);
    snprintf(bench_table_cell(&t, row, 4), BENCH_TABLE_CELL, "%llu", (unsigned long long)k->failed);
    snprintf(bench_table_cell(&t, row++, 5), BENCH_TABLE_CELL, "%llu",
             (unsigned long long)k->retries);
  }
  if (row == 1) return;
  char how[128];
  pacing_words(rep->cfg, how, sizeof how);
  fprintf(out,
          md ? "\n### Throttling answers on page blobs, per section (%s)\n\n"
             : "\nthrottling answers on page blobs, per section (%s)\n",
          how);
  bench_table_print(&t, md, out);
  fprintf(out,
          "%sthrottled: tries answered 503 ServerBusy or 500 OperationTimedOut, as a share "
          "of all tries\n",
          md ? "\n" : "    ");
}
