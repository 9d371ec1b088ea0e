/*
 * bulk.c - bulk throughput through xio on the emulator: one file of --bulk-size
 * written, then read, in 4 MiB requests with 1, 4, 16, 64 of them in flight (the
 * context's max_in_flight set to match), reporting MiB/s and the client's CPU
 * seconds per GiB moved (getrusage: every thread of this process, so the REST
 * engine's I/O thread, checksums and copies included; the emulator's CPU is not).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench.h"

static double tv_seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

/* This process's user + system CPU seconds (all threads). */
static double cpu_seconds(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return tv_seconds(ru.ru_utime) + tv_seconds(ru.ru_stime);
}

typedef struct bulk_job {
  uint64_t size;
  size_t req;
  xio_io_op op;
  char *src; /* write payload, shared by every write */
  char *dst; /* read buffers, one per slot */
} bulk_job;

static int next_bulk(void *ud, uint64_t i, int slot, xio_io *io) {
  bulk_job *j = ud;
  uint64_t off = i * j->req;
  io->op = j->op;
  io->offset = off;
  io->length = j->size - off < j->req ? (size_t)(j->size - off) : j->req;
  io->buf = j->op == XIO_IO_WRITE ? j->src : j->dst + (size_t)slot * j->req;
  return 0;
}

/* Moves the whole file one way; `secs` and `cpu` cover the requests and a flush. */
static xio_err pass(bench_target *t, xio_file *f, bulk_job *j, int depth, double *secs, double *cpu,
                    bench_counts *req, xio_error *err) {
  samples_pump_result pr;
  uint64_t n = (j->size + j->req - 1) / j->req;
  bench_counter_reset(t->counter);
  double c0 = cpu_seconds(), t0 = samples_now();
  xio_err rc = samples_pump(f, depth, n, 0, next_bulk, j, &pr);
  if (rc == XIO_OK)
    rc = xio_file_flush(f, err);
  else
    *err = pr.error;
  *secs = samples_now() - t0;
  *cpu = cpu_seconds() - c0;
  bench_counter_get(t->counter, req);
  free(pr.lat_us);
  return rc;
}

static bench_row *new_row(bench_results *r, const bench_config *c, const char *op, int depth) {
  bench_row *row = bench_results_add(r);
  row->kind = "bulk";
  row->backend = "pageblob";
  row->op = op;
  row->size = c->bulk_size;
  row->io_size = c->bulk_request;
  row->depth = depth;
  return row;
}

static void fail(bench_row *w, bench_row *rd, xio_err rc, const xio_error *e) {
  char msg[600];
  w->status = rd->status = "failed";
  snprintf(w->note, sizeof w->note, "%s: %s", xio_err_name(rc),
           xio_error_format(e, msg, sizeof msg));
  memcpy(rd->note, w->note, sizeof rd->note);
}

/* One run at `depth`: create, write, read, delete. */
static xio_err one_run(bench_target *t, bulk_job *j, int depth, double cpu[2], bench_row *w,
                       bench_row *rd, xio_error *e) {
  char url[1200];
  bench_target_file(t, "bulk", url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.size = j->size;
  xio_file *f = NULL;
  xio_err rc = xio_file_open(t->ctx, url, &o, &f, e);
  j->op = XIO_IO_WRITE;
  if (rc == XIO_OK) rc = pass(t, f, j, depth, &w->times[w->runs], &cpu[0], &w->req, e);
  j->op = XIO_IO_READ;
  if (rc == XIO_OK) rc = pass(t, f, j, depth, &rd->times[rd->runs], &cpu[1], &rd->req, e);
  xio_file_close(f, NULL);
  if (f) xio_file_delete(t->ctx, url, NULL);
  return rc;
}

static void finish_row(bench_row *row, const double *cpu, uint64_t size) {
  double lo, hi, med;
  bench_row_summarize(row);
  bench_summarize(cpu, (size_t)row->runs, &lo, &med, &hi);
  double gib = (double)size / BENCH_GiB;
  row->mib_s = row->t_med > 0 ? (double)size / BENCH_MiB / row->t_med : 0;
  row->cpu_s_per_gib = gib > 0 ? med / gib : 0;
  char m[32];
  printf("  bulk %-5s in-flight %2d  %8.1f MiB/s  %.3f CPU s/GiB  (%s)\n", row->op, row->depth,
         row->mib_s, row->cpu_s_per_gib, samples_fmt_secs(row->t_med, m, sizeof m));
  fflush(stdout);
}

/* Every run at one depth, on a context made for that depth, into rows w and rd. */
static void at_depth(const bench_config *c, bench_emulator *em, bulk_job *j, int depth,
                     bench_row *w, bench_row *rd, bench_counts *tally) {
  double cpu_w[BENCH_MAX_RUNS], cpu_r[BENCH_MAX_RUNS];
  bench_target t;
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = bench_target_pageblob(&t, em, depth, c, &e);
  t.tally = tally;
  for (int i = 0; rc == XIO_OK && i < c->bulk_runs; i++) {
    char why[200];
    int ok = bench_target_reserve(&t, c->bulk_size, why, sizeof why, &e);
    if (ok < 0) rc = e.code;
    if (ok == 0) {
      w->status = rd->status = w->runs ? "ok" : "skipped";
      snprintf(w->note, sizeof w->note, "%s", why);
      snprintf(rd->note, sizeof rd->note, "%s", why);
    }
    if (ok <= 0) break;
    double cpu[2];
    rc = one_run(&t, j, depth, cpu, w, rd, &e);
    if (rc == XIO_OK) cpu_w[w->runs++] = cpu[0], cpu_r[rd->runs++] = cpu[1];
  }
  if (rc != XIO_OK) fail(w, rd, rc, &e);
  bench_target_close(&t);
  finish_row(w, cpu_w, c->bulk_size);
  finish_row(rd, cpu_r, c->bulk_size);
}

void bench_bulk(const bench_config *c, bench_emulator *em, bench_results *r) {
  int maxd = 1;
  for (int i = 0; i < c->ndepths; i++)
    maxd = c->depths[i] > maxd ? c->depths[i] : maxd;
  bulk_job j = {c->bulk_size, c->bulk_request, XIO_IO_WRITE, malloc(c->bulk_request),
                malloc((size_t)maxd * c->bulk_request)};
  if (!j.src || !j.dst) {
    fprintf(stderr, "xio-bench: out of memory for bulk buffers\n");
    exit(1);
  }
  bench_fill_random(j.src, j.req, c->seed);
  /* All write rows, then all read rows: each plotted line is one run of rows. */
  size_t base = r->n;
  for (int i = 0; i < c->ndepths; i++)
    new_row(r, c, "write", c->depths[i]);
  for (int i = 0; i < c->ndepths; i++)
    new_row(r, c, "read", c->depths[i]);
  for (int i = 0; i < c->ndepths; i++)
    at_depth(c, em, &j, c->depths[i], &r->rows[base + (size_t)i],
             &r->rows[base + (size_t)(c->ndepths + i)], bench_results_section(r, "bulk"));
  free(j.src);
  free(j.dst);
}
