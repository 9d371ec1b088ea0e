/*
 * timers_int.h - the engine's timers (timers.c): work that waits for a moment, run
 * on the I/O thread when it comes, instead of a thread that only sleeps until then.
 * Internal to libxio_blob.
 */
#ifndef XIO_BLOB_TIMERS_INT_H
#define XIO_BLOB_TIMERS_INT_H

#include <pthread.h>
#include <stdint.h>

#include <xio/blob_engine.h>

typedef struct xio__blob_timers {
  pthread_mutex_t mu;
  pthread_cond_t cv;       /* signalled when a timer's function returns */
  xio_blob_timer *armed;   /* under mu, unsorted: a few at most */
  xio_blob_timer *running; /* under mu: the timer whose function runs now */
} xio__blob_timers;

void xio__blob_timers_init(xio__blob_timers *ts);
void xio__blob_timers_destroy(xio__blob_timers *ts);

/** Arms `t` for `at_us` (moving it if armed). */
void xio__blob_timers_set(xio__blob_timers *ts, xio_blob_timer *t, int64_t at_us);

/** Disarms `t`; unless `on_io_thread`, waits until its function is not running. */
void xio__blob_timers_cancel(xio__blob_timers *ts, xio_blob_timer *t, int on_io_thread);

/** The earliest armed deadline, or INT64_MAX. */
int64_t xio__blob_timers_next(xio__blob_timers *ts);

/** Runs (I/O thread) every timer due at `now`, each disarmed before its function. */
void xio__blob_timers_run(xio__blob_timers *ts, int64_t now);

#endif /* XIO_BLOB_TIMERS_INT_H */
