/*
 * pump.c - keeping `depth` asynchronous requests in flight on one file, the way an
 * engine drives its I/O (see samples_pump.h): submit until `depth` are outstanding,
 * then each completion frees a slot for the next request. Every request's latency
 * is taken from just before xio_file_submit to its completion callback.
 *
 * Completion callbacks (on xio's I/O or worker threads) only stamp the time and
 * push the slot on a done list; this thread does the rest. A slot is reused only
 * after xio_io_wait says the request is complete: xio touches the xio_io once more
 * (its completion flag) right after the callback returns.
 */
#define _POSIX_C_SOURCE 200809L
#include "samples_pump.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "samples_common.h"

typedef struct pump pump;

typedef struct slot {
  xio_io io;
  double t_submit, t_done;
  int idx;
  pump *p;
} slot;

struct pump {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int *done; /* slots completed, not yet collected (guarded by mu) */
  int ndone;
  int *batch; /* the done list, taken */
  int *free_; /* slots ready for a request */
  int nfree;
  slot *slots;
  int depth, inflight;
  int inited; /* mu and cv exist */
};

static void on_done(xio_io *io, void *ud) {
  slot *s = ud;
  (void)io;
  s->t_done = samples_now();
  pthread_mutex_lock(&s->p->mu);
  s->p->done[s->p->ndone++] = s->idx;
  pthread_cond_signal(&s->p->cv);
  pthread_mutex_unlock(&s->p->mu);
}

static int pump_init(pump *p, int depth) {
  p->depth = depth;
  p->slots = calloc((size_t)depth, sizeof *p->slots);
  p->done = calloc((size_t)depth, sizeof *p->done);
  p->free_ = calloc((size_t)depth, sizeof *p->free_);
  p->batch = calloc((size_t)depth, sizeof *p->batch);
  if (!p->slots || !p->done || !p->free_ || !p->batch) return -1;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->inited = 1;
  for (int i = 0; i < depth; i++) {
    p->slots[i].idx = i;
    p->slots[i].p = p;
    p->free_[p->nfree++] = depth - 1 - i;
  }
  return 0;
}

static void pump_free(pump *p) {
  if (p->inited) {
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
  }
  free(p->slots);
  free(p->done);
  free(p->free_);
  free(p->batch);
}

/* Fills and submits request `i` in a free slot: 1 submitted, 0 no request `i`,
 * -1 refused (out->rc set). */
static int submit_one(pump *p, xio_file *f, uint64_t i, samples_pump_next next, void *ud,
                      samples_pump_result *out) {
  slot *s = &p->slots[p->free_[p->nfree - 1]];
  memset(&s->io, 0, sizeof s->io);
  if (next(ud, i, s->idx, &s->io) != 0) return 0;
  s->io.done = on_done;
  s->io.ud = s;
  s->t_submit = samples_now();
  out->rc = xio_file_submit(f, &s->io, &out->error);
  if (out->rc != XIO_OK) return -1;
  p->nfree--;
  p->inflight++;
  return 1;
}

/* Waits for at least one completion and records each. */
static void collect(pump *p, uint64_t max_ops, samples_pump_result *out, double *last) {
  int *idx = p->batch;
  pthread_mutex_lock(&p->mu);
  while (p->ndone == 0)
    pthread_cond_wait(&p->cv, &p->mu);
  int n = p->ndone;
  memcpy(idx, p->done, (size_t)n * sizeof *idx);
  p->ndone = 0;
  pthread_mutex_unlock(&p->mu);
  for (int k = 0; k < n; k++) {
    slot *s = &p->slots[idx[k]];
    xio_err rc = xio_io_wait(&s->io);
    if (rc != XIO_OK && out->rc == XIO_OK) out->rc = rc, out->error = s->io.error;
    if (rc == XIO_OK && out->ops < max_ops) {
      out->lat_us[out->ops++] = (s->t_done - s->t_submit) * 1e6;
      out->bytes += s->io.transferred;
    }
    if (s->t_done > *last) *last = s->t_done;
    p->inflight--;
    p->free_[p->nfree++] = s->idx;
  }
}

xio_err samples_pump(xio_file *f, int depth, uint64_t max_ops, double max_seconds,
                     samples_pump_next next, void *ud, samples_pump_result *out) {
  pump p;
  memset(&p, 0, sizeof p);
  memset(out, 0, sizeof *out);
  if (depth < 1) return out->rc = xio_error_set(&out->error, XIO_EINVAL, "depth %d < 1", depth);
  out->lat_us = malloc((size_t)(max_ops ? max_ops : 1) * sizeof *out->lat_us);
  if (!out->lat_us || pump_init(&p, depth) != 0) {
    pump_free(&p);
    return out->rc = xio_error_set(&out->error, XIO_ENOMEM, "out of memory in the pump");
  }
  double start = samples_now(), last = start;
  uint64_t issued = 0;
  int more = 1;
  for (;;) {
    while (more && p.inflight < depth && issued < max_ops && out->rc == XIO_OK &&
           !(max_seconds > 0 && samples_now() - start >= max_seconds)) {
      int r = submit_one(&p, f, issued, next, ud, out);
      if (r == 1) issued++;
      more = r == 1;
    }
    if (p.inflight == 0) break;
    collect(&p, max_ops, out, &last);
  }
  out->seconds = last - start;
  pump_free(&p);
  return out->rc;
}
