/*
 * target_parts.c - a target taken apart for programs, engines and the backends: a
 * blob URL's account, container, blob, snapshot id and whether it carries a SAS; a
 * local target's path (a file:// URL decoded); the log-safe form of either; and the
 * URL of a blob's snapshot. The one place that reads or writes a target's snapshot=
 * query parameter or a file URL's path. Built on the shared base's strict URL
 * parser, so what it accepts is exactly what xio_file_open accepts.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <xio/alloc.h>

#include "xio_int.h"

/* `*dst` = a copy of `src` (NULL stays NULL); 0 on out of memory. */
static int copy(char **dst, const char *src) {
  *dst = src ? xio_strdup(src) : NULL;
  return !src || *dst;
}

static xio_err take_parts(const xio_auth_url *u, const char *url, xio_target_parts *out,
                          xio_error *err) {
  size_t n = 0;
  const char *snap = xio_auth_query_value(u->query, "snapshot", &n);
  int ok = copy(&out->endpoint, u->endpoint) && copy(&out->account, u->account) &&
           copy(&out->container, u->container) && copy(&out->blob, u->blob) &&
           (out->base = xio_auth_url_strip_query(url)) != NULL;
  if (!ok) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  out->has_sas = xio_auth_query_value(u->query, "sig", NULL) != NULL;
  return snap ? xio_auth_pct_decode(snap, n, &out->snapshot, err) : XIO_OK;
}

/* Decodes the %XX escapes of a file URL's path `p` with the base's percent codec.
 * `*out` is malloc'd. Errors: XIO_EPARSE (naming `target` and the bad escape),
 * XIO_ENOMEM. */
static xio_err url_path_decode(const char *target, const char *p, char **out, xio_error *err) {
  xio_error why;
  xio_err rc = xio_auth_pct_decode(p, strlen(p), out, &why);
  if (rc == XIO_EPARSE)
    return xio_error_set(err, rc, "%s: bad %%-escape in a file URL: %s", target, why.message);
  if (rc != XIO_OK) return xio_error_set(err, rc, "out of memory");
  return XIO_OK;
}

xio_err xio__target_local_path(const char *target, char **out, xio_error *err) {
  int is_url = strncasecmp(target, "file://", 7) == 0;
  const char *p = is_url ? target + 7 : target;
  if (is_url && strncasecmp(p, "localhost/", 10) == 0) p += 9;
  *out = NULL;
  if (is_url && *p != '/')
    return xio_error_set(err, XIO_EPARSE, "%s: a file URL needs an absolute path on this host",
                         target);
  if (is_url) return url_path_decode(target, p, out, err);
  if (!(*out = xio_strdup(p))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

xio_err xio_target_parse(const char *target, xio_target_parts *out, xio_error *err) {
  if (!out) return xio_error_set(err, XIO_EINVAL, "xio_target_parse: no output");
  memset(out, 0, sizeof *out);
  out->kind = xio_target_classify(target);
  if (out->kind == XIO_TARGET_UNSUPPORTED)
    return xio_error_set(err, XIO_EUNSUPPORTED,
                         "not a target xio opens: a blob URL (http:// or "
                         "https://), a local path or a file:// URL");
  if (out->kind == XIO_TARGET_LOCAL) {
    xio_err rc = xio__target_local_path(target, &out->path, err);
    if (rc == XIO_OK && !(out->base = xio_strdup(target)))
      rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
    if (rc != XIO_OK) xio_target_parts_clear(out);
    return rc;
  }
  const char *url = target;
  xio_auth_url u;
  xio_err rc = xio_auth_url_parse(url, &u, err);
  if (rc != XIO_OK) return rc;
  rc = take_parts(&u, url, out, err);
  xio_auth_url_clear(&u);
  if (rc != XIO_OK) xio_target_parts_clear(out);
  return rc;
}

void xio_target_parts_clear(xio_target_parts *p) {
  if (!p) return;
  xio_free(p->endpoint);
  xio_free(p->account);
  xio_free(p->container);
  xio_free(p->blob);
  xio_free(p->snapshot);
  xio_free(p->base);
  xio_free(p->path);
  memset(p, 0, sizeof *p);
}

char *xio_target_safe(const char *target) {
  if (!target) return NULL;
  if (xio_target_classify(target) != XIO_TARGET_BLOB) return xio_strdup(target);
  char *bare = xio_auth_url_strip_query(target), *out = NULL;
  const char *q = strchr(target, '?');
  size_t n = 0;
  const char *snap = bare && q ? xio_auth_query_value(q + 1, "snapshot", &n) : NULL;
  if (!snap) return bare;
  n = strcspn(snap, "#") < n ? strcspn(snap, "#") : n;
  size_t size = strlen(bare) + n + sizeof "?snapshot=";
  if ((out = xio_malloc(size)) != NULL) snprintf(out, size, "%s?snapshot=%.*s", bare, (int)n, snap);
  xio_free(bare);
  return out;
}

/* Appends `len` bytes at `p` to b[*w..], after '?' or '&'. */
static void put_param(char *b, size_t head, size_t *w, const char *p, size_t len) {
  char sep = *w == head ? '?' : '&';
  b[(*w)++] = sep;
  memcpy(b + *w, p, len);
  *w += len;
}

xio_err xio__target_split_snapshot(const char *url, char **base, char **id, xio_error *err) {
  *base = NULL, *id = NULL;
  size_t n = strlen(url);
  char *b = xio_malloc(n + 1);
  if (!b) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  const char *q = strchr(url, '?');
  size_t head = q ? (size_t)(q - url) : n, w = head;
  memcpy(b, url, head);
  xio_err rc = XIO_OK;
  for (const char *p = q ? q + 1 : NULL; rc == XIO_OK && p && *p;) {
    size_t len = strcspn(p, "&");
    if (len > 9 && strncmp(p, "snapshot=", 9) == 0) {
      if (*id)
        rc = xio_error_set(err, XIO_EINVAL, "the URL names more than one snapshot");
      else
        rc = xio_auth_pct_decode(p + 9, len - 9, id, err);
    } else if (len > 0) {
      put_param(b, head, &w, p, len);
    }
    p += len + (p[len] == '&');
  }
  b[w] = '\0';
  if (rc == XIO_OK) return *base = b, XIO_OK;
  xio_auth_secret_free(b, n + 1);
  xio_free(*id);
  *id = NULL;
  return rc;
}

/* `base` (a URL without snapshot=) with snapshot=ID added to its query. */
static xio_err add_snapshot(const char *base, const char *id, char **out, xio_error *err) {
  char *enc = NULL;
  xio_err rc = xio_auth_pct_encode(id, ":", &enc, err);
  if (rc != XIO_OK) return rc;
  size_t n = strlen(base) + strlen(enc) + sizeof "&snapshot=";
  if ((*out = xio_malloc(n)) != NULL)
    snprintf(*out, n, "%s%csnapshot=%s", base, strchr(base, '?') ? '&' : '?', enc);
  xio_free(enc);
  return *out ? XIO_OK : xio_error_set(err, XIO_ENOMEM, "out of memory");
}

xio_err xio_target_snapshot_url(const char *url, const char *id, char **out, xio_error *err) {
  if (!out) return xio_error_set(err, XIO_EINVAL, "xio_target_snapshot_url: no output");
  *out = NULL;
  if (xio_target_classify(url) != XIO_TARGET_BLOB)
    return xio_error_set(err, XIO_EINVAL, "only a blob URL (http:// or https://) has snapshots");
  char *base = NULL, *old = NULL;
  xio_err rc = xio__target_split_snapshot(url, &base, &old, err);
  if (rc == XIO_OK && id && *id) {
    rc = add_snapshot(base, id, out, err);
  } else if (rc == XIO_OK) {
    *out = base;
    base = NULL;
  }
  if (base) xio_auth_secret_free(base, strlen(base) + 1);
  xio_free(old);
  return rc;
}

xio_err xio_target_blob_url(const char *container_url, const char *blob, char **out,
                            xio_error *err) {
  if (!out) return xio_error_set(err, XIO_EINVAL, "xio_target_blob_url: no output");
  *out = NULL;
  xio_target_parts p;
  xio_err rc = xio_target_parse(container_url, &p, err);
  if (rc == XIO_OK && (p.kind != XIO_TARGET_BLOB || !p.container || p.blob || p.snapshot))
    rc = xio_error_set(err, XIO_EINVAL, "not a container URL");
  if (rc == XIO_OK && (!blob || !*blob || *blob == '/'))
    rc = xio_error_set(err, XIO_EINVAL, "an empty blob name or one that starts with '/'");
  xio_target_parts_clear(&p);
  if (rc != XIO_OK) return rc;
  const char *q = strchr(container_url, '?');
  size_t head = q ? (size_t)(q - container_url) : strlen(container_url);
  while (head && container_url[head - 1] == '/')
    head--;
  char *enc = xio_auth_encode_path(blob);
  size_t n = head + (enc ? strlen(enc) : 0) + (q ? strlen(q) : 0) + 2;
  if (enc && (*out = xio_malloc(n)) != NULL)
    snprintf(*out, n, "%.*s/%s%s", (int)head, container_url, enc, q ? q : "");
  xio_free(enc);
  return *out ? XIO_OK : xio_error_set(err, XIO_ENOMEM, "out of memory");
}
