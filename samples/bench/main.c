/*
 * main.c - xio-bench: runs the sections (growth on each backend, then bulk and
 * random I/O on the emulator) and writes the reports. With --target, page-blob
 * growth runs in that container instead of the emulator. See bench.h for the modules
 * and `xio-bench --help` for the options.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"

/* mkdir -p. Returns 0 or -1. */
static int make_dirs(const char *path) {
  char tmp[1024];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  return mkdir(tmp, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static void print_context(const bench_config *c, const bench_context *x) {
  char mem[32];
  printf("xio-bench %s: %ld CPUs (%s), %s RAM, %s\n", x->date, x->nproc, x->cpu,
         samples_fmt_size(x->mem_bytes, mem, sizeof mem), x->kernel);
  printf("  %s\n", c->target
                       ? "page-blob growth: in the --target container (below), not an emulator"
                       : bench_context_caveat(NULL));
  printf("  emulator: %s; local files: %s (%s)\n", x->endpoint[0] ? x->endpoint : "none",
         c->do_local ? x->local_dir : "not measured", x->local_fs);
  printf("  load average %.2f\n", x->load_start);
  if (x->sanitized) printf("  built with AddressSanitizer: times are not representative\n");
  fflush(stdout);
}

static int fail_target(const char *what, const xio_error *e) {
  char msg[600];
  fprintf(stderr, "xio-bench: %s: %s\n", what, xio_error_format(e, msg, sizeof msg));
  return 1;
}

/* Says where a --target run measures (account, endpoint, container, blob tier) and
 * keeps it for the reports. */
static void print_remote(const bench_target *t, bench_context *x) {
  snprintf(x->target, sizeof x->target, "account %s at %s, container %s, blob tier %s", t->account,
           t->endpoint, t->container, t->tier[0] ? t->tier : "none reported (standard page blobs)");
  snprintf(x->target_caveat, sizeof x->target_caveat, "page-blob growth: %s, not an emulator",
           x->target);
  printf("  %s\n  every blob of this run is named %s... and deleted afterwards\n", x->target,
         t->prefix);
  fflush(stdout);
}

/* Growth on one backend. Returns 0, or 1 when the backend could not be set up. */
static int growth_on(const bench_config *c, bench_emulator *em, int local, bench_results *r,
                     bench_context *x) {
  bench_target t;
  xio_error e;
  xio_error_clear(&e);
  printf("\ngrowth on %s (median of %d runs; init zero: %d):\n",
         local       ? "local files"
         : c->target ? "page blobs of the target"
                     : "page blobs",
         c->runs, c->zero_runs);
  xio_err rc = local       ? bench_target_local(&t, c->local_dir, c->disk_margin, &e)
               : c->target ? bench_target_remote(&t, c->target, 32, c, &e)
                           : bench_target_pageblob(&t, em, 32, c, &e);
  if (!local) t.tally = bench_results_section(r, "growth");
  if (rc == XIO_OK && t.remote) print_remote(&t, x);
  if (rc == XIO_OK) bench_growth(c, &t, r);
  bench_target_close(&t);
  return rc == XIO_OK ? 0 : fail_target(local ? "local backend" : "page-blob backend", &e);
}

static int run_sections(const bench_config *c, bench_emulator *em, int have_em, bench_results *r,
                        bench_context *x) {
  int failed = 0;
  if (c->do_growth && c->do_pageblob && (have_em || c->target)) failed |= growth_on(c, em, 0, r, x);
  if (c->do_growth && c->do_local) failed |= growth_on(c, em, 1, r, x);
  if (c->do_bulk && c->do_pageblob && have_em) {
    printf("\nbulk I/O on page blobs (%d run%s per depth):\n", c->bulk_runs,
           c->bulk_runs > 1 ? "s" : "");
    bench_bulk(c, em, r);
  }
  if (c->do_random && c->do_pageblob && have_em) {
    printf("\nrandom I/O on page blobs:\n");
    bench_random(c, em, r);
  }
  if (c->do_append) {
    printf("\nappends to a log (%d records per case, at most 16 MiB):\n", c->append_records);
    failed |= bench_append(c, em, have_em,
                           c->do_pageblob && have_em ? bench_results_section(r, "append") : NULL);
  }
  return failed;
}

static int write_reports(const bench_config *c, bench_report *rep) {
  char path[1200];
  if (make_dirs(c->out_dir) != 0) {
    fprintf(stderr, "xio-bench: cannot make %s: %s\n", c->out_dir, strerror(errno));
    return 1;
  }
  int bad = 0;
  snprintf(path, sizeof path, "%s/results.csv", c->out_dir);
  bad |= bench_write_csv(rep, path);
  if (c->plots && bad == 0)
    bench_plot(rep, path);
  else if (!c->plots)
    snprintf(rep->plot_note, sizeof rep->plot_note, "plots not drawn (--no-plots)");
  snprintf(path, sizeof path, "%s/results.json", c->out_dir);
  bad |= bench_write_json(rep, path);
  snprintf(path, sizeof path, "%s/results.md", c->out_dir);
  bad |= bench_write_md(rep, path);
  return bad ? 1 : 0;
}

int main(int argc, char **argv) {
  bench_config c;
  int prc = bench_options_parse(&c, argc, argv);
  if (prc) return prc == 1 ? 0 : 2;
  bench_context x;
  bench_context_get(&x);
  snprintf(x.local_dir, sizeof x.local_dir, "%s", c.local_dir);
  x.local_fs = bench_fs_type(c.local_dir);
  /* Before any context starts a thread: they all inherit the blocked signals. */
  if (c.target && bench_sweep_arm(c.target) != 0) {
    fprintf(stderr, "xio-bench: cannot set up the clean-up on SIGINT/SIGTERM\n");
    return 1;
  }
  bench_emulator em;
  memset(&em, 0, sizeof em);
  int have_em = c.do_pageblob && bench_emulator_init(&em, &c) == 0;
  if (have_em) snprintf(x.endpoint, sizeof x.endpoint, "%s", em.endpoint);
  print_context(&c, &x);
  if (c.do_pageblob && !have_em)
    printf("%s: no emulator endpoint (--endpoint, --endpoint-file, XIO_BLOB_ENDPOINT or "
           "XIO_TEST_BLOB_ENDPOINT)\n",
           c.target ? "bulk and random I/O on page blobs not measured" : "page blobs not measured");
  bench_results r = {0};
  double t0 = samples_now();
  int failed = run_sections(&c, &em, have_em, &r, &x);
  x.total_seconds = samples_now() - t0;
  x.load_end = bench_load_average();
  if (have_em) x.emulator_resets = em.resets, x.emulator_uploaded = em.total_uploaded;
  bench_report rep = {&c, &x, &r, {0}, 0, ""};
  if (c.out_dir) failed |= write_reports(&c, &rep);
  printf("\n");
  bench_print_summary(&rep, stdout);
  if (c.out_dir)
    printf("\nresults: %s/results.md, results.csv, results.json%s\n", c.out_dir,
           rep.nplots ? " and plots" : "");
  failed |= bench_results_failed(&r) > 0;
  bench_results_free(&r);
  return failed ? 1 : 0;
}
