/*
 * copy.c - server-side copies of page blobs (xio_copy): checks both ends (the
 * source a page blob, the destination absent, replaceable or the source's own blob
 * for a restore, and not leased), starts Copy Blob, and waits while the service
 * reports it pending, polling the destination's properties with a growing delay.
 * Afterwards both ends' page ranges are summed, so that the caller sees whether
 * the copy stayed sparse.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blobmeta_int.h"
#include "ctx_int.h"

#define MAX_POLL_MS 5000

xio_copy_options xio_copy_options_default(void) {
  xio_copy_options o = {0, NULL, NULL, 250};
  return o;
}

/* One copy under way. */
typedef struct copy_job {
  xio_ctx *ctx;
  xio_copy_options o;
  xio_blob_target *src, *dst;
  xio_blob_props sp, dp;
  int dst_exists;
  xio_copy_result res;
} copy_job;

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static const char *url_of(const xio_blob_target *t) { return xio_blob_target_safe_url(t); }

/* Get Blob Properties of `t`, traced as `type`. */
static xio_err props_of(copy_job *j, xio_blob_target *t, xio_request_type type, xio_blob_props *p,
                        xio_blob_copy_state *cs, xio_error *err) {
  xio__req r = {type, NULL, 0, 0, NULL, NULL};
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_get_properties(t, NULL, &c, err);
  if (rc == XIO_OK) rc = xio__send(j->ctx, c, &r, err);
  if (rc == XIO_OK) rc = xio_blob_call_props(c, p, err);
  if (rc == XIO_OK && cs) rc = xio_blob_call_copy_state(c, cs, err);
  xio_blob_call_free(c);
  return rc;
}

/* 1 when `s` names a snapshot of the blob `d` names. */
static int is_own_snapshot(const xio_blob_target *s, const xio_blob_target *d) {
  const char *q = xio_blob_target_url(s)->query;
  return xio_auth_query_value(q, "snapshot", NULL) && strcmp(url_of(s), url_of(d)) == 0;
}

/* 1 when both name the same account on the same service endpoint. */
static int same_account(const xio_blob_target *a, const xio_blob_target *b) {
  return strcmp(xio_blob_target_url(a)->endpoint, xio_blob_target_url(b)->endpoint) == 0;
}

static xio_err check_source(copy_job *j, xio_error *err) {
  xio_err rc = props_of(j, j->src, XIO_REQ_OPEN, &j->sp, NULL, err);
  if (rc != XIO_OK) return rc;
  if (strcmp(j->sp.blob_type, "PageBlob") != 0)
    return xio_error_set(err, XIO_EUNSUPPORTED, "%s is a %s; xio copies page blobs", url_of(j->src),
                         j->sp.blob_type[0] ? j->sp.blob_type : "blob");
  if (!same_account(j->src, j->dst) && xio_blob_target_cred_kind(j->src) != XIO_AUTH_CRED_SAS &&
      xio_blob_target_cred_kind(j->src) != XIO_AUTH_CRED_NONE)
    return xio_error_set(err, XIO_ENOCRED,
                         "%s is in another account than the destination: the service reads it "
                         "itself, so its URL needs a SAS with read permission",
                         url_of(j->src));
  return XIO_OK;
}

static xio_err check_destination(copy_job *j, xio_error *err) {
  xio_err rc = props_of(j, j->dst, XIO_REQ_OPEN, &j->dp, NULL, err);
  if (rc == XIO_ENOTFOUND) {
    xio_error_clear(err);
    return XIO_OK;
  }
  if (rc != XIO_OK) return rc;
  j->dst_exists = 1;
  j->res.restored = is_own_snapshot(j->src, j->dst);
  if (strcmp(j->dp.lease_state, "leased") == 0 || strcmp(j->dp.lease_state, "breaking") == 0)
    return xio_error_set(err, XIO_EBUSY,
                         "%s is leased by another client; copying onto it would replace a file "
                         "in use",
                         url_of(j->dst));
  if (!j->res.restored && !(j->o.flags & XIO_COPY_FORCE))
    return xio_error_set(err, XIO_EEXIST, "%s exists; force the copy to replace it",
                         url_of(j->dst));
  return XIO_OK;
}

/* Maps the service's refusals of a copy onto the destination to clear errors. */
static xio_err copy_refused(copy_job *j, xio_err rc, xio_error *err) {
  const char *code = err ? err->service_code : "";
  if (strcmp(code, "LeaseIdMissing") == 0 || strcmp(code, "LeaseIdMismatchWithBlobOperation") == 0)
    return xio_error_set(err, XIO_EBUSY, "%s is leased by another client (%s)", url_of(j->dst),
                         code);
  if (strcmp(code, "BlobAlreadyExists") == 0)
    return xio_error_set(err, XIO_EEXIST, "%s was created meanwhile; force the copy to replace it",
                         url_of(j->dst));
  return rc;
}

/* Sends Copy Blob (creating the destination's container when it is missing); fills
 * `cs` with what it answered. */
static xio_err start_copy(copy_job *j, xio_blob_copy_state *cs, xio_error *err) {
  xio_blob_cond cond = {NULL, NULL, j->dst_exists ? NULL : "*"};
  if (j->dst_exists && j->dp.etag[0]) cond.if_match = j->dp.etag; /* unchanged since checked */
  xio__req r = {XIO_REQ_COPY, NULL, 0, j->sp.size, NULL, NULL};
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_copy(j->dst, j->src, &cond, &c, err);
  if (rc == XIO_OK) rc = xio__send_in_container(j->ctx, c, &r, err);
  if (rc == XIO_OK) rc = xio_blob_call_copy_state(c, cs, err);
  xio_blob_call_free(c);
  return rc == XIO_OK ? XIO_OK : copy_refused(j, rc, err);
}

static void report_progress(copy_job *j, const xio_blob_copy_state *cs) {
  if (!j->o.progress) return;
  uint64_t total = cs->total ? cs->total : j->sp.size;
  uint64_t done = strcmp(cs->status, "success") == 0 ? total : cs->copied;
  j->o.progress(done, total, j->o.progress_ud);
}

/* Waits while the copy is pending; returns its outcome. */
static xio_err wait_copy(copy_job *j, xio_blob_copy_state *cs, xio_error *err) {
  int delay = j->o.poll_ms > 0 ? j->o.poll_ms : 250;
  snprintf(j->res.copy_id, sizeof j->res.copy_id, "%s", cs->id);
  report_progress(j, cs);
  while (strcmp(cs->status, "pending") == 0) {
    sleep_ms(delay);
    delay = delay * 2 > MAX_POLL_MS ? MAX_POLL_MS : delay * 2;
    xio_blob_props p;
    xio_err rc = props_of(j, j->dst, XIO_REQ_GET_SIZE, &p, cs, err);
    j->res.polls++;
    if (rc != XIO_OK) return rc;
    if (j->res.copy_id[0] && strcmp(cs->id, j->res.copy_id) != 0)
      return xio_error_set(err, XIO_ECONFLICT, "another copy onto %s replaced this one",
                           url_of(j->dst));
    report_progress(j, cs);
  }
  if (strcmp(cs->status, "success") == 0 || cs->status[0] == '\0') return XIO_OK;
  return xio_error_set(err, XIO_ECONFLICT, "the copy onto %s ended %s%s%s", url_of(j->dst),
                       cs->status, cs->description[0] ? ": " : "", cs->description);
}

static xio_err send_ranges(void *ud, xio_blob_call *c, xio_error *err) {
  xio__req r = {XIO_REQ_RANGES, NULL, 0, 0, NULL, NULL};
  return xio__send(ud, c, &r, err);
}

static xio_err allocated(copy_job *j, xio_blob_target *t, uint64_t size, uint64_t *out,
                         xio_error *err) {
  xio_ranges r = {NULL, 0, 0};
  xio_err rc =
      size ? xio_blob_get_ranges_with(send_ranges, j->ctx, t, 0, size, 0, &r, err) : XIO_OK;
  *out = xio_ranges_bytes(&r);
  xio_ranges_clear(&r);
  return rc;
}

static xio_err run_copy(copy_job *j, const char *src, const char *dst, xio_error *err) {
  xio_err rc = xio__ctx_blob_target(j->ctx, src, &j->src, err);
  if (rc == XIO_OK) rc = xio__ctx_blob_target(j->ctx, dst, &j->dst, err);
  if (rc != XIO_OK) return rc;
  if (!xio_blob_target_url(j->src)->blob || !xio_blob_target_url(j->dst)->blob)
    return xio_error_set(err, XIO_EPARSE, "a copy needs blob URLs at both ends");
  if (strcmp(url_of(j->src), url_of(j->dst)) == 0 && !is_own_snapshot(j->src, j->dst))
    return xio_error_set(err, XIO_EINVAL, "source and destination are the same blob");
  xio_blob_copy_state cs;
  rc = check_source(j, err);
  if (rc == XIO_OK) rc = check_destination(j, err);
  if (rc == XIO_OK) rc = start_copy(j, &cs, err);
  if (rc == XIO_OK) rc = wait_copy(j, &cs, err);
  if (rc != XIO_OK) return rc;
  xio__blobmeta m;
  xio__blobmeta_from_props(&j->sp, &m);
  j->res.size = m.size;
  rc = allocated(j, j->src, j->sp.size, &j->res.src_allocated, err);
  if (rc == XIO_OK) rc = allocated(j, j->dst, j->sp.size, &j->res.dst_allocated, err);
  return rc;
}

xio_err xio_copy(xio_ctx *ctx, const char *src, const char *dst, const xio_copy_options *opts,
                 xio_copy_result *out, xio_error *err) {
  if (!ctx || !src || !dst)
    return xio_error_set(err, XIO_EINVAL, "xio_copy: no source or destination");
  if (xio_target_classify(src) != XIO_TARGET_BLOB || xio_target_classify(dst) != XIO_TARGET_BLOB)
    return xio_error_set(err, XIO_EUNSUPPORTED,
                         "server-side copies run between page blobs; copy a local file with "
                         "reads and writes");
  copy_job j;
  memset(&j, 0, sizeof j);
  j.ctx = ctx;
  j.o = opts ? *opts : xio_copy_options_default();
  xio_err rc = run_copy(&j, src, dst, err);
  if (rc != XIO_OK && err && !err->target[0] && j.dst) xio_error_set_target(err, url_of(j.dst));
  if (out) *out = j.res;
  xio_blob_target_free(j.src);
  xio_blob_target_free(j.dst);
  return rc;
}
