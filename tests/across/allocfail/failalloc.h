/*
 * failalloc.h - the allocation-failure test mode: an allocator that fails the N-th
 * allocation made anywhere in the process through xio's seam (<xio/alloc.h>), which
 * also serves libcurl, libxml2 and cJSON (xio_blob_share_allocator), and a driver
 * that runs one operation with N = 1, 2, 3, ... until a run completes without a
 * failure injected.
 *
 * Each run must end in XIO_OK (the failure was absorbed or retried) or a clean
 * XIO_ENOMEM, with every allocation it made released (the allocator counts live
 * blocks; the ASan build's LeakSanitizer checks again at exit), and the scenario's
 * check (run with injection off) must hold afterwards. The driver prints how many
 * failure points it exercised and fails unless it reached a run without injection
 * and at least the scenario's minimum number of points.
 *
 * Bounds: when a clean run makes more allocations than the scenario's budget, every
 * k-th point is failed (k chosen to fit the budget); XIO_ALLOCFAIL_STRIDE=1 in the
 * environment fails every point (slow). XIO_ALLOCFAIL_TRACE=N prints the stack of
 * the N-th allocation when it is the one failed (link with -rdynamic for names);
 * XIO_ALLOCFAIL_VERBOSE=1 prints each run's outcome.
 */
#ifndef XIO_TEST_FAILALLOC_H
#define XIO_TEST_FAILALLOC_H

#include <xio/error.h>

/** Installs the counting allocator and shares it with libcurl, libxml2 and cJSON.
 *  Call first in every test, before any other xio call. Idempotent. */
void af_install(void);

/** One operation to fail in turn. */
typedef struct af_scenario {
  const char *name;
  /* The operation, run with the N-th allocation failing. Returns XIO_OK, or the
   * error it ended with (described in `err`). */
  xio_err (*op)(void *ud, xio_error *err);
  /* Optional: runs before each run with injection off (fresh inputs). */
  void (*reset)(void *ud);
  /* Optional: runs after each run with injection off; `rc` is what op returned and
   * `injected` whether an allocation failed. FAILs the test on a broken promise. */
  void (*check)(void *ud, xio_err rc, int injected);
  void *ud;
  int budget;     /* at most this many failure points (>= 1) */
  int min_points; /* the run must exercise at least this many */
} af_scenario;

/** What a driven scenario saw. */
typedef struct af_report {
  long clean_allocs; /* allocations in the first run, with nothing injected */
  int stride;        /* every stride-th allocation was failed */
  int points;        /* runs with an injected failure */
  int enomem;        /* ... that ended in XIO_ENOMEM */
  int recovered;     /* ... that ended in XIO_OK */
} af_report;

/** Drives `s` (see the top of the file) and prints one line with its counts. */
af_report af_run(const af_scenario *s);

/** Suspends (0) or resumes (1) counting on the calling thread, for a scenario's own
 *  bookkeeping inside op (blocks taken meanwhile are still tracked as live). */
void af_thread_counting(int on);

#endif
