/*
 * lease.c - the lease keeper: a timer per context on the engine's I/O thread that
 * renews the lease of every exclusively opened page blob well before it expires, as
 * SQL Server renews its blob leases, with renewals answered on that thread too; and
 * the test every write of such a file passes before it is sent.
 * A renewal goes in the engine's control lane (engine.c), never behind the file's
 * queued writes, whatever their number; a try that stalls is cut after
 * RENEW_TRY_MS and sent again, until the lease would have run out.
 *
 * A lease is counted on the context's lease clock (xio_ctx_options.lease_clock)
 * from the moment its last successful acquire or renewal was sent, which is no
 * later than the service started it. A renewal the service refuses (the lease was
 * broken or taken), or the clock passing the lease duration with no renewal
 * acknowledged, marks the lease lost for good; the file's writes then fail with
 * XIO_ELEASELOST instead of going out unprotected. A process paused past its lease
 * (SIGSTOP, a frozen VM) therefore resumes with a lease it no longer trusts: its
 * keeper does not renew it, even where the service would still renew an expired
 * lease of a blob nobody modified, because the file's writes refused during the
 * gap must not be followed by later ones that succeed. xio_file_lease_lost asks the
 * same test without writing, for an engine that must not serve cached reads once
 * another process may have changed the file.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#include "ctx_int.h"

#define RETRY_US     1000000 /* next renewal after one failed for a transient reason */
#define RENEW_TRY_MS 10000   /* a renewal's try: one that stalls is cut and sent again */

int64_t xio__lease_now(const xio_ctx *ctx) {
  const xio_lease_clock *c = &ctx->opts.lease_clock;
  return c->now_us ? c->now_us(c->ud) : xio_auth_monotonic_us();
}

/* Tells the context's lease_news callback, if any. */
static void tell(xio__lease *l, xio_lease_news news) {
  const xio_ctx_options *o = &l->file->ctx->opts;
  if (o->lease_news) o->lease_news(l->file, news, o->lease_news_ud);
}

void xio__lease_lose(xio__lease *l, xio__lease_state why) {
  int held = XIO__LEASE_HELD;
  if (atomic_compare_exchange_strong(&l->lost, &held, (int)why)) tell(l, XIO_LEASE_LOST);
}

int xio__lease_valid(xio__lease *l) {
  if (atomic_load(&l->lost) != XIO__LEASE_HELD) return 0;
  if (xio__lease_now(l->file->ctx) < atomic_load(&l->expires_us)) return 1;
  xio__lease_lose(l, XIO__LEASE_EXPIRED);
  return 0;
}

/* Records a renewal sent at `sent` and acknowledged: the expiry only moves forward,
 * whichever of the keeper's renewal and a confirmation (xio_file_lease_confirm) was
 * acknowledged last. A lease lost meanwhile stays lost. */
static void confirmed_at(xio_ctx *ctx, xio__lease *l, int64_t sent) {
  int64_t want = sent + (int64_t)ctx->opts.lease_duration_s * 1000000;
  int64_t have = atomic_load(&l->expires_us);
  while (have < want && !atomic_compare_exchange_weak(&l->expires_us, &have, want)) {
  }
}

/* Sends one renewal of `l` from this thread and waits for its answer; *sent gets
 * when it was sent, on the lease clock. It goes in the engine's control lane; it is
 * worth nothing once the lease has run out, so it is tried until then, a stalled
 * try cut after RENEW_TRY_MS. Acknowledged, the lease counts from *sent (the service
 * renewed it no earlier). Errors: the call's. */
static xio_err send_renewal(xio_ctx *ctx, xio__lease *l, int64_t *sent, xio_error *err) {
  *sent = xio__lease_now(ctx);
  xio_blob_lease_args a = {XIO_BLOB_LEASE_RENEW, l->id, NULL, 0, 0};
  xio__req r = {XIO_REQ_LEASE, l->file, 0, 0, NULL, NULL};
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_lease(l->target, &a, &c, err);
  int64_t left_ms = (atomic_load(&l->expires_us) - *sent) / 1000;
  if (rc == XIO_OK)
    xio_blob_call_set_time_limits(c, left_ms > 1 ? (int)left_ms : 1,
                                  left_ms < RENEW_TRY_MS ? 0 : RENEW_TRY_MS);
  if (rc == XIO_OK) rc = xio__send(ctx, c, &r, err);
  xio_blob_call_free(c);
  if (rc == XIO_OK) confirmed_at(ctx, l, *sent);
  return rc;
}

/* When, on the lease clock, the next renewal of `l` is due after its renewal sent at
 * `sent` ended with `rc`: the renewal interval after success; lost (the keeper skips
 * it from now on) when refused; a second later when the service was unreachable,
 * until the lease clock says the lease ran out. */
static int64_t after_renewal(xio_ctx *ctx, xio__lease *l, int64_t sent, xio_err rc) {
  if (rc == XIO_OK) {
    confirmed_at(ctx, l, sent);
    return sent + (int64_t)ctx->opts.lease_renew_s * 1000000;
  }
  if (rc != XIO_ETRANSPORT && rc != XIO_ETIMEDOUT && rc != XIO_ETHROTTLED) {
    /* Refused: broken, taken, the blob gone. */
    xio__lease_lose(l, XIO__LEASE_REFUSED);
    return sent;
  }
  tell(l, XIO_LEASE_RENEW_FAILED);
  xio__lease_valid(l);
  return xio__lease_now(ctx) + RETRY_US;
}

/* Under k->mu: sets the keeper's timer for the next renewal due (on the monotonic
 * clock: the lease clock's distance to it from now), a second ahead at most, so
 * that a lease clock that jumps ahead is seen soon. */
static void schedule_locked(xio_ctx *ctx, xio__keeper *k) {
  int64_t now = xio__lease_now(ctx), wait = 1000000;
  for (xio__lease *l = k->leases; l; l = l->next)
    if (atomic_load(&l->lost) == XIO__LEASE_HELD && !l->renewing && l->due_us - now < wait)
      wait = l->due_us - now;
  if (k->leases)
    xio_blob_engine_timer_set(k->engine, &k->timer,
                              xio_auth_monotonic_us() + (wait > 0 ? wait : 0));
}

/* A renewal answered (I/O thread): the next one scheduled, the waiters told. */
static void renewed(xio_blob_call *c, void *ud) {
  xio__lease *l = ud;
  xio_ctx *ctx = l->file->ctx;
  xio__keeper *k = &ctx->keeper;
  int64_t due = after_renewal(ctx, l, l->renew_sent_us, xio_blob_call_result(c, NULL));
  xio_blob_call_free(c);
  pthread_mutex_lock(&k->mu);
  l->due_us = due;
  l->renewing = 0;
  pthread_cond_broadcast(&k->cv);
  schedule_locked(ctx, k);
  pthread_mutex_unlock(&k->mu);
}

/* Under k->mu: sends the renewal of `l` in the engine's control lane, answered by
 * renewed(). It is worth nothing once the lease has run out, so it is tried until
 * then, a stalled try cut after RENEW_TRY_MS. */
static void start_renewal(xio_ctx *ctx, xio__lease *l) {
  l->renew_sent_us = xio__lease_now(ctx);
  if (!xio__lease_valid(l)) return; /* lost: the keeper skips it from now on */
  xio_blob_lease_args a = {XIO_BLOB_LEASE_RENEW, l->id, NULL, 0, 0};
  l->renew_req = (xio__req){XIO_REQ_LEASE, l->file, 0, 0, NULL, NULL};
  xio_blob_call *c = NULL;
  if (xio_blob_call_lease(l->target, &a, &c, NULL) != XIO_OK) {
    l->due_us = xio__lease_now(ctx) + RETRY_US; /* out of memory: try again soon */
    return;
  }
  int64_t left_ms = (atomic_load(&l->expires_us) - l->renew_sent_us) / 1000;
  xio_blob_call_set_time_limits(c, left_ms > 1 ? (int)left_ms : 1,
                                left_ms < RENEW_TRY_MS ? 0 : RENEW_TRY_MS);
  l->renewing = 1;
  xio__submit(ctx, c, &l->renew_req, renewed, l);
}

/* The keeper's timer (I/O thread): sends every renewal that is due. */
static void renew_due(void *ud) {
  xio_ctx *ctx = ud;
  xio__keeper *k = &ctx->keeper;
  pthread_mutex_lock(&k->mu);
  int64_t now = xio__lease_now(ctx);
  for (xio__lease *l = k->leases; l; l = l->next)
    if (atomic_load(&l->lost) == XIO__LEASE_HELD && !l->renewing && l->due_us <= now)
      start_renewal(ctx, l);
  schedule_locked(ctx, k);
  pthread_mutex_unlock(&k->mu);
}

xio_err xio__keeper_start(xio_ctx *ctx, xio_error *err) {
  (void)err;
  xio__keeper *k = &ctx->keeper;
  pthread_mutex_init(&k->mu, NULL);
  pthread_cond_init(&k->cv, NULL);
  k->engine = ctx->engine;
  k->timer.fn = renew_due;
  k->timer.ud = ctx;
  k->started = 1;
  return XIO_OK;
}

void xio__keeper_stop(xio_ctx *ctx) {
  xio__keeper *k = &ctx->keeper;
  if (!k->started) return;
  xio_blob_engine_timer_cancel(k->engine, &k->timer);
  pthread_mutex_lock(&k->mu);
  for (xio__lease *l = k->leases; l; l = l->next)
    while (l->renewing)
      pthread_cond_wait(&k->cv, &k->mu);
  pthread_mutex_unlock(&k->mu);
  pthread_cond_destroy(&k->cv);
  pthread_mutex_destroy(&k->mu);
  k->started = 0;
}

void xio__lease_keep(xio_ctx *ctx, xio__lease *l, int64_t sent_us) {
  xio__keeper *k = &ctx->keeper;
  atomic_store(&l->lost, XIO__LEASE_HELD);
  atomic_store(&l->expires_us, sent_us + (int64_t)ctx->opts.lease_duration_s * 1000000);
  pthread_mutex_lock(&k->mu);
  l->due_us = sent_us + (int64_t)ctx->opts.lease_renew_s * 1000000;
  l->renewing = 0;
  l->next = k->leases;
  k->leases = l;
  schedule_locked(ctx, k);
  pthread_mutex_unlock(&k->mu);
}

void xio__lease_forget(xio_ctx *ctx, xio__lease *l) {
  xio__keeper *k = &ctx->keeper;
  pthread_mutex_lock(&k->mu);
  while (l->renewing)
    pthread_cond_wait(&k->cv, &k->mu);
  for (xio__lease **p = &k->leases; *p; p = &(*p)->next)
    if (*p == l) {
      *p = l->next;
      break;
    }
  pthread_mutex_unlock(&k->mu);
}

int xio_file_lease_lost(const xio_file *f) { return f->lease && !xio__lease_valid(f->lease); }

/* ------------------------------------------------- confirming on demand ---- */

/* 1 when the service confirmed `l` (an acquire or renewal acknowledged, dated from its
 * sending) no more than `max_age_us` ago on the lease clock. */
static int confirmed_within(xio_ctx *ctx, xio__lease *l, int64_t max_age_us) {
  int64_t last = atomic_load(&l->expires_us) - (int64_t)ctx->opts.lease_duration_s * 1000000;
  return xio__lease_now(ctx) - last <= max_age_us;
}

/* XIO_ELEASELOST for a lease known lost, saying how. */
static xio_err lost(xio__lease *l, xio_error *err) {
  if (atomic_load(&l->lost) == XIO__LEASE_EXPIRED)
    xio_error_set(err, XIO_ELEASELOST,
                  "the lease on %s ran out: it was not renewed within its %d s (the process "
                  "was paused or the service unreachable)",
                  l->file->path, l->file->ctx->opts.lease_duration_s);
  else
    xio_error_set(err, XIO_ELEASELOST,
                  "the lease on %s is lost: the service refused it (another client broke or "
                  "took it, or the blob is gone)",
                  l->file->path);
  xio_error_set_operation(err, "Lease");
  xio_error_set_target(err, l->file->path);
  return XIO_ELEASELOST;
}

/* Sends one renewal of `l` from this thread and waits for it: the lease confirmed,
 * lost (the service refused it for the lease, or the blob is gone), or another
 * error (unreachable, throttled, a credential refused) that leaves it as it was. */
static xio_err renew_now(xio_ctx *ctx, xio__lease *l, xio_error *err) {
  int64_t sent;
  xio_err rc = send_renewal(ctx, l, &sent, err);
  if (rc != XIO_ELEASELOST && rc != XIO_ECONFLICT && rc != XIO_ENOTFOUND) return rc;
  xio__lease_lose(l, XIO__LEASE_REFUSED);
  return lost(l, err);
}

xio_err xio_file_lease_confirm(xio_file *f, int64_t max_age_ms, xio_error *err) {
  if (!f) return xio_error_set(err, XIO_EINVAL, "no file");
  if (max_age_ms < 0)
    return xio_error_set(err, XIO_EINVAL, "max_age_ms %lld < 0", (long long)max_age_ms);
  if (xio__ctx_check_process(f->ctx, err) != XIO_OK) return XIO_EINVAL;
  if (xio__ctx_on_io_thread(f->ctx))
    return xio_error_set(err, XIO_EINVAL,
                         "confirming the lease would block: not allowed from a completion "
                         "callback on %s",
                         f->path);
  xio__lease *l = f->lease;
  if (!l) return XIO_OK;
  xio_ctx *ctx = f->ctx;
  xio__keeper *k = &ctx->keeper;
  int64_t max_age_us = max_age_ms > INT64_MAX / 1000 ? INT64_MAX : max_age_ms * 1000;
  if (!xio__lease_valid(l)) return lost(l, err);
  pthread_mutex_lock(&k->mu);
  while (l->confirming) /* another thread is asking: its answer may do for this one */
    pthread_cond_wait(&k->cv, &k->mu);
  int ask = !confirmed_within(ctx, l, max_age_us);
  if (ask) l->confirming = 1;
  pthread_mutex_unlock(&k->mu);
  if (!ask) return xio__lease_valid(l) ? XIO_OK : lost(l, err);
  xio_err rc = xio__lease_valid(l) ? renew_now(ctx, l, err) : lost(l, err);
  pthread_mutex_lock(&k->mu);
  l->confirming = 0;
  pthread_cond_broadcast(&k->cv);
  pthread_mutex_unlock(&k->mu);
  return rc;
}
