/*
 * build.c - the builders: one function per REST operation that checks its
 * arguments against the service limits and turns them into a call (method, query,
 * headers, borrowed body). Nothing here sends, signs or allocates a connection.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include <xio/alloc.h>

#include "call_int.h"
#include "limits_int.h"

#define PERM(x) XIO_AUTH_PERM(x)

/* Finishes a builder: on failure frees the call and names the operation. */
static xio_err finish(xio_blob_call *c, xio_err rc, xio_blob_call **out, xio_error *err) {
  if (rc == XIO_OK) {
    *out = c;
    return XIO_OK;
  }
  if (rc == XIO_ENOMEM) xio_error_set(err, rc, "out of memory building %s", c->operation);
  xio_blob_call_free(c);
  return rc;
}

static void range_header(xio_blob_call *c, uint64_t offset, uint64_t len, xio_err *rc) {
  char v[64];
  snprintf(v, sizeof v, "bytes=%" PRIu64 "-%" PRIu64, offset, offset + len - 1);
  xio__blob_call_header(c, "x-ms-range", v, rc);
}

static void u64_header(xio_blob_call *c, const char *name, uint64_t v, xio_err *rc) {
  char s[32];
  snprintf(s, sizeof s, "%" PRIu64, v);
  xio__blob_call_header(c, name, s, rc);
}

static void meta_headers(xio_blob_call *c, const xio_blob_meta *meta, int nmeta, xio_err *rc) {
  for (int i = 0; i < nmeta; i++) {
    char name[80];
    snprintf(name, sizeof name, "x-ms-meta-%s", meta[i].name);
    xio__blob_call_header(c, name, meta[i].value, rc);
  }
}

static xio_err check_meta(const char *op, const xio_blob_meta *meta, int nmeta, xio_error *err) {
  if (nmeta < 0 || nmeta > XIO_BLOB_MAX_META || (nmeta && !meta))
    return xio_error_set(err, XIO_EINVAL, "%s: %d metadata entries (at most %d)", op, nmeta,
                         XIO_BLOB_MAX_META);
  for (int i = 0; i < nmeta; i++) {
    const char *n = meta[i].name;
    int ok = (n[0] >= 'a' && n[0] <= 'z') || (n[0] >= 'A' && n[0] <= 'Z') || n[0] == '_';
    for (const char *p = n; ok && *p; p++)
      ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
           *p == '_';
    if (!ok)
      return xio_error_set(err, XIO_EINVAL, "%s: metadata name \"%s\" is not an identifier", op, n);
  }
  return XIO_OK;
}

static xio_err need_blob(const char *op, const xio_blob_target *t, xio_error *err) {
  if (!t) return xio_error_set(err, XIO_EINVAL, "%s: no target", op);
  if (!t->url.container || !t->url.blob)
    return xio_error_set(err, XIO_EINVAL, "%s: %s names no blob", op, t->safe_url);
  return XIO_OK;
}

static xio_err need_container(const char *op, const xio_blob_target *t, xio_error *err) {
  if (!t) return xio_error_set(err, XIO_EINVAL, "%s: no target", op);
  if (!t->url.container)
    return xio_error_set(err, XIO_EINVAL, "%s: %s names no container", op, t->safe_url);
  return XIO_OK;
}

xio_err xio_blob_call_create_container(const xio_blob_target *t, xio_blob_call **out,
                                       xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_container("CreateContainer", t, err);
  if (rc == XIO_OK)
    rc = xio__blob_call_new(t, "CreateContainer", "PUT", "restype=container", &c, err);
  if (rc != XIO_OK) return rc;
  c->container_level = 1;
  c->need_perms = PERM('c');
  return finish(c, rc, out, err);
}

/* A query value percent-encoded by the base's codec; NULL on out-of-memory. */
static char *escape(const char *s) {
  char *out;
  return xio_auth_pct_encode(s, NULL, &out, NULL) == XIO_OK ? out : NULL;
}

/* The include= value of a listing ("snapshots,metadata"), or "" for none. */
static const char *include_value(unsigned include) {
  static const char *const values[] = {"", "snapshots", "metadata", "snapshots,metadata"};
  return values[include & 3u];
}

xio_err xio_blob_call_list(const xio_blob_target *t, const char *prefix, const char *marker,
                           int maxresults, xio_blob_call **out, xio_error *err) {
  return xio_blob_call_list_include(t, prefix, marker, maxresults, 0, out, err);
}

/* The query of a listing: `base`, then include=, prefix=, marker= and maxresults=
 * where given. malloc'd; NULL on out-of-memory. */
static char *list_query(const char *base, unsigned include, const char *prefix, const char *marker,
                        int maxresults) {
  char *p = prefix ? escape(prefix) : NULL, *m = marker ? escape(marker) : NULL;
  size_t n = strlen(base) + 96 + (p ? strlen(p) : 0) + (m ? strlen(m) : 0);
  char *q = (prefix && !p) || (marker && !m) ? NULL : xio_malloc(n);
  if (q) {
    int len = snprintf(q, n, "%s", base);
    if (include) len += snprintf(q + len, n - (size_t)len, "&include=%s", include_value(include));
    if (p) len += snprintf(q + len, n - (size_t)len, "&prefix=%s", p);
    if (m) len += snprintf(q + len, n - (size_t)len, "&marker=%s", m);
    if (maxresults) snprintf(q + len, n - (size_t)len, "&maxresults=%d", maxresults);
  }
  xio_free(p);
  xio_free(m);
  return q;
}

xio_err xio_blob_call_list_include(const xio_blob_target *t, const char *prefix, const char *marker,
                                   int maxresults, unsigned include, xio_blob_call **out,
                                   xio_error *err) {
  *out = NULL;
  xio_err rc = need_container("ListBlobs", t, err);
  if (rc != XIO_OK) return rc;
  if (maxresults < 0 || maxresults > 5000)
    return xio_error_set(err, XIO_EINVAL, "ListBlobs: maxresults %d outside 1..5000", maxresults);
  if (include & ~(unsigned)(XIO_BLOB_LIST_SNAPSHOTS | XIO_BLOB_LIST_METADATA))
    return xio_error_set(err, XIO_EINVAL, "ListBlobs: unknown include flags 0x%x", include);
  char *q = list_query("restype=container&comp=list", include, prefix, marker, maxresults);
  if (!q) return xio_error_set(err, XIO_ENOMEM, "out of memory building ListBlobs");
  xio_blob_call *c = NULL;
  rc = xio__blob_call_new(t, "ListBlobs", "GET", q, &c, err);
  xio_free(q);
  if (rc != XIO_OK) return rc;
  c->container_level = 1;
  c->need_perms = PERM('l');
  return finish(c, rc, out, err);
}

xio_err xio_blob_call_list_containers(const xio_blob_target *t, const char *prefix,
                                      const char *marker, int maxresults, xio_blob_call **out,
                                      xio_error *err) {
  *out = NULL;
  if (!t) return xio_error_set(err, XIO_EINVAL, "ListContainers: no target");
  if (maxresults < 0 || maxresults > 5000)
    return xio_error_set(err, XIO_EINVAL, "ListContainers: maxresults %d outside 1..5000",
                         maxresults);
  char *q = list_query("comp=list", 0, prefix, marker, maxresults);
  if (!q) return xio_error_set(err, XIO_ENOMEM, "out of memory building ListContainers");
  xio_blob_call *c = NULL;
  xio_err rc = xio__blob_call_new(t, "ListContainers", "GET", q, &c, err);
  xio_free(q);
  if (rc != XIO_OK) return rc;
  c->service_level = 1;
  c->need_perms = PERM('l');
  if (!(c->owned_path = xio__blob_target_account_path(t))) rc = XIO_ENOMEM;
  return finish(c, rc, out, err);
}

xio_err xio_blob_call_create(const xio_blob_target *t, uint64_t size, const xio_blob_meta *meta,
                             int nmeta, const xio_blob_cond *cond, xio_blob_call **out,
                             xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_blob("CreatePageBlob", t, err);
  if (rc == XIO_OK) rc = xio__blob_check_size("CreatePageBlob", size, err);
  if (rc == XIO_OK) rc = check_meta("CreatePageBlob", meta, nmeta, err);
  if (rc == XIO_OK) rc = xio__blob_call_new(t, "CreatePageBlob", "PUT", NULL, &c, err);
  if (rc != XIO_OK) return rc;
  xio__blob_call_header(c, "x-ms-blob-type", "PageBlob", &rc);
  u64_header(c, "x-ms-blob-content-length", size, &rc);
  meta_headers(c, meta, nmeta, &rc);
  xio__blob_call_cond(c, cond, &rc);
  c->need_any = PERM('c') | PERM('w');
  return finish(c, rc, out, err);
}

xio_err xio_blob_call_get_properties(const xio_blob_target *t, const xio_blob_cond *cond,
                                     xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_blob("GetBlobProperties", t, err);
  if (rc == XIO_OK) rc = xio__blob_call_new(t, "GetBlobProperties", "HEAD", NULL, &c, err);
  if (rc != XIO_OK) return rc;
  xio__blob_call_cond(c, cond, &rc);
  c->need_perms = PERM('r');
  return finish(c, rc, out, err);
}

xio_err xio_blob_call_resize(const xio_blob_target *t, uint64_t size, const xio_blob_cond *cond,
                             xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_blob("ResizeBlob", t, err);
  if (rc == XIO_OK) rc = xio__blob_check_size("ResizeBlob", size, err);
  if (rc == XIO_OK) rc = xio__blob_call_new(t, "ResizeBlob", "PUT", "comp=properties", &c, err);
  if (rc != XIO_OK) return rc;
  u64_header(c, "x-ms-blob-content-length", size, &rc);
  xio__blob_call_cond(c, cond, &rc);
  c->need_perms = PERM('w');
  return finish(c, rc, out, err);
}

xio_err xio_blob_call_put_page(const xio_blob_target *t, uint64_t offset, const void *data,
                               size_t len, uint64_t blob_size, const xio_blob_cond *cond,
                               xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_blob("PutPage", t, err);
  if (rc == XIO_OK)
    rc = xio__blob_check_pages("PutPage", offset, len, XIO_BLOB_MAX_PUT_PAGE, blob_size, err);
  if (rc == XIO_OK && !data) rc = xio_error_set(err, XIO_EINVAL, "PutPage: no data");
  if (rc == XIO_OK) rc = xio__blob_call_new(t, "PutPage", "PUT", "comp=page", &c, err);
  if (rc != XIO_OK) return rc;
  xio__blob_call_header(c, "x-ms-page-write", "update", &rc);
  range_header(c, offset, len, &rc);
  xio__blob_call_cond(c, cond, &rc);
  c->body = data;
  c->body_len = len;
  c->need_perms = PERM('w');
  return finish(c, rc, out, err);
}

xio_err xio_blob_call_clear(const xio_blob_target *t, uint64_t offset, uint64_t len,
                            uint64_t blob_size, const xio_blob_cond *cond, xio_blob_call **out,
                            xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_blob("ClearPages", t, err);
  if (rc == XIO_OK) rc = xio__blob_check_pages("ClearPages", offset, len, 0, blob_size, err);
  if (rc == XIO_OK) rc = xio__blob_call_new(t, "ClearPages", "PUT", "comp=page", &c, err);
  if (rc != XIO_OK) return rc;
  xio__blob_call_header(c, "x-ms-page-write", "clear", &rc);
  range_header(c, offset, len, &rc);
  xio__blob_call_cond(c, cond, &rc);
  c->need_perms = PERM('w');
  return finish(c, rc, out, err);
}

xio_err xio_blob_call_read(const xio_blob_target *t, uint64_t offset, void *buf, size_t len,
                           const xio_blob_cond *cond, xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_blob("GetBlob", t, err);
  if (rc == XIO_OK) rc = xio__blob_check_read("GetBlob", offset, len, err);
  if (rc == XIO_OK && !buf) rc = xio_error_set(err, XIO_EINVAL, "GetBlob: no buffer");
  if (rc == XIO_OK) rc = xio__blob_call_new(t, "GetBlob", "GET", NULL, &c, err);
  if (rc != XIO_OK) return rc;
  range_header(c, offset, len, &rc);
  xio__blob_call_cond(c, cond, &rc);
  c->rbuf = buf;
  c->rbuf_len = len;
  c->need_perms = PERM('r');
  return finish(c, rc, out, err);
}

/* Get Page Ranges, a diff against `prev` when it is not NULL. */
static xio_err page_ranges(const xio_blob_target *t, uint64_t offset, uint64_t len,
                           const char *prev, const char *marker, xio_blob_call **out,
                           xio_error *err) {
  *out = NULL;
  xio_err rc = need_blob("GetPageRanges", t, err);
  if (rc == XIO_OK && len) rc = xio__blob_check_pages("GetPageRanges", offset, len, 0, 0, err);
  if (rc == XIO_OK && prev && !prev[0])
    rc = xio_error_set(err, XIO_EINVAL, "GetPageRanges: an empty previous snapshot id");
  if (rc != XIO_OK) return rc;
  char *m = marker ? escape(marker) : NULL;
  char *ps = prev ? escape(prev) : NULL;
  size_t n = 48 + (m ? strlen(m) : 0) + (ps ? strlen(ps) : 0);
  char *q = xio_malloc(n);
  xio_blob_call *c = NULL;
  if (!q || (marker && !m) || (prev && !ps)) {
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory building GetPageRanges");
  } else {
    snprintf(q, n, "comp=pagelist%s%s%s%s", ps ? "&prevsnapshot=" : "", ps ? ps : "",
             m ? "&marker=" : "", m ? m : "");
    rc = xio__blob_call_new(t, "GetPageRanges", "GET", q, &c, err);
  }
  xio_free(m);
  xio_free(ps);
  xio_free(q);
  if (rc != XIO_OK) return rc;
  if (len) range_header(c, offset, len, &rc);
  c->need_perms = PERM('r');
  return finish(c, rc, out, err);
}

xio_err xio_blob_call_page_ranges(const xio_blob_target *t, uint64_t offset, uint64_t len,
                                  const char *marker, xio_blob_call **out, xio_error *err) {
  return page_ranges(t, offset, len, NULL, marker, out, err);
}

xio_err xio_blob_call_page_ranges_diff(const xio_blob_target *t, uint64_t offset, uint64_t len,
                                       const char *prevsnapshot, const char *marker,
                                       xio_blob_call **out, xio_error *err) {
  if (!prevsnapshot) {
    *out = NULL;
    return xio_error_set(err, XIO_EINVAL, "GetPageRanges: no previous snapshot id");
  }
  return page_ranges(t, offset, len, prevsnapshot, marker, out, err);
}

xio_err xio_blob_call_delete(const xio_blob_target *t, int include_snapshots,
                             const xio_blob_cond *cond, xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_blob("DeleteBlob", t, err);
  if (rc == XIO_OK) rc = xio__blob_call_new(t, "DeleteBlob", "DELETE", NULL, &c, err);
  if (rc != XIO_OK) return rc;
  if (include_snapshots) xio__blob_call_header(c, "x-ms-delete-snapshots", "include", &rc);
  xio__blob_call_cond(c, cond, &rc);
  c->need_perms = PERM('d');
  c->missing_ok_on_retry = 1;
  return finish(c, rc, out, err);
}

/* 1 when the target's URL names a snapshot (snapshot= in its query). */
static int names_snapshot(const xio_blob_target *t) {
  const char *q = t->extra_query                      ? t->extra_query
                  : t->cred.kind == XIO_AUTH_CRED_SAS ? t->cred.sas
                                                      : NULL;
  return xio_auth_query_value(q, "snapshot", NULL) != NULL;
}

xio_err xio_blob_call_delete_snapshot(const xio_blob_target *t, const char *snapshot,
                                      const xio_blob_cond *cond, xio_blob_call **out,
                                      xio_error *err) {
  *out = NULL;
  xio_err rc = need_blob("DeleteSnapshot", t, err);
  if (rc != XIO_OK) return rc;
  if (!snapshot || !*snapshot)
    return xio_error_set(err, XIO_EINVAL, "DeleteSnapshot: no snapshot id");
  if (names_snapshot(t))
    return xio_error_set(err, XIO_EINVAL, "DeleteSnapshot: %s already names a snapshot",
                         t->safe_url);
  char *id = escape(snapshot);
  size_t n = id ? strlen(id) + 16 : 0;
  char *q = id ? xio_malloc(n) : NULL;
  xio_blob_call *c = NULL;
  if (!q) {
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory building DeleteSnapshot");
  } else {
    snprintf(q, n, "snapshot=%s", id);
    rc = xio__blob_call_new(t, "DeleteSnapshot", "DELETE", q, &c, err);
  }
  xio_free(id);
  xio_free(q);
  if (rc != XIO_OK) return rc;
  xio__blob_call_cond(c, cond, &rc);
  c->need_perms = PERM('d');
  c->missing_ok_on_retry = 1;
  return finish(c, rc, out, err);
}

/* The URL the service reads a copy's source from: origin and path, then the
 * snapshot and the SAS the source carries. malloc'd (a secret when it has a SAS);
 * NULL on out-of-memory. */
static char *copy_source_url(const xio_blob_target *s) {
  const char *extra = s->extra_query && *s->extra_query ? s->extra_query : NULL;
  char *sas = NULL;
  if (xio__blob_target_sas(s, &sas) != XIO_OK) return NULL;
  size_t n = strlen(s->origin) + strlen(s->url.path) + (extra ? strlen(extra) : 0) +
             (sas ? strlen(sas) : 0) + 4;
  char *u = xio_malloc(n);
  if (u) {
    int len = snprintf(u, n, "%s%s", s->origin, s->url.path);
    if (extra) len += snprintf(u + len, n - (size_t)len, "?%s", extra);
    if (sas) snprintf(u + len, n - (size_t)len, "%s%s", extra ? "&" : "?", sas);
  }
  if (sas) xio_auth_secret_free(sas, strlen(sas));
  return u;
}

xio_err xio_blob_call_copy(const xio_blob_target *dest, const xio_blob_target *source,
                           const xio_blob_cond *cond, xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_blob("CopyBlob", dest, err);
  if (rc == XIO_OK) rc = need_blob("CopyBlob", source, err);
  if (rc == XIO_OK) rc = xio__blob_call_new(dest, "CopyBlob", "PUT", NULL, &c, err);
  if (rc != XIO_OK) return rc;
  char *src = copy_source_url(source);
  if (!src) rc = XIO_ENOMEM;
  xio__blob_call_header(c, "x-ms-copy-source", src ? src : "", &rc);
  if (src) OPENSSL_cleanse(src, strlen(src));
  xio_free(src);
  xio__blob_call_cond(c, cond, &rc);
  /* Sending it again restarts the copy, which is harmless, except after a create-only
   * copy was applied: then the retry would find the blob it made. */
  c->retryable = !(cond && cond->if_none_match && *cond->if_none_match);
  c->need_any = PERM('c') | PERM('w');
  return finish(c, rc, out, err);
}

xio_err xio_blob_call_abort_copy(const xio_blob_target *t, const char *copy_id,
                                 const xio_blob_cond *cond, xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_err rc = need_blob("AbortCopyBlob", t, err);
  if (rc != XIO_OK) return rc;
  if (!copy_id || !*copy_id) return xio_error_set(err, XIO_EINVAL, "AbortCopyBlob: no copy id");
  char *id = escape(copy_id);
  size_t n = id ? strlen(id) + 24 : 0;
  char *q = id ? xio_malloc(n) : NULL;
  xio_blob_call *c = NULL;
  if (!q) {
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory building AbortCopyBlob");
  } else {
    snprintf(q, n, "comp=copy&copyid=%s", id);
    rc = xio__blob_call_new(t, "AbortCopyBlob", "PUT", q, &c, err);
  }
  xio_free(id);
  xio_free(q);
  if (rc != XIO_OK) return rc;
  xio__blob_call_header(c, "x-ms-copy-action", "abort", &rc);
  xio__blob_call_cond(c, cond, &rc);
  c->need_perms = PERM('w');
  return finish(c, rc, out, err);
}

static const char *lease_action_name(xio_blob_lease_action a) {
  static const char *const names[] = {"acquire", "renew", "change", "release", "break"};
  return a <= XIO_BLOB_LEASE_BREAK ? names[a] : NULL;
}

static xio_err check_lease(const xio_blob_lease_args *a, xio_error *err) {
  if (!a || !lease_action_name(a->action))
    return xio_error_set(err, XIO_EINVAL, "LeaseBlob: unknown lease action");
  if (a->action == XIO_BLOB_LEASE_ACQUIRE && !xio_blob_lease_duration_ok(a->duration_s, 1))
    return xio_error_set(err, XIO_EINVAL, "LeaseBlob: duration %d s is neither -1 nor %d..%d",
                         a->duration_s, XIO_BLOB_LEASE_MIN_S, XIO_BLOB_LEASE_MAX_S);
  if ((a->action == XIO_BLOB_LEASE_RENEW || a->action == XIO_BLOB_LEASE_CHANGE ||
       a->action == XIO_BLOB_LEASE_RELEASE) &&
      (!a->lease_id || !*a->lease_id))
    return xio_error_set(err, XIO_EINVAL, "LeaseBlob: %s needs the current lease id",
                         lease_action_name(a->action));
  if (a->action == XIO_BLOB_LEASE_CHANGE && (!a->proposed_id || !*a->proposed_id))
    return xio_error_set(err, XIO_EINVAL, "LeaseBlob: change needs a proposed lease id");
  if (a->action == XIO_BLOB_LEASE_BREAK && !xio_blob_break_period_ok(a->break_period_s, 1))
    return xio_error_set(err, XIO_EINVAL, "LeaseBlob: break period %d s outside 0..%d",
                         a->break_period_s, XIO_BLOB_BREAK_MAX_S);
  return XIO_OK;
}

xio_err xio_blob_call_lease(const xio_blob_target *t, const xio_blob_lease_args *a,
                            xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_blob("LeaseBlob", t, err);
  if (rc == XIO_OK) rc = check_lease(a, err);
  if (rc == XIO_OK) rc = xio__blob_call_new(t, "LeaseBlob", "PUT", "comp=lease", &c, err);
  if (rc != XIO_OK) return rc;
  xio__blob_call_header(c, "x-ms-lease-action", lease_action_name(a->action), &rc);
  if (a->lease_id && *a->lease_id) xio__blob_call_header(c, "x-ms-lease-id", a->lease_id, &rc);
  if (a->proposed_id && *a->proposed_id)
    xio__blob_call_header(c, "x-ms-proposed-lease-id", a->proposed_id, &rc);
  char v[16];
  if (a->action == XIO_BLOB_LEASE_ACQUIRE) {
    snprintf(v, sizeof v, "%d", a->duration_s);
    xio__blob_call_header(c, "x-ms-lease-duration", v, &rc);
    /* Without a proposed id a lost response would leave an unknown lease. */
    c->retryable = a->proposed_id && *a->proposed_id;
  }
  /* A retried release whose first try was applied finds our lease gone. */
  c->unleased_ok_on_retry = a->action == XIO_BLOB_LEASE_RELEASE;
  c->control = 1; /* a renewal must not wait behind the blob's writes */
  /* A renewer tries again on its own schedule (every lease it keeps, in turn): the
   * engine does not hold a renewal through a minute of throttling. */
  c->throttle_counted = a->action == XIO_BLOB_LEASE_RENEW;
  if (a->action == XIO_BLOB_LEASE_BREAK && a->break_period_s >= 0) {
    snprintf(v, sizeof v, "%d", a->break_period_s);
    xio__blob_call_header(c, "x-ms-lease-break-period", v, &rc);
  }
  c->need_perms = PERM('w');
  return finish(c, rc, out, err);
}

xio_err xio_blob_call_snapshot(const xio_blob_target *t, const xio_blob_cond *cond,
                               xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_blob("SnapshotBlob", t, err);
  if (rc == XIO_OK) rc = xio__blob_call_new(t, "SnapshotBlob", "PUT", "comp=snapshot", &c, err);
  if (rc != XIO_OK) return rc;
  xio__blob_call_cond(c, cond, &rc);
  c->need_any = PERM('c') | PERM('w');
  return finish(c, rc, out, err);
}

xio_err xio_blob_call_set_metadata(const xio_blob_target *t, const xio_blob_meta *meta, int nmeta,
                                   const xio_blob_cond *cond, xio_blob_call **out, xio_error *err) {
  *out = NULL;
  xio_blob_call *c;
  xio_err rc = need_blob("SetBlobMetadata", t, err);
  if (rc == XIO_OK) rc = check_meta("SetBlobMetadata", meta, nmeta, err);
  if (rc == XIO_OK) rc = xio__blob_call_new(t, "SetBlobMetadata", "PUT", "comp=metadata", &c, err);
  if (rc != XIO_OK) return rc;
  meta_headers(c, meta, nmeta, &rc);
  xio__blob_call_cond(c, cond, &rc);
  c->need_perms = PERM('w');
  return finish(c, rc, out, err);
}
