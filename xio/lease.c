/*
 * lease.c - the lease keeper: one thread per context that renews the lease of every
 * exclusively opened page blob well before it expires, as SQL Server renews its
 * blob leases. A renewal the service refuses (the lease was broken or taken), or no
 * successful renewal within a lease duration, marks the lease lost; the file's
 * writes then fail with XIO_ELEASELOST instead of going out unprotected.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#include "ctx_int.h"

/* Renews one lease; runs without the keeper's lock. */
static void renew(xio_ctx *ctx, xio__lease *l) {
  xio_blob_lease_args a = {XIO_BLOB_LEASE_RENEW, l->id, NULL, 0, 0};
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_lease(l->target, &a, &c, NULL);
  if (rc == XIO_OK) rc = xio__send_traced(ctx, l->file, NULL, c, XIO_REQ_LEASE, 0, 0, NULL);
  xio_blob_call_free(c);
  int64_t now = xio_auth_monotonic_us();
  int transient = rc == XIO_ETRANSPORT || rc == XIO_ETIMEDOUT || rc == XIO_ETHROTTLED;
  int expired = now - l->last_renew_us >= (int64_t)ctx->opts.lease_duration_s * 1000000;
  if (rc == XIO_OK)
    l->last_renew_us = now;
  else if (!transient || expired)
    /* Refused (broken, taken, the blob gone), or unrenewed for a whole duration: it
     * may have expired and been taken meanwhile. */
    atomic_store(&l->lost, 1);
}

/* The lease due first, or NULL; *wait_us gets the time until it is due. */
static xio__lease *next_due(xio__keeper *k, int64_t period_us, int64_t *wait_us) {
  xio__lease *due = NULL;
  int64_t now = xio_auth_monotonic_us(), best = INT64_MAX;
  for (xio__lease *l = k->leases; l; l = l->next) {
    if (atomic_load(&l->lost)) continue;
    int64_t at = l->last_renew_us + period_us;
    if (at < best) best = at, due = l;
  }
  *wait_us = due ? best - now : 1000000;
  return due;
}

static void *keeper_main(void *arg) {
  xio_ctx *ctx = arg;
  xio__keeper *k = &ctx->keeper;
  int64_t period = (int64_t)ctx->opts.lease_renew_s * 1000000;
  pthread_mutex_lock(&k->mu);
  while (!k->stopping) {
    int64_t wait;
    xio__lease *l = next_due(k, period, &wait);
    if (l && wait <= 0) {
      k->renewing = l;
      pthread_mutex_unlock(&k->mu);
      renew(ctx, l);
      pthread_mutex_lock(&k->mu);
      k->renewing = NULL;
      pthread_cond_broadcast(&k->cv);
      continue;
    }
    if (wait > 1000000) wait = 1000000;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t ns = ts.tv_nsec + (wait % 1000000) * 1000;
    ts.tv_sec += (time_t)(wait / 1000000 + ns / 1000000000);
    ts.tv_nsec = (long)(ns % 1000000000);
    pthread_cond_timedwait(&k->cv, &k->mu, &ts);
  }
  pthread_mutex_unlock(&k->mu);
  return NULL;
}

xio_err xio__keeper_start(xio_ctx *ctx, xio_error *err) {
  xio__keeper *k = &ctx->keeper;
  pthread_mutex_init(&k->mu, NULL);
  pthread_cond_init(&k->cv, NULL);
  if (pthread_create(&k->thread, NULL, keeper_main, ctx) != 0)
    return xio_error_set(err, XIO_ENOMEM, "cannot start the lease keeper thread");
  k->started = 1;
  return XIO_OK;
}

void xio__keeper_stop(xio_ctx *ctx) {
  xio__keeper *k = &ctx->keeper;
  if (!k->started) return;
  pthread_mutex_lock(&k->mu);
  k->stopping = 1;
  pthread_cond_broadcast(&k->cv);
  pthread_mutex_unlock(&k->mu);
  pthread_join(k->thread, NULL);
  pthread_cond_destroy(&k->cv);
  pthread_mutex_destroy(&k->mu);
  k->started = 0;
}

int xio__keeper_is_keeper(const xio_ctx *ctx) {
  return ctx->keeper.started && pthread_equal(pthread_self(), ctx->keeper.thread);
}

void xio__lease_keep(xio_ctx *ctx, xio__lease *l) {
  xio__keeper *k = &ctx->keeper;
  pthread_mutex_lock(&k->mu);
  l->last_renew_us = xio_auth_monotonic_us();
  l->next = k->leases;
  k->leases = l;
  pthread_cond_broadcast(&k->cv);
  pthread_mutex_unlock(&k->mu);
}

void xio__lease_forget(xio_ctx *ctx, xio__lease *l) {
  xio__keeper *k = &ctx->keeper;
  pthread_mutex_lock(&k->mu);
  while (k->renewing == l)
    pthread_cond_wait(&k->cv, &k->mu);
  for (xio__lease **p = &k->leases; *p; p = &(*p)->next)
    if (*p == l) {
      *p = l->next;
      break;
    }
  pthread_mutex_unlock(&k->mu);
}
