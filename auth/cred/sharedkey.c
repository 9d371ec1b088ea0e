/*
 * sharedkey.c - Shared Key request signing for the blob service (the rules are at
 * xio_auth_sharedkey_string_to_sign in <xio/auth.h>), in small pure steps like curl's
 * sigv4: the standard header lines, the canonicalized x-ms-* headers, the
 * canonicalized resource, then base64(HMAC-SHA256(key, string to sign)). The string
 * to sign is not secret; the Authorization value is.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "cred_int.h"

/* The standard headers, in string-to-sign order. */
static const char *const standard_headers[] = {"Content-Encoding",
                                               "Content-Language",
                                               "Content-Length",
                                               "Content-MD5",
                                               "Content-Type",
                                               "Date",
                                               "If-Modified-Since",
                                               "If-Match",
                                               "If-None-Match",
                                               "If-Unmodified-Since",
                                               "Range"};

static xio_err nomem(xio_error *err) {
  return xio_error_set(err, XIO_ENOMEM, "out of memory building a string to sign");
}

static const char *find_header(const xio_auth_request *req, const char *name) {
  for (size_t i = 0; i < req->nheaders; i++)
    if (xio__auth_casecmp(req->headers[i].name, name) == 0)
      return req->headers[i].value ? req->headers[i].value : "";
  return NULL;
}

/* Appends `v` trimmed, with every inner run of whitespace folded to one space. */
static void put_folded(xio__auth_buf *b, const char *v) {
  int pending = 0;
  while (xio__auth_is_space(*v))
    v++;
  for (; *v; v++) {
    if (xio__auth_is_space(*v)) {
      pending = 1;
      continue;
    }
    if (pending) xio__auth_buf_putc(b, ' ');
    pending = 0;
    xio__auth_buf_putc(b, *v);
  }
}

/* VERB and the eleven standard header lines, each ending in '\n'. */
static void put_standard(xio__auth_buf *b, const xio_auth_request *req) {
  int has_ms_date = find_header(req, "x-ms-date") != NULL;
  xio__auth_buf_puts(b, req->method);
  xio__auth_buf_putc(b, '\n');
  for (size_t i = 0; i < sizeof standard_headers / sizeof standard_headers[0]; i++) {
    const char *name = standard_headers[i];
    const char *v = find_header(req, name);
    if (v && strcmp(name, "Content-Length") == 0 && strspn(v, " \t0") == strlen(v))
      v = NULL; /* "0" or empty: an empty line */
    if (v && strcmp(name, "Date") == 0 && has_ms_date) v = NULL;
    if (v) put_folded(b, v);
    xio__auth_buf_putc(b, '\n');
  }
}

/* An x-ms-* header with its lowercased name; `index` keeps equal names in order. */
typedef struct ms_header {
  char *name;
  const char *value;
  size_t index;
} ms_header;

static int cmp_ms_header(const void *a, const void *b) {
  const ms_header *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->index < y->index ? -1 : x->index > y->index);
}

/* "name:value\n" for every x-ms-* header, sorted by name; a name sent twice gets its
 * values joined with ',' in the order sent. Sorting is ordinal, like the service. */
static xio_err put_ms_headers(xio__auth_buf *b, const xio_auth_request *req, xio_error *err) {
  ms_header *h = calloc(req->nheaders ? req->nheaders : 1, sizeof *h);
  size_t n = 0;
  xio_err rc = XIO_OK;
  if (!h) return nomem(err);
  for (size_t i = 0; i < req->nheaders && rc == XIO_OK; i++) {
    if (xio__auth_ncasecmp(req->headers[i].name, "x-ms-", 5) != 0) continue;
    h[n].name = xio__auth_lower_str(xio__auth_strdup(req->headers[i].name));
    h[n].value = req->headers[i].value ? req->headers[i].value : "";
    h[n].index = i;
    if (!h[n++].name) rc = nomem(err);
  }
  if (rc == XIO_OK) qsort(h, n, sizeof *h, cmp_ms_header);
  for (size_t i = 0; i < n && rc == XIO_OK; i++) {
    int same = i > 0 && strcmp(h[i].name, h[i - 1].name) == 0;
    if (same) {
      xio__auth_buf_putc(b, ',');
    } else {
      if (i > 0) xio__auth_buf_putc(b, '\n');
      xio__auth_buf_puts(b, h[i].name);
      xio__auth_buf_putc(b, ':');
    }
    put_folded(b, h[i].value);
    if (i + 1 == n) xio__auth_buf_putc(b, '\n');
  }
  for (size_t i = 0; i < n; i++)
    free(h[i].name);
  free(h);
  return rc;
}

static int cmp_param(const void *a, const void *b) {
  const xio__auth_param *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : strcmp(x->value, y->value);
}

/* "/ACCOUNT/path" then "\nname:v1,v2" per query parameter, names lowercased and
 * sorted, values decoded and sorted. */
static xio_err put_resource(xio__auth_buf *b, const char *account, const xio_auth_request *req,
                            xio_error *err) {
  xio__auth_params q;
  xio_err rc = xio__auth_query_parse(req->query, 1, XIO_EINVAL, &q, err);
  if (rc != XIO_OK) return rc;
  if (q.n > 1) qsort(q.v, q.n, sizeof *q.v, cmp_param);
  xio__auth_buf_putc(b, '/');
  xio__auth_buf_puts(b, account);
  xio__auth_buf_puts(b, req->path);
  for (size_t i = 0; i < q.n; i++) {
    if (i > 0 && strcmp(q.v[i].name, q.v[i - 1].name) == 0) {
      xio__auth_buf_putc(b, ',');
    } else {
      xio__auth_buf_putc(b, '\n');
      xio__auth_buf_puts(b, q.v[i].name);
      xio__auth_buf_putc(b, ':');
    }
    xio__auth_buf_puts(b, q.v[i].value);
  }
  xio__auth_params_free(&q);
  return XIO_OK;
}

static xio_err check_request(const char *account, const xio_auth_request *req, xio_error *err) {
  if (!account || !*account)
    return xio_error_set(err, XIO_EINVAL, "Shared Key needs an account name");
  if (!req || !req->method || !*req->method)
    return xio_error_set(err, XIO_EINVAL, "request has no method");
  if (!req->path || req->path[0] != '/')
    return xio_error_set(err, XIO_EINVAL, "request path must start with '/'");
  if (req->nheaders && !req->headers)
    return xio_error_set(err, XIO_EINVAL, "request headers are missing");
  for (size_t i = 0; i < req->nheaders; i++)
    if (!req->headers[i].name || !*req->headers[i].name)
      return xio_error_set(err, XIO_EINVAL, "request header %zu has no name", i + 1);
  return XIO_OK;
}

xio_err xio_auth_sharedkey_string_to_sign(const char *account, const xio_auth_request *req,
                                          char **out, xio_error *err) {
  xio__auth_buf b;
  if (!out) return xio_error_set(err, XIO_EINVAL, "no output for the string to sign");
  *out = NULL;
  xio_err rc = check_request(account, req, err);
  if (rc != XIO_OK) return rc;
  xio__auth_buf_init(&b);
  put_standard(&b, req);
  rc = put_ms_headers(&b, req, err);
  if (rc == XIO_OK) rc = put_resource(&b, account, req, err);
  if (rc != XIO_OK) return xio__auth_buf_free(&b), rc;
  if (!(*out = xio__auth_buf_take(&b))) return nomem(err);
  return XIO_OK;
}

xio_err xio_auth_sharedkey_authorization(const char *account, const unsigned char *key,
                                         size_t key_len, const xio_auth_request *req, char **out,
                                         xio_error *err) {
  char *sts = NULL, sig[45];
  if (!out) return xio_error_set(err, XIO_EINVAL, "no output for the Authorization value");
  *out = NULL;
  if (!key || key_len == 0) return xio_error_set(err, XIO_EINVAL, "account key is empty");
  xio_err rc = xio_auth_sharedkey_string_to_sign(account, req, &sts, err);
  if (rc != XIO_OK) return rc;
  rc = xio_auth_hmac_sha256_base64(key, key_len, sts, strlen(sts), sig);
  free(sts);
  if (rc != XIO_OK) return xio_error_set(err, rc, "signing failed");
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  xio__auth_buf_puts(&b, "SharedKey ");
  xio__auth_buf_puts(&b, account);
  xio__auth_buf_putc(&b, ':');
  xio__auth_buf_puts(&b, sig);
  OPENSSL_cleanse(sig, sizeof sig);
  if (!(*out = xio__auth_buf_take(&b))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}
