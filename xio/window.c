/*
 * window.c - the combining window: a file's queued writes are sent once the window
 * has passed since the first write queued after the file's last such send, from a
 * timer on the engine's I/O thread (no thread of its own). One timer serves every
 * file of a context, set for the earliest window's end among the files waiting.
 */
#define _POSIX_C_SOURCE 200809L

#include "pending_int.h"

#define DEFAULT_WINDOW_US 2000

int xio__ctx_combine_window_us(const xio_ctx *ctx) {
  int w = ctx->opts.combine_window_us;
  return w == 0 ? DEFAULT_WINDOW_US : w;
}

/* Under c->mu: sets the timer for the earliest window's end among the armed files. */
static void schedule_locked(xio__combiner *c) {
  int64_t best = INT64_MAX;
  for (xio_file *f = c->armed; f; f = f->pend.next_armed)
    if (f->pend.deadline_us < best) best = f->pend.deadline_us;
  if (best != INT64_MAX) xio_blob_engine_timer_set(c->engine, &c->timer, best);
}

void xio__window_arm(xio_file *f) {
  xio__combiner *c = &f->ctx->combiner;
  pthread_mutex_lock(&c->mu);
  if (!f->pend.armed) {
    f->pend.armed = 1;
    f->pend.deadline_us = xio_auth_monotonic_us() + xio__ctx_combine_window_us(f->ctx);
    f->pend.next_armed = c->armed;
    c->armed = f;
    schedule_locked(c);
  }
  pthread_mutex_unlock(&c->mu);
}

static void disarm_locked(xio__combiner *c, xio_file *f) {
  for (xio_file **pp = &c->armed; *pp; pp = &(*pp)->pend.next_armed)
    if (*pp == f) {
      *pp = f->pend.next_armed;
      break;
    }
  f->pend.armed = 0;
}

/* After a kick sent every run: the writes queued from now on get a window of their
 * own, counted from the first of them, not the rest of one that began with a write
 * already sent. A run queued meanwhile and not sent yet is armed again here; one
 * queued after the disarm arms itself. */
static void window_restart(xio_file *f) {
  xio__combiner *c = &f->ctx->combiner;
  xio__pending *p = &f->pend;
  pthread_mutex_lock(&c->mu);
  if (p->armed) disarm_locked(c, f);
  pthread_mutex_unlock(&c->mu);
  pthread_mutex_lock(&p->mu);
  int waiting = p->open && !p->open->due;
  pthread_mutex_unlock(&p->mu);
  if (waiting && xio__ctx_combine_window_us(f->ctx) >= 0) xio__window_arm(f);
}

void xio__pending_disarm(xio_file *f) {
  xio__combiner *c = &f->ctx->combiner;
  if (!f->pend.enabled) return;
  pthread_mutex_lock(&c->mu);
  if (f->pend.armed) disarm_locked(c, f);
  while (c->kicking == f)
    pthread_cond_wait(&c->cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
}

/* The timer (on the engine's I/O thread): sends the runs of every file whose window
 * has passed, then sets itself for the next window's end. Never waits for storage. */
static void windows_passed(void *ud) {
  xio__combiner *c = ud;
  pthread_mutex_lock(&c->mu);
  for (;;) {
    xio_file *due = NULL;
    int64_t now = xio_auth_monotonic_us();
    for (xio_file *f = c->armed; f && !due; f = f->pend.next_armed)
      if (f->pend.deadline_us <= now) due = f;
    if (!due) break;
    disarm_locked(c, due);
    c->kicking = due;
    pthread_mutex_unlock(&c->mu);
    xio__pending_pump(due, 1);
    pthread_mutex_lock(&c->mu);
    c->kicking = NULL;
    pthread_cond_broadcast(&c->cv);
  }
  schedule_locked(c);
  pthread_mutex_unlock(&c->mu);
}

xio_err xio__combiner_start(xio_ctx *ctx, xio_error *err) {
  (void)err;
  xio__combiner *c = &ctx->combiner;
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
  c->engine = ctx->engine;
  c->timer.fn = windows_passed;
  c->timer.ud = c;
  c->inited = 1;
  return XIO_OK;
}

void xio__combiner_stop(xio_ctx *ctx) {
  xio__combiner *c = &ctx->combiner;
  if (!c->inited) return;
  xio_blob_engine_timer_cancel(c->engine, &c->timer);
  pthread_cond_destroy(&c->cv);
  pthread_mutex_destroy(&c->mu);
  c->inited = 0;
}

/* -------------------------------------------------- kicks and batches ---- */

void xio__pending_kick(xio_file *f) {
  if (!f->pend.enabled) return;
  xio__pending_pump(f, 1);
  window_restart(f);
}

void xio__pending_batch(xio_file *f, int begin) {
  xio__pending *p = &f->pend;
  if (!p->enabled) return;
  pthread_mutex_lock(&p->mu);
  p->batches += begin ? 1 : -1;
  pthread_mutex_unlock(&p->mu);
  if (!begin) xio__pending_kick(f);
}
