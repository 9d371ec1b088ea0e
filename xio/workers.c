/*
 * workers.c - a small pool of threads that run the local backend's blocking system
 * calls (pread, pwrite, fallocate, fsync), so local files get the same asynchronous
 * interface as page blobs.
 */
#include <stdlib.h>

#include <xio/alloc.h>

#include "ctx_int.h"

static void *worker_main(void *arg) {
  xio__workers *w = arg;
  for (;;) {
    pthread_mutex_lock(&w->mu);
    while (!w->head && !w->stopping)
      pthread_cond_wait(&w->cv, &w->mu);
    xio__job *job = w->head;
    if (job) {
      w->head = job->next;
      if (!w->head) w->tail = NULL;
    }
    pthread_mutex_unlock(&w->mu);
    if (!job) return NULL; /* stopping and the queue is drained */
    job->run(job);
  }
}

xio_err xio__workers_start(xio__workers *w, int n, xio_error *err) {
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  w->threads = xio_calloc((size_t)n, sizeof *w->threads);
  if (!w->threads) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  for (; w->n < n; w->n++)
    if (pthread_create(&w->threads[w->n], NULL, worker_main, w) != 0)
      return xio_error_set(err, XIO_ENOMEM, "cannot start worker thread %d", w->n);
  return XIO_OK;
}

void xio__workers_stop(xio__workers *w) {
  if (!w->threads) return;
  pthread_mutex_lock(&w->mu);
  w->stopping = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
  for (int i = 0; i < w->n; i++)
    pthread_join(w->threads[i], NULL);
  xio_free(w->threads);
  w->threads = NULL;
  pthread_cond_destroy(&w->cv);
  pthread_mutex_destroy(&w->mu);
}

int xio__workers_is_worker(const xio__workers *w) {
  for (int i = 0; i < w->n; i++)
    if (pthread_equal(pthread_self(), w->threads[i])) return 1;
  return 0;
}

void xio__ctx_run(xio_ctx *ctx, xio__job *job) {
  xio__workers *w = &ctx->workers;
  job->next = NULL;
  pthread_mutex_lock(&w->mu);
  if (w->tail)
    w->tail->next = job;
  else
    w->head = job;
  w->tail = job;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}
