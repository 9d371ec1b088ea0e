/*
 * timers.c - the engine's timers: a caller-owned xio_blob_timer armed for a moment
 * of the monotonic clock (xio_auth_monotonic_us) runs its function on the engine's
 * I/O thread once that moment comes, so that work which only waits for a deadline
 * (the file layer's combining window) needs no thread of its own. Armed and
 * disarmed from any thread; a disarm from another thread returns only once the
 * function is not running, so its owner may then free what the function uses.
 */
#include <stddef.h>

#include "timers_int.h"

void xio__blob_timers_init(xio__blob_timers *ts) {
  pthread_mutex_init(&ts->mu, NULL);
  pthread_cond_init(&ts->cv, NULL);
  ts->armed = ts->running = NULL;
}

void xio__blob_timers_destroy(xio__blob_timers *ts) {
  pthread_cond_destroy(&ts->cv);
  pthread_mutex_destroy(&ts->mu);
}

/* Under ts->mu: takes `t` off the armed list. */
static void unlink_locked(xio__blob_timers *ts, xio_blob_timer *t) {
  for (xio_blob_timer **p = &ts->armed; *p; p = &(*p)->next)
    if (*p == t) {
      *p = t->next;
      break;
    }
  t->armed = 0;
  t->next = NULL;
}

void xio__blob_timers_set(xio__blob_timers *ts, xio_blob_timer *t, int64_t at_us) {
  pthread_mutex_lock(&ts->mu);
  t->at_us = at_us;
  if (!t->armed) {
    t->armed = 1;
    t->next = ts->armed;
    ts->armed = t;
  }
  pthread_mutex_unlock(&ts->mu);
}

void xio__blob_timers_cancel(xio__blob_timers *ts, xio_blob_timer *t, int on_io_thread) {
  pthread_mutex_lock(&ts->mu);
  if (t->armed) unlink_locked(ts, t);
  while (!on_io_thread && ts->running == t)
    pthread_cond_wait(&ts->cv, &ts->mu);
  pthread_mutex_unlock(&ts->mu);
}

int64_t xio__blob_timers_next(xio__blob_timers *ts) {
  int64_t next = INT64_MAX;
  pthread_mutex_lock(&ts->mu);
  for (const xio_blob_timer *t = ts->armed; t; t = t->next)
    if (t->at_us < next) next = t->at_us;
  pthread_mutex_unlock(&ts->mu);
  return next;
}

/* Under ts->mu: the first armed timer due at `now`, or NULL. */
static xio_blob_timer *due_locked(xio__blob_timers *ts, int64_t now) {
  for (xio_blob_timer *t = ts->armed; t; t = t->next)
    if (t->at_us <= now) return t;
  return NULL;
}

void xio__blob_timers_run(xio__blob_timers *ts, int64_t now) {
  pthread_mutex_lock(&ts->mu);
  xio_blob_timer *t;
  while ((t = due_locked(ts, now)) != NULL) {
    unlink_locked(ts, t);
    ts->running = t;
    pthread_mutex_unlock(&ts->mu);
    t->fn(t->ud);
    pthread_mutex_lock(&ts->mu);
    ts->running = NULL;
    pthread_cond_broadcast(&ts->cv);
  }
  pthread_mutex_unlock(&ts->mu);
}
