/*
 * headers.c - a small list of owned HTTP header name/value pairs, kept in insertion
 * order and searched case-insensitively. Used for request headers before they are
 * signed and for response headers as they arrive; values are wiped when released,
 * as a request header may be a secret (a managed identity's X-IDENTITY-HEADER). And
 * the wiping release of the "Name: value" lines handed to libcurl.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>

#include <xio/alloc.h>

#include "call_int.h"

xio_err xio__blob_hdrs_add(xio__blob_hdrs *h, const char *name, const char *value) {
  if (h->n == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 8;
    xio__blob_hdr *v = xio_realloc(h->v, cap * sizeof *v);
    if (!v) return XIO_ENOMEM;
    h->v = v;
    h->cap = cap;
  }
  char *n = xio_strdup(name), *val = xio_strdup(value ? value : "");
  if (!n || !val) {
    xio_free(n);
    xio_free(val);
    return XIO_ENOMEM;
  }
  h->v[h->n].name = n;
  h->v[h->n].value = val;
  h->n++;
  return XIO_OK;
}

const char *xio__blob_hdrs_get(const xio__blob_hdrs *h, const char *name) {
  for (size_t i = 0; i < h->n; i++)
    if (strcasecmp(h->v[i].name, name) == 0) return h->v[i].value;
  return NULL;
}

void xio__blob_hdrs_reset(xio__blob_hdrs *h) {
  for (size_t i = 0; i < h->n; i++) {
    xio_free(h->v[i].name);
    OPENSSL_cleanse(h->v[i].value, strlen(h->v[i].value));
    xio_free(h->v[i].value);
  }
  h->n = 0;
}

void xio__blob_hdrs_free(xio__blob_hdrs *h) {
  xio__blob_hdrs_reset(h);
  xio_free(h->v);
  h->v = NULL;
  h->cap = 0;
}

void xio__blob_slist_free(struct curl_slist *l) {
  for (struct curl_slist *p = l; p; p = p->next)
    if (p->data) OPENSSL_cleanse(p->data, strlen(p->data));
  curl_slist_free_all(l);
}
