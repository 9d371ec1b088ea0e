/*
 * query.c - splits a raw query string into decoded name/value pairs, for the Shared
 * Key canonicalized resource and for SAS parsing, and finds one parameter's raw value
 * (whether a URL names a snapshot). Values may be secret (sig), so
 * they are wiped when freed.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "base_int.h"

void xio__auth_params_free(xio__auth_params *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n; i++) {
    xio_free(p->v[i].name);
    xio__auth_str_free(p->v[i].value);
  }
  xio_free(p->v);
  p->v = NULL;
  p->n = 0;
}

static size_t count_segments(const char *q) {
  size_t n = 1;
  for (; *q; q++)
    n += *q == '&';
  return n;
}

static xio_err decode_failed(xio_err rc, xio_err bad, const char *what, xio_error *err) {
  if (rc == XIO_ENOMEM) return xio_error_set(err, XIO_ENOMEM, "out of memory parsing a query");
  return xio_error_set(err, bad, "query parameter %s has a malformed %% escape", what);
}

/* Decodes one "name[=value]" segment of `len` bytes into `out`. Names a bad
 * parameter by its name, never by its value (which may be a signature). */
static xio_err parse_segment(const char *seg, size_t len, int lower, xio_err bad,
                             xio__auth_param *out, xio_error *err) {
  const char *eq = memchr(seg, '=', len);
  size_t nlen = eq ? (size_t)(eq - seg) : len;
  const char *val = eq ? eq + 1 : seg + len;
  xio_err rc = xio_auth_pct_decode(seg, nlen, &out->name, NULL);
  if (rc != XIO_OK) return decode_failed(rc, bad, "name", err);
  if (lower) xio__auth_lower_str(out->name);
  rc = xio_auth_pct_decode(val, (size_t)(seg + len - val), &out->value, NULL);
  if (rc != XIO_OK) {
    char what[80];
    snprintf(what, sizeof what, "'%.60s'", out->name);
    xio_free(out->name);
    out->name = NULL;
    return decode_failed(rc, bad, what, err);
  }
  return XIO_OK;
}

xio_err xio__auth_query_parse(const char *query, int lower_names, xio_err bad_code,
                              xio__auth_params *out, xio_error *err) {
  out->v = NULL;
  out->n = 0;
  if (!query || !*query) return XIO_OK;
  out->v = xio_calloc(count_segments(query), sizeof *out->v);
  if (!out->v) return xio_error_set(err, XIO_ENOMEM, "out of memory parsing a query");
  const char *p = query;
  while (*p) {
    const char *end = strchr(p, '&');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len) {
      xio_err rc = parse_segment(p, len, lower_names, bad_code, &out->v[out->n], err);
      if (rc != XIO_OK) return xio__auth_params_free(out), rc;
      out->n++;
    }
    p += len + (end ? 1 : 0);
  }
  return XIO_OK;
}

const char *xio_auth_query_value(const char *query, const char *name, size_t *len) {
  size_t nlen = name ? strlen(name) : 0;
  for (const char *p = query; p && *p && nlen;) {
    size_t seg = strcspn(p, "&");
    if (seg > nlen && p[nlen] == '=' && strncmp(p, name, nlen) == 0) {
      if (len) *len = seg - nlen - 1;
      return p + nlen + 1;
    }
    p += seg + (p[seg] == '&');
  }
  return NULL;
}
