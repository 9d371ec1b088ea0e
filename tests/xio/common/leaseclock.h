/*
 * leaseclock.h - a lease clock for tests (xio_ctx_options.lease_clock): the system's
 * monotonic clock plus an offset the test moves ahead, so a context behaves as a
 * process paused that long without the test waiting for it. The offset lives in
 * memory shared with child processes forked after leaseclock_new, so a parent can
 * move the clock of a child it has stopped.
 */
#ifndef XIO_TEST_LEASECLOCK_H
#define XIO_TEST_LEASECLOCK_H

#include <stdint.h>
#include <xio/xio.h>

typedef struct leaseclock leaseclock;

/** A clock with offset 0 in shared anonymous memory; fails the test when it cannot. */
leaseclock *leaseclock_new(void);

/** Unmaps the clock; no context may use it any more. NULL is ignored. */
void leaseclock_free(leaseclock *c);

/** Moves the clock ahead by `us` microseconds, in every process sharing it. */
void leaseclock_advance(leaseclock *c, int64_t us);

/** The clock as context options take it. */
xio_lease_clock leaseclock_lease(leaseclock *c);

#endif
