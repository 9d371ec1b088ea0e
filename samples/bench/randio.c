/*
 * randio.c - small random I/O through xio on the emulator: 8 KiB reads and writes
 * at random aligned offsets of a 256 MiB file (written in full first, so reads
 * return stored pages rather than never-written space), at queue depth 1 and 32,
 * each for a fixed time (--random-seconds) or count (--random-ops); reads, writes or
 * both (--random-kinds). Reports IOPS and
 * the 50th and 99th percentile of per-request latency (submit to completion
 * callback).
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define PREFILL_DEPTH 16
#define WRITE_BUDGET  (256 * BENCH_MiB) /* emulator memory one write measurement may use */

typedef struct rand_job {
  xio_io_op op;
  uint64_t nblocks;
  size_t io;
  uint64_t rng;
  char *src; /* write payload (io bytes; prefill: 4 MiB) */
  char *dst; /* read buffers, one per slot */
  uint64_t file_size;
} rand_job;

static int next_random(void *ud, uint64_t i, int slot, xio_io *io) {
  rand_job *j = ud;
  (void)i;
  io->op = j->op;
  io->offset = bench_rand(&j->rng) % j->nblocks * j->io;
  io->length = j->io;
  io->buf = j->op == XIO_IO_WRITE ? j->src : j->dst + (size_t)slot * j->io;
  return 0;
}

static int next_prefill(void *ud, uint64_t i, int slot, xio_io *io) {
  rand_job *j = ud;
  uint64_t off = i * (4 * BENCH_MiB);
  (void)slot;
  io->op = XIO_IO_WRITE;
  io->offset = off;
  io->length = j->file_size - off < 4 * BENCH_MiB ? (size_t)(j->file_size - off) : 4 * BENCH_MiB;
  io->buf = j->src;
  return 0;
}

static uint64_t write_ops_cap(const bench_config *c) {
  uint64_t cap = WRITE_BUDGET / c->random_io;
  return c->random_ops < cap ? c->random_ops : cap;
}

static void fail_row(bench_row *row, xio_err rc, const xio_error *e) {
  char msg[600];
  row->status = "failed";
  snprintf(row->note, sizeof row->note, "%s: %s", xio_err_name(rc),
           xio_error_format(e, msg, sizeof msg));
}

static void report(bench_row *row, samples_pump_result *pr) {
  bench_sort(pr->lat_us, (size_t)pr->ops);
  row->ops = pr->ops;
  row->runs = 1;
  row->times[0] = pr->seconds;
  bench_row_summarize(row);
  row->iops = pr->seconds > 0 ? (double)pr->ops / pr->seconds : 0;
  row->p50_us = bench_quantile(pr->lat_us, (size_t)pr->ops, 0.50);
  row->p99_us = bench_quantile(pr->lat_us, (size_t)pr->ops, 0.99);
  printf("  %-9s QD %2d  %8.0f IOPS  p50 %7.0f us  p99 %7.0f us  (%llu requests)\n", row->op,
         row->depth, row->iops, row->p50_us, row->p99_us, (unsigned long long)row->ops);
  fflush(stdout);
}

/* One measurement: `op` at `depth` on the prepared file. */
static void measure(const bench_config *c, bench_target *t, xio_file *f, rand_job *j, xio_io_op op,
                    int depth, bench_results *r) {
  bench_row *row = bench_results_add(r);
  row->kind = "random";
  row->backend = t->backend;
  row->op = op == XIO_IO_READ ? "randread" : "randwrite";
  row->size = c->random_file;
  row->io_size = c->random_io;
  row->depth = depth;
  j->op = op;
  uint64_t cap = op == XIO_IO_WRITE ? write_ops_cap(c) : c->random_ops;
  samples_pump_result pr;
  bench_counter_reset(t->counter);
  xio_err rc = samples_pump(f, depth, cap, c->random_seconds, next_random, j, &pr);
  bench_counter_get(t->counter, &row->req);
  if (rc != XIO_OK)
    fail_row(row, rc, &pr.error);
  else
    report(row, &pr);
  free(pr.lat_us);
}

/* Creates the file and writes all of it. */
static xio_err prepare(const bench_config *c, bench_target *t, rand_job *j, const char *url,
                       xio_file **f, xio_error *e) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.size = c->random_file;
  xio_err rc = xio_file_open(t->ctx, url, &o, f, e);
  if (rc != XIO_OK) return rc;
  samples_pump_result pr;
  uint64_t n = (c->random_file + 4 * BENCH_MiB - 1) / (4 * BENCH_MiB);
  rc = samples_pump(*f, PREFILL_DEPTH, n, 0, next_prefill, j, &pr);
  if (rc != XIO_OK) *e = pr.error;
  free(pr.lat_us);
  return rc == XIO_OK ? xio_file_flush(*f, e) : rc;
}

static void run_all(const bench_config *c, bench_target *t, xio_file *f, rand_job *j,
                    bench_results *r) {
  xio_io_op ops[2] = {XIO_IO_READ, XIO_IO_WRITE};
  int on[2] = {c->do_randread, c->do_randwrite};
  for (int o = 0; o < 2; o++)
    for (int d = 0; d < c->nrandom_depths && on[o]; d++)
      measure(c, t, f, j, ops[o], c->random_depths[d], r);
}

static void skip_all(const bench_config *c, bench_results *r, const char *status, const char *why) {
  const char *ops[2] = {"randread", "randwrite"};
  int on[2] = {c->do_randread, c->do_randwrite};
  for (int o = 0; o < 2; o++)
    for (int d = 0; d < c->nrandom_depths && on[o]; d++) {
      bench_row *row = bench_results_add(r);
      row->kind = "random";
      row->backend = "pageblob";
      row->op = ops[o];
      row->size = c->random_file;
      row->io_size = c->random_io;
      row->depth = c->random_depths[d];
      row->status = status;
      snprintf(row->note, sizeof row->note, "%s", why);
    }
}

void bench_random(const bench_config *c, bench_emulator *em, bench_results *r) {
  int maxd = 1;
  for (int i = 0; i < c->nrandom_depths; i++)
    maxd = c->random_depths[i] > maxd ? c->random_depths[i] : maxd;
  rand_job j = {XIO_IO_READ,           c->random_file / c->random_io,       c->random_io,  c->seed,
                malloc(4 * BENCH_MiB), malloc((size_t)maxd * c->random_io), c->random_file};
  bench_target t;
  memset(&t, 0, sizeof t);
  xio_error e;
  char why[600] = "";
  xio_error_clear(&e);
  xio_err rc = !j.src || !j.dst ? xio_error_set(&e, XIO_ENOMEM, "out of memory")
                                : bench_target_pageblob(&t, em, maxd, c, &e);
  t.tally = bench_results_section(r, "random");
  uint64_t need = c->random_file + (uint64_t)c->nrandom_depths * write_ops_cap(c) * c->random_io;
  int ok = rc == XIO_OK ? bench_target_reserve(&t, need, why, sizeof why, &e) : -1;
  char url[1200];
  xio_file *f = NULL;
  if (ok > 0) {
    bench_fill_random(j.src, 4 * BENCH_MiB, c->seed + 1);
    bench_target_file(&t, "random", url, sizeof url);
    rc = prepare(c, &t, &j, url, &f, &e);
  }
  if (ok > 0 && rc == XIO_OK)
    run_all(c, &t, f, &j, r);
  else if (ok == 0)
    skip_all(c, r, "skipped", why);
  else
    skip_all(c, r, "failed", xio_error_format(&e, why, sizeof why));
  if (f) xio_file_close(f, NULL), xio_file_delete(t.ctx, url, NULL);
  bench_target_close(&t);
  free(j.src);
  free(j.dst);
}
