/*
 * list.c - what is in a container: xio_list walks a container's blobs page by page
 * (List Blobs, following the continuation marker), turns each into an
 * xio_list_entry (xio's kind, logical size and incomplete mark come from the blob's
 * metadata, its allocated bytes from its page ranges when asked),
 * xio_snapshot_list is the same walk narrowed to one blob's snapshots, and
 * xio_container_list walks an account's containers (List Containers).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "blobmeta_int.h"
#include "ctx_int.h"

xio_list_options xio_list_options_default(void) {
  xio_list_options o = {NULL, 0, 0};
  return o;
}

/* One listing under way. */
typedef struct lister {
  xio_ctx *ctx;
  xio_blob_target *cont; /* the container (or a blob in it: listings address the container) */
  const char *query;     /* the URL's query (a SAS), or NULL: per-blob URLs carry it */
  unsigned flags;
  const char *only; /* snapshot listing: this blob's name, and snapshots only */
  xio_list_fn fn;
  void *ud;
} lister;

/* The URL of `name` (at `snapshot` when not NULL) beside the listed container, with
 * the listing URL's query. malloc'd (a secret when it has a SAS); NULL on
 * out-of-memory. */
static char *blob_url(const lister *l, const char *name, const char *snapshot) {
  const xio_auth_url *u = xio_blob_target_url(l->cont);
  char *n = xio_auth_encode_path(name), *s = NULL;
  if (snapshot && xio_auth_pct_encode(snapshot, NULL, &s, NULL) != XIO_OK) s = NULL;
  size_t len = strlen(u->endpoint) + strlen(u->container) + (n ? strlen(n) : 0) +
               (s ? strlen(s) : 0) + (l->query ? strlen(l->query) : 0) + 24;
  char *url = n && (s || !snapshot) ? xio_malloc(len) : NULL;
  if (url) {
    int k = snprintf(url, len, "%s/%s/%s", u->endpoint, u->container, n);
    char sep = '?';
    if (s) k += snprintf(url + k, len - (size_t)k, "%csnapshot=%s", sep, s), sep = '&';
    if (l->query) snprintf(url + k, len - (size_t)k, "%c%s", sep, l->query);
  }
  xio_free(n);
  xio_free(s);
  return url;
}

/* Sends one Get Page Ranges of the allocated-bytes walk (traced on the blob). */
static xio_err send_ranges(void *ud, xio_blob_call *c, xio_error *err) {
  xio__req r = {XIO_REQ_RANGES, NULL, 0, 0, NULL, NULL};
  return xio__send(ud, c, &r, err);
}

/* The bytes in the page ranges of `item`. */
static xio_err allocated_of(const lister *l, const xio_blob_item *item, uint64_t *out,
                            xio_error *err) {
  char *url = blob_url(l, item->name, item->snapshot);
  if (!url) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_blob_target *t = NULL;
  xio_err rc = xio__ctx_blob_target(l->ctx, url, &t, err);
  xio_auth_secret_free(url, strlen(url));
  xio_ranges r = {NULL, 0, 0};
  if (rc == XIO_OK && item->size > 0)
    rc = xio_blob_get_ranges_with(send_ranges, l->ctx, t, 0, item->size, 0, &r, err);
  if (rc == XIO_OK) *out = xio_ranges_bytes(&r);
  xio_ranges_clear(&r);
  xio_blob_target_free(t);
  return rc;
}

/* Hands one listed blob to the callback. */
static xio_err emit(const lister *l, const xio_blob_item *item, xio_error *err) {
  if (l->only && (strcmp(item->name, l->only) != 0 || !item->snapshot)) return XIO_OK;
  xio__blobmeta m;
  xio__blobmeta_from_item(item, &m);
  xio_list_entry e = {item->name,
                      item->snapshot,
                      item->blob_type,
                      m.kind,
                      m.size,
                      item->size,
                      XIO_UNKNOWN_SIZE,
                      item->lease_state,
                      item->lease_status,
                      item->lease_duration,
                      item->last_modified,
                      m.incomplete};
  if ((l->flags & XIO_LIST_ALLOCATED) && strcmp(item->blob_type, "PageBlob") == 0) {
    xio_err rc = allocated_of(l, item, &e.allocated, err);
    if (rc != XIO_OK) return rc;
  }
  if (l->fn(&e, l->ud) != 0) return xio_error_set(err, XIO_ECANCELED, "listing stopped");
  return XIO_OK;
}

/* Lists one page from `*marker` (replaced by the next one, NULL at the end). */
static xio_err list_page(lister *l, const char *prefix, int page_size, char **marker,
                         xio_error *err) {
  unsigned include =
      XIO_BLOB_LIST_METADATA | (l->flags & XIO_LIST_SNAPSHOTS ? XIO_BLOB_LIST_SNAPSHOTS : 0u);
  xio__req r = {XIO_REQ_LIST, NULL, 0, 0, NULL, NULL};
  xio_blob_call *c = NULL;
  xio_blob_list page = {NULL, 0, NULL};
  xio_err rc = xio_blob_call_list_include(l->cont, prefix, *marker, page_size, include, &c, err);
  if (rc == XIO_OK) rc = xio__send(l->ctx, c, &r, err);
  if (rc == XIO_OK) rc = xio_blob_call_list_result(c, &page, err);
  xio_blob_call_free(c);
  for (size_t i = 0; rc == XIO_OK && i < page.n; i++)
    rc = emit(l, &page.v[i], err);
  xio_free(*marker);
  *marker = NULL;
  if (rc == XIO_OK && page.next_marker) *marker = page.next_marker, page.next_marker = NULL;
  xio_blob_list_clear(&page);
  return rc;
}

/* Checks the target and makes the lister's container target. */
static xio_err lister_init(lister *l, xio_ctx *ctx, const char *url, xio_error *err) {
  if (xio_target_classify(url) != XIO_TARGET_BLOB)
    return xio_error_set(err, XIO_EUNSUPPORTED,
                         "listing needs a container URL (http:// or "
                         "https://), not a local path");
  xio_err rc = xio__ctx_blob_target(ctx, url, &l->cont, err);
  if (rc != XIO_OK) return rc;
  const xio_auth_url *u = xio_blob_target_url(l->cont);
  if (!u->container)
    return xio_error_set(err, XIO_EPARSE, "%s names no container",
                         xio_blob_target_safe_url(l->cont));
  l->ctx = ctx;
  l->query = u->query && *u->query ? u->query : NULL;
  return XIO_OK;
}

static xio_err walk(lister *l, const char *prefix, int page_size, xio_error *err) {
  char *marker = NULL;
  xio_err rc;
  do
    rc = list_page(l, prefix, page_size, &marker, err);
  while (rc == XIO_OK && marker);
  xio_free(marker);
  return rc;
}

xio_err xio_list(xio_ctx *ctx, const char *container_url, const xio_list_options *opts,
                 xio_list_fn fn, void *ud, xio_error *err) {
  xio_list_options o = opts ? *opts : xio_list_options_default();
  if (!ctx || !container_url || !fn)
    return xio_error_set(err, XIO_EINVAL, "xio_list: no context, URL or callback");
  if (o.page_size < 0 || o.page_size > 5000)
    return xio_error_set(err, XIO_EINVAL, "list page size %d outside 1..5000 (0: the default)",
                         o.page_size);
  if (o.flags & ~(unsigned)(XIO_LIST_SNAPSHOTS | XIO_LIST_ALLOCATED))
    return xio_error_set(err, XIO_EINVAL, "unknown list flags 0x%x", o.flags);
  lister l = {0};
  l.flags = o.flags, l.fn = fn, l.ud = ud;
  xio_err rc = lister_init(&l, ctx, container_url, err);
  if (rc == XIO_OK) rc = walk(&l, o.prefix, o.page_size, err);
  if (rc != XIO_OK && l.cont && err && !err->target[0])
    xio_error_set_target(err, xio_blob_target_safe_url(l.cont));
  xio_blob_target_free(l.cont);
  return rc;
}

xio_err xio_snapshot_list(xio_ctx *ctx, const char *target, unsigned flags, xio_list_fn fn,
                          void *ud, xio_error *err) {
  if (!ctx || !target || !fn)
    return xio_error_set(err, XIO_EINVAL, "xio_snapshot_list: no context, target or callback");
  if (flags & ~(unsigned)XIO_LIST_ALLOCATED)
    return xio_error_set(err, XIO_EINVAL, "unknown snapshot list flags 0x%x", flags);
  if (xio_target_classify(target) == XIO_TARGET_LOCAL)
    return xio_error_set(err, XIO_EUNSUPPORTED, "local files have no snapshots");
  lister l = {0};
  l.flags = flags | XIO_LIST_SNAPSHOTS, l.fn = fn, l.ud = ud;
  xio_err rc = lister_init(&l, ctx, target, err);
  const xio_auth_url *u = rc == XIO_OK ? xio_blob_target_url(l.cont) : NULL;
  if (rc == XIO_OK && !u->blob)
    rc = xio_error_set(err, XIO_EPARSE, "%s names no blob", xio_blob_target_safe_url(l.cont));
  if (rc == XIO_OK) {
    l.only = u->blob;
    rc = walk(&l, u->blob, 0, err);
  }
  if (rc != XIO_OK && l.cont && err && !err->target[0])
    xio_error_set_target(err, xio_blob_target_safe_url(l.cont));
  xio_blob_target_free(l.cont);
  return rc;
}

/* Lists one page of containers from `*marker` (replaced by the next one, NULL at
 * the end). */
static xio_err container_page(xio_ctx *ctx, xio_blob_target *account, const char *prefix,
                              char **marker, xio_container_fn fn, void *ud, xio_error *err) {
  xio__req r = {XIO_REQ_LIST, NULL, 0, 0, NULL, NULL};
  xio_blob_call *c = NULL;
  xio_blob_container_list page = {NULL, 0, NULL};
  xio_err rc = xio_blob_call_list_containers(account, prefix, *marker, 0, &c, err);
  if (rc == XIO_OK) rc = xio__send(ctx, c, &r, err);
  if (rc == XIO_OK) rc = xio_blob_call_container_list_result(c, &page, err);
  xio_blob_call_free(c);
  for (size_t i = 0; rc == XIO_OK && i < page.n; i++) {
    xio_container_entry e = {page.v[i].name, page.v[i].last_modified};
    if (fn(&e, ud) != 0) rc = xio_error_set(err, XIO_ECANCELED, "listing stopped");
  }
  xio_free(*marker);
  *marker = NULL;
  if (rc == XIO_OK && page.next_marker) *marker = page.next_marker, page.next_marker = NULL;
  xio_blob_container_list_clear(&page);
  return rc;
}

xio_err xio_container_list(xio_ctx *ctx, const char *account_url, const char *prefix,
                           xio_container_fn fn, void *ud, xio_error *err) {
  if (!ctx || !account_url || !fn)
    return xio_error_set(err, XIO_EINVAL, "xio_container_list: no context, URL or callback");
  if (xio_target_classify(account_url) != XIO_TARGET_BLOB)
    return xio_error_set(err, XIO_EUNSUPPORTED,
                         "listing containers needs an account URL (http:// or https://), not a "
                         "local path");
  xio_blob_target *account = NULL;
  xio_err rc = xio__ctx_blob_target(ctx, account_url, &account, err);
  char *marker = NULL;
  while (rc == XIO_OK) {
    rc = container_page(ctx, account, prefix, &marker, fn, ud, err);
    if (!marker) break;
  }
  xio_free(marker);
  if (rc != XIO_OK && account && err && !err->target[0])
    xio_error_set_target(err, xio_blob_target_safe_url(account));
  xio_blob_target_free(account);
  return rc;
}
