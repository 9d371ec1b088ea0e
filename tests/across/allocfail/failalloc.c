/*
 * failalloc.c - the failing allocator and the driver of the allocation-failure test
 * mode (see failalloc.h). Counters are atomic: xio allocates on its I/O, worker and
 * lease threads too, and an allocation on any of them may be the one that fails.
 */
#include <execinfo.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <xio/alloc.h>
#include <xio/blob_alloc.h>

#include "failalloc.h"
#include "test.h"

static atomic_long calls;   /* allocations counted since the last arm */
static atomic_long fail_at; /* the allocation to fail (1-based), 0: none */
static atomic_int injected; /* an allocation was failed since the last arm */
static atomic_long live;    /* blocks handed out and not yet released */
static _Thread_local int paused;

static long trace_at = -1; /* XIO_ALLOCFAIL_TRACE: print where this one is made */

static int should_fail(void) {
  if (paused) return 0;
  long n = atomic_fetch_add(&calls, 1) + 1;
  if (n != atomic_load(&fail_at)) return 0;
  atomic_store(&injected, 1);
  if (n == trace_at) {
    void *frames[32];
    fprintf(stderr, "allocation %ld fails here:\n", n);
    backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
  }
  return 1;
}

static void *af_malloc(size_t n) {
  if (should_fail()) return NULL;
  void *p = malloc(n);
  if (p) atomic_fetch_add(&live, 1);
  return p;
}

static void *af_calloc(size_t k, size_t n) {
  if (should_fail()) return NULL;
  void *p = calloc(k, n);
  if (p) atomic_fetch_add(&live, 1);
  return p;
}

static void *af_realloc(void *p, size_t n) {
  if (!p) return af_malloc(n);
  if (n == 0) n = 1; /* never let realloc free behind the count's back */
  if (should_fail()) return NULL;
  return realloc(p, n);
}

static void af_free(void *p) {
  if (!p) return;
  atomic_fetch_sub(&live, 1);
  free(p);
}

void af_thread_counting(int on) { paused = !on; }

void af_install(void) {
  static int done;
  if (done) return;
  done = 1;
  const char *t = getenv("XIO_ALLOCFAIL_TRACE");
  if (t && *t) trace_at = atol(t);
  xio_allocator a = {af_malloc, af_calloc, af_realloc, af_free};
  xio_alloc_set(&a);
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_blob_share_allocator(&e), &e);
}

static void arm(long n) {
  atomic_store(&fail_at, n);
  atomic_store(&injected, 0);
  atomic_store(&calls, 0);
}

static long disarm(void) {
  atomic_store(&fail_at, 0);
  return atomic_load(&calls);
}

static int env_stride(void) {
  const char *s = getenv("XIO_ALLOCFAIL_STRIDE");
  return s && *s ? atoi(s) : 0;
}

/* One run with allocation `n` failing (0: none). Returns op's result. */
static xio_err run_once(const af_scenario *s, long n, int *was_injected, long *count) {
  if (s->reset) s->reset(s->ud);
  xio_error err;
  xio_error_clear(&err);
  long live0 = atomic_load(&live);
  arm(n);
  xio_err rc = s->op(s->ud, &err);
  *count = disarm();
  *was_injected = atomic_load(&injected);
  long leaked = atomic_load(&live) - live0;
  char buf[1600];
  if (rc != XIO_OK && rc != XIO_ENOMEM)
    FAIL("%s: failing allocation %ld of %ld ended in %s, not XIO_ENOMEM or a retry: %s", s->name, n,
         *count, xio_err_name(rc), xio_error_format(&err, buf, sizeof buf));
  if (rc == XIO_ENOMEM && !*was_injected)
    FAIL("%s: XIO_ENOMEM without an injected failure (run %ld): %s", s->name, n,
         xio_error_format(&err, buf, sizeof buf));
  if (leaked != 0)
    FAIL("%s: %ld blocks %s after failing allocation %ld of %ld (%s)", s->name,
         leaked < 0 ? -leaked : leaked, leaked < 0 ? "released twice or not ours" : "leaked", n,
         *count, xio_err_name(rc));
  if (s->check) s->check(s->ud, rc, *was_injected);
  return rc;
}

af_report af_run(const af_scenario *s) {
  af_install();
  af_report r = {0};
  int inj;
  long count;
  xio_err rc = run_once(s, 0, &inj, &count);
  if (rc != XIO_OK)
    FAIL("%s: the run without a failure injected ended in %s", s->name, xio_err_name(rc));
  r.clean_allocs = count;
  r.stride = env_stride();
  if (r.stride < 1) r.stride = count > s->budget ? (int)((count + s->budget - 1) / s->budget) : 1;
  int clean = 0;
  long limit = 4 * count + 1000; /* a run that keeps finding more allocations is a bug */
  for (long n = 1; n <= limit; n += r.stride) {
    rc = run_once(s, n, &inj, &count);
    if (!inj) {
      if (rc != XIO_OK)
        FAIL("%s: run %ld without a failure injected ended in %s", s->name, n, xio_err_name(rc));
      clean = 1;
      break;
    }
    r.points++;
    if (getenv("XIO_ALLOCFAIL_VERBOSE"))
      fprintf(stderr, "%s: allocation %ld failed: %s (%ld allocations)\n", s->name, n,
              xio_err_name(rc), count);
    if (rc == XIO_OK)
      r.recovered++;
    else
      r.enomem++;
  }
  printf("allocfail %s: %ld allocations in a clean run; %d failure points exercised (every %d%s), "
         "%d ended in XIO_ENOMEM, %d recovered\n",
         s->name, r.clean_allocs, r.points, r.stride, r.stride == 1 ? ": all" : "", r.enomem,
         r.recovered);
  fflush(stdout);
  if (!clean) FAIL("%s: no run completed without a failure injected", s->name);
  if (r.points < s->min_points)
    FAIL("%s: only %d failure points exercised, wanted at least %d", s->name, r.points,
         s->min_points);
  return r;
}
