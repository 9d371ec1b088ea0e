/*
 * growth.c - the headline measurements: what it costs to make file space that
 * reads as zeros, by init policy, for sizes up to a terabyte.
 *   create  xio_file_open(CREATE_ONLY, size SIZE, init)
 *   grow    an 8 MiB file grown to 8 MiB + SIZE with xio_file_set_size(init)
 *   zero    xio_file_zero over SIZE of an existing SIZE file (zero or clear)
 * Each run times the operation and a flush (local files: fdatasync, so written
 * zeros count only once they are on disk), counts its storage requests, then
 * closes and deletes the file outside the timed part. Init-zero runs past the
 * zero cap are not run; extrapolate.c derives them from the cap's measurement.
 */
#include <inttypes.h>
#include <string.h>

#include "bench.h"

const char *const bench_growth_ops[3] = {"create", "grow", "zero"};
const char *const bench_policies[3] = {"none", "zero", "clear"};

int bench_policy_applies(const char *op, const char *policy) {
  return strcmp(op, "zero") != 0 || strcmp(policy, "none") != 0;
}

static xio_init init_of(const char *policy) {
  if (strcmp(policy, "zero") == 0) return XIO_INIT_ZERO;
  if (strcmp(policy, "clear") == 0) return XIO_INIT_CLEAR;
  return XIO_INIT_NONE;
}

static xio_err create(bench_target *t, const char *url, uint64_t size, xio_init init, xio_file **f,
                      xio_error *err) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.kind = init == XIO_INIT_NONE ? XIO_KIND_DATA : XIO_KIND_LOG;
  o.size = size;
  o.init = init;
  return xio_file_open(t->ctx, url, &o, f, err);
}

/* The untimed setup: the file that grow and zero start from. */
static xio_err setup(bench_target *t, const char *op, const char *url, uint64_t size, xio_file **f,
                     xio_error *err) {
  if (strcmp(op, "grow") == 0) return create(t, url, BENCH_GROW_BASE, XIO_INIT_NONE, f, err);
  if (strcmp(op, "zero") == 0) return create(t, url, size, XIO_INIT_NONE, f, err);
  return XIO_OK;
}

/* The timed operation, flushed. */
static xio_err operate(bench_target *t, const char *op, const char *url, uint64_t size,
                       xio_init init, xio_file **f, xio_error *err) {
  xio_err rc;
  if (strcmp(op, "create") == 0)
    rc = create(t, url, size, init, f, err);
  else if (strcmp(op, "grow") == 0)
    rc = xio_file_set_size(*f, BENCH_GROW_BASE + size, init, err);
  else
    rc = xio_file_zero(*f, 0, size, init, err);
  return rc == XIO_OK ? xio_file_flush(*f, err) : rc;
}

/* One run: setup, timed operation, cleanup. */
static xio_err run_once(bench_target *t, const char *op, const char *policy, uint64_t size,
                        double *secs, bench_counts *req, xio_error *err) {
  char url[2400], stem[64]; /* room for a --target SAS */
  snprintf(stem, sizeof stem, "%s-%s-%" PRIu64, op, policy, size);
  bench_target_file(t, stem, url, sizeof url);
  xio_file *f = NULL;
  xio_err rc = setup(t, op, url, size, &f, err);
  if (rc == XIO_OK) {
    bench_counter_reset(t->counter);
    double t0 = samples_now();
    rc = operate(t, op, url, size, init_of(policy), &f, err);
    *secs = samples_now() - t0;
    bench_counter_get(t->counter, req);
  }
  xio_error e2;
  xio_err rc2 = xio_file_close(f, &e2);
  if (rc == XIO_OK && rc2 != XIO_OK) rc = rc2, *err = e2;
  if (f || strcmp(op, "create") != 0 || rc == XIO_OK) rc2 = xio_file_delete(t->ctx, url, &e2);
  if (rc == XIO_OK && rc2 != XIO_OK && rc2 != XIO_ENOTFOUND) rc = rc2, *err = e2;
  return rc;
}

/* Bytes a run stores: what the emulator keeps in memory, or the local disk allocates. */
static uint64_t stored_bytes(bench_target *t, const char *policy, uint64_t size) {
  if (strcmp(policy, "zero") == 0) return size;
  if (strcmp(policy, "clear") == 0 && strcmp(t->backend, "local") == 0) return size;
  return 0;
}

static void fail_row(bench_row *row, xio_err rc, const xio_error *e) {
  char msg[600];
  row->status = "failed";
  snprintf(row->note, sizeof row->note, "%s: %s", xio_err_name(rc),
           xio_error_format(e, msg, sizeof msg));
}

static void progress(const bench_row *row) {
  char s[32], m[32];
  printf("  %-8s %-6s %-5s %9s  %s\n", row->backend, row->op, row->policy,
         samples_fmt_size(row->size, s, sizeof s),
         strcmp(row->status, "ok") == 0 ? samples_fmt_secs(row->t_med, m, sizeof m) : row->note);
  fflush(stdout);
}

/* Checks room for one run. Returns 1 to go ahead, else marks the row (skipped when
 * no run fit; with fewer runs than asked when some did; failed) and returns 0. */
static int reserve_run(bench_target *t, bench_row *row, uint64_t bytes) {
  xio_error e;
  char why[200];
  xio_error_clear(&e);
  int ok = bench_target_reserve(t, bytes, why, sizeof why, &e);
  if (ok > 0) return 1;
  if (ok < 0)
    fail_row(row, e.code, &e);
  else if (row->runs == 0)
    row->status = "skipped", snprintf(row->note, sizeof row->note, "%s", why);
  else
    snprintf(row->note, sizeof row->note, "%d runs only: %s", row->runs, why);
  return 0;
}

/* All runs of one backend/op/policy/size. */
static void measure(const bench_config *c, bench_target *t, const char *op, const char *policy,
                    uint64_t size, const char *note, bench_results *r) {
  bench_row *row = bench_results_add(r);
  row->kind = "growth";
  row->backend = t->backend;
  row->op = op;
  row->policy = policy;
  row->size = size;
  snprintf(row->note, sizeof row->note, "%s", note);
  int runs = strcmp(policy, "zero") == 0 ? c->zero_runs : c->runs;
  for (int i = 0; i < runs; i++) {
    if (!reserve_run(t, row, stored_bytes(t, policy, size))) break;
    xio_error e;
    xio_error_clear(&e);
    xio_err rc = run_once(t, op, policy, size, &row->times[row->runs], &row->req, &e);
    if (rc != XIO_OK) {
      fail_row(row, rc, &e);
      break;
    }
    row->runs++;
  }
  bench_row_summarize(row);
  progress(row);
}

/* Zero-writes are measured up to the cap, and at the cap itself when a bigger size
 * needs its rate even though the cap is not one of --sizes. */
static void measure_zero_policy(const bench_config *c, bench_target *t, const char *op,
                                bench_results *r) {
  int need_cap = 0, have_cap = 0;
  for (int i = 0; i < c->nsizes; i++) {
    need_cap |= c->sizes[i] > c->zero_cap;
    have_cap |= c->sizes[i] == c->zero_cap;
  }
  int cap_done = !need_cap || have_cap;
  for (int i = 0; i < c->nsizes && c->sizes[i] <= c->zero_cap; i++)
    measure(c, t, op, "zero", c->sizes[i], "", r);
  if (!cap_done)
    measure(c, t, op, "zero", c->zero_cap, "rate sample at the zero cap (not in --sizes)", r);
  bench_extrapolate(c, t->backend, op, r);
}

void bench_growth(const bench_config *c, bench_target *t, bench_results *r) {
  for (int o = 0; o < 3; o++) {
    for (int p = 0; p < 3; p++) {
      const char *op = bench_growth_ops[o], *policy = bench_policies[p];
      if (!bench_policy_applies(op, policy)) continue;
      if (strcmp(policy, "zero") == 0) {
        measure_zero_policy(c, t, op, r);
        continue;
      }
      for (int i = 0; i < c->nsizes; i++)
        measure(c, t, op, policy, c->sizes[i], "", r);
    }
  }
}
