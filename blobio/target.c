/*
 * target.c - a target is an addressed container or blob plus the credential that
 * signs requests to it. Made once from a URL, immutable afterwards, shared by any
 * number of calls and threads. Its log-safe URL is fixed at creation, so nothing
 * downstream ever holds a printable form with a secret in it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "call_int.h"

/* "scheme://host[:port]"; IPv6 hosts get their brackets back. */
static char *make_origin(const xio_auth_url *u) {
  const char *lb = strchr(u->host, ':') ? "[" : "", *rb = *lb ? "]" : "";
  char port[16] = "";
  if (u->port) snprintf(port, sizeof port, ":%d", u->port);
  size_t n = strlen(u->scheme) + strlen(u->host) + 32;
  char *s = xio_malloc(n);
  if (s) snprintf(s, n, "%s://%s%s%s%s", u->scheme, lb, u->host, rb, port);
  return s;
}

/* Encoded path of the container: "/ACCOUNT/C" in path style, else "/C"; "" when the
 * URL names no container. */
static char *make_cont_path(const xio_auth_url *u) {
  if (!u->container) return xio_strdup("");
  char *c = xio_auth_encode_path(u->container);
  char *a = u->path_style ? xio_auth_encode_path(u->account) : xio_strdup("");
  size_t n = (c ? strlen(c) : 0) + (a ? strlen(a) : 0) + 4;
  char *s = c && a ? xio_malloc(n) : NULL;
  if (s) snprintf(s, n, "%s%s/%s", u->path_style ? "/" : "", a, c);
  xio_free(c);
  xio_free(a);
  return s;
}

char *xio__blob_target_account_path(const xio_blob_target *t) {
  const xio_auth_url *u = &t->url;
  char *a = u->path_style && u->account ? xio_auth_encode_path(u->account) : xio_strdup("");
  size_t n = a ? strlen(a) + 3 : 0;
  char *s = a ? xio_malloc(n) : NULL;
  if (s) snprintf(s, n, "%s%s/", *a ? "/" : "", a);
  xio_free(a);
  return s;
}

/* Fills the derived URLs of `t`. Errors: XIO_ENOMEM. */
static xio_err make_urls(xio_blob_target *t, xio_error *err) {
  t->origin = make_origin(&t->url);
  t->cont_path = make_cont_path(&t->url);
  size_t n = (t->origin ? strlen(t->origin) : 0) + strlen(t->url.path) + 1;
  t->safe_url = t->origin && t->cont_path ? xio_malloc(n) : NULL;
  if (!t->safe_url) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  snprintf(t->safe_url, n, "%s%s", t->origin, t->url.path);
  return XIO_OK;
}

/* The parameters of `query` that are not a SAS's (e.g. snapshot=), "&"-joined;
 * malloc'd, NULL on out-of-memory. */
static char *strip_sas(const char *query) {
  size_t n = strlen(query);
  char *out = xio_malloc(n + 1), *w = out;
  if (!out) return NULL;
  for (const char *p = query; *p;) {
    size_t len = strcspn(p, "&"), name = strcspn(p, "=&");
    if (!xio_auth_sas_param(p, name) && len) {
      if (w != out) *w++ = '&';
      memcpy(w, p, len);
      w += len;
    }
    p += len + (p[len] == '&');
  }
  *w = '\0';
  return out;
}

/* 1 when the query `q` has a "sig" parameter: it means to be a SAS. */
static int names_sig(const char *q) {
  for (const char *p = q; p; p = strchr(p, '&')) {
    if (*p == '&') p++;
    if (strncmp(p, "sig=", 4) == 0) return 1;
  }
  return 0;
}

/* Takes the credential: an explicit one, else a SAS found in the URL's query. A
 * query that carries a signature but does not parse as a SAS is refused with the
 * parser's words (which field is wrong), instead of being sent as it is. */
static xio_err take_credential(xio_blob_target *t, const xio_auth_cred *cred, xio_error *err) {
  const char *q = t->url.query;
  if (cred && cred->kind != XIO_AUTH_CRED_NONE) {
    if (xio_auth_cred_copy(&t->cred, cred) != XIO_OK)
      return xio_error_set(err, XIO_ENOMEM, "out of memory copying the credential");
    if (q && !(t->extra_query = xio_strdup(q)))
      return xio_error_set(err, XIO_ENOMEM, "out of memory");
  } else if (q && *q) {
    xio_auth_sas probe;
    xio_error perr;
    xio_err prc = xio_auth_sas_parse(q, &probe, &perr);
    if (prc == XIO_OK && probe.has_sig) {
      t->cred.kind = XIO_AUTH_CRED_SAS;
      if (!(t->cred.sas = xio_strdup(q))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
    } else if (prc != XIO_OK && names_sig(q)) {
      if (err) *err = perr;
      return prc;
    } else if (!(t->extra_query = xio_strdup(q))) {
      return xio_error_set(err, XIO_ENOMEM, "out of memory");
    }
  }
  if (t->cred.kind == XIO_AUTH_CRED_SAS) {
    xio_err rc = xio_auth_sas_parse(t->cred.sas, &t->sas, err);
    if (rc != XIO_OK) return rc;
    t->has_sas = 1;
  }
  return XIO_OK;
}

xio_err xio_blob_target_new(const char *url, const xio_auth_cred *cred, xio_blob_target **out,
                            xio_error *err) {
  *out = NULL;
  if (!url) return xio_error_set(err, XIO_EINVAL, "no URL given");
  xio_blob_target *t = xio_calloc(1, sizeof *t);
  if (!t) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = xio_auth_url_parse(url, &t->url, err);
  if (rc == XIO_OK) rc = take_credential(t, cred, err);
  if (rc == XIO_OK) rc = make_urls(t, err);
  if (rc != XIO_OK) {
    xio_error_set_operation(err, "ParseTarget");
    xio_blob_target_free(t);
    return rc;
  }
  *out = t;
  return XIO_OK;
}

xio_err xio_blob_target_new_source(const char *url, const xio_blob_cred_source *src,
                                   xio_blob_target **out, xio_error *err) {
  *out = NULL;
  if (!url) return xio_error_set(err, XIO_EINVAL, "no URL given");
  if (!src || !src->get) return xio_error_set(err, XIO_EINVAL, "no credential source given");
  xio_blob_target *t = xio_calloc(1, sizeof *t);
  if (!t) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = xio_auth_url_parse(url, &t->url, err);
  if (rc == XIO_OK && t->url.query && *t->url.query && !(t->extra_query = strip_sas(t->url.query)))
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (rc == XIO_OK) rc = make_urls(t, err);
  if (rc != XIO_OK) {
    xio_error_set_operation(err, "ParseTarget");
    xio_blob_target_free(t);
    return rc;
  }
  t->source = *src;
  if (src->retain) src->retain(src->ud);
  *out = t;
  return XIO_OK;
}

/* A child of a target with a credential source: the source's own for the child's
 * URL when it can make one, else the parent's. */
static xio_err child_with_source(const xio_blob_target *t, const char *url, xio_blob_target **out,
                                 xio_error *err) {
  xio_blob_cred_source src = t->source;
  if (!src.for_url) return xio_blob_target_new_source(url, &src, out, err);
  if (!(src.ud = src.for_url(t->source.ud, url)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = xio_blob_target_new_source(url, &src, out, err);
  if (src.release) src.release(src.ud); /* the target holds its own reference */
  return rc;
}

xio_err xio_blob_target_child(const xio_blob_target *t, const char *name, xio_blob_target **out,
                              xio_error *err) {
  *out = NULL;
  if (!t || !t->url.container) return xio_error_set(err, XIO_EINVAL, "target has no container");
  if (!name || !*name) return xio_error_set(err, XIO_EINVAL, "empty blob name");
  char *enc = xio_auth_encode_path(name);
  if (!enc) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  char *cont = xio_auth_encode_path(t->url.container);
  size_t n = strlen(t->url.endpoint) + (cont ? strlen(cont) : 0) + strlen(enc) + 4;
  char *url = cont ? xio_malloc(n) : NULL;
  xio_err rc = XIO_ENOMEM;
  if (url) {
    snprintf(url, n, "%s/%s/%s", t->url.endpoint, cont, enc);
    rc = t->source.get ? child_with_source(t, url, out, err)
                       : xio_blob_target_new(url, &t->cred, out, err);
  } else {
    xio_error_set(err, rc, "out of memory");
  }
  xio_free(url);
  xio_free(cont);
  xio_free(enc);
  return rc;
}

void xio_blob_target_free(xio_blob_target *t) {
  if (!t) return;
  xio_auth_url_clear(&t->url);
  xio_auth_cred_clear(&t->cred);
  if (t->source.release) t->source.release(t->source.ud);
  xio_free(t->origin);
  xio_free(t->cont_path);
  xio_free(t->safe_url);
  xio_free(t->extra_query);
  xio_free(t);
}

const char *xio_blob_target_safe_url(const xio_blob_target *t) { return t->safe_url; }

const xio_auth_url *xio_blob_target_url(const xio_blob_target *t) { return &t->url; }

/* The credential a request to `t` would use now (a copy): the target's own, or what
 * its source gives (BEARER, without the token, while one is being fetched). */
static xio_err current_cred(const xio_blob_target *t, xio_auth_cred *out) {
  memset(out, 0, sizeof *out);
  if (!t->source.get) return xio_auth_cred_copy(out, &t->cred);
  int wait_ms = 0;
  xio_err rc = t->source.get(t->source.ud, 0, out, &wait_ms, NULL);
  if (rc == XIO_OK && wait_ms > 0) out->kind = XIO_AUTH_CRED_BEARER;
  return rc;
}

xio_auth_cred_kind xio_blob_target_cred_kind(const xio_blob_target *t) {
  xio_auth_cred c;
  xio_auth_cred_kind kind = current_cred(t, &c) == XIO_OK ? c.kind : XIO_AUTH_CRED_NONE;
  xio_auth_cred_clear(&c);
  return kind;
}

xio_err xio__blob_target_sas(const xio_blob_target *t, char **out) {
  xio_auth_cred c;
  *out = NULL;
  xio_err rc = current_cred(t, &c);
  if (rc == XIO_OK && c.kind == XIO_AUTH_CRED_SAS && c.sas && *c.sas && !(*out = xio_strdup(c.sas)))
    rc = XIO_ENOMEM;
  xio_auth_cred_clear(&c);
  return rc;
}
