/*
 * credstore.c - credentials keyed by URL prefix, like SQL Server's CREATE CREDENTIAL
 * named by a container URL. A prefix matches a URL when the URL starts with it and
 * continues with '/' or ends there; the longest such prefix wins. Scheme and host
 * compare case-insensitively, paths by their normalized encoding.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "cred_int.h"

typedef struct entry {
  char *prefix; /* normalized, no trailing '/' */
  xio_auth_cred cred;
} entry;

struct xio_auth_credstore {
  entry *v;
  size_t n, cap;
};

xio_auth_credstore *xio_auth_credstore_new(void) {
  return xio_calloc(1, sizeof(xio_auth_credstore));
}

void xio_auth_credstore_free(xio_auth_credstore *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++) {
    xio_free(s->v[i].prefix);
    xio_auth_cred_clear(&s->v[i].cred);
  }
  xio_free(s->v);
  xio_free(s);
}

/* "scheme://authority" lowercased plus the normalized path without trailing '/'.
 * Userinfo is dropped. A query or fragment is refused unless `drop_query` is set.
 * Returns 0, -1 (not an http(s) URL, or a query not allowed), -2 out of memory. */
static int normalize(const char *url, int drop_query, char **out) {
  size_t scheme = xio__auth_ncasecmp(url, "https://", 8) == 0  ? 8
                  : xio__auth_ncasecmp(url, "http://", 7) == 0 ? 7
                                                               : 0;
  if (!scheme) return -1;
  const char *auth = url + scheme, *auth_end = auth + strcspn(auth, "/?#");
  for (const char *c = auth; c < auth_end; c++)
    if (*c == '@') auth = c + 1; /* drop user:password@ */
  const char *path_end = auth_end + strcspn(auth_end, "?#");
  if (auth == auth_end || (*path_end && !drop_query)) return -1;
  char *path = NULL;
  xio_err rc = xio__auth_path_normalize(auth_end, (size_t)(path_end - auth_end), &path, NULL);
  if (rc != XIO_OK) return rc == XIO_ENOMEM ? -2 : -1;
  size_t plen = strlen(path);
  while (plen > 0 && path[plen - 1] == '/')
    path[--plen] = '\0';
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  xio__auth_buf_add(&b, url, scheme);
  xio__auth_buf_add(&b, auth, (size_t)(auth_end - auth));
  xio__auth_lower_str(b.data);
  xio__auth_buf_puts(&b, path);
  xio_free(path);
  *out = xio__auth_buf_take(&b);
  return *out ? 0 : -2;
}

static entry *find_exact(const xio_auth_credstore *s, const char *prefix) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->v[i].prefix, prefix) == 0) return &s->v[i];
  return NULL;
}

static int reserve(xio_auth_credstore *s, size_t extra) {
  if (s->n + extra <= s->cap) return 0;
  size_t cap = s->cap ? s->cap * 2 : 8;
  while (cap < s->n + extra)
    cap *= 2;
  entry *v = xio_realloc(s->v, cap * sizeof *v);
  if (!v) return -1;
  s->v = v;
  s->cap = cap;
  return 0;
}

/* Stores `prefix` and `cred`, taking ownership of both; room must be reserved. */
static void put(xio_auth_credstore *s, char *prefix, xio_auth_cred *cred) {
  entry *e = find_exact(s, prefix);
  if (e) {
    xio_free(prefix);
    xio_auth_cred_clear(&e->cred);
  } else {
    e = &s->v[s->n++];
    e->prefix = prefix;
  }
  e->cred = *cred;
  memset(cred, 0, sizeof *cred);
}

xio_err xio_auth_credstore_add(xio_auth_credstore *s, const char *prefix, const xio_auth_cred *cred,
                               xio_error *err) {
  char *norm = NULL;
  xio_auth_cred copy;
  if (!s || !prefix || !cred) return xio_error_set(err, XIO_EINVAL, "missing argument");
  int rc = normalize(prefix, 0, &norm);
  if (rc == -1)
    return xio_error_set(err, XIO_EINVAL,
                         "credential prefix must be an http(s) URL without a query");
  if (rc == -2 || reserve(s, 1) != 0 || xio_auth_cred_copy(&copy, cred) != XIO_OK) {
    xio_free(norm);
    return xio_error_set(err, XIO_ENOMEM, "out of memory adding a credential");
  }
  put(s, norm, &copy);
  return XIO_OK;
}

xio_err xio_auth_credstore_lookup(const xio_auth_credstore *s, const char *url, xio_auth_cred *out,
                                  xio_error *err) {
  char *norm = NULL;
  const entry *best = NULL;
  size_t best_len = 0;
  if (out) memset(out, 0, sizeof *out);
  if (!s || !url || !out) return xio_error_set(err, XIO_EINVAL, "missing argument");
  int rc = normalize(url, 1, &norm);
  if (rc == -2) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  for (size_t i = 0; rc == 0 && i < s->n; i++) {
    size_t n = strlen(s->v[i].prefix);
    if (n > best_len && strncmp(norm, s->v[i].prefix, n) == 0 &&
        (norm[n] == '\0' || norm[n] == '/'))
      best = &s->v[i], best_len = n;
  }
  xio_free(norm);
  if (best)
    return xio_auth_cred_copy(out, &best->cred) == XIO_OK
               ? XIO_OK
               : xio_error_set(err, XIO_ENOMEM, "out of memory copying a credential");
  char *safe = xio_auth_url_strip_query(url);
  xio_error_set(err, XIO_ENOCRED, "no credential is stored for %.300s", safe ? safe : "this URL");
  xio_free(safe);
  xio__auth_operation(err, "LookupCredential");
  return XIO_ENOCRED;
}

int xio_auth_credstore_has_secret(const xio_auth_credstore *s) {
  for (size_t i = 0; s && i < s->n; i++) {
    xio_auth_cred_kind k = s->v[i].cred.kind;
    if (k == XIO_AUTH_CRED_SAS || k == XIO_AUTH_CRED_SHARED_KEY || k == XIO_AUTH_CRED_BEARER)
      return 1;
  }
  return 0;
}

xio_err xio__auth_credstore_merge(xio_auth_credstore *dst, xio_auth_credstore *src,
                                  xio_error *err) {
  if (reserve(dst, src->n) != 0)
    return xio_error_set(err, XIO_ENOMEM, "out of memory adding credentials");
  for (size_t i = 0; i < src->n; i++)
    put(dst, src->v[i].prefix, &src->v[i].cred);
  src->n = 0;
  return XIO_OK;
}

xio_err xio_auth_credstore_remove(xio_auth_credstore *s, const char *prefix, xio_error *err) {
  char *norm = NULL;
  if (!s || !prefix) return xio_error_set(err, XIO_EINVAL, "missing argument");
  int rc = normalize(prefix, 0, &norm);
  if (rc == -1)
    return xio_error_set(err, XIO_EINVAL,
                         "credential prefix must be an http(s) URL without a query");
  if (rc == -2) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  entry *e = find_exact(s, norm);
  xio_free(norm);
  if (!e) return XIO_OK;
  xio_free(e->prefix);
  xio_auth_cred_clear(&e->cred);
  *e = s->v[--s->n];
  return XIO_OK;
}
