/*
 * extrapolate.c - init-zero times past the zero cap. Writing zeros costs time in
 * proportion to the bytes (and, on the emulator, memory), so sizes above the cap
 * are not run: their times are the cap's times scaled by size / cap, and their
 * requests the cap's with the zeroing requests (XIOTypeZeroFile) scaled the same
 * way. Such rows say "extrapolated" everywhere they are reported.
 */
#include <string.h>

#include "bench.h"

/* Copies the cap's measurement into `row`, scaled to row->size. */
static void scale(const bench_row *cap, bench_row *row) {
  double k = (double)row->size / (double)cap->size;
  row->runs = cap->runs;
  for (int i = 0; i < cap->runs; i++)
    row->times[i] = cap->times[i] * k;
  row->req = cap->req;
  int z = bench_type_zero();
  uint64_t zeros = (uint64_t)((double)cap->req.by_type[z] * k + 0.5);
  row->req.total = cap->req.total - cap->req.by_type[z] + zeros;
  row->req.by_type[z] = zeros;
  bench_row_summarize(row);
}

void bench_extrapolate(const bench_config *c, const char *backend, const char *op,
                       bench_results *r) {
  const bench_row *found = bench_results_find(r, backend, op, "zero", c->zero_cap);
  bench_row cap;
  memset(&cap, 0, sizeof cap);
  if (found) cap = *found; /* rows move when the list grows */
  char capsz[32];
  samples_fmt_size(c->zero_cap, capsz, sizeof capsz);
  for (int i = 0; i < c->nsizes; i++) {
    if (c->sizes[i] <= c->zero_cap) continue;
    bench_row *row = bench_results_add(r);
    row->kind = "growth";
    row->backend = backend;
    row->op = op;
    row->policy = "zero";
    row->size = c->sizes[i];
    if (!found || strcmp(cap.status, "ok") != 0 || cap.runs == 0) {
      row->status = "skipped";
      snprintf(row->note, sizeof row->note, "no zero-write rate measured at the %s cap", capsz);
      continue;
    }
    row->extrapolated = 1;
    scale(&cap, row);
    snprintf(row->note, sizeof row->note, "extrapolated linearly from the %s zero-write run",
             capsz);
  }
}
