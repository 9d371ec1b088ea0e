/*
 * connstr.c - Azure Storage connection strings ("Key=Value;Key=Value"), the account
 * they describe, its blob endpoint and the URLs under it. Keys are case-insensitive,
 * values may contain '=', empty segments are skipped, unknown keys are ignored. The text holds an
 * account key or a SAS, so the working copy is wiped and no message ever quotes a value. Part of
 * libxio_auth's credentials and signing (auth/cred/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include <xio/alloc.h>

#include "cred_int.h"

/* The recognised values, pointing into the working copy; NULL when absent. */
typedef struct fields {
  const char *protocol, *name, *key, *endpoint, *suffix, *sas, *dev;
} fields;

static char *trim(char *s, char *end) {
  while (s < end && xio__auth_is_space(*s))
    s++;
  while (end > s && xio__auth_is_space(end[-1]))
    end--;
  *end = '\0';
  return s;
}

static const char **slot(fields *f, const char *key) {
  static const struct {
    const char *key;
    size_t offset;
  } known[] = {
      {"DefaultEndpointsProtocol", offsetof(fields, protocol)},
      {"AccountName", offsetof(fields, name)},
      {"AccountKey", offsetof(fields, key)},
      {"BlobEndpoint", offsetof(fields, endpoint)},
      {"EndpointSuffix", offsetof(fields, suffix)},
      {"SharedAccessSignature", offsetof(fields, sas)},
      {"UseDevelopmentStorage", offsetof(fields, dev)},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (xio__auth_casecmp(key, known[i].key) == 0)
      return (const char **)(void *)((char *)f + known[i].offset);
  return NULL;
}

/* Splits the segment [seg, end) at its first '=' and records a known key. */
static xio_err take_segment(char *seg, char *end, int index, fields *f, xio_error *err) {
  char *eq = memchr(seg, '=', (size_t)(end - seg));
  if (!eq) {
    char *k = trim(seg, end);
    if (!*k) return XIO_OK; /* empty segment */
    if (slot(f, k))         /* a known key name: safe to quote, unlike a stray secret */
      return xio_error_set(err, XIO_EPARSE, "connection string: %s has no '=' value", k);
    return xio_error_set(err, XIO_EPARSE, "connection string: segment %d is not Key=Value", index);
  }
  char *key = trim(seg, eq);
  char *value = trim(eq + 1, end);
  if (!*key)
    return xio_error_set(err, XIO_EPARSE, "connection string: segment %d has an empty key", index);
  const char **dst = slot(f, key);
  if (!dst) return XIO_OK; /* unknown keys are ignored */
  if (!*value) return xio_error_set(err, XIO_EPARSE, "connection string: %s is empty", key);
  *dst = value;
  return XIO_OK;
}

static xio_err split(char *text, fields *f, xio_error *err) {
  char *p = text;
  for (int index = 1;; index++) {
    char *end = strchr(p, ';');
    char *stop = end ? end : p + strlen(p);
    xio_err rc = take_segment(p, stop, index, f, err);
    if (rc != XIO_OK || !end) return rc;
    p = end + 1;
  }
}

/* UseDevelopmentStorage=true fills in Azurite's account; explicit keys still win. */
static xio_err apply_dev(fields *f, xio_error *err) {
  if (!f->dev) return XIO_OK;
  if (xio__auth_casecmp(f->dev, "true") != 0)
    return xio_error_set(err, XIO_EPARSE, "connection string: UseDevelopmentStorage must be true");
  if (!f->name) f->name = XIO_AUTH_DEV_ACCOUNT;
  if (!f->key && !f->sas) f->key = XIO_AUTH_DEV_KEY;
  if (!f->endpoint) f->endpoint = "http://127.0.0.1:10000/" XIO_AUTH_DEV_ACCOUNT;
  return XIO_OK;
}

static xio_err check_fields(const fields *f, xio_error *err) {
  if (f->protocol && xio__auth_casecmp(f->protocol, "https") != 0 &&
      xio__auth_casecmp(f->protocol, "http") != 0)
    return xio_error_set(err, XIO_EPARSE,
                         "connection string: DefaultEndpointsProtocol must be http or https");
  if (!f->name && !f->endpoint)
    return xio_error_set(err, XIO_EPARSE,
                         "connection string: neither AccountName nor BlobEndpoint is set");
  if (!f->key && !f->sas)
    return xio_error_set(err, XIO_EPARSE,
                         "connection string: neither AccountKey nor SharedAccessSignature is set");
  if (f->key && !f->name)
    return xio_error_set(err, XIO_EPARSE,
                         "connection string: AccountKey is set without AccountName");
  return XIO_OK;
}

/* 1 when `s` is non-empty and holds only letters, digits, '-' and, if `dots`, '.'. */
static int host_name(const char *s, int dots) {
  if (!*s) return 0;
  for (; *s; s++) {
    char c = *s;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '-' || (dots && c == '.');
    if (!ok) return 0;
  }
  return 1;
}

/* The blob endpoint: BlobEndpoint without trailing '/', else derived from the name. */
static xio_err make_endpoint(const fields *f, xio_auth_account *a, xio_error *err) {
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  if (f->endpoint) {
    size_t n = strlen(f->endpoint);
    while (n > 0 && f->endpoint[n - 1] == '/')
      n--;
    size_t scheme = xio__auth_ncasecmp(f->endpoint, "https://", 8) == 0  ? 8
                    : xio__auth_ncasecmp(f->endpoint, "http://", 7) == 0 ? 7
                                                                         : 0;
    if (!scheme || n <= scheme) /* not http(s), or no host after the scheme */
      return xio_error_set(err, XIO_EPARSE,
                           "connection string: BlobEndpoint must be an http(s) URL");
    xio__auth_buf_add(&b, f->endpoint, n);
  } else {
    const char *suffix = f->suffix ? f->suffix : "core.windows.net";
    while (*suffix == '.')
      suffix++;
    /* Both become the endpoint's host name: nothing else may slip into the URL. */
    if (!host_name(f->name, 0) || !host_name(suffix, 1))
      return xio_error_set(err, XIO_EPARSE, "connection string: %s",
                           !host_name(f->name, 0) ? "AccountName may hold only letters and digits"
                                                  : "EndpointSuffix is not a host name");
    xio__auth_buf_puts(&b, f->protocol ? f->protocol : "https");
    xio__auth_buf_puts(&b, "://");
    xio__auth_buf_puts(&b, f->name);
    xio__auth_buf_puts(&b, ".blob.");
    xio__auth_buf_puts(&b, suffix);
    xio__auth_lower_str(b.data);
  }
  a->blob_endpoint = xio__auth_buf_take(&b);
  if (!a->blob_endpoint) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

static xio_err fill(const fields *f, xio_auth_account *a, xio_error *err) {
  xio_err rc = make_endpoint(f, a, err);
  if (rc != XIO_OK) return rc;
  if (f->name && !(a->name = xio__auth_strdup(f->name)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (f->sas && !(a->sas = xio__auth_strdup(f->sas + (f->sas[0] == '?'))))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (!f->key) return XIO_OK;
  rc = xio_auth_base64_decode(f->key, &a->key, &a->key_len, err);
  if (rc == XIO_EPARSE)
    return xio_error_set(err, XIO_EPARSE, "connection string: AccountKey is not base64");
  if (rc == XIO_OK && a->key_len == 0)
    return xio_error_set(err, XIO_EPARSE, "connection string: AccountKey is empty");
  return rc;
}

xio_err xio_auth_connstr_parse(const char *text, xio_auth_account *out, xio_error *err) {
  fields f;
  memset(&f, 0, sizeof f);
  if (!out) return xio_error_set(err, XIO_EINVAL, "no account to fill");
  memset(out, 0, sizeof *out);
  if (!text) return xio_error_set(err, XIO_EINVAL, "connection string is NULL");
  size_t n = strlen(text);
  char *copy = xio__auth_strndup(text, n);
  if (!copy) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = split(copy, &f, err);
  if (rc == XIO_OK) rc = apply_dev(&f, err);
  if (rc == XIO_OK) rc = check_fields(&f, err);
  if (rc == XIO_OK) rc = fill(&f, out, err);
  OPENSSL_cleanse(copy, n); /* split() cut it with NULs: wipe all of it */
  xio_free(copy);
  if (rc != XIO_OK) {
    xio_auth_account_clear(out);
    xio__auth_operation(err, "ParseConnectionString");
  }
  return rc;
}

int xio_auth_account_serves(const xio_auth_account *a, const char *url) {
  if (!a || !a->blob_endpoint || !url) return 0;
  size_t n = strlen(a->blob_endpoint);
  return strncmp(url, a->blob_endpoint, n) == 0 &&
         (url[n] == '/' || url[n] == '\0' || url[n] == '?');
}

void xio_auth_account_clear(xio_auth_account *a) {
  if (!a) return;
  xio_free(a->name);
  xio_auth_secret_free(a->key, a->key_len);
  xio_free(a->blob_endpoint);
  xio__auth_str_free(a->sas);
  memset(a, 0, sizeof *a);
}
