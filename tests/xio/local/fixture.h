/*
 * fixture.h - what the local backend tests share: a fresh temporary directory per
 * test (removed at exit, even after a failed assertion), a context whose trace
 * events are captured for counting, file helpers, and the fallocate(2) wrapper's
 * controls (fallocate_shim.c).
 */
#ifndef XIO_TEST_LOCAL_FIXTURE_H
#define XIO_TEST_LOCAL_FIXTURE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <xio/xio.h>

/* One captured trace event. */
typedef struct lt_event {
  xio_request_type type;
  char path[512];
  char result[40];
  char request_id[8];
  uint64_t offset, length;
  int http_status;
  int64_t duration_us;
} lt_event;

typedef struct lt_env {
  char dir[512];
  xio_ctx *ctx;
  pthread_mutex_t mu;
  lt_event *events;
  int nevents, cap;
} lt_env;

/** Makes a fresh directory under $TMPDIR (default /tmp) and a context tracing into
 *  `env`; the directory is removed by lt_teardown, or at exit when a test fails. */
void lt_setup(lt_env *env);
/** The same in a directory under `base` (e.g. /dev/shm; NULL: $TMPDIR). */
void lt_setup_in(lt_env *env, const char *base);
/** Frees the context and removes the directory. */
void lt_teardown(lt_env *env);

/** `name` inside the test directory, written into `buf`; fails the test when it
 *  does not fit. */
void lt_path(const lt_env *env, const char *name, char *buf, size_t size);

/** Creates `name` (CREATE_ONLY) with `kind`, `size` and `init`; fails the test on error. */
xio_file *lt_create(lt_env *env, const char *name, xio_kind kind, uint64_t size, xio_init init);
/** Opens `name` with `flags`; fails the test on error. */
xio_file *lt_open(lt_env *env, const char *name, unsigned flags);

/** Forgets the events captured so far. */
void lt_reset(lt_env *env);
/** Events of `type` (XIO_REQ_ZERO) captured since the last reset. */
int lt_count(lt_env *env, xio_request_type type);
/** All events since the last reset. */
int lt_total(lt_env *env);
/** A copy of event `i` since the last reset. */
lt_event lt_get(lt_env *env, int i);

/** Microseconds on the monotonic clock. */
int64_t lt_now_us(void);

/* ------------------------------------------------- fallocate wrapper ---- */

/* Bits of lt_falloc_refuse: fallocate fails with lt_falloc_errno for that mode. */
#define LT_FALLOC_ZERO_RANGE 1
#define LT_FALLOC_PUNCH_HOLE 2
extern _Atomic int lt_falloc_refuse;
extern _Atomic int lt_falloc_errno; /* EOPNOTSUPP unless set */
extern _Atomic int lt_falloc_calls_zero_range, lt_falloc_calls_punch_hole;

/* -------------------------------------------------- failing allocator ---- */

/* While on (for the calling thread only), its allocations through xio's seam of at
 * most LT_ALLOC_SMALL bytes fail (alloc_shim.c). */
#define LT_ALLOC_SMALL 64
void lt_alloc_fail(int on);

#endif
