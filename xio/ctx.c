/*
 * ctx.c - the context's life: options and their checks, starting the REST engine
 * (the file layer's retry and checksum settings mapped to blobio's here, and its
 * completion hook set to the trace's), the lease keeper and the local workers,
 * loading credentials, opening the trace file; its cancel (the engine's, for a
 * program told to stop); and, at the end, closing files still open and stopping it
 * all in order.
 *
 * The composition root: it calls every part of the layer, and no part calls it; what
 * the parts ask of a context they hold is ctx_state.c's.
 *
 * Ownership of the option strings: the caller's strings are borrowed only during
 * xio_ctx_new. trace_path, connection_string and credential_file are read once
 * (the file opened, the credentials parsed); ca_file is copied, because the engine
 * reads it again at each TLS connection. The copy kept in ctx->opts has these four
 * pointers NULL, except ca_file, which points at the context's own copy. The
 * callbacks' user data (trace_ud, clock.ud, lease_clock.ud) are borrowed for the
 * context's whole life.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "ctx_int.h"

static xio_retry retry_from_blob(xio_blob_retry_policy p) {
  xio_retry r = {p.max_retries,    p.base_delay_ms, p.max_delay_ms,
                 p.try_timeout_ms, p.deadline_ms,   p.throttle_ms};
  return r;
}

static xio_blob_retry_policy retry_to_blob(xio_retry r) {
  xio_blob_retry_policy p = {r.max_retries,    r.base_delay_ms, r.max_delay_ms,
                             r.try_timeout_ms, r.deadline_ms,   r.throttle_ms};
  return p;
}

static xio_checksum checksum_from_blob(xio_blob_checksum c) {
  switch (c) {
  case XIO_BLOB_CHECKSUM_MD5: return XIO_CHECKSUM_MD5;
  case XIO_BLOB_CHECKSUM_NONE: return XIO_CHECKSUM_NONE;
  default: return XIO_CHECKSUM_CRC64;
  }
}

static xio_blob_checksum checksum_to_blob(xio_checksum c) {
  switch (c) {
  case XIO_CHECKSUM_MD5: return XIO_BLOB_CHECKSUM_MD5;
  case XIO_CHECKSUM_NONE: return XIO_BLOB_CHECKSUM_NONE;
  default: return XIO_BLOB_CHECKSUM_CRC64;
  }
}

xio_ctx_options xio_ctx_options_default(void) {
  xio_ctx_options o;
  memset(&o, 0, sizeof o);
  xio_blob_engine_options e = xio_blob_engine_options_default();
  o.max_in_flight = e.max_in_flight;
  o.retry = retry_from_blob(e.retry);
  o.checksum = checksum_from_blob(e.checksum);
  o.lease_duration_s = 60;
  o.lease_renew_s = 20;
  o.local_threads = 4;
  o.use_environment = 1;
  return o;
}

static xio_err check_options(const xio_ctx_options *o, xio_error *err) {
  if (!xio_blob_lease_duration_ok(o->lease_duration_s, 0))
    return xio_error_set(err, XIO_EINVAL, "lease_duration_s %d outside %d..%d", o->lease_duration_s,
                         XIO_BLOB_LEASE_MIN_S, XIO_BLOB_LEASE_MAX_S);
  if (o->lease_renew_s < 1 || o->lease_renew_s >= o->lease_duration_s)
    return xio_error_set(err, XIO_EINVAL,
                         "lease_renew_s %d must be at least 1 and below the lease duration",
                         o->lease_renew_s);
  if (o->local_threads < 1 || o->local_threads > 256)
    return xio_error_set(err, XIO_EINVAL, "local_threads %d outside 1..256", o->local_threads);
  if (o->checksum != XIO_CHECKSUM_CRC64 && o->checksum != XIO_CHECKSUM_MD5 &&
      o->checksum != XIO_CHECKSUM_NONE)
    return xio_error_set(err, XIO_EINVAL, "unknown checksum %d", (int)o->checksum);
  return XIO_OK;
}

/* The pacing mode: the option, else with use_environment XIO_PACING (auto, on, off).
 * XIO_EINVAL naming the variable when it holds anything else. */
static xio_err pacing_mode(const xio_ctx *ctx, xio_blob_pacing *out, xio_error *err) {
  static const char *const names[] = {"auto", "off", "on"};
  const char *env = ctx->opts.use_environment ? getenv("XIO_PACING") : NULL;
  *out = (xio_blob_pacing)ctx->opts.pacing; /* the same three values */
  if (ctx->opts.pacing != XIO_PACING_AUTO || !env || !*env) return XIO_OK;
  for (int i = 0; i < 3; i++)
    if (strcmp(env, names[i]) == 0) {
      *out = (xio_blob_pacing)i;
      return XIO_OK;
    }
  return xio_error_set(err, XIO_EINVAL, "XIO_PACING is '%s': use auto, on or off", env);
}

static xio_err start_engine(xio_ctx *ctx, xio_error *err) {
  xio_blob_engine_options e = xio_blob_engine_options_default();
  xio_err rc = pacing_mode(ctx, &e.pacing, err);
  if (rc != XIO_OK) return rc;
  e.max_in_flight = ctx->opts.max_in_flight;
  e.retry = retry_to_blob(ctx->opts.retry);
  e.checksum = checksum_to_blob(ctx->opts.checksum);
  e.ca_file = ctx->ca_file;
  e.allow_insecure_remote = ctx->opts.allow_insecure_remote;
  e.clock = ctx->opts.clock;
  e.max_rate_bps = ctx->opts.max_rate_bps;
  e.on_complete = xio__trace_call_done; /* every call it completes is traced */
  e.on_complete_ud = ctx;
  e.on_try = xio__trace_try_done; /* and every try that failed on the way */
  e.on_try_ud = ctx;
  return xio_blob_engine_new(&e, &ctx->engine, err);
}

static xio_err setup(xio_ctx *ctx, xio_error *err) {
  xio_err rc = check_options(&ctx->opts, err);
  const char *ca = ctx->opts.ca_file;
  if (!ca && ctx->opts.use_environment) ca = getenv("XIO_CA_BUNDLE");
  if (rc == XIO_OK && ca && *ca && !(ctx->ca_file = xio_strdup(ca)))
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (rc == XIO_OK && !(ctx->zeros = xio_calloc(1, XIO__CTX_ZEROS_LEN)))
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (rc == XIO_OK) rc = xio__creds_load(&ctx->creds, &ctx->opts, err);
  if (rc == XIO_OK) rc = xio__trace_open(ctx, err);
  if (rc == XIO_OK) rc = start_engine(ctx, err);
  if (rc == XIO_OK) xio__creds_set_engine(&ctx->creds, ctx->engine);
  if (rc == XIO_OK) rc = xio__workers_start(&ctx->workers, ctx->opts.local_threads, err);
  if (rc == XIO_OK) rc = xio__keeper_start(ctx, err);
  if (rc == XIO_OK) rc = xio__combiner_start(ctx, err);
  return rc;
}

static void teardown(xio_ctx *ctx) {
  xio__combiner_stop(ctx);
  xio__keeper_stop(ctx);
  xio__workers_stop(&ctx->workers);
  xio__creds_stop_tokens(&ctx->creds); /* their fetches send on the engine */
  xio_blob_engine_free(ctx->engine);
  xio__trace_close(ctx);
  xio__creds_free(&ctx->creds);
  pthread_mutex_destroy(&ctx->trace_mu);
  xio__tracked_destroy(&ctx->open_files);
  xio_free(ctx->ca_file);
  xio_free(ctx->zeros);
  xio_free(ctx);
}

xio_err xio_ctx_new(const xio_ctx_options *opts, xio_ctx **out, xio_error *err) {
  *out = NULL;
  xio_ctx *ctx = xio_calloc(1, sizeof *ctx);
  if (!ctx) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  /* The caller's strings are borrowed for setup only (see the top of this file). */
  ctx->opts = opts ? *opts : xio_ctx_options_default();
  ctx->pid = getpid();
  pthread_mutex_init(&ctx->trace_mu, NULL);
  xio__tracked_init(&ctx->open_files);
  xio_err rc = setup(ctx, err);
  ctx->opts.trace_path = ctx->opts.connection_string = ctx->opts.credential_file = NULL;
  ctx->opts.ca_file = ctx->ca_file; /* owned by ctx */
  if (rc != XIO_OK) {
    xio_error_set_operation(err, "CreateContext");
    teardown(ctx);
    return rc;
  }
  *out = ctx;
  return XIO_OK;
}

/* Closes the files still open: each is taken out of the set before it is closed,
 * so the loop ends whatever a close does. */
static void close_open_files(xio_ctx *ctx) {
  xio__tracked_node *n;
  while ((n = xio__tracked_take(&ctx->open_files)))
    xio_file_close((xio_file *)((char *)n - offsetof(xio_file, open_node)), NULL);
}

xio_err xio_ctx_free(xio_ctx *ctx) {
  if (!ctx) return XIO_OK;
  /* In a forked child the threads to stop are not there, and the connections and
   * leases are the parent's: leave it all alone. */
  if (xio__ctx_check_process(ctx, NULL) != XIO_OK) return XIO_EINVAL;
  /* On the context's own threads, stopping them would wait for ourselves. */
  if (xio__ctx_on_io_thread(ctx)) return XIO_EINVAL;
  close_open_files(ctx);
  teardown(ctx);
  return XIO_OK;
}

/* Async-signal-safe: getpid(2) and the engine's cancel (blob_engine.h). */
void xio_ctx_cancel(xio_ctx *ctx, int grace_ms) {
  if (!ctx || getpid() != ctx->pid) return; /* a forked child: the engine is the parent's */
  xio_blob_engine_cancel(ctx->engine, grace_ms);
}
