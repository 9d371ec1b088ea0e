/*
 * snapshots.c - deleting one snapshot of a page blob (xio_snapshot_delete). The
 * snapshot is named by an id or by the target's own ?snapshot= query parameter;
 * the request goes to the blob's URL without it, so exactly one snapshot is named.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "ctx_int.h"

/* The one snapshot id named by `given` and the URL's own, into `*out` (malloc'd). */
static xio_err pick_id(const char *given, char *in_url, char **out, xio_error *err) {
  *out = NULL;
  if (given && in_url && strcmp(given, in_url) != 0)
    return xio_error_set(err, XIO_EINVAL, "two different snapshots named: %s in the URL and %s",
                         in_url, given);
  const char *id = given ? given : in_url;
  if (!id || !*id)
    return xio_error_set(err, XIO_EINVAL, "no snapshot named (give its id, or TARGET?snapshot=ID)");
  if (!(*out = xio_strdup(id))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

xio_err xio_snapshot_delete(xio_ctx *ctx, const char *target, const char *id, xio_error *err) {
  if (!ctx || !target) return xio_error_set(err, XIO_EINVAL, "xio_snapshot_delete: no target");
  if (xio_target_classify(target) != XIO_TARGET_BLOB)
    return xio_error_set(err, XIO_EUNSUPPORTED, "only page blobs have snapshots");
  char *base = NULL, *in_url = NULL, *snap = NULL;
  xio_err rc = xio__target_split_snapshot(target, &base, &in_url, err);
  if (rc == XIO_OK) rc = pick_id(id, in_url, &snap, err);
  xio__req r = {XIO_REQ_DELETE, NULL, 0, 0, NULL, NULL};
  xio_blob_target *t = NULL;
  xio_blob_call *c = NULL;
  if (rc == XIO_OK) rc = xio__ctx_blob_target(ctx, base, &t, err);
  if (rc == XIO_OK) rc = xio_blob_call_delete_snapshot(t, snap, NULL, &c, err);
  if (rc == XIO_OK) rc = xio__send(ctx, c, &r, err);
  if (rc != XIO_OK && t && err && !err->target[0])
    xio_error_set_target(err, xio_blob_target_safe_url(t));
  xio_blob_call_free(c);
  xio_blob_target_free(t);
  if (base) xio_auth_secret_free(base, strlen(base));
  xio_free(in_url);
  xio_free(snap);
  return rc;
}
